//! GRAPE's choice of method per graph: run the candidates the degree analysis admits and keep the
//! partition with the lowest C, reporting which won and the C of every candidate.
//!
//! Why measured rather than predicted (development measurements, `benches/families.rs`, C at
//! k = 32 / 256 after refinement): no single start wins a whole family. The clone graph wins on
//! `copter2` at k = 32 (8,517 against 9,373 for expansion) and on a degree-15 3-D geometric mesh
//! (9,718 / 23,054 against 13,231 / 27,270), expansion wins on `copter2` at k = 256 (21,801 against
//! 22,703) and on a 500×500 grid (4,746 / 14,332 against 4,878 / 14,966), and the vertex start wins
//! on `4elt` at k = 32 (975 against 1,054 and 1,482). Keeping the lowest C also makes GRAPE never
//! worse than METIS vertex + greedy assignment (the vertex start before refinement).
//!
//! The candidates per mode, and why these (`bench/partition`, label `after`; `examples/candidate_one`
//! measures one candidate alone):
//! - sparse: the vertex start (`vertex_start`: METIS vertex + greedy cut-edge assignment + exact
//!   rebalance, then refined) and the expansion (`expand`, no hubs) twice, its seeds in vertex order
//!   and on the frontier (`expand::Seeds::Frontier`: each cluster starts where the last stopped),
//!   each refined by C-gain (`refine`). The vertex start wins on 2-D meshes, road-like graphs,
//!   `4elt` and most 3-D Delaunay cases; the frontier expansion on grids, `copter2` at k = 32 (8,837
//!   against 9,123 in vertex order and 9,140 for the vertex start) and 3-D Delaunay 1 M at k = 256;
//!   the expansion in vertex order on `copter2` and 3-D Delaunay 100 k at k = 256. An expansion
//!   costs a tenth to a half of the vertex start's CPU time (METIS; `copter2`: 0.14 s against
//!   0.37 s at k = 32, 3-D Delaunay 100 k: 0.04 s against 0.41 s at k = 256, process CPU seconds of
//!   `examples/candidate_one`), so the second one adds little. The vertex start runs first so that
//!   METIS's peak (its coarsened graphs: 52 MiB of 3-D Delaunay 1 M's 53) is not stacked on a kept
//!   partition. Where METIS's coarsening target is half the vertices or more (at most 60 a part: 3-D
//!   Delaunay 100 k at k = 256 is the one benchmark row), the vertex start runs with one try per
//!   METIS initial bisection (`vertex_start::quick`, half the process's time there) and the anchor's
//!   start follows only if it wins. The clone-graph partition (`two_stage`) is not run: it won on
//!   `copter2` and 3-D Delaunay at k = 32 by 1–5 %, but a clone graph of 2m vertices put GRAPE at
//!   334–393 MiB on 1 M-edge graphs, 5–13 times NE's memory;
//! - scale-free: the expansion without hubs, HEP's hybrid (hubs apart, τ = `expand::TAU`) and four
//!   restarts of the expansion with shuffled seeds (`Restart`), all seeded by NE's rule
//!   (`expand::SeedRule::LowDegreeFirst`), none refined. The runs differ by 0.1–4 % in C (R-MAT
//!   100 k, k = 32: 11,617 to 12,174) and each costs about one NE run's partitioning, since the
//!   expansion drops assigned edges from its incidence lists as NE does. Refining even the winner
//!   alone, one pass, took 0–0.26 % off C (Barabási–Albert 100 k, k = 32 / 256: 11 / 30; 1 M:
//!   15 / 59; R-MAT 100 k: 6 / 117, 1 M: 0 / 500) for a third to half more CPU time (Barabási–Albert
//!   1 M, k = 32: 9.4–10.8 s against 6.9 s, NE 3.9 s; R-MAT 10 M, k = 32: 98 s, NE 31 s), which put
//!   GRAPE above twice NE's time; NE's seed rule alone keeps every case measured at or below NE's
//!   median C. (The clone graph, the old scale-free mode of up to five METIS runs, cost 100 times
//!   the time for a 10 % higher C.)
//! - dense: the dense greedy alone.

use std::fmt;

use crate::degree::Mode;
use crate::expand::{self, expand_with, SeedRule, Seeds};
use crate::graph::Graph;
use crate::greedy::dense_greedy;
use crate::partition::EdgePartition;
use crate::refine;
use crate::two_stage::{two_stage, GrapeError};
use crate::vertex_start::{self, vertex_start};

/// A candidate method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// Neighbourhood expansion without hubs (NE's idea).
    Expansion,
    /// Expansion with hubs apart and their edges between each other streamed (HEP's idea).
    Hybrid,
    /// Expansion without hubs, its seeds in an order shuffled from the run's seed and this number.
    Restart(u8),
    /// Expansion without hubs, each cluster seeded where the previous one stopped
    /// (`expand::Seeds::Frontier`).
    Frontier,
    /// The two-stage clone-graph partition (in no mode's list, for its memory: see the module note;
    /// `benches/families.rs` and `examples/candidate_one` still run it).
    CloneGraph,
    /// METIS on the vertices, cut edges handed out greedily.
    VertexStart,
    /// The vertex start with one METIS initial partition (`vertex_start::quick`), run in its place
    /// where METIS cannot coarsen much (`vertex_start::one_try_first`); the vertex start itself
    /// follows only if this one wins.
    QuickVertexStart,
    /// The dense greedy.
    DenseGreedy,
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Candidate::Restart(i) = self {
            return write!(f, "restart {i}");
        }
        f.write_str(match self {
            Candidate::Expansion => "expansion",
            Candidate::Hybrid => "hybrid",
            Candidate::Restart(_) => "restart",
            Candidate::Frontier => "frontier expansion",
            Candidate::CloneGraph => "clone graph",
            Candidate::VertexStart => "vertex start",
            Candidate::QuickVertexStart => "quick vertex start",
            Candidate::DenseGreedy => "dense greedy",
        })
    }
}

/// What the choice was: the winner first, then every candidate with its C.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub winner: Candidate,
    pub costs: Vec<(Candidate, u64)>,
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} won", self.winner)?;
        if self.costs.len() > 1 {
            let all: Vec<String> = self.costs.iter().map(|(c, x)| format!("{c} {x}")).collect();
            write!(f, " on C ({})", all.join(", "))?;
        }
        Ok(())
    }
}

/// The candidates GRAPE runs in `mode`.
pub fn candidates(mode: Mode) -> &'static [Candidate] {
    match mode {
        Mode::Sparse => &[
            Candidate::VertexStart,
            Candidate::Expansion,
            Candidate::Frontier,
        ],
        Mode::ScaleFree => &[
            Candidate::Expansion,
            Candidate::Hybrid,
            Candidate::Restart(1),
            Candidate::Restart(2),
            Candidate::Restart(3),
            Candidate::Restart(4),
        ],
        Mode::Dense => &[Candidate::DenseGreedy],
    }
}

/// Runs one candidate, refined when `mode` is sparse (see the module note).
pub fn run_candidate(
    graph: &Graph,
    parts: u32,
    mode: Mode,
    candidate: Candidate,
    seed: u64,
) -> Result<EdgePartition, GrapeError> {
    let refined = |mut p: EdgePartition| {
        if mode == Mode::Sparse {
            refine::refine(graph, &mut p, refine::PASSES);
        }
        p
    };
    let rule = match mode {
        Mode::ScaleFree => SeedRule::LowDegreeFirst,
        Mode::Sparse | Mode::Dense => SeedRule::Any,
    };
    Ok(match candidate {
        Candidate::Expansion => refined(expand_with(graph, parts, None, Seeds::InOrder, rule)),
        Candidate::Hybrid => {
            let hub = expand::hubs(graph, expand::TAU);
            expand_with(graph, parts, Some(&hub), Seeds::InOrder, rule)
        }
        Candidate::Frontier => refined(expand_with(graph, parts, None, Seeds::Frontier, rule)),
        Candidate::Restart(i) => refined(expand_with(
            graph,
            parts,
            None,
            Seeds::Shuffled(seed.wrapping_add(u64::from(i))),
            rule,
        )),
        // `two_stage` refines by itself.
        Candidate::CloneGraph => two_stage(graph, parts, seed)?,
        // `vertex_start` refines by itself.
        Candidate::VertexStart => vertex_start(graph, parts, seed)?,
        Candidate::QuickVertexStart => vertex_start::quick(graph, parts, seed)?,
        Candidate::DenseGreedy => dense_greedy(graph, parts),
    })
}

/// How far below the quick vertex start's C a winner must be for the vertex start (the anchor's
/// METIS partition, refined) not to run after it: 5 %. One try per initial bisection instead of
/// four moved the refined start's C by 0.4 % on 3-D Delaunay 100 k, k = 256 (11,570 against
/// 11,519), and refinement lowers the anchor's C by more (15,421 there); the frontier expansion
/// won that row by 5.8 % (10,903).
pub const QUICK_MARGIN: f64 = 0.05;

/// GRAPE in `mode`: every candidate of the mode, the lowest C kept (the earlier candidate on a tie).
///
/// Where `vertex_start::one_try_first` holds, the quick vertex start runs in the vertex start's
/// place, and the vertex start (the anchor, refined) runs after the others only if the quick one
/// won or the winner beat it by less than [`QUICK_MARGIN`]: so GRAPE is at or below the anchor's C
/// whenever a vertex start is its answer. When an expansion beats the quick start by more, the
/// anchor is not run; that it is not lower than the winner then rests on the margin and is
/// measured, not built in (every such case in `bench/partition/README.md`).
pub fn grape(
    graph: &Graph,
    parts: u32,
    mode: Mode,
    seed: u64,
) -> Result<(EdgePartition, Choice), GrapeError> {
    crate::fixing::check_cluster_count(graph.edges.len(), parts)?;
    let quick_first = vertex_start::one_try_first(graph.vertices as usize, parts);
    let mut best: Option<(EdgePartition, Candidate, u64)> = None;
    let mut costs = Vec::new();
    let mut keep = |p: EdgePartition, candidate: Candidate, costs: &mut Vec<(Candidate, u64)>| {
        let cost = p.cost(graph);
        costs.push((candidate, cost));
        if best.as_ref().is_none_or(|&(_, _, c)| cost < c) {
            best = Some((p, candidate, cost));
        }
        best.as_ref().map(|b| b.1)
    };
    let mut winner = None;
    for &candidate in candidates(mode) {
        let candidate = match candidate {
            Candidate::VertexStart if quick_first => Candidate::QuickVertexStart,
            other => other,
        };
        if candidate == Candidate::Hybrid && !expand::hubs(graph, expand::TAU).contains(&true) {
            // Without hubs the hybrid is the expansion (the same seeds, the same rule): its
            // partition and C are the expansion's, which keeps the tie. Barabási–Albert and
            // R-MAT at 100 k edges have no vertex above τ = 100 times the average degree.
            if let Some(&(_, cost)) = costs.iter().find(|(c, _)| *c == Candidate::Expansion) {
                costs.push((candidate, cost));
                continue;
            }
        }
        let p = run_candidate(graph, parts, mode, candidate, seed)?;
        winner = keep(p, candidate, &mut costs);
    }
    // The anchor's start also follows when the winner beats the quick start by less than
    // `QUICK_MARGIN`: the anchor (METIS's own effort, cut edges handed out, no refinement) is
    // then lower than the winner only if it beats the refined quick start by more than that.
    let quick = (costs.iter()).find(|c| c.0 == Candidate::QuickVertexStart);
    let lowest = costs.iter().map(|c| c.1).min();
    let close = quick
        .zip(lowest)
        .is_some_and(|(&(_, q), b)| (b as f64) > (q as f64) * (1.0 - QUICK_MARGIN));
    if winner == Some(Candidate::QuickVertexStart) || close {
        let full = run_candidate(graph, parts, mode, Candidate::VertexStart, seed)?;
        keep(full, Candidate::VertexStart, &mut costs);
    }
    let (partition, winner, _) = best.expect("every mode has a candidate");
    Ok((partition, Choice { winner, costs }))
}
