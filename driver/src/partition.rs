//! `gpucc-cache partition GRAPH [--parts=K | --block-dim=T [--cuda-gpu-arch=sm_XX]]
//! [--method=M] [--methods=LIST] [--out=DIR] [--json=PATH] [--seed=S]`: GRAPE's
//! edge partition of a data-affinity graph (a Matrix Market file, an edge list,
//! or a generated graph `gen:SPEC`), every method's cost side by side, and the
//! files a host program (or `--kernel-data`) loads to run the kernel in the
//! chosen method's order.
//!
//! The work is the `grape` crate's; this file reads flags, picks k (given, or
//! from the block size and the arch's blocks per SM, as the kernel-level model
//! computes them), and writes the results.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _, Result};
use gpucc_cache_pass::gpu::generation::Arch;
use gpucc_cache_pass::gpu::hardware::Hardware;
use gpucc_cache_pass::gpu::occupancy::occupancy;
use grape::degree::{analyse, choose_mode, DegreeStats, Mode};
use grape::graph::Graph;
use grape::layout::{fits, thread_order, Launch, ThreadOrder};
use grape::methods::{self, Method, Run};
use grape::placement::{data_order, inverse};

use crate::output::Outputs;

const USAGE: &str = "usage: gpucc-cache partition GRAPH (--parts=K | --block-dim=T [--cuda-gpu-arch=sm_XX]) [--method=grape|vertex|vertex-greedy|original|random|hilbert] [--out=DIR] [--json=PATH]";

const HELP: &str = "\
GRAPE (GRAph Partition on Edges): assigns the edges of a data-affinity graph
(a vertex is a data object, an edge one thread's work over two objects) to k
clusters of threads that share one L1, minimising C = sum over objects of
(clusters the object appears in - 1), with every cluster at exactly m/k edges.

GRAPH is a Matrix Market coordinate file (for y = Ax: the x and y entries are
the vertices, each nonzero an edge), an edge list (`u v` per line), or
gen:SPEC, one of gen:mesh2d:WxH, gen:mesh3d:XxYxZ, gen:scalefree:N:D,
gen:clique:N, gen:cycle:N (each optionally :seed=S). Lines of an edge list
that open with # or % are comments; partition says how many it skipped.

Options:
  --parts=K            number of clusters
  --block-dim=T        threads per block (X or XxYxZ); k is then the fewest
                       clusters of (T x blocks per SM) threads that hold every
                       edge, and the thread order deals each cluster to the
                       blocks one SM runs (blocks s, s+S, s+2S, ... for S SMs)
  --cuda-gpu-arch=sm_XX  the arch for blocks per SM and SMs (default sm_70)
  --method=M           the method whose order --out writes (default grape)
  --methods=LIST       the methods to compare (default all: grape, vertex,
                       vertex-greedy, original, random, hilbert for graphs
                       with coordinates). vertex: METIS vertex parts, each
                       edge to its lower endpoint's part; vertex-greedy: cut
                       edges to the endpoint part that adds least to C, then
                       rebalanced by C-gain moves
  --out=DIR            write the chosen method's files (created if missing):
                         edge_cluster.u32   cluster of every input edge
                         thread_edge.i32    input edge of every thread, -1 padding
                         vertex_order.u32   old vertex at each new position
                         vertex_index.u32   new position of each old vertex
                         src.i32, dst.i32   endpoints per thread, new numbering
                         row.i32, col.i32   (matrices) y and x index per thread
                       all little-endian; bind them with --kernel-data=NAME=FILE
  --json=PATH          the figures as JSON (its directory created if missing)
  --seed=S             seed of METIS and the random baseline (default 1)

For --method=original the thread order is the input order (thread t works on
edge t) and the numbering is the input's: the program as written.";

/// Every file `--out` may write.
const OUT_FILES: [&str; 8] = [
    "edge_cluster.u32",
    "thread_edge.i32",
    "vertex_order.u32",
    "vertex_index.u32",
    "src.i32",
    "dst.i32",
    "row.i32",
    "col.i32",
];

struct Request {
    graph: String,
    parts: Option<u32>,
    block: Option<u32>,
    arch: Arch,
    method: Method,
    methods: Vec<Method>,
    out: Option<PathBuf>,
    json: Option<PathBuf>,
    seed: u64,
}

fn flag_value(args: &[String], i: &mut usize, flag: &str) -> Result<Option<String>> {
    crate::flags::flag_value(args, i, flag, USAGE)
}

fn parse_method(v: &str, flag: &str) -> Result<Method> {
    Method::parse(v).ok_or_else(|| {
        anyhow!(
            "invalid value '{v}' for {flag}: expected grape, vertex, vertex-greedy, original, random or hilbert"
        )
    })
}

fn parse(args: &[String]) -> Result<Request> {
    let mut r = Request {
        graph: String::new(),
        parts: None,
        block: None,
        arch: Arch::parse("sm_70").expect("sm_70 is an arch"),
        method: Method::Grape,
        methods: methods::ALL.to_vec(),
        out: None,
        json: None,
        seed: 1,
    };
    let mut graph = None;
    let mut seen: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let name = args[i].split('=').next().unwrap_or("");
        if name.starts_with("--") && name != "--cuda-gpu-arch" {
            if seen.contains(&name) {
                bail!("{name} given twice; give it once");
            }
            seen.push(name);
        }
        if let Some(v) = flag_value(args, &mut i, "--parts")? {
            let k: u32 = v.parse().ok().filter(|&k| k >= 1).ok_or_else(|| {
                anyhow!(
                    "invalid value '{v}' for --parts: expected a number of clusters, at least 1"
                )
            })?;
            r.parts = Some(k);
        } else if let Some(v) = flag_value(args, &mut i, "--block-dim")? {
            let dims: Option<Vec<u32>> = v.split('x').map(|d| d.parse().ok()).collect();
            let t = dims
                .filter(|d| (1..=3).contains(&d.len()))
                .map(|d| d.iter().map(|&x| u64::from(x)).product::<u64>())
                .filter(|&t| (1..=1024).contains(&t))
                .ok_or_else(|| {
                    anyhow!("invalid value '{v}' for --block-dim: expected X[xY[xZ]] with 1 to 1024 threads")
                })?;
            r.block = Some(t as u32);
        } else if let Some(v) =
            flag_value(args, &mut i, "--cuda-gpu-arch")?.or(flag_value(args, &mut i, "-arch")?)
        {
            r.arch = Arch::parse(&v).ok_or_else(|| {
                anyhow!("unknown arch '{v}' for --cuda-gpu-arch: expected sm_XX, e.g. sm_70")
            })?;
        } else if let Some(v) = flag_value(args, &mut i, "--method")? {
            r.method = parse_method(&v, "--method")?;
        } else if let Some(v) = flag_value(args, &mut i, "--methods")? {
            r.methods = (v.split(','))
                .map(|m| parse_method(m, "--methods"))
                .collect::<Result<_>>()?;
        } else if let Some(v) = flag_value(args, &mut i, "--out")? {
            if v.is_empty() {
                bail!("--out needs a directory name");
            }
            r.out = Some(PathBuf::from(v));
        } else if let Some(v) = flag_value(args, &mut i, "--json")? {
            if v.is_empty() {
                bail!("--json needs a file name");
            }
            r.json = Some(PathBuf::from(v));
        } else if let Some(v) = flag_value(args, &mut i, "--seed")? {
            r.seed = v.parse().map_err(|_| {
                anyhow!("invalid value '{v}' for --seed: expected an unsigned integer")
            })?;
        } else if args[i].starts_with('-') {
            bail!("unknown option '{}' for partition; {USAGE}", args[i]);
        } else if graph.replace(args[i].clone()).is_some() {
            bail!(
                "more than one graph given ('{}'); partition takes one",
                args[i]
            );
        }
        i += 1;
    }
    r.graph = graph.ok_or_else(|| anyhow!("no graph given; {USAGE}"))?;
    if r.parts.is_none() && r.block.is_none() {
        bail!("give the number of clusters with --parts=K, or the block size with --block-dim=T; {USAGE}");
    }
    if !r.methods.contains(&r.method) {
        r.methods.push(r.method);
    }
    Ok(r)
}

fn read_graph(spec: &str) -> Result<Graph> {
    if let Some(g) = spec.strip_prefix("gen:") {
        return grape::generate::from_spec(g).map_err(|e| anyhow!("{e}"));
    }
    let graph = grape::input::read_graph(Path::new(spec)).map_err(|e| anyhow!("{e}"))?;
    if graph.matrix.is_none() {
        // An edge list's `#`/`%` lines are skipped by the reader; a SNAP-style header is
        // fine, but data commented out by mistake should not vanish unnoticed.
        let comments = comment_lines(Path::new(spec));
        if comments > 0 {
            say!(
                "gpucc-cache: note: {spec}: skipped {comments} comment line{} (# or %)",
                if comments == 1 { "" } else { "s" }
            );
        }
    }
    Ok(graph)
}

/// Lines of an edge list whose first non-blank byte is `#` or `%` (what the reader skips);
/// 0 when the file cannot be read again.
fn comment_lines(path: &Path) -> u64 {
    use std::io::BufRead as _;
    let Ok(file) = std::fs::File::open(path) else {
        return 0;
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    let mut count = 0;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return count,
            Ok(_) => {
                let first = line.iter().find(|b| !b.is_ascii_whitespace());
                count += u64::from(matches!(first, Some(b'#' | b'%')));
            }
        }
    }
}

/// The launch shape of `threads` per block on `arch`: blocks per SM from
/// the hardware model (no shared memory, the model's register estimate).
fn launch_for(threads: u32, arch: Arch) -> Result<Launch> {
    let hw = Hardware::for_arch(arch);
    let occ = occupancy(hw, threads, None, 0).map_err(|e| anyhow!("--block-dim={threads}: {e}"))?;
    Ok(Launch {
        threads_per_block: threads,
        blocks_per_sm: occ.blocks_per_sm,
        sms: hw.sm_count(),
    })
}

pub fn run(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        let _ = std::io::stdout().write_all(format!("{USAGE}\n\n{HELP}\n").as_bytes());
        return Ok(());
    }
    let req = parse(args)?;
    // Every file planned before the minutes a partition may take; none
    // may be the input graph.
    let mut files = Outputs::new();
    if !req.graph.starts_with("gen:") {
        files.input("the input graph", Path::new(&req.graph))?;
    }
    let mut out_slots = Vec::new();
    if let Some(dir) = &req.out {
        files.directory("--out", dir)?;
        for name in OUT_FILES {
            out_slots.push((name, files.output("--out", &dir.join(name))?));
        }
    }
    let json_slot = match &req.json {
        Some(j) => {
            // Like --out, a missing directory is created (with its parents).
            if let Some(dir) = j.parent().filter(|d| !d.as_os_str().is_empty()) {
                if !dir.exists() {
                    files.directory("--json", dir)?;
                }
            }
            Some(files.output("--json", j)?)
        }
        None => None,
    };
    let launch = req.block.map(|t| launch_for(t, req.arch)).transpose()?;
    let graph = read_graph(&req.graph)?;
    let m = graph.edge_count();
    if graph.vertices > grape::graph::MAX_VERTICES {
        bail!(
            "{} has {} vertices, more than partition handles ({}); number the vertices compactly",
            req.graph,
            graph.vertices,
            grape::graph::MAX_VERTICES
        );
    }
    if m == 0 {
        bail!("{} has no edges: nothing to partition", req.graph);
    }
    let parts = match (req.parts, &launch) {
        (Some(k), _) => k,
        (None, Some(l)) => u32::try_from(l.parts_for(m))
            .map_err(|_| anyhow!("{m} edges need more than 2^32 clusters"))?,
        (None, None) => unreachable!("parse requires --parts or --block-dim"),
    };
    if parts as usize > m {
        bail!("cannot split {m} edges into {parts} clusters: use --parts at most {m}");
    }
    let stats = analyse(&graph);
    let mode = choose_mode(&stats);
    let mut runs: Vec<Run> = Vec::new();
    for &method in &req.methods {
        if runs.iter().any(|r| r.method == method) {
            continue;
        }
        if let Some(run) = methods::run(&graph, parts, method, mode, req.seed)
            .map_err(|e| anyhow!("{method}: {e}"))?
        {
            runs.push(run);
        } else if method == req.method {
            bail!("--method={method} needs vertex coordinates (a generated mesh); this graph has none");
        } else {
            say!("gpucc-cache: warning: {method} needs vertex coordinates (a generated mesh); skipped");
        }
    }
    let chosen = runs
        .iter()
        .find(|r| r.method == req.method)
        .expect("the chosen method ran");
    if let Some(l) = &launch {
        if req.method != Method::Original && !fits(&chosen.partition, l) {
            bail!(
                "{parts} clusters of up to {} edges do not fit {} blocks of {} threads per SM; \
                 give fewer --parts or drop --parts to let --block-dim choose",
                chosen.quality.max_load,
                l.blocks_per_sm,
                l.threads_per_block
            );
        }
    }
    print_table(&graph, &stats, mode, parts, &runs);
    let threads = threads_of(&graph, chosen, launch.as_ref());
    let written = match &req.out {
        Some(_) => out_files(&graph, chosen, &threads),
        None => Vec::new(),
    };
    for (name, bytes) in &written {
        if let Some((_, slot)) = out_slots.iter().find(|(n, _)| *n == *name) {
            files.fill(*slot, bytes.clone());
        }
    }
    let names: Vec<String> = written.iter().map(|(n, _)| n.to_string()).collect();
    if let (Some(dir), Some(l)) = (&req.out, &launch) {
        // What the kernel's launch (and the driver's model) needs.
        let (blocks, count) = (threads.blocks, threads.edge.len());
        // A closed stdout is not worth a panic.
        let _ = writeln!(
            std::io::stdout(),
            "launch: {blocks} blocks of {} threads ({count} threads, padding -1) on {}: \
             --grid-dim={blocks} --block-dim={} and the files of {}",
            l.threads_per_block,
            req.arch,
            l.threads_per_block,
            dir.display()
        );
    }
    if req.json.is_some() {
        let json = report(
            &req,
            &graph,
            &stats,
            mode,
            parts,
            launch.as_ref(),
            &threads,
            &runs,
            &names,
        );
        let text = serde_json::to_string_pretty(&json).context("cannot format the JSON")?;
        if let Some(slot) = json_slot {
            files.fill(slot, (text + "\n").into_bytes());
        }
    }
    files.commit()
}

fn print_table(graph: &Graph, stats: &DegreeStats, mode: Mode, parts: u32, runs: &[Run]) {
    let mut out = String::new();
    out += &format!(
        "graph: {} vertices, {} edges, average degree {:.2}, max {} ({mode}); {parts} clusters\n",
        graph.vertices,
        graph.edge_count(),
        stats.avg,
        stats.max
    );
    out += &format!(
        "{:<13} {:>12} {:>9} {:>9} {:>9}\n",
        "method", "cost C", "max load", "min load", "seconds"
    );
    for r in runs {
        out += &format!(
            "{:<13} {:>12} {:>9} {:>9} {:>9.3}{}\n",
            r.method.name(),
            r.quality.cost,
            r.quality.max_load,
            r.quality.min_load,
            r.seconds,
            if r.detail.is_empty() {
                String::new()
            } else {
                format!("  ({})", r.detail)
            }
        );
    }
    let _ = std::io::stdout().write_all(out.as_bytes());
}

/// The thread order of the chosen run: the input order for `original` (the
/// program as written), else its clusters laid out over the launch.
fn threads_of(graph: &Graph, run: &Run, launch: Option<&Launch>) -> ThreadOrder {
    if run.method == Method::Original {
        return ThreadOrder {
            edge: (0..graph.edge_count() as i64).collect(),
            blocks: launch.map_or(0, |l| {
                (graph.edge_count() as u64).div_ceil(u64::from(l.threads_per_block))
            }),
        };
    }
    thread_order(&run.partition, launch)
}

/// The vertex numbering of the chosen run: the input's for `original`.
fn vertex_order_of(graph: &Graph, run: &Run) -> Vec<u32> {
    if run.method == Method::Original {
        return (0..graph.vertices).collect();
    }
    data_order(graph, &run.partition)
}

/// The files of `--out`, by name.
fn out_files(graph: &Graph, run: &Run, threads: &ThreadOrder) -> Vec<(&'static str, Vec<u8>)> {
    let vertex_order = vertex_order_of(graph, run);
    let vertex_index = inverse(&vertex_order);
    let u32s = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let i32s = |v: &mut dyn Iterator<Item = i64>| -> Vec<u8> {
        v.flat_map(|x| (x as i32).to_le_bytes()).collect()
    };
    let endpoint = |t: i64, pick: fn((u32, u32)) -> u32| -> i64 {
        if t < 0 {
            -1
        } else {
            i64::from(pick(graph.edges[t as usize]))
        }
    };
    let mut files: Vec<(&str, Vec<u8>)> = vec![
        ("edge_cluster.u32", u32s(&run.partition.cluster)),
        ("thread_edge.i32", i32s(&mut threads.edge.iter().copied())),
        ("vertex_order.u32", u32s(&vertex_order)),
        ("vertex_index.u32", u32s(&vertex_index)),
    ];
    let renumber = |v: i64| {
        if v < 0 {
            -1
        } else {
            i64::from(vertex_index[v as usize])
        }
    };
    files.push((
        "src.i32",
        i32s(&mut threads.edge.iter().map(|&t| renumber(endpoint(t, |e| e.0)))),
    ));
    files.push((
        "dst.i32",
        i32s(&mut threads.edge.iter().map(|&t| renumber(endpoint(t, |e| e.1)))),
    ));
    if let Some(shape) = graph.matrix {
        // y and x are separate arrays: each keeps the placement's order of
        // its own entries.
        let rows = shape.rows;
        let mut y_index = vec![0u32; rows as usize];
        let mut x_index = vec![0u32; shape.cols as usize];
        let (mut ny, mut nx) = (0u32, 0u32);
        for &v in &vertex_order {
            if v < rows {
                y_index[v as usize] = ny;
                ny += 1;
            } else {
                x_index[(v - rows) as usize] = nx;
                nx += 1;
            }
        }
        files.push((
            "row.i32",
            i32s(&mut threads.edge.iter().map(|&t| {
                let r = endpoint(t, |e| e.0);
                if r < 0 {
                    -1
                } else {
                    i64::from(y_index[r as usize])
                }
            })),
        ));
        files.push((
            "col.i32",
            i32s(&mut threads.edge.iter().map(|&t| {
                let c = endpoint(t, |e| e.1);
                if c < 0 {
                    -1
                } else {
                    i64::from(x_index[(c - i64::from(rows)) as usize])
                }
            })),
        ));
    }
    files
}

#[allow(clippy::too_many_arguments)]
fn report(
    req: &Request,
    graph: &Graph,
    stats: &DegreeStats,
    mode: Mode,
    parts: u32,
    launch: Option<&Launch>,
    order: &ThreadOrder,
    runs: &[Run],
    files: &[String],
) -> serde_json::Value {
    use serde_json::json;
    let mut methods = serde_json::Map::new();
    for r in runs {
        let mut m = json!({
            "cost": r.quality.cost,
            "max_load": r.quality.max_load,
            "min_load": r.quality.min_load,
            "seconds": r.seconds,
        });
        if !r.detail.is_empty() {
            m["detail"] = json!(r.detail);
        }
        methods.insert(r.method.name().to_string(), m);
    }
    let threads = match (req.method, launch) {
        (Method::Original, Some(l)) => json!({
            "threads": order.edge.len(),
            "block_dim": l.threads_per_block,
            "grid_dim": order.blocks,
        }),
        (_, Some(l)) => json!({
            "threads": order.edge.len(),
            "block_dim": l.threads_per_block,
            "grid_dim": order.blocks,
            "blocks_per_sm": l.blocks_per_sm,
            "sms": l.sms,
            "arch": req.arch.to_string(),
        }),
        (_, None) => json!({ "threads": order.edge.len() }),
    };
    json!({
        "graph": {
            "source": req.graph,
            "vertices": graph.vertices,
            "edges": graph.edge_count(),
            "matrix": graph.matrix.map(|s| json!({"rows": s.rows, "cols": s.cols})),
            "average_degree": stats.avg,
            "max_degree": stats.max,
            "mode": mode.to_string(),
        },
        "parts": parts,
        "method": req.method.name(),
        "launch": threads,
        "methods": methods,
        "out": req.out.as_ref().map(|d| d.display().to_string()),
        "files": files,
    })
}
