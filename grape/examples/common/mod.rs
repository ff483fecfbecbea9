//! What `partition_one` and `candidate_one` share: the process around one partitioning job (errors
//! to stderr under the tool's name, exit status) and reading the job's arguments (GRAPH, K, SEED:
//! the graph read, its mode chosen by the degree analysis as `gpucc-cache partition` chooses it).

use std::process::ExitCode;

use grape::degree::{analyse, choose_mode, Mode};
use grape::graph::Graph;

/// One partitioning job: the graph, its mode, the cluster count and the seed.
pub struct Job {
    pub graph: Graph,
    pub mode: Mode,
    pub k: u32,
    pub seed: u64,
}

/// Runs `run` on the process's arguments; its error goes to stderr as `NAME: error`.
pub fn main_with(name: &str, run: fn(&[String]) -> Result<(), String>) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The job of GRAPH, K and SEED as given on the command line.
pub fn job(graph: &str, k: &str, seed: &str) -> Result<Job, String> {
    let k: u32 = k
        .parse()
        .map_err(|_| format!("K must be a positive integer, not '{k}'"))?;
    let seed: u64 = seed
        .parse()
        .map_err(|_| format!("SEED must be an unsigned integer, not '{seed}'"))?;
    let graph = grape::input::read_graph(std::path::Path::new(graph)).map_err(|e| e.to_string())?;
    let mode = choose_mode(&analyse(&graph));
    Ok(Job {
        graph,
        mode,
        k,
        seed,
    })
}
