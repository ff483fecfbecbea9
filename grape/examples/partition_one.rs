//! One method of the `grape` library on one graph, for `bench/partition/run`: reads the graph (an
//! edge list or a Matrix Market file), partitions it into k clusters, and writes the cluster of
//! every input edge as little-endian u32s, nothing else, so that `/usr/bin/time` measures what a
//! partitioner costs (read, partition, write), as it does for NE and HEP.
//!
//! `cargo run --release -p gpucc-cache-grape --example partition_one -- GRAPH K METHOD SEED OUT`
//! prints `method=M seconds=S detail=D` (S: the method alone, without reading or writing).

use std::process::ExitCode;

use grape::degree::{analyse, choose_mode};
use grape::methods::{self, Method};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("partition_one: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let [graph, k, method, seed, out] = args else {
        return Err("usage: partition_one GRAPH K METHOD SEED OUT".to_string());
    };
    let k: u32 = k
        .parse()
        .map_err(|_| format!("K must be a positive integer, not '{k}'"))?;
    let seed: u64 = seed
        .parse()
        .map_err(|_| format!("SEED must be an unsigned integer, not '{seed}'"))?;
    let method = Method::parse(method).ok_or_else(|| format!("unknown method '{method}'"))?;
    let g = grape::input::read_graph(std::path::Path::new(graph)).map_err(|e| e.to_string())?;
    let mode = choose_mode(&analyse(&g));
    let run = methods::run(&g, k, method, mode, seed)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{method} does not apply to {graph}"))?;
    let bytes: Vec<u8> = run
        .partition
        .cluster
        .iter()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    std::fs::write(out, bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    println!(
        "method={} seconds={:.3} detail={}",
        run.method, run.seconds, run.detail
    );
    Ok(())
}
