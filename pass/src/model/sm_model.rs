//! Runs the kernel-level model for one analysed kernel (issue 7, design.md
//! §6): hardware model → occupancy → program → whole-SM trace → L1
//! simulation → per-policy figures and `auto`'s choices, as report values.
//!
//! The assumptions, said once: registers per thread are what `ptxas -v`
//! allocated when the driver measured them (`registers=`), else estimated
//! (`occupancy::ESTIMATED_REGISTERS_PER_THREAD`); static shared memory is the kernel's `__shared__`
//! variables; the SM runs blocks 0, S, 2S, ... (S SMs of the arch's
//! reference part); the L1 is the hardware facts' (`l1_config`: the table
//! entry's or a machine description's fill, line and sector, ways, L1/TEX
//! units, and the bypass the build emits: `.cg` skips L1,
//! `.L1::no_allocate` probes it), whatever the per-load model.
//!
//! What stands apart lives beside it: the model's budgets (`budget`), the
//! scenarios `auto` weighs and its choice over them (`scenarios`), and the
//! launch-wide estimate of the bytes (`launch_estimate`).
//!
//! Length (about 850 lines): [`simulate`] is one pipeline whose steps read
//! one walk's results (trace, access facts, cuts, budgets spent) in turn;
//! what they share would have to travel as a struct between files.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::time::Instant;

use crate::decide::kernel_model::{l2_bytes_of, model_within, KernelModel, SearchCut, SearchLimit};
use crate::decide::policy::Decision;
use crate::facts::address::{Base, Expr};
use crate::facts::geometry::Dim3;
use crate::facts::memory::{Memory, ROW_GUESS};
use crate::gpu::generation::{Arch, CacheOp, Model};
use crate::gpu::hardware::{GlobalLoads, Hardware};
use crate::gpu::occupancy::occupancy;
use crate::llvm::ir::Value;
use crate::model::allocations::starts_in_allocations;
use crate::model::budget::{wall_time, Grant, Spend, MIN_GRANT};
use crate::model::gathers::{gathers_in_tables, gathers_local, TableUse};
use crate::model::kernel_trace::{
    kernel_program, resident_blocks, KernelProgram, Scope, TracedLoad,
};
use crate::model::l1sim::{Fill, L1Config, Provenance};
use crate::model::launch_estimate::{
    launch_estimate, other_block, other_launch_figures, LaunchEstimate, OtherTrace,
};
use crate::model::packed_starts::{starts_packed, Packing};
use crate::model::program::Program;
use crate::model::read_once::read_once;
use crate::model::scenarios::{measured_answers, robust_choice, scenarios};
use crate::model::schedule::WarpOrder;
use crate::model::trace::{Kind, Trace};
use crate::model::walk::{walk_limited, Budget, Cut, Launch, Limits, Walked, DEFAULT_BUDGET};
use crate::report::{BudgetHit, LoadModel, ModelCost, PolicyTraffic, Simulated};

/// Why a kernel has no model.
pub enum NoModel {
    /// The model cannot run (the launch does not fit the SM, ...).
    Error(String),
    /// A budget: the paper's rules decide.
    Budget(BudgetHit),
}

/// What the model needs of one kernel.
pub struct KernelInputs<'a> {
    pub function: Value,
    /// Pointer parameters that a launch gives one allocation with another,
    /// or a place inside one (`LaunchOverlap`): no load through them is
    /// read once.
    pub overlapping_params: Vec<u32>,
    pub scope: Scope<'a>,
    pub arch: Arch,
    /// The machine modelled: the arch's table entry or a description's.
    pub hardware: &'a Hardware,
    /// Whether `hardware` came from a machine description: then its line,
    /// sector, ways and fill configure the L1, not `model`.
    pub machine: bool,
    /// The operator the build writes for a bypassed load.
    pub bypass: CacheOp,
    pub model: Model,
    /// The decisions the build emits whatever the model finds, by report
    /// entry (forced ones; every load's under a policy other than `auto`):
    /// with the model's choices for the rest, they give `decided`.
    pub emitted: HashMap<usize, Decision>,
    /// Whether the policy is `auto` (the model's choices are emitted).
    pub auto: bool,
    pub block: Dim3,
    pub grid: Option<Dim3>,
    pub args: HashMap<u32, i64>,
    /// Other host launches' values where launches pass different
    /// constants (`args`, `grid` and `block` hold the first's): each a
    /// scenario under `auto`, by the launch's line.
    pub variants: Vec<Variant>,
    pub memory: Option<Rc<Memory>>,
    /// Bytes of the allocation each pointer parameter (by index) is given
    /// at the launch, where the host code shows them (`walk::Launch::extents`).
    pub extents: Vec<(u32, u64, u64)>,
    /// Evaluated loads, with the paper's (conservative, aggressive) verdicts.
    pub loads: &'a [(TracedLoad, [Decision; 2])],
    pub static_shared_bytes: u64,
    /// Registers per thread ptxas allocates (`registers=`); `None`: estimated.
    pub registers: Option<u32>,
    pub grant: Grant,
    /// Report entries whose one-load flip `auto` prices (`SmResult::flips`):
    /// loads of device functions other kernels call too.
    pub weigh_flips: Vec<usize>,
}

/// Another host launch of the kernel: its line, its integer arguments, its
/// grid and block (`None`: the kernel's).
#[derive(Clone, Debug)]
pub struct Variant {
    pub line: u32,
    pub args: HashMap<u32, i64>,
    pub grid: Option<Dim3>,
    pub block: Option<Dim3>,
}

/// What one load's decision costs the kernel, in the nominal scenario:
/// L2->L1 bytes under `auto`'s choice, and with only that load flipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flip {
    pub chosen: u64,
    pub flipped: u64,
}

/// The model's result, ready for the report.
pub struct SmResult {
    pub simulated: Simulated,
    /// Per report entry: its figures and whether `auto` caches it.
    pub loads: HashMap<usize, (LoadModel, bool)>,
    /// The simulated trace (for the locality curves).
    pub trace: Trace,
    /// What the model spent, for the module's budget.
    pub spent: Spend,
    /// The budgets it reached (the model still decided, on less).
    pub budget: Vec<BudgetHit>,
    /// The device functions the trace follows (`KernelProgram::followed`),
    /// and those some call leaves a call (`KernelProgram::unfollowed`).
    pub followed: Vec<Value>,
    pub unfollowed: Vec<Value>,
    /// Per entry of `KernelInputs::weigh_flips` that the trace runs.
    pub flips: HashMap<usize, Flip>,
}

pub fn simulate(k: &KernelInputs) -> Result<SmResult, NoModel> {
    let hw = k.hardware;
    let threads = u32::try_from(k.block.count())
        .map_err(|_| NoModel::Error("block too large".to_string()))?;
    let occ = occupancy(hw, threads, k.registers, k.static_shared_bytes)
        .map_err(|e| NoModel::Error(e.to_string()))?;
    let traced: Vec<TracedLoad> = k.loads.iter().map(|l| l.0).collect();
    let mut program = kernel_program(
        k.function,
        &traced,
        &k.scope,
        k.memory.as_ref().map(|m| m.bound()).unwrap_or_default(),
    );
    // Row-offset arrays nobody bound (CSR rows, adjacency lists:
    // `control::packed_starts`) stand for rows of `ROW_GUESS` elements,
    // and the program is folded again reading them as data: one guess, in
    // the source loop's elements, that gives clang's remainder loop and its
    // unrolled body their trip counts and every row its place (issue 19
    // fact 12). Without it each loop bounded by a loaded offset ran the
    // walk's guessed trip count of its own body: 8 of a remainder loop that
    // never runs more than 3, and 8 of a body unrolled by 4, 40 elements a
    // row.
    let mut memory = k.memory.clone();
    let mut guessed = Memory::default();
    if let Some(m) = &k.memory {
        guessed = (**m).clone();
    }
    // Not a parameter the kernel stores to: its own stores would decide
    // the offsets it then reads.
    let stored: HashSet<u32> = (program.program.nodes.iter())
        .flat_map(|n| n.ops.iter())
        .filter(|op| {
            (program.instructions.get(op.inst as usize))
                .is_some_and(|i| matches!(i.kind, Kind::Store | Kind::Atomic))
        })
        .filter_map(|op| only_param(&op.address))
        .collect();
    let mut guessed_names = Vec::new();
    for p in &program.program.packed_starts {
        if let Some(index) = only_param(&p.start).filter(|i| !stored.contains(i)) {
            if guessed.guess_rows(index, p.size, ROW_GUESS) {
                guessed_names.push(param_name(k.function, index));
            }
        }
    }
    let rows_guessed = guessed.has_guesses();
    if rows_guessed {
        program = kernel_program(k.function, &traced, &k.scope, guessed.bound());
        memory = Some(Rc::new(guessed));
    }
    let launch = Launch {
        block: k.block,
        grid: k.grid,
        blocks: resident_blocks(occ.blocks_per_sm, hw.sm_count(), k.grid),
        args: k.args.clone(),
        memory,
        order: WarpOrder::default(),
        extents: k.extents.clone(),
    };
    let grant = k.grant;
    // A walk of `launch` within the grant.
    let walk_of = |launch: &Launch| {
        walk_limited(
            &program.program,
            program.instructions.clone(),
            launch,
            Budget {
                accesses: grant.spend.thread_accesses,
                ..DEFAULT_BUDGET
            },
            Limits {
                evaluations: grant.spend.evaluation_steps,
                deadline: Some(grant.deadline),
            },
        )
    };
    let walked = walk_of(&launch);
    let mut budget = Vec::new();
    let cut_model = |name: &str, limit: u64, accesses: u64| BudgetHit {
        budget: name.into(),
        limit,
        fallback: format!(
            "the kernel-level model on fewer sampled threads: the first {accesses} thread-accesses"
        ),
        decided_by: "model".into(),
        deterministic: true,
    };
    let (kb, mb) = (grant.budget.kernel, grant.budget.module);
    let accesses = walked.trace.thread_accesses();
    match walked.cut {
        Some(Cut::WallTime) => return Err(NoModel::Budget(wall_time(grant.budget.wall))),
        Some(Cut::Accesses) if grant.by_module[0] => budget.push(cut_model(
            "module thread-accesses",
            mb.thread_accesses,
            accesses,
        )),
        Some(Cut::Evaluations) if grant.by_module[1] => budget.push(cut_model(
            "module evaluation steps",
            mb.evaluation_steps,
            accesses,
        )),
        Some(Cut::Evaluations) => budget.push(cut_model(
            "kernel evaluation steps",
            kb.evaluation_steps,
            accesses,
        )),
        _ => {}
    }
    let (walked_cut, walked_evaluations) = (walked.cut, walked.evaluations);
    // Whether the trace shows every access as it is (`model::read_once`).
    let guessed_paths = walked.guessed_paths;
    let gathers: Vec<bool> = walked.accesses.iter().map(|a| a.gather).collect();
    let in_allocation: Vec<bool> = walked.accesses.iter().map(|a| a.in_allocation).collect();
    let phis: Vec<bool> = walked.accesses.iter().map(|a| a.phi).collect();
    let whole = program.complete
        && !rows_guessed
        && !walked.guessed_trips
        && !(walked.accesses.iter()).any(|a| a.standin || a.based);
    // Runs the code itself stores one after another (`control::
    // packed_starts`: CSR rows) are packed in the nominal trace (fact 12);
    // the other unknown starts keep regions of their own there, and are
    // packed only in the scenario below.
    let packed_bases = walked.packed_bases;
    let scattered = packed_bases.iter().any(Option::is_none);
    // `private`: the walk's own trace when the nominal one differs from it.
    // The others lie within their parameter's allocation where the launch
    // shows one (`allocations::starts_in_allocations`), packed runs too.
    let extents = walked.extents;
    let packed = starts_packed(&walked.trace, Packing::ByRow(&packed_bases));
    let placed = starts_in_allocations(packed.as_ref().unwrap_or(&walked.trace), &extents);
    let (trace, private) = match placed.or(packed) {
        Some(t) => (t, Some(walked.trace)),
        None => (walked.trace, None),
    };
    // Unknown indices into a table every warp reads are drawn within it in
    // every trace the model weighs (`model::gathers::gathers_in_tables`);
    // the report names the tables, since the choice rests on that. Not
    // where a loop ran a guessed trip count or a budget cut the trace: what
    // every warp read there is a part of the table, maybe a small one.
    let uses: Vec<TableUse> = (params_of(&program.program, trace.instructions.len()).into_iter())
        .zip(&trace.instructions)
        .zip(&walked.accesses)
        .map(|((param, i), a)| TableUse {
            param,
            evidence: !a.standin && matches!(i.kind, Kind::Load | Kind::FixedLoad | Kind::ReadOnly),
            drawable: !a.standin && !a.gather,
        })
        .collect();
    let tables_known = !walked.guessed_trips && trace.truncated.is_none() && walked_cut.is_none();
    let in_tables = |t: &Trace| tables_known.then(|| gathers_in_tables(t, &uses)).flatten();
    // Another walk's trace (a scenario's, another SM's) as the nominal one
    // is made of the walk's: rows packed, runs in their allocations, tables
    // drawn in.
    let as_nominal = |w: Walked| {
        let t = starts_packed(&w.trace, Packing::ByRow(&w.packed_bases)).unwrap_or(w.trace);
        let t = starts_in_allocations(&t, &w.extents).unwrap_or(t);
        in_tables(&t).map_or(t, |(t, _)| t)
    };
    let (trace, tables) = match in_tables(&trace) {
        Some((t, tables)) => (t, tables),
        None => (trace, Vec::new()),
    };
    let table_names: Vec<String> = (tables.iter())
        .map(|&(index, bytes)| format!("{} ({bytes} B)", param_name(k.function, index)))
        .collect();
    let l1_bytes = occ.l1_bytes_per_sm / hw.line_bytes * hw.line_bytes;
    let capacity =
        u32::try_from(l1_bytes).map_err(|_| NoModel::Error("L1 too large".to_string()))?;
    let mut config = l1_config(k, capacity);
    config.default_load_allocates = hw.global_loads == GlobalLoads::L1ByDefault;
    let verdicts = |p: usize| -> Vec<Option<bool>> {
        let by_entry: HashMap<usize, Decision> =
            k.loads.iter().map(|(l, d)| (l.entry, d[p])).collect();
        (program.entries.iter())
            .map(|e| match e.and_then(|e| by_entry.get(&e)) {
                Some(Decision::Cache) => Some(true),
                Some(Decision::Bypass) => Some(false),
                _ => None,
            })
            .collect()
    };
    let usable = occ.l1_serves_global_loads && hw.global_loads != GlobalLoads::L2Only;
    let limit = SearchLimit {
        simulated_accesses: grant.spend.simulated_accesses,
        deadline: Some(grant.deadline),
    };
    let (cons, aggr) = (verdicts(0), verdicts(1));
    let mut m = model_within(&trace, config, [&cons, &aggr], usable, limit)
        .map_err(|e| NoModel::Error(e.to_string()))?;
    let mut rr_evaluations = 0;
    // Instructions another launch's walk ran (a loop only a larger radius
    // enters): the choice decides them too.
    let mut variant_ran = vec![false; trace.instructions.len()];
    // The other launches walked as scenarios.
    let mut other_traces: Vec<OtherTrace> = Vec::new();
    let robust = if k.auto && usable && m.cut.is_none() {
        // The round-robin trace, for its scenario: walked like the nominal
        // one, within what the nominal walk left of the evaluation grant
        // and no more than twice what it spent. A walk the evaluation grant or the
        // clock cut is not a scenario (its figures would cover less of the
        // kernel than the nominal's); one the access budget cut, like the
        // nominal walk, covers as many thread-accesses.
        let comparable =
            |c: Option<Cut>| matches!(c, None | Some(Cut::Accesses) | Some(Cut::Steps));
        let side_walk = |l: &Launch, evaluations: u64| {
            walk_limited(
                &program.program,
                program.instructions.clone(),
                l,
                Budget {
                    accesses: grant.spend.thread_accesses,
                    ..DEFAULT_BUDGET
                },
                Limits {
                    evaluations,
                    deadline: Some(grant.deadline),
                },
            )
        };
        let left = |spent: u64| (grant.spend.evaluation_steps).saturating_sub(spent);
        let rr = comparable(walked_cut).then(|| {
            side_walk(
                &Launch {
                    order: WarpOrder::RoundRobin,
                    ..launch.clone()
                },
                left(walked_evaluations).min(walked_evaluations.saturating_mul(2).max(MIN_GRANT)),
            )
        });
        rr_evaluations = rr.as_ref().map_or(0, |w| w.evaluations);
        let rr = rr.filter(|w| w.cut == walked_cut).map(as_nominal);
        // Each other launch's values (at most `MAX_LAUNCH_SCENARIOS`),
        // walked as the round-robin trace is, each within an equal share of
        // what the nominal and round-robin walks left of the grant (not a
        // multiple of the nominal walk's cost: a first launch that runs no
        // loop would starve a second that does). A walk the grant cuts is
        // no scenario, and the loads only it ran stay undecided.
        let mut launches: Vec<(u32, Trace, L1Config)> = Vec::new();
        let variants = k.variants.len().min(MAX_LAUNCH_SCENARIOS) as u64;
        let share = left(walked_evaluations + rr_evaluations) / variants.max(1);
        for v in k.variants.iter().take(MAX_LAUNCH_SCENARIOS) {
            // `None`: the kernel's grid or block (the user's, or the one
            // every launch shares).
            let grid = v.grid.or(launch.grid);
            let block = v.block.unwrap_or(launch.block);
            // Another block is another occupancy and carveout: its own
            // resident blocks and L1.
            let nominal = Some((occ.blocks_per_sm, config.capacity_bytes));
            let own = (block != launch.block)
                .then(|| other_block(hw, k.bypass, block, (k.registers, k.static_shared_bytes)));
            let Some((blocks_per_sm, capacity)) = own.unwrap_or(nominal) else {
                continue;
            };
            let config = L1Config {
                capacity_bytes: capacity,
                ..config
            };
            let w = side_walk(
                &Launch {
                    args: v.args.clone(),
                    grid,
                    block,
                    blocks: resident_blocks(blocks_per_sm, hw.sm_count(), grid),
                    ..launch.clone()
                },
                share,
            );
            rr_evaluations += w.evaluations;
            if comparable(w.cut) && w.trace.thread_accesses() > 0 {
                for e in &w.trace.events {
                    if let Some(r) = variant_ran.get_mut(e.inst as usize) {
                        *r = true;
                    }
                }
                let t = as_nominal(w);
                other_traces.push(OtherTrace {
                    line: v.line,
                    grid,
                    block,
                    config,
                    trace: t.clone(),
                });
                launches.push((v.line, t, config));
            }
        }
        let local = gathers_local(&trace, &gathers);
        let packed = scattered
            .then(|| starts_packed(private.as_ref().unwrap_or(&trace), Packing::ByThread))
            .flatten()
            .map(|t| starts_in_allocations(&t, &extents).unwrap_or(t))
            .map(|t| in_tables(&t).map_or(t, |(t, _)| t));
        let scenarios = scenarios(
            hw,
            &occ,
            config,
            &trace,
            rr.as_ref(),
            [local.as_ref(), packed.as_ref()],
            &launches,
        );
        let mut r = robust_choice(&scenarios, &m, [&cons, &aggr], &gathers, usable, limit)
            .map_err(|e| NoModel::Error(e.to_string()))?;
        r.report.measured = measured_answers(hw);
        r.report.guessed_rows = guessed_names.clone();
        r.report.tables = table_names.clone();
        if r.choice != m.auto {
            let sim = crate::model::l1sim::simulate(&trace, &config, &r.choice)
                .map_err(|e| NoModel::Error(e.to_string()))?;
            m.bytes.auto = sim.loads.l2_bytes;
            m.instructions = sim.instructions;
            m.auto = r.choice.clone();
        }
        m.simulations += r.simulations;
        m.simulated_accesses += r.simulated_accesses;
        Some(r)
    } else {
        None
    };
    // Loads whose lines no other access of the trace reads are bypassed
    // under auto (`model::read_once`): caching them cannot hit in any
    // scenario, and bypassing keeps their lines out of L1. Only where the
    // trace shows every access as it is (`whole`): a stand-in, an unknown
    // start, a guessed trip count or an access outside the trace could
    // make another access read the same lines.
    //
    // The trace holds one SM's first wave of blocks, but any other block
    // of the grid may run on that SM later, while L1 still holds what the
    // first wave read (`bias[threadIdx.x + 256 * blockIdx.x]` with a grid
    // of 9 x 4096 blocks: the traced blocks have different blockIdx.x, the
    // grid's blocks share each slice 4096 times). So the neighbours of the
    // first traced block in each grid dimension are walked too, and a load
    // is read once only if they share none of its lines either: an address
    // that ignores a block index, or whose blocks overlap (a stencil's
    // halo), is shared there.
    // Not where other launches are scenarios: a load one launch reads once
    // another may reuse (`in[i * s]` with s = 0).
    let once: Vec<bool> = if k.auto && usable && whole && k.variants.is_empty() {
        let probe = probe_blocks(&launch.blocks, k.grid);
        let probed = (!probe.is_empty()).then(|| {
            walk_of(&Launch {
                blocks: probe,
                ..launch.clone()
            })
        });
        match probed {
            Some(p) if p.cut.is_some() || p.trace.truncated.is_some() => Vec::new(),
            Some(p) if p.guessed_trips || (p.accesses.iter()).any(|a| a.standin || a.based) => {
                Vec::new()
            }
            probed => {
                let guessed = guessed_paths || probed.as_ref().is_some_and(|p| p.guessed_paths);
                let both = match probed {
                    Some(p) => trace.followed_by(&p.trace),
                    None => trace.clone(),
                };
                // Not read once: an address reading a phi whose value a
                // guessed path chose (a guess too), and one through a
                // parameter a launch gives another parameter's allocation,
                // or a place inside one (it may read lines the trace gives
                // to another access).
                let aliased = through_params(&program.program, &k.overlapping_params);
                let guessed_address: Vec<bool> = (phis.iter().enumerate())
                    .map(|(i, &p)| (guessed && p) || aliased.contains(&(i as u32)))
                    .collect();
                read_once(&both, fill_unit(&config), guessed, &guessed_address)
            }
        }
    } else {
        Vec::new()
    };
    let streams = (m.auto.iter().zip(&once)).filter(|(&c, &o)| c && o).count();
    let mut robust = robust;
    if streams > 0 {
        let choice: Vec<bool> = (m.auto.iter().enumerate())
            .map(|(i, &c)| c && !once.get(i).copied().unwrap_or(false))
            .collect();
        let sim = crate::model::l1sim::simulate(&trace, &config, &choice)
            .map_err(|e| NoModel::Error(e.to_string()))?;
        m.bytes.auto = sim.loads.l2_bytes;
        m.instructions = sim.instructions;
        m.auto = choice;
        if let Some(r) = robust.as_mut() {
            r.report.chosen = format!(
                "{}, then {streams} load{} read once bypassed",
                r.report.chosen,
                if streams == 1 { "" } else { "s" }
            );
            for (h, &o) in r.hinges.iter_mut().zip(&once) {
                if o {
                    h.clear();
                }
            }
        }
    }
    // What the build emits: the fixed decisions, the model's for the rest
    // (auto) or the target's default (another policy).
    let emitted: Vec<bool> = (program.entries.iter().enumerate())
        .map(|(i, e)| {
            let fixed = e.and_then(|e| k.emitted.get(&e));
            let cached = match fixed {
                Some(Decision::Cache) => true,
                Some(Decision::Bypass) => false,
                Some(Decision::Default) => config.default_load_allocates,
                None if k.auto => m.auto.get(i).copied().unwrap_or(false),
                None => config.default_load_allocates,
            };
            cached && usable
        })
        .collect();
    let decided = if emitted == m.auto {
        m.bytes.auto
    } else {
        l2_bytes_of(&trace, config, &emitted).map_err(|e| NoModel::Error(e.to_string()))?
    };
    // What flipping one load alone would cost (`decide::callees` weighs
    // the kernels that share a device function's load by it): one more
    // simulation per such load the trace runs, within the search budget
    // and the clock (a load left unpriced is weighed without it).
    let mut flips = HashMap::new();
    if k.auto && usable {
        for (i, entry) in program.entries.iter().enumerate() {
            let spent = m.simulated_accesses.saturating_add(trace.thread_accesses());
            if spent > grant.spend.simulated_accesses || Instant::now() >= grant.deadline {
                break;
            }
            let Some(e) = entry.filter(|e| k.weigh_flips.contains(e)) else {
                continue;
            };
            let runs = trace.events.iter().any(|ev| ev.inst == i as u32);
            if flips.contains_key(&e) || !runs {
                continue;
            }
            let mut choice = m.auto.clone();
            for (j, f) in program.entries.iter().enumerate() {
                if *f == Some(e) {
                    choice[j] = !m.auto[i];
                }
            }
            let flipped =
                l2_bytes_of(&trace, config, &choice).map_err(|e| NoModel::Error(e.to_string()))?;
            m.simulations += 1;
            m.simulated_accesses += trace.thread_accesses();
            flips.insert(
                e,
                Flip {
                    chosen: m.bytes.auto,
                    flipped,
                },
            );
        }
    }
    let traffic = PolicyTraffic {
        auto: m.bytes.auto,
        cache_all: m.bytes.cache_all,
        cache_none: m.bytes.cache_none,
        conservative: m.bytes.conservative,
        aggressive: m.bytes.aggressive,
        decided,
    };
    let other_launches = other_launch_figures(
        &other_traces,
        launch.block,
        [&m.auto, &emitted],
        [&cons, &aggr],
        usable,
    )
    .map_err(|e| NoModel::Error(e.to_string()))?;
    let launch_traffic = launch_estimate(&LaunchEstimate {
        program: &program,
        launch: &launch,
        sm0: &trace,
        sm0_bytes: traffic,
        choices: [&m.auto, &emitted],
        verdicts: [&cons, &aggr],
        config,
        usable,
        sms: hw.sm_count(),
        blocks_per_sm: occ.blocks_per_sm,
        grid: k.grid,
        complete: walked_cut.is_none() && trace.truncated.is_none(),
        nominal_cost: walked_evaluations,
        budget: Budget {
            accesses: grant.spend.thread_accesses,
            ..DEFAULT_BUDGET
        },
        deadline: grant.deadline,
        prepare: &as_nominal,
    });
    let spent = Spend {
        thread_accesses: accesses,
        evaluation_steps: walked_evaluations + rr_evaluations,
        simulated_accesses: m.simulated_accesses,
    };
    match m.cut {
        Some(SearchCut::WallTime) => return Err(NoModel::Budget(wall_time(grant.budget.wall))),
        Some(SearchCut::SimulatedAccesses) => {
            let (name, limit) = if grant.by_module[2] {
                ("module search", mb.simulated_accesses)
            } else {
                ("kernel search", kb.simulated_accesses)
            };
            budget.push(BudgetHit {
                budget: name.into(),
                limit,
                fallback: format!(
                    "the kernel-level model; auto's search stopped after {} simulations and keeps \
                     the best choice found (never above cache-all, cache-none or conservative)",
                    m.simulations
                ),
                decided_by: "model".into(),
                deterministic: true,
            });
        }
        None => {}
    }
    let occupancy_text = format!(
        "{} blocks/SM ({}-limited; {} registers/thread{}), shared carveout {}, L1 {} B per SM",
        occ.blocks_per_sm,
        occ.limit,
        occ.registers_per_thread,
        if occ.registers_estimated {
            " estimated"
        } else {
            ""
        },
        occ.carveout.map_or("fixed".into(), |c| format!("{c} B")),
        l1_bytes
    );
    let mut loads = load_models(
        &program,
        &trace,
        &m,
        k.loads,
        [&once, &variant_ran, &in_allocation],
    );
    if let Some(r) = &robust {
        for (i, entry) in program.entries.iter().enumerate() {
            let Some(l) = entry.and_then(|e| loads.get_mut(&e)) else {
                continue;
            };
            l.0.hinges_on = r.hinges.get(i).cloned().unwrap_or_default();
        }
    }
    program.follow_leaders(&trace, k.loads, &mut loads);
    Ok(SmResult {
        loads,
        simulated: Simulated {
            scope: "sm".into(),
            blocks: trace.blocks,
            l1_bytes,
            traffic_bytes: traffic,
            occupancy: occupancy_text,
            thread_accesses: trace.thread_accesses(),
            truncated: trace.truncated.clone(),
            cost: ModelCost {
                evaluation_steps: spent.evaluation_steps,
                simulations: m.simulations,
                simulated_accesses: spent.simulated_accesses,
            },
            robust: robust.map(|r| r.report),
            launch: launch_traffic,
            other_launches,
            followed_calls: (program.followed.iter())
                .map(|f| crate::facts::names::demangle(&f.name()))
                .collect(),
        },
        followed: program.followed.clone(),
        unfollowed: program.unfollowed.clone(),
        flips,
        trace,
        spent,
        budget,
    })
}

/// The trace instructions whose address is based on one of `params` (by
/// kernel parameter index).
fn through_params(program: &Program, params: &[u32]) -> HashSet<u32> {
    let mut out = HashSet::new();
    if params.is_empty() {
        return out;
    }
    for op in program.nodes.iter().flat_map(|n| &n.ops) {
        let mut hit = false;
        op.address.visit(&mut |e| {
            if let Expr::Base(Base::Param { index, .. }) = e {
                hit |= params.contains(index);
            }
        });
        if hit {
            out.insert(op.inst);
        }
    }
    out
}

/// The neighbours of the first of `blocks` one step along x, y and z that
/// are in the grid (any, where the grid is not known) and not in `blocks`.
fn probe_blocks(blocks: &[[i64; 3]], grid: Option<Dim3>) -> Vec<[i64; 3]> {
    let Some(&first) = blocks.first() else {
        return Vec::new();
    };
    let extent = grid.map(|g| [i64::from(g.x), i64::from(g.y), i64::from(g.z)]);
    (0..3)
        .map(|d| {
            let mut b = first;
            b[d] += 1;
            b
        })
        .filter(|b| extent.is_none_or(|e| (0..3).all(|d| b[d] < e[d])))
        .filter(|b| !blocks.contains(b))
        .collect()
}

/// Kernel parameter `index`'s name, as the report gives it.
fn param_name(function: Value, index: u32) -> String {
    (function.params().get(index as usize))
        .map(|v| v.name())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| format!("argument {index}"))
}

/// The most other host launches weighed as scenarios (issue 19: model
/// cost stays bounded); the report's notes name every launch.
const MAX_LAUNCH_SCENARIOS: usize = 3;

/// Per trace instruction (`n` of them), the one kernel parameter its
/// address is based on, if it has exactly one.
fn params_of(program: &Program, n: usize) -> Vec<Option<u32>> {
    program.per_instruction(n, |op| only_param(&op.address))
}

/// The one kernel parameter an address is based on, if it has exactly one.
fn only_param(address: &Expr) -> Option<u32> {
    let mut found: Option<Option<u32>> = None;
    address.visit(&mut |x| {
        if let Expr::Base(b) = x {
            let here = match b {
                Base::Param { index, .. } => Some(*index),
                _ => None,
            };
            found = match found {
                None => Some(here),
                Some(seen) if seen == here => Some(seen),
                Some(_) => Some(None),
            };
        }
    });
    found.flatten()
}

/// The simulated L1, from the hardware facts (`l1_config`; issue 19).
/// The bytes one L1 miss fetches: a sector on sector-fill parts, the line
/// on line-fill ones (`model::read_once`'s unit).
fn fill_unit(config: &L1Config) -> u64 {
    u64::from(match config.fill {
        Fill::Sector => config.sector_bytes,
        Fill::Line => config.line_bytes,
    })
}

fn l1_config(k: &KernelInputs, capacity: u32) -> L1Config {
    crate::model::l1_config::l1_config(k.hardware, k.bypass, capacity)
}

fn load_models(
    program: &KernelProgram,
    trace: &Trace,
    m: &KernelModel,
    loads: &[(TracedLoad, [Decision; 2])],
    [once, variant_ran, in_allocation]: [&[bool]; 3],
) -> HashMap<usize, (LoadModel, bool)> {
    let paper: HashMap<usize, [Decision; 2]> = loads.iter().map(|(l, d)| (l.entry, *d)).collect();
    let mut out = HashMap::new();
    for (i, entry) in program.entries.iter().enumerate() {
        let Some(entry) = *entry else { continue };
        let r = &m.instructions[i];
        // A load no warp of the nominal trace ran is decided only where
        // another launch's walk ran it (its figures here are the nominal
        // trace's: none).
        if r.counts.sectors == 0 && !variant_ran.get(i).copied().unwrap_or(false) {
            continue;
        }
        let cache = m.auto[i];
        let p = paper.get(&entry).copied().unwrap_or([Decision::Default; 2]);
        out.insert(
            entry,
            (
                LoadModel {
                    paper: p.map(|d| d.name().to_string()),
                    model: if cache { "cache" } else { "bypass" }.into(),
                    sectors: r.counts.sectors,
                    hits: r.counts.hits,
                    l2_bytes: r.counts.l2_bytes,
                    hits_from: hit_sources(&r.from, trace),
                    unknown_within: trace.bounded_span(i as u32),
                    in_allocation: trace.bounded_span(i as u32).is_some()
                        && in_allocation.get(i).copied().unwrap_or(false),
                    hinges_on: Vec::new(),
                    read_once: !cache && once.get(i).copied().unwrap_or(false),
                    merged_into: None,
                },
                cache,
            ),
        );
    }
    out
}

/// Where a load's hits come from, in words, most first.
fn hit_sources(from: &Provenance, trace: &Trace) -> Vec<String> {
    let mut v: Vec<(u64, String)> = Vec::new();
    if from.same_warp > 0 {
        v.push((
            from.same_warp,
            format!("{} across loop iterations (same warp)", from.same_warp),
        ));
    }
    if from.same_block > 0 {
        v.push((
            from.same_block,
            format!(
                "{} from other warps of the block (same load)",
                from.same_block
            ),
        ));
    }
    if from.other_block > 0 {
        v.push((
            from.other_block,
            format!("{} from other blocks (same load)", from.other_block),
        ));
    }
    for o in &from.other_inst {
        let site = trace
            .instructions
            .get(o.inst as usize)
            .map_or("?", |i| i.site.as_str());
        let blocks = if o.other_block > 0 {
            format!(" ({} of them filled by other blocks)", o.other_block)
        } else {
            String::new()
        };
        v.push((o.hits, format!("{} reuse lines of {site}{blocks}", o.hits)));
    }
    v.sort_by_key(|x| std::cmp::Reverse(x.0));
    v.into_iter().map(|x| x.1).collect()
}
