//! The honest vertex-partitioner baseline (`baselines::vertex_greedy`): its cut-edge assignment, its
//! exact-balance targets and its best-gain rebalancing, each on a graph small enough that every
//! figure below was worked out by hand in the comments.

mod common;

use common::assert_exactly_balanced;

use grape::baselines::{
    self, assign_by_vertex_part, exact_targets, number_by_load, rebalance_exact,
};
use grape::generate;
use grape::graph::Graph;
use grape::partition::EdgePartition;

/// A triangle 0-1-2 (METIS part 0) and a path 3-4-5 (part 1), joined by the cut edges 2-3 and 2-4.
fn triangle_and_path() -> Graph {
    Graph::new(
        6,
        vec![(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (2, 3), (2, 4)],
    )
}

#[test]
fn cut_edges_go_where_they_add_least() {
    let g = triangle_and_path();
    let p = assign_by_vertex_part(&g, &[0, 0, 0, 1, 1, 1], 2);
    // Uncut: e0-e2 to 0, e3-e4 to 1 (loads 3, 2). e5 = (2, 3): cluster 0 lacks 3, cluster 1 lacks 2,
    // one new appearance each; the lighter cluster 1 wins (2 < 3). e6 = (2, 4): 2 and 4 are now
    // both in cluster 1 (adds 0), cluster 0 lacks 4 (adds 1): cluster 1. Only vertex 2 is split:
    // C = 1. (The weak `vertex` rule, lower endpoint's part, sends both to 0: loads 5 and 2.)
    assert_eq!(p.cluster, vec![0, 0, 0, 1, 1, 1, 1]);
    assert_eq!(p.cost(&g), 1);
    // m = 7, k = 2: loads 3 and 4 are already exact once the fuller cluster holds the extra edge.
    let target = exact_targets(&p.loads());
    assert_eq!(target, vec![3, 4]);
    let mut q = p.clone();
    assert_eq!(rebalance_exact(&g, &mut q, &target), 0);
    assert_eq!(q, p);
    // Numbered heaviest first, as every method's cluster c holds target_load(m, k, c).
    number_by_load(&mut q);
    assert_eq!(q.cluster, vec![1, 1, 1, 0, 0, 0, 0]);
    assert_exactly_balanced("triangle and path", &g, &q, 2);
    assert_eq!(q.cost(&g), 1);
}

#[test]
fn targets_give_the_extra_edges_to_the_fullest_clusters() {
    // m = 30, k = 4: 7 each, 30 mod 4 = 2 clusters get 8; the two loads of 9.
    assert_eq!(exact_targets(&[5, 9, 7, 9]), vec![7, 8, 7, 8]);
    // Equal loads: the lower index first.
    assert_eq!(exact_targets(&[8, 8, 8, 6]), vec![8, 8, 7, 7]);
    assert_eq!(exact_targets(&[4, 0]), vec![2, 2]);
}

#[test]
fn rebalancing_takes_the_best_gain_moves() {
    // The path 0-1-...-6, edge e_i = (i, i + 1), e0-e4 in cluster 0, e5 in cluster 1; targets 3, 3:
    // two edges must leave cluster 0. Gains (C saved minus C added):
    //   e4 = (4, 5): 5 leaves cluster 0 (+1), 4 is new in cluster 1 (−1): 0, the best;
    //   e0 = (0, 1): 0 leaves (+1), both new in a cluster (−2): −1; e1-e3: −2.
    // After e4 moves, e3 = (3, 4) frees 4 from cluster 0 and finds 4 in cluster 1: 0 again.
    // Result: e0-e2 | e3-e5, only vertex 3 split, C = 1 as before (vertex 5 was split).
    // Moving the first edges instead (e0, e1) would split 2 and 5: C = 2.
    let g = Graph::new(7, (0..6).map(|i| (i, i + 1)).collect());
    let mut p = EdgePartition {
        parts: 2,
        cluster: vec![0, 0, 0, 0, 0, 1],
    };
    assert_eq!(p.cost(&g), 1);
    assert_eq!(rebalance_exact(&g, &mut p, &[3, 3]), 2);
    assert_eq!(p.cluster, vec![0, 0, 0, 1, 1, 1]);
    assert_eq!(p.cost(&g), 1);
}

#[test]
fn rebalancing_moves_exactly_the_excess() {
    // A 30 × 30 grid (1,740 edges) cut into 8 clusters of very unequal size: edge e to cluster
    // e mod 8 for the first 1,000 edges, the rest all to cluster 7. Targets 218, 218, 218, 218,
    // 217, 217, 217, 217 (1,740 = 8 × 217 + 4). Cluster 7 holds 125 + 740 = 865 (excess 865 − 217
    // = 648); the others 125 each, so 648 edges move, each once.
    let g = generate::mesh2d(30, 30, 3);
    assert_eq!(g.edge_count(), 1740);
    let cluster: Vec<u32> = (0..1740u32)
        .map(|e| if e < 1000 { e % 8 } else { 7 })
        .collect();
    let mut p = EdgePartition { parts: 8, cluster };
    let target: Vec<usize> = (0..8).map(|c| if c < 4 { 218 } else { 217 }).collect();
    assert_eq!(rebalance_exact(&g, &mut p, &target), 648);
    assert_exactly_balanced("grid", &g, &p, 8);
}

#[test]
fn two_cliques_split_at_their_bridge() {
    // Two 4-cliques (0-3, 4-7) joined by the bridge 3-4: m = 6 + 6 + 1 = 13, k = 2. Every
    // 2-cluster partition of a connected graph splits some vertex, so C ≥ 1; METIS cuts only the
    // bridge, which joins the lighter (on a tie, its first endpoint's) side: loads 7 and 6, exact.
    let mut edges = Vec::new();
    for base in [0, 4] {
        for i in 0..4 {
            for j in i + 1..4 {
                edges.push((base + i, base + j));
            }
        }
    }
    edges.push((3, 4));
    let g = Graph::new(8, edges);
    let p = baselines::vertex_greedy(&g, 2, 1).unwrap();
    assert_exactly_balanced("two cliques", &g, &p, 2);
    assert_eq!(p.cost(&g), 1);
    assert_ne!(p.cluster[0], p.cluster[6], "the cliques share a cluster");
}

#[test]
fn the_greedy_assignment_beats_the_lower_endpoint_rule() {
    // Same METIS partition (same seed), two ways to hand out the cut edges: placing each where it
    // adds least to C must not lose to "lower endpoint's part" (measured: 2,061 vs 2,280 on the
    // 200 × 200 grid at k = 32 and 6,311 vs 6,862 on the 30³ grid).
    for (g, k) in [
        (generate::mesh2d(100, 100, 1), 16),
        (generate::mesh3d(20, 20, 20, 1), 32),
        (generate::scale_free(5000, 4, 1), 16),
    ] {
        let greedy = baselines::vertex_greedy(&g, k, 1).unwrap();
        let weak = baselines::vertex(&g, k, 1).unwrap();
        assert_exactly_balanced("vertex-greedy", &g, &greedy, k);
        assert!(
            greedy.cost(&g) < weak.cost(&g),
            "{} edges, k = {k}: vertex-greedy {} vs vertex {}",
            g.edge_count(),
            greedy.cost(&g),
            weak.cost(&g)
        );
    }
}
