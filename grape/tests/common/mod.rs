//! What the grape test files share.

use grape::graph::Graph;
use grape::partition::EdgePartition;

/// Every edge in a cluster below k, cluster c holding exactly m/k edges, one
/// more for c < m mod k (worked out here, not with the crate's `target_load`).
pub fn assert_exactly_balanced(what: &str, graph: &Graph, p: &EdgePartition, k: u32) {
    let m = graph.edges.len();
    assert_eq!(p.parts, k, "{what}: parts");
    assert_eq!(p.cluster.len(), m, "{what}: one cluster per edge");
    let mut load = vec![0usize; k as usize];
    for &c in &p.cluster {
        assert!(c < k, "{what}: cluster {c} out of 0..{k}");
        load[c as usize] += 1;
    }
    for (c, &l) in load.iter().enumerate() {
        let expected = m / k as usize + usize::from(c < m % k as usize);
        assert_eq!(l, expected, "{what}: cluster {c} of {k}, m = {m}");
    }
}
