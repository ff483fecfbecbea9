//! Whole programs: objects (`-c`), executables and shared libraries, and
//! device outputs for several archs (design.md §10).
//!
//! The driver edits clang's PTX after the backend, so clang cannot make the
//! device code of an object itself. For each CUDA input and GPU target the
//! device compile (`compile::device`, the PTX route) gives decided PTX;
//! ptxas assembles it into a cubin; CUDA 13's `fatbinary` bundles the
//! cubins and the PTX asked for (`--image3=kind=elf|ptx,sm=XX,file=...`;
//! clang 19's own `--image=profile=` call form is rejected by it); and the
//! host compile embeds the bundle with `-fcuda-include-gpubinary`, as clang
//! itself does with its own. C and C++ inputs are compiled by clang alone,
//! object files and libraries go to the link, which adds the CUDA runtime
//! from the CUDA root (`-lcudart`, shared: NVIDIA's wheel has no static
//! one).
//!
//! Every file is planned and written through `output::Outputs`: nothing is
//! written unless the whole build succeeded. Separate compilation
//! (`-fgpu-rdc`) is refused in `args`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{anyhow, bail, Context as _, Result};
use gpucc_cache_pass::options::{
    Dim3, KernelShape, LaunchArg, LaunchExtent, LaunchOverlap, Options, ShapeOrigin,
};
use gpucc_cache_pass::{Report, ReportFormat};

use crate::args::{Build, BuildKind, GpuTarget, HostLaunches, InputKind, Job, Language, Output};
use crate::compile;
use crate::output::{Outputs, Slot};
use crate::toolchain::{self, Ended, Found};

/// The tools a build runs.
struct Tools {
    clang: Found,
    cuda: Found,
}

impl Tools {
    fn bin(&self, name: &str) -> Result<PathBuf> {
        let p = self.cuda.path.join("bin").join(name);
        if p.is_file() {
            return Ok(p);
        }
        bail!(
            "{name} not found in {}/bin; objects and executables need ptxas and CUDA 13's fatbinary: run scripts/setup, or set CUDA_PATH to a CUDA install that has them",
            self.cuda.path.display()
        )
    }
}

/// What one input became.
enum Made {
    /// An object in the scratch directory, and the file it is written to.
    Object(PathBuf),
    /// A file the linker takes as it is.
    Linker(PathBuf),
}

pub fn run(b: &Build) -> Result<()> {
    b.check_inputs()?;
    let mut files = Outputs::new();
    for (path, _) in &b.inputs {
        files.input("the input", path)?;
    }
    for d in &b.device.options.kernel_data {
        files.input("the kernel data", &d.path)?;
    }
    let plan = plan(b, &mut files)?;
    let tools = Tools {
        clang: toolchain::clang(b.device.clang.as_deref())?,
        cuda: toolchain::cuda(b.device.cuda_path.as_deref())?,
    };
    let scratch = crate::output::temp_dir()?;
    let mut reports: Vec<Report> = Vec::new();
    let mut made = Vec::new();
    for (i, (input, kind)) in b.inputs.iter().enumerate() {
        let dir = scratch.path().join(i.to_string());
        std::fs::create_dir(&dir)?;
        made.push(match kind {
            InputKind::Device(_) if b.kind == BuildKind::DevicePerArch => {
                per_arch(b, input, &dir, &plan, i, &mut files, &mut reports)?;
                continue;
            }
            InputKind::Device(_) => {
                let obj = cuda_object(b, &tools, input, &dir, &plan, i, &mut files, &mut reports)?;
                Made::Object(obj)
            }
            InputKind::Host => {
                let obj = host_object(b, &tools, input, &dir)?;
                take_deps(&dir, &plan, i, &mut files)?;
                Made::Object(obj)
            }
            InputKind::Linker => Made::Linker(input.clone()),
            InputKind::Unknown => unreachable!("check_inputs refused it"),
        });
    }
    let mut stdout_bytes = None;
    match b.kind {
        BuildKind::Objects => {
            for (m, slot) in made.iter().zip(&plan.objects) {
                if let Made::Object(obj) = m {
                    match slot {
                        Some(slot) => files.fill(*slot, std::fs::read(obj)?),
                        None if to_stdout(b) => stdout_bytes = Some(std::fs::read(obj)?),
                        None => {}
                    }
                }
            }
        }
        BuildKind::Link => {
            let exe = std::fs::read(link(b, &tools, &made, scratch.path())?)?;
            match plan.link {
                Some(slot) => files.fill_executable(slot, exe),
                None => stdout_bytes = Some(exe),
            }
        }
        BuildKind::DevicePerArch => {}
    }
    let report_text = combined(&reports, b.device.report);
    if let (Some(slot), Some(text)) = (plan.report, &report_text) {
        files.fill(slot, text.clone().into_bytes());
    }
    files.commit()?;
    if let Some(bytes) = stdout_bytes {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        out.write_all(&bytes)
            .and_then(|()| out.flush())
            .context("cannot write the output to standard output")?;
    }
    if let (None, Some(text)) = (&b.device.report_file, report_text) {
        crate::say::stderr(&text);
    }
    Ok(())
}

/// The planned outputs of a build.
struct Plan {
    /// Per input: its object (`-c`), if it makes one.
    objects: Vec<Option<Slot>>,
    /// Per input: its dependency file (`-c -MD`).
    deps: Vec<Option<Slot>>,
    /// Per input and target: its device file (several archs) or record.
    per_arch: Vec<Vec<Option<Slot>>>,
    link: Option<Slot>,
    report: Option<Slot>,
}

fn plan(b: &Build, files: &mut Outputs) -> Result<Plan> {
    let mut plan = Plan {
        objects: Vec::new(),
        deps: Vec::new(),
        per_arch: Vec::new(),
        link: None,
        report: None,
    };
    // A name the user did not write is not called `-o` in an error.
    let named = if b.output.is_some() {
        "-o"
    } else {
        "the default output (no -o)"
    };
    for (input, kind) in &b.inputs {
        let compiles = matches!(kind, InputKind::Device(_) | InputKind::Host);
        let object = object_name(b, input);
        plan.objects.push(match b.kind {
            BuildKind::Objects if compiles && !to_stdout(b) => Some(files.output(named, &object)?),
            _ => None,
        });
        plan.deps.push(match (&b.deps, b.kind) {
            (Some((file, _)), BuildKind::Objects | BuildKind::Link) if compiles => {
                // Beside the object (clang's name for it in a link too).
                let beside = Path::new(input.file_name().unwrap_or(input.as_os_str()));
                let default = match b.kind {
                    BuildKind::Objects => object.with_extension("d"),
                    _ => beside.with_extension("d"),
                };
                let f = file.clone().unwrap_or(default);
                Some(files.output("-MF", &f)?)
            }
            _ => None,
        });
        let mut per = Vec::new();
        for t in &b.targets {
            per.push(match (b.kind, kind) {
                (BuildKind::DevicePerArch, InputKind::Device(_)) => Some(
                    files.output("the output of one arch", &arch_output(&b.device, input, t))?,
                ),
                (BuildKind::Objects | BuildKind::Link, InputKind::Device(_))
                    if b.record_format.is_some() =>
                {
                    let format = b.record_format.as_deref().unwrap_or("yaml");
                    let name = match &b.record_file {
                        Some(f) => f.clone(),
                        None => PathBuf::from(format!(
                            "{}-cuda-nvptx64-nvidia-cuda-{}.opt.{format}",
                            object.with_extension("").display(),
                            t.arch
                        )),
                    };
                    Some(files.output("-foptimization-record-file", &name)?)
                }
                _ => None,
            });
        }
        plan.per_arch.push(per);
    }
    if b.kind == BuildKind::Link && !to_stdout(b) {
        let out = b.output.clone().unwrap_or_else(|| PathBuf::from("a.out"));
        plan.link = Some(files.output(named, &out)?);
    }
    if let Some(r) = &b.device.report_file {
        plan.report = Some(files.output("--cache-report-file", r)?);
    }
    Ok(plan)
}

/// `-o -`: the object or program goes to standard output.
fn to_stdout(b: &Build) -> bool {
    b.output.as_ref().is_some_and(|o| o.as_os_str() == "-")
}

/// clang's name for the object of `input` with `-c`: `-o`, else the
/// input's stem with `.o` in the working directory.
fn object_name(b: &Build, input: &Path) -> PathBuf {
    match (&b.output, b.kind) {
        (Some(o), BuildKind::Objects) => o.clone(),
        _ => Path::new(input.file_name().unwrap_or(input.as_os_str())).with_extension("o"),
    }
}

/// `k.cu` for sm_80 → `k-sm_80.ptx` (`.ll`, `.bc`) beside the input.
fn arch_output(job: &Job, input: &Path, t: &GpuTarget) -> PathBuf {
    let ext = match job.kind {
        Output::Ptx => "ptx",
        Output::LlvmText => "ll",
        Output::LlvmBitcode => "bc",
    };
    let stem = input
        .file_stem()
        .unwrap_or(input.as_os_str())
        .to_string_lossy();
    input.with_file_name(format!("{stem}-{}.{ext}", t.arch))
}

/// The device job of `input` for `t`, made in `dir`.
fn device_for(b: &Build, input: &Path, t: &GpuTarget, kind: Output, record: bool) -> Job {
    let mut options = Options {
        arch: Some(t.arch),
        ..b.device.options.clone()
    };
    options.arch = Some(t.arch);
    Job {
        input: input.to_path_buf(),
        output: input.with_extension("ptx"),
        kind,
        arch: Some(t.arch),
        options,
        language: Some(Language::Cuda),
        report_file: None,
        sidecars: crate::args::Sidecars {
            record: record.then(|| {
                let format = b.record_format.clone().unwrap_or_else(|| "yaml".into());
                (PathBuf::from("record"), format)
            }),
            ..b.device.sidecars.clone()
        },
        ..b.device.clone()
    }
}

/// The device compile of `job` in a directory of its own under `dir`, the
/// files it read recorded as inputs of the run; and that directory.
fn device_in(job: &Job, dir: &Path, files: &mut Outputs) -> Result<(compile::Made, PathBuf)> {
    let arch = job
        .arch
        .map_or_else(|| "default".to_string(), |a| a.to_string());
    let sub = dir.join(arch);
    std::fs::create_dir(&sub)?;
    let made = compile::device(job, &sub)?;
    for h in &made.read {
        files.input("a file the source includes", h)?;
    }
    Ok((made, sub))
}

/// Several archs, one device file each.
fn per_arch(
    b: &Build,
    input: &Path,
    dir: &Path,
    plan: &Plan,
    i: usize,
    files: &mut Outputs,
    reports: &mut Vec<Report>,
) -> Result<()> {
    for (k, t) in b.targets.iter().enumerate() {
        let mut job = device_for(b, input, t, b.device.kind, false);
        if let InputKind::Device(l) = b.inputs[i].1 {
            job.language = Some(l);
        }
        let (made, _) = device_in(&job, dir, files)?;
        if let Some(slot) = plan.per_arch[i][k] {
            files.fill(slot, made.output);
        }
        reports.extend(made.report);
    }
    Ok(())
}

/// A CUDA input's host object, its device code embedded.
#[allow(clippy::too_many_arguments)]
fn cuda_object(
    b: &Build,
    tools: &Tools,
    input: &Path,
    dir: &Path,
    plan: &Plan,
    i: usize,
    files: &mut Outputs,
    reports: &mut Vec<Report>,
) -> Result<PathBuf> {
    let mut images: Vec<String> = Vec::new();
    if !b.host_only {
        let ptxas = tools.bin("ptxas")?;
        let (host, warnings) = host_launches(b, tools, input, dir)?;
        for (k, t) in b.targets.iter().enumerate() {
            let record = plan.per_arch[i][k].is_some();
            let job = Job {
                host_launches: Some(host.clone()),
                ..device_for(b, input, t, Output::Ptx, record)
            };
            let (mut made, sub) = device_in(&job, dir, files)?;
            if let Some(r) = made.report.as_mut() {
                r.warnings.extend(warnings.iter().cloned());
            }
            if let (Some(slot), Some(rec)) = (plan.per_arch[i][k], made.record) {
                files.fill(slot, rec);
            }
            reports.extend(made.report);
            let ptx = sub.join("device.ptx");
            std::fs::write(&ptx, &made.output)?;
            let sm = sm_name(t);
            if t.cubin {
                let cubin = sub.join("device.cubin");
                let mut cmd = Command::new(&ptxas);
                cmd.arg(format!("-arch={}", t.arch))
                    .args(&b.ptxas_flags)
                    .arg(&ptx)
                    .arg("-o")
                    .arg(&cubin);
                expect_ok(tool_run(&mut cmd, b.device.verbose)?, "ptxas", input)?;
                images.push(format!(
                    "--image3=kind=elf,sm={sm},file={}",
                    cubin.display()
                ));
            }
            if t.ptx {
                images.push(format!("--image3=kind=ptx,sm={sm},file={}", ptx.display()));
            }
        }
    }
    let fatbin = dir.join("device.fatbin");
    if !images.is_empty() {
        let mut cmd = Command::new(tools.bin("fatbinary")?);
        cmd.arg(format!("--create={}", fatbin.display()))
            .arg("-64")
            .args(&b.fatbinary_flags)
            .args(&images);
        expect_ok(tool_run(&mut cmd, b.device.verbose)?, "fatbinary", input)?;
    }
    // The host side, with the bundle embedded.
    let obj = dir.join("host.o");
    let mut cmd = Command::new(&tools.clang.path);
    cmd.args(["-x", "cuda", "--cuda-host-only"]);
    for t in &b.targets {
        cmd.arg(format!("--cuda-gpu-arch={}", t.arch));
    }
    cmd.arg(format!("--cuda-path={}", tools.cuda.path.display()))
        .arg("-Wno-unknown-cuda-version");
    if !b.device.opt_given {
        cmd.arg("-O3");
    }
    cmd.args(host_side(&b.device.clang_flags))
        .args(&b.host_flags);
    if !images.is_empty() {
        cmd.args(["-Xclang", "-fcuda-include-gpubinary", "-Xclang"])
            .arg(&fatbin);
    }
    deps_flags(b, &mut cmd, dir, input);
    cmd.arg("-c").arg(input).arg("-o").arg(&obj);
    expect_ok(tool_run(&mut cmd, b.device.verbose)?, "clang", input)?;
    take_deps(dir, plan, i, files)?;
    Ok(obj)
}

/// The user's compile flags less those for the device side only
/// (`-Xarch_device X`, and what `--use_fast_math` adds), which a host
/// compile would only warn about as unused.
fn host_side(flags: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        match f.as_str() {
            // The make target goes with the dependency flags (`deps_flags`).
            "-Xarch_device" | "-MT" | "-MQ" => {
                it.next();
            }
            "-fcuda-flush-denormals-to-zero"
            | "-fgpu-approx-transcendentals"
            | "--cuda-noopt-device-debug" => {}
            _ => out.push(f.clone()),
        }
    }
    out
}

/// The user's `-MT`/`-MQ` pairs.
fn make_targets(flags: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        if matches!(f.as_str(), "-MT" | "-MQ") {
            out.push(f.clone());
            out.extend(it.next().cloned());
        }
    }
    out
}

/// The file a launch is written in, for a warning's words, when it is not
/// the compiled source (a header's helper launched the kernel): its file
/// name. `None` for the source itself, or a name the pass option cannot
/// carry (`=`).
fn outside(at: &crate::host_launch::Site, input: &Path) -> Option<String> {
    let name = Path::new(at.file.as_deref()?).file_name()?;
    let name = name.to_string_lossy();
    (Some(name.as_ref()) != input.file_name().map(|n| n.to_string_lossy()).as_deref()
        && !name.contains('='))
    .then(|| name.into_owned())
}

/// The block and grid shapes and the integer arguments of `input`'s
/// launches, from clang's host IR (`host_launch`): a kernel gets a shape
/// when every launch of it has that same constant shape. Launches with
/// different constant grids or blocks pass each one, by line (the model
/// takes the first launch's and weighs the others as scenarios); other
/// launches that disagree give a warning and no shape (the model then falls back to
/// `__launch_bounds__` or its default, unless `--block-dim=NAME=` says).
/// Arguments go to the analysis launch by launch, which takes a value only
/// where all launches of a kernel agree, and says why where they do not.
fn host_launches(
    b: &Build,
    tools: &Tools,
    input: &Path,
    dir: &Path,
) -> Result<(HostLaunches, Vec<String>)> {
    let ir = dir.join("host.ll");
    let mut cmd = Command::new(&tools.clang.path);
    cmd.args(crate::host_launch::HOST_IR_FLAGS);
    for t in &b.targets {
        cmd.arg(format!("--cuda-gpu-arch={}", t.arch));
    }
    cmd.arg(format!("--cuda-path={}", tools.cuda.path.display()))
        .args(host_side(&b.device.clang_flags))
        .args(&b.host_flags)
        .arg(input)
        .arg("-o")
        .arg(&ir);
    // The host object's compile gives the host side's diagnostics; this
    // run's are the same, shown only if it fails.
    let log = dir.join("host-ir.stderr");
    let held = compile::Diagnostics::Held(&log);
    held.apply(&b.device, &mut cmd)?;
    let ended = tool_run(&mut cmd, b.device.verbose)?;
    if !matches!(ended, Ended::Ok) {
        held.show()?;
    }
    expect_ok(ended, "clang", input)?;
    let context = inkwell::context::Context::create();
    let buffer = inkwell::memory_buffer::MemoryBuffer::create_from_file(&ir)
        .map_err(|e| anyhow!("cannot read clang's host IR: {e}"))?;
    let module = context
        .create_module_from_ir(buffer)
        .map_err(|e| anyhow!("cannot parse clang's host IR: {e}"))?;
    let launches = crate::host_launch::launches(&module);
    let escaping = crate::host_launch::escaping(&module);
    let mut warnings = Vec::new();
    let mut host = HostLaunches::default();
    let mut symbols: Vec<&str> = launches.iter().map(|l| l.kernel.symbol.as_str()).collect();
    symbols.dedup();
    symbols.sort_unstable();
    symbols.dedup();
    for symbol in symbols {
        let of: Vec<_> = launches
            .iter()
            .filter(|l| l.kernel.symbol == symbol)
            .collect();
        let lines = |v: &[&crate::host_launch::HostLaunch]| -> String {
            v.iter()
                .filter_map(|l| l.at.as_ref().map(|a| a.line.to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let line = of
            .iter()
            .find_map(|l| l.at.as_ref().map(|a| a.line))
            .unwrap_or(0);
        // A launch whose argument array could not be read (`args` empty)
        // passes unknowns: one per parameter the kernel's other launches show.
        let width = of.iter().map(|l| l.args.len()).max().unwrap_or(0);
        for l in &of {
            for (params, why) in &l.overlaps {
                host.overlaps.push(LaunchOverlap {
                    kernel: symbol.to_string(),
                    file: l.at.as_ref().and_then(|a| outside(a, input)),
                    line: l.at.as_ref().map_or(0, |a| a.line),
                    params: params.clone(),
                    why: why.clone(),
                });
            }
            for index in 0..width {
                host.args.push(LaunchArg {
                    kernel: symbol.to_string(),
                    line: l.at.as_ref().map_or(0, |a| a.line),
                    index: index as u32,
                    value: l.args.get(index).copied().flatten(),
                });
            }
        }
        // Each pointer parameter's allocation, where every launch shows
        // it: the most bytes before and after the pointer. Not for a kernel
        // whose handle other code may launch.
        let all_launches_here = !escaping.contains(symbol);
        for index in (0..width as u32).filter(|_| all_launches_here) {
            let shown: Option<Vec<(u64, u64)>> = (of.iter())
                .map(|l| l.extents.iter().find(|e| e.0 == index).map(|e| (e.1, e.2)))
                .collect();
            if let Some(shown) = shown.filter(|s| !s.is_empty()) {
                host.extents.push(LaunchExtent {
                    kernel: symbol.to_string(),
                    index,
                    before: shown.iter().map(|e| e.0).max().unwrap_or(0),
                    bytes: shown.iter().map(|e| e.1).max().unwrap_or(0),
                });
            }
        }
        for (what, out, shape_of) in [
            (
                "block",
                &mut host.blocks,
                (|l: &crate::host_launch::HostLaunch| l.block) as fn(&_) -> _,
            ),
            (
                "grid",
                &mut host.grids,
                |l: &crate::host_launch::HostLaunch| l.grid,
            ),
        ] {
            let shape = |d: crate::launch::Shape, line: u32| KernelShape {
                kernel: symbol.to_string(),
                dim: Dim3 {
                    x: d.x,
                    y: d.y,
                    z: d.z,
                },
                origin: ShapeOrigin::HostLaunch { line },
            };
            let first = shape_of(of[0]);
            if of.iter().all(|l| shape_of(l) == first) {
                out.extend(first.map(|d| shape(d, line)));
            } else if shapes_by_line(&of, input) {
                // Every launch's constant shape, by its line: the model
                // takes the first launch's with its arguments, and walks
                // each other launch's as a scenario (`analysis::launch`).
                for l in &of {
                    if let (Some(d), Some(at)) = (shape_of(l), &l.at) {
                        out.push(shape(d, at.line));
                    }
                }
            } else {
                warnings.push(format!(
                    "{}: launched with different {what} shapes (lines {}); no {what} shape taken from the launches, give --{what}-dim={}=... to choose",
                    of[0].kernel.name,
                    lines(&of),
                    of[0].kernel.name
                ));
            }
        }
    }
    Ok((host, warnings))
}

/// Whether the launches `of` (of one kernel, with different grids or
/// blocks) may each pass its shapes by line: every launch at a line of the
/// compiled file (lines of a header would be compared with its lines), a
/// shape that differs between launches a constant in each (and the block
/// where grids differ), no line with two different shapes (a macro, an unrolled loop: which shape goes with which
/// arguments is not known).
fn shapes_by_line(of: &[&crate::host_launch::HostLaunch], input: &Path) -> bool {
    let lines: Option<Vec<(u32, &crate::host_launch::HostLaunch)>> = (of.iter())
        .map(|l| {
            let at = l.at.as_ref().filter(|a| outside(a, input).is_none())?;
            Some((at.line, *l))
        })
        .collect();
    let Some(lines) = lines else {
        return false;
    };
    let constant_where_they_differ = |shape: fn(&crate::host_launch::HostLaunch) -> _| {
        let first: Option<crate::launch::Shape> = shape(of[0]);
        of.iter().all(|l| shape(l) == first) || of.iter().all(|l| shape(l).is_some())
    };
    // Different grids with no constant block would give the model a
    // default block no launch uses.
    let blocks_known = of.iter().all(|l| l.block.is_some());
    let grids_same = of.iter().all(|l| l.grid == of[0].grid);
    constant_where_they_differ(|l| l.grid)
        && constant_where_they_differ(|l| l.block)
        && (grids_same || blocks_known)
        && (lines.iter()).all(|(a, x)| {
            (lines.iter()).all(|(b, y)| a != b || (x.grid == y.grid && x.block == y.block))
        })
}

/// fatbinary's name for an arch: `sm=80`, `sm=90a`.
fn sm_name(t: &GpuTarget) -> String {
    t.arch.to_string().trim_start_matches("sm_").to_string()
}

/// `-MD -MF` for a host compile whose dependency list is asked for, into
/// `dir`, naming the object as the target (unless `-MT`/`-MQ` did).
fn deps_flags(b: &Build, cmd: &mut Command, dir: &Path, input: &Path) {
    // Always asked for: the headers are inputs no output may overwrite.
    // `-MMD` only when the user's file must be that.
    let user_only = b.deps.as_ref().is_some_and(|(_, user_only)| *user_only);
    cmd.arg(if user_only { "-MMD" } else { "-MD" })
        .arg("-MF")
        .arg(dir.join("host.d"));
    if b.device.sidecars.deps_target_given {
        cmd.args(make_targets(&b.device.clang_flags));
    } else {
        cmd.arg("-MQ").arg(object_name(b, input));
    }
}

/// The host compile's dependency list: its files become inputs of the run,
/// and the user's dependency file when one was asked for.
fn take_deps(dir: &Path, plan: &Plan, i: usize, files: &mut Outputs) -> Result<()> {
    let d = std::fs::read(dir.join("host.d")).context("clang wrote no dependency file")?;
    for h in crate::depfile::dependencies(&String::from_utf8_lossy(&d)) {
        files.input("a file the source includes", &h)?;
    }
    if let Some(slot) = plan.deps[i] {
        files.fill(slot, d);
    }
    Ok(())
}

/// A C or C++ input, compiled by clang alone.
fn host_object(b: &Build, tools: &Tools, input: &Path, dir: &Path) -> Result<PathBuf> {
    let obj = dir.join("host.o");
    let mut cmd = Command::new(&tools.clang.path);
    cmd.args(host_side(&b.device.clang_flags))
        .args(&b.host_flags);
    deps_flags(b, &mut cmd, dir, input);
    cmd.arg("-c").arg(input).arg("-o").arg(&obj);
    expect_ok(tool_run(&mut cmd, b.device.verbose)?, "clang", input)?;
    Ok(obj)
}

/// The link: every object and linker input, the user's link flags, and the
/// CUDA runtime from the CUDA root (found at run time through the rpath,
/// which `LD_LIBRARY_PATH` overrides, e.g. with a simulator's library).
fn link(b: &Build, tools: &Tools, made: &[Made], scratch: &Path) -> Result<PathBuf> {
    let out = scratch.join("a.out");
    let mut cmd = Command::new(&tools.clang.path);
    for m in made {
        match m {
            Made::Object(p) | Made::Linker(p) => cmd.arg(p),
        };
    }
    let lib = tools.cuda.path.join("lib64");
    let (link_flags, names_cudart) = runtime_libraries(&b.link_flags, &lib, b.device.verbose)?;
    if b.device.verbose {
        // clang prints the linker's command line, as `clang -v` does; CMake
        // reads its implicit link directories from it.
        cmd.arg("-v");
    }
    cmd.args(&b.host_flags).args(&link_flags);
    if b.cudart {
        cmd.arg(format!("-L{}", lib.display()));
        if b.cudart_static && !names_cudart {
            // nvcc's -cudart static: the static runtime and what it needs.
            if !lib.join("libcudart_static.a").is_file() {
                bail!(
                    "-cudart static needs libcudart_static.a, which {} does not have (NVIDIA's runtime wheel ships only the shared one); use -cudart shared, or CUDA_PATH to a full CUDA install",
                    lib.display()
                );
            }
            cmd.args(["-lcudart_static", "-ldl", "-lpthread", "-lrt"]);
        } else if !names_cudart {
            cmd.arg("-lcudart");
        }
        cmd.arg(format!("-Wl,-rpath,{}", lib.display()));
    }
    cmd.arg("-o").arg(&out);
    match tool_run(&mut cmd, b.device.verbose)? {
        Ended::Ok => Ok(out),
        Ended::Failed => bail!("the link failed (the linker's errors are above)"),
        Ended::Crashed(sig) => bail!("the linker crashed (signal {sig})"),
    }
}

/// The link flags, with the CUDA runtime libraries that CMake names for a
/// CUDA link (`CMAKE_CUDA_RUNTIME_LIBRARY`: `-lcudadevrt` with `-lcudart`
/// or `-lcudart_static`, Modules/Compiler/Clang-CUDA.cmake) checked against
/// the CUDA root `lib` and the `-L` directories; and whether a cudart was
/// named (then the driver adds none of its own, only the directory and the
/// rpath). NVIDIA's runtime wheel has neither `libcudadevrt.a` nor
/// `libcudart_static.a`:
/// - `-lcudadevrt` is dropped when no directory has it: it holds the
///   device runtime that only separate compilation links (`-rdc`, refused
///   in `args`), so a whole-program link takes nothing from it;
/// - `-lcudart_static` without the library is an error that names the fix,
///   rather than the linker's "cannot find".
fn runtime_libraries(flags: &[String], lib: &Path, verbose: bool) -> Result<(Vec<String>, bool)> {
    let mut dirs = vec![lib.to_path_buf()];
    let mut libs = Vec::new();
    let mut it = flags.iter().peekable();
    while let Some(f) = it.next() {
        match f.as_str() {
            "-L" => dirs.extend(it.peek().map(PathBuf::from)),
            "-l" => libs.extend(it.peek().map(|l| l.to_string())),
            _ => {
                if let Some(d) = f.strip_prefix("-L") {
                    dirs.push(d.into());
                } else if let Some(l) = f.strip_prefix("-l") {
                    libs.push(l.to_string());
                }
            }
        }
    }
    let has = |name: &str| dirs.iter().any(|d| d.join(name).is_file());
    if libs.iter().any(|l| l == "cudart_static") && !has("libcudart_static.a") {
        bail!(
            "-lcudart_static: no libcudart_static.a in {} or the -L directories (NVIDIA's runtime wheel has none); link the shared runtime (with CMake: -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared), or add -L for a directory that has it",
            lib.display()
        );
    }
    let drop_devrt = !has("libcudadevrt.a");
    if drop_devrt && verbose && libs.iter().any(|l| l == "cudadevrt") {
        say!("gpucc-cache: note: -lcudadevrt dropped: no libcudadevrt.a in {} or the -L directories, and a link without -rdc takes nothing from it", lib.display());
    }
    let mut out = Vec::new();
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        if f == "-l" {
            let l = it.next();
            if !(drop_devrt && l.is_some_and(|l| l == "cudadevrt")) {
                out.push(f.clone());
                out.extend(l.cloned());
            }
        } else if !(drop_devrt && f == "-lcudadevrt") {
            out.push(f.clone());
        }
    }
    let names_cudart = libs.iter().any(|l| l == "cudart" || l == "cudart_static");
    Ok((out, names_cudart))
}

fn tool_run(cmd: &mut Command, verbose: bool) -> Result<Ended> {
    toolchain::run(cmd, verbose)
}

fn expect_ok(ended: Ended, tool: &str, input: &Path) -> Result<()> {
    match ended {
        Ended::Ok => Ok(()),
        Ended::Failed => bail!(
            "{tool} failed on {} (its errors are above)",
            input.display()
        ),
        Ended::Crashed(sig) => bail!("{tool} crashed (signal {sig}) on {}", input.display()),
    }
}

/// The reports of a build in one text: each arch's and input's report in
/// turn; in JSON one report as it is, several as `{"reports": [...]}`.
pub fn combined(reports: &[Report], format: ReportFormat) -> Option<String> {
    match (format, reports) {
        (ReportFormat::None, _) | (_, []) => None,
        (ReportFormat::Text, _) => Some(reports.iter().map(Report::to_text).collect()),
        (ReportFormat::Json, [one]) => Some(one.to_json()),
        (ReportFormat::Json, many) => {
            let all: Vec<serde_json::Value> = many
                .iter()
                .map(|r| serde_json::from_str(&r.to_json()).map_err(|e| anyhow!("{e}")))
                .collect::<Result<_>>()
                .ok()?;
            serde_json::to_string_pretty(&serde_json::json!({ "reports": all }))
                .ok()
                .map(|s| s + "\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn cmakes_runtime_libraries_meet_the_cuda_root() {
        let root = tempfile::tempdir().unwrap();
        let lib = root.path().join("lib64");
        let other = root.path().join("other");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(lib.join("libcudart.so"), "").unwrap();
        // CMAKE_CUDA_RUNTIME_LIBRARY=Shared with the wheels' root: the
        // device runtime goes, cudart stays and is the driver's no more.
        let (flags, named) =
            runtime_libraries(&strings(&["-lcudadevrt", "-lcudart", "-lm"]), &lib, false).unwrap();
        assert_eq!(flags, ["-lcudart", "-lm"]);
        assert!(named);
        let (flags, named) =
            runtime_libraries(&strings(&["-l", "cudadevrt", "-lm"]), &lib, false).unwrap();
        assert_eq!(flags, ["-lm"]);
        assert!(!named);
        // The default (Static): one error that names the fix.
        let e = runtime_libraries(&strings(&["-lcudadevrt", "-lcudart_static"]), &lib, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("CMAKE_CUDA_RUNTIME_LIBRARY=Shared"), "{e}");
        // Static libraries from elsewhere are taken as they are.
        std::fs::write(other.join("libcudart_static.a"), "").unwrap();
        std::fs::write(other.join("libcudadevrt.a"), "").unwrap();
        let given = strings(&[
            "-L",
            other.to_str().unwrap(),
            "-lcudadevrt",
            "-lcudart_static",
        ]);
        let (flags, named) = runtime_libraries(&given, &lib, false).unwrap();
        assert_eq!(flags, given);
        assert!(named);
    }

    #[test]
    fn host_compiles_leave_out_device_only_flags() {
        let flags = strings(&[
            "-Xarch_device",
            "-ffast-math",
            "-fcuda-flush-denormals-to-zero",
            "-fgpu-approx-transcendentals",
            "-std=c++17",
        ]);
        assert_eq!(host_side(&flags), ["-std=c++17"]);
    }
}
