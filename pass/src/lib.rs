//! gpucc-cache: per-load L1 cache decisions for NVPTX modules.
//!
//! The pipeline (design.md §2, §6), one folder per stage: `llvm` (the only
//! door to LLVM's C API and C++ plugin interface) → `facts` (kernels, global
//! loads, addresses, guards, per-thread evaluation, the paper's traffic) →
//! `gpu` (per-generation spelling, the hardware table, machine files,
//! occupancy) → `model` (the whole-kernel trace, the L1 simulation, locality
//! curves) → `decide` (the paper's rules, `auto`, forced decisions) → `emit`
//! (metadata, lowering, keys, PTX). `analysis` gathers the stages,
//! `options` parses what users ask for, `report` and `spelling` are where
//! results become text.
//!
//! The driver and the plugin both call [`run`]: there is one implementation.

pub mod analysis;
pub mod decide;
pub mod emit;
pub mod error;
pub mod facts;
pub mod files;
pub mod gpu;
pub mod llvm;
pub mod model;
pub mod options;
pub mod report;
pub mod spelling;

pub use error::Error;
pub use options::{Lowering, Options, ReportFormat};
pub use report::Report;

use decide::policy::Policy;
use emit::{annotate, lower};
use facts::kernels;
use llvm::{ir, plugin};

/// Which part of the pipeline to run (the pipeline element names of the plugin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `gpucc-cache`: vectorize loads as the backend would, analyse,
    /// annotate, lower.
    Full,
    /// `gpucc-cache-annotate`: analyse and attach metadata only.
    Annotate,
    /// `gpucc-cache-lower`: lower loads that already carry `!gpucc.cache`.
    Lower,
    /// `print<gpucc-cache>`: analyse and print the report; change nothing.
    Print,
}

pub struct Outcome {
    pub changed: bool,
    /// The analysis report (absent for `Lower`).
    pub report: Option<Report>,
}

/// Whether a target triple is one gpucc-cache works on.
pub fn is_nvptx(triple: &str) -> bool {
    triple.starts_with("nvptx")
}

/// Runs `mode` on the module with `opts`. Writes the report where
/// `opts.report`/`opts.report_file` say (the driver sets `ReportFormat::None`
/// and prints the returned report itself).
pub fn run(module: ir::Module, mode: Mode, opts: &Options) -> Result<Outcome, Error> {
    let triple = module.triple();
    if !is_nvptx(&triple) {
        return Err(Error::WrongTarget { triple });
    }
    analysis::check_arch(module, opts)?;
    let mut changed = false;
    if mode != Mode::Print {
        // An explicit pipeline's result is final: the optimizer-last hook
        // skips a module that carries this record (`plugin`).
        changed |= annotate::mark_processed(module);
    }
    if mode == Mode::Lower {
        let kernels: Vec<ir::Value> = kernels::find(module).iter().map(|k| k.function).collect();
        let plan = lower::annotated_plan(module, &kernels, opts.whole_program);
        return Ok(Outcome {
            changed: !lower::lower(module, &plan).is_empty() || changed,
            report: None,
        });
    }
    // Forced decisions are emitted under `off` too: the rest stay plain.
    let transform = matches!(mode, Mode::Full | Mode::Annotate)
        && (opts.policy != Policy::Off || opts.decisions.is_some());
    let keys = mode == Mode::Full && opts.lowering == Lowering::Keys;
    if mode == Mode::Full && transform && !keys {
        // The backend merges adjacent loads into v2/v4 loads; inline asm would
        // hide them from it, so merge first, with the target's cost model.
        let arch = analysis::resolve_arch(module, opts, &mut Vec::new());
        if ir::run_passes(module, "function(load-store-vectorizer)", &arch.to_string()).is_ok() {
            changed = true;
        }
    }
    let mut analysis = analysis::analyze(module, opts)?;
    analysis.report.number_sites();
    // Where each decided load is, for its remark: the keys move the loads'
    // locations and the lowering erases the loads it rewrites.
    let remark_sites = if transform {
        plugin::remark_sites(&analysis)
    } else {
        Vec::new()
    };
    if keys {
        // Every load stays as it is; only debug locations move.
        lower::write_keys(module, &analysis.keyed)?;
        changed = true;
    } else if transform {
        changed |= annotate::annotate(module, &analysis);
    }
    if mode == Mode::Full && transform && !keys {
        let plan: Vec<_> = analysis
            .decided
            .iter()
            .filter_map(|d| Some((d.load, d.op?)))
            .collect();
        let outcomes = lower::lower(module, &plan);
        for d in &analysis.decided {
            let entry = &mut analysis.report.kernels[d.kernel].loads[d.entry];
            match (outcomes.get(&d.load), d.op) {
                (Some(Ok(())), _) => entry.lowered = true,
                (Some(Err(why)), Some(op)) => {
                    // The PTX gets the backend's plain load: say so.
                    entry.operator = if op.nc { "ld.global.nc" } else { "ld.global" }.into();
                    entry.notes.push(format!("{}: {why}", plugin::LEFT_PLAIN));
                }
                _ => {}
            }
        }
        changed |= !outcomes.is_empty();
    }
    // Remarks last, so that they say what the code now does.
    if transform {
        plugin::emit_remarks(&analysis, &remark_sites);
    }
    if opts.strip_debug {
        module.strip_debug_info();
    }
    if opts.discard_names {
        module.discard_local_names();
    }
    let report = analysis.report;
    let format = if mode == Mode::Print && opts.report == ReportFormat::None {
        ReportFormat::Text
    } else {
        opts.report
    };
    write_report(&report, format, opts.report_file.as_deref())?;
    Ok(Outcome {
        changed,
        report: Some(report),
    })
}

/// The whole-SM access trace (the kernel-level model's, design.md §6) of
/// the kernel `kernel` names (symbol, demangled name, or that name without
/// parameters; when `None`, the module's only kernel, or
/// none when it has several), for the locality
/// curves, with the analysis' report of the kernels traced and the names of
/// all kernels of the module. Only those kernels are analysed; the module
/// is not changed.
pub fn kernel_traces(
    module: &inkwell::module::Module,
    opts: &Options,
    kernel: Option<&str>,
) -> Result<(Report, Vec<analysis::KernelTrace>, Vec<String>), Error> {
    // SAFETY: the inkwell module outlives this call and is not disposed by it.
    let m = unsafe { ir::Module::from_raw(module.as_mut_ptr()) };
    let triple = m.triple();
    if !is_nvptx(&triple) {
        return Err(Error::WrongTarget { triple });
    }
    analysis::check_arch(m, opts)?;
    let wanted = kernel.map_or(analysis::Wanted::Sole, analysis::Wanted::Named);
    let (analysis, traces, names) = analysis::kernel_traces(m, opts, wanted)?;
    Ok((analysis.report, traces, names))
}

/// Writes a report to a file, or to stderr when no file is given.
pub fn write_report(
    report: &Report,
    format: ReportFormat,
    file: Option<&std::path::Path>,
) -> Result<(), Error> {
    let text = match format {
        ReportFormat::None => return Ok(()),
        ReportFormat::Text => report.to_text(),
        ReportFormat::Json => report.to_json(),
    };
    match file {
        Some(p) => std::fs::write(p, text).map_err(|e| Error::Report {
            path: p.display().to_string(),
            reason: e.to_string(),
        }),
        None => {
            eprint!("{text}");
            Ok(())
        }
    }
}

/// Convenience for callers holding an inkwell module (the driver, tests).
pub fn run_on(
    module: &inkwell::module::Module,
    mode: Mode,
    opts: &Options,
) -> Result<Outcome, Error> {
    // SAFETY: the inkwell module outlives this call and is not disposed by it.
    let m = unsafe { ir::Module::from_raw(module.as_mut_ptr()) };
    run(m, mode, opts)
}
