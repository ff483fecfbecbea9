//! Recounts an edge partition written by any partitioner, independently of the partitioner and of
//! the crate's own cost code, for `bench/partition/run`.
//!
//! `recount EDGES K FORMAT PARTITION` where EDGES is the benchmark's edge list (`u v` per line,
//! 0-based, every edge once, no self-loops) and FORMAT is
//! - `u32`: one little-endian u32 cluster per line of EDGES, in order (GRAPE's `edge_cluster.u32`);
//! - `edgepart`: `u v p` lines in any order, in the vertex numbering NE and HEP use internally
//!   (ids given in order of first appearance in EDGES, `u` before `v` on a line; HEP's
//!   `TextConverter`/`Converter::get_vid`), as `main -write_results` writes them.
//!
//! Checks that every edge of EDGES is assigned exactly once to a cluster below K, then counts
//! C = Σ_v (p_v − 1) over the vertices with edges from (vertex, cluster) pairs sorted and
//! deduplicated here, RF = Σ_v p_v / |{v with edges}|, and the loads. A partition that is not
//! exactly balanced (every cluster ⌊m/k⌋ or ⌈m/k⌉) is then rebalanced with
//! `baselines::rebalance_exact` (best C-gain moves) and counted again. Prints one line of
//! `key=value` fields: m, vertices, cost, rf, max_load, min_load, balanced, moves, cost_exact,
//! rf_exact.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::ExitCode;

use grape::baselines::{exact_targets, rebalance_exact};
use grape::graph::Graph;
use grape::partition::EdgePartition;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("recount: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[String]) -> Result<String, String> {
    let [edges, k, format, part] = args else {
        return Err("usage: recount EDGES K u32|edgepart PARTITION".to_string());
    };
    let k: u32 = k
        .parse()
        .ok()
        .filter(|&k| k > 0)
        .ok_or_else(|| format!("K must be a positive integer, not '{k}'"))?;
    let graph = read_edges(edges)?;
    let m = graph.edges.len();
    let cluster = match format.as_str() {
        "u32" => {
            let bytes = std::fs::read(part).map_err(|e| format!("cannot read {part}: {e}"))?;
            if bytes.len() != 4 * m {
                return Err(format!(
                    "{part}: {} bytes, expected 4 per edge ({m} edges)",
                    bytes.len()
                ));
            }
            bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()
        }
        "edgepart" => read_edgepart(&graph, part)?,
        _ => return Err(format!("unknown format '{format}': u32 or edgepart")),
    };
    if let Some((e, c)) = cluster.iter().enumerate().find(|&(_, &c)| c >= k) {
        return Err(format!("{part}: edge {e} in cluster {c}, not below {k}"));
    }
    let mut partition = EdgePartition { parts: k, cluster };
    let (cost, rf) = count(&graph, &partition.cluster);
    let loads = partition.loads();
    let (max, min) = (
        loads.iter().copied().max().unwrap_or(0),
        loads.iter().copied().min().unwrap_or(0),
    );
    // Loads within one of each other sum to m only as ⌊m/k⌋ and ⌈m/k⌉.
    let exact = max - min <= 1;
    let moves = if exact {
        0
    } else {
        let target = exact_targets(&loads);
        rebalance_exact(&graph, &mut partition, &target)
    };
    let (cost_exact, rf_exact) = if exact {
        (cost, rf)
    } else {
        count(&graph, &partition.cluster)
    };
    let touched = {
        let mut seen = vec![false; graph.vertices as usize];
        for &(u, v) in &graph.edges {
            seen[u as usize] = true;
            seen[v as usize] = true;
        }
        seen.iter().filter(|&&s| s).count()
    };
    Ok(format!(
        "m={m} vertices={touched} cost={cost} rf={rf:.4} max_load={max} min_load={min} \
         balanced={exact} moves={moves} cost_exact={cost_exact} rf_exact={rf_exact:.4}"
    ))
}

/// C and RF from the (vertex, cluster) pairs, sorted and deduplicated.
fn count(graph: &Graph, cluster: &[u32]) -> (u64, f64) {
    let mut pairs: Vec<u64> = Vec::with_capacity(2 * cluster.len());
    for (&(u, v), &c) in graph.edges.iter().zip(cluster) {
        pairs.push(u64::from(u) << 32 | u64::from(c));
        pairs.push(u64::from(v) << 32 | u64::from(c));
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut vertices = 0u64;
    let mut last = None;
    for &p in &pairs {
        let v = p >> 32;
        if last != Some(v) {
            vertices += 1;
            last = Some(v);
        }
    }
    let appearances = pairs.len() as u64;
    (
        appearances - vertices,
        appearances as f64 / vertices.max(1) as f64,
    )
}

fn read_edges(path: &str) -> Result<Graph, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
    let mut edges = Vec::new();
    let mut n = 0u32;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{path}:{}: {e}", i + 1))?;
        let mut it = line.split_whitespace();
        let (Some(u), Some(v)) = (it.next(), it.next()) else {
            continue;
        };
        let parse = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| format!("{path}:{}: '{s}' is not a vertex id", i + 1))
        };
        let (u, v) = (parse(u)?, parse(v)?);
        if u == v {
            return Err(format!("{path}:{}: self-loop {u} {v}", i + 1));
        }
        n = n.max(u + 1).max(v + 1);
        edges.push((u, v));
    }
    Ok(Graph::new(n, edges))
}

/// The clusters of a `u v p` file in NE/HEP's internal numbering, mapped back to EDGES' lines.
fn read_edgepart(graph: &Graph, path: &str) -> Result<Vec<u32>, String> {
    // Internal id → original id, in order of first appearance (u, then v, line by line).
    let mut internal = vec![u32::MAX; graph.vertices as usize];
    let mut original: Vec<u32> = Vec::new();
    let mut index: HashMap<(u32, u32), u32> = HashMap::with_capacity(graph.edges.len());
    for (e, &(u, v)) in graph.edges.iter().enumerate() {
        for w in [u, v] {
            if internal[w as usize] == u32::MAX {
                internal[w as usize] = original.len() as u32;
                original.push(w);
            }
        }
        if index.insert((u.min(v), u.max(v)), e as u32).is_some() {
            return Err(format!("edge {u} {v} appears twice in the edge list"));
        }
    }
    let mut cluster = vec![u32::MAX; graph.edges.len()];
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {path}: {e}"))?;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{path}:{}: {e}", i + 1))?;
        let fields: Vec<u32> = line
            .split_whitespace()
            .map(|s| s.parse::<u32>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("{path}:{}: expected 'u v p', found '{line}'", i + 1))?;
        let [a, b, p] = fields[..] else {
            return Err(format!(
                "{path}:{}: expected 'u v p', found '{line}'",
                i + 1
            ));
        };
        let to_original = |x: u32| {
            original
                .get(x as usize)
                .copied()
                .ok_or_else(|| format!("{path}:{}: vertex {x} is not in the graph", i + 1))
        };
        let (u, v) = (to_original(a)?, to_original(b)?);
        let e = *index
            .get(&(u.min(v), u.max(v)))
            .ok_or_else(|| format!("{path}:{}: edge {u} {v} is not in the graph", i + 1))?;
        if cluster[e as usize] != u32::MAX {
            return Err(format!("{path}:{}: edge {u} {v} assigned twice", i + 1));
        }
        cluster[e as usize] = p;
    }
    if let Some(e) = cluster.iter().position(|&c| c == u32::MAX) {
        let (u, v) = graph.edges[e];
        return Err(format!(
            "{path}: edge {u} {v} (line {}) not assigned",
            e + 1
        ));
    }
    Ok(cluster)
}
