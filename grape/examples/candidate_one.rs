//! One candidate of GRAPE's selection (`grape::select`) alone on one graph, for measuring what each
//! costs in time and memory under `/usr/bin/time` (the numbers behind `select`'s choice per mode):
//!
//! `cargo run --release -p gpucc-cache-grape --example candidate_one -- GRAPH K CANDIDATE SEED`
//!
//! CANDIDATE: expansion, hybrid, clone-graph, vertex-start, dense-greedy. Prints
//! `candidate=X mode=M cost=C seconds=S` (S: the candidate alone, without reading the graph).

use std::process::ExitCode;
use std::time::Instant;

use grape::degree::{analyse, choose_mode};
use grape::select::{run_candidate, Candidate};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("candidate_one: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let [graph, k, candidate, seed] = args else {
        return Err("usage: candidate_one GRAPH K CANDIDATE SEED".to_string());
    };
    let k: u32 = k
        .parse()
        .map_err(|_| format!("K must be a positive integer, not '{k}'"))?;
    let seed: u64 = seed
        .parse()
        .map_err(|_| format!("SEED must be an unsigned integer, not '{seed}'"))?;
    let candidate = match candidate.as_str() {
        "expansion" => Candidate::Expansion,
        "hybrid" => Candidate::Hybrid,
        "clone-graph" => Candidate::CloneGraph,
        "vertex-start" => Candidate::VertexStart,
        "dense-greedy" => Candidate::DenseGreedy,
        other => return Err(format!("unknown candidate '{other}' (expansion, hybrid, clone-graph, vertex-start, dense-greedy)")),
    };
    let g = grape::input::read_graph(std::path::Path::new(graph)).map_err(|e| e.to_string())?;
    let mode = choose_mode(&analyse(&g));
    let start = Instant::now();
    let p = run_candidate(&g, k, mode, candidate, seed).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "candidate={candidate} mode={mode} cost={} seconds={seconds:.3}",
        p.cost(&g)
    );
    Ok(())
}
