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
//! The one exception is [`quick`]: where METIS cannot coarsen much (at most 60 vertices a part,
//! [`one_try_first`]), `select` first runs the start with each of METIS's initial bisections made
//! once instead of the best of four, and the anchor's own start only if that quick start wins.
//! GRAPE's C then never exceeds the anchor's when a vertex start is its answer; when an expansion
//! beats the quick start, that the anchor is not lower still is measured, not built in
//! (`bench/partition/README.md`: of 28 graph and k pairs under the rule, an expansion won 22, the
//! anchor 13–52 % above it).
//!
//! Beyond that rule this module adds no heuristic of its own; it only chains the two.

use crate::baselines;
use crate::graph::Graph;
use crate::metis_kway::{self, InitialTries, MetisError};
use crate::partition::EdgePartition;
use crate::refine;

/// `baselines::vertex_greedy`, then `refine::refine` for at most `refine::PASSES` passes.
pub fn vertex_start(graph: &Graph, parts: u32, seed: u64) -> Result<EdgePartition, MetisError> {
    Ok(refined(
        graph,
        baselines::vertex_greedy(graph, parts, seed)?,
    ))
}

/// `vertex_start` with each of METIS's initial bisections made once (`InitialTries::One`) instead
/// of the best of four: no longer the anchor, so no guarantee against it by itself.
pub fn quick(graph: &Graph, parts: u32, seed: u64) -> Result<EdgePartition, MetisError> {
    let start = baselines::vertex_greedy_with(graph, parts, seed, InitialTries::One)?;
    Ok(refined(graph, start))
}

fn refined(graph: &Graph, mut partition: EdgePartition) -> EdgePartition {
    refine::refine(graph, &mut partition, refine::PASSES);
    partition
}

/// Whether `select` runs [`quick`] before (and usually instead of) [`vertex_start`]: when METIS's
/// coarsening target (`metis_kway::coarsest_target`, at least 30 k) is half the `vertices` or
/// more, i.e. at most 60 vertices a part, so that one level of matching (which at most halves the
/// graph) reaches it. Its initial partition (recursive bisection into k parts, each bisection the
/// best of four) then runs on half the graph or more and is most of GRAPE's time:
/// on 3-D Delaunay 100 k (12,987 vertices) at k = 256, METIS was 70 % of the process by `perf`,
/// and one try a bisection took the process from 0.47 to 0.23 CPU s (`bench/partition/README.md`).
/// Larger graphs, or the same at smaller k, keep the anchor's start: there the coarsest graph is
/// small and its tries cheap.
pub fn one_try_first(vertices: usize, parts: u32) -> bool {
    parts > 1 && 2 * metis_kway::coarsest_target(vertices, parts) >= vertices
}
