//! GRAPE's two-stage edge partition (Li et al., "Improving Inter-thread Data Sharing with GPU
//! Caches"): stage one partitions the clone graph D' with METIS k-way, stage two fixes the clone
//! partition into an exactly balanced edge partition, and C-gain refinement (`refine`) follows.
//! Every vertex keeps its cycle of clones. (The paper's scale-free variant, which freed the
//! highest-degree vertices of their cycles for several fractions ε and kept the cheapest, is gone:
//! GRAPE's scale-free mode is the expansion of `expand`, see `select`.) The clone-graph partition
//! is no candidate of any mode for its memory; `select::Candidate::CloneGraph` still runs it alone.
//!
//! This module wires the stages; it does not compute costs itself (`EdgePartition::cost`) nor
//! order threads (`partition::edge_order`).

use crate::clone_graph::{self, CloneGraphTooLarge, CloneWeights};
use crate::fixing::{self, FixingError};
use crate::graph::Graph;
use crate::metis_kway::{self, MetisError};
use crate::partition::EdgePartition;
use crate::refine;

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

/// Clone graph, METIS k-way, fixing, then C-gain refinement: an edge partition into `parts`
/// clusters with cluster c holding exactly `target_load(m, parts, c)` edges.
pub fn two_stage(graph: &Graph, parts: u32, seed: u64) -> Result<EdgePartition, GrapeError> {
    two_stage_with(graph, parts, seed, Options::default())
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
    seed: u64,
    options: Options,
) -> Result<EdgePartition, GrapeError> {
    fixing::check_cluster_count(graph.edges.len(), parts)?;
    let mut clones = clone_graph::build_weighted(graph, &[], options.weights)?;
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
        Refinement::CGain => {
            refine::refine(graph, &mut partition, refine::PASSES);
        }
    }
    Ok(partition)
}
