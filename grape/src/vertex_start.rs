//! The vertex-partition candidate of GRAPE's sparse mode: the anchor for meshes, METIS
//! vertex partition + greedy cut-edge assignment + exact rebalance (`baselines::vertex_greedy`),
//! then improved by the C-gain refinement (`refine`).
//!
//! Starting from the anchor itself, not from a looser vertex partition of its own, is what makes
//! GRAPE never worse than it: the anchor is exactly balanced, and `refine` undoes every pass that
//! does not lower C. (The previous start, METIS at 3 % imbalance with the loads repaired by
//! `refine`'s own rebalancing, lost to the anchor on the road-like graphs: C 780 against 746 on
//! road-100k at k = 32, `bench/partition/results.csv`, label `after`.)
//!
//! This module adds no heuristic of its own; it only chains the two.

use crate::baselines;
use crate::graph::Graph;
use crate::metis_kway::MetisError;
use crate::partition::EdgePartition;
use crate::refine;

/// `baselines::vertex_greedy`, then `refine::refine` for at most `refine::PASSES` passes.
pub fn vertex_start(graph: &Graph, parts: u32, seed: u64) -> Result<EdgePartition, MetisError> {
    let mut partition = baselines::vertex_greedy(graph, parts, seed)?;
    refine::refine(graph, &mut partition, refine::PASSES);
    Ok(partition)
}
