//! The partitioning methods side by side, each timed, each scored by the same
//! `EdgePartition::quality`: `grape` (the candidates of the mode the degree analysis picks,
//! the lowest C kept: `select`), `vertex` (METIS on D itself, each edge to its lower
//! endpoint's part), `vertex-greedy` (METIS on D, cut edges placed greedily by C,
//! rebalanced by C-gain: the honest vertex-partitioner baseline), `original` (input
//! order), `random`, and `hilbert`
//! (meshes with coordinates only: the paper's CFD baseline).

use std::fmt;
use std::time::Instant;

use crate::baselines;
use crate::degree::Mode;
use crate::fixing::check_cluster_count;
use crate::graph::Graph;
use crate::partition::{EdgePartition, Quality};
use crate::select;
use crate::two_stage::GrapeError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Grape,
    Vertex,
    VertexGreedy,
    Original,
    Random,
    Hilbert,
}

pub const ALL: [Method; 6] = [
    Method::Grape,
    Method::Vertex,
    Method::VertexGreedy,
    Method::Original,
    Method::Random,
    Method::Hilbert,
];

/// One method's partition and figures.
#[derive(Clone, Debug)]
pub struct Run {
    pub method: Method,
    pub partition: EdgePartition,
    pub quality: Quality,
    pub seconds: f64,
    /// How GRAPE ran: the mode, the candidate that won and every candidate's C
    /// ("sparse: clone graph won on C (expansion 9373, vertex start 9629, clone graph 8517)");
    /// empty for the other methods.
    pub detail: String,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Grape => "grape",
            Method::Vertex => "vertex",
            Method::VertexGreedy => "vertex-greedy",
            Method::Original => "original",
            Method::Random => "random",
            Method::Hilbert => "hilbert",
        }
    }

    pub fn parse(s: &str) -> Option<Method> {
        ALL.into_iter().find(|m| m.name() == s)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Runs `method`; `Ok(None)` when it does not apply (Hilbert without coordinates).
pub fn run(
    graph: &Graph,
    parts: u32,
    method: Method,
    mode: Mode,
    seed: u64,
) -> Result<Option<Run>, GrapeError> {
    check_cluster_count(graph.edge_count(), parts)?;
    let start = Instant::now();
    let (partition, detail) = match method {
        Method::Grape => {
            let (p, choice) = select::grape(graph, parts, mode, seed)?;
            (p, format!("{mode}: {choice}"))
        }
        Method::Vertex => (baselines::vertex(graph, parts, seed)?, String::new()),
        Method::VertexGreedy => (baselines::vertex_greedy(graph, parts, seed)?, String::new()),
        Method::Original => (baselines::original(graph, parts), String::new()),
        Method::Random => (baselines::random(graph, parts, seed), String::new()),
        Method::Hilbert => match baselines::hilbert(graph, parts) {
            Some(p) => (p, String::new()),
            None => return Ok(None),
        },
    };
    let seconds = start.elapsed().as_secs_f64();
    let quality = partition.quality(graph);
    Ok(Some(Run {
        method,
        partition,
        quality,
        seconds,
        detail,
    }))
}
