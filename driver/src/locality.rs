//! `gpucc-cache locality FILE --kernel=NAME [--level=warp|block|sm]
//! [--csv=PATH] [--svg=PATH] [driver flags]`: the locality curves LS(N, K)
//! of Gupta, Xiang and Zhou (MSPC 2013) for one kernel, from the
//! kernel-level model's whole-SM trace (design.md §6).
//!
//! The trace is the one `--cache-policy=auto` simulates: the co-resident
//! blocks of one SM, their warps interleaved by loose round-robin, each
//! global memory instruction's active lanes in lane order. The curves are
//! `gpucc_cache_pass::model::locality`'s; this file only finds the kernel, picks
//! the levels and writes the CSV (stdout when neither file is asked for)
//! and the SVG. The driver's flags (`--cuda-gpu-arch`, `--block-dim`,
//! `--grid-dim`, `--kernel-arg`, `-I`, `-D`, ...) mean what they mean for a
//! compile; the code itself is not compiled to PTX.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context as _, Result};
use gpucc_cache_pass::analysis::KernelTrace;
use gpucc_cache_pass::model::locality::{curves, write_csv, Curves, Level};
use inkwell::context::Context;

use crate::args::{self, Invocation};

const USAGE: &str = "usage: gpucc-cache locality FILE --kernel=NAME [--level=warp|block|sm] [--csv=PATH] [--svg=PATH] [driver flags]";

const LEVELS: [Level; 3] = [Level::Warp, Level::Block, Level::Sm];

struct Request {
    kernel: Option<String>,
    levels: Vec<Level>,
    csv: Option<PathBuf>,
    svg: Option<PathBuf>,
    /// Everything else: the input and the driver's flags.
    rest: Vec<String>,
}

fn flag_value(args: &[String], i: &mut usize, flag: &str) -> Result<Option<String>> {
    crate::flags::flag_value(args, i, flag, USAGE)
}

fn parse_levels(v: &str) -> Result<Vec<Level>> {
    let mut out = Vec::new();
    for name in v.split(',') {
        let level = LEVELS
            .into_iter()
            .find(|l| l.name() == name)
            .ok_or_else(|| {
                anyhow!("invalid value '{name}' for --level: expected warp, block or sm")
            })?;
        if !out.contains(&level) {
            out.push(level);
        }
    }
    Ok(out)
}

fn parse(args: &[String]) -> Result<Request> {
    let mut r = Request {
        kernel: None,
        levels: Vec::new(),
        csv: None,
        svg: None,
        rest: Vec::new(),
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-o" || a.starts_with("--cache-report") || a.starts_with("--cache-policy") {
            bail!("'{a}' does not apply to locality, which writes only curves: use --csv=PATH or --svg=PATH; {USAGE}");
        }
        if matches!(a, "-c" | "-S" | "-emit-llvm") {
            bail!("'{a}' does not apply to locality, which writes only curves; {USAGE}");
        }
        if let Some(v) = flag_value(args, &mut i, "--kernel")? {
            r.kernel = Some(v);
        } else if let Some(v) = flag_value(args, &mut i, "--level")? {
            for l in parse_levels(&v)? {
                if !r.levels.contains(&l) {
                    r.levels.push(l);
                }
            }
        } else if let Some(v) = flag_value(args, &mut i, "--csv")? {
            r.csv = Some(PathBuf::from(v));
        } else if let Some(v) = flag_value(args, &mut i, "--svg")? {
            r.svg = Some(PathBuf::from(v));
        } else {
            r.rest.push(args[i].clone());
        }
        i += 1;
    }
    if r.levels.is_empty() {
        r.levels = LEVELS.to_vec();
    }
    if r.svg.is_some() && r.levels.len() > 1 {
        bail!("--svg draws one level; give one with --level=warp, --level=block or --level=sm");
    }
    Ok(r)
}

/// The kernel `wanted` names: its symbol, its demangled name, or that name
/// without parameters; with no name, the module's only kernel.
fn pick<'t>(
    traces: &'t [KernelTrace],
    wanted: Option<&str>,
    names: &[String],
    warnings: &[String],
) -> Result<&'t KernelTrace> {
    let short = |n: &str| n.split('(').next().unwrap_or(n).to_string();
    let list = names
        .iter()
        .map(|n| short(n))
        .collect::<Vec<_>>()
        .join(", ");
    let Some(w) = wanted else {
        return match traces {
            [one] if names.len() == 1 => Ok(one),
            _ if names.is_empty() => bail!("the input has no kernels (__global__ functions)"),
            _ => bail!(
                "the input has {} kernels ({list}); choose one with --kernel=NAME",
                names.len()
            ),
        };
    };
    let matches = |t: &&KernelTrace| t.symbol == w || t.name == w || short(&t.name) == w;
    if let Some(t) = traces.iter().find(matches) {
        return Ok(t);
    }
    if names.iter().any(|n| n == w || short(n) == w) {
        let why = (warnings.iter())
            .find(|m| m.contains("no kernel-level model"))
            .and_then(|m| m.split("no kernel-level model: ").nth(1))
            .unwrap_or("see the warnings of a compile");
        bail!("kernel '{w}' has no trace: the kernel-level model could not run on it ({why})");
    }
    bail!("no kernel named '{w}' in the input; its kernels: {list}")
}

const HELP: &str = "\
The locality curves LS(N, K) of one kernel (Gupta, Xiang, Zhou, MSPC 2013), from
the accesses of the co-resident blocks of one SM as the kernel-level model walks them.

An access to byte X has locality (N, K) when one of the next N distinct addresses
of its stream is within K bytes of X (K = 0: temporal). LS is the fraction of
accesses that do. N = 1, 2, ..., 1024; K = 0, 4, 8, 16, 32, 64, 128.

  --kernel=NAME        the kernel (name, name with parameters, or symbol)
  --level=LEVELS       warp, block, sm, or a comma list (default: all three)
                       warp: one warp's accesses; block: its warps interleaved;
                       sm: the co-resident blocks interleaved
  --csv=PATH           write the CSV (columns level,N,K,LS); without --csv and
                       --svg the CSV goes to stdout
  --svg=PATH           draw LS against N, one curve per K, for one level

Driver flags apply as for a compile: --cuda-gpu-arch, --block-dim, --grid-dim,
--kernel-arg, -I, -D, ... A loop whose trip count needs an unknown argument runs
8 iterations; give its value with --kernel-arg=NAME=VALUE.
";

pub fn run(args: &[String]) -> Result<()> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        let _ = std::io::stdout().write_all(format!("{USAGE}\n\n{HELP}").as_bytes());
        return Ok(());
    }
    let req = parse(args)?;
    // The driver's flags, parsed as for a compile to device IR (never written).
    let mut argv = req.rest.clone();
    argv.extend(["-S", "-emit-llvm", "-o", "/dev/null"].map(String::from));
    let parsed = args::parse(&argv).map_err(|e| {
        if e.to_string().starts_with("no input file") {
            anyhow!("no input file; {USAGE}")
        } else {
            e
        }
    })?;
    let job = match parsed {
        Invocation::Compile(job) => job,
        Invocation::Help(_) | Invocation::Version { .. } => bail!("{USAGE}"),
        Invocation::Build(_) => {
            bail!("locality draws one kernel for one arch; give one input and one --cuda-gpu-arch; {USAGE}")
        }
        Invocation::PassThrough(_) => {
            bail!("preprocessing and syntax-only flags do not apply to locality; {USAGE}")
        }
    };
    // Planned before the minutes a model may take; none may be an input.
    let mut files = crate::output::Outputs::new();
    if job.stdin.is_none() {
        files.input("the input", &job.input)?;
    }
    for d in &job.options.kernel_data {
        files.input("the kernel data", &d.path)?;
    }
    let csv_slot = match &req.csv {
        Some(c) => Some(files.output("--csv", c)?),
        None => None,
    };
    let svg_slot = match &req.svg {
        Some(s) => Some(files.output("--svg", s)?),
        None => None,
    };
    let tmp = crate::output::temp_dir()?;
    let context = Context::create();
    let mut opts = job.options.clone();
    let mut read = Vec::new();
    let module = crate::compile::device_module(&job, &context, tmp.path(), &mut opts, &mut read)?;
    for header in &read {
        files.input("a file the source includes", header)?;
    }
    // Only the kernel asked for is analysed and traced (issue 16 item 5).
    let (report, traces, names) =
        gpucc_cache_pass::kernel_traces(&module, &opts, req.kernel.as_deref())
            .map_err(|e| anyhow!("{e}"))?;
    // An error is the one line printed; the warnings follow a kernel found.
    let kt = pick(&traces, req.kernel.as_deref(), &names, &report.warnings)?;
    for w in &report.warnings {
        say!("gpucc-cache: warning: {w}");
    }
    if kt.trace.events.is_empty() {
        bail!(
            "kernel {} makes no global memory access the model could trace, so it has no curves",
            kt.name
        );
    }
    if let Some(cut) = &kt.trace.truncated {
        say!("gpucc-cache: warning: {}: the trace was cut ({cut}); the curves cover the part simulated", kt.name);
    }
    let all: Vec<Curves> = req.levels.iter().map(|&l| curves(&kt.trace, l)).collect();
    say!(
        "gpucc-cache: traced {} of the module's {} kernels",
        traces.len(),
        names.len()
    );
    say!(
        "gpucc-cache: {}: {} co-resident blocks of {} warps, {} thread-accesses, arch {}",
        kt.name,
        kt.trace.blocks,
        kt.trace.warps_per_block,
        kt.trace.thread_accesses(),
        report.arch
    );
    let mut csv = Vec::new();
    write_csv(&all, &mut csv).context("cannot format the curves")?;
    if let Some(slot) = svg_slot {
        let title = format!(
            "{} - {} level, {}",
            kt.name.split('(').next().unwrap_or(&kt.name),
            all[0].level.name(),
            report.arch
        );
        files.fill(slot, crate::plot::render(&all[0], &title)?.into_bytes());
    }
    let to_stdout = csv_slot.is_none() && svg_slot.is_none();
    if let Some(slot) = csv_slot {
        files.fill(slot, csv.clone());
    }
    files.commit()?;
    if to_stdout {
        let _ = std::io::stdout().write_all(&csv);
    }
    Ok(())
}
