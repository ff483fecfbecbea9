//! A quick comparison of GRAPE's variants on one graph of each family GRAPE is benchmarked on, for
//! development: C, loads and seconds per variant and cluster count. The benchmark with the
//! published anchors (NE, HEP, METIS vertex + greedy) is `bench/partition/`; this one only compares
//! GRAPE with itself.
//!
//! Run: `cargo bench -p gpucc-cache-grape --bench families -- GRAPH... [k=32,256] [v=VARIANT,...]`
//! with GRAPH one of `metis:PATH` (a METIS `.graph` file such as `4elt.graph`), `mesh2d:WxH`,
//! `geo3d:N` (N random points in the unit cube joined within the radius that gives average degree
//! 15, a stand-in for a 3-D Delaunay mesh), `ba:N:D` (Barabási–Albert) or `rmat:SCALE:EDGES`
//! (R-MAT, Chakrabarti, Zhan, Faloutsos, SDM 2004, with a, b, c = 0.57, 0.19, 0.19).

use grape::clone_graph::{CloneWeights, PER_DEGREE};
use grape::graph::Graph;
use grape::partition::EdgePartition;
use grape::rng::SplitMix64;
use grape::two_stage::{two_stage_with, Options, Refinement};
use grape::{degree, expand, generate, select};
use std::time::Instant;

fn read_metis(path: &str) -> Graph {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines().filter(|l| !l.starts_with('%'));
    let header: Vec<u64> = lines
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(|t| t.parse().unwrap_or(0))
        .collect();
    let n = header.first().copied().unwrap_or(0) as u32;
    let mut edges = Vec::new();
    for (u, line) in lines.take(n as usize).enumerate() {
        for t in line.split_whitespace() {
            let v: u32 = t.parse::<u32>().unwrap_or(1) - 1;
            if (u as u32) < v {
                edges.push((u as u32, v));
            }
        }
    }
    Graph::new(n, edges)
}

fn geo3d(n: u32, seed: u64) -> Graph {
    let mut rng = SplitMix64::new(seed);
    let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let pts: Vec<[f64; 3]> = (0..n).map(|_| [unit(), unit(), unit()]).collect();
    // n · 4/3 π r³ = 15.
    let r = (15.0 / (n as f64 * 4.0 / 3.0 * std::f64::consts::PI)).cbrt();
    let cells = ((1.0 / r).floor() as usize).max(1);
    let cell_of = |p: &[f64; 3]| p.map(|x| ((x * cells as f64) as usize).min(cells - 1));
    let mut grid: Vec<Vec<u32>> = vec![Vec::new(); cells * cells * cells];
    let idx = |c: [usize; 3]| (c[2] * cells + c[1]) * cells + c[0];
    for (i, p) in pts.iter().enumerate() {
        grid[idx(cell_of(p))].push(i as u32);
    }
    let mut edges = Vec::new();
    for (i, p) in pts.iter().enumerate() {
        let c = cell_of(p);
        for dz in -1i64..=1 {
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let q = [c[0] as i64 + dx, c[1] as i64 + dy, c[2] as i64 + dz];
                    if q.iter().any(|&x| x < 0 || x >= cells as i64) {
                        continue;
                    }
                    for &j in &grid[idx(q.map(|x| x as usize))] {
                        let d: f64 = (0..3).map(|a| (pts[j as usize][a] - p[a]).powi(2)).sum();
                        if (i as u32) < j && d < r * r {
                            edges.push((i as u32, j));
                        }
                    }
                }
            }
        }
    }
    Graph::new(n, edges)
}

fn rmat(scale: u32, m: usize, seed: u64) -> Graph {
    let mut rng = SplitMix64::new(seed);
    let n = 1u32 << scale;
    let mut edges = Vec::with_capacity(m);
    let mut seen = std::collections::HashSet::new();
    while edges.len() < m {
        let (mut u, mut v) = (0u32, 0u32);
        for _ in 0..scale {
            let x = rng.below(100);
            let (bu, bv) = match x {
                0..=56 => (0, 0),
                57..=75 => (0, 1),
                76..=94 => (1, 0),
                _ => (1, 1),
            };
            u = u << 1 | bu;
            v = v << 1 | bv;
        }
        let (a, b) = (u.min(v), u.max(v));
        if a != b && seen.insert((a, b)) {
            edges.push((a, b));
        }
    }
    let mut id: Vec<u32> = (0..n).collect();
    rng.shuffle(&mut id);
    for (u, v) in &mut edges {
        *u = id[*u as usize];
        *v = id[*v as usize];
    }
    Graph::new(n, edges)
}

fn load(spec: &str) -> Graph {
    let f: Vec<&str> = spec.split(':').collect();
    let num = |i: usize| f[i].parse::<u64>().unwrap_or_else(|_| panic!("{spec}"));
    match f[0] {
        "metis" => read_metis(f[1]),
        "mesh2d" => {
            let (w, h) = f[1].split_once('x').expect("WxH");
            generate::mesh2d(w.parse().unwrap(), h.parse().unwrap(), 1)
        }
        "geo3d" => geo3d(num(1) as u32, 1),
        "ba" => generate::scale_free(num(1) as u32, num(2) as u32, 1),
        "rmat" => rmat(num(1) as u32, num(2) as usize, 1),
        _ => panic!("unknown graph {spec}"),
    }
}

fn run(graph: &Graph, k: u32, variant: &str) -> Option<EdgePartition> {
    let two = |weights, refinement| {
        two_stage_with(
            graph,
            k,
            1,
            Options {
                weights,
                refinement,
            },
        )
        .ok()
    };
    let per = |s: &str| CloneWeights::Degree {
        per_degree: s.parse().unwrap_or(PER_DEGREE),
    };
    let refined = |mut p: EdgePartition| {
        grape::refine::refine(graph, &mut p, grape::refine::PASSES);
        p
    };
    let (name, arg) = variant.split_once('@').unwrap_or((variant, ""));
    match name {
        "paper0" => two(CloneWeights::Paper, Refinement::None),
        "paperc" => two(CloneWeights::Paper, Refinement::CGain),
        "deg0" => two(per(arg), Refinement::None),
        "degc" => two(per(arg), Refinement::CGain),
        "vstart" => grape::vertex_start::vertex_start(graph, k, 1)
            .ok()
            .map(|mut p| {
                grape::refine::refine(graph, &mut p, grape::refine::PASSES);
                p
            }),
        "expand" => Some(expand::expand(graph, k, None)),
        "hybrid" => Some(match arg.parse::<f64>() {
            Ok(tau) => expand::expand(graph, k, Some(&expand::hubs(graph, tau))),
            Err(_) => expand::expand(graph, k, Some(&expand::hubs(graph, expand::TAU))),
        }),
        "expandc" => Some(refined(expand::expand(graph, k, None))),
        "hybridc" => Some(refined(expand::expand(
            graph,
            k,
            Some(&expand::hubs(graph, expand::TAU)),
        ))),
        "grape" => {
            let mode = degree::choose_mode(&degree::analyse(graph));
            let (p, choice) = select::grape(graph, k, mode, 1).ok()?;
            println!("  k={k:<4} {mode}: {choice}");
            Some(p)
        }
        _ => panic!("unknown variant {variant}"),
    }
}

fn main() {
    let mut graphs = Vec::new();
    let mut ks = vec![32u32, 256];
    let mut variants: Vec<String> = vec!["paperc".into(), "degc".into()];
    for a in std::env::args().skip(1).filter(|a| a != "--bench") {
        if let Some(list) = a.strip_prefix("k=") {
            ks = list.split(',').map(|x| x.parse().unwrap()).collect();
        } else if let Some(list) = a.strip_prefix("v=") {
            variants = list.split(',').map(String::from).collect();
        } else {
            graphs.push(a);
        }
    }
    for spec in &graphs {
        let t = Instant::now();
        let g = load(spec);
        let s = degree::analyse(&g);
        println!(
            "{spec}: n {} m {} avg {:.1} max {} ({:.1} s to load)",
            g.vertices,
            g.edges.len(),
            s.avg,
            s.max,
            t.elapsed().as_secs_f64()
        );
        for &k in &ks {
            for v in &variants {
                let t = Instant::now();
                let Some(p) = run(&g, k, v) else {
                    println!("  k={k} {v}: failed");
                    continue;
                };
                let secs = t.elapsed().as_secs_f64();
                let q = p.quality(&g);
                println!(
                    "  k={k:<4} {v:<10} C {:>9} loads {}..{} {secs:.2} s",
                    q.cost, q.min_load, q.max_load
                );
            }
        }
    }
}
