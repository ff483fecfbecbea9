//! The two routes from input to output.
//!
//! - `.cu`: clang drives the whole device-side (or, with `-c`, the whole)
//!   compile with the plugin loaded (`-fpass-plugin`), so code generation is
//!   exactly clang's and remarks (`-Rpass=gpucc-cache`,
//!   `-fsave-optimization-record`) are clang's own. The options travel in
//!   `GPUCC_CACHE_OPTIONS`; the report comes back as JSON.
//! - `.ll` / `.bc`: no front end; the module is parsed here, the pass runs
//!   in process, and LLVM's NVPTX backend (the libLLVM clang uses, configured
//!   as llc configures it) writes PTX or IR.
//!
//! When a report is wanted and the user did not ask for debug info, the
//! device side is compiled with line tables (to put a line and column on each
//! load) and they are stripped after the pass, so the code is what it would
//! have been without them.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, bail, Context as _, Result};
use gpucc_cache_pass::emit::ptx::{self, Strip};
use gpucc_cache_pass::emit::transplant::transplant;
use gpucc_cache_pass::gpu::generation::Arch;
use gpucc_cache_pass::gpu::hardware::Hardware;
use gpucc_cache_pass::gpu::occupancy;
use gpucc_cache_pass::options::{KernelRegisters, Options, ENV_OPTIONS};
use gpucc_cache_pass::{is_nvptx, run_on, Lowering, Mode, Report, ReportFormat};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetTriple,
};
use inkwell::OptimizationLevel;

use crate::args::{Job, Language, Output};
use crate::output::Outputs;
use crate::{registers, toolchain};

/// clang's default CUDA arch (clang 19).
const DEFAULT_ARCH: &str = "sm_52";

fn is_ir(job: &Job) -> bool {
    job.language == Some(Language::Ir)
}

/// What a route made, for `run` (or a build) to write.
pub struct Made {
    /// The output's bytes: PTX or IR.
    pub output: Vec<u8>,
    pub report: Option<Report>,
    /// The files clang wrote beside the output, in the scratch directory.
    deps: Option<Vec<u8>>,
    pub record: Option<Vec<u8>>,
    /// The files clang read (the source and its headers): inputs no output
    /// of the run may overwrite.
    pub read: Vec<PathBuf>,
}

/// Compiles `job`. Every file it names is planned first (a bad path fails
/// before any work), the inputs guarded by identity (the input, kernel
/// data, response files, and the headers clang read), and nothing is
/// written until everything has succeeded.
pub fn run(job: &Job) -> Result<()> {
    if job.stdin.is_none() {
        crate::output::check_input(&job.input)?;
    }
    job.language()?;
    let mut files = Outputs::new();
    if job.stdin.is_none() {
        files.input("the input", &job.input)?;
    }
    for d in &job.options.kernel_data {
        files.input("the kernel data", &d.path)?;
    }
    let output = if job.output.as_os_str() == "-" {
        None
    } else {
        Some(files.output("-o", &job.output)?)
    };
    let report_file = match &job.report_file {
        Some(r) => Some(files.output("--cache-report-file", r)?),
        None => None,
    };
    let side = &job.sidecars;
    let deps = match &side.deps {
        Some((f, _)) => Some(files.output("-MF", f)?),
        None => None,
    };
    let record = match &side.record {
        Some((f, _)) => Some(files.output("-foptimization-record-file", f)?),
        None => None,
    };
    if is_ir(job) && (side.deps.is_some() || side.record.is_some()) {
        bail!(
            "-MD and -fsave-optimization-record need a CUDA source; {} is IR",
            job.input.display()
        );
    }
    let scratch = crate::output::temp_dir()?;
    let made = device(job, scratch.path())?;
    // The headers clang read are inputs too: no output may be one.
    for header in &made.read {
        files.input("a file the source includes", header)?;
    }
    let report_text = made.report.as_ref().and_then(|r| match job.report {
        ReportFormat::None => None,
        ReportFormat::Text => Some(r.to_text()),
        ReportFormat::Json => Some(r.to_json()),
    });
    if let Some(slot) = output {
        files.fill(slot, made.output.clone());
    }
    for (slot, bytes) in [(deps, made.deps), (record, made.record)] {
        if let (Some(slot), Some(bytes)) = (slot, bytes) {
            files.fill(slot, bytes);
        }
    }
    if let (Some(slot), Some(text)) = (report_file, &report_text) {
        files.fill(slot, text.clone().into_bytes());
    }
    files.commit()?;
    if output.is_none() {
        let mut out = std::io::stdout().lock();
        out.write_all(&made.output)
            .and_then(|()| out.flush())
            .context("cannot write the output to standard output")?;
    }
    if let (None, Some(text)) = (&job.report_file, report_text) {
        say_raw!("{text}");
    }
    Ok(())
}

/// The report the plugin writes for the driver, in the scratch directory.
const REPORT_FILE: &str = "report.json";

/// The dependency list clang writes for the driver, in the scratch
/// directory: every file the compile read.
const DEPS_FILE: &str = "all.d";

/// The device-side output of `job` (PTX or IR) and its report, made in
/// `scratch`; nothing is written elsewhere. PTX is decided with the
/// registers ptxas allocates (`measured_registers`).
///
/// Each diagnostic clang gives for the input (warnings, `-Rpass` remarks)
/// reaches the user once, as one clang compile prints it: the first
/// compile's are held in `scratch` while a second may replace it, and shown
/// only where it stands (or failed).
pub fn device(job: &Job, scratch: &Path) -> Result<Made> {
    let log = scratch.join("device.stderr");
    // Not an earlier arch's, in a build that shares `scratch`.
    let _ = std::fs::remove_file(&log);
    let held = if is_ir(job) {
        Diagnostics::Shown
    } else {
        Diagnostics::Held(&log)
    };
    let first = device_once(job, scratch, held).and_then(|mut made| {
        let again = measured_registers(job, scratch, &mut made)?;
        Ok((made, again))
    });
    let made = match first {
        Ok((made, None)) => {
            held.show()?;
            made
        }
        // The first compile's diagnostics would come again, some of them
        // (remarks) saying what the second compile no longer does.
        Ok((_, Some(options))) => device_once(
            &Job {
                options,
                ..job.clone()
            },
            scratch,
            Diagnostics::Shown,
        )?,
        // An error of the plugin's (a --decisions line naming no load of
        // the module) is the driver's own: one line, as the driver's
        // other errors, without clang's summary of it.
        Err(e) => {
            return match held.show_but_plugin_error(&scratch.join(REPORT_FILE), &shown(job))? {
                Some(message) => Err(anyhow!("{message}")),
                None => Err(e),
            }
        }
    };
    Ok(with_default_operator_said(job, made))
}

/// `line` without the terminal's colour sequences (`ESC [ ... m`).
fn without_colours(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// ptxas' `-dlcm` (`--def-load-cache`) sets the operator of plain loads
/// only; an operator the PTX names takes precedence (ptxas documentation:
/// "default cache modifier"). Where the user gave one and the driver wrote
/// operators, the report says which wins, once per compile.
fn with_default_operator_said(job: &Job, mut made: Made) -> Made {
    let dlcm = (job.ptxas_flags.iter())
        .find(|f| f.starts_with("-dlcm") || f.starts_with("--def-load-cache"));
    let Some((flag, report)) = dlcm.zip(made.report.as_mut()) else {
        return made;
    };
    // Loads written with an operator of their own (on sm_70+ a cached
    // load is the plain `ld.global`, which -dlcm still governs).
    let decided = (report.kernels.iter())
        .flat_map(|k| &k.loads)
        .filter(|l| l.decision != "default" && l.operator != "ld.global")
        .count();
    if decided > 0 {
        report.warnings.push(format!(
            "-Xptxas {flag} sets the cache operator of the loads left plain only: the {decided} loads gpucc-cache decided name their own, which ptxas keeps (--cache-policy=cache-none bypasses L1 for every decided load)"
        ));
    }
    made
}

/// Where a clang run's standard error goes.
#[derive(Clone, Copy)]
pub(crate) enum Diagnostics<'a> {
    /// To ours, as it comes.
    Shown,
    /// To this file, shown (or not) once the caller knows.
    Held(&'a Path),
}

impl Diagnostics<'_> {
    /// Sends `cmd`'s standard error where `self` says. A held run gets
    /// clang's colours where ours would have had them: a terminal, and no
    /// colour flag of the user's.
    pub(crate) fn apply(self, job: &Job, cmd: &mut Command) -> Result<()> {
        use std::io::IsTerminal as _;
        let Diagnostics::Held(path) = self else {
            return Ok(());
        };
        let file = std::fs::File::create(path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        // Any colour flag of the user's decides (`-f[no-]color-diagnostics`,
        // `-f[no-]diagnostics-color[=...]`); else clang's own rule: a
        // terminal that is not `TERM=dumb`.
        let coloured = |f: &String| f.starts_with("-f") && f.contains("color");
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        if std::io::stderr().is_terminal() && !dumb && !job.clang_flags.iter().any(coloured) {
            cmd.arg("-fcolor-diagnostics");
        }
        cmd.stderr(file);
        Ok(())
    }

    /// Copies a held run's standard error to ours, except the plugin's
    /// error and clang's count of errors, where the plugin wrote one
    /// (`options::error_file` beside `report`): then its message. The
    /// plugin's own file, not a line of the text, says so: a source's
    /// message may read like one. A fatal error of LLVM's backend
    /// (`fatal::in_clang_log`) is shown as our one line for `input`,
    /// without clang's node dump, bug request and stack dump.
    fn show_but_plugin_error(self, report: &Path, input: &str) -> Result<Option<String>> {
        let Diagnostics::Held(path) = self else {
            return Ok(None);
        };
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned();
        let Ok(message) = std::fs::read_to_string(gpucc_cache_pass::options::error_file(report))
        else {
            let Some((before, message)) = crate::fatal::in_clang_log(&text, input, without_colours)
            else {
                self.show()?;
                return Ok(None);
            };
            let mut err = std::io::stderr().lock();
            for line in before {
                writeln!(err, "{line}")
                    .context("cannot write clang's messages to standard error")?;
            }
            return Ok(Some(message));
        };
        let ours = format!(
            "error: gpucc-cache: {}",
            message.lines().next().unwrap_or("")
        );
        let summary =
            |l: &str| l.ends_with(" error generated.") || l.contains(" error generated when");
        let mut err = std::io::stderr().lock();
        for line in text.lines() {
            let plain = without_colours(line);
            if plain.contains(&ours) || (summary(&plain) && !plain.contains("errors")) {
                continue;
            }
            writeln!(err, "{line}").context("cannot write clang's messages to standard error")?;
        }
        Ok(Some(message.trim_end().to_string()))
    }

    /// Copies a held run's standard error to ours.
    pub(crate) fn show(self) -> Result<()> {
        let Diagnostics::Held(path) = self else {
            return Ok(());
        };
        let Ok(bytes) = std::fs::read(path) else {
            // The run never started: nothing to show.
            return Ok(());
        };
        let mut err = std::io::stderr().lock();
        err.write_all(&bytes)
            .and_then(|()| err.flush())
            .context("cannot write clang's messages to standard error")
    }
}

/// Registers per thread for the occupancy (issue 19): where the model ran
/// on a kernel whose count the user did not give, `ptxas -v` of the PTX
/// just made gives it (the operators do not change register allocation,
/// design.md §8); where a count changes the occupancy the estimate gave,
/// the device side is decided again with every measured count. Without
/// ptxas, or when it fails, the estimate stands and the report says so.
/// `Some`: the options to compile again with (the measured counts added).
fn measured_registers(job: &Job, scratch: &Path, made: &mut Made) -> Result<Option<Options>> {
    let Some(report) = made.report.as_mut().filter(|_| job.kind == Output::Ptx) else {
        return Ok(None);
    };
    let unknown: Vec<(String, u32)> = (report.kernels.iter())
        .filter(|k| k.simulated.is_some() && job.options.registers_of(&k.symbol).is_none())
        .map(|k| (k.symbol.clone(), k.block_dim.iter().product()))
        .collect();
    if unknown.is_empty() {
        return Ok(None);
    }
    let estimate = occupancy::ESTIMATED_REGISTERS_PER_THREAD;
    let ptxas = toolchain::cuda(job.cuda_path.as_deref()).and_then(|c| toolchain::ptxas(&c.path));
    let Ok(ptxas) = ptxas else {
        report.warnings.push(format!(
            "no ptxas found (run scripts/setup, or give --cuda-path): occupancy estimates {estimate} registers per thread"
        ));
        return Ok(None);
    };
    let dir = scratch.join("registers");
    std::fs::create_dir_all(&dir)?;
    let measured = registers::measure(
        &ptxas,
        &made.output,
        &report.arch,
        &job.ptxas_flags,
        &dir,
        job.verbose,
    );
    let usage = match measured {
        Ok(u) => u,
        Err(e) => {
            report.warnings.push(format!(
                "{e}; occupancy estimates {estimate} registers per thread"
            ));
            return Ok(None);
        }
    };
    let table = Arch::parse(&report.arch).and_then(|a| Hardware::for_sm(a.sm));
    let Some(hw) = job.options.machine.as_ref().map(|m| &m.hardware).or(table) else {
        return Ok(None);
    };
    let mut changed = false;
    for (symbol, threads) in &unknown {
        let Some(u) = usage.get(symbol) else { continue };
        let moves = registers::changes_occupancy(hw, *threads, u.registers, u.shared_bytes);
        if job.verbose {
            say!(
                "gpucc-cache: ptxas: {symbol}: {} registers/thread, {} B spilled{}",
                u.registers,
                u.spill_stores,
                if moves {
                    "; changes the occupancy the estimate gave"
                } else {
                    ""
                }
            );
        }
        changed |= moves;
    }
    if !changed {
        // The decisions stand (the measured counts give the estimate's
        // occupancy), but the report says what ptxas measured.
        let estimated = format!("{estimate} registers/thread estimated");
        for k in &mut report.kernels {
            let (Some(u), Some(sim)) = (usage.get(&k.symbol), k.simulated.as_mut()) else {
                continue;
            };
            if unknown.iter().any(|(s, _)| *s == k.symbol) {
                sim.occupancy = sim.occupancy.replace(
                    &estimated,
                    &format!(
                        "{} registers/thread from ptxas, the estimate's occupancy",
                        u.registers
                    ),
                );
            }
        }
        return Ok(None);
    }
    let mut options = job.options.clone();
    options.kernel_registers.extend(
        (unknown.iter())
            .filter_map(|(s, _)| usage.get(s).map(|u| (s, u.registers)))
            .map(|(s, count)| KernelRegisters {
                kernel: s.clone(),
                count,
            }),
    );
    Ok(Some(options))
}

/// One device-side compile of `job` with the options it has.
fn device_once(job: &Job, scratch: &Path, diagnostics: Diagnostics) -> Result<Made> {
    if is_ir(job) {
        return in_process(job, scratch);
    }
    let mut made = through_clang(job, scratch, diagnostics)?;
    let all_deps =
        std::fs::read(scratch.join(DEPS_FILE)).context("clang wrote no dependency list")?;
    made.read = crate::depfile::dependencies(&String::from_utf8_lossy(&all_deps));
    if job
        .sidecars
        .deps
        .as_ref()
        .is_some_and(|(_, user_only)| *user_only)
    {
        // The user's -MMD list leaves system headers out; they are inputs
        // all the same. One preprocessing run lists them (-MMD runs only).
        made.read.extend(every_file_read(job, scratch)?);
    }
    Ok(made)
}

fn arch_name(job: &Job) -> String {
    job.arch
        .map_or_else(|| DEFAULT_ARCH.to_string(), |a| a.to_string())
}

/// Clang arguments shared by both routes for a `.cu` input.
fn clang_command(job: &Job, clang: &Path, cuda: &Path) -> Command {
    let mut cmd = Command::new(clang);
    cmd.arg("-x")
        .arg("cuda")
        .arg(format!("--cuda-gpu-arch={}", arch_name(job)));
    cmd.arg(format!("--cuda-path={}", cuda.display()));
    // The wheels' CUDA 12.5 is newer than clang 19 fully knows; the device side is fine.
    cmd.arg("-Wno-unknown-cuda-version");
    if !job.opt_given {
        cmd.arg("-O3");
    }
    cmd.args(&job.clang_flags);
    // A crash reproducer (clang writes NAME-sm_XX-*.cu and .sh to the
    // temporary directory and leaves them) would hold our command line, with
    // the plugin and its key locations, not the user's: none is written
    // unless the user asks for one.
    let reproducer =
        |f: &String| f.contains("crash-diagnostics") || f.starts_with("-gen-reproducer");
    if !job.clang_flags.iter().any(reproducer) {
        cmd.arg("-fno-crash-diagnostics");
    }
    if !job.options.whole_program && !crate::cuid::given(&job.clang_flags) {
        // Separate compilation: clang's names for internal symbols.
        cmd.arg(format!(
            "-cuid={}",
            crate::cuid::of(&job.input, &job.clang_command)
        ));
    }
    cmd
}

fn wants_report(job: &Job) -> bool {
    job.report != ReportFormat::None
}

fn find_tools(job: &Job) -> Result<(toolchain::Found, toolchain::Found)> {
    let clang = toolchain::clang(job.clang.as_deref())?;
    let cuda = toolchain::cuda(job.cuda_path.as_deref())?;
    if job.verbose {
        say!(
            "gpucc-cache: clang: {} ({})",
            clang.path.display(),
            clang.how
        );
        say!("gpucc-cache: CUDA: {} ({})", cuda.path.display(), cuda.how);
    }
    Ok((clang, cuda))
}

/// `.ll` / `.bc` input: no front end; the pass and the backend run here.
/// The first line of an LLVM message.
fn first_line(e: inkwell::support::LLVMString) -> String {
    e.to_string()
        .lines()
        .next()
        .unwrap_or("verifier failed")
        .to_string()
}

/// Reads an NVPTX module (`.ll` or `.bc`) and verifies it: a one-line error
/// for an empty file, malformed IR, another target or invalid IR.
pub(crate) fn parse_module<'c>(context: &'c Context, job: &Job) -> Result<Module<'c>> {
    let shown = shown(job);
    let bitcode = match &job.stdin {
        Some(source) => source.clone(),
        None => std::fs::read(&job.input).with_context(|| format!("cannot read {shown}"))?,
    };
    let input = Path::new(&shown);
    if bitcode.iter().all(u8::is_ascii_whitespace) {
        bail!(
            "{} is empty; give an LLVM IR module (.ll) or bitcode (.bc) for nvptx64",
            input.display()
        );
    }
    let buffer = MemoryBuffer::create_from_memory_range_copy(&bitcode, &shown);
    let module = context.create_module_from_ir(buffer).map_err(|e| {
        let msg = e.to_string();
        let first = msg
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("malformed input")
            .trim()
            .to_string();
        anyhow!(
            "cannot parse {} as LLVM IR: {first}; give valid LLVM 19 IR or bitcode",
            input.display()
        )
    })?;
    let triple = module.get_triple().as_str().to_string_lossy().into_owned();
    if !is_nvptx(&triple) {
        bail!(
            "{} is a module for '{}', not NVPTX; give a device-side module (triple nvptx64-nvidia-cuda), e.g. from clang --cuda-device-only -emit-llvm",
            input.display(),
            if triple.is_empty() { "<no triple>" } else { &triple }
        );
    }
    if let Err(e) = module.verify() {
        bail!("{} is not valid IR: {}", input.display(), first_line(e));
    }
    Ok(module)
}

/// The module to analyse for `job`, parsed into `context`: a `.ll`/`.bc`
/// input as it is; a `.cu` compiled by clang alone (no plugin) to device
/// IR in `tmp`, with the launch shapes of its host code added to `opts`.
///
/// `read` gets the files clang read (the source and its headers): inputs
/// no output of the caller may overwrite.
pub(crate) fn device_module<'c>(
    job: &Job,
    context: &'c Context,
    tmp: &Path,
    opts: &mut Options,
    read: &mut Vec<PathBuf>,
) -> Result<Module<'c>> {
    if job.stdin.is_none() {
        crate::output::check_input(&job.input)?;
    }
    job.language()?;
    if is_ir(job) {
        return parse_module(context, job);
    }
    let (clang, cuda) = find_tools(job)?;
    add_host_launches(job, opts);
    let ir = tmp.join("device.bc");
    let mut cmd = clang_command(job, &clang.path, &cuda.path);
    // Parameter names, so that --kernel-arg can name them.
    cmd.args([
        "--cuda-device-only",
        "-c",
        "-emit-llvm",
        "-fno-discard-value-names",
        "-MD",
        "-MF",
    ])
    .arg(tmp.join(DEPS_FILE))
    .arg("-o")
    .arg(&ir);
    match run_clang(job, &mut cmd)? {
        toolchain::Ended::Ok => {
            let deps =
                std::fs::read(tmp.join(DEPS_FILE)).context("clang wrote no dependency list")?;
            *read = crate::depfile::dependencies(&String::from_utf8_lossy(&deps));
            parse_module(
                context,
                &Job {
                    input: ir.clone(),
                    stdin: None,
                    ..job.clone()
                },
            )
        }
        toolchain::Ended::Failed => {
            bail!("clang failed on {} (its errors are above)", shown(job))
        }
        toolchain::Ended::Crashed(sig) => {
            bail!("clang crashed (signal {sig}) on {}", shown(job))
        }
    }
}

fn in_process(job: &Job, _scratch: &Path) -> Result<Made> {
    let opts = job.options.clone();
    let context = Context::create();
    let module = parse_module(&context, job)?;
    // The user's module with its own debug info: its PTX is compiled as it
    // is, and the decisions moved onto it (`finish_ptx`).
    let with_debug = (job.kind == Output::Ptx
        && module.get_global_metadata_size("llvm.dbg.cu") > 0)
        .then(|| module.clone());
    let lowering = if job.kind == Output::Ptx {
        Lowering::Keys
    } else {
        opts.lowering
    };
    let outcome = run_on(
        &module,
        Mode::Full,
        &Options {
            report: ReportFormat::None,
            report_file: None,
            lowering,
            ..opts.clone()
        },
    )
    .map_err(|e| anyhow!("{e}"))?;
    if let Err(e) = module.verify() {
        bail!(
            "internal error: the pass left invalid IR for {} ({}); please report it with the input",
            job.input.display(),
            first_line(e)
        );
    }
    // The arch the analysis resolved: the flag, else the module's target-cpu, else clang's default.
    let arch = outcome
        .report
        .as_ref()
        .map_or_else(|| DEFAULT_ARCH.to_string(), |r| r.arch.clone());
    let (output, report) = match job.kind {
        Output::LlvmText => (module.print_to_string().to_bytes().to_vec(), outcome.report),
        Output::LlvmBitcode => (
            module.write_bitcode_to_memory().as_slice().to_vec(),
            outcome.report,
        ),
        Output::Ptx => {
            let ptx = emit_ptx(&module, &arch, job.opt_level, true)?;
            let keyed = String::from_utf8_lossy(&ptx);
            let plain = match &with_debug {
                Some(m) => Some(
                    String::from_utf8_lossy(&emit_ptx(m, &arch, job.opt_level, false)?)
                        .into_owned(),
                ),
                None => None,
            };
            let report = outcome
                .report
                .ok_or_else(|| anyhow!("internal error: the pass returned no report"))?;
            let (text, report) = finish_ptx(job, &keyed, report, plain.as_deref())?;
            (text.into_bytes(), Some(report))
        }
    };
    Ok(Made {
        output,
        report,
        deps: None,
        record: None,
        read: Vec::new(),
    })
}

/// `-use-unknown-locations=Enable`, as the `.cu` route passes it to clang,
/// for a keyed module: an instruction without a location gets a line-0
/// record rather than the previous instruction's (which may be a load's
/// key). `Default` for the user's own module (a `-g` run's plain PTX), as
/// llc writes it. Debug output only. LLVM's options are global and the
/// last setting wins.
fn unknown_locations_get_line_zero(keyed: bool) {
    let setting = if keyed {
        c"-use-unknown-locations=Enable"
    } else {
        c"-use-unknown-locations=Default"
    };
    let args = [c"gpucc-cache".as_ptr(), setting.as_ptr()];
    // SAFETY: two valid C strings.
    unsafe { llvm_sys::support::LLVMParseCommandLineOptions(2, args.as_ptr(), std::ptr::null()) };
}

/// PTX from the module with LLVM's NVPTX backend, configured as clang
/// configures it (CPU and PTX version from the module's own attributes).
fn emit_ptx(module: &Module, arch: &str, opt_level: u8, keyed: bool) -> Result<Vec<u8>> {
    Target::initialize_nvptx(&InitializationConfig::default());
    unknown_locations_get_line_zero(keyed);
    let triple = module.get_triple();
    let triple = if triple.as_str().to_bytes().is_empty() {
        TargetTriple::create("nvptx64-nvidia-cuda")
    } else {
        triple
    };
    let target =
        Target::from_triple(&triple).map_err(|e| anyhow!("no NVPTX target in this LLVM: {e}"))?;
    let features = module
        .get_functions()
        .find_map(|f| {
            f.get_string_attribute(
                inkwell::attributes::AttributeLoc::Function,
                "target-features",
            )
            .map(|a| a.get_string_value().to_string_lossy().into_owned())
        })
        .map(|f| {
            f.split(',')
                .filter(|x| x.starts_with("+ptx"))
                .collect::<Vec<_>>()
                .join(",")
        })
        // Without a request, the CPU's own minimum PTX version, as llc does.
        .unwrap_or_default();
    let level = match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    let tm = target
        .create_target_machine(
            &triple,
            arch,
            &features,
            level,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| anyhow!("LLVM cannot make an NVPTX target machine for {arch}"))?;
    // Commented PTX, as llc and clang write it.
    // SAFETY: a live target machine owned by `tm`.
    unsafe { llvm_sys::target_machine::LLVMSetTargetMachineAsmVerbosity(tm.as_mut_ptr(), 1) };
    let buf = tm
        .write_to_memory_buffer(module, FileType::Assembly)
        .map_err(|e| {
            anyhow!(
                "the NVPTX backend failed: {}",
                e.to_string().lines().next().unwrap_or("")
            )
        })?;
    Ok(buf.as_slice().to_vec())
}

fn verify_ptx(cuda: &Path, ptx: &Path, arch: &str, flags: &[String], verbose: bool) -> Result<()> {
    let ptxas = toolchain::ptxas(cuda)?;
    let out = ptx.with_extension("cubin");
    let mut cmd = Command::new(&ptxas);
    cmd.arg(format!("-arch={arch}"))
        .args(flags)
        .arg(ptx)
        .arg("-o")
        .arg(&out);
    if !matches!(toolchain::run(&mut cmd, verbose)?, toolchain::Ended::Ok) {
        bail!("ptxas rejected {} (its errors are above)", ptx.display());
    }
    Ok(())
}

/// `.cu` input: clang drives, the plugin decides. Clang writes only into
/// `scratch`: the output, the report, the dependency list and any record.
fn through_clang(job: &Job, scratch: &Path, diagnostics: Diagnostics) -> Result<Made> {
    let original = job;
    let (clang, cuda) = find_tools(job)?;
    let plugin = toolchain::plugin()?;
    let report_path = scratch.join(REPORT_FILE);
    // Not an earlier compile's error (`Diagnostics::show_but_plugin_error`).
    let _ = std::fs::remove_file(gpucc_cache_pass::options::error_file(&report_path));
    let ptx = job.kind == Output::Ptx;
    let mut opts = Options {
        report: ReportFormat::Json,
        report_file: Some(report_path.clone()),
        ..job.options.clone()
    };
    add_host_launches(job, &mut opts);
    // With the user's debug info, the keyed compile is made without it (the
    // keys need line tables of their own) and a second, plain compile keeps
    // it exactly as clang writes it (`finish_ptx`).
    let keyed_job = if ptx && job.debug {
        Job {
            clang_flags: without_debug(&job.clang_flags),
            debug: false,
            ..job.clone()
        }
    } else {
        job.clone()
    };
    let job = &keyed_job;
    let mut cmd = clang_command(job, &clang.path, &cuda.path);
    match job.kind {
        Output::Ptx => {
            cmd.args(["--cuda-device-only", "-S"]);
        }
        Output::LlvmText => {
            cmd.args(["--cuda-device-only", "-S", "-emit-llvm"]);
        }
        Output::LlvmBitcode => {
            cmd.args(["--cuda-device-only", "-c", "-emit-llvm"]);
        }
    }
    if ptx {
        // Loads stay plain; their decisions ride in debug locations to the
        // PTX, where `ptx::apply` writes them (design.md §8). Line tables
        // carry the keys and the report's line:column.
        opts.lowering = Lowering::Keys;
        if !job.debug {
            cmd.arg("-gline-tables-only");
        }
        // An instruction the backend left without a location (MachineLICM
        // drops the location of what it hoists) gets a line-0 record instead
        // of silently inheriting the key of the load before it.
        cmd.args(["-mllvm", "-use-unknown-locations=Enable"]);
    } else if wants_report(job) && !job.debug {
        cmd.arg("-gline-tables-only");
        opts.strip_debug = true;
    }
    if !job
        .clang_flags
        .iter()
        .any(|f| f == "-fno-discard-value-names")
    {
        cmd.arg("-fno-discard-value-names");
        opts.discard_names = true;
    }
    let side = sidecar_flags(job, scratch, &mut cmd);
    cmd.arg(format!("-fpass-plugin={}", plugin.display()));
    cmd.env(ENV_OPTIONS, opts.to_params());
    // The driver needs the plugin's extension point, whatever the user's
    // environment says for their own `opt` pipelines.
    cmd.env_remove("GPUCC_CACHE_EP");
    let out = scratch.join("out");
    cmd.arg("-o").arg(&out);
    diagnostics.apply(job, &mut cmd)?;
    match run_clang(job, &mut cmd)? {
        toolchain::Ended::Ok => {}
        toolchain::Ended::Failed => {
            bail!("clang failed on {} (its errors are above)", shown(job))
        }
        toolchain::Ended::Crashed(sig) => bail!(
            "clang crashed (signal {sig}) on {}; rerun with --cache-policy=off to see whether gpucc-cache is involved, and report it",
            shown(job)
        ),
    }
    let text = std::fs::read_to_string(&report_path).context("the plugin wrote no report")?;
    let report: Report =
        serde_json::from_str(&text).context("the plugin's report is not valid JSON")?;
    let made = std::fs::read(&out).context("clang wrote no output")?;
    let read_side = |p: Option<PathBuf>| -> Result<Option<Vec<u8>>> {
        p.map(|p| std::fs::read(&p).with_context(|| format!("clang wrote no {}", p.display())))
            .transpose()
    };
    let (output, report) = if ptx {
        let keyed = String::from_utf8_lossy(&made);
        let plain = if original.debug {
            Some(plain_ptx(original, &clang.path, &cuda.path, scratch)?)
        } else {
            None
        };
        let (text, report) = finish_ptx(job, &keyed, report, plain.as_deref())?;
        (text.into_bytes(), report)
    } else {
        (made, report)
    };
    Ok(Made {
        output,
        report: Some(report),
        deps: read_side(side.deps)?,
        record: read_side(side.record)?,
        read: Vec::new(),
    })
}

/// The user's clang flags less those that turn debug info on or off
/// (`-g`, `-g0`, ...), for the keyed compile of a `-g` run. An `-Xarch_*`
/// before one goes with it (nvcc's `-lineinfo` is `-Xarch_device
/// -gline-tables-only`): left alone it would take the next flag as its own.
fn without_debug(flags: &[String]) -> Vec<String> {
    let debug = |f: &str| crate::args::enables_debug(f) || f == "-g0";
    let mut out = Vec::new();
    let mut i = 0;
    while i < flags.len() {
        let f = &flags[i];
        let pair = |g: &String| debug(g) || crate::args::debug_pair(f, g).is_some();
        if (f.starts_with("-Xarch_") || f == "-Xclang") && flags.get(i + 1).is_some_and(pair) {
            i += 2;
            continue;
        }
        if !debug(f) {
            out.push(f.clone());
        }
        i += 1;
    }
    out
}

/// Clang's own PTX for `job`, with the user's flags and nothing of ours:
/// the text a `-g` run's decisions are moved onto.
fn plain_ptx(job: &Job, clang: &Path, cuda: &Path, scratch: &Path) -> Result<String> {
    let mut cmd = clang_command(job, clang, cuda);
    let out = scratch.join("plain.ptx");
    cmd.args(["--cuda-device-only", "-S", "-o"]).arg(&out);
    // The keyed compile gave the source's diagnostics; these are the same.
    let log = scratch.join("plain.stderr");
    let held = Diagnostics::Held(&log);
    held.apply(job, &mut cmd)?;
    match run_clang(job, &mut cmd)? {
        toolchain::Ended::Ok => std::fs::read_to_string(&out).context("clang wrote no PTX"),
        toolchain::Ended::Failed => {
            held.show()?;
            bail!("clang failed on {} (its errors are above)", shown(job))
        }
        toolchain::Ended::Crashed(sig) => {
            held.show()?;
            bail!("clang crashed (signal {sig}) on {}", shown(job))
        }
    }
}

/// Where clang writes the files it writes beside the output (all in
/// `scratch`), for `through_clang` to read back.
struct SidecarPaths {
    deps: Option<PathBuf>,
    record: Option<PathBuf>,
}

/// Adds the flags that send clang's dependency list and optimization
/// record into `scratch`. The dependency list is always asked for:
/// the headers are inputs no output may overwrite.
fn sidecar_flags(job: &Job, scratch: &Path, cmd: &mut Command) -> SidecarPaths {
    let side = &job.sidecars;
    let deps = scratch.join(DEPS_FILE);
    // -MMD if the user asked for it: their file must be what clang writes.
    let user_only = side.deps.as_ref().is_some_and(|(_, user_only)| *user_only);
    cmd.arg(if user_only { "-MMD" } else { "-MD" })
        .arg("-MF")
        .arg(&deps);
    if !side.deps_target_given {
        // clang's default target is the output, which is ours in scratch.
        cmd.arg("-MQ").arg(&job.output);
    }
    let record = side.record.as_ref().map(|(_, format)| {
        let f = scratch.join("record");
        cmd.arg(format!("-fsave-optimization-record={format}"))
            .arg(format!("-foptimization-record-file={}", f.display()));
        f
    });
    SidecarPaths {
        deps: side.deps.as_ref().map(|_| deps),
        record,
    }
}

/// Every file a compile of `job` reads, system headers included: clang's
/// `-M` (preprocessing only).
fn every_file_read(job: &Job, scratch: &Path) -> Result<Vec<PathBuf>> {
    let (clang, cuda) = find_tools(job)?;
    let mut cmd = clang_command(job, &clang.path, &cuda.path);
    let list = scratch.join("every.d");
    cmd.args(["--cuda-device-only", "-M", "-MF"])
        .arg(&list)
        .args(["-o", "/dev/null"]);
    // The compile gave the source's diagnostics (`#warning` among them).
    let log = scratch.join("every.stderr");
    let held = Diagnostics::Held(&log);
    held.apply(job, &mut cmd)?;
    match run_clang(job, &mut cmd)? {
        toolchain::Ended::Ok => {
            let deps = std::fs::read(&list).context("clang wrote no dependency list")?;
            Ok(crate::depfile::dependencies(&String::from_utf8_lossy(
                &deps,
            )))
        }
        _ => {
            held.show()?;
            bail!("clang failed listing the headers of {}", shown(job))
        }
    }
}

/// The input as messages name it.
fn shown(job: &Job) -> String {
    if job.stdin.is_some() {
        "<stdin>".into()
    } else {
        job.input.display().to_string()
    }
}

/// Runs clang on the job's input: the file, or `-` with the source fed on
/// clang's standard input.
fn run_clang(job: &Job, cmd: &mut Command) -> Result<toolchain::Ended> {
    match &job.stdin {
        None => {
            cmd.arg(&job.input);
            toolchain::run(cmd, job.verbose)
        }
        Some(source) => {
            cmd.arg("-").stdin(std::process::Stdio::piped());
            toolchain::run_with_input(cmd, source, job.verbose)
        }
    }
}

/// Block and grid shapes of the constant launches in the file's host code
/// (`<<<grid, block>>>`, `cudaLaunchKernel`), after the user's own: the
/// analysis needs the shape the program really uses. With host IR, also
/// every launch's integer arguments; the text scanner reads none.
fn add_host_launches(job: &Job, opts: &mut Options) {
    use gpucc_cache_pass::options::{Dim3, KernelShape, ShapeOrigin};
    if let Some(host) = &job.host_launches {
        opts.kernel_blocks.extend(host.blocks.iter().cloned());
        opts.kernel_grids.extend(host.grids.iter().cloned());
        opts.launch_args.extend(host.args.iter().cloned());
        opts.launch_overlaps.extend(host.overlaps.iter().cloned());
        opts.launch_extents.extend(host.extents.iter().cloned());
        return;
    }
    let source = match &job.stdin {
        Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        None => match std::fs::read_to_string(&job.input) {
            Ok(s) => s,
            Err(_) => return,
        },
    };
    let dim = |s: crate::launch::Shape| Dim3 {
        x: s.x,
        y: s.y,
        z: s.z,
    };
    for l in crate::launch::find_launches(&source) {
        let origin = ShapeOrigin::HostLaunch { line: l.line };
        if let Some(b) = l.block {
            opts.kernel_blocks.push(KernelShape {
                kernel: l.kernel.clone(),
                dim: dim(b),
                origin,
            });
        }
        if let Some(g) = l.grid {
            opts.kernel_grids.push(KernelShape {
                kernel: l.kernel,
                dim: dim(g),
                origin,
            });
        }
    }
}

/// From keyed PTX to the user's PTX: operators written, keys removed,
/// report completed with what the PTX holds.
///
/// `plain`, when given, is the same code compiled with the user's debug
/// info and without keys: the decisions are moved onto it (`transplant`),
/// so its debug info is exactly clang's; where debug info changed the code,
/// it is kept as clang wrote it and the report says so.
fn finish_ptx(
    job: &Job,
    keyed: &str,
    mut report: Report,
    plain: Option<&str>,
) -> Result<(String, Report)> {
    let strip = Strip::AllDebugInfo;
    let unreadable =
        |e: ptx::PtxError| anyhow!("cannot read the backend's PTX for {}: {e}", shown(job));
    let mut applied = ptx::apply(keyed, strip).map_err(unreadable)?;
    let recovered = ptx::recover(&report, &applied);
    if !recovered.is_empty() {
        applied = ptx::apply_with(keyed, strip, &recovered).map_err(unreadable)?;
    }
    ptx::account(&mut report, &applied);
    let unaccounted: u32 = report
        .kernels
        .iter()
        .filter_map(|k| k.ptx.as_ref())
        .map(|p| p.unaccounted)
        .sum();
    if unaccounted > 0 {
        report.warnings.push(format!(
            "{unaccounted} ld.global in the PTX came from no load the analysis saw; left as clang wrote them"
        ));
    }
    let text = match plain.map(|p| transplant(&applied.text, p)) {
        None => applied.text,
        Some(Ok(text)) => text,
        Some(Err(mismatch)) => {
            report.warnings.push(format!(
                "{mismatch}; every load left as clang wrote it with these debug flags"
            ));
            plain.unwrap_or_default().to_string()
        }
    };
    if job.verify_ptx {
        let cuda = toolchain::cuda(job.cuda_path.as_deref())?.path;
        let tmp = crate::output::temp_dir()?;
        let check = tmp.path().join("check.ptx");
        std::fs::write(&check, &text)?;
        verify_ptx(
            &cuda,
            &check,
            &applied.target.arch.to_string(),
            &job.ptxas_flags,
            job.verbose,
        )
        .map_err(|_| {
            anyhow!(
                "ptxas rejected the PTX for {} (its errors are above); no output written",
                shown(job)
            )
        })?;
    }
    Ok((text, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_keyed_compile_drops_debug_flags_with_their_arch_prefix() {
        // nvcc's -lineinfo, then -g: a lone -Xarch_device left behind would
        // take the next flag (the driver's --cuda-device-only) as its own.
        let flags = strings(&[
            "-Xarch_device",
            "-gline-tables-only",
            "-O2",
            "-g",
            "-g0",
            "-Xarch_host",
            "-Wall",
        ]);
        assert_eq!(
            without_debug(&flags),
            strings(&["-O2", "-Xarch_host", "-Wall"])
        );
    }
}
