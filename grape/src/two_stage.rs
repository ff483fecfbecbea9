//! GRAPE's two-stage edge partition (Li et al., "Improving Inter-thread Data Sharing with GPU
//! Caches"): stage one partitions the clone graph D' with METIS k-way, stage two fixes the clone
//! partition into an exactly balanced edge partition. Two entry points:
//! - `grape_sparse`: every vertex keeps its cycle of clones (meshes, sparse matrices);
//! - `grape_scale_free`: the highest-degree vertices are freed of their cycles, for several
//!   fractions ε of freed vertices, keeping the cheapest result (power-law graphs, where a hub's
//!   cycle would otherwise dominate what METIS optimises).
//!
//! This module wires the stages and chooses the free vertices; it does not compute costs itself
//! (`EdgePartition::cost`) nor order threads (`partition::edge_order`).

use crate::clone_graph::{self, CloneGraphTooLarge, CloneWeights};
use crate::fixing::{self, FixingError};
use crate::graph::Graph;
use crate::metis_kway::{self, MetisError};
use crate::partition::EdgePartition;
use crate::refine;

/// The fractions ε of vertices the scale-free variant tries freeing, as in the paper's search.
pub const FREE_FRACTIONS: [f64; 5] = [0.05, 0.10, 0.15, 0.20, 0.25];

/// METIS's allowed imbalance in thousandths: the tightest it accepts, since every clone METIS puts
/// over a part's share is one that fixing must move.
const UFACTOR: metis::Idx = 1;

/// Why a two-stage partition could not be made.
#[derive(Debug)]
pub enum GrapeError {
    /// The cluster count cannot be met with exact balance (0 clusters, or more clusters than edges).
    Clusters(FixingError),
    /// The graph is too large for the clone graph's indices.
    TooLarge(CloneGraphTooLarge),
    /// METIS rejected the clone graph or failed.
    Metis(MetisError),
}

impl std::fmt::Display for GrapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GrapeError::Clusters(e) => e.fmt(f),
            GrapeError::TooLarge(e) => e.fmt(f),
            GrapeError::Metis(e) => write!(f, "{e} (while partitioning the clone graph)"),
        }
    }
}

impl std::error::Error for GrapeError {}

impl From<FixingError> for GrapeError {
    fn from(e: FixingError) -> GrapeError {
        GrapeError::Clusters(e)
    }
}

impl From<CloneGraphTooLarge> for GrapeError {
    fn from(e: CloneGraphTooLarge) -> GrapeError {
        GrapeError::TooLarge(e)
    }
}

impl From<MetisError> for GrapeError {
    fn from(e: MetisError) -> GrapeError {
        GrapeError::Metis(e)
    }
}

/// Clone graph (vertices with `free[v]` get no auxiliary edges), METIS k-way, fixing, then
/// balance-preserving refinement: an edge
/// partition into `parts` clusters with cluster c holding exactly `target_load(m, parts, c)` edges.
pub fn two_stage(
    graph: &Graph,
    parts: u32,
    free: &[bool],
    seed: u64,
) -> Result<EdgePartition, GrapeError> {
    two_stage_with(graph, parts, free, seed, Options::default())
}

/// The choices inside `two_stage`, for measuring one against another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    pub weights: CloneWeights,
    pub refinement: Refinement,
}

/// The refinement run after fixing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refinement {
    None,
    /// `fixing::refine`: pairwise swaps.
    Swaps,
    /// `refine::refine`: group moves by C-gain, then rebalancing.
    CGain,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            weights: CloneWeights::Degree {
                per_degree: clone_graph::PER_DEGREE,
            },
            refinement: Refinement::CGain,
        }
    }
}

/// `two_stage` with `options`.
pub fn two_stage_with(
    graph: &Graph,
    parts: u32,
    free: &[bool],
    seed: u64,
    options: Options,
) -> Result<EdgePartition, GrapeError> {
    fixing::check_cluster_count(graph.edges.len(), parts)?;
    let mut clones = clone_graph::build_weighted(graph, free, options.weights)?;
    let clone_part = metis_kway::partition(
        clones.clone_count(),
        &clones.weighted_edges,
        parts,
        UFACTOR,
        seed,
    )?;
    // Fixing reads the clone correspondence only; the weighted edges can go before it allocates.
    clones.weighted_edges = Vec::new();
    let mut partition = fixing::fix(graph, &clones, &clone_part, parts)?;
    drop((clones, clone_part));
    match options.refinement {
        Refinement::None => {}
        Refinement::Swaps => {
            fixing::refine(graph, &mut partition, fixing::REFINE_PASSES);
        }
        Refinement::CGain => {
            refine::refine(graph, &mut partition, refine::PASSES);
        }
    }
    Ok(partition)
}

/// GRAPE for sparse graphs (meshes, sparse matrices): no vertex is free.
pub fn grape_sparse(graph: &Graph, parts: u32, seed: u64) -> Result<EdgePartition, GrapeError> {
    two_stage(graph, parts, &[], seed)
}

/// GRAPE for scale-free graphs: for each ε in `FREE_FRACTIONS`, free the vertices of highest degree
/// (at most ε·n of them, all above the average degree) and run `two_stage`; keep the partition
/// with the lowest cost C. Returns it with the ε that produced it.
pub fn grape_scale_free(
    graph: &Graph,
    parts: u32,
    seed: u64,
) -> Result<(EdgePartition, f64), GrapeError> {
    fixing::check_cluster_count(graph.edges.len(), parts)?;
    let degrees = graph.degrees();
    let mut best: Option<(EdgePartition, f64, u64)> = None;
    let mut tried: Vec<usize> = Vec::new();
    for &epsilon in &FREE_FRACTIONS {
        let free = free_vertices(&degrees, epsilon);
        // Sets are nested by threshold, so equal counts mean equal sets: skip repeats.
        let count = free.iter().filter(|&&f| f).count();
        if tried.contains(&count) {
            continue;
        }
        tried.push(count);
        let partition = two_stage(graph, parts, &free, seed)?;
        let cost = partition.cost(graph);
        if best.as_ref().is_none_or(|&(_, _, c)| cost < c) {
            best = Some((partition, epsilon, cost));
        }
    }
    match best {
        Some((partition, epsilon, _)) => Ok((partition, epsilon)),
        // FREE_FRACTIONS is not empty, so the loop ran at least once.
        None => Ok((grape_sparse(graph, parts, seed)?, 0.0)),
    }
}

/// The vertices of degree ≥ T·d_avg for the smallest threshold T > 1 that frees at most ⌊ε·n⌋
/// vertices: the highest-degree vertices, with a tie at the cut-off excluded as a whole so that
/// the count never exceeds ε·n.
pub fn free_vertices(degrees: &[u32], epsilon: f64) -> Vec<bool> {
    let n = degrees.len();
    let budget = (epsilon * n as f64).floor() as usize;
    if budget == 0 {
        return vec![false; n];
    }
    let total: u64 = degrees.iter().map(|&d| u64::from(d)).sum();
    let mut sorted = degrees.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    // Freeing exactly the vertices above the (budget+1)-th highest degree never exceeds the budget.
    let above = if budget < n {
        u64::from(sorted[budget])
    } else {
        0
    };
    // d > d_avg, i.e. d·n > total, without rounding.
    degrees
        .iter()
        .map(|&d| u64::from(d) > above && u64::from(d) * n as u64 > total)
        .collect()
}
