//! The baselines, the dense greedy, the degree analysis and the data placement, checked against
//! figures computed here independently: loads against m/k by hand, C by a set per vertex, clique
//! optima by exhaustive search.

mod common;

use common::assert_exactly_balanced;
use std::collections::{BTreeSet, HashSet};

use grape::baselines::{self, hilbert_index};
use grape::degree::{self, Mode};
use grape::graph::Graph;
use grape::greedy::dense_greedy;
use grape::partition::EdgePartition;
use grape::placement::{data_order, inverse};
use grape::rng::SplitMix64;

// ---- graphs built here ----

/// A w × h grid mesh whose vertex ids are a random permutation, coordinates set, and whose edges are
/// listed sorted by their endpoints' ids (as a file sorted by vertex would give them), so that the
/// input order says nothing about the geometry.
fn shuffled_grid(w: u32, h: u32, seed: u64) -> Graph {
    let n = w * h;
    let mut id: Vec<u32> = (0..n).collect();
    SplitMix64::new(seed).shuffle(&mut id);
    let mut coords = vec![[0.0; 3]; n as usize];
    let mut edges = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let here = id[(y * w + x) as usize];
            coords[here as usize] = [f64::from(x), f64::from(y), 0.0];
            if x + 1 < w {
                let right = id[(y * w + x + 1) as usize];
                edges.push((here.min(right), here.max(right)));
            }
            if y + 1 < h {
                let up = id[((y + 1) * w + x) as usize];
                edges.push((here.min(up), here.max(up)));
            }
        }
    }
    edges.sort_unstable();
    Graph {
        vertices: n,
        edges,
        coords: Some(coords),
        matrix: None,
    }
}

/// A 3-D grid with coordinates, vertices numbered in place.
fn cube(side: u32) -> Graph {
    let at = |x: u32, y: u32, z: u32| (z * side + y) * side + x;
    let mut coords = Vec::new();
    let mut edges = Vec::new();
    for z in 0..side {
        for y in 0..side {
            for x in 0..side {
                coords.push([f64::from(x), f64::from(y), f64::from(z)]);
                if x + 1 < side {
                    edges.push((at(x, y, z), at(x + 1, y, z)));
                }
                if y + 1 < side {
                    edges.push((at(x, y, z), at(x, y + 1, z)));
                }
                if z + 1 < side {
                    edges.push((at(x, y, z), at(x, y, z + 1)));
                }
            }
        }
    }
    Graph {
        vertices: side * side * side,
        edges,
        coords: Some(coords),
        matrix: None,
    }
}

fn clique(n: u32) -> Graph {
    let edges = (0..n)
        .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
        .collect();
    Graph::new(n, edges)
}

fn star(leaves: u32) -> Graph {
    Graph::new(leaves + 1, (1..=leaves).map(|l| (0, l)).collect())
}

/// Random multigraph with self-loops and parallel edges, and some vertices that no edge touches.
fn random_multigraph(vertices: u32, edges: usize, seed: u64) -> Graph {
    let mut rng = SplitMix64::new(seed);
    let used = u64::from(vertices - vertices / 5);
    let edges = (0..edges)
        .map(|_| (rng.below(used) as u32, rng.below(used) as u32))
        .collect();
    Graph::new(vertices, edges)
}

// ---- independent figures ----

/// C = Σ_v (p_v − 1) with a set of clusters per vertex.
fn cost(graph: &Graph, cluster: &[u32]) -> u64 {
    let mut appears: Vec<HashSet<u32>> = vec![HashSet::new(); graph.vertices as usize];
    for (&(u, v), &c) in graph.edges.iter().zip(cluster) {
        appears[u as usize].insert(c);
        appears[v as usize].insert(c);
    }
    appears
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.len() as u64 - 1)
        .sum()
}

/// The least C of an exactly balanced 2-way split (cluster 0 gets ⌈m/2⌉ edges), by trying every
/// pair of vertex sets (A, B) as the objects the two clusters may touch: feasible when every edge lies
/// inside A or inside B and the edges inside A only (at most ⌈m/2⌉) plus a share of those inside both
/// can make up cluster 0. Its cost |A ∩ B| is at least the partition's, and the sets a partition
/// actually touches are one of the pairs, so the minimum is exact. Needs n ≤ 8 or so.
fn two_way_optimum_by_vertex_sets(graph: &Graph) -> u64 {
    let n = graph.vertices;
    let m = graph.edges.len();
    let first = m.div_ceil(2);
    let inside = |set: u32, (u, v): (u32, u32)| set >> u & 1 == 1 && set >> v & 1 == 1;
    let mut best = u64::MAX;
    for a in 0u32..1 << n {
        for b in 0u32..1 << n {
            let (mut only_a, mut both, mut neither) = (0, 0, 0);
            for &e in &graph.edges {
                match (inside(a, e), inside(b, e)) {
                    (true, true) => both += 1,
                    (true, false) => only_a += 1,
                    (false, true) => {}
                    (false, false) => neither += 1,
                }
            }
            if neither == 0 && only_a <= first && first <= only_a + both {
                best = best.min(u64::from((a & b).count_ones()));
            }
        }
    }
    best
}

/// The same optimum by trying every set of ⌈m/2⌉ edges as cluster 0 (m ≤ 15 or so).
fn two_way_optimum_by_edge_splits(graph: &Graph) -> u64 {
    let m = graph.edges.len();
    let first = m.div_ceil(2) as u32;
    let mut best = u64::MAX;
    let mut cluster = vec![0u32; m];
    for mask in 0u32..1 << m {
        if mask.count_ones() != first {
            continue;
        }
        for (e, c) in cluster.iter_mut().enumerate() {
            *c = 1 - (mask >> e & 1);
        }
        best = best.min(cost(graph, &cluster));
    }
    best
}

// ---- balance and assignment ----

#[test]
fn every_method_balances_exactly_and_assigns_every_edge() {
    let graphs = [
        ("grid 9x7", shuffled_grid(9, 7, 1)),
        ("cube 5", cube(5)),
        ("clique 13", clique(13)),
        ("star 50", star(50)),
        ("multigraph", random_multigraph(60, 301, 2)),
        ("empty", Graph::new(4, Vec::new())),
    ];
    for (name, graph) in &graphs {
        for k in [1u32, 2, 3, 7, 16, 64, 500] {
            let label = |method: &str| format!("{method} on {name}, k = {k}");
            assert_exactly_balanced(&label("original"), graph, &baselines::original(graph, k), k);
            assert_exactly_balanced(&label("random"), graph, &baselines::random(graph, k, 7), k);
            let vertex = baselines::vertex(graph, k, 7).expect("METIS partitions a small graph");
            assert_exactly_balanced(&label("vertex"), graph, &vertex, k);
            assert_exactly_balanced(&label("greedy"), graph, &dense_greedy(graph, k), k);
            match baselines::hilbert(graph, k) {
                Some(p) => assert_exactly_balanced(&label("hilbert"), graph, &p, k),
                None => assert!(
                    graph.coords.is_none(),
                    "{}",
                    label("hilbert without coords")
                ),
            }
        }
    }
}

#[test]
fn one_cluster_costs_nothing() {
    let graph = random_multigraph(40, 200, 3);
    for p in [
        baselines::original(&graph, 1),
        baselines::random(&graph, 1, 1),
        baselines::vertex(&graph, 1, 1).expect("one part"),
        dense_greedy(&graph, 1),
    ] {
        assert_eq!(cost(&graph, &p.cluster), 0);
    }
}

#[test]
fn edge_partition_cost_counts_distinct_clusters_per_vertex() {
    // Hand-worked: 0-1 in 0, 1-2 in 1, the self-loop 2-2 in 1, 2-3 in 0, vertex 4 untouched.
    // p = 1, 2, 2, 1 (vertex 4 adds nothing): C = 2.
    let graph = Graph::new(5, vec![(0, 1), (1, 2), (2, 2), (2, 3)]);
    let p = EdgePartition {
        parts: 2,
        cluster: vec![0, 1, 1, 0],
    };
    assert_eq!(p.cost(&graph), 2);
    // Self-loops, parallel edges and untouched vertices, against the set-per-vertex count.
    let graph = random_multigraph(60, 301, 5);
    for k in [1u32, 2, 7, 64, 500] {
        let p = baselines::random(&graph, k, 9);
        assert_eq!(p.cost(&graph), cost(&graph, &p.cluster), "k = {k}");
    }
}

#[test]
fn original_keeps_input_order_in_consecutive_chunks() {
    // m = 10, k = 3: loads 4, 3, 3.
    let graph = Graph::new(11, (0..10).map(|i| (i, i + 1)).collect());
    let p = baselines::original(&graph, 3);
    assert_eq!(p.cluster, vec![0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
    // A path cut in 3 places loads each of the 2 cut vertices twice: C = 2.
    assert_eq!(cost(&graph, &p.cluster), 2);
}

#[test]
fn random_depends_on_the_seed_only() {
    let graph = shuffled_grid(10, 10, 4);
    assert_eq!(
        baselines::random(&graph, 8, 5),
        baselines::random(&graph, 8, 5)
    );
    assert_ne!(
        baselines::random(&graph, 8, 5),
        baselines::random(&graph, 8, 6)
    );
}

// ---- quality against each other ----

#[test]
fn hilbert_beats_random_on_a_mesh() {
    for graph in [shuffled_grid(40, 30, 8), cube(12)] {
        let k = 16;
        let hilbert = baselines::hilbert(&graph, k).expect("the grid has coordinates");
        let random = baselines::random(&graph, k, 9);
        let (h, r) = (
            cost(&graph, &hilbert.cluster),
            cost(&graph, &random.cluster),
        );
        // Hilbert chunks are compact blobs with short boundaries; random chunks touch nearly every
        // vertex from several clusters.
        assert!(h * 4 < r, "hilbert C = {h}, random C = {r}");
    }
}

#[test]
fn hilbert_needs_one_coordinate_per_vertex() {
    let mut graph = shuffled_grid(4, 4, 10);
    assert!(baselines::hilbert(&graph, 2).is_some());
    graph.coords.as_mut().expect("set").pop();
    assert!(baselines::hilbert(&graph, 2).is_none());
    graph.coords = None;
    assert!(baselines::hilbert(&graph, 2).is_none());
}

#[test]
fn vertex_beats_original_on_a_randomly_numbered_grid() {
    let graph = shuffled_grid(40, 40, 11);
    let k = 16;
    let vertex = baselines::vertex(&graph, k, 12).expect("METIS partitions a grid");
    let original = baselines::original(&graph, k);
    let (v, o) = (
        cost(&graph, &vertex.cluster),
        cost(&graph, &original.cluster),
    );
    assert!(v * 3 < o, "vertex C = {v}, original C = {o}");
}

#[test]
fn greedy_packs_a_dense_graph_better_than_random() {
    // A dense random graph: 600 vertices, each pair an edge with probability 1/2 (about 90 000 edges).
    let mut rng = SplitMix64::new(13);
    let n = 600u32;
    let edges: Vec<(u32, u32)> = (0..n)
        .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
        .filter(|_| rng.below(2) == 0)
        .collect();
    let graph = Graph::new(n, edges);
    let k = 32;
    let greedy = dense_greedy(&graph, k);
    assert_exactly_balanced("greedy", &graph, &greedy, k);
    let random = baselines::random(&graph, k, 14);
    let (g, r) = (cost(&graph, &greedy.cluster), cost(&graph, &random.cluster));
    assert!(g * 2 < r, "greedy C = {g}, random C = {r}");
}

#[test]
fn greedy_keeps_hubs_whole_beyond_one_scan_chunk() {
    // A star with more leaves than one scan chunk, split 8 ways: every cluster needs the hub, and
    // the leaves (one edge each) appear once: C = 7.
    let graph = star(10_000);
    let greedy = dense_greedy(&graph, 8);
    assert_exactly_balanced("greedy", &graph, &greedy, 8);
    assert_eq!(cost(&graph, &greedy.cluster), 7);

    // Three hubs, each joined to the same 5000 leaves (hub 0 also to one more leaf, so that it starts
    // the first cluster): the hubs are scanned in chunks. Hubs 1 and 2 list the leaves in the opposite
    // order to hub 0, so their first chunks do not reach the leaf that joins the cluster before them;
    // that leaf's edges to them must still become priority 2.
    let mut edges = vec![(0, 5003)];
    edges.extend((3..5003).map(|leaf| (0, leaf)));
    edges.extend((3..5003).rev().flat_map(|leaf| [(1, leaf), (2, leaf)]));
    let graph = Graph::new(5004, edges);
    // k = 2 (7501 + 7500 edges): a hub in one cluster only would put all 5000 leaves there and at
    // least 2500 of them in the other too, so each hub appears in both: C ≥ 3. Growing the 7500 as
    // 2500 whole leaves reaches it.
    let greedy = dense_greedy(&graph, 2);
    assert_exactly_balanced("greedy", &graph, &greedy, 2);
    assert_eq!(cost(&graph, &greedy.cluster), 3);
    // k = 7: hubs in every cluster (3 · 6 = 18), whole leaves but for at most one leaf cut at each of
    // the 6 cluster boundaries (2 extra loads at most): C ≤ 30.
    let greedy = dense_greedy(&graph, 7);
    assert_exactly_balanced("greedy", &graph, &greedy, 7);
    let c = cost(&graph, &greedy.cluster);
    assert!(c <= 30, "greedy C = {c}");
}

// ---- the dense greedy on cliques ----

#[test]
fn exhaustive_optima_agree_on_small_cliques() {
    // Hand-worked: K_4 (6 edges, 3 + 3) splits into a triangle and a star on the fourth vertex: C = 3.
    assert_eq!(two_way_optimum_by_edge_splits(&clique(4)), 3);
    for n in 4..=6 {
        let graph = clique(n);
        assert_eq!(
            two_way_optimum_by_edge_splits(&graph),
            two_way_optimum_by_vertex_sets(&graph),
            "K_{n}"
        );
    }
}

#[test]
fn greedy_is_optimal_on_cliques_split_in_two() {
    for n in 4..=8 {
        let graph = clique(n);
        let greedy = dense_greedy(&graph, 2);
        assert_exactly_balanced("greedy", &graph, &greedy, 2);
        let optimum = if n <= 6 {
            two_way_optimum_by_edge_splits(&graph)
        } else {
            two_way_optimum_by_vertex_sets(&graph)
        };
        assert_eq!(cost(&graph, &greedy.cluster), optimum, "K_{n}");
    }
    // K_7 (21 edges, 11 + 10): the 10 fit in a K_5, so C = 5, while packing the 11 needs 6 vertices.
    assert_eq!(two_way_optimum_by_vertex_sets(&clique(7)), 5);
}

// ---- the Hilbert curve ----

/// Walks a 2^bits grid in `dims` dimensions in Hilbert order: the indices must be exactly 0..N and
/// consecutive ones one grid step apart.
fn assert_hilbert_walk(dims: usize, bits: u32) {
    let side = 1u32 << bits;
    let cells = side.pow(dims as u32);
    let mut by_index = vec![None; cells as usize];
    for cell in 0..cells {
        let point: Vec<u32> = (0..dims)
            .map(|a| cell / side.pow(a as u32) % side)
            .collect();
        let h = hilbert_index(&point, bits) as usize;
        assert!(h < cells as usize, "index {h} of {point:?} out of range");
        assert!(by_index[h].is_none(), "index {h} given twice");
        by_index[h] = Some(point);
    }
    let walk: Vec<Vec<u32>> = by_index
        .into_iter()
        .map(|p| p.expect("every index used"))
        .collect();
    assert_eq!(walk[0], vec![0; dims], "the curve starts at the origin");
    for pair in walk.windows(2) {
        let step: u32 = pair[0]
            .iter()
            .zip(&pair[1])
            .map(|(a, b)| a.abs_diff(*b))
            .sum();
        assert_eq!(step, 1, "{:?} -> {:?}", pair[0], pair[1]);
    }
}

#[test]
fn consecutive_hilbert_indices_are_grid_neighbours() {
    assert_hilbert_walk(2, 1);
    assert_hilbert_walk(2, 5);
    assert_hilbert_walk(3, 1);
    assert_hilbert_walk(3, 4);
}

#[test]
fn the_2d_hilbert_curve_of_order_one_is_the_u_shape() {
    // (0,0) → (0,1) → (1,1) → (1,0) with axis 0 as the most significant bit of each level.
    let indices: Vec<u64> = [[0, 0], [0, 1], [1, 1], [1, 0]]
        .iter()
        .map(|p| hilbert_index(p, 1))
        .collect();
    assert_eq!(indices, vec![0, 1, 2, 3]);
}

// ---- degree modes ----

#[test]
fn degree_modes() {
    let stats = degree::analyse(&star(100));
    assert_eq!((stats.vertices_used, stats.max), (101, 100));
    assert!((stats.avg - 200.0 / 101.0).abs() < 1e-12);
    assert_eq!(degree::choose_mode(&stats), Mode::ScaleFree);

    let stats = degree::analyse(&clique(80));
    assert_eq!((stats.avg, stats.max), (79.0, 79));
    assert_eq!(degree::choose_mode(&stats), Mode::Dense);

    let stats = degree::analyse(&shuffled_grid(20, 20, 15));
    // 2 · (19·20 + 20·19) endpoints over 400 vertices.
    assert!((stats.avg - 3.8).abs() < 1e-12);
    assert_eq!(degree::choose_mode(&stats), Mode::Sparse);

    // A high average that hubs make is scale-free, not dense: d_avg = 33 (R-MAT 1 M's, about)
    // and d_max = 600 ≥ 16 · 33 = 528; with d_max = 500 < 528 it is dense.
    let hubby = degree::DegreeStats {
        vertices_used: 60_000,
        edges: 990_000,
        avg: 33.0,
        max: 600,
    };
    assert_eq!(degree::choose_mode(&hubby), Mode::ScaleFree);
    let even = degree::DegreeStats { max: 500, ..hubby };
    assert_eq!(degree::choose_mode(&even), Mode::Dense);

    // Isolated vertices do not dilute the average: K_40 among 1000 vertices is still dense.
    let mut graph = clique(40);
    graph.vertices = 1000;
    assert_eq!(degree::choose_mode(&degree::analyse(&graph)), Mode::Dense);
    assert_eq!(
        degree::choose_mode(&degree::analyse(&Graph::new(3, Vec::new()))),
        Mode::Sparse
    );

    assert_eq!(
        [Mode::Sparse, Mode::ScaleFree, Mode::Dense].map(|m| m.to_string()),
        ["sparse", "scale-free", "dense"]
    );
}

// ---- data placement ----

/// The objects each cluster touches.
fn objects_by_cluster(graph: &Graph, p: &EdgePartition) -> Vec<BTreeSet<u32>> {
    let mut sets = vec![BTreeSet::new(); p.parts as usize];
    for (&(u, v), &c) in graph.edges.iter().zip(&p.cluster) {
        sets[c as usize].insert(u);
        sets[c as usize].insert(v);
    }
    sets
}

#[test]
fn data_order_lays_out_cluster_zero_then_its_closest_neighbour() {
    let mut graph = shuffled_grid(24, 24, 16);
    graph.vertices += 3; // three objects no thread touches
    if let Some(coords) = graph.coords.as_mut() {
        coords.extend([[0.0; 3]; 3]);
    }
    for p in [
        baselines::hilbert(&graph, 9).expect("coords"),
        baselines::random(&graph, 9, 17),
        dense_greedy(&graph, 9),
    ] {
        let order = data_order(&graph, &p);
        let n = graph.vertices as usize;
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n as u32).collect::<Vec<_>>(), "a permutation");
        assert_eq!(
            &order[n - 3..],
            &[n as u32 - 3, n as u32 - 2, n as u32 - 1],
            "untouched go last"
        );

        let sets = objects_by_cluster(&graph, &p);
        let elsewhere = |x: u32, c: usize| {
            sets.iter()
                .enumerate()
                .any(|(d, s)| d != c && s.contains(&x))
        };
        let internal: BTreeSet<u32> = sets[0]
            .iter()
            .copied()
            .filter(|&x| !elsewhere(x, 0))
            .collect();
        let head: BTreeSet<u32> = order[..internal.len()].iter().copied().collect();
        assert_eq!(head, internal, "cluster 0's internal objects first");
        let first: BTreeSet<u32> = order[..sets[0].len()].iter().copied().collect();
        assert_eq!(first, sets[0], "then the rest of cluster 0");

        // The next cluster is the one sharing most objects with cluster 0 (lowest id on ties): its
        // unplaced internal objects, then its unplaced boundary objects.
        let next = (1..sets.len())
            .max_by_key(|&d| (sets[d].intersection(&sets[0]).count(), std::cmp::Reverse(d)))
            .expect("9 clusters");
        let fresh: Vec<u32> = sets[next].difference(&sets[0]).copied().collect();
        let fresh_internal: BTreeSet<u32> = fresh
            .iter()
            .copied()
            .filter(|&x| !elsewhere(x, next))
            .collect();
        let at = sets[0].len();
        let got: BTreeSet<u32> = order[at..at + fresh_internal.len()]
            .iter()
            .copied()
            .collect();
        assert_eq!(
            got, fresh_internal,
            "cluster {next}'s internal objects next"
        );
        let got: BTreeSet<u32> = order[at..at + fresh.len()].iter().copied().collect();
        assert_eq!(
            got,
            fresh.into_iter().collect::<BTreeSet<_>>(),
            "then its other new objects"
        );

        let position = inverse(&order);
        for (i, &v) in order.iter().enumerate() {
            assert_eq!(position[v as usize], i as u32);
        }
    }
}

#[test]
fn data_order_of_a_path_follows_the_path() {
    // Path 8-7-...-0 in the edge list, cut in 2: cluster 0 = (8-7, 7-6, 6-5, 5-4), cluster 1 =
    // (4-3, 3-2, 2-1, 1-0).
    let graph = Graph::new(10, (0..8).rev().map(|i| (i + 1, i)).collect());
    let order = data_order(&graph, &baselines::original(&graph, 2));
    // Cluster 0: internal 8, 7, 6, 5 in first-touch order, then boundary 4; cluster 1: 3, 2, 1, 0;
    // vertex 9 touches nothing.
    assert_eq!(order, vec![8, 7, 6, 5, 4, 3, 2, 1, 0, 9]);
}
