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

use std::path::Path;
use std::process::Command;

use anyhow::{anyhow, bail, Context as _, Result};
use gpucc_cache_pass::options::{Options, ENV_OPTIONS};
use gpucc_cache_pass::ptx::{self, Strip};
use gpucc_cache_pass::{is_nvptx, run_on, write_report, Lowering, Mode, Report, ReportFormat};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetTriple,
};
use inkwell::OptimizationLevel;

use crate::args::{Job, Output};
use crate::toolchain;

/// clang's default CUDA arch (clang 19).
const DEFAULT_ARCH: &str = "sm_52";

fn is_ir(input: &Path) -> bool {
    matches!(
        input.extension().and_then(|e| e.to_str()),
        Some("ll" | "bc")
    )
}

pub fn run(job: &Job) -> Result<()> {
    crate::output::check_input(&job.input)?;
    if job.output.is_dir() {
        bail!(
            "output '{}' is a directory; give a file name with -o",
            job.output.display()
        );
    }
    let parent = job
        .output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.is_dir() {
        bail!(
            "output directory '{}' does not exist; create it or change -o",
            parent.display()
        );
    }
    crate::output::check_paths(&job.input, &job.output, job.report_file.as_deref())?;
    // Kernel data is input too.
    for d in &job.options.kernel_data {
        for (flag, out) in [
            ("-o", Some(&job.output)),
            ("--cache-report-file", job.report_file.as_ref()),
        ] {
            if out.is_some_and(|o| crate::output::same_file(o, &d.path)) {
                bail!(
                    "{flag} {} would overwrite the kernel data {}; choose another file name",
                    out.map(|o| o.display().to_string()).unwrap_or_default(),
                    d.path.display()
                );
            }
        }
    }
    // Clang's route (and ptxas) need TMPDIR, clang for its own intermediates
    // too; a bad one fails here with a message that names it, not half-way.
    if !is_ir(&job.input) || job.verify_ptx {
        crate::output::temp_dir()?;
    }
    if is_ir(&job.input) {
        in_process(job)
    } else {
        through_clang(job)
    }
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
    if !job.clang_flags.iter().any(|f| f.starts_with("-O")) {
        cmd.arg("-O3");
    }
    cmd.args(&job.clang_flags);
    cmd
}

fn wants_report(job: &Job) -> bool {
    job.report != ReportFormat::None
}

fn find_tools(job: &Job) -> Result<(toolchain::Found, toolchain::Found)> {
    let clang = toolchain::clang(job.clang.as_deref())?;
    let cuda = toolchain::cuda(job.cuda_path.as_deref())?;
    if job.verbose {
        eprintln!(
            "gpucc-cache: clang: {} ({})",
            clang.path.display(),
            clang.how
        );
        eprintln!("gpucc-cache: CUDA: {} ({})", cuda.path.display(), cuda.how);
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
pub(crate) fn parse_module<'c>(context: &'c Context, input: &Path) -> Result<Module<'c>> {
    let bitcode =
        std::fs::read(input).with_context(|| format!("cannot read {}", input.display()))?;
    if bitcode.iter().all(u8::is_ascii_whitespace) {
        bail!(
            "{} is empty; give an LLVM IR module (.ll) or bitcode (.bc) for nvptx64",
            input.display()
        );
    }
    let buffer =
        MemoryBuffer::create_from_memory_range_copy(&bitcode, &input.display().to_string());
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
pub(crate) fn device_module<'c>(
    job: &Job,
    context: &'c Context,
    tmp: &Path,
    opts: &mut Options,
) -> Result<Module<'c>> {
    crate::output::check_input(&job.input)?;
    if is_ir(&job.input) {
        return parse_module(context, &job.input);
    }
    let (clang, cuda) = find_tools(job)?;
    add_host_launches(&job.input, opts);
    let ir = tmp.join("device.bc");
    let mut cmd = clang_command(job, &clang.path, &cuda.path);
    // Parameter names, so that --kernel-arg can name them.
    cmd.args([
        "--cuda-device-only",
        "-c",
        "-emit-llvm",
        "-fno-discard-value-names",
        "-o",
    ])
    .arg(&ir)
    .arg(&job.input);
    match toolchain::run(&mut cmd, job.verbose)? {
        toolchain::Ended::Ok => parse_module(context, &ir),
        toolchain::Ended::Failed => {
            bail!(
                "clang failed on {} (its errors are above)",
                job.input.display()
            )
        }
        toolchain::Ended::Crashed(sig) => {
            bail!("clang crashed (signal {sig}) on {}", job.input.display())
        }
    }
}

fn in_process(job: &Job) -> Result<()> {
    if job.kind == Output::Object {
        bail!(
            "-c needs a .cu input (objects embed host code); {} is IR",
            job.input.display()
        );
    }
    let opts = job.options.clone();
    let context = Context::create();
    let module = parse_module(&context, &job.input)?;
    // Whether the user's module carries debug info (then only the keys are
    // removed from the PTX, not the user's line table).
    let had_debug = module.get_global_metadata_size("llvm.dbg.cu") > 0;
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
    match job.kind {
        Output::LlvmText => module
            .print_to_file(&job.output)
            .map_err(|e| anyhow!("cannot write {}: {e}", job.output.display()))?,
        Output::LlvmBitcode => {
            if !module.write_bitcode_to_path(&job.output) {
                bail!(
                    "cannot write {}; check the directory exists and is writable",
                    job.output.display()
                );
            }
        }
        Output::Ptx => {
            let ptx = emit_ptx(&module, &arch, job.opt_level)?;
            let keyed = String::from_utf8_lossy(&ptx);
            let strip = if had_debug {
                Strip::KeysOnly
            } else {
                Strip::AllDebugInfo
            };
            let report = outcome
                .report
                .ok_or_else(|| anyhow!("internal error: the pass returned no report"))?;
            return finish_ptx(job, &keyed, report, strip);
        }
        Output::Object => unreachable!("objects go through clang"),
    }
    if let Some(report) = outcome.report {
        write_report(&report, job.report, job.report_file.as_deref())
            .map_err(|e| anyhow!("{e}"))?;
    }
    Ok(())
}

/// `-use-unknown-locations=Enable`, as the `.cu` route passes it to clang:
/// an instruction without a location gets a line-0 record rather than the
/// previous instruction's (which may be a load's key). Debug output only.
fn unknown_locations_get_line_zero() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args = [
            c"gpucc-cache".as_ptr(),
            c"-use-unknown-locations=Enable".as_ptr(),
        ];
        // SAFETY: two valid C strings; LLVM parses its options once here.
        unsafe {
            llvm_sys::support::LLVMParseCommandLineOptions(2, args.as_ptr(), std::ptr::null())
        };
    });
}

/// PTX from the module with LLVM's NVPTX backend, configured as clang
/// configures it (CPU and PTX version from the module's own attributes).
fn emit_ptx(module: &Module, arch: &str, opt_level: u8) -> Result<Vec<u8>> {
    Target::initialize_nvptx(&InitializationConfig::default());
    unknown_locations_get_line_zero();
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

fn verify_ptx(cuda: &Path, ptx: &Path, arch: &str, verbose: bool) -> Result<()> {
    let ptxas = toolchain::ptxas(cuda)?;
    let out = tempfile::NamedTempFile::new()?;
    let mut cmd = Command::new(&ptxas);
    cmd.arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg(out.path());
    if !matches!(toolchain::run(&mut cmd, verbose)?, toolchain::Ended::Ok) {
        bail!("ptxas rejected {} (its errors are above)", ptx.display());
    }
    Ok(())
}

/// `-c` and remark runs: clang drives, the plugin decides.
fn through_clang(job: &Job) -> Result<()> {
    let (clang, cuda) = find_tools(job)?;
    if job.kind == Output::Object && !toolchain::is_full_toolkit(&cuda.path) {
        bail!(
            "-c needs a full CUDA toolkit (fatbinary and ptxas), and {} has none; set CUDA_PATH to a CUDA install, or drop -c to get PTX",
            cuda.path.display()
        );
    }
    let plugin = toolchain::plugin()?;
    let tmp = crate::output::temp_dir()?;
    let report_path = tmp.path().join("report.json");
    let keyed_ptx = tmp.path().join("keyed.ptx");
    let ptx = job.kind == Output::Ptx;
    let mut opts = Options {
        report: ReportFormat::Json,
        report_file: Some(report_path.clone()),
        ..job.options.clone()
    };
    add_host_launches(&job.input, &mut opts);
    let mut cmd = clang_command(job, &clang.path, &cuda.path);
    match job.kind {
        Output::Object => {
            cmd.arg("-c");
        }
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
    } else if job.kind != Output::Object && wants_report(job) && !job.debug {
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
    cmd.arg(format!("-fpass-plugin={}", plugin.display()));
    cmd.env(ENV_OPTIONS, opts.to_params());
    let out = if ptx { &keyed_ptx } else { &job.output };
    cmd.arg("-o").arg(out).arg(&job.input);
    match toolchain::run(&mut cmd, job.verbose)? {
        toolchain::Ended::Ok => {}
        toolchain::Ended::Failed => {
            bail!("clang failed on {} (its errors are above)", job.input.display())
        }
        toolchain::Ended::Crashed(sig) => bail!(
            "clang crashed (signal {sig}) on {}; rerun with --cache-policy=off to see whether gpucc-cache is involved, and report it",
            job.input.display()
        ),
    }
    let text = std::fs::read_to_string(&report_path).context("the plugin wrote no report")?;
    let report: Report =
        serde_json::from_str(&text).context("the plugin's report is not valid JSON")?;
    if ptx {
        let keyed = std::fs::read_to_string(&keyed_ptx).context("clang wrote no PTX")?;
        let strip = if job.debug {
            Strip::KeysOnly
        } else {
            Strip::AllDebugInfo
        };
        return finish_ptx(job, &keyed, report, strip);
    }
    if wants_report(job) {
        write_report(&report, job.report, job.report_file.as_deref())
            .map_err(|e| anyhow!("{e}"))?;
    }
    Ok(())
}

/// Block and grid shapes of the constant launches in the file's host code
/// (`<<<grid, block>>>`, `cudaLaunchKernel`), after the user's own: the
/// analysis needs the shape the program really uses.
fn add_host_launches(input: &Path, opts: &mut Options) {
    use gpucc_cache_pass::options::{Dim3, KernelShape, ShapeOrigin};
    let Ok(source) = std::fs::read_to_string(input) else {
        return;
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
/// report completed with what the PTX holds. The report is written first,
/// so that a failure leaves no PTX behind; the PTX is written atomically.
fn finish_ptx(job: &Job, keyed: &str, mut report: Report, strip: Strip) -> Result<()> {
    let unreadable = |e: ptx::PtxError| {
        anyhow!(
            "cannot read the backend's PTX for {}: {e}",
            job.input.display()
        )
    };
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
    if job.verify_ptx {
        let cuda = toolchain::cuda(job.cuda_path.as_deref())?.path;
        let tmp = crate::output::temp_dir()?;
        let check = tmp.path().join("check.ptx");
        std::fs::write(&check, &applied.text)?;
        verify_ptx(&cuda, &check, &applied.target.arch.to_string(), job.verbose).map_err(|_| {
            anyhow!(
                "ptxas rejected the PTX for {} (its errors are above); no output written",
                job.input.display()
            )
        })?;
    }
    if wants_report(job) {
        write_report(&report, job.report, job.report_file.as_deref())
            .map_err(|e| anyhow!("{e}"))?;
    }
    crate::output::write_atomic(&job.output, applied.text.as_bytes())
}
