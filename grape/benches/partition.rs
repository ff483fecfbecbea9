//! Times GRAPE on graphs of about a million edges split into 1,024 clusters: a randomly numbered
//! 708×708 grid with the two-stage clone-graph partition (stage by stage, then end to end) and with
//! GRAPE's sparse mode, and a preferential-attachment graph with GRAPE's scale-free mode
//! (`select::grape`). Prints edges, clusters, seconds, C, the load range and the peak resident
//! memory (VmHWM from /proc/self/status, where the system has it).
//!
//! Run: `cargo bench -p gpucc-cache-grape --bench partition`.

use grape::degree::Mode;
use grape::graph::Graph;
use grape::partition::EdgePartition;
use grape::two_stage::GrapeError;
use grape::{clone_graph, fixing, generate, metis_kway, refine, select, two_stage};
use std::time::Instant;

const PARTS: u32 = 1024;
const SEED: u64 = 1;

/// Peak resident set size in MiB, when /proc reports it.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Runs `partition` on `graph` and prints what it cost.
fn report(
    name: &str,
    graph: &Graph,
    partition: impl FnOnce() -> Result<EdgePartition, GrapeError>,
) {
    let t = Instant::now();
    let p = match partition() {
        Ok(p) => p,
        Err(e) => return eprintln!("{name}: {e}"),
    };
    let seconds = t.elapsed().as_secs_f64();
    let q = p.quality(graph);
    let peak = peak_mib().map_or("n/a".to_string(), |m| format!("{m:.0} MiB"));
    println!(
        "{name}: edges {} vertices {} parts {} seconds {seconds:.2} C {} load {}..{} peak {peak}",
        graph.edges.len(),
        graph.vertices,
        p.parts,
        q.cost,
        q.min_load,
        q.max_load
    );
}

fn main() {
    let grid = generate::mesh2d(708, 708, SEED);

    // Stage by stage, to see where the time goes.
    let t = Instant::now();
    let clones = match clone_graph::build(&grid, &[]) {
        Ok(c) => c,
        Err(e) => return eprintln!("{e}"),
    };
    let t_clone = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let clone_part =
        match metis_kway::partition(clones.clone_count(), &clones.weighted_edges, PARTS, 1, SEED) {
            Ok(p) => p,
            Err(e) => return eprintln!("{e}"),
        };
    let t_metis = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let mut fixed = match fixing::fix(&grid, &clones, &clone_part, PARTS) {
        Ok(p) => p,
        Err(e) => return eprintln!("{e}"),
    };
    let t_fix = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let before = fixed.cost(&grid);
    let t_cost = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let gained = refine::refine(&grid, &mut fixed, refine::PASSES);
    let t_refine = t.elapsed().as_secs_f64();
    drop((clones, clone_part, fixed));
    println!(
        "mesh2d 708x708 stages: clone graph {t_clone:.2} s, METIS {t_metis:.2} s, \
         fixing {t_fix:.2} s (C {before}), refinement {t_refine:.2} s (C -{gained}), \
         computing C {t_cost:.2} s"
    );

    report("mesh2d 708x708 two-stage", &grid, || {
        two_stage::two_stage(&grid, PARTS, SEED)
    });
    report("mesh2d 708x708 grape sparse", &grid, || {
        select::grape(&grid, PARTS, Mode::Sparse, SEED).map(|(p, _)| p)
    });
    drop(grid);

    let scale_free = generate::scale_free(250_000, 4, SEED);
    report("scalefree 250000:4 grape scale-free", &scale_free, || {
        select::grape(&scale_free, PARTS, Mode::ScaleFree, SEED).map(|(p, _)| p)
    });
}
