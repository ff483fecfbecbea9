"""The benchmark's graphs, written as edge lists (`u v` per line, 0-based, every undirected edge once,
no self-loops, vertices numbered at random so that ids carry no locality) for GRAPE, NE and HEP alike.

Families (each made to about the requested edge count, or at its own size for METIS's sample graphs):
  delaunay2d  Delaunay triangulation of uniform random points in the unit square (scipy's Qhull);
  delaunay3d  Delaunay tetrahedralisation of uniform random points in the unit cube (average degree
              about 15.5);
  grid        the 2-D 4-neighbour grid;
  road        road-like: the Euclidean minimum spanning tree of a 2-D Delaunay triangulation plus 15 %
              of its other edges, at random (average degree about 2.6, planar, long chains);
  4elt, copter2  METIS's sample finite-element graphs (metis-sys's vendored graphs/);
  4elt-spmv   4elt as the matrix A + I of y = Ax: Matrix Market (`4elt-spmv.mtx`, what GRAPE reads)
              and the same nonzeros as the bipartite edge list (row r, n + column c), in the same
              order, for NE, HEP and the recount;
  ba          Barabási–Albert (Science 1999), 4 edges per new vertex;
  rmat        R-MAT (Chakrabarti et al., SDM 2004) with Graph500's a, b, c = 0.57, 0.19, 0.19 and
              16 edge draws per vertex, self-loops and repeats dropped.
Usage: graphs.py FAMILY EDGES SEED OUT.txt  (EDGES ignored for 4elt, copter2, 4elt-spmv).
"""
import glob
import os
import sys

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.spatial import Delaunay


def simplex_edges(simplices):
    d = simplices.shape[1]
    pairs = [np.stack([simplices[:, i], simplices[:, j]], 1) for i in range(d) for j in range(i + 1, d)]
    return np.concatenate(pairs)


def normalise(edges, n, rng, shuffle_ids=True):
    """Drops self-loops and repeats, numbers the vertices at random, shuffles the edge order."""
    edges = edges[edges[:, 0] != edges[:, 1]]
    edges = np.sort(edges, axis=1)
    edges = np.unique(edges, axis=0)
    used = np.unique(edges)
    new_id = np.full(n, -1, dtype=np.int64)
    perm = rng.permutation(len(used)) if shuffle_ids else np.arange(len(used))
    new_id[used] = perm
    edges = new_id[edges]
    edges = np.sort(edges, axis=1)
    # Sorted by (min, max) id, as a mesh file numbered without care lists them.
    order = np.lexsort((edges[:, 1], edges[:, 0]))
    return edges[order]


def delaunay(points):
    tri = Delaunay(points)
    return simplex_edges(tri.simplices)


def metis_graph(name):
    pattern = os.path.expanduser(f"~/.cargo/registry/src/*/metis-sys-*/vendor/metis/graphs/{name}.graph")
    found = sorted(glob.glob(pattern))
    if not found:
        sys.exit(f"graphs.py: no {name}.graph under ~/.cargo/registry (build the project once: metis-sys vendors it)")
    with open(found[-1]) as f:
        lines = [l for l in f if not l.startswith("%")]
    n = int(lines[0].split()[0])
    edges = []
    for u, line in enumerate(lines[1 : n + 1]):
        for v in line.split():
            v = int(v) - 1
            if u < v:
                edges.append((u, v))
    return np.array(edges, dtype=np.int64), n


def generate(family, m, seed):
    rng = np.random.default_rng(seed)
    if family == "delaunay2d":
        n = max(int(m / 3), 16)
        return normalise(delaunay(rng.random((n, 2))), n, rng)
    if family == "delaunay3d":
        n = max(int(m / 7.7), 32)
        return normalise(delaunay(rng.random((n, 3))), n, rng)
    if family == "grid":
        w = max(int(np.sqrt(m / 2)), 2)
        ids = np.arange(w * w).reshape(w, w)
        e = np.concatenate([
            np.stack([ids[:, :-1].ravel(), ids[:, 1:].ravel()], 1),
            np.stack([ids[:-1, :].ravel(), ids[1:, :].ravel()], 1),
        ])
        return normalise(e, w * w, rng)
    if family == "road":
        n = max(int(m / 1.3), 16)
        pts = rng.random((n, 2))
        e = np.unique(np.sort(delaunay(pts), axis=1), axis=0)
        length = np.linalg.norm(pts[e[:, 0]] - pts[e[:, 1]], axis=1)
        tree = minimum_spanning_tree(coo_matrix((length, (e[:, 0], e[:, 1])), shape=(n, n))).tocoo()
        t = np.stack([tree.row, tree.col], 1)
        extra = e[rng.random(len(e)) < 0.15]
        return normalise(np.concatenate([t, extra]), n, rng)
    if family in ("4elt", "copter2"):
        e, n = metis_graph(family)
        return normalise(e, n, rng)
    if family == "ba":
        per = 4
        n = max(m // per, per + 2)
        core = per + 1
        edges = [(i, j) for i in range(core) for j in range(i + 1, core)]
        ends = [x for e in edges for x in e]
        picks = rng.random(n * per * 2)
        p = 0
        for v in range(core, n):
            chosen = set()
            while len(chosen) < per:
                t = ends[int(picks[p % len(picks)] * len(ends))]
                p += 1
                chosen.add(t)
            for t in chosen:
                edges.append((v, t))
                ends.extend((v, t))
        return normalise(np.array(edges, dtype=np.int64), n, rng)
    if family == "rmat":
        scale = max(int(np.round(np.log2(m / 16 * 1.1))) , 4)
        draws = int(m * 1.25)
        a, b, c = 0.57, 0.19, 0.19
        u = np.zeros(draws, dtype=np.int64)
        v = np.zeros(draws, dtype=np.int64)
        for bit in range(scale):
            r = rng.random(draws)
            right = (r >= a) & (r < a + b) | (r >= a + b + c)
            down = r >= a + b
            u |= down.astype(np.int64) << bit
            v |= right.astype(np.int64) << bit
        e = normalise(np.stack([u, v], 1), 1 << scale, rng)
        if len(e) > m:
            e = e[np.sort(rng.choice(len(e), m, replace=False))]
        return normalise(e, int(e.max()) + 1, rng)
    sys.exit(f"graphs.py: unknown family {family}")


def write_edges(path, e):
    np.savetxt(path, e, fmt="%d %d")


def main():
    family, m, seed, out = sys.argv[1], int(float(sys.argv[2])), int(sys.argv[3]), sys.argv[4]
    if family == "4elt-spmv":
        e, n = metis_graph("4elt")
        # A + I: both directions of every edge and the diagonal, rows sorted, as a matrix file lists them.
        nz = np.concatenate([e, e[:, ::-1], np.stack([np.arange(n), np.arange(n)], 1)])
        nz = nz[np.lexsort((nz[:, 1], nz[:, 0]))]
        mtx = out[: -len(".txt")] + ".mtx"
        with open(mtx, "w") as f:
            f.write("%%MatrixMarket matrix coordinate pattern general\n")
            f.write(f"{n} {n} {len(nz)}\n")
            np.savetxt(f, nz + 1, fmt="%d %d")
        write_edges(out, np.stack([nz[:, 0], n + nz[:, 1]], 1))
        return
    write_edges(out, generate(family, m, seed))


if __name__ == "__main__":
    main()
