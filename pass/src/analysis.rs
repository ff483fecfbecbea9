//! The analysis proper: for every global load of every kernel (and of every
//! device function that was not inlined), fold its address, find its
//! guards, evaluate it for each thread of the sampled blocks, estimate its
//! traffic and apply the policy.
//!
//! The result is a `Report` (what the user reads) plus the list of decided
//! loads with their IR handles (what annotate consumes). Nothing here
//! changes the module.
//!
//! The kernel-level model's step (`kernel_model`) and what host launches
//! and the module say (`launch`) are files of their own. Length: this one
//! stays about a thousand lines: the unit loop and the per-load walk (`Walk`)
//! share one state (folder, dominators, sampled blocks, the unit's result),
//! and the walk's steps read in order as the methods of that one struct.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::decide::callees::{combine, CalleeLoad, Caller, Combined, Proposal};
use crate::decide::policy::{decide, Decision, Policy, Verdict};
use crate::emit::keys::Key;
use crate::facts::accesses::{block_accesses, Shift};
use crate::facts::address::{render, uniform_unknowns, Context, Expr, Folder, Known, Sreg, E};
use crate::facts::evaluate::{sample_blocks, Env};
use crate::facts::global_loads::{is_read_only, reads_constant_table, Read, Skip};
use crate::facts::guards::{Dominators, Guard};
use crate::facts::kernels::{find, nearest, BlockSource, Kernel};
use crate::facts::memory::Memory;
use crate::facts::names::{demangle, names_kernel, source_name};
use crate::facts::traffic::{block_traffic, mean, Traffic};
use crate::gpu::generation::{Arch, AsmOp, CacheOp};
use crate::gpu::hardware::{Fill, GlobalLoads, Hardware};
use crate::llvm::ir::{Module, Opcode, Value};
use crate::model::budget::{ModuleBudget, DEFAULT_MODEL_BUDGET};
use crate::model::kernel_trace::Scope;
use crate::model::kernel_trace::TracedLoad;
use crate::model::sm_model::{simulate, KernelInputs, NoModel};
use crate::model::trace::Trace;
use crate::options::{ArgRef, Dim3, Options, ShapeOrigin};
use crate::report::{KernelReport, LoadReport, MachineReport, Report, SkippedLoad};

mod fences;
mod kernel_model;
mod launch;
use kernel_model::{decide_callees, emitted_decisions, reachable, ModelScope};
use launch::{argument_values, module_warnings, LaunchFact, LaunchVariant};

/// clang 19's default CUDA arch, used when neither the user nor the module names one.
pub const FALLBACK_ARCH: Arch = Arch {
    sm: 52,
    arch_specific: false,
};

/// Longest pattern text kept in the report and metadata.
const MAX_PATTERN: usize = 200;

/// One decided load: its instruction and where its entry sits in the report.
#[derive(Clone, Copy, Debug)]
pub struct Decided {
    pub load: Value,
    /// The operator the asm lowering writes (`None`: the load stays plain).
    pub op: Option<AsmOp>,
    pub kernel: usize,
    pub entry: usize,
}

pub struct Analysis {
    pub report: Report,
    /// The function of each `report.kernels` entry, in the same order.
    pub kernel_functions: Vec<Value>,
    pub decided: Vec<Decided>,
    /// Every read of every analysed function with its key (decided,
    /// defaulted and left alone alike), for `lower::write_keys`.
    pub keyed: Vec<(Value, Key)>,
    pub arch: Arch,
}

/// The arch: the user's, else the module's `target-cpu`, else clang's default.
pub fn resolve_arch(module: Module, opts: &Options, warnings: &mut Vec<String>) -> Arch {
    if let Some(a) = opts.arch {
        return a;
    }
    let cpu = module
        .functions()
        .into_iter()
        .find_map(|f| f.string_attribute("target-cpu"));
    match cpu.as_deref().and_then(Arch::parse) {
        Some(a) => a,
        None => {
            warnings.push(format!(
                "no target arch in the module or options; assuming {FALLBACK_ARCH} (set arch=sm_XX / --cuda-gpu-arch)"
            ));
            FALLBACK_ARCH
        }
    }
}

/// An `arch=` option must agree with the module's `target-cpu`: the backend
/// writes code for the module's CPU, so decisions for another one would be
/// wrong.
pub fn check_arch(module: Module, opts: &Options) -> Result<(), crate::Error> {
    let Some(asked) = opts.arch else {
        return Ok(());
    };
    let cpu = module
        .functions()
        .into_iter()
        .find_map(|f| f.string_attribute("target-cpu"));
    match cpu.as_deref().and_then(Arch::parse) {
        Some(m) if m != asked => Err(crate::Error::ArchMismatch {
            option: asked.to_string(),
            module: m.to_string(),
        }),
        _ => Ok(()),
    }
}

/// The PTX ISA version the module's functions ask for (`+ptx85` → 85).
pub fn ptx_version(module: Module) -> Option<u32> {
    module.functions().into_iter().find_map(|f| {
        let features = f.string_attribute("target-features")?;
        features
            .split(',')
            .filter_map(|x| x.strip_prefix("+ptx")?.parse().ok())
            .max()
    })
}

/// The operator a decision needs on `arch` at PTX ISA `ptx`, or `None`
/// when the load stays as the backend writes it. A read-only load keeps its
/// non-coherent path: from sm_70 it may bypass as
/// `ld.global.nc.L1::no_allocate`; before sm_70 it is never changed (`.nc`
/// is the only way it reaches the read-only cache there).
pub fn operator_for(decision: Decision, arch: Arch, ptx: u32, read_only: bool) -> Option<AsmOp> {
    let op = match decision {
        Decision::Cache => arch.cache_op()?,
        Decision::Bypass => arch.bypass_op(ptx),
        Decision::Default => return None,
    };
    if read_only && (!arch.is_sectored() || !op.fits_non_coherent()) {
        return None;
    }
    Some(AsmOp { nc: read_only, op })
}

/// How the report spells an operator choice.
fn operator_text(op: Option<AsmOp>, read_only: bool) -> String {
    match op {
        Some(op) => op.spelling(),
        None if read_only => "ld.global.nc".into(),
        None => "ld.global".into(),
    }
}

struct Unit {
    function: Value,
    is_kernel: bool,
    block: Dim3,
    source: BlockSource,
    grid: Option<Dim3>,
    /// A device function's geometry is a kernel's: its source name, and
    /// whether that kernel calls it.
    geometry_of: Option<(String, bool)>,
}

fn units(module: Module, kernels: &[Kernel], opts: &Options) -> Vec<Unit> {
    let mut out: Vec<Unit> = kernels
        .iter()
        .map(|k| {
            let (block, source) = k.block(opts);
            Unit {
                function: k.function,
                is_kernel: true,
                block,
                source,
                grid: k.grid(opts),
                geometry_of: None,
            }
        })
        .collect();
    // Device functions left out of line: analysed on their own, with the
    // geometry of the first kernel that calls them.
    for f in module.functions() {
        if f.is_declaration() || kernels.iter().any(|k| k.function == f) {
            continue;
        }
        let caller = f
            .users()
            .into_iter()
            .filter(|u| u.opcode() == Some(Opcode::LLVMCall) && u.called_value() == f)
            .find_map(|c| {
                out.iter()
                    .find(|u| u.is_kernel && u.function == c.parent_function())
                    .map(|u| {
                        let name = source_name(&u.function.name());
                        (u.block, u.source, u.grid, Some((name, true)))
                    })
            });
        let (block, source, grid, geometry_of) = caller.unwrap_or_else(|| {
            kernels.first().map_or(
                (
                    crate::options::DEFAULT_BLOCK,
                    BlockSource::Default,
                    opts.grid,
                    None,
                ),
                |k| {
                    let (b, s) = k.block(opts);
                    let name = source_name(&k.function.name());
                    (b, s, k.grid(opts), Some((name, false)))
                },
            )
        });
        out.push(Unit {
            function: f,
            is_kernel: false,
            block,
            source,
            grid,
            geometry_of,
        });
    }
    out
}

/// Where `unit`'s grid came from, for the report: the user, the host
/// launches, or where their grids differ the first launch's (the others
/// are scenarios: `analysis::launch`).
fn grid_source(opts: &Options, unit: &Unit) -> String {
    if let Some((kernel, _)) = &unit.geometry_of {
        return format!("of kernel {kernel}");
    }
    let symbol = unit.function.name();
    let grids = crate::facts::kernels::launch_grids(opts, &symbol);
    launches_source(opts, &symbol, &grids, "grids").unwrap_or_else(|| "user".into())
}

/// Where `unit`'s block came from: as `grid_source`, from `unit.source`
/// where the launches did not give it.
fn block_source(opts: &Options, unit: &Unit) -> String {
    let symbol = unit.function.name();
    let blocks = crate::facts::kernels::launch_blocks(opts, &symbol);
    match unit.source {
        BlockSource::HostLaunch(_) => launches_source(opts, &symbol, &blocks, "blocks"),
        _ => None,
    }
    .unwrap_or_else(|| unit.source.name())
}

/// "host launch at line L", and where the launches' `shapes` differ, that
/// it is the first and the others are scenarios; `None` without shapes.
fn launches_source(
    opts: &Options,
    symbol: &str,
    shapes: &[(u32, Dim3)],
    what: &str,
) -> Option<String> {
    let first = shapes.first()?;
    if shapes.iter().all(|g| g.1 == first.1) {
        return Some(format!("host launch at line {}", first.0));
    }
    let line = crate::facts::kernels::nominal_launch_line(opts, symbol).unwrap_or_default();
    let lines: Vec<String> = shapes.iter().map(|g| g.0.to_string()).collect();
    Some(format!(
        "host launch at line {line}, the first of the launches with different {what} (lines {}); the others (up to three, by line) are scenarios under auto",
        lines.join(", ")
    ))
}

fn reads_grid(e: &Expr) -> bool {
    let mut found = false;
    e.visit(&mut |x| found |= matches!(x, Expr::Sreg(Sreg::Nctaid(_))));
    found
}

fn arg_label(index: u32, name: &str) -> String {
    if name.is_empty() {
        format!("{index}")
    } else {
        name.to_string()
    }
}

/// What the analysis of a module holds fixed: the target and the module's
/// own facts.
struct Setting<'m> {
    opts: &'m Options,
    arch: Arch,
    /// The machine the kernel-level model describes: the `machine=` file's,
    /// else the arch's table entry.
    hardware: Hardware,
    model: crate::gpu::generation::Model,
    l1_bytes: u64,
    /// The PTX ISA version llc will write.
    ptx: u32,
    layout: crate::llvm::ir::DataLayout,
    kernel_fns: Vec<Value>,
    invariant_kind: u32,
    globals: HashMap<Value, u32>,
    /// Whether to run the kernel-level model whatever the policy and keep
    /// each kernel's trace (the `locality` subcommand).
    keep_traces: bool,
}

/// Which kernels [`kernel_traces`] analyses and traces.
#[derive(Clone, Copy, Debug)]
pub enum Wanted<'a> {
    /// The module's kernel when it has one; none when it has several.
    Sole,
    /// One kernel, by symbol, demangled name, or that name without its
    /// parameters.
    Named(&'a str),
}

impl Wanted<'_> {
    fn includes(self, symbol: &str, kernels: usize) -> bool {
        let Wanted::Named(w) = self else {
            return kernels == 1;
        };
        let name = demangle(symbol);
        let short = name.split('(').next().unwrap_or(&name);
        symbol == w || name == w || short == w
    }
}

/// One function's analysis: its report entry and its loads' keys and decisions.
struct UnitResult {
    report: KernelReport,
    keyed: Vec<(Value, Key)>,
    /// Decided loads, with `kernel` left for the caller to fill in.
    decided: Vec<Decided>,
    /// Evaluated loads with the paper's verdicts (conservative,
    /// aggressive), for the kernel-level model.
    traced: Vec<(TracedLoad, [Decision; 2])>,
    /// The instruction of each `report.loads` entry.
    entry_loads: Vec<Value>,
    /// The entries whose decision `decisions=` forced.
    forced: Vec<usize>,
    /// The kernel's whole-SM trace, when the setting keeps traces.
    trace: Option<Trace>,
    /// The device functions its model followed into (`decide::callees`),
    /// and those some call of its leaves a call.
    followed: Vec<Value>,
    unfollowed: Vec<Value>,
}

/// One kernel's whole-SM access trace (design.md §6), with its names.
pub struct KernelTrace {
    /// Demangled, as the report names the kernel.
    pub name: String,
    pub symbol: String,
    pub trace: Trace,
}

/// The analysis; errs only where a forced decision (`decisions=`) names a
/// function or site the module does not have.
pub fn analyze(module: Module, opts: &Options) -> Result<Analysis, crate::Error> {
    Ok(analyze_keeping(module, opts, None)?.0)
}

/// The kernels `wanted` names, analysed, each with its whole-SM trace: the
/// kernel-level model runs whatever the policy (its choices still apply
/// only under `auto`). The other kernels are neither analysed nor traced
/// (the `locality` subcommand asks for one of a file's many); the report
/// holds only those analysed, and the names of all kernels of the module
/// come with it.
pub fn kernel_traces(
    module: Module,
    opts: &Options,
    wanted: Wanted,
) -> Result<(Analysis, Vec<KernelTrace>, Vec<String>), crate::Error> {
    let (analysis, traces) = analyze_keeping(module, opts, Some(wanted))?;
    let names = find(module)
        .iter()
        .map(|k| demangle(&k.function.name()))
        .collect();
    Ok((analysis, traces, names))
}

/// The analysis; with `traced`, only of those kernels, keeping their traces.
fn analyze_keeping(
    module: Module,
    opts: &Options,
    traced: Option<Wanted>,
) -> Result<(Analysis, Vec<KernelTrace>), crate::Error> {
    let keep_traces = traced.is_some();
    let mut warnings = Vec::new();
    let arch = resolve_arch(module, opts, &mut warnings);
    // A machine description's facts win over the arch's: its fill picks the
    // per-load model, its smallest L1 (largest carveout) the capacity a
    // block counts on, as the table's do for the sectored archs.
    let (hardware, model, l1_default) = match &opts.machine {
        Some(m) => {
            let model = opts.model.unwrap_or(match m.hardware.fill {
                Fill::WholeLine => crate::gpu::generation::Model::Fermi,
                Fill::Sectors => crate::gpu::generation::Model::Sectored,
            });
            (m.hardware, model, m.hardware.smallest_l1_bytes())
        }
        None => {
            let model = opts.model.unwrap_or_else(|| arch.default_model());
            (
                *Hardware::for_arch(arch),
                model,
                arch.default_l1_bytes(model),
            )
        }
    };
    let l1_bytes = opts.l1_bytes.unwrap_or(l1_default);
    // The version llc will write: the module's request or the CPU's minimum.
    let ptx = arch.emitted_ptx_version(ptx_version(module));
    let kernels = find(module);
    // Said only where a load could be bypassed: a module without functions
    // carries no target features to read the version from.
    if arch.is_sectored() && arch.bypass_op(ptx) == CacheOp::Cg && !kernels.is_empty() {
        warnings.push(format!(
            "the module targets PTX ISA {}.{}, below the 7.4 that .L1::no_allocate needs; bypassing with .cg (a strong load)",
            ptx / 10,
            ptx % 10
        ));
    }
    let set = Setting {
        opts,
        arch,
        hardware,
        model,
        l1_bytes,
        ptx,
        layout: module.data_layout(),
        kernel_fns: kernels.iter().map(|k| k.function).collect(),
        invariant_kind: module.md_kind("invariant.load"),
        globals: module.globals().into_iter().zip(0..).collect(),
        keep_traces,
    };
    module_warnings(&set, &kernels, &mut warnings);
    let mut report = Report {
        arch: arch.to_string(),
        model: model.name().into(),
        policy: opts.policy.name().into(),
        l1_bytes,
        source: module.main_source_file(),
        machine: opts.machine.as_ref().map(|m| MachineReport {
            name: m.name.clone(),
            file: m.path.display().to_string(),
            sms: m.hardware.sm_count(),
        }),
        kernels: Vec::new(),
        warnings: Vec::new(),
    };
    let (mut decided, mut keyed, mut kernel_functions) = (Vec::new(), Vec::new(), Vec::new());
    let mut traces = Vec::new();
    let mut budget = ModuleBudget::new(DEFAULT_MODEL_BUDGET);
    let units = units(module, &kernels, opts);
    // Keys in unit order, whichever order the units are analysed in: each
    // read of a function takes one.
    let first_key: Vec<u32> = (units.iter())
        .scan(0u32, |next, u| {
            let first = *next;
            *next += (u.function.instructions())
                .filter(|&i| Read::of(i, &set.layout).is_some())
                .count() as u32;
            Some(first)
        })
        .collect();
    // Device functions first: a kernel's model follows calls into them
    // (`decide::callees`) and needs their loads' verdicts.
    let order: Vec<usize> = (0..units.len())
        .filter(|&i| !units[i].is_kernel)
        .chain((0..units.len()).filter(|&i| units[i].is_kernel))
        .collect();
    let auto = opts.policy == Policy::Auto;
    let mut results: Vec<Option<UnitResult>> = units.iter().map(|_| None).collect();
    let mut unit_warnings: Vec<Vec<String>> = vec![Vec::new(); units.len()];
    let mut callees: Vec<CalleeLoad> = Vec::new();
    let mut proposals: Vec<(usize, usize, Proposal)> = Vec::new();
    // Device functions more than one kernel reaches: their loads' flips
    // are priced, should the kernels disagree (`decide::callees`).
    let reaches: HashMap<Value, HashSet<Value>> = (kernels.iter())
        .map(|k| (k.function, reachable(k.function)))
        .collect();
    let mut reached_by: HashMap<Value, usize> = HashMap::new();
    for f in reaches.values().flatten() {
        *reached_by.entry(*f).or_default() += 1;
    }
    let none = HashSet::new();
    let shared: HashSet<Value> = (reached_by.into_iter())
        .filter(|&(_, n)| n > 1)
        .map(|(f, _)| f)
        .collect();
    for i in order {
        let unit = &units[i];
        let skip = traced
            .is_some_and(|w| !unit.is_kernel || !w.includes(&unit.function.name(), kernels.len()));
        if skip {
            continue;
        }
        let mut next_key = first_key[i];
        let model = ModelScope {
            budget: &mut budget,
            callees: &callees,
            shared: &shared,
            reaches: reaches.get(&unit.function).unwrap_or(&none),
            unit: i,
            proposals: &mut proposals,
        };
        let done = analyze_unit(&set, unit, &mut next_key, model, &mut unit_warnings[i])?;
        if let (Some(done), false) = (&done, unit.is_kernel) {
            let emitted = emitted_decisions(done, auto);
            callees.extend(done.traced.iter().map(|(t, paper)| CalleeLoad {
                function: unit.function,
                unit: i,
                entry: t.entry,
                load: t.load,
                paper: *paper,
                emitted: emitted.get(&t.entry).copied(),
            }));
        }
        results[i] = done;
    }
    if auto {
        decide_callees(
            &set,
            &units,
            &mut results,
            &callees,
            &proposals,
            &reaches,
            &mut unit_warnings,
        );
    }
    let fenced = fences::fenced(module, &set.kernel_fns, set.opts.whole_program);
    for (i, (unit, done)) in units.iter().zip(results).enumerate() {
        warnings.append(&mut unit_warnings[i]);
        let Some(mut done) = done else {
            continue;
        };
        let why = fenced.get(&unit.function).map(|w| w.says());
        if let Some(why) = why {
            set.keep_fenced_loads_plain(why, &mut done);
        }
        if let Some(trace) = done.trace.take() {
            traces.push(KernelTrace {
                name: done.report.name.clone(),
                symbol: done.report.symbol.clone(),
                trace,
            });
        }
        let index = report.kernels.len();
        decided.extend(
            done.decided
                .into_iter()
                .map(|d| Decided { kernel: index, ..d }),
        );
        keyed.extend(done.keyed);
        report.kernels.push(done.report);
        kernel_functions.push(unit.function);
    }
    report.warnings = warnings;
    if let (Some(d), None) = (&opts.decisions, traced) {
        // Every forced load must name a function analysed here (its sites
        // were checked with it).
        if let Some(f) =
            (d.loads.iter()).find(|f| !report.kernels.iter().any(|k| k.symbol == f.symbol))
        {
            let symbols: Vec<&str> = report.kernels.iter().map(|k| k.symbol.as_str()).collect();
            return Err(d.error(
                f,
                format!(
                    "no function '{}' with global loads in the module; give a symbol as the JSON report prints it ({})",
                    f.symbol,
                    if symbols.is_empty() { "this module has none".into() } else { symbols.join(", ") }
                ),
            ));
        }
    }
    let analysis = Analysis {
        report,
        kernel_functions,
        decided,
        keyed,
        arch,
    };
    Ok((analysis, traces))
}

/// What evaluating one function's loads needs: its folder, dominators,
/// sampled blocks and the values known for printing.
struct Walk<'s> {
    set: &'s Setting<'s>,
    unit: &'s Unit,
    args: HashMap<u32, i64>,
    /// What the host launches say of the parameters the user gave no value.
    launch_facts: HashMap<u32, LaunchFact>,
    /// The other launches' values, where launches pass different constants.
    variants: Vec<LaunchVariant>,
    /// Data the user bound to this kernel's pointer arguments.
    memory: Option<Rc<Memory>>,
    known: Known,
    folder: Folder<'s>,
    doms: Dominators,
    blocks: Vec<[i64; 3]>,
    env: Env,
}

/// Analyses one function's loads; `None` for a device function without any.
fn analyze_unit(
    set: &Setting,
    unit: &Unit,
    next_key: &mut u32,
    scope: ModelScope,
    warnings: &mut Vec<String>,
) -> Result<Option<UnitResult>, crate::Error> {
    let loads: Vec<Read> = unit
        .function
        .instructions()
        .filter_map(|i| Read::of(i, &set.layout))
        .collect();
    if loads.is_empty() && !unit.is_kernel {
        return Ok(None);
    }
    let symbol = unit.function.name();
    if unit.source == BlockSource::Default && unit.is_kernel {
        warnings.push(format!(
            "{}: no block size given and no __launch_bounds__; assuming {} threads (set block=/--block-dim)",
            demangle(&symbol),
            unit.block.count()
        ));
    }
    if unit.function.has_fn_attribute("optnone") {
        warnings.push(format!(
            "{}: compiled without optimization (-O0): values live in local memory, so most addresses are unknown; compile with -O1 or higher",
            demangle(&symbol)
        ));
    }
    let (args, launch_facts, variants) = argument_values(unit.function, unit.is_kernel, set.opts);
    let memory = (unit.is_kernel)
        .then(|| Memory::for_kernel(unit.function, &set.opts.kernel_data))
        .filter(|m| !m.is_empty())
        .map(Rc::new);
    let mut walk = Walk {
        set,
        unit,
        known: known_values(unit, &args),
        folder: Folder::new(Context {
            layout: &set.layout,
            is_kernel: unit.is_kernel,
            globals: &set.globals,
            bound: memory.as_ref().map(|m| m.bound()).unwrap_or_default(),
        }),
        doms: Dominators::of(unit.function),
        blocks: sample_blocks(unit.grid, set.opts.sample_blocks),
        env: Env {
            memory: memory.clone(),
            ..Env::new(unit.block, unit.grid, args.clone())
        },
        args,
        launch_facts,
        variants,
        memory,
    };
    let mut out = UnitResult {
        report: KernelReport {
            name: demangle(&symbol),
            symbol: symbol.clone(),
            kind: if unit.is_kernel {
                "kernel"
            } else {
                "device function"
            }
            .into(),
            block_dim: unit.block.as_array(),
            block_dim_source: match &unit.geometry_of {
                None => block_source(set.opts, unit),
                Some((kernel, true)) => format!("{}, of its caller {kernel}", unit.source.name()),
                Some((kernel, false)) => format!(
                    "{}, of kernel {kernel}, which does not call it directly",
                    unit.source.name()
                ),
            },
            grid_dim: unit.grid.map(|g| g.as_array()),
            grid_dim_source: unit.grid.map(|_| grid_source(set.opts, unit)),
            sampled_blocks: walk.blocks.len() as u32,
            loads: Vec::new(),
            skipped: Vec::new(),
            ptx: None,
            simulated: None,
            budget: Vec::new(),
        },
        keyed: Vec::new(),
        decided: Vec::new(),
        traced: Vec::new(),
        entry_loads: Vec::new(),
        forced: Vec::new(),
        trace: None,
        followed: Vec::new(),
        unfollowed: Vec::new(),
    };
    for read in loads {
        let key = *next_key;
        *next_key += 1;
        walk.add_load(&read, key, &mut out);
    }
    if let Some(d) = &set.opts.decisions {
        walk.force(d, &mut out)?;
    }
    // The kernel-level model runs under `auto`, and under any policy when a
    // machine or forced decisions are given (the ground truth compares its
    // `decided` figure with a simulator's; the other policies otherwise
    // cost what they did), for a kernel with a global load to decide or
    // measure: one that only writes has nothing the model could change
    // (issue 16: a file of many such kernels costs what clang does).
    // A kernel that reads only through device functions (`callees`) has
    // loads to decide too.
    let calls_reads =
        unit.is_kernel && (scope.callees.iter()).any(|c| scope.reaches.contains(&c.function));
    let reads = !out.report.loads.is_empty()
        || out.report.skipped.iter().any(|s| s.byte_loop)
        || calls_reads;
    let asked = set.opts.policy == Policy::Auto
        || set.opts.machine.is_some()
        || set.opts.decisions.is_some();
    if unit.is_kernel && ((asked && reads) || set.keep_traces) {
        walk.model_kernel(&mut out, scope, warnings);
    }
    // A file shorter than what the kernel reads, or of another element
    // type, leaves those values unknown without failing: said once.
    for o in walk
        .memory
        .as_ref()
        .map(|m| m.outside())
        .unwrap_or_default()
    {
        let params = unit.function.params();
        let name = params
            .get(o.index as usize)
            .map(|p| p.name())
            .filter(|n| !n.is_empty())
            .map_or(format!("index {}", o.index), |n| format!("'{n}'"));
        warnings.push(format!(
            "{}: reads through parameter {name} fall outside its kernel data {} ({} B; {} reads \
             the analysis made); those values stay unknown: check the file's length and element type",
            demangle(&symbol),
            o.path.display(),
            o.len,
            o.reads
        ));
    }
    Ok(Some(out))
}

/// Launch dimensions and argument values substituted when printing.
fn known_values(unit: &Unit, args: &HashMap<u32, i64>) -> Known {
    let mut known = Known::default();
    for a in 0..3u8 {
        known
            .sregs
            .insert(Sreg::Ntid(a), unit.block.as_array()[a as usize] as i64);
        if let Some(g) = unit.grid {
            known
                .sregs
                .insert(Sreg::Nctaid(a), g.as_array()[a as usize] as i64);
        }
    }
    known.args = args.clone();
    known
}

impl Walk<'_> {
    /// Applies the forced decisions of this function (`decisions=`): each
    /// listed site's loads take its decision, through the path the policy's
    /// take. A site the function does not have, or whose loads are all left
    /// alone, is an error.
    fn force(
        &self,
        d: &crate::decide::forced::Decisions,
        out: &mut UnitResult,
    ) -> Result<(), crate::Error> {
        let set = self.set;
        out.report.number_sites();
        let symbol = out.report.symbol.clone();
        for f in d.of(&symbol) {
            let entries: Vec<usize> = (out.report.loads.iter().enumerate())
                .filter(|(_, l)| l.site == f.site)
                .map(|(i, _)| i)
                .collect();
            if entries.is_empty() {
                let why = match out.report.skipped.iter().find(|s| s.site == f.site) {
                    Some(s) => format!(
                        "is a load gpucc-cache leaves alone ({}); remove the line",
                        s.why
                    ),
                    None => {
                        let sites: Vec<String> = out
                            .report
                            .loads
                            .iter()
                            .map(|l| l.site.to_string())
                            .collect();
                        format!(
                            "is not a load site of it; give one of its sites ({})",
                            if sites.is_empty() {
                                "none".into()
                            } else {
                                sites.join(", ")
                            }
                        )
                    }
                };
                return Err(d.error(f, format!("site {} of {} {why}", f.site, f.symbol)));
            }
            for entry in entries {
                let load = out.entry_loads[entry];
                set.set_decision(out, entry, load, f.decision, d.reason());
                out.forced.push(entry);
            }
        }
        Ok(())
    }

    /// Adds one read to `out`: skipped with a reason, or evaluated and decided.
    fn add_load(&mut self, read: &Read, key: u32, out: &mut UnitResult) {
        let set = self.set;
        let load = read.inst;
        let location = load.source_location();
        let (line, column) = location
            .as_ref()
            .map_or((0, 0), |l| (l.at.line, l.at.column));
        let file = location.as_ref().and_then(|l| l.at.file.clone());
        let inlined_at: Vec<crate::report::Position> = location
            .map(|l| l.inlined_at.into_iter().map(Into::into).collect())
            .unwrap_or_default();
        let skip = read.classify(&set.kernel_fns, set.opts.whole_program).err();
        let skip = skip.or_else(|| read.bytes.is_none().then_some(Skip::Unsized));
        if let Some(why) = skip {
            let decision = Decision::Default;
            out.keyed.push((load, Key { id: key, decision }));
            out.report.skipped.push(SkippedLoad {
                line,
                column,
                file,
                inlined_at,
                // Numbered once the function is done (`Report::number_sites`).
                site: 0,
                copies: 1,
                byte_loop: matches!(why, Skip::CopyLoop(_)),
                why: why.to_string(),
                key: Some(key),
                ptx_loads: None,
            });
            return;
        }
        let bytes = read.bytes.unwrap_or(0);
        let address = self.folder.fold(read.ptr);
        let guards = self.doms.guards(load.parent_block(), &mut self.folder);
        let (traffic, shift) = self.traffic(&address, &guards, bytes);
        let verdict = self.verdict(set.opts.policy, read, &traffic);
        let paper = [Policy::Conservative, Policy::Aggressive]
            .map(|p| self.verdict(p, read, &traffic).decision);
        let mut notes = self.address_notes(&address, &traffic, shift);
        notes.extend(self.guard_notes(&guards));
        notes.extend(self.launch_notes(&address, &guards));
        let read_only = !read.is_copy && is_read_only(load, &set.kernel_fns, set.invariant_kind);
        let op = operator_for(verdict.decision, set.arch, set.ptx, read_only);
        let guard_text = guards
            .iter()
            .map(|g| crate::spelling::guard(&g.cond, g.expect, &self.known))
            .collect();
        out.report.loads.push(LoadReport {
            in_kernel: None,
            line,
            column,
            file,
            inlined_at,
            site: 0,
            copies: 1,
            ty: if read.is_copy {
                format!("copy of {bytes} B")
            } else {
                load.ty().print()
            },
            bytes,
            pattern: self.pattern(&address),
            guards: guard_text,
            analyzable: traffic.analyzable,
            active_threads: traffic.active_threads,
            locality: traffic.locality().into_iter().map(String::from).collect(),
            traffic_on_bytes: traffic.on_bytes,
            traffic_off_bytes: traffic.off_bytes,
            decision: verdict.decision.name().into(),
            operator: operator_text(op, read_only),
            reason: verdict.reason,
            lowered: false,
            notes,
            key: Some(key),
            ptx_loads: None,
        });
        let decision = verdict.decision;
        out.keyed.push((load, Key { id: key, decision }));
        out.entry_loads.push(load);
        let entry = out.report.loads.len() - 1;
        // Only a load whose operator a decision can change is the model's
        // to choose; the rest (a read-only `.nc` load before sm_70) run in
        // the simulation as they are.
        let switchable = operator_for(Decision::Cache, set.arch, set.ptx, read_only)
            != operator_for(Decision::Bypass, set.arch, set.ptx, read_only);
        if switchable {
            out.traced.push((TracedLoad { load, entry }, paper));
        } else if let Some(l) = out.report.loads.last_mut() {
            l.notes.push(format!(
                "read-only load: {} keeps its path on {}; no decision changes it",
                l.operator, set.arch
            ));
        }
        if decision != Decision::Default && !read.is_copy {
            out.decided.push(Decided {
                load,
                op,
                kernel: 0,
                entry: out.report.loads.len() - 1,
            });
        }
    }

    /// The load's traffic over the sampled blocks, and how block-uniform
    /// unknowns entered its addresses.
    fn traffic(&mut self, address: &E, guards: &[Guard], bytes: u64) -> (Traffic, Shift) {
        let symbolic = !address.has_unknown()
            && !uniform_unknowns(address, &self.args, &self.known).is_empty();
        let mut shift = Shift::None;
        let mut samples = Vec::with_capacity(self.blocks.len());
        for b in &self.blocks {
            self.env.ctaid = *b;
            let (acc, s) =
                block_accesses(address, guards, self.unit.block, &mut self.env, symbolic);
            shift = match (shift, s) {
                (Shift::PerThread, _) | (_, Shift::PerThread) => Shift::PerThread,
                (Shift::Uniform, _) | (_, Shift::Uniform) => Shift::Uniform,
                _ => Shift::None,
            };
            samples.push(block_traffic(&acc, bytes, self.set.model));
        }
        (mean(&samples), shift)
    }

    /// The policy's verdict, unless there is no evidence (no evaluated
    /// thread executes the load) or the load reads a shared constant table.
    fn verdict(&self, policy: Policy, read: &Read, traffic: &Traffic) -> Verdict {
        let verdict = decide(policy, traffic, self.set.l1_bytes);
        if policy == Policy::Off {
            return verdict;
        }
        if traffic.active_threads == 0 {
            let n = self.blocks.len();
            return Verdict {
                decision: Decision::Default,
                reason: format!(
                    "no evaluated thread executes it (in {n} sampled block{}); left at the default",
                    if n == 1 { "" } else { "s" }
                ),
            };
        }
        if reads_constant_table(read.ptr) {
            return Verdict {
                decision: Decision::Default,
                reason: "read-only table in constant global memory, shared by all threads: kept on the cached read-only path".into(),
            };
        }
        if policy == Policy::Auto
            && verdict.decision == Decision::Bypass
            && self.no_evidence_against_l1(traffic)
        {
            return Verdict {
                decision: Decision::Default,
                reason: format!(
                    "auto without a kernel-level model: the paper's per-load rules would bypass ({}), \
                     but on {} a cached load fetches no more sectors than a bypassed one and a wrong \
                     bypass costs the whole reuse: left at the default (L1)",
                    verdict.reason, self.set.arch
                ),
            };
        }
        verdict
    }

    /// Whether the paper's per-load figures are no evidence against
    /// caching: an address it cannot compute (rule 4) or a tie that fits in
    /// L1 (rule 1), on hardware that caches plain loads in L1 by default
    /// and fills sectors, where caching a load never fetches more than
    /// bypassing it (issue 19, fact 4; CUDA C++ Programming Guide,
    /// "Compute Capability 7.x", Global Memory). These are the verdicts
    /// `auto` keeps for loads with no kernel-level model (device
    /// functions, a budget's fallback); the paper's conservative bypass
    /// there risks the full reuse factor on no evidence.
    fn no_evidence_against_l1(&self, traffic: &Traffic) -> bool {
        let hw = &self.set.hardware;
        let sectored = hw.fill == Fill::Sectors
            && self.set.model == crate::gpu::generation::Model::Sectored
            && hw.global_loads == GlobalLoads::L1ByDefault;
        let tie = traffic.analyzable
            && traffic.on_bytes == traffic.off_bytes
            && traffic.on_bytes <= self.set.l1_bytes;
        sectored && (!traffic.analyzable || tie)
    }

    /// Why the address is unknown, or what its analysis assumed.
    fn address_notes(&self, address: &E, traffic: &Traffic, shift: Shift) -> Vec<String> {
        let missing: Vec<String> = address
            .args()
            .into_iter()
            .filter(|(i, _)| !self.args.contains_key(i))
            .map(|(i, n)| arg_label(i, &n))
            .collect();
        let uniforms = uniform_unknowns(address, &self.args, &self.known);
        let mut notes = Vec::new();
        if let Some(why) = address.unknown_reason() {
            notes.push(format!("address unknown: {why}"));
        } else if shift == Shift::PerThread && !missing.is_empty() {
            notes.push(format!(
                "address varies per thread with kernel argument {}, not given; give --kernel-arg={}=VALUE",
                missing.join(", "),
                missing[0]
            ));
        } else if shift == Shift::PerThread {
            notes.push(format!(
                "address unknown: varies per thread with {}, read from memory",
                uniforms.join(", ")
            ));
        } else if shift == Shift::Uniform {
            // The stand-ins put the footprint at a 256-byte boundary.
            notes.push(format!(
                "block-uniform {} only shift{} the block's addresses: traffic computed as if the shift keeps 256-byte alignment{}",
                uniforms.join(", "),
                if uniforms.len() == 1 { "s" } else { "" },
                if missing.is_empty() {
                    String::new()
                } else {
                    format!(" (give --kernel-arg={}=VALUE for the exact figure)", missing[0])
                }
            ));
        } else if !traffic.analyzable && self.unit.grid.is_none() && reads_grid(address) {
            notes.push(
                "address reads gridDim; give --grid-dim (pass parameter grid=) to analyze it"
                    .into(),
            );
        }
        notes
    }

    fn guard_notes(&self, guards: &[Guard]) -> Vec<String> {
        let mut notes = Vec::new();
        for g in guards {
            let gm: Vec<String> = g
                .cond
                .args()
                .into_iter()
                .filter(|(i, _)| !self.args.contains_key(i))
                .map(|(i, n)| arg_label(i, &n))
                .collect();
            if !gm.is_empty() {
                notes.push(format!(
                    "guard needs kernel argument {}; all threads assumed to execute",
                    gm.join(", ")
                ));
            }
        }
        notes
    }

    /// Where the host launches' argument values the load reads came from,
    /// or why they give none.
    fn launch_notes(&self, address: &E, guards: &[Guard]) -> Vec<String> {
        let mut read = address.args();
        read.extend(guards.iter().flat_map(|g| g.cond.args()));
        read.sort_unstable();
        read.dedup_by_key(|(i, _)| *i);
        (read.iter())
            .filter_map(|(i, n)| Some(self.launch_facts.get(i)?.note(&arg_label(*i, n))))
            .collect()
    }

    fn pattern(&self, address: &E) -> String {
        let pattern = if matches!(&**address, Expr::Unknown(_) | Expr::Loaded { .. }) {
            "?".to_string()
        } else {
            render(address, &self.known)
        };
        if pattern.chars().count() > MAX_PATTERN {
            pattern.chars().take(MAX_PATTERN - 3).collect::<String>() + "..."
        } else {
            pattern
        }
    }
}

/// Whether PTX text (an inline asm template) fences beyond the block:
/// `membar.gl`, `membar.sys`, or a `fence` whose scope is not `.cta` (PTX
/// ISA, `membar`/`fence`).
impl Setting<'_> {
    /// Where plain global loads do not allocate in L1 by default (sm_5x,
    /// sm_61/62: `GlobalLoads::OptIn`, `L2Only`), a function that fences at
    /// device or system scope (`__threadfence()`, `membar.gl`/`.sys`, an IR
    /// `fence`), itself or in what it calls, may read what other blocks
    /// wrote before it, and so may every function that a kernel fencing so
    /// calls (it may run after the fence), and, under separate compilation,
    /// every function another translation unit can call (`fences::fenced`;
    /// `why` says which).
    /// L1 is not coherent for global data (PTX ISA, cache
    /// operators), so a `.ca` written for a cached decision could serve a
    /// line this SM read earlier, stale, where the part's default (L2
    /// only) would not. Its loads decided "cache" are left as clang wrote
    /// them. PTX allows the stale read either way (a plain `ld` is `.ca`);
    /// code like CUDA's last-block reductions relies on the default, and
    /// when soundness is in doubt the driver assumes the worst.
    fn keep_fenced_loads_plain(&self, why: &str, out: &mut UnitResult) {
        if self.hardware.global_loads == crate::gpu::hardware::GlobalLoads::L1ByDefault {
            return;
        }
        let cached: Vec<usize> = (out.report.loads.iter().enumerate())
            // A decision the user forced (`--decisions`) is theirs.
            .filter(|(i, l)| l.decision == Decision::Cache.name() && !out.forced.contains(i))
            .map(|(i, _)| i)
            .collect();
        for entry in cached {
            let Some(&load) = out.entry_loads.get(entry) else {
                continue;
            };
            let reason = format!(
                "{why}: its loads may read what other blocks wrote, and {}'s L1 is not coherent; left as clang wrote it (L2 only by default) instead of cached ({})",
                self.arch,
                out.report.loads[entry].reason
            );
            self.set_decision(out, entry, load, Decision::Default, reason);
        }
    }

    /// Gives report entry `entry` (the load `load`) `decision` with
    /// `reason`: its operator, key and lowering plan, as the policy's
    /// decisions get them in `add_load`. `auto`'s model and forced
    /// decisions both come through here, so the PTX is what a policy with
    /// those decisions writes.
    fn set_decision(
        &self,
        out: &mut UnitResult,
        entry: usize,
        load: Value,
        decision: Decision,
        reason: String,
    ) {
        let copy = Read::of(load, &self.layout).is_some_and(|r| r.is_copy);
        let read_only = !copy && is_read_only(load, &self.kernel_fns, self.invariant_kind);
        let op = operator_for(decision, self.arch, self.ptx, read_only);
        let report = &mut out.report.loads[entry];
        report.decision = decision.name().into();
        report.operator = operator_text(op, read_only);
        report.reason = reason;
        for (v, key) in out.keyed.iter_mut() {
            if *v == load {
                key.decision = decision;
            }
        }
        match out.decided.iter_mut().find(|d| d.load == load) {
            Some(d) => d.op = op,
            None if !copy && decision != Decision::Default => out.decided.push(Decided {
                load,
                op,
                kernel: 0,
                entry,
            }),
            None => {}
        }
    }
}
