//! Synthetic data-affinity graphs for tests, benchmarks and the command line: meshes (the regular,
//! local graphs of stencil and finite-element codes), scale-free graphs (the skewed degrees of social
//! and web graphs), cliques and cycles.
//!
//! Every generator is deterministic for a seed, through [`SplitMix64`], so a benchmark names its input
//! by a spec string such as `mesh2d:1000x1000:seed=3`. Meshes are numbered at random and listed as a
//! mesh file lists them, so that the input order carries no locality a partitioner could get for free.
//! Deliberately not here: weights, directed graphs, and any claim of statistical fidelity beyond the
//! shape of the degree distribution.

use crate::graph::{Graph, MAX_VERTICES};
use crate::limits::{Footprint, MemoryBudget};
use crate::rng::SplitMix64;

/// The most edges a generator makes: 2^27, enough for any benchmark (the 1 M-edge one is 2^20). A
/// spec must also fit the memory its partition will need ([`crate::limits`]), which on most
/// machines is the tighter bound.
pub const MAX_SPEC_EDGES: u64 = 1 << 27;

/// Panics unless a graph of `vertices` and `edges` is within [`MAX_VERTICES`] and
/// [`MAX_SPEC_EDGES`]: called by every generator before it allocates, so that a library caller's
/// mistake is a message, not an allocation abort. User input goes through [`from_spec`], which
/// returns an error instead.
fn assert_generable(what: &str, vertices: u128, edges: u128) {
    assert!(
        vertices <= u128::from(MAX_VERTICES) && edges <= u128::from(MAX_SPEC_EDGES),
        "{what}: {vertices} vertices and {edges} edges exceed the generators' limits \
         ({MAX_VERTICES} vertices, {MAX_SPEC_EDGES} edges)"
    );
}

const SPEC_FORMS: &str =
    "mesh2d:WxH, mesh3d:XxYxZ, scalefree:N:D, clique:N or cycle:N (optionally :seed=S)";

const DEFAULT_SEED: u64 = 1;

/// The width × height grid, each vertex joined to its 4 neighbours, vertices numbered by a seeded
/// random permutation; `coords` hold each vertex's grid position (x, y, 0) and the edges are sorted
/// by (smaller id, larger id), as a mesh file numbered without care would list them.
///
/// # Panics
/// Beyond [`MAX_VERTICES`] vertices or [`MAX_SPEC_EDGES`] edges ([`from_spec`] checks this for user
/// input).
pub fn mesh2d(width: u32, height: u32, seed: u64) -> Graph {
    mesh([width, height, 1], seed)
}

/// The x × y × z grid with 6-neighbour edges, numbered and listed as in [`mesh2d`]; `coords` hold
/// (x, y, z).
///
/// # Panics
/// As [`mesh2d`].
pub fn mesh3d(x: u32, y: u32, z: u32, seed: u64) -> Graph {
    mesh([x, y, z], seed)
}

fn mesh(dims: [u32; 3], seed: u64) -> Graph {
    let cells = dims.iter().map(|&d| u128::from(d)).product::<u128>();
    assert_generable(
        &format!("a {}x{}x{} mesh", dims[0], dims[1], dims[2]),
        cells,
        mesh_edge_count(dims),
    );
    let n = cells as usize;
    let [w, h, _] = dims.map(|d| d as usize);

    let mut id_of_cell: Vec<u32> = (0..n as u32).collect();
    SplitMix64::new(seed).shuffle(&mut id_of_cell);
    let mut cell_of_id = vec![0u32; n];
    for (cell, &id) in id_of_cell.iter().enumerate() {
        cell_of_id[id as usize] = cell as u32;
    }

    let position = |cell: usize| [cell % w, (cell / w) % h, cell / (w * h)];
    let strides = [1, w, w * h];
    let mut coords = Vec::with_capacity(n);
    let mut edges = Vec::with_capacity(mesh_edge_count(dims) as usize);
    // Walking ids in order and emitting each vertex's higher-numbered neighbours, sorted, yields the
    // edges sorted by (min, max) without a global sort.
    let mut higher = Vec::with_capacity(6);
    for id in 0..n as u32 {
        let cell = cell_of_id[id as usize] as usize;
        let at = position(cell);
        coords.push(at.map(|c| c as f64));
        higher.clear();
        for axis in 0..3 {
            let mut neighbour = |other: usize| {
                let other_id = id_of_cell[other];
                if other_id > id {
                    higher.push(other_id);
                }
            };
            if at[axis] > 0 {
                neighbour(cell - strides[axis]);
            }
            if at[axis] + 1 < dims[axis] as usize {
                neighbour(cell + strides[axis]);
            }
        }
        higher.sort_unstable();
        edges.extend(higher.iter().map(|&other| (id, other)));
    }
    Graph {
        vertices: n as u32,
        edges,
        coords: Some(coords),
        matrix: None,
    }
}

/// Edges of a grid: along each axis, one fewer than the cells in that direction, for every line.
fn mesh_edge_count(dims: [u32; 3]) -> u128 {
    let all = dims.iter().map(|&d| u128::from(d)).product::<u128>();
    if all == 0 {
        return 0;
    }
    dims.iter()
        .map(|&d| all / u128::from(d) * (u128::from(d) - 1))
        .sum()
}

/// A Barabási–Albert preferential-attachment graph (Barabási, Albert: "Emergence of scaling in random
/// networks", Science 1999): a clique on `edges_per_vertex + 1` vertices, then each further vertex
/// joined to `edges_per_vertex` distinct earlier vertices chosen with probability proportional to
/// their degree. Ids are then permuted at random; edges stay in generation order. No self-loops, no
/// parallel edges. With `vertices <= edges_per_vertex + 1` the result is the clique on `vertices`.
///
/// # Panics
/// As [`mesh2d`].
pub fn scale_free(vertices: u32, edges_per_vertex: u32, seed: u64) -> Graph {
    let per = edges_per_vertex;
    let core = per.saturating_add(1).min(vertices);
    let expected = scale_free_edge_count(vertices, per);
    assert_generable("a scale-free graph", u128::from(vertices), expected);
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(expected as usize);
    // Every edge puts both endpoints here, so a uniform pick from it is a degree-proportional pick.
    let mut endpoints: Vec<u32> = Vec::with_capacity(2 * expected as usize);
    for i in 0..core {
        for j in i + 1..core {
            edges.push((i, j));
            endpoints.extend([i, j]);
        }
    }
    let mut rng = SplitMix64::new(seed);
    // chosen_by[t] == v marks t as already picked by vertex v; v < u32::MAX so the sentinel is free.
    let mut chosen_by = vec![u32::MAX; vertices as usize];
    let mut targets = Vec::with_capacity(per as usize);
    for v in core..vertices {
        targets.clear();
        while targets.len() < per as usize {
            let t = endpoints[rng.below(endpoints.len() as u64) as usize];
            if chosen_by[t as usize] != v {
                chosen_by[t as usize] = v;
                targets.push(t);
            }
        }
        for &t in &targets {
            edges.push((v, t));
            endpoints.extend([v, t]);
        }
    }
    drop(endpoints);
    let mut id = (0..vertices).collect::<Vec<u32>>();
    rng.shuffle(&mut id);
    for (u, v) in &mut edges {
        *u = id[*u as usize];
        *v = id[*v as usize];
    }
    Graph::new(vertices, edges)
}

fn scale_free_edge_count(vertices: u32, per: u32) -> u128 {
    let core = u128::from(per.saturating_add(1).min(vertices));
    core * core.saturating_sub(1) / 2 + (u128::from(vertices) - core) * u128::from(per)
}

/// The complete graph on `n` vertices: every pair i < j, in lexicographic order.
///
/// # Panics
/// As [`mesh2d`].
pub fn clique(n: u32) -> Graph {
    assert_generable(
        "a clique",
        u128::from(n),
        u128::from(n) * u128::from(n.saturating_sub(1)) / 2,
    );
    let mut edges =
        Vec::with_capacity((u64::from(n) * u64::from(n.saturating_sub(1)) / 2) as usize);
    for i in 0..n {
        for j in i + 1..n {
            edges.push((i, j));
        }
    }
    Graph::new(n, edges)
}

/// The cycle on `n` vertices: edges (i, i + 1 mod n) for i = 0..n.
///
/// # Panics
/// If `n < 3` (smaller "cycles" would need a self-loop or a parallel edge; [`from_spec`] rejects
/// them), and as [`mesh2d`].
pub fn cycle(n: u32) -> Graph {
    assert!(n >= 3, "a cycle needs at least 3 vertices, got {n}");
    assert_generable("a cycle", u128::from(n), u128::from(n));
    let edges = (0..n).map(|i| (i, (i + 1) % n)).collect();
    Graph::new(n, edges)
}

/// Builds a graph from a command-line spec: `mesh2d:WxH`, `mesh3d:XxYxZ`, `scalefree:N:D`, `clique:N`
/// or `cycle:N`, each optionally followed by `:seed=S` (default 1). Sizes must be positive, the
/// graph must have at most [`MAX_VERTICES`] vertices and [`MAX_SPEC_EDGES`] edges, and its
/// partition must fit [`MemoryBudget::of_this_machine`]: all checked before anything is allocated.
pub fn from_spec(spec: &str) -> Result<Graph, String> {
    from_spec_within(spec, MemoryBudget::of_this_machine())
}

/// As [`from_spec`], within `budget`.
pub fn from_spec_within(spec: &str, budget: MemoryBudget) -> Result<Graph, String> {
    let mut parts: Vec<&str> = spec.trim().split(':').collect();
    let mut seed = DEFAULT_SEED;
    if parts.len() > 1 {
        if let Some(text) = parts[parts.len() - 1].strip_prefix("seed=") {
            seed = text.parse().map_err(|_| {
                format!(
                    "bad graph spec '{spec}': the seed must be an unsigned integer, found '{text}'"
                )
            })?;
            parts.pop();
        }
    }
    let name = parts[0];
    let args = &parts[1..];
    let form = match name {
        "mesh2d" => "mesh2d:WxH",
        "mesh3d" => "mesh3d:XxYxZ",
        "scalefree" => "scalefree:N:D",
        "clique" => "clique:N",
        "cycle" => "cycle:N",
        _ => {
            return Err(format!(
                "unknown graph generator '{name}': use {SPEC_FORMS}"
            ))
        }
    };
    let malformed = || {
        format!(
            "bad graph spec '{spec}': expected {form} with positive integer sizes \
             (optionally :seed=S)"
        )
    };
    let sizes: Vec<u32> = match (name, args) {
        ("mesh2d" | "mesh3d", [dims]) => dims
            .split(['x', 'X'])
            .map(|d| d.parse::<u32>().map_err(|_| malformed()))
            .collect::<Result<_, _>>()?,
        ("scalefree" | "clique" | "cycle", _) => args
            .iter()
            .map(|d| d.parse::<u32>().map_err(|_| malformed()))
            .collect::<Result<_, _>>()?,
        _ => return Err(malformed()),
    };
    let arity = match name {
        "mesh2d" | "scalefree" => 2,
        "mesh3d" => 3,
        _ => 1,
    };
    if sizes.len() != arity {
        return Err(malformed());
    }
    if sizes.contains(&0) {
        return Err(format!("bad graph spec '{spec}': sizes must be at least 1"));
    }
    let (vertices, edges) = match name {
        "mesh2d" => (
            u128::from(sizes[0]) * u128::from(sizes[1]),
            mesh_edge_count([sizes[0], sizes[1], 1]),
        ),
        "mesh3d" => {
            let dims = [sizes[0], sizes[1], sizes[2]];
            (
                dims.iter().map(|&d| u128::from(d)).product(),
                mesh_edge_count(dims),
            )
        }
        "scalefree" => {
            if sizes[0] <= sizes[1] {
                return Err(format!(
                    "bad graph spec '{spec}': N must exceed D, since the graph grows from a clique \
                     of D+1 vertices"
                ));
            }
            (
                u128::from(sizes[0]),
                scale_free_edge_count(sizes[0], sizes[1]),
            )
        }
        "clique" => {
            let n = u128::from(sizes[0]);
            (n, n * (n - 1) / 2)
        }
        _ => {
            if sizes[0] < 3 {
                return Err(format!(
                    "bad graph spec '{spec}': a cycle needs at least 3 vertices"
                ));
            }
            (u128::from(sizes[0]), u128::from(sizes[0]))
        }
    };
    if vertices > u128::from(MAX_VERTICES) || edges > u128::from(MAX_SPEC_EDGES) {
        return Err(format!(
            "bad graph spec '{spec}': {vertices} vertices and {edges} edges exceed the limits \
             ({MAX_VERTICES} vertices, {MAX_SPEC_EDGES} edges); use smaller sizes"
        ));
    }
    // Both counts are now below 2^27, so they fit u64.
    let footprint = Footprint {
        vertices: vertices as u64,
        edges: edges as u64,
    };
    budget
        .check(footprint)
        .map_err(|e| format!("bad graph spec '{spec}': {e}"))?;
    Ok(match name {
        "mesh2d" => mesh2d(sizes[0], sizes[1], seed),
        "mesh3d" => mesh3d(sizes[0], sizes[1], sizes[2], seed),
        "scalefree" => scale_free(sizes[0], sizes[1], seed),
        "clique" => clique(sizes[0]),
        _ => cycle(sizes[0]),
    })
}
