//! The analysis proper: for every global load of every kernel (and of every
//! device function that was not inlined), fold its address, find its
//! guards, evaluate it for each thread of the sampled blocks, estimate its
//! traffic and apply the policy.
//!
//! The result is a `Report` (what the user reads) plus the list of decided
//! loads with their IR handles (what annotate consumes). Nothing here
//! changes the module.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::decide::callees::{combine, CalleeLoad, Caller, Combined, Proposal};
use crate::decide::policy::{decide, Decision, Policy, Verdict};
use crate::emit::keys::Key;
use crate::facts::address::{render, uniform_unknowns, Context, Expr, Folder, Known, Sreg, E};
use crate::facts::evaluate::{block_accesses, sample_blocks, Env, Shift};
use crate::facts::global_loads::{is_read_only, reads_constant_table, Read, Skip};
use crate::facts::guards::{Dominators, Guard};
use crate::facts::kernels::{
    demangle, find, names_kernel, nearest, source_name, BlockSource, Kernel,
};
use crate::facts::memory::Memory;
use crate::facts::traffic::{block_traffic, mean, Traffic};
use crate::gpu::generation::{Arch, AsmOp, CacheOp};
use crate::gpu::hardware::{Fill, GlobalLoads, Hardware};
use crate::llvm::ir::{Module, Opcode, Value};
use crate::model::kernel_trace::Scope;
use crate::model::kernel_trace::TracedLoad;
use crate::model::sm_model::{simulate, KernelInputs, ModuleBudget, NoModel, DEFAULT_MODEL_BUDGET};
use crate::model::trace::Trace;
use crate::options::{ArgRef, Dim3, Options, ShapeOrigin};
use crate::report::{KernelReport, LoadReport, MachineReport, Report, SkippedLoad};

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

/// What the file's host launches say about one integer parameter of a
/// kernel the user gave no value for.
#[derive(Clone, Debug, PartialEq, Eq)]
enum LaunchFact {
    /// Every launch passes this constant; the lines of the launches.
    Agreed { value: i64, lines: Vec<u32> },
    /// The launches pass different constants.
    Differ { lines: Vec<u32> },
    /// These launches pass a value that is not a constant.
    NotConstant { lines: Vec<u32> },
}

impl LaunchFact {
    /// The report's note on a load whose address or guards read the
    /// parameter `name`.
    fn note(&self, name: &str) -> String {
        let at = |lines: &[u32]| {
            let list: Vec<String> = lines.iter().map(u32::to_string).collect();
            match list.as_slice() {
                [one] => format!("the host launch at line {one}"),
                _ => format!("the host launches at lines {}", list.join(", ")),
            }
        };
        match self {
            LaunchFact::Agreed { value, lines } => {
                format!("kernel argument {name} = {value} from {}", at(lines))
            }
            LaunchFact::Differ { lines } => {
                let list: Vec<String> = lines.iter().map(u32::to_string).collect();
                format!(
                    "kernel argument {name} differs between host launches (lines {}); give --kernel-arg={name}=VALUE",
                    list.join(", ")
                )
            }
            LaunchFact::NotConstant { lines } => format!(
                "kernel argument {name} is not a constant at {}; give --kernel-arg={name}=VALUE",
                at(lines)
            ),
        }
    }
}

/// Whether `value` is one a `bits`-bit integer holds, read as signed or as
/// unsigned.
fn fits(value: i64, bits: u32) -> bool {
    if bits >= 64 {
        return true;
    }
    let low = -(1i128 << (bits - 1));
    let high = (1i128 << bits) - 1;
    (low..=high).contains(&i128::from(value))
}

/// Values of one function's integer arguments, by parameter index: the
/// user's (`kernel_args`) first; for a kernel, else the constant every host
/// launch of it passes (`launch_args`). Also, per parameter the launches
/// speak of and the user did not give, what they say. Only integer
/// parameters take a launch's value: a pointer's is an address on another
/// device, of no use to the model.
fn argument_values(
    function: Value,
    is_kernel: bool,
    opts: &Options,
) -> (HashMap<u32, i64>, HashMap<u32, LaunchFact>) {
    let params = function.params();
    let mut out = HashMap::new();
    for (key, value) in &opts.kernel_args {
        let index = match key {
            ArgRef::Index(i) => Some(*i),
            ArgRef::Name(n) => params.iter().position(|p| p.name() == *n).map(|i| i as u32),
        };
        if let Some(i) = index.filter(|&i| (i as usize) < params.len()) {
            out.insert(i, *value);
        }
    }
    let mut facts = HashMap::new();
    if !is_kernel {
        return (out, facts);
    }
    let symbol = function.name();
    let mine: Vec<_> = (opts.launch_args.iter())
        .filter(|a| names_kernel(&symbol, &a.kernel))
        .collect();
    for (i, p) in params.iter().enumerate() {
        let i = i as u32;
        if out.contains_key(&i) || !p.ty().is_int() {
            continue;
        }
        let at: Vec<_> = mine.iter().filter(|a| a.index == i).collect();
        let lines = |pick: &dyn Fn(Option<i64>) -> bool| {
            let mut l: Vec<u32> = (at.iter())
                .filter(|a| pick(a.value))
                .map(|a| a.line)
                .collect();
            l.sort_unstable();
            l.dedup();
            l
        };
        let Some(first) = at.first() else { continue };
        let fact = if at.iter().any(|a| a.value.is_none()) {
            LaunchFact::NotConstant {
                lines: lines(&|v| v.is_none()),
            }
        } else if at.iter().all(|a| a.value == first.value) {
            let value = first.value.unwrap_or_default();
            out.insert(i, value);
            LaunchFact::Agreed {
                value,
                lines: lines(&|_| true),
            }
        } else {
            LaunchFact::Differ {
                lines: lines(&|_| true),
            }
        };
        facts.insert(i, fact);
    }
    (out, facts)
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
    let mut reached_by: HashMap<Value, usize> = HashMap::new();
    for k in &kernels {
        for f in reachable(k.function) {
            *reached_by.entry(f).or_default() += 1;
        }
    }
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
            &mut unit_warnings,
        );
    }
    for (i, (unit, done)) in units.iter().zip(results).enumerate() {
        warnings.append(&mut unit_warnings[i]);
        let Some(mut done) = done else {
            continue;
        };
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

/// Warnings about the module as a whole: no kernels, argument names that
/// match nothing, launch bounds beyond CUDA's limits.
fn module_warnings(set: &Setting, kernels: &[Kernel], warnings: &mut Vec<String>) {
    if kernels.is_empty() {
        warnings.push(
            "no kernels in the module (no \"kernel\" annotation or ptx_kernel calling convention)"
                .into(),
        );
    }
    // An argument value no kernel can use is said, not silently dropped:
    // only integer parameters take one (pointers get stand-in bases).
    let integer = |p: &Value| p.ty().is_int();
    for (key, value) in &set.opts.kernel_args {
        let params = || set.kernel_fns.iter().flat_map(|k| k.params());
        // A value the parameter's type cannot hold is said too: the kernel
        // could never see it, and the model would read it wrapped.
        let given: Vec<Value> = match key {
            ArgRef::Name(n) => params().filter(|p| p.name() == *n).collect(),
            ArgRef::Index(i) => (set.kernel_fns.iter())
                .filter_map(|k| k.params().get(*i as usize).copied())
                .collect(),
        };
        if let Some(bits) = (given.iter().filter(|p| integer(p)))
            .map(|p| p.ty().int_width())
            .find(|&w| !fits(*value, w))
        {
            let name = match key {
                ArgRef::Name(n) => format!("'{n}'"),
                ArgRef::Index(i) => format!("index {i}"),
            };
            warnings.push(format!(
                "kernel argument {name} = {value} does not fit its {bits}-bit integer parameter; the model \
                 reads it wrapped to {bits} bits (give a value the parameter can hold)"
            ));
        }
        match key {
            ArgRef::Name(n) => {
                let named: Vec<Value> = params().filter(|p| p.name() == *n).collect();
                if named.is_empty() {
                    let names: Vec<String> = params().map(|p| p.name()).collect();
                    let hint = nearest(
                        n,
                        names.iter().map(String::as_str).filter(|s| !s.is_empty()),
                    )
                    .map_or(String::new(), |p| format!("; did you mean '{p}'?"));
                    warnings.push(format!(
                        "kernel argument '{n}' matches no kernel parameter name (names need a .cu input or \
                         -fno-discard-value-names; or give the index instead){hint}"
                    ));
                } else if !named.iter().any(integer) {
                    warnings.push(format!(
                        "kernel argument '{n}' names no integer parameter; its value is ignored \
                         (only integer arguments take --kernel-arg values)"
                    ));
                }
            }
            ArgRef::Index(i) => {
                let at: Vec<Value> = (set.kernel_fns.iter())
                    .filter_map(|k| k.params().get(*i as usize).copied())
                    .collect();
                if at.is_empty() {
                    warnings.push(format!(
                        "kernel argument index {i} is past every kernel's parameters; its value is ignored \
                         (indices count from 0)"
                    ));
                } else if !at.iter().any(integer) {
                    warnings.push(format!(
                        "kernel argument index {i} is no integer parameter; its value is ignored \
                         (only integer arguments take --kernel-arg values)"
                    ));
                }
            }
        }
    }
    // A shape for a kernel the module does not have is said, with the
    // nearest kernel name; the driver's own host-launch shapes name kernels
    // of the whole file, also those another pass or arch dropped.
    let symbols: Vec<String> = set.kernel_fns.iter().map(|k| k.name()).collect();
    let sources: Vec<String> = symbols.iter().map(|s| source_name(s)).collect();
    let shapes = [
        ("--block-dim", &set.opts.kernel_blocks),
        ("--grid-dim", &set.opts.kernel_grids),
    ];
    for (flag, list) in shapes {
        for k in list.iter().filter(|k| k.origin == ShapeOrigin::User) {
            if symbols.iter().any(|s| names_kernel(s, &k.kernel)) {
                continue;
            }
            let hint = match nearest(&k.kernel, sources.iter().map(String::as_str)) {
                Some(n) => format!("did you mean '{n}'?"),
                None => "the module has no kernels".into(),
            };
            warnings.push(format!(
                "{flag}={}={}: no kernel named '{}'; ignored ({hint})",
                k.kernel, k.dim, k.kernel
            ));
        }
    }
    // A register count for no kernel of the module is the user's typo (the
    // driver gives counts only for the kernels ptxas compiled from it).
    for r in &set.opts.kernel_registers {
        if symbols.iter().any(|s| names_kernel(s, &r.kernel)) {
            continue;
        }
        let hint = match nearest(&r.kernel, sources.iter().map(String::as_str)) {
            Some(n) => format!("did you mean '{n}'?"),
            None => "the module has no kernels".into(),
        };
        warnings.push(format!(
            "registers={}={}: no kernel named '{}'; ignored ({hint})",
            r.kernel, r.count, r.kernel
        ));
    }
    for d in &set.opts.kernel_data {
        let pointer = |p: &Value| p.ty().is_pointer();
        let binds = set.kernel_fns.iter().any(|k| {
            let params = k.params();
            match &d.arg {
                ArgRef::Name(n) => params.iter().any(|p| p.name() == *n && pointer(p)),
                ArgRef::Index(i) => params.get(*i as usize).is_some_and(pointer),
            }
        });
        if !binds {
            warnings.push(format!(
                "kernel data {} binds no pointer parameter of any kernel; ignored (name a pointer \
                 parameter, or give its index)",
                d.path.display()
            ));
        }
    }
    for k in kernels {
        if let Some(d) = k.reqntid.or(k.maxntid).filter(|d| !d.is_valid_block()) {
            warnings.push(format!(
                "{}: launch bounds {d} exceed CUDA's 1024 threads per block; ignored",
                demangle(&k.function.name())
            ));
        }
    }
}

/// What evaluating one function's loads needs: its folder, dominators,
/// sampled blocks and the values known for printing.
struct Walk<'s> {
    set: &'s Setting<'s>,
    unit: &'s Unit,
    args: HashMap<u32, i64>,
    /// What the host launches say of the parameters the user gave no value.
    launch_facts: HashMap<u32, LaunchFact>,
    /// Data the user bound to this kernel's pointer arguments.
    memory: Option<Rc<Memory>>,
    known: Known,
    folder: Folder<'s>,
    doms: Dominators,
    blocks: Vec<[i64; 3]>,
    env: Env,
}

/// What a kernel's model shares with the module: the budget, the loads of
/// device functions it may follow into, and its verdicts on those.
struct ModelScope<'m> {
    budget: &'m mut ModuleBudget,
    callees: &'m [CalleeLoad],
    /// Device functions that more than one kernel reaches.
    shared: &'m HashSet<Value>,
    /// The unit of the kernel being modelled.
    unit: usize,
    /// (index in `callees`, kernel unit, verdict)
    proposals: &'m mut Vec<(usize, usize, Proposal)>,
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
    let (args, launch_facts) = argument_values(unit.function, unit.is_kernel, set.opts);
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
                None => unit.source.name(),
                Some((kernel, true)) => format!("{}, of its caller {kernel}", unit.source.name()),
                Some((kernel, false)) => format!(
                    "{}, of kernel {kernel}, which does not call it directly",
                    unit.source.name()
                ),
            },
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
    let calls_reads = unit.is_kernel && {
        let reached = reachable(unit.function);
        scope.callees.iter().any(|c| reached.contains(&c.function))
    };
    let reads = !out.report.loads.is_empty()
        || out.report.skipped.iter().any(|s| s.byte_loop)
        || calls_reads;
    let asked = set.opts.policy == Policy::Auto
        || set.opts.machine.is_some()
        || set.opts.decisions.is_some();
    if unit.is_kernel && ((asked && reads) || set.keep_traces) {
        walk.model_kernel(&mut out, scope, warnings);
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
    /// Runs the kernel-level model (`sm_model`) and puts its figures in the
    /// report; under `auto`, its choices replace the per-load verdicts of
    /// the loads those gave one (a load left at the default stays there).
    fn model_kernel(&self, out: &mut UnitResult, scope: ModelScope, warnings: &mut Vec<String>) {
        let ModelScope {
            budget,
            callees,
            shared,
            unit,
            proposals,
        } = scope;
        let set = self.set;
        let grant = match budget.grant() {
            Ok(g) => g,
            Err(hit) => {
                out.report.budget.push(hit);
                return;
            }
        };
        // Launches that give two pointer parameters one allocation, or one
        // a place inside it, break what every figure of the model assumes;
        // read once, which claims that nothing else reads a load's lines,
        // is not claimed for loads through those parameters.
        let symbol = self.unit.function.name();
        let overlaps: Vec<_> = (set.opts.launch_overlaps.iter())
            .filter(|o| names_kernel(&symbol, &o.kernel))
            .collect();
        let mut sites: Vec<(Option<&str>, u32)> = overlaps
            .iter()
            .map(|o| (o.file.as_deref(), o.line))
            .collect();
        sites.sort_unstable();
        sites.dedup();
        for (file, line) in sites {
            // Each reason once (an unrolled launch repeats them), in order.
            let mut why: Vec<&str> = Vec::new();
            for o in overlaps
                .iter()
                .filter(|o| (o.file.as_deref(), o.line) == (file, line))
            {
                if !why.contains(&o.why.as_str()) {
                    why.push(&o.why);
                }
            }
            let launch = match (file, line) {
                (_, 0) => "a launch (no line: the host code has no line tables)".to_string(),
                (Some(f), l) => format!("the launch at {f}:{l}"),
                (None, l) => format!("the launch at line {l}"),
            };
            warnings.push(format!(
                "{}: {launch} passes pointers the model cannot tell apart ({}); it assumes \
                 distinct allocations, each 256-byte aligned, so no load through them is read \
                 once and its figures may be off",
                out.report.name,
                why.join("; ")
            ));
        }
        let mut overlapping: Vec<u32> = overlaps.iter().flat_map(|o| o.params.clone()).collect();
        overlapping.sort_unstable();
        overlapping.dedup();
        // The loads of device functions the trace may follow into, as
        // entries after the kernel's own (`decide::callees`).
        let own = out.report.loads.len();
        let auto = set.opts.policy == Policy::Auto;
        let mut traced = out.traced.clone();
        let mut emitted = emitted_decisions(out, auto);
        for (k, c) in callees.iter().enumerate() {
            traced.push((
                TracedLoad {
                    load: c.load,
                    entry: own + k,
                },
                c.paper,
            ));
            if let Some(d) = c.emitted {
                emitted.insert(own + k, d);
            }
        }
        let inputs = KernelInputs {
            function: self.unit.function,
            overlapping_params: overlapping,
            scope: Scope {
                layout: &set.layout,
                globals: &set.globals,
                kernels: &set.kernel_fns,
                whole_program: set.opts.whole_program,
            },
            arch: set.arch,
            hardware: &set.hardware,
            machine: set.opts.machine.is_some(),
            bypass: set.arch.bypass_op(set.ptx),
            model: set.model,
            emitted,
            auto,
            block: self.unit.block,
            grid: self.unit.grid,
            args: self.args.clone(),
            memory: self.memory.clone(),
            loads: &traced,
            static_shared_bytes: static_shared_bytes(self.unit.function, &set.layout),
            registers: set.opts.registers_of(&self.unit.function.name()),
            grant,
            weigh_flips: (callees.iter().enumerate())
                .filter(|(_, c)| shared.contains(&c.function))
                .map(|(k, _)| own + k)
                .collect(),
        };
        let result = match simulate(&inputs) {
            Ok(r) => r,
            Err(NoModel::Error(e)) => {
                warnings.push(format!("{}: no kernel-level model: {e}", out.report.name));
                return;
            }
            Err(NoModel::Budget(hit)) => {
                out.report.budget.push(hit);
                return;
            }
        };
        budget.charge(result.spent);
        out.report.budget.extend(result.budget);
        out.followed = result.followed;
        out.unfollowed = result.unfollowed;
        let robust = result.simulated.robust.as_ref().map(|r| r.scenarios.len());
        out.report.simulated = Some(result.simulated);
        if set.keep_traces {
            out.trace = Some(result.trace);
        }
        // In report order: a load the per-load verdict left at the default
        // joins `decided` here, and the remarks follow that order.
        let mut loads: Vec<_> = result.loads.into_iter().collect();
        loads.sort_unstable_by_key(|(entry, _)| *entry);
        for (entry, (model, cache)) in loads {
            if entry >= own {
                let reason = model_reason(model.read_once, robust, cache);
                let flip = result.flips.get(&entry).map(|f| (f.chosen, f.flipped));
                proposals.push((
                    entry - own,
                    unit,
                    Proposal {
                        kernel: out.report.name.clone(),
                        cache,
                        model,
                        reason,
                        flip,
                    },
                ));
                continue;
            }
            if let Some(span) = model.unknown_within {
                out.report.loads[entry].notes.push(format!(
                    "address unknown but within a {span}-byte range; modelled as spread uniformly over it"
                ));
            }
            let model_read_once = model.read_once;
            if let Some(site) = &model.merged_into {
                out.report.loads[entry].notes.push(format!(
                    "merged by the backend into one vector load with the load at {site}: its traffic is counted there, and it takes that load's decision"
                ));
            }
            out.report.loads[entry].in_kernel = Some(model);
            // Under auto the model's choice stands for every load it saw
            // executed (`result.loads` holds only those), also where the
            // paper's sampled block ran no thread of the load; a forced
            // decision stands over it.
            if !auto || out.forced.contains(&entry) {
                continue;
            }
            let decision = if cache {
                Decision::Cache
            } else {
                Decision::Bypass
            };
            let Some(load) = (out.traced.iter())
                .find(|t| t.0.entry == entry)
                .map(|t| t.0.load)
            else {
                continue;
            };
            let reason = model_reason(model_read_once, robust, cache);
            set.set_decision(out, entry, load, decision, reason);
        }
    }

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
        let pattern = if matches!(&**address, Expr::Unknown(_)) {
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

/// Bytes of the `__shared__` variables `function` uses (directly or
/// through constant expressions): its static shared memory.
fn static_shared_bytes(function: Value, layout: &crate::llvm::ir::DataLayout) -> u64 {
    let module = function.module();
    let uses = |v: Value| {
        v.users().into_iter().any(|u| {
            if u.is_instruction() {
                u.parent_function() == function
            } else {
                u.users()
                    .into_iter()
                    .any(|w| w.is_instruction() && w.parent_function() == function)
            }
        })
    };
    module
        .globals()
        .into_iter()
        .filter(|g| g.ty().address_space() == 3 && !g.is_declaration() && uses(*g))
        .map(|g| layout.alloc_size(g.global_value_type()))
        .sum()
}

impl Setting<'_> {
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

/// Why the kernel-level model decided a load as it did (`cache`), as the
/// report says it; `robust`: over how many scenarios, if it weighed them.
fn model_reason(read_once: bool, robust: Option<usize>, cache: bool) -> String {
    let decision = if cache {
        Decision::Cache
    } else {
        Decision::Bypass
    };
    match robust {
        _ if read_once => "auto: bypass: no other access of the kernel's trace reads \
            its lines (no other load, warp or iteration), so caching it cannot hit under any \
            warp order or L1 size; bypassing keeps them out of L1"
            .to_string(),
        Some(n) => format!(
            "auto: {} in the assignment with the least worst-case regret in simulated \
             L2->L1 traffic over {n} hardware scenarios",
            decision.name()
        ),
        None => format!(
            "auto: {} gives the least simulated L2->L1 traffic for the kernel",
            decision.name()
        ),
    }
}

/// The functions defined in the module that `f` reaches through direct
/// calls (those a kernel's trace may follow: `model::control`).
fn reachable(f: Value) -> HashSet<Value> {
    let mut seen = HashSet::new();
    let mut work = vec![f];
    while let Some(g) = work.pop() {
        for call in g.instructions() {
            if call.opcode() != Some(Opcode::LLVMCall) {
                continue;
            }
            let callee = call.called_value();
            if callee.is_function() && !callee.is_declaration() && seen.insert(callee) {
                work.push(callee);
            }
        }
    }
    seen
}

/// Under `auto`, gives each device-function load the verdict the models of
/// the kernels that call its function come to (`decide::callees`), or says
/// why it keeps its per-load verdict. Then a kernel whose `decided` figure
/// assumed another verdict for such a load is corrected (by its price of
/// that one flip) or warned about.
fn decide_callees(
    set: &Setting,
    units: &[Unit],
    results: &mut [Option<UnitResult>],
    callees: &[CalleeLoad],
    proposals: &[(usize, usize, Proposal)],
    warnings: &mut [Vec<String>],
) {
    // Each analysed kernel with what it reaches, what its model followed,
    // and the functions some call of its leaves a call.
    struct Reach<'r> {
        unit: usize,
        caller: Caller,
        reaches: HashSet<Value>,
        followed: &'r [Value],
        unfollowed: &'r [Value],
    }
    let kernels: Vec<Reach> = (units.iter().zip(results.iter()).enumerate())
        .filter(|(_, (u, _))| u.is_kernel)
        .filter_map(|(unit, (u, r))| {
            let r = r.as_ref()?;
            let whole = (r.report.simulated.as_ref()).is_some_and(|s| s.truncated.is_none())
                && r.report.budget.is_empty();
            Some(Reach {
                unit,
                caller: Caller {
                    kernel: r.report.name.clone(),
                    followed: false,
                    whole,
                },
                reaches: reachable(u.function),
                followed: &r.followed,
                unfollowed: &r.unfollowed,
            })
        })
        .collect();
    // Whether a kernel follows every call into `f`: it spliced `f` in, and
    // no call it left a call leads to `f`.
    let follows_all = |k: &Reach, f: Value| {
        k.followed.contains(&f)
            && !(k.unfollowed.iter()).any(|&g| g == f || reachable(g).contains(&f))
    };
    let callers_of: Vec<Vec<(usize, Caller)>> = (callees.iter())
        .map(|c| {
            (kernels.iter())
                .filter(|k| k.reaches.contains(&c.function))
                .map(|k| {
                    let caller = Caller {
                        followed: follows_all(k, c.function),
                        ..k.caller.clone()
                    };
                    (k.unit, caller)
                })
                .collect()
        })
        .collect();
    drop(kernels);
    // The verdict each callee load is emitted with, where not forced.
    let mut emitted: HashMap<usize, bool> = HashMap::new();
    let allocates = set.hardware.global_loads == GlobalLoads::L1ByDefault;
    for (k, c) in callees.iter().enumerate() {
        let Some(out) = results[c.unit].as_mut() else {
            continue;
        };
        if out.forced.contains(&c.entry) {
            continue;
        }
        let callers: Vec<Caller> = callers_of[k].iter().map(|(_, c)| c.clone()).collect();
        // Only a kernel that follows every call into the function speaks
        // for the load.
        let mine: Vec<Proposal> = (proposals.iter())
            .filter(|(i, unit, _)| {
                *i == k && callers_of[k].iter().any(|(u, c)| u == unit && c.followed)
            })
            .map(|(_, _, p)| p.clone())
            .collect();
        let external = !set.opts.whole_program && !c.function.has_local_linkage();
        match combine(&callers, &mine, external) {
            None => {}
            Some(Combined::Kept(why)) => out.report.loads[c.entry].notes.push(why),
            Some(Combined::Unexecuted(why)) => {
                set.set_decision(out, c.entry, c.load, Decision::Default, why)
            }
            Some(Combined::Agreed {
                cache,
                reason,
                model,
            }) => {
                let report = &mut out.report.loads[c.entry];
                if let Some(span) = model.unknown_within {
                    report.notes.push(format!(
                        "address unknown but within a {span}-byte range; modelled as spread uniformly over it"
                    ));
                }
                if let Some(site) = &model.merged_into {
                    report.notes.push(format!(
                        "merged by the backend into one vector load with the load at {site}: its traffic is counted there, and it takes that load's decision"
                    ));
                }
                report.in_kernel = Some(*model);
                let decision = if cache {
                    Decision::Cache
                } else {
                    Decision::Bypass
                };
                set.set_decision(out, c.entry, c.load, decision, reason);
            }
        }
        let decision = match out.report.loads[c.entry].decision.as_str() {
            "cache" => true,
            "bypass" => false,
            _ => allocates,
        };
        emitted.insert(k, decision);
    }
    // Kernels whose `decided` figure assumed their own choice for a callee
    // load that is emitted otherwise.
    for (unit, result) in results.iter_mut().enumerate() {
        let Some(out) = result.as_mut() else {
            continue;
        };
        let differ: Vec<&(usize, usize, Proposal)> = (proposals.iter())
            .filter(|(k, u, p)| *u == unit && emitted.get(k).is_some_and(|&e| e != p.cache))
            .collect();
        let Some(simulated) = out.report.simulated.as_mut() else {
            continue;
        };
        match differ.as_slice() {
            [] => {}
            [(_, _, p)] if p.flip.is_some() => {
                simulated.traffic_bytes.decided = p.flip.map_or(0, |f| f.1);
            }
            _ => warnings[unit].push(format!(
                "{}: its 'decided' L2->L1 bytes assume its own verdicts on {} device-function \
                 load{} that the module emits otherwise (other kernels calling the same function \
                 weighed in)",
                out.report.name,
                differ.len(),
                if differ.len() == 1 { "" } else { "s" }
            )),
        }
    }
}

/// The decisions the build emits that the model cannot change: forced
/// ones, and under a policy other than `auto` every load's, by report
/// entry. Under `auto` the model's choices fill in the rest.
fn emitted_decisions(out: &UnitResult, auto: bool) -> HashMap<usize, Decision> {
    let decision = |load: Value| {
        (out.keyed.iter())
            .find(|(v, _)| *v == load)
            .map_or(Decision::Default, |(_, k)| k.decision)
    };
    (out.entry_loads.iter().enumerate())
        .filter(|(i, _)| !auto || out.forced.contains(i))
        .map(|(i, &load)| (i, decision(load)))
        .collect()
}
