//! One candidate of GRAPE's selection (`grape::select`) alone on one graph, for measuring what each
//! costs in time and memory under `/usr/bin/time` (the numbers behind `select`'s choice per mode):
//!
//! `cargo run --release -p gpucc-cache-grape --example candidate_one -- GRAPH K CANDIDATE SEED`
//!
//! CANDIDATE: expansion, hybrid, frontier, clone-graph, vertex-start, quick-vertex-start,
//! dense-greedy. Prints
//! `candidate=X mode=M cost=C seconds=S` (S: the candidate alone, without reading the graph).

use std::process::ExitCode;
use std::time::Instant;

use grape::select::{run_candidate, Candidate};

mod common;

fn main() -> ExitCode {
    common::main_with("candidate_one", run)
}

fn run(args: &[String]) -> Result<(), String> {
    let [graph, k, candidate, seed] = args else {
        return Err("usage: candidate_one GRAPH K CANDIDATE SEED".to_string());
    };
    let candidate = match candidate.as_str() {
        "expansion" => Candidate::Expansion,
        "hybrid" => Candidate::Hybrid,
        "frontier" => Candidate::Frontier,
        "clone-graph" => Candidate::CloneGraph,
        "vertex-start" => Candidate::VertexStart,
        "quick-vertex-start" => Candidate::QuickVertexStart,
        "dense-greedy" => Candidate::DenseGreedy,
        other => return Err(format!("unknown candidate '{other}' (expansion, hybrid, frontier, clone-graph, vertex-start, quick-vertex-start, dense-greedy)")),
    };
    let job = common::job(graph, k, seed)?;
    let start = Instant::now();
    let p = run_candidate(&job.graph, job.k, job.mode, candidate, job.seed)
        .map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "candidate={candidate} mode={} cost={} seconds={seconds:.3}",
        job.mode,
        p.cost(&job.graph)
    );
    Ok(())
}
