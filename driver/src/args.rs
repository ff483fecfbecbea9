//! The command line: gpucc-cache's own flags (parsed with clap) and clang's
//! (passed through, with the few the driver must understand picked out:
//! inputs, `-o`, `-c`, `-S`, `-emit-llvm`, the GPU arch, `-O`, `-g`,
//! `--cuda-path`, `-v`).
//!
//! A flag that looks like ours but is misspelled is an error here, with the
//! nearest spelling, rather than an unknown flag for clang. Clang modes that
//! make no device code (`-E`, `-M`, `-MM`, `-fsyntax-only`, `-###`) become a
//! pass-through run. It does not look at the file system: whether the input
//! exists or an output would clobber it is `output`'s question.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use clap::Parser;
use gpucc_cache_pass::gpu::generation::Arch;
use gpucc_cache_pass::options::{KernelShape, LaunchArg, LaunchExtent, LaunchOverlap, Options};
use gpucc_cache_pass::ReportFormat;

/// gpucc-cache's own flags.
#[derive(Parser, Debug)]
#[command(
    name = "gpucc-cache",
    version,
    about = "Drop-in clang CUDA wrapper that picks the L1 cache operator of every global load",
    override_usage = "gpucc-cache [OPTIONS] [CLANG FLAGS] <kernel.cu | module.ll | module.bc>",
    after_help = "Other flags go to clang unchanged (-O0..3, -I, -D, -std=, --cuda-gpu-arch=sm_XX or -arch=sm_XX, \
                  -S -emit-llvm, -c, -o, -v, -Rpass=gpucc-cache, -fsave-optimization-record, ...).\n\n\
                  Subcommands: 'gpucc-cache locality FILE --kernel=NAME ...' draws a kernel's locality curves; \
                  'gpucc-cache apply KEYED.ptx -o OUT.ptx' finishes the plugin's lower=keys route (each takes --help)."
)]
struct Own {
    /// auto (default: the kernel-level model) | conservative | aggressive | cache-all | cache-none | off
    #[arg(long, value_name = "POLICY")]
    cache_policy: Option<String>,
    /// Threads per block, X[xY[xZ]], or NAME=X[xY[xZ]] for one kernel (repeatable; default:
    /// reqntid, else __launch_bounds__, else the host launch, else 256)
    #[arg(long, value_name = "[NAME=]X[xY[xZ]]")]
    block_dim: Vec<String>,
    /// Blocks per grid, X[xY[xZ]], or NAME=X[xY[xZ]] for one kernel (repeatable; needed by
    /// --sample-blocks and nctaid in addresses)
    #[arg(long, value_name = "[NAME=]X[xY[xZ]]")]
    grid_dim: Vec<String>,
    /// Value of an integer kernel argument, by name or index (repeatable)
    #[arg(long, value_name = "NAME_OR_INDEX=VALUE")]
    kernel_arg: Vec<String>,
    /// Bind a raw little-endian array FILE to a pointer kernel argument, by name or
    /// index (repeatable): the model reads indices loaded from it (see `partition`)
    #[arg(long, value_name = "NAME_OR_INDEX=FILE")]
    kernel_data: Vec<String>,
    /// Evaluate N blocks spread over the grid and decide on the mean (needs --grid-dim); the per-load analysis grows linearly in N: 1024 took 26 s vs 6 s at the default on corpus/matmul_global_tiles.cu (sm_90, a loaded 2-core machine)
    #[arg(long, value_name = "N")]
    sample_blocks: Option<String>,
    /// Traffic model: fermi | sectored (default: from the arch)
    #[arg(long, value_name = "NAME")]
    cache_model: Option<String>,
    /// L1 bytes a block can use, e.g. 49152 or 48K (default: from arch and model)
    #[arg(long, value_name = "BYTES|NK")]
    l1_size: Option<String>,
    /// Model the GPU that FILE describes (key = value lines, base = sm_XX) instead of the
    /// arch's table entry; one --cuda-gpu-arch only
    #[arg(long, value_name = "FILE")]
    machine: Option<String>,
    /// Registers per thread of one kernel, as ptxas reports them (repeatable): the occupancy
    /// uses it instead of measuring the PTX with ptxas -v (default), or of the estimated 32
    /// where no ptxas is found
    #[arg(long, value_name = "NAME=N")]
    registers: Vec<String>,
    /// Force the decision of listed loads: lines SYMBOL SITE cache|bypass, as the JSON report
    /// names them
    #[arg(long, value_name = "FILE")]
    decisions: Option<String>,
    /// Report format: text | json | none (default text, to stderr)
    #[arg(long, value_name = "FORMAT")]
    cache_report: Option<String>,
    /// Write the report to PATH instead of stderr
    #[arg(long, value_name = "PATH")]
    cache_report_file: Option<PathBuf>,
    /// Assemble the PTX with ptxas and fail on any error
    #[arg(long)]
    verify_ptx: bool,
    /// clang++ 19 to use (default: GPUCC_CACHE_CLANG, then clang++-19 on PATH)
    #[arg(long, value_name = "PATH")]
    clang: Option<PathBuf>,
}

/// Our flags that take a value.
const OWN_VALUED: &[&str] = &[
    "--cache-policy",
    "--block-dim",
    "--grid-dim",
    "--kernel-arg",
    "--kernel-data",
    "--sample-blocks",
    "--cache-model",
    "--l1-size",
    "--machine",
    "--decisions",
    "--registers",
    "--cache-report",
    "--cache-report-file",
    "--clang",
];
const OWN_FLAGS: &[&str] = &["--verify-ptx", "--help", "-h", "--version", "-V"];

/// Clang flags whose value is the next argument (so it is neither an input
/// nor one of the flags below: `-Xcuda-ptxas -O0` is ptxas's -O0, not the
/// compile's). From clang 19's `Options.td` (`Separate` and
/// `JoinedOrSeparate` kinds that CUDA users reach for).
const CLANG_VALUED: &[&str] = &[
    "-I",
    "-D",
    "-U",
    "-include",
    "-include-pch",
    "-imacros",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isystem",
    "-isystem-after",
    "-iquote",
    "-isysroot",
    "-ivfsoverlay",
    "-iframework",
    "-cxx-isystem",
    "-F",
    "-Xclang",
    "-mllvm",
    "-Xarch_device",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xoffload-linker",
    "-Xanalyzer",
    "-MT",
    "-MQ",
    "-target",
    "--target",
    "-z",
    "-u",
    "-T",
    "-e",
    "--param",
    "-working-directory",
    "-serialize-diagnostics",
    "--gpu-max-threads-per-block",
];

/// Flags that turn debug info on (clang 19, checked on the device side:
/// each puts `.loc` lines in the PTX); `-g0` turns it off, the last one
/// wins. Other `-g` spellings (`-gz`, `-gcolumn-info`, `-gsplit-dwarf`,
/// `-gdwarf64`, ...) change how debug info is written, not whether.
pub fn enables_debug(flag: &str) -> bool {
    matches!(
        flag,
        "-g" | "-gline-tables-only"
            | "-gline-directives-only"
            | "-gmlt"
            | "-gdwarf"
            | "-gfull"
            | "-gused"
            | "-glldb"
            | "-gsce"
            | "-gdbx"
            | "-gmodules"
    ) || flag.starts_with("-ggdb")
        || flag
            .strip_prefix("-gdwarf-")
            .is_some_and(|v| v.parse::<u8>().is_ok())
        || flag
            .strip_prefix("-g")
            .is_some_and(|v| matches!(v, "1" | "2" | "3"))
}

/// Whether the flag pair `flag value` turns the device side's debug info
/// on (`Some(true)`) or off (`Some(false)`): `-Xarch_device -g` (any flag
/// of [`enables_debug`], or `-g0`), `-Xclang -debug-info-kind=KIND` (on
/// unless KIND is `none`); `None` for any other pair.
pub fn debug_pair(flag: &str, value: &str) -> Option<bool> {
    match flag {
        "-Xarch_device" if enables_debug(value) => Some(true),
        "-Xarch_device" if value == "-g0" => Some(false),
        "-Xclang" => value
            .strip_prefix("-debug-info-kind=")
            .map(|kind| kind != "none"),
        _ => None,
    }
}

/// Clang modes that produce no device code (preprocessing, dependency
/// lists, a syntax check, the command lines clang would run): the driver
/// hands them to clang whole, so build systems get clang's own answer.
const PASS_THROUGH: &[&str] = &["-E", "-M", "-MM", "-fsyntax-only", "-###"];

/// Prefixes of our flags: an unknown flag that starts with one is a
/// misspelling of ours, not a clang flag.
const OWN_PREFIXES: &[&str] = &[
    "--cache", "--block", "--grid", "--kernel", "--sample", "--l1", "--verify",
];
/// Clang flags that share those prefixes.
const CLANG_LOOKALIKES: &[&str] = &["--verify-debug-info"];

/// What the driver produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    Ptx,
    LlvmText,
    LlvmBitcode,
}

#[derive(Clone, Debug)]
pub struct Job {
    pub input: PathBuf,
    pub output: PathBuf,
    pub kind: Output,
    pub arch: Option<Arch>,
    pub opt_level: u8,
    /// Whether the user gave `-O`: without one the driver adds clang's
    /// `-O3`, as it always has.
    pub opt_given: bool,
    pub debug: bool,
    pub options: Options,
    pub report: ReportFormat,
    pub report_file: Option<PathBuf>,
    pub verify_ptx: bool,
    pub clang: Option<PathBuf>,
    pub cuda_path: Option<PathBuf>,
    pub verbose: bool,
    /// Flags for clang, unchanged (less those the driver routes itself:
    /// `-x`, `-o`, the dependency and record files).
    pub clang_flags: Vec<String>,
    /// The user's command as clang would see it: every argument that is
    /// not the driver's own, inputs and outputs included, in order (for
    /// `cuid`).
    pub clang_command: Vec<String>,
    /// What the input is: from `-x`, else its extension; `None` for an
    /// extension the driver does not know (`Job::language` says so, after
    /// the input itself was checked).
    pub language: Option<Language>,
    /// The source read from standard input (input `-`); filled by `main`.
    pub stdin: Option<Vec<u8>>,
    /// Files clang writes beside the output, which the driver stages and
    /// writes with the output.
    pub sidecars: Sidecars,
    /// Flags for ptxas (`-Xptxas`, `-Xcuda-ptxas`), used when the driver
    /// runs it (`--verify-ptx`, builds).
    pub ptxas_flags: Vec<String>,
    /// What the program's launches give the model, read from clang's host
    /// IR (builds); `None`: the text scanner reads the shapes (PTX runs).
    pub host_launches: Option<HostLaunches>,
}

/// The launch facts of a `.cu` file's host code, as the model takes them.
#[derive(Clone, Debug, Default)]
pub struct HostLaunches {
    /// Per kernel, the block and grid shape every launch agrees on.
    pub blocks: Vec<KernelShape>,
    pub grids: Vec<KernelShape>,
    /// Every launch's integer arguments (constant or not); the analysis
    /// takes a value only where all launches of a kernel agree.
    pub args: Vec<LaunchArg>,
    /// Launches whose pointer arguments share an allocation or point
    /// inside one (`host_launch::HostLaunch::overlaps`).
    pub overlaps: Vec<LaunchOverlap>,
    /// The allocation bytes every launch gives a pointer parameter
    /// (`host_launch::HostLaunch::extents`).
    pub extents: Vec<LaunchExtent>,
}

/// What an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Cuda,
    /// LLVM IR, text or bitcode.
    Ir,
}

/// Files a clang compile writes besides its output (`-MD`, `-MMD`, `-MF`;
/// `-fsave-optimization-record`, `-foptimization-record-file`). Clang 19
/// ignores `-ftime-trace` for a device-only compile ("argument unused"), so
/// it passes through unchanged and writes nothing, as with clang. Clang would write them itself, next to an output that
/// for the driver is a temporary file; the driver has clang write them to
/// its temporary directory and puts them where clang would have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sidecars {
    /// The dependency file and whether system headers are left out (`-MMD`).
    pub deps: Option<(PathBuf, bool)>,
    /// Whether the user named the make target (`-MT`, `-MQ`).
    pub deps_target_given: bool,
    /// The optimization record and its format (`yaml`, `bitstream`).
    pub record: Option<(PathBuf, String)>,
}

/// A clang run the driver does not take part in (see `PASS_THROUGH`).
#[derive(Debug)]
pub struct PassThrough {
    /// `--clang`, as for a compile.
    pub clang: Option<PathBuf>,
    /// The user's `--cuda-path` (already among `args`); without one the
    /// driver adds the CUDA root it would compile with.
    pub cuda_path: Option<PathBuf>,
    /// clang's arguments: the user's, without ours, in order.
    pub args: Vec<String>,
}

pub enum Invocation {
    Help(String),
    /// `--version`: our line, then the clang we would run answers too
    /// (`main` runs it; `--clang` as for a compile), as hipcc does. Build
    /// systems identify a compiler by its `--version`: CMake takes a CUDA
    /// compiler for clang only if it says "clang version".
    Version {
        text: String,
        clang: Option<PathBuf>,
    },
    /// One input, one arch, one device-side output (PTX or IR).
    Compile(Box<Job>),
    /// Objects, executables, or device outputs for several archs.
    Build(Box<Build>),
    PassThrough(PassThrough),
}

/// What a build makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildKind {
    /// `-c`: one host object per input, its device code embedded.
    Objects,
    /// An executable (or, with `-shared`, a shared library).
    Link,
    /// `-S` and the like for several archs: one file per arch.
    DevicePerArch,
}

/// One GPU target of a build: an arch, and whether its machine code
/// (cubin) and its PTX go into the fat binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuTarget {
    pub arch: Arch,
    pub cubin: bool,
    pub ptx: bool,
}

/// A whole-program build (`build.rs` runs it).
#[derive(Clone, Debug)]
pub struct Build {
    pub kind: BuildKind,
    /// Every input with what it is: CUDA or IR (device code), host C/C++,
    /// or a file for the linker (objects, archives, shared libraries).
    pub inputs: Vec<(PathBuf, InputKind)>,
    pub output: Option<PathBuf>,
    pub targets: Vec<GpuTarget>,
    /// `--cuda-host-only`: no device code at all.
    pub host_only: bool,
    /// The device compile of every CUDA input, as one arch's `Job`
    /// (input, output and arch are set per compile).
    pub device: Job,
    pub host_flags: Vec<String>,
    pub link_flags: Vec<String>,
    pub ptxas_flags: Vec<String>,
    pub fatbinary_flags: Vec<String>,
    /// nvcc's `-cudart static`: the static runtime, which must exist.
    pub cudart_static: bool,
    /// Link the CUDA runtime (`-lcudart` from the CUDA root); nvcc's
    /// `-cudart none` turns it off.
    pub cudart: bool,
    /// `-MD`/`-MMD` with `-c`: the host compile's dependency list, at
    /// `-MF` or beside each object; whether system headers are left out.
    pub deps: Option<(Option<PathBuf>, bool)>,
    /// `-fsave-optimization-record[=FORMAT]` with `-c`: the device
    /// compiles' records, named as clang names them, or at
    /// `-foptimization-record-file=` (one arch and input only).
    pub record_format: Option<String>,
    pub record_file: Option<PathBuf>,
}

/// What one input of a build is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    Device(Language),
    /// C or C++ for the host compiler alone.
    Host,
    /// Passed to the linker as it is.
    Linker,
    /// None of these (`Build::check_inputs` says so, after the file itself
    /// was checked).
    Unknown,
}

fn value_of<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str> {
    *i += 1;
    args.get(*i)
        .map(String::as_str)
        .ok_or_else(|| anyhow!("{flag} needs a value"))
}

/// Levenshtein distance, for "did you mean".
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The error for `arg` when it looks like one of our flags but is none.
/// Such a flag would otherwise reach clang, which rejects it with an error
/// that does not say gpucc-cache has a flag of nearly that name.
fn own_misspelling(arg: &str) -> Option<String> {
    let name = arg.split('=').next().unwrap_or(arg);
    if !OWN_PREFIXES.iter().any(|p| name.starts_with(p)) || CLANG_LOOKALIKES.contains(&name) {
        return None;
    }
    if OWN_FLAGS.contains(&name) {
        return Some(format!("{name} takes no value; write {name} alone"));
    }
    let nearest = OWN_VALUED
        .iter()
        .chain(OWN_FLAGS)
        .filter(|f| f.starts_with("--"))
        .min_by_key(|f| edit_distance(name, f))?;
    Some(format!(
        "unknown option '{name}'; did you mean '{nearest}'?"
    ))
}

/// The command line split into our flags (for clap) and clang's, with the
/// clang flags the driver must understand picked out.
#[derive(Default)]
struct Split {
    own: Vec<String>,
    clang: Vec<String>,
    /// clang's flags exactly as given, for a pass-through run.
    clang_raw: Vec<String>,
    /// Every argument that is not one of the driver's own options, as
    /// written and in order: the user's command as a clang command.
    literal: Vec<String>,
    /// Whether the argument `take` just read was one of the driver's own.
    took_own: bool,
    /// Each input with the `-x` in force for it.
    inputs: Vec<(PathBuf, Option<String>)>,
    output: Option<PathBuf>,
    compile_only: bool,
    asm: bool,
    emit_llvm: bool,
    verbose: bool,
    debug: bool,
    /// Debug info as the last `-Xclang -debug-info-kind=` says, which cc1
    /// applies after `-g` and `-g0` whatever their order.
    cc1_debug: Option<bool>,
    pass_through: bool,
    archs: Vec<String>,
    opt_level: Option<u8>,
    cuda_path: Option<PathBuf>,
    /// The last `-x` before the input, if any.
    language: Option<String>,
    /// After `--`: every argument is an input.
    only_inputs: bool,
    deps: Option<bool>,
    deps_file: Option<PathBuf>,
    deps_target_given: bool,
    record_format: Option<String>,
    record_file: Option<PathBuf>,
    /// nvcc's `-gencode arch=compute_XX,code=...` and `-code=...`.
    gencodes: Vec<String>,
    codes: Vec<String>,
    /// Flags for the host compiles only (`-Xcompiler`, `-Xarch_host`).
    host: Vec<String>,
    /// Flags for ptxas (`-Xptxas`, `-Xcuda-ptxas`).
    ptxas: Vec<String>,
    /// Flags for the link only (`-L`, `-l`, `-Wl,`, `-shared`, ...).
    link: Vec<String>,
    host_only: bool,
    device_only: bool,
    shared: bool,
    /// `-fgpu-rdc`, `-rdc=true`, `--relocatable-device-code=true`.
    rdc: bool,
    /// nvcc's `-cudart none|shared|static`.
    cudart: Option<String>,
    /// `--cuda-include-ptx=ARCH|all` (true), `--no-cuda-include-ptx=` (false).
    include_ptx: Vec<(String, bool)>,
    /// Flags for fatbinary (`-Xcuda-fatbinary`).
    fatbinary: Vec<String>,
}

impl Split {
    fn new(argv: &[String]) -> Result<Split> {
        let mut s = Split {
            own: vec!["gpucc-cache".into()],
            ..Split::default()
        };
        let mut i = 0;
        while i < argv.len() {
            let start = i;
            s.took_own = false;
            let ours = s.take(argv, &mut i)?;
            if !ours {
                s.clang_raw.extend_from_slice(&argv[start..=i]);
            }
            if !s.took_own {
                s.literal.extend_from_slice(&argv[start..=i]);
            }
            i += 1;
        }
        Ok(s)
    }

    /// Takes `argv[*i]` (and its value, advancing `i`); true if it is ours.
    fn take(&mut self, argv: &[String], i: &mut usize) -> Result<bool> {
        let a = argv[*i].as_str();
        let (before, archs_before) = (self.clang.len(), self.archs.len());
        if self.only_inputs || a == "-" {
            self.input(a);
            return Ok(false);
        }
        if a == "--" {
            self.only_inputs = true;
            return Ok(true);
        }
        let name = a.split('=').next().unwrap_or(a);
        if OWN_VALUED.contains(&name) {
            self.took_own = true;
            self.own.push(a.into());
            if !a.contains('=') {
                let value = value_of(argv, i, a)?;
                // `--block-dim -S`: the value was forgotten, not `-S` meant.
                if value.len() > 1 && value.starts_with('-') {
                    bail!("{a} needs a value, and '{value}' is a flag; write {a}=VALUE");
                }
                self.own.push(value.into());
            }
            return Ok(true);
        }
        if OWN_FLAGS.contains(&a) {
            self.took_own = true;
            self.own.push(a.into());
            return Ok(true);
        }
        if let Some(msg) = own_misspelling(a) {
            bail!("{msg}");
        }
        if a == "-o" {
            self.output = Some(value_of(argv, i, a)?.into());
        } else if let Some(o) = a.strip_prefix("-o").filter(|o| !o.is_empty()) {
            self.output = Some(o.into());
        } else if self.take_nvcc(argv, i)? {
            // nvcc's spelling: not clang's, so a pass-through run (-E, -M)
            // gets what it was mapped to instead.
            let mapped = self.clang[before..].to_vec();
            self.clang_raw.extend(mapped);
            // Which side a pass-through run (-E, -M, -fsyntax-only) is for:
            // kept for clang, though the compile routes choose the side.
            if matches!(a, "--cuda-host-only" | "--cuda-device-only") {
                self.clang_raw.push(a.into());
            }
            if let Some(arch) = self.archs.get(archs_before) {
                self.clang_raw.push(format!("--cuda-gpu-arch={arch}"));
            }
            return Ok(true);
        } else if self.take_link(argv, i)? {
        } else if a == "-arch" || a.starts_with("-arch=") {
            // nvcc's -arch (clang's own -arch is Darwin's).
            self.take_arch(argv, i)?;
            for arch in &self.archs[archs_before..] {
                self.clang_raw.push(format!("--cuda-gpu-arch={arch}"));
            }
            return Ok(true);
        } else if a == "-x" {
            let l = value_of(argv, i, a)?;
            self.language = (l != "none").then(|| l.into());
        } else if let Some(l) = a.strip_prefix("-x").filter(|l| !l.is_empty()) {
            self.language = (l != "none").then(|| l.into());
        } else if !self.take_mode(a)? && !self.take_arch(argv, i)? && !self.take_sidecar(argv, i)? {
            if CLANG_VALUED.contains(&a) {
                let v = value_of(argv, i, a)?;
                // Debug info asked for through a flag for the device side or
                // for cc1 (`-Xarch_device -g`, `-Xclang -debug-info-kind=`).
                match debug_pair(a, v) {
                    // cc1 reads `-Xclang` flags after what the driver made
                    // of `-g`/`-g0`: the last of them wins over those.
                    Some(on) if a == "-Xclang" => self.cc1_debug = Some(on),
                    Some(on) => self.debug = on,
                    None => {}
                }
                self.clang.push(a.into());
                self.clang.push(v.into());
            } else if a.starts_with('-') {
                self.clang.push(a.into());
            } else {
                self.input(a);
            }
        }
        Ok(false)
    }

    fn input(&mut self, a: &str) {
        self.inputs.push((a.into(), self.language.clone()));
    }

    /// nvcc's spellings, mapped to what they mean here (nvcc's manual,
    /// "NVCC Command Options"); true if `argv[*i]` is one.
    fn take_nvcc(&mut self, argv: &[String], i: &mut usize) -> Result<bool> {
        let a = argv[*i].as_str();
        let (name, inline) = match a.split_once('=') {
            Some((n, v))
                if n.starts_with("--")
                    || n.starts_with("-X")
                    || matches!(n, "-gencode" | "-code" | "-rdc" | "-cudart" | "-ccbin") =>
            {
                (n, Some(v))
            }
            _ => (a, None),
        };
        let value = |argv: &[String], i: &mut usize| -> Result<String> {
            match inline {
                Some(v) => Ok(v.to_string()),
                None => value_of(argv, i, name).map(String::from),
            }
        };
        match name {
            "-gencode" | "--generate-code" => self.gencodes.push(value(argv, i)?),
            "-code" | "--gpu-code" => self
                .codes
                .extend(value(argv, i)?.split(',').map(String::from)),
            "--gpu-architecture" => self.archs.push(value(argv, i)?),
            "-Xcompiler" | "--compiler-options" => self
                .host
                .extend(value(argv, i)?.split(',').map(String::from)),
            "-Xarch_host" => self.host.push(value(argv, i)?),
            "-Xptxas" | "--ptxas-options" | "-Xcuda-ptxas" => self
                .ptxas
                .extend(value(argv, i)?.split(',').map(String::from)),
            "-Xcuda-fatbinary" | "-Xfatbin" | "--fatbin-options" => self
                .fatbinary
                .extend(value(argv, i)?.split(',').map(String::from)),
            "-dc" | "--device-c" | "-dw" | "--device-w" | "-dlink" | "--device-link" => bail!(
                "{a} is separate compilation, which gpucc-cache does not support (it links no device code); compile with -c"
            ),
            "-G" | "--device-debug" => {
                // nvcc: device debug info, device optimisation off.
                self.clang.extend(
                    ["--cuda-noopt-device-debug", "-Xarch_device", "-g"].map(String::from),
                );
                self.debug = true;
            }
            // Separate compilation: clang's flag either way, so that a PTX run
            // compiles (and the analysis reasons) as for -fgpu-rdc; builds
            // refuse it (`parse`).
            "-rdc" | "--relocatable-device-code" => {
                self.rdc = matches!(value(argv, i)?.as_str(), "true" | "1");
                self.clang.push(
                    if self.rdc {
                        "-fgpu-rdc"
                    } else {
                        "-fno-gpu-rdc"
                    }
                    .into(),
                );
            }
            "-fgpu-rdc" => {
                self.rdc = true;
                self.clang.push(a.into());
            }
            "-fno-gpu-rdc" => {
                self.rdc = false;
                self.clang.push(a.into());
            }
            "-cudart" | "--cudart" => {
                let v = value(argv, i)?;
                if !matches!(v.as_str(), "none" | "shared" | "static") {
                    bail!("-cudart {v}: expected none, shared or static");
                }
                self.cudart = Some(v);
            }
            "-ccbin" | "--compiler-bindir" => {
                let v = value(argv, i)?;
                say!("gpucc-cache: note: -ccbin {v} ignored: clang compiles the host code");
            }
            "--use_fast_math" | "-use_fast_math" => {
                // nvcc: --ftz=true --prec-div=false --prec-sqrt=false
                // --fmad=true, device code only.
                for f in [
                    "-fcuda-flush-denormals-to-zero",
                    "-fgpu-approx-transcendentals",
                    "-Xarch_device",
                    "-ffast-math",
                ] {
                    self.clang.push(f.into());
                }
            }
            "-lineinfo" | "--generate-line-info" => {
                // Line tables for device code only, as nvcc's.
                self.clang
                    .extend(["-Xarch_device".into(), "-gline-tables-only".into()]);
                self.debug = true;
            }
            "--std" => self.clang.push(format!("-std={}", value(argv, i)?)),
            "--cuda-host-only" => self.host_only = true,
            "--cuda-device-only" => self.device_only = true,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Flags for the link step; true if `argv[*i]` is one.
    fn take_link(&mut self, argv: &[String], i: &mut usize) -> Result<bool> {
        let a = argv[*i].as_str();
        match a {
            "-L" | "-l" | "-Xlinker" | "-rpath" => {
                self.link.push(a.into());
                self.link.push(value_of(argv, i, a)?.into());
            }
            "-shared" => {
                self.shared = true;
                self.link.push(a.into());
            }
            "-rdynamic" | "-pthread" | "-static-libstdc++" | "-static-libgcc" | "-pie"
            | "-no-pie" | "-nostdlib" | "-nodefaultlibs" => self.link.push(a.into()),
            _ if a.starts_with("-Wl,")
                || a.starts_with("-fuse-ld=")
                || (a.starts_with("-L") && a.len() > 2)
                || (a.starts_with("-l") && a.len() > 2) =>
            {
                self.link.push(a.into())
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Flags that make clang write a file beside the output; true if
    /// `argv[*i]` is one.
    fn take_sidecar(&mut self, argv: &[String], i: &mut usize) -> Result<bool> {
        let a = argv[*i].as_str();
        match a {
            "-MD" => self.deps = Some(false),
            "-MMD" => self.deps = Some(true),
            "-MF" => self.deps_file = Some(value_of(argv, i, a)?.into()),
            "-fsave-optimization-record" => self.record_format = Some("yaml".into()),
            "-fno-save-optimization-record" => {
                self.record_format = None;
                self.record_file = None;
            }
            "-MJ" | "-save-temps=obj" | "--save-temps=obj" | "-save-stats=obj"
            | "--save-stats=obj" => bail!(
                "{a} writes files beside the output, which gpucc-cache stages in a temporary directory; \
                 drop it, or run clang alone for that file"
            ),
            _ => {
                if let Some(f) = a.strip_prefix("-MF").filter(|f| !f.is_empty()) {
                    self.deps_file = Some(f.into());
                } else if let Some(f) = a.strip_prefix("-fsave-optimization-record=") {
                    self.record_format = Some(f.into());
                } else if let Some(f) = a.strip_prefix("-foptimization-record-file=") {
                    self.record_file = Some(f.into());
                } else {
                    if matches!(a, "-MT" | "-MQ") || a.starts_with("-MT") || a.starts_with("-MQ") {
                        self.deps_target_given = true;
                    }
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Flags that set what is produced, and how; true if `a` is one.
    fn take_mode(&mut self, a: &str) -> Result<bool> {
        match a {
            "-c" => self.compile_only = true,
            "-S" => self.asm = true,
            "-emit-llvm" => self.emit_llvm = true,
            "-v" => {
                self.verbose = true;
                self.clang.push(a.into());
            }
            _ if PASS_THROUGH.contains(&a) => {
                self.pass_through = true;
                self.clang.push(a.into());
            }
            "-g0" => {
                self.debug = false;
                self.clang.push(a.into());
            }
            _ if enables_debug(a) => {
                self.debug = true;
                self.clang.push(a.into());
            }
            _ => {
                let Some(level) = a.strip_prefix("-O") else {
                    return Ok(false);
                };
                self.opt_level = Some(match level {
                    "0" => 0,
                    "1" => 1,
                    "2" | "s" | "z" => 2,
                    "" | "3" | "fast" => 3,
                    other => {
                        bail!("unknown optimization level -O{other}; use -O0, -O1, -O2 or -O3")
                    }
                });
                self.clang.push(a.into());
            }
        }
        Ok(true)
    }

    /// The GPU arch and CUDA root flags; true if `argv[*i]` is one.
    fn take_arch(&mut self, argv: &[String], i: &mut usize) -> Result<bool> {
        let a = argv[*i].as_str();
        if let Some(v) = a
            .strip_prefix("--cuda-gpu-arch=")
            .or_else(|| a.strip_prefix("--offload-arch="))
        {
            self.archs.extend(v.split(',').map(String::from));
        } else if let Some(v) = a.strip_prefix("-arch=") {
            self.archs.push(v.into());
        } else if a == "-arch" {
            self.archs.push(value_of(argv, i, a)?.into());
        } else if let Some(v) = a.strip_prefix("--cuda-include-ptx=") {
            self.include_ptx
                .extend(v.split(',').map(|x| (x.to_string(), true)));
        } else if let Some(v) = a.strip_prefix("--no-cuda-include-ptx=") {
            self.include_ptx
                .extend(v.split(',').map(|x| (x.to_string(), false)));
        } else if let Some(v) = a.strip_prefix("--cuda-path=") {
            self.cuda_path = Some(v.into());
        } else if a == "--cuda-path" {
            self.cuda_path = Some(value_of(argv, i, a)?.into());
        } else {
            return Ok(false);
        }
        Ok(true)
    }
}

/// Our flags, parsed by clap; `Err` carries the help or version text.
fn parse_own(own: &[String]) -> Result<std::result::Result<Own, Invocation>> {
    match Own::try_parse_from(own) {
        Ok(o) => Ok(Ok(o)),
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => {
            Ok(Err(Invocation::Help(e.to_string())))
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayVersion => {
            // clap stops at --version, before `--clang` is parsed.
            let clang = own
                .iter()
                .enumerate()
                .find_map(|(i, a)| match a.strip_prefix("--clang") {
                    Some(v) if v.starts_with('=') => Some(PathBuf::from(&v[1..])),
                    Some("") => own.get(i + 1).map(PathBuf::from),
                    _ => None,
                });
            Ok(Err(Invocation::Version {
                text: e.to_string(),
                clang,
            }))
        }
        Err(e) => {
            let first = e
                .to_string()
                .lines()
                .next()
                .unwrap_or("bad arguments")
                .trim_start_matches("error: ")
                .to_string();
            bail!("{first}; see gpucc-cache --help");
        }
    }
}

pub fn parse(argv: &[String]) -> Result<Invocation> {
    let split = Split::new(argv)?;
    let own = match parse_own(&split.own)? {
        Ok(own) => own,
        Err(help_or_version) => return Ok(help_or_version),
    };
    if split.pass_through {
        return Ok(Invocation::PassThrough(pass_through(split, own)));
    }
    if split.inputs.is_empty() {
        bail!("no input file; usage: gpucc-cache [OPTIONS] kernel.cu (see --help)");
    }
    let targets = targets(&split)?;
    if own.machine.is_some() && targets.len() > 1 {
        bail!("--machine describes one GPU; give one --cuda-gpu-arch");
    }
    let device_output = split.asm || split.emit_llvm || split.device_only;
    if split.device_only && split.compile_only && !split.emit_llvm {
        bail!("--cuda-device-only -c would make a cubin, which gpucc-cache does not write alone; use -S for PTX, or drop --cuda-device-only for an object");
    }
    // Without -S, -c or -emit-llvm, one CUDA or IR input and no output name
    // (or a .ptx one) still means PTX, as it always has; any other output
    // name means an executable, as with clang. So does CMake's compiler
    // identification, which compiles `CMakeCUDACompilerId.cu` with no -o
    // and looks for clang's `a.out` (CMakeDetermineCompilerId.cmake).
    let cmake_probe =
        split.output.is_none() && split.inputs.len() == 1 && is_cmake_probe(&split.inputs[0].0);
    let ptx_by_name = !split.compile_only
        && !split.host_only
        && !cmake_probe
        && split.inputs.len() == 1
        && split
            .output
            .as_ref()
            .is_none_or(|o| o.extension().is_some_and(|e| e == "ptx"))
        && {
            let (p, x) = &split.inputs[0];
            match language(p, x.as_deref()) {
                Ok(Some(_)) | Err(_) => true,
                Ok(None) => matches!(
                    input_kind(p, x.as_deref(), BuildKind::Link),
                    Ok(InputKind::Unknown)
                ),
            }
        };
    let single_device = (device_output || ptx_by_name) && !split.host_only;
    if split.rdc && !single_device {
        bail!(
            "separate compilation (-fgpu-rdc, -rdc=true) is not supported for objects and programs: gpucc-cache links no device code; compile without it (PTX with -S takes it)"
        );
    }
    let given = !(split.archs.is_empty() && split.gencodes.is_empty() && split.codes.is_empty());
    if single_device && targets.len() <= 1 {
        // No arch given: the module's own target-cpu (IR), else clang's.
        return Ok(Invocation::Compile(Box::new(device_job(
            &split,
            &own,
            targets.first().map(|t| t.arch).filter(|_| given),
            false,
        )?)));
    }
    let kind = if single_device {
        BuildKind::DevicePerArch
    } else if split.compile_only {
        BuildKind::Objects
    } else {
        BuildKind::Link
    };
    let mut inputs = Vec::new();
    for (path, x) in &split.inputs {
        inputs.push((path.clone(), input_kind(path, x.as_deref(), kind)?));
    }
    if kind == BuildKind::Objects && split.inputs.len() > 1 && split.output.is_some() {
        bail!("-o names one file but -c makes one object per input; drop -o or compile one input at a time");
    }
    if kind == BuildKind::DevicePerArch && split.output.is_some() {
        bail!(
            "{} archs give one output each; drop -o (each is named INPUT-sm_XX) or give one arch",
            targets.len()
        );
    }
    if kind == BuildKind::DevicePerArch
        && (split.deps.is_some() || split.record_format.is_some() || split.record_file.is_some())
    {
        bail!("-MD and -fsave-optimization-record with several archs in one -S run are not supported; compile one arch at a time for them");
    }
    if split.record_file.is_some() && (targets.len() > 1 || split.inputs.len() > 1) {
        bail!("-foptimization-record-file names one file but several device compiles run; drop it (each gets clang's name, INPUT-cuda-nvptx64-nvidia-cuda-sm_XX.opt.yaml)");
    }
    if kind != BuildKind::DevicePerArch && split.deps_file.is_some() && split.inputs.len() > 1 {
        bail!("-MF names one dependency file but several inputs are compiled; drop -MF (each input gets its own .d)");
    }
    let mut device = device_job(
        &split,
        &own,
        targets.first().map(|t| t.arch).filter(|_| given),
        true,
    )?;
    // The build names and writes every file itself.
    device.sidecars = Sidecars {
        deps_target_given: split.deps_target_given,
        ..Sidecars::default()
    };
    Ok(Invocation::Build(Box::new(Build {
        kind,
        inputs,
        output: split.output.clone(),
        targets,
        host_only: split.host_only,
        device,
        host_flags: split.host.clone(),
        link_flags: split.link.clone(),
        ptxas_flags: split.ptxas.clone(),
        fatbinary_flags: split.fatbinary.clone(),
        cudart_static: split.cudart.as_deref() == Some("static"),
        cudart: split.cudart.as_deref() != Some("none"),
        deps: split
            .deps
            .map(|user_only| (split.deps_file.clone(), user_only)),
        record_format: split
            .record_format
            .clone()
            .or_else(|| split.record_file.as_ref().map(|_| "yaml".to_string())),
        record_file: split.record_file.clone(),
    })))
}

/// CMake's compiler-identification source (CMake 3.25's
/// `Modules/CMakeCUDACompilerId.cu.in`, written under this name).
fn is_cmake_probe(input: &Path) -> bool {
    input
        .file_name()
        .is_some_and(|n| n == "CMakeCUDACompilerId.cu")
}

/// The device compile of the first input for `arch`: the job of a
/// single-output run, and the template of a build's device compiles.
fn device_job(split: &Split, own: &Own, arch: Option<Arch>, template: bool) -> Result<Job> {
    let (input, x) = match split.inputs.as_slice() {
        [one] => one.clone(),
        [first, ..] if template => split
            .inputs
            .iter()
            .find(|(p, x)| matches!(language(p, x.as_deref()), Ok(Some(_))))
            .unwrap_or(first)
            .clone(),
        many => bail!(
            "{} input files given; -S and -emit-llvm compile one file at a time",
            many.len()
        ),
    };
    let language = language(&input, x.as_deref())?;
    let kind = match (split.compile_only, split.asm, split.emit_llvm) {
        (_, true, true) => Output::LlvmText,
        (true, false, true) => Output::LlvmBitcode,
        _ => Output::Ptx,
    };
    let options = options(own, arch, &split.clang)?;
    let report = match own.cache_report.as_deref() {
        None => ReportFormat::Text,
        Some(r) => ReportFormat::parse(r).ok_or_else(|| {
            anyhow!("invalid value '{r}' for --cache-report: expected text, json or none")
        })?,
    };
    let output = match split.output.clone() {
        Some(o) => o,
        None if input.as_os_str() == "-" => bail!(
            "reading the source from standard input (-) needs -o FILE (or -o - for standard output)"
        ),
        None => default_output(&input, kind)?,
    };
    let sidecars = sidecars(split, &output)?;
    Ok(Job {
        input,
        output,
        kind,
        arch,
        opt_level: split.opt_level.unwrap_or(3),
        opt_given: split.opt_level.is_some(),
        debug: split.cc1_debug.unwrap_or(split.debug),
        options,
        report,
        report_file: own.cache_report_file.clone(),
        verify_ptx: own.verify_ptx,
        clang: own.clang.clone(),
        cuda_path: split.cuda_path.clone(),
        verbose: split.verbose,
        clang_flags: split.clang.clone(),
        clang_command: split.literal.clone(),
        language,
        stdin: None,
        sidecars,
        ptxas_flags: split.ptxas.clone(),
        host_launches: None,
    })
}

/// What an input of a build is: `-x` first, else its extension.
fn input_kind(path: &Path, x: Option<&str>, kind: BuildKind) -> Result<InputKind> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let host = |x: Option<&str>| matches!(x, Some("c" | "c++" | "cpp" | "cxx" | "cc"));
    if host(x) {
        return Ok(InputKind::Host);
    }
    if let Some(l) = language(path, x)? {
        if l == Language::Ir && kind != BuildKind::DevicePerArch {
            bail!(
                "{} is device IR; objects and executables are built from CUDA sources (.cu), IR gives PTX (-S)",
                path.display()
            );
        }
        return Ok(InputKind::Device(l));
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let linkable = matches!(ext, "o" | "a" | "so" | "lo") || name.contains(".so.");
    match ext {
        "c" | "cc" | "cpp" | "cxx" | "C" | "c++" => Ok(InputKind::Host),
        _ if linkable && kind == BuildKind::Link => Ok(InputKind::Linker),
        _ if linkable => bail!(
            "input '{}' is for the linker, and -c links nothing; drop -c to link it",
            path.display()
        ),
        _ => Ok(InputKind::Unknown),
    }
}

impl Build {
    /// Every input is a file, and one the build knows what to do with.
    pub fn check_inputs(&self) -> Result<()> {
        for (path, kind) in &self.inputs {
            crate::output::check_input(path)?;
            if *kind == InputKind::Unknown {
                let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
                bail!(
                    "input '{}' has {}; gpucc-cache compiles .cu or .cuh (CUDA), .ll or .bc (NVPTX IR), .c or .cpp (host) files, or any file after -x cuda or -x ir, and links .o, .a and .so files",
                    path.display(),
                    if ext.is_empty() {
                        "no extension".to_string()
                    } else {
                        format!("the extension .{ext}")
                    }
                );
            }
        }
        Ok(())
    }
}

/// The GPU targets: `--cuda-gpu-arch`/`--offload-arch`/`-arch` (each a
/// cubin, and the PTX of the newest, as nvcc's default), or nvcc's
/// `-gencode arch=compute_XX,code=[sm_YY|compute_XX]` and `-arch=compute_XX
/// -code=sm_YY,...` (exactly the images named).
fn targets(split: &Split) -> Result<Vec<GpuTarget>> {
    let parse = |a: &str| -> Result<Arch> {
        Arch::parse(a).ok_or_else(|| {
            anyhow!(
                "unknown GPU arch '{a}'; use one of {}",
                Arch::supported_list()
            )
        })
    };
    let mut out: Vec<GpuTarget> = Vec::new();
    let mut add = |arch: Arch, cubin: bool, ptx: bool| match out.iter_mut().find(|t| t.arch == arch)
    {
        Some(t) => {
            t.cubin |= cubin;
            t.ptx |= ptx;
        }
        None => out.push(GpuTarget { arch, cubin, ptx }),
    };
    for g in &split.gencodes {
        let mut virt = None;
        let mut codes = Vec::new();
        for part in g.split(',') {
            if let Some(a) = part.strip_prefix("arch=") {
                virt = Some(a.to_string());
            } else if let Some(c) = part.strip_prefix("code=") {
                codes.push(
                    c.trim_matches(|c| c == '[' || c == ']' || c == '"')
                        .to_string(),
                );
            } else {
                // code=[sm_70,sm_80]: the list goes on after a comma.
                codes.push(
                    part.trim_matches(|c| c == '[' || c == ']' || c == '"')
                        .to_string(),
                );
            }
        }
        let virt =
            virt.ok_or_else(|| anyhow!("-gencode {g}: expected arch=compute_XX,code=..."))?;
        if codes.is_empty() {
            bail!("-gencode {g}: expected arch=compute_XX,code=sm_XX or code=compute_XX");
        }
        let v = parse(&virt)?;
        for c in codes {
            let arch = parse(&c)?;
            check_code(g, v, &c, arch)?;
            add(arch, c.starts_with("sm_"), c.starts_with("compute_"));
        }
    }
    if !split.codes.is_empty() {
        let virt = match split.archs.as_slice() {
            [] => None,
            [a] => Some(parse(a)?),
            _ => {
                bail!("-code with several -arch values; give one -arch=compute_XX, or use -gencode")
            }
        };
        for c in &split.codes {
            let arch = parse(c)?;
            if let Some(v) = virt {
                check_code("-code", v, c, arch)?;
            }
            add(arch, c.starts_with("sm_"), c.starts_with("compute_"));
        }
    } else {
        for a in &split.archs {
            // nvcc's -arch=compute_XX alone means PTX only; sm_XX both.
            add(parse(a)?, !a.starts_with("compute_"), false);
        }
    }
    if out.is_empty() {
        // clang's default arch (clang 19), as a compile without one uses.
        out.push(GpuTarget {
            arch: Arch::parse("sm_52").expect("a supported arch"),
            cubin: true,
            ptx: false,
        });
    }
    if split.gencodes.is_empty() && split.codes.is_empty() {
        // nvcc's default: the newest arch's PTX rides along for the JIT.
        if let Some(newest) = out.iter_mut().max_by_key(|t| t.arch.sm) {
            newest.ptx = true;
        }
    }
    // clang's own PTX switches, in order, over the default.
    for (which, on) in &split.include_ptx {
        let mut any = false;
        for t in out.iter_mut() {
            if which == "all" || Arch::parse(which) == Some(t.arch) {
                t.ptx = *on;
                any = true;
            }
        }
        if !any {
            bail!(
                "--{}cuda-include-ptx={which} names no requested arch; give one of the --cuda-gpu-arch values or all",
                if *on { "" } else { "no-" }
            );
        }
    }
    if out.iter().any(|t| !t.cubin && !t.ptx) {
        out.retain(|t| t.cubin || t.ptx);
    }
    Ok(out)
}

/// nvcc's rule for `arch=compute_XX,code=...`: machine code for sm_YY needs
/// YY ≥ XX (it is compiled from compute_XX's PTX), and PTX is compute_XX's
/// own.
fn check_code(what: &str, virt: Arch, code: &str, arch: Arch) -> Result<()> {
    let ok = if code.starts_with("compute_") {
        arch == virt
    } else {
        arch.sm >= virt.sm
    };
    if !ok {
        bail!(
            "{what}: code={code} cannot come from the virtual arch {}; sm_YY needs YY >= XX, compute_YY needs YY = XX",
            virt.to_string().replace("sm_", "compute_")
        );
    }
    Ok(())
}

impl Job {
    /// The input's language, or the error for an unknown extension.
    pub fn language(&self) -> Result<Language> {
        if let Some(l) = self.language {
            return Ok(l);
        }
        let ext = self
            .input
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("");
        bail!(
            "input '{}' has {}; gpucc-cache compiles .cu or .cuh (CUDA) and .ll or .bc (NVPTX IR) files, or any file after -x cuda or -x ir",
            self.input.display(),
            if ext.is_empty() {
                "no extension".to_string()
            } else {
                format!("the extension .{ext}")
            }
        )
    }
}

/// The input's language: `-x`, else its extension (`None`: unknown).
fn language(input: &Path, x: Option<&str>) -> Result<Option<Language>> {
    match x {
        Some("cuda" | "cu") => return Ok(Some(Language::Cuda)),
        Some("ir") => return Ok(Some(Language::Ir)),
        Some(other) => bail!(
            "-x {other} makes no device code; gpucc-cache compiles -x cuda (CUDA) or -x ir (LLVM IR)"
        ),
        None => {}
    }
    if input.as_os_str() == "-" {
        bail!("reading from standard input (-) needs -x cuda or -x ir to say what it is");
    }
    let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("");
    Ok(match ext {
        "cu" | "cuh" => Some(Language::Cuda),
        "ll" | "bc" => Some(Language::Ir),
        _ => None,
    })
}

/// Where clang would write the files it writes beside `output`: the
/// dependency file at `-MF`, else the output with `.d`; the optimization
/// record at `-foptimization-record-file`, else the output with
/// `.opt.yaml` (`.opt.bitstream`). Checked with clang 19
/// (`--cuda-device-only -S -o out/k.ptx`).
fn sidecars(split: &Split, output: &Path) -> Result<Sidecars> {
    let beside = |ext: &str| -> Result<PathBuf> {
        if output.as_os_str() == "-" {
            bail!("-o - (standard output) has no name for clang to put the .{ext} file beside; name it (-MF, -foptimization-record-file=)");
        }
        Ok(output.with_extension(ext))
    };
    let deps = match (split.deps, &split.deps_file) {
        (Some(system), Some(f)) => Some((f.clone(), system)),
        (Some(system), None) => Some((beside("d")?, system)),
        (None, Some(_)) => None,
        (None, None) => None,
    };
    let record = match (&split.record_format, &split.record_file) {
        (format, Some(f)) => Some((f.clone(), format.clone().unwrap_or_else(|| "yaml".into()))),
        (Some(format), None) => Some((beside(&format!("opt.{format}"))?, format.clone())),
        (None, None) => None,
    };
    Ok(Sidecars {
        deps,
        deps_target_given: split.deps_target_given,
        record,
    })
}

/// Two flags that give one kernel's shape, or one parameter's value or
/// data, differently are an error, as two shapes for every kernel are:
/// taking the first or the last would be a silent choice. Giving the same
/// thing twice is harmless. A parameter named once by name and once by
/// position is only known to be one parameter in the kernel; there the
/// last flag wins (README).
fn no_conflicts(o: &Options) -> Result<()> {
    use gpucc_cache_pass::options::{ArgRef, Dim3, ShapeOrigin};
    let param = |a: &ArgRef| match a {
        ArgRef::Name(n) => format!("'{n}'"),
        ArgRef::Index(i) => format!("index {i}"),
    };
    let dim = |d: Dim3| format!("{}x{}x{}", d.x, d.y, d.z);
    for (flag, shapes) in [
        ("--block-dim", &o.kernel_blocks),
        ("--grid-dim", &o.kernel_grids),
    ] {
        let user: Vec<&KernelShape> = (shapes.iter())
            .filter(|s| s.origin == ShapeOrigin::User)
            .collect();
        if let Some((a, b)) = conflict(&user, |a, b| a.kernel == b.kernel, |a, b| a.dim != b.dim) {
            bail!(
                "{flag} gives kernel '{}' two shapes ({} and {}); give it once",
                a.kernel,
                dim(a.dim),
                dim(b.dim)
            );
        }
    }
    if let Some(((a, v), (_, w))) = conflict(&o.kernel_args, |a, b| a.0 == b.0, |a, b| a.1 != b.1) {
        bail!(
            "--kernel-arg gives parameter {} two values ({v} and {w}); give it once",
            param(a)
        );
    }
    let registers = &o.kernel_registers;
    if let Some((a, b)) = conflict(
        registers,
        |a, b| a.kernel == b.kernel,
        |a, b| a.count != b.count,
    ) {
        bail!(
            "--registers gives kernel '{}' two counts ({} and {}); give it once",
            a.kernel,
            a.count,
            b.count
        );
    }
    if let Some((a, b)) = conflict(
        &o.kernel_data,
        |a, b| a.arg == b.arg,
        |a, b| a.path != b.path,
    ) {
        bail!(
            "--kernel-data gives parameter {} two files ({} and {}); give it once",
            param(&a.arg),
            a.path.display(),
            b.path.display()
        );
    }
    Ok(())
}

/// The first two items that are about one thing (`same`) and say it
/// differently (`differ`), in flag order.
fn conflict<T>(
    items: &[T],
    same: impl Fn(&T, &T) -> bool,
    differ: impl Fn(&T, &T) -> bool,
) -> Option<(&T, &T)> {
    items.iter().enumerate().find_map(|(i, a)| {
        (items[i + 1..].iter())
            .find(|b| same(a, b) && differ(a, b))
            .map(|b| (a, b))
    })
}

/// The pass options from our flags.
fn options(own: &Own, arch: Option<Arch>, clang: &[String]) -> Result<Options> {
    let mut options = Options::default();
    let mut set = |k: &str, v: Option<&String>| -> Result<()> {
        if let Some(v) = v {
            options
                .set(k, v)
                .map_err(|e| anyhow!("--{}: {e}", flag_name(k)))?;
        }
        Ok(())
    };
    set("policy", own.cache_policy.as_ref())?;
    for (flag, values) in [
        ("--block-dim", &own.block_dim),
        ("--grid-dim", &own.grid_dim),
    ] {
        if values.iter().filter(|v| !v.contains('=')).count() > 1 {
            bail!("{flag} given twice for all kernels; give it once, or name a kernel: {flag}=NAME=X[xY[xZ]]");
        }
    }
    for b in &own.block_dim {
        set("block", Some(b))?;
    }
    for g in &own.grid_dim {
        set("grid", Some(g))?;
    }
    set("sample-blocks", own.sample_blocks.as_ref())?;
    set("model", own.cache_model.as_ref())?;
    set("l1", own.l1_size.as_ref())?;
    set("machine", own.machine.as_ref())?;
    set("decisions", own.decisions.as_ref())?;
    for ka in &own.kernel_arg {
        set("arg", Some(ka))?;
    }
    for kd in &own.kernel_data {
        set("data", Some(kd))?;
    }
    for r in &own.registers {
        set("registers", Some(r))?;
    }
    if options.sample_blocks > 1 && options.grid.is_none() {
        bail!("--sample-blocks needs --grid-dim=X[xY[xZ]] to know where the blocks are");
    }
    no_conflicts(&options)?;
    Ok(Options {
        arch,
        whole_program: !clang.iter().any(|f| f == "-fgpu-rdc" || f == "-rdc=true"),
        ..options
    })
}

/// clang's name for the output: the input with the output's extension.
/// For `m.ll -S -emit-llvm` (or `m.bc -c -emit-llvm`) that is the input
/// itself, which the driver would overwrite.
fn default_output(input: &Path, kind: Output) -> Result<PathBuf> {
    let (ext, mode) = match kind {
        Output::Ptx => ("ptx", "PTX"),
        Output::LlvmText => ("ll", "-S -emit-llvm"),
        Output::LlvmBitcode => ("bc", "-c -emit-llvm"),
    };
    let output = input.with_extension(ext);
    if output == input {
        bail!(
            "the default output of {mode} for {0} is {0} itself, which would overwrite the input; give -o with another name",
            input.display()
        );
    }
    Ok(output)
}

/// The clang command line for a pass-through run: the user's flags, plus
/// what the compile route adds (`compile::clang_command`), so that `-E` and
/// `-M` see the macros and headers the compile sees.
fn pass_through(split: Split, own: Own) -> PassThrough {
    let mut args: Vec<String> = Vec::new();
    let is_cuda = |(p, x): &(PathBuf, Option<String>)| {
        x.is_none() && matches!(p.extension().and_then(|e| e.to_str()), Some("cu" | "cuh"))
    };
    if split.language.is_none() && split.inputs.iter().any(is_cuda) {
        args.extend(["-x".into(), "cuda".into()]);
    }
    // The wheels' CUDA 12.5 is newer than clang 19 fully knows; the device side is fine.
    args.push("-Wno-unknown-cuda-version".into());
    if split.opt_level.is_none() {
        args.push("-O3".into());
    }
    args.extend(split.clang_raw);
    PassThrough {
        clang: own.clang,
        cuda_path: split.cuda_path,
        args,
    }
}

fn flag_name(option: &str) -> &str {
    match option {
        "policy" => "cache-policy",
        "block" => "block-dim",
        "grid" => "grid-dim",
        "model" => "cache-model",
        "l1" => "l1-size",
        "arg" => "kernel-arg",
        "data" => "kernel-data",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(args: &[&str]) -> Job {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match parse(&v).unwrap() {
            Invocation::Compile(j) => *j,
            _ => panic!("not a compile: {args:?}"),
        }
    }

    fn error(args: &[&str]) -> String {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(&v).err().expect("an error").to_string()
    }

    #[test]
    fn limits_are_accepted_up_to_the_bound() {
        let j = job(&[
            "k.cu",
            "--grid-dim=2147483647x65535x65535",
            "--block-dim=32x32",
            "--sample-blocks=1024",
            "--l1-size=1048576K",
            "--kernel-arg=n=-9223372036854775808",
            "--kernel-arg=1=0x7fffffffffffffff",
        ]);
        assert_eq!(j.options.sample_blocks, 1024);
        assert_eq!(j.options.l1_bytes, Some(1 << 30));
        let values: Vec<i64> = j.options.kernel_args.iter().map(|a| a.1).collect();
        assert_eq!(values, vec![i64::MIN, i64::MAX]);
    }

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("--cache-polcy", "--cache-policy"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn misspellings_of_ours_are_not_clang_flags() {
        assert_eq!(
            error(&["k.cu", "--cache-polcy=aggressive"]),
            "unknown option '--cache-polcy'; did you mean '--cache-policy'?"
        );
        assert!(error(&["k.cu", "--blockdim", "16"]).contains("'--block-dim'"));
        // Clang's flags with the same prefixes still go to clang.
        let j = job(&["k.cu", "--verify-debug-info", "--cuda-noopt-device-debug"]);
        assert!(j.clang_flags.contains(&"--verify-debug-info".to_string()));
    }

    #[test]
    fn default_output_is_never_the_input() {
        assert!(error(&["m.ll", "-S", "-emit-llvm"]).contains("give -o"));
        assert!(error(&["m.bc", "-c", "-emit-llvm"]).contains("give -o"));
        assert_eq!(job(&["m.ll", "-S"]).output, PathBuf::from("m.ptx"));
        let j = job(&["m.ll", "-S", "-emit-llvm", "-o", "n.ll"]);
        assert_eq!(j.output, PathBuf::from("n.ll"));
    }

    #[test]
    fn preprocessing_takes_nvcc_flags_mapped() {
        let v: Vec<String> = [
            "-M",
            "-arch=sm_80",
            "-Xcompiler",
            "-fPIC",
            "--std=c++17",
            "k.cu",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let Ok(Invocation::PassThrough(run)) = parse(&v) else {
            panic!("-M is a pass-through run")
        };
        assert_eq!(
            run.args,
            [
                "-x",
                "cuda",
                "-Wno-unknown-cuda-version",
                "-O3",
                "-M",
                "--cuda-gpu-arch=sm_80",
                "-std=c++17",
                "k.cu"
            ]
        );
    }

    #[test]
    fn preprocessing_passes_through_without_our_flags() {
        let v: Vec<String> = ["--cache-policy", "off", "-E", "-DN=2", "k.cu", "-o", "k.i"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let Ok(Invocation::PassThrough(run)) = parse(&v) else {
            panic!("-E is a pass-through run")
        };
        assert_eq!(
            run.args,
            [
                "-x",
                "cuda",
                "-Wno-unknown-cuda-version",
                "-O3",
                "-E",
                "-DN=2",
                "k.cu",
                "-o",
                "k.i"
            ]
        );
        let v: Vec<String> = ["-###", "-x", "cuda", "-O1", "k.cu.txt"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let Ok(Invocation::PassThrough(run)) = parse(&v) else {
            panic!("-### is a pass-through run")
        };
        assert_eq!(
            run.args,
            [
                "-Wno-unknown-cuda-version",
                "-###",
                "-x",
                "cuda",
                "-O1",
                "k.cu.txt"
            ]
        );
    }

    #[test]
    fn splits_own_and_clang_flags() {
        let j = job(&[
            "-O2",
            "-I",
            "inc",
            "-DN=4",
            "k.cu",
            "--cache-policy",
            "cache-none",
            "--block-dim=16x16",
            "-arch=sm_80",
        ]);
        assert_eq!(j.input, PathBuf::from("k.cu"));
        assert_eq!(j.output, PathBuf::from("k.ptx"));
        assert_eq!(j.opt_level, 2);
        assert_eq!(j.arch.unwrap().sm, 80);
        assert_eq!(j.clang_flags, vec!["-O2", "-I", "inc", "-DN=4"]);
        assert_eq!(j.options.block.unwrap().y, 16);
    }

    #[test]
    fn output_kinds() {
        assert_eq!(job(&["-S", "-emit-llvm", "k.cu"]).kind, Output::LlvmText);
        let v: Vec<String> = ["-c", "k.cu"].iter().map(|s| s.to_string()).collect();
        assert!(matches!(parse(&v), Ok(Invocation::Build(b)) if b.kind == BuildKind::Objects));
        assert_eq!(
            job(&["k.cu", "-o", "x/y.ptx"]).output,
            PathBuf::from("x/y.ptx")
        );
    }

    fn build(args: &[&str]) -> Build {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        match parse(&v).unwrap() {
            Invocation::Build(b) => *b,
            _ => panic!("not a build: {args:?}"),
        }
    }

    #[test]
    fn modes_follow_clang_and_keep_ptx_by_name() {
        // No -S/-c: PTX for one CUDA input without -o or with a .ptx name,
        // an executable otherwise.
        assert_eq!(job(&["k.cu"]).output, PathBuf::from("k.ptx"));
        assert_eq!(job(&["k.cu", "-o", "x.ptx"]).kind, Output::Ptx);
        let b = build(&["k.cu", "-o", "app"]);
        assert_eq!(b.kind, BuildKind::Link);
        let b = build(&["a.cu", "b.cpp", "c.o", "-lm", "-L/x", "-o", "app"]);
        let kinds: Vec<InputKind> = b.inputs.iter().map(|i| i.1).collect();
        assert_eq!(
            kinds,
            [
                InputKind::Device(Language::Cuda),
                InputKind::Host,
                InputKind::Linker
            ]
        );
        assert_eq!(b.link_flags, ["-lm", "-L/x"]);
        assert_eq!(build(&["-c", "a.cu", "b.cu"]).kind, BuildKind::Objects);
        assert_eq!(
            build(&["-S", "k.cu", "-arch=sm_70", "-arch=sm_80"]).kind,
            BuildKind::DevicePerArch
        );
    }

    #[test]
    fn nvcc_targets_and_flags() {
        let t = |args: &[&str]| -> Vec<(u32, bool, bool)> {
            build(args)
                .targets
                .iter()
                .map(|t| (t.arch.sm, t.cubin, t.ptx))
                .collect()
        };
        // Each arch a cubin, the newest's PTX too (nvcc's default).
        assert_eq!(
            t(&[
                "-c",
                "k.cu",
                "--cuda-gpu-arch=sm_52",
                "--offload-arch=sm_90",
                "-arch=sm_70"
            ]),
            [(52, true, false), (90, true, true), (70, true, false)]
        );
        assert_eq!(
            t(&[
                "-c",
                "k.cu",
                "-gencode",
                "arch=compute_70,code=sm_70",
                "-gencode=arch=compute_80,code=[sm_80,compute_80]"
            ]),
            [(70, true, false), (80, true, true)]
        );
        assert_eq!(
            t(&["-c", "k.cu", "-arch=compute_80", "-code=sm_80,sm_86"]),
            [(80, true, false), (86, true, false)]
        );
        let b = build(&[
            "-c",
            "k.cu",
            "-Xcompiler",
            "-fPIC,-Wall",
            "-Xptxas",
            "-v",
            "-ccbin",
            "g++",
            "--std=c++17",
            "--use_fast_math",
            "-lineinfo",
        ]);
        assert_eq!(b.host_flags, ["-fPIC", "-Wall"]);
        assert_eq!(b.ptxas_flags, ["-v"]);
        assert!(b.device.clang_flags.contains(&"-std=c++17".to_string()));
        assert!(b
            .device
            .clang_flags
            .contains(&"-fcuda-flush-denormals-to-zero".to_string()));
        assert!(b.device.debug, "-lineinfo gives device line tables");
        assert!(!build(&["k.cu", "-o", "app", "-cudart", "none"]).cudart);
        // No arch: clang's default, with its PTX.
        assert_eq!(t(&["-c", "k.cu"]), [(52, true, true)]);
    }

    #[test]
    fn bad_values_are_one_line_errors() {
        for bad in [
            vec!["k.cu", "--cache-policy=fast"],
            vec!["k.cu", "--block-dim=0"],
            vec!["k.cu", "--block-dim=2048"],
            vec!["k.cu", "--kernel-arg=n"],
            vec!["k.cu", "--registers=k=256"],
            vec!["k.cu", "--registers=40"],
            vec!["k.cu", "--cuda-gpu-arch=sm_99"],
            vec!["k.cu", "--cache-report=xml"],
            vec!["k.cu", "--l1-size=big"],
            vec!["k.cu", "--sample-blocks=4"],
            vec![],
            vec!["a.cu", "b.cu", "-S"],
        ] {
            let v: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            let e = parse(&v).err().expect("an error").to_string();
            assert!(!e.contains('\n'), "{bad:?}: {e}");
        }
    }

    /// One kernel's shape, one parameter's value or data, one kernel's
    /// registers given twice differently: an error naming both; the same
    /// given twice stands (adversarial review, eighteenth session: named
    /// shapes kept the first silently, values and data the last).
    #[test]
    fn conflicting_repeats_are_errors() {
        let e = |args: &[&str]| {
            let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            parse(&v).err().map(|e| e.to_string())
        };
        for (args, expect) in [
            (
                &["k.cu", "--block-dim=k=32", "--block-dim=k=1024"][..],
                "--block-dim gives kernel 'k' two shapes (32x1x1 and 1024x1x1); give it once",
            ),
            (
                &["k.cu", "--grid-dim=k=4", "--grid-dim=k=8x2"],
                "--grid-dim gives kernel 'k' two shapes (4x1x1 and 8x2x1)",
            ),
            (
                &["k.cu", "--kernel-arg=s=64", "--kernel-arg=s=1"],
                "--kernel-arg gives parameter 's' two values (64 and 1); give it once",
            ),
            (
                &["k.cu", "--kernel-arg=2=5", "--kernel-arg=2=6"],
                "--kernel-arg gives parameter index 2 two values (5 and 6)",
            ),
            (
                &["k.cu", "--registers=k=40", "--registers=k=64"],
                "--registers gives kernel 'k' two counts (40 and 64)",
            ),
        ] {
            let got = e(args).unwrap_or_default();
            assert!(got.contains(expect), "{args:?}: {got}");
            assert!(!got.contains('\n'), "{got}");
        }
        let dir = std::env::temp_dir().join(format!("gpucc-cache-args-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.i32"), dir.join("b.i32"));
        std::fs::write(&a, [1, 0, 0, 0]).unwrap();
        std::fs::write(&b, [2, 0, 0, 0]).unwrap();
        let (fa, fb) = (
            format!("--kernel-data=idx={}", a.display()),
            format!("--kernel-data=idx={}", b.display()),
        );
        let got = e(&["k.cu", &fa, &fb]).unwrap_or_default();
        let twice = e(&["k.cu", &fa, &fa]);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            got.contains("--kernel-data gives parameter 'idx' two files (")
                && got.ends_with("); give it once"),
            "{got}"
        );
        assert_eq!(twice, None, "the same file twice");
        for same in [
            &[
                "k.cu",
                "--block-dim=k=32",
                "--block-dim=k=32",
                "--block-dim=j=64",
            ][..],
            &[
                "k.cu",
                "--kernel-arg=s=64",
                "--kernel-arg=s=64",
                "--kernel-arg=t=1",
            ],
        ] {
            assert_eq!(e(same), None, "{same:?}");
        }
    }

    #[test]
    fn version_runs_the_clang_a_compile_would() {
        let v = |args: &[&str]| parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        match v(&["--version"]).unwrap() {
            Invocation::Version { text, clang } => {
                assert!(text.starts_with("gpucc-cache "), "{text}");
                assert_eq!(clang, None);
            }
            _ => panic!("--version is not a version request"),
        }
        for args in [
            &["--clang=/opt/c++", "--version"][..],
            &["--clang", "/opt/c++", "-V"],
        ] {
            assert!(matches!(v(args).unwrap(),
                Invocation::Version { clang: Some(c), .. } if c == Path::new("/opt/c++")));
        }
    }

    #[test]
    fn cmakes_identification_source_links_an_executable() {
        // CMake compiles it with no -o and reads clang's a.out; any other
        // source keeps the PTX default.
        let b = build(&[
            "--cuda-path=/c",
            "--cuda-gpu-arch=sm_52",
            "-v",
            "CMakeCUDACompilerId.cu",
        ]);
        assert_eq!(b.kind, BuildKind::Link);
        assert_eq!(b.output, None);
        assert_eq!(
            job(&["dir/CMakeCUDACompilerId.cu", "-o", "x.ptx"]).kind,
            Output::Ptx
        );
        assert_eq!(job(&["CMakeCUDACompilerId.cu", "-S"]).kind, Output::Ptx);
        assert_eq!(job(&["Id.cu"]).output, PathBuf::from("Id.ptx"));
    }

    #[test]
    fn cmakes_clang_cuda_lines_parse() {
        // As CMake 3.25 writes them for a Clang CUDA compiler (cmake --build -v).
        let b = build(&[
            "--cuda-gpu-arch=sm_70",
            "--cuda-gpu-arch=sm_80",
            "--cuda-path=/c",
            "-Wall",
            "-std=gnu++17",
            "-MD",
            "-MT",
            "d/p.cu.o",
            "-MF",
            "d/p.cu.o.d",
            "-x",
            "cuda",
            "-c",
            "/src/p.cu",
            "-o",
            "d/p.cu.o",
        ]);
        assert_eq!(b.kind, BuildKind::Objects);
        let archs: Vec<u32> = b.targets.iter().map(|t| t.arch.sm).collect();
        assert_eq!(archs, [70, 80]);
        assert_eq!(b.deps, Some((Some(PathBuf::from("d/p.cu.o.d")), false)));
        assert!(b.device.sidecars.deps_target_given);
        let b = build(&[
            "d/main.cpp.o",
            "d/p.cu.o",
            "-o",
            "app",
            "-lcudadevrt",
            "-lcudart",
            "-L/c/lib64",
        ]);
        assert_eq!(b.kind, BuildKind::Link);
        assert_eq!(b.link_flags, ["-lcudadevrt", "-lcudart", "-L/c/lib64"]);
    }
}
