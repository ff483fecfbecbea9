//! Kernel-level model throughput (`model`): the whole-SM trace (`walk`) and
//! its L1 simulation (`l1sim`) on three hand-built kernels of 256-thread
//! blocks, 8 co-resident blocks, at about 256 K, 1 M and 4 M
//! thread-accesses (the trip count `T`, a kernel argument, scales them):
//!
//! - `coalesced`: `for k < T: s += a[i + k*n] + a[i + k*n + 1]`;
//! - `stencil`: `for k < T: if (i >= 1 && i < n-1) s += u[j-1] + u[j] + u[j+1]`
//!   with `j = i + k*n` (a divergent guard inside the loop);
//! - `gather`: ELLPACK SpMV, `for k < T: s += val[j] * x[col[j]]`, whose
//!   `x[col[j]]` is a per-thread unknown (a synthetic address per lane);
//!
//! with `i = ctaid.x*ntid.x + tid.x`. The L1s are an sm_90-like one
//! (224 KiB, sector fill) and a Fermi-like one (24 KiB, line fill), both
//! fully associative. Run with `cargo bench -p gpucc-cache-pass --bench model`.
//!
//! Prints, best of three runs each, the walk's and one simulation's
//! thread-accesses per second, and "trace + simulation", accesses / (walk
//! time + one simulation's time), the figure the model's cost is judged by
//! (goal: at least 50 M/s per core). To show the costs are linear in
//! accesses, each size's cost per access is also given as a ratio to the
//! smallest size of the same kernel. Last, the full `auto` search
//! (`kernel_model::model`) on the largest traces: its time, simulations,
//! and replayed thread-accesses per second.
//!
//! Arguments (after `--`) filter: kernel names run those kernels only, and
//! `walk` runs the walks alone (no simulation, no search: for a profiler).
//! `cpu` times on the CPU instead of the wall clock (Linux: time this thread
//! held a core, the kernel's page faults included): on a shared machine it
//! leaves out the time other processes held the core.

use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

use gpucc_cache_pass::decide::kernel_model::{model, Verdicts};
use gpucc_cache_pass::facts::address::{bin, Base, BinOp, Cond, Expr, Sreg, Why, E};
use gpucc_cache_pass::facts::geometry::Dim3;
use gpucc_cache_pass::llvm::ir::IntPredicate;
use gpucc_cache_pass::model::l1sim::{L1Config, L1};
use gpucc_cache_pass::model::program::{Exit, MemOp, Node, PhiDef, Program};
use gpucc_cache_pass::model::schedule::WarpOrder;
use gpucc_cache_pass::model::trace::{Instruction, Kind, Trace};
use gpucc_cache_pass::model::walk::{walk, Budget, Launch};

#[path = "common/clock.rs"]
mod clock;

const THREADS: u32 = 256;
const BLOCKS: i64 = 8;
/// The SM runs blocks 0, S, 2S, ... (S: an H100's SMs).
const SMS: i64 = 132;
/// Kernel arguments: the row width `n` and the trip count `T`.
const ARG_N: u32 = 1;
const ARG_T: u32 = 2;
/// Threads in the grid: the row width, so that rows do not overlap.
const N: i64 = SMS * BLOCKS * THREADS as i64;
const SIZES: [u64; 3] = [1 << 18, 1 << 20, 1 << 22];
/// No cut: every loop runs its `T` iterations.
const BUDGET: Budget = Budget {
    iterations: u32::MAX,
    unknown_trip: 8,
    accesses: u64::MAX,
    steps: u64::MAX,
};

fn c(v: i64) -> E {
    Rc::new(Expr::Const(v))
}

fn add(a: E, b: E) -> E {
    bin(BinOp::Add, a, b, 64)
}

fn mul(a: E, b: E) -> E {
    bin(BinOp::Mul, a, b, 64)
}

fn arg(index: u32, name: &str) -> E {
    Rc::new(Expr::Arg {
        index,
        name: name.into(),
    })
}

fn param(index: u32, name: &str) -> E {
    Rc::new(Expr::Base(Base::Param {
        index,
        name: name.into(),
    }))
}

fn sreg(s: Sreg) -> E {
    Rc::new(Expr::Sreg(s))
}

fn slt(lhs: E, rhs: E) -> Rc<Cond> {
    Rc::new(Cond::Cmp {
        pred: IntPredicate::LLVMIntSLT,
        lhs,
        rhs,
        bits: 64,
    })
}

/// `ctaid.x * ntid.x + tid.x`.
fn global_id() -> E {
    add(
        mul(sreg(Sreg::Ctaid(0)), sreg(Sreg::Ntid(0))),
        sreg(Sreg::Tid(0)),
    )
}

/// `&base[index]` for 4-byte elements.
fn element(base: E, index: E) -> E {
    add(base, mul(index, c(4)))
}

fn node(phis: Vec<PhiDef>, ops: Vec<MemOp>, exit: Exit) -> Node {
    Node {
        phis,
        ops,
        barriers: Vec::new(),
        exit,
    }
}

fn load(inst: u32, address: E) -> MemOp {
    MemOp {
        inst,
        address,
        bytes: 4,
        waits: false,
    }
}

/// A kernel to walk: its program, its loads, and the thread-accesses one
/// iteration of its loop makes (to pick `T`).
struct Kernel {
    name: &'static str,
    program: Program,
    loads: u32,
    per_iteration: u64,
    /// The paper's verdicts (conservative, aggressive), for `model`.
    verdicts: [Verdicts; 2],
}

/// The counted loop `k = 0; do { body(k) } while (k + 1 < T)`, the phi
/// variable `k` being `Rec(0)`: node 0 enters, node 1 is the header,
/// `body` adds nodes from 2 and returns the latch; the exit is the last node.
fn counted_loop(body: impl FnOnce(&E, &mut Vec<Node>) -> u32) -> Program {
    let k = Rc::new(Expr::Rec(0));
    let next = add(k.clone(), c(1));
    let mut nodes = vec![node(Vec::new(), Vec::new(), Exit::Jump(1))];
    let latch = body(&k, &mut nodes);
    let exit = nodes.len() as u32;
    let phi = PhiDef {
        var: 0,
        incoming: vec![(0, c(0)), (latch, next.clone())],
    };
    nodes[1].phis.push(phi);
    nodes[latch as usize].exit = Exit::Branch {
        cond: slt(next, arg(ARG_T, "T")),
        then: 1,
        otherwise: exit,
    };
    nodes.push(node(Vec::new(), Vec::new(), Exit::Return));
    // The body's sum uses every load: the warp waits after the last one
    // of each iteration (issue 19's burst).
    for n in &mut nodes {
        if let Some(last) = n.ops.last_mut() {
            last.waits = true;
        }
    }
    Program {
        nodes,
        vars: 1,
        packed_starts: Vec::new(),
        test_bounds: Vec::new(),
    }
}

/// `j = i + k*n`.
fn row_index(k: &E) -> E {
    add(global_id(), mul(k.clone(), arg(ARG_N, "n")))
}

fn coalesced() -> Kernel {
    let program = counted_loop(|k, nodes| {
        let a = param(0, "a");
        let j = row_index(k);
        nodes.push(node(
            Vec::new(),
            vec![
                load(0, element(a.clone(), j.clone())),
                load(1, element(a, add(j, c(1)))),
            ],
            Exit::Stop,
        ));
        1
    });
    let threads = BLOCKS as u64 * u64::from(THREADS);
    Kernel {
        name: "coalesced",
        program,
        loads: 2,
        per_iteration: 2 * threads,
        verdicts: [vec![Some(true); 2], vec![Some(true); 2]],
    }
}

fn stencil() -> Kernel {
    let program = counted_loop(|k, nodes| {
        let u = param(0, "u");
        let i = global_id();
        let j = row_index(k);
        let inside = Rc::new(Cond::And(
            slt(c(0), i.clone()),
            slt(i, add(arg(ARG_N, "n"), c(-1))),
        ));
        // 1: header, the guard; 2: the loads; 3: the latch.
        nodes.push(node(
            Vec::new(),
            Vec::new(),
            Exit::Branch {
                cond: inside,
                then: 2,
                otherwise: 3,
            },
        ));
        nodes.push(node(
            Vec::new(),
            vec![
                load(0, element(u.clone(), add(j.clone(), c(-1)))),
                load(1, element(u.clone(), j.clone())),
                load(2, element(u, add(j, c(1)))),
            ],
            Exit::Jump(3),
        ));
        nodes.push(node(Vec::new(), Vec::new(), Exit::Stop));
        3
    });
    let threads = BLOCKS as u64 * u64::from(THREADS);
    Kernel {
        name: "stencil",
        program,
        loads: 3,
        per_iteration: 3 * threads,
        verdicts: [vec![Some(true); 3], vec![Some(true); 3]],
    }
}

fn gather() -> Kernel {
    let program = counted_loop(|k, nodes| {
        let j = row_index(k);
        let col = Rc::new(Expr::Unknown(Why::Memory));
        nodes.push(node(
            Vec::new(),
            vec![
                load(0, element(param(0, "val"), j.clone())),
                // `x[col[j]]` waits for `col[j]`.
                MemOp {
                    waits: true,
                    ..load(1, element(param(1, "col"), j))
                },
                load(2, element(param(2, "x"), col)),
            ],
            Exit::Stop,
        ));
        1
    });
    let threads = BLOCKS as u64 * u64::from(THREADS);
    Kernel {
        name: "gather",
        program,
        loads: 3,
        per_iteration: 3 * threads,
        verdicts: [
            vec![Some(false), Some(false), Some(false)],
            vec![Some(true), Some(true), Some(true)],
        ],
    }
}

fn launch(trips: i64) -> Launch {
    Launch {
        block: Dim3 {
            x: THREADS,
            y: 1,
            z: 1,
        },
        grid: Some(Dim3 {
            x: (SMS * BLOCKS) as u32,
            y: 1,
            z: 1,
        }),
        blocks: (0..BLOCKS).map(|b| [b * SMS, 0, 0]).collect(),
        args: HashMap::from([(ARG_N, N), (ARG_T, trips)]),
        memory: None,
        order: WarpOrder::default(),
        extents: Vec::new(),
    }
}

fn instructions(kernel: &Kernel) -> Vec<Instruction> {
    (0..kernel.loads)
        .map(|i| Instruction {
            kind: Kind::Load,
            site: format!("{}:{i}", kernel.name),
        })
        .collect()
}

/// What the times are read from.
#[derive(Clone, Copy)]
enum Clock {
    Wall,
    /// `clock::on_cpu`.
    Cpu,
}

impl Clock {
    /// The time since some start of this clock's own.
    fn now(self) -> Duration {
        match self {
            Clock::Wall => {
                thread_local!(static START: Instant = Instant::now());
                START.with(|s| s.elapsed())
            }
            Clock::Cpu => clock::on_cpu().expect("a CPU clock (Linux, 64-bit)"),
        }
    }
}

/// Best of three runs of `f` on `clock`, and its last result.
fn best<T>(clock: Clock, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut fastest = Duration::MAX;
    let mut out = None;
    for _ in 0..3 {
        let start = clock.now();
        let r = f();
        fastest = fastest.min(clock.now() - start);
        out = Some(r);
    }
    (fastest, out.expect("three runs"))
}

fn walk_once(kernel: &Kernel, launch: &Launch) -> Trace {
    walk(&kernel.program, instructions(kernel), launch, BUDGET)
}

fn rate(accesses: u64, t: Duration) -> f64 {
    accesses as f64 / t.as_secs_f64() / 1e6
}

fn ns(accesses: u64, t: Duration) -> f64 {
    t.as_secs_f64() * 1e9 / accesses as f64
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let walk_only = args.iter().any(|a| a == "walk");
    let clock = match args.iter().any(|a| a == "cpu") {
        true => Clock::Cpu,
        false => Clock::Wall,
    };
    let names: Vec<&String> = (args.iter())
        .filter(|a| *a != "walk" && *a != "cpu")
        .collect();
    let kernels: Vec<Kernel> = [coalesced(), stencil(), gather()]
        .into_iter()
        .filter(|k| names.is_empty() || names.iter().any(|a| *a == k.name))
        .collect();
    let configs = [
        (
            "sm_90 224K sector",
            L1Config::sector_fill(229_376 / 128 * 128),
        ),
        ("Fermi 24K line", L1Config::line_fill(24_576)),
    ];
    let mut l1s: Vec<L1> = (configs.iter())
        .map(|(_, cfg)| L1::new(*cfg).expect("valid L1 configuration"))
        .collect();
    let timed = match clock {
        Clock::Wall => "wall time",
        Clock::Cpu => "time on the CPU",
    };
    println!(
        "walk + one L1 simulation, M thread-accesses/s (best of 3, {timed}); \
         256-thread blocks x {BLOCKS}"
    );
    println!(
        "{:<10} {:>5} {:>9} {:>7} | {:>7} {:>7} | {:>9} {:>9} | {:>5} {:>5} {:>5}",
        "kernel",
        "T",
        "accesses",
        "walk",
        "sim90",
        "simFer",
        "walk+s90",
        "walk+sFer",
        "xWalk",
        "xS90",
        "xSFer",
    );
    let mut largest = Vec::new();
    for kernel in kernels {
        let mut base: Option<[f64; 3]> = None;
        let mut last = None;
        for &target in &SIZES {
            let trips = (target as f64 / kernel.per_iteration as f64).round() as i64;
            let launch = launch(trips);
            let (walk_t, trace) = best(clock, || walk_once(&kernel, &launch));
            assert_eq!(trace.truncated, None, "{}: trace cut", kernel.name);
            let n = trace.thread_accesses();
            let cached = vec![true; trace.instructions.len()];
            let sims: Vec<Duration> = (l1s.iter_mut())
                .map(|l1| match walk_only {
                    true => Duration::ZERO,
                    false => {
                        best(clock, || {
                            l1.run(&trace, &cached).expect("valid trace").loads.sectors
                        })
                        .0
                    }
                })
                .collect();
            let per = [ns(n, walk_t), ns(n, sims[0]), ns(n, sims[1])];
            let b = *base.get_or_insert(per);
            println!(
                "{:<10} {:>5} {:>9} {:>7.1} | {:>7.1} {:>7.1} | {:>9.1} {:>9.1} | {:>5.2} {:>5.2} {:>5.2}",
                kernel.name,
                trips,
                n,
                rate(n, walk_t),
                rate(n, sims[0]),
                rate(n, sims[1]),
                rate(n, walk_t + sims[0]),
                rate(n, walk_t + sims[1]),
                per[0] / b[0],
                per[1] / b[1],
                per[2] / b[2],
            );
            last = Some(trace);
        }
        largest.push((kernel, last.expect("three sizes")));
    }
    if walk_only {
        return;
    }
    println!();
    println!("full `auto` search (kernel_model::model) on the largest traces, best of 3, {timed}");
    println!(
        "{:<10} {:<18} {:>9} {:>9} {:>5} {:>14}",
        "kernel", "L1", "accesses", "ms", "sims", "M replayed/s"
    );
    for (kernel, trace) in &largest {
        let n = trace.thread_accesses();
        for (label, cfg) in &configs {
            let (t, m) = best(clock, || {
                model(trace, *cfg, &kernel.verdicts[0], &kernel.verdicts[1], true)
                    .expect("valid trace and config")
            });
            println!(
                "{:<10} {:<18} {:>9} {:>9.1} {:>5} {:>14.1}",
                kernel.name,
                label,
                n,
                t.as_secs_f64() * 1e3,
                m.simulations,
                rate(n * u64::from(m.simulations), t),
            );
        }
    }
}
