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
use gpucc_cache_pass::generation::Arch;
use gpucc_cache_pass::options::Options;
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
    "--cache-report",
    "--cache-report-file",
    "--clang",
];
const OWN_FLAGS: &[&str] = &["--verify-ptx", "--help", "-h", "--version", "-V"];

/// Clang flags whose value is the next argument (so it is not an input).
const CLANG_VALUED: &[&str] = &[
    "-o",
    "-I",
    "-D",
    "-U",
    "-include",
    "-isystem",
    "-iquote",
    "-x",
    "-Xclang",
    "-mllvm",
    "-arch",
    "-MF",
    "-MT",
    "-Xarch_device",
    "-Xarch_host",
    "-L",
    "-l",
];

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
    Object,
}

#[derive(Debug)]
pub struct Job {
    pub input: PathBuf,
    pub output: PathBuf,
    pub kind: Output,
    pub arch: Option<Arch>,
    pub opt_level: u8,
    pub debug: bool,
    pub options: Options,
    pub report: ReportFormat,
    pub report_file: Option<PathBuf>,
    pub verify_ptx: bool,
    pub clang: Option<PathBuf>,
    pub cuda_path: Option<PathBuf>,
    pub verbose: bool,
    /// Flags for clang, unchanged.
    pub clang_flags: Vec<String>,
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
    Compile(Box<Job>),
    PassThrough(PassThrough),
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
    inputs: Vec<PathBuf>,
    output: Option<PathBuf>,
    compile_only: bool,
    asm: bool,
    emit_llvm: bool,
    verbose: bool,
    debug: bool,
    pass_through: bool,
    archs: Vec<String>,
    opt_level: Option<u8>,
    cuda_path: Option<PathBuf>,
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
            let ours = s.take(argv, &mut i)?;
            if !ours {
                s.clang_raw.extend_from_slice(&argv[start..=i]);
            }
            i += 1;
        }
        Ok(s)
    }

    /// Takes `argv[*i]` (and its value, advancing `i`); true if it is ours.
    fn take(&mut self, argv: &[String], i: &mut usize) -> Result<bool> {
        let a = argv[*i].as_str();
        let name = a.split('=').next().unwrap_or(a);
        if OWN_VALUED.contains(&name) {
            self.own.push(a.into());
            if !a.contains('=') {
                self.own.push(value_of(argv, i, a)?.into());
            }
            return Ok(true);
        }
        if OWN_FLAGS.contains(&a) {
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
        } else if !self.take_mode(a)? && !self.take_arch(argv, i)? {
            if CLANG_VALUED.contains(&a) {
                self.clang.push(a.into());
                self.clang.push(value_of(argv, i, a)?.into());
            } else if a.starts_with('-') {
                self.clang.push(a.into());
            } else {
                self.inputs.push(a.into());
            }
        }
        Ok(false)
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
            _ if a.starts_with("-g") && a != "-g0" => {
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
        } else if let Some(v) = a.strip_prefix("--cuda-path=") {
            self.cuda_path = Some(v.into());
        } else {
            return Ok(false);
        }
        Ok(true)
    }
}

/// Our flags, parsed by clap; `Err` carries the help or version text.
fn parse_own(own: &[String]) -> Result<std::result::Result<Own, String>> {
    match Own::try_parse_from(own) {
        Ok(o) => Ok(Ok(o)),
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            Ok(Err(e.to_string()))
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
        Err(help) => return Ok(Invocation::Help(help)),
    };
    if split.pass_through {
        return Ok(Invocation::PassThrough(pass_through(split, own)));
    }
    let input = match split.inputs.as_slice() {
        [one] => one.clone(),
        [] => bail!("no input file; usage: gpucc-cache [OPTIONS] kernel.cu (see --help)"),
        many => bail!(
            "{} input files given; gpucc-cache compiles one file at a time",
            many.len()
        ),
    };
    let arch = one_arch(&split.archs)?;
    let kind = match (split.compile_only, split.asm, split.emit_llvm) {
        (_, true, true) => Output::LlvmText,
        (true, false, true) => Output::LlvmBitcode,
        (true, false, false) => Output::Object,
        _ => Output::Ptx,
    };
    let options = options(&own, arch, &split.clang)?;
    let report = match own.cache_report.as_deref() {
        None => ReportFormat::Text,
        Some(r) => ReportFormat::parse(r).ok_or_else(|| {
            anyhow!("invalid value '{r}' for --cache-report: expected text, json or none")
        })?,
    };
    let output = match split.output {
        Some(o) => o,
        None => default_output(&input, kind)?,
    };
    Ok(Invocation::Compile(Box::new(Job {
        input,
        output,
        kind,
        arch,
        opt_level: split.opt_level.unwrap_or(3),
        debug: split.debug,
        options,
        report,
        report_file: own.cache_report_file,
        verify_ptx: own.verify_ptx,
        clang: own.clang,
        cuda_path: split.cuda_path,
        verbose: split.verbose,
        clang_flags: split.clang,
    })))
}

/// The GPU arch asked for, if any: one per run.
fn one_arch(archs: &[String]) -> Result<Option<Arch>> {
    match archs {
        [] => Ok(None),
        [a] => Ok(Some(Arch::parse(a).ok_or_else(|| {
            anyhow!(
                "unknown GPU arch '{a}'; use one of {}",
                Arch::supported_list()
            )
        })?)),
        archs => bail!(
            "{} GPU archs given; gpucc-cache writes PTX for one arch per run",
            archs.len()
        ),
    }
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
    for ka in &own.kernel_arg {
        set("arg", Some(ka))?;
    }
    for kd in &own.kernel_data {
        set("data", Some(kd))?;
    }
    if options.sample_blocks > 1 && options.grid.is_none() {
        bail!("--sample-blocks needs --grid-dim=X[xY[xZ]] to know where the blocks are");
    }
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
        Output::Object => ("o", "-c"),
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
    let is_cuda =
        |p: &PathBuf| matches!(p.extension().and_then(|e| e.to_str()), Some("cu" | "cuh"));
    if !split.clang.iter().any(|f| f.starts_with("-x")) && split.inputs.iter().any(is_cuda) {
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
        assert_eq!(job(&["-c", "k.cu"]).kind, Output::Object);
        assert_eq!(
            job(&["k.cu", "-o", "x/y.ptx"]).output,
            PathBuf::from("x/y.ptx")
        );
    }

    #[test]
    fn bad_values_are_one_line_errors() {
        for bad in [
            vec!["k.cu", "--cache-policy=fast"],
            vec!["k.cu", "--block-dim=0"],
            vec!["k.cu", "--block-dim=2048"],
            vec!["k.cu", "--kernel-arg=n"],
            vec!["k.cu", "--cuda-gpu-arch=sm_99"],
            vec!["k.cu", "--cache-report=xml"],
            vec!["k.cu", "--l1-size=big"],
            vec!["k.cu", "--sample-blocks=4"],
            vec![],
            vec!["a.cu", "b.cu"],
        ] {
            let v: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            let e = parse(&v).err().expect("an error").to_string();
            assert!(!e.contains('\n'), "{bad:?}: {e}");
        }
    }
}
