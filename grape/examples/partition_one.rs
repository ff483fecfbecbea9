//! One method of the `grape` library on one graph, for `bench/partition/run`: reads the graph (an
//! edge list or a Matrix Market file), partitions it into k clusters, and writes the cluster of
//! every input edge as little-endian u32s, nothing else, so that `/usr/bin/time` measures what a
//! partitioner costs (read, partition, write), as it does for NE and HEP.
//!
//! `cargo run --release -p gpucc-cache-grape --example partition_one -- GRAPH K METHOD SEED OUT`
//! prints `method=M seconds=S detail=D` (S: the method alone, without reading or writing).

use std::process::ExitCode;

use grape::methods::{self, Method};

mod common;

fn main() -> ExitCode {
    common::main_with("partition_one", run)
}

fn run(args: &[String]) -> Result<(), String> {
    let [graph, k, method, seed, out] = args else {
        return Err("usage: partition_one GRAPH K METHOD SEED OUT".to_string());
    };
    let method = Method::parse(method).ok_or_else(|| format!("unknown method '{method}'"))?;
    let job = common::job(graph, k, seed)?;
    let run = methods::run(&job.graph, job.k, method, job.mode, job.seed)
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
