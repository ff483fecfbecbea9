//! GRAPE's two-stage partition: exact balance on every kind of graph, the fixing stage alone on
//! hand-made clone partitions, and cost against the original thread order.

mod common;

use common::assert_exactly_balanced;
use grape::clone_graph;
use grape::fixing::{self, FixingError};
use grape::graph::Graph;
use grape::partition::target_load;
use grape::rng::SplitMix64;
use grape::two_stage::{two_stage, GrapeError};

/// C = Σ_v (p_v − 1), recomputed from scratch: distinct (vertex, cluster) pairs minus the vertices
/// that have any edge.
fn cost(graph: &Graph, cluster: &[u32]) -> u64 {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        pairs.push((u, cluster[e]));
        pairs.push((v, cluster[e]));
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut vertices: Vec<u32> = pairs.iter().map(|&(v, _)| v).collect();
    vertices.dedup();
    (pairs.len() - vertices.len()) as u64
}

/// A w×h grid, vertices renumbered at random, edges sorted by lower endpoint (so that the input
/// order carries no locality).
fn shuffled_grid(w: u32, h: u32, seed: u64) -> Graph {
    let mut label: Vec<u32> = (0..w * h).collect();
    SplitMix64::new(seed).shuffle(&mut label);
    let at = |x: u32, y: u32| label[(y * w + x) as usize];
    let mut edges = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if x + 1 < w {
                edges.push((at(x, y), at(x + 1, y)));
            }
            if y + 1 < h {
                edges.push((at(x, y), at(x, y + 1)));
            }
        }
    }
    edges.sort_unstable_by_key(|&(u, v)| (u.min(v), u.max(v)));
    Graph::new(w * h, edges)
}

fn random_graph(n: u32, m: usize, seed: u64) -> Graph {
    let mut rng = SplitMix64::new(seed);
    let edges = (0..m)
        .map(|_| {
            (
                rng.below(u64::from(n)) as u32,
                rng.below(u64::from(n)) as u32,
            )
        })
        .collect();
    Graph::new(n, edges)
}

fn star(leaves: u32) -> Graph {
    Graph::new(leaves + 1, (1..=leaves).map(|l| (0, l)).collect())
}

/// A path with a self-loop at every third vertex and every fourth edge doubled.
fn loops_and_parallels(n: u32) -> Graph {
    let mut edges = Vec::new();
    for v in 0..n - 1 {
        edges.push((v, v + 1));
        if v % 3 == 0 {
            edges.push((v, v));
        }
        if v % 4 == 0 {
            edges.push((v + 1, v));
        }
    }
    Graph::new(n, edges)
}

/// Two grids, a triangle and isolated vertices, in one vertex range.
fn disconnected() -> Graph {
    let a = shuffled_grid(5, 4, 3);
    let b = shuffled_grid(3, 6, 4);
    let mut edges = a.edges.clone();
    let off = a.vertices;
    edges.extend(b.edges.iter().map(|&(u, v)| (u + off, v + off)));
    let t = off + b.vertices;
    edges.extend([(t, t + 1), (t + 1, t + 2), (t + 2, t)]);
    Graph::new(t + 3 + 5, edges)
}

/// Barabási–Albert-like: each new vertex links to `per` earlier endpoints drawn from the list of
/// all endpoints so far (preferential attachment).
fn preferential(n: u32, per: u32, seed: u64) -> Graph {
    let mut rng = SplitMix64::new(seed);
    let mut edges = Vec::new();
    let mut ends: Vec<u32> = Vec::new();
    for v in 1..=per {
        edges.push((0, v));
        ends.extend([0, v]);
    }
    for v in per + 1..n {
        for _ in 0..per {
            let u = ends[rng.below(ends.len() as u64) as usize];
            edges.push((v, u));
            ends.extend([v, u]);
        }
    }
    Graph::new(n, edges)
}

/// The original order: consecutive runs of target_load edges per cluster.
fn original_order(m: usize, k: u32) -> Vec<u32> {
    let mut cluster = Vec::with_capacity(m);
    for c in 0..k {
        cluster.extend(std::iter::repeat_n(c, target_load(m, k, c)));
    }
    cluster
}

#[test]
fn cycle_of_eight_splits_into_two_paths() {
    let g = Graph::new(8, (0..8).map(|v| (v, (v + 1) % 8)).collect());
    let p = two_stage(&g, 2, 1).unwrap();
    assert_exactly_balanced("cycle", &g, &p, 2);
    assert_eq!(p.loads(), vec![4, 4]);
    // Two paths of four edges share exactly their two end vertices.
    assert_eq!(cost(&g, &p.cluster), 2);
}

#[test]
fn exact_balance_on_every_kind_of_graph() {
    let graphs = [
        ("grid", shuffled_grid(9, 7, 11)),
        ("random", random_graph(40, 150, 12)),
        ("star", star(37)),
        ("loops and parallels", loops_and_parallels(30)),
        ("disconnected", disconnected()),
        ("preferential", preferential(300, 3, 6)),
    ];
    for (name, g) in &graphs {
        for k in [1, 2, 3, 7, 16] {
            let p = two_stage(g, k, 5).unwrap();
            assert_exactly_balanced(name, g, &p, k);
            // The library's cost must agree with the independent count.
            assert_eq!(p.cost(g), cost(g, &p.cluster), "{name}, k = {k}");
            if k == 1 {
                assert_eq!(cost(g, &p.cluster), 0, "{name}: one cluster costs nothing");
            }
        }
    }
}

#[test]
fn every_edge_count_modulo_k_balances() {
    // m = 17..=40 on a path with a loop: every remainder m mod 7 and m mod 16 shows up.
    for m in 17..=40u32 {
        let mut edges: Vec<(u32, u32)> = (0..m - 1).map(|v| (v, v + 1)).collect();
        edges.push((3, 3));
        let g = Graph::new(m, edges);
        for k in [3, 7, 16] {
            let p = two_stage(&g, k, 9).unwrap();
            assert_exactly_balanced("path", &g, &p, k);
        }
    }
}

#[test]
fn too_many_clusters_is_an_error_that_names_the_limit() {
    let g = star(10);
    let err = two_stage(&g, 16, 1).unwrap_err();
    assert!(matches!(
        err,
        GrapeError::Clusters(FixingError::TooManyClusters {
            edges: 10,
            parts: 16
        })
    ));
    assert_eq!(
        err.to_string(),
        "cannot split 10 edges into 16 clusters: use --parts at most 10"
    );
    assert!(matches!(
        two_stage(&g, 0, 1),
        Err(GrapeError::Clusters(FixingError::NoClusters))
    ));
    assert!(two_stage(&g, 10, 1).is_ok());
}

/// The clone of edge e at its first endpoint goes to part e mod k, the other to a part shifted by
/// 1 + (e / k) mod (k − 1): no edge is internal, and each block of k consecutive edges puts one
/// clone of each kind in every part, so every part holds exactly 2m/k clones from the start.
fn all_cut_clone_partition(g: &Graph, k: u32) -> (clone_graph::CloneGraph, Vec<u32>) {
    let clones = clone_graph::build(g, &[]).unwrap();
    let mut part = vec![u32::MAX; clones.clone_count()];
    for (e, &[a, b]) in clones.edge_clones.iter().enumerate() {
        let e = e as u32;
        part[a as usize] = e % k;
        part[b as usize] = (e % k + 1 + (e / k) % (k - 1)) % k;
    }
    (clones, part)
}

#[test]
fn euler_fixing_balances_all_cut_edges() {
    // k = 4, m = 8: pairs (0,1), (1,2), (2,3), (3,0) get one edge each (odd: the left-overs form
    // the 4-cycle the Euler tour orients), pairs (0,2), (1,3) two each.
    for (g, k) in [
        (Graph::new(8, (0..8).map(|v| (v, (v + 1) % 8)).collect()), 4),
        (random_graph(30, 70, 21), 7),
        (random_graph(50, 96, 22), 16),
        (loops_and_parallels(40), 2),
    ] {
        let m = g.edges.len();
        assert_eq!(m % k as usize, 0, "the construction needs k | m");
        let (clones, part) = all_cut_clone_partition(&g, k);
        let p = fixing::fix(&g, &clones, &part, k).unwrap();
        assert_exactly_balanced("all cut", &g, &p, k);
        for (e, &[a, b]) in clones.edge_clones.iter().enumerate() {
            let c = p.cluster[e];
            assert!(
                c == part[a as usize] || c == part[b as usize],
                "edge {e} went to {c}, a part holding neither of its clones"
            );
        }
    }
}

#[test]
fn euler_case_has_the_expected_shape() {
    // The 8-edge cycle with k = 4 really does need the tour: 4 pairs with one edge each.
    let g = Graph::new(8, (0..8).map(|v| (v, (v + 1) % 8)).collect());
    let (clones, part) = all_cut_clone_partition(&g, 4);
    let mut pairs: Vec<(u32, u32)> = clones
        .edge_clones
        .iter()
        .map(|&[a, b]| {
            let (x, y) = (part[a as usize], part[b as usize]);
            (x.min(y), x.max(y))
        })
        .collect();
    pairs.sort_unstable();
    assert_eq!(
        pairs,
        vec![
            (0, 1),
            (0, 2),
            (0, 2),
            (0, 3),
            (1, 2),
            (1, 3),
            (1, 3),
            (2, 3)
        ]
    );
    let p = fixing::fix(&g, &clones, &part, 4).unwrap();
    assert_eq!(p.loads(), vec![2, 2, 2, 2]);
}

#[test]
fn fixing_rebalances_a_lopsided_clone_partition() {
    let g = shuffled_grid(6, 5, 8);
    let clones = clone_graph::build(&g, &[]).unwrap();
    for k in [2, 3, 7] {
        // Everything in part 0 but a few clones.
        let part: Vec<u32> = (0..clones.clone_count() as u32)
            .map(|x| u32::from(x % 11 == 0))
            .collect();
        let p = fixing::fix(&g, &clones, &part, k).unwrap();
        assert_exactly_balanced("lopsided", &g, &p, k);
    }
    let bad = vec![9; clones.clone_count()];
    assert!(matches!(
        fixing::fix(&g, &clones, &bad, 4),
        Err(FixingError::PartOutOfRange {
            part: 9,
            parts: 4,
            ..
        })
    ));
    assert!(matches!(
        fixing::fix(&g, &clones, &[0, 1], 2),
        Err(FixingError::WrongLength { entries: 2, .. })
    ));
}

#[test]
fn clone_graph_has_two_clones_per_edge_and_cycles() {
    // Vertex 0 of degree 3 (edges 0, 1, 2), vertex 1 of degree 2, a self-loop at 3 and vertex 2
    // of degree 1.
    let g = Graph::new(4, vec![(0, 1), (0, 2), (1, 0), (3, 3), (0, 3)]);
    let d = clone_graph::build(&g, &[]).unwrap();
    assert_eq!(d.clone_count(), 10);
    assert_eq!(d.first, vec![0, 4, 6, 7, 10]);
    // Every clone used by exactly one edge, at the right vertex.
    let mut used = [0; 10];
    for (e, &[a, b]) in d.edge_clones.iter().enumerate() {
        used[a as usize] += 1;
        used[b as usize] += 1;
        assert_eq!(d.clone_edge[a as usize] as usize, e);
        assert_eq!(d.clone_edge[b as usize] as usize, e);
        assert_eq!(d.vertex_of(&g, a), g.edges[e].0);
        assert_eq!(d.vertex_of(&g, b), g.edges[e].1);
    }
    assert_eq!(used, [1; 10]);
    let real: Vec<_> = d.weighted_edges.iter().filter(|w| w.2 == 2).collect();
    let aux: Vec<_> = d.weighted_edges.iter().filter(|w| w.2 == 1).collect();
    assert_eq!(real.len(), 5);
    // Vertex 0 (degree 4): a 4-cycle; vertex 1 (degree 2): one edge; vertex 3 (degree 3): a 3-cycle.
    assert_eq!(aux.len(), 4 + 1 + 3);
    assert!(
        aux.iter().any(|&&(a, b, _)| (a, b) == (3, 0)),
        "the cycle closes"
    );
    // Freeing vertex 0 drops its 4 cycle edges only.
    let freed = clone_graph::build(&g, &[true]).unwrap();
    assert_eq!(
        freed.weighted_edges.iter().filter(|w| w.2 == 1).count(),
        1 + 3
    );
}

#[test]
fn grid_beats_original_order_threefold() {
    let g = shuffled_grid(64, 64, 42);
    let k = 16;
    let p = two_stage(&g, k, 7).unwrap();
    assert_exactly_balanced("64x64", &g, &p, k);
    let grape_cost = cost(&g, &p.cluster);
    let original = cost(&g, &original_order(g.edges.len(), k));
    assert!(
        3 * grape_cost <= original,
        "GRAPE C = {grape_cost}, original order C = {original}"
    );
    // 16 blocks of 16×16 on a 64×64 grid share 6 lines of 64 vertices: C ≈ 6·64 = 384 + corners.
    assert!(grape_cost < 600, "GRAPE C = {grape_cost}");
}
