//! The generators: shapes checked against counts and geometry computed here, determinism per seed,
//! and the spec strings of the command line.

use std::collections::{BTreeSet, HashMap, HashSet};

use grape::generate::{clique, cycle, from_spec, mesh2d, mesh3d, scale_free};
use grape::graph::Graph;

fn degrees(graph: &Graph) -> Vec<u32> {
    let mut degree = vec![0u32; graph.vertices as usize];
    for &(u, v) in &graph.edges {
        degree[u as usize] += 1;
        degree[v as usize] += 1;
    }
    degree
}

fn grid_position(graph: &Graph, v: u32) -> [i64; 3] {
    let c = graph.coords.as_ref().expect("meshes have coordinates")[v as usize];
    for x in c {
        assert_eq!(x, x.trunc(), "grid coordinates are whole numbers");
    }
    c.map(|x| x as i64)
}

/// Checks that `graph` is exactly the grid `dims` under some numbering: every grid point is one
/// vertex, and the edges are exactly the pairs of points at distance 1, listed sorted by
/// (smaller id, larger id).
fn assert_is_grid(graph: &Graph, dims: [i64; 3]) {
    let n = (dims[0] * dims[1] * dims[2]) as u32;
    assert_eq!(graph.vertices, n);
    let mut vertex_at = HashMap::new();
    for v in 0..n {
        let p = grid_position(graph, v);
        assert!(
            (0..3).all(|a| (0..dims[a]).contains(&p[a])),
            "vertex {v} at {p:?} is off the grid"
        );
        assert!(vertex_at.insert(p, v).is_none(), "two vertices at {p:?}");
    }
    let mut expected = Vec::new();
    for (&p, &v) in &vertex_at {
        for axis in 0..3 {
            let mut q = p;
            q[axis] += 1;
            if let Some(&w) = vertex_at.get(&q) {
                expected.push((v.min(w), v.max(w)));
            }
        }
    }
    expected.sort();
    assert_eq!(graph.edges, expected);
}

#[test]
fn mesh2d_is_the_grid_with_the_formula_edge_count() {
    for (w, h) in [(8u32, 8u32), (5, 3), (1, 7), (6, 1)] {
        let graph = mesh2d(w, h, 1);
        assert_eq!(
            graph.edges.len() as u32,
            (w - 1) * h + w * (h - 1),
            "{w}x{h}"
        );
        assert!(degrees(&graph).iter().all(|&d| d <= 4));
        for &(u, v) in &graph.edges {
            let (p, q) = (grid_position(&graph, u), grid_position(&graph, v));
            let distance: i64 = (0..3).map(|a| (p[a] - q[a]).abs()).sum();
            assert_eq!(distance, 1, "edge ({u}, {v}) joins {p:?} and {q:?}");
            assert_eq!(p[2], 0);
        }
        assert_is_grid(&graph, [w as i64, h as i64, 1]);
        assert_eq!(graph.matrix, None);
    }
}

#[test]
fn mesh2d_numbering_is_a_random_permutation() {
    let graph = mesh2d(8, 8, 1);
    // Row-major numbering would put vertex i at (i mod 8, i div 8).
    let row_major =
        (0..64).filter(|&v| grid_position(&graph, v) == [v as i64 % 8, v as i64 / 8, 0]);
    assert!(
        row_major.count() < 16,
        "the numbering looks like the grid order"
    );
    // All 64 positions are used once (also checked in assert_is_grid).
    let positions: HashSet<[i64; 3]> = (0..64).map(|v| grid_position(&graph, v)).collect();
    assert_eq!(positions.len(), 64);
}

#[test]
fn mesh3d_is_the_grid_with_six_neighbours() {
    let graph = mesh3d(3, 4, 5, 9);
    // Along x: 2 steps on each of 4*5 lines; along y: 3 on 3*5; along z: 4 on 3*4.
    assert_eq!(graph.edges.len(), 2 * 20 + 3 * 15 + 4 * 12);
    assert!(degrees(&graph).iter().all(|&d| d <= 6));
    assert_eq!(
        degrees(&graph).iter().filter(|&&d| d == 6).count(),
        6,
        "the 1x2x3 interior"
    );
    assert_is_grid(&graph, [3, 4, 5]);
    let flat = mesh3d(4, 3, 1, 2);
    assert_eq!(flat.edges.len(), 3 * 3 + 4 * 2);
}

#[test]
fn same_seed_same_graph_other_seed_other_numbering() {
    assert_eq!(mesh2d(8, 8, 5), mesh2d(8, 8, 5));
    assert_ne!(mesh2d(8, 8, 5).edges, mesh2d(8, 8, 6).edges);
    assert_ne!(mesh3d(3, 3, 3, 5).edges, mesh3d(3, 3, 3, 6).edges);
    assert_eq!(scale_free(500, 3, 4), scale_free(500, 3, 4));
    assert_ne!(scale_free(500, 3, 4).edges, scale_free(500, 3, 5).edges);
}

#[test]
fn scale_free_has_the_attachment_edge_count_and_a_heavy_tail() {
    let (n, d) = (10_000u32, 3u32);
    let graph = scale_free(n, d, 1);
    assert_eq!(graph.vertices, n);
    // A clique of d+1 = 4 vertices (6 edges), then d edges for each of the other n - 4 vertices.
    assert_eq!(graph.edges.len() as u32, 6 + (n - 4) * d);
    let mut seen = HashSet::new();
    for &(u, v) in &graph.edges {
        assert_ne!(u, v, "self-loop");
        assert!(u < n && v < n);
        assert!(
            seen.insert((u.min(v), u.max(v))),
            "duplicate edge ({u}, {v})"
        );
    }
    let degree = degrees(&graph);
    assert!(
        degree.iter().all(|&x| x >= d),
        "every vertex attaches d edges or is in the clique"
    );
    let average = 2.0 * graph.edges.len() as f64 / f64::from(n);
    let max = f64::from(*degree.iter().max().unwrap());
    assert!(
        max > 10.0 * average,
        "max degree {max} vs average {average}"
    );
}

#[test]
fn scale_free_starts_from_a_clique_under_permuted_ids() {
    let graph = scale_free(200, 4, 3);
    let core: BTreeSet<u32> = graph.edges[..10]
        .iter()
        .flat_map(|&(u, v)| [u, v])
        .collect();
    assert_eq!(
        core.len(),
        5,
        "the first 10 edges are a clique on 5 vertices"
    );
    assert_ne!(core, (0..5).collect(), "ids are permuted");
    // Vertex k's edges come as a block after the clique: the first endpoint repeats d times.
    for block in graph.edges[10..].chunks(4) {
        assert!(block.iter().all(|e| e.0 == block[0].0));
    }
}

#[test]
fn clique_and_cycle_list_their_edges_in_order() {
    let five = clique(5);
    assert_eq!(five.vertices, 5);
    let expected: Vec<(u32, u32)> = vec![
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    assert_eq!(five.edges, expected);
    assert_eq!(clique(40).edges.len(), 40 * 39 / 2);
    let ring = cycle(5);
    assert_eq!(ring.vertices, 5);
    assert_eq!(ring.edges, vec![(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]);
    assert!(degrees(&cycle(100)).iter().all(|&d| d == 2));
}

#[test]
fn specs_build_the_named_graphs() {
    let mesh = from_spec("mesh2d:4x3").unwrap();
    assert_eq!((mesh.vertices, mesh.edges.len()), (12, 3 * 3 + 4 * 2));
    assert_eq!(mesh, mesh2d(4, 3, 1), "the default seed is 1");
    assert_eq!(from_spec("mesh2d:4x3:seed=8").unwrap(), mesh2d(4, 3, 8));
    assert_eq!(from_spec("mesh3d:2x2x2").unwrap().edges.len(), 12);
    assert_eq!(
        from_spec("mesh3d:2x3x4:seed=2").unwrap(),
        mesh3d(2, 3, 4, 2)
    );
    let social = from_spec("scalefree:100:2:seed=7").unwrap();
    assert_eq!(social, scale_free(100, 2, 7));
    assert_eq!(social.edges.len(), 3 + 97 * 2);
    assert_eq!(from_spec("clique:6").unwrap().edges.len(), 15);
    assert_eq!(from_spec("cycle:3").unwrap(), cycle(3));
}

#[test]
fn bad_specs_say_what_is_accepted() {
    let unknown = from_spec("foo").unwrap_err();
    assert_eq!(
        unknown,
        "unknown graph generator 'foo': use mesh2d:WxH, mesh3d:XxYxZ, scalefree:N:D, clique:N or \
         cycle:N (optionally :seed=S)"
    );
    for (spec, hint) in [
        ("mesh2d:4", "mesh2d:WxH"),
        ("mesh2d:4x", "mesh2d:WxH"),
        ("mesh2d:-1x3", "mesh2d:WxH"),
        ("mesh2d", "mesh2d:WxH"),
        ("mesh3d:1x2", "mesh3d:XxYxZ"),
        ("scalefree:100", "scalefree:N:D"),
        ("cycle:5:extra", "cycle:N"),
        ("clique:many", "clique:N"),
        ("mesh2d:0x4", "at least 1"),
        ("scalefree:100:0", "at least 1"),
        ("cycle:2", "at least 3"),
        ("scalefree:3:3", "N must exceed D"),
        ("mesh2d:4x3:seed=abc", "seed"),
        ("clique:70000", "exceed the limits"),
        ("mesh2d:65536x65536", "exceed the limits"),
        ("mesh3d:2048x2048x1024", "exceed the limits"),
    ] {
        let error = from_spec(spec).unwrap_err();
        assert!(error.contains(&format!("'{spec}'")), "{spec}: {error}");
        assert!(error.contains(hint), "{spec}: {error}");
    }
}
