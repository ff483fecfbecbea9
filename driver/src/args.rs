//! The command line: gpucc-cache's own flags (parsed with clap) and clang's
//! (passed through, with the few the driver must understand picked out:
//! inputs, `-o`, `-c`, `-S`, `-emit-llvm`, the GPU arch, `-O`, `-g`,
//! `--cuda-path`, `-v`).

use std::path::PathBuf;

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
                  -S -emit-llvm, -c, -o, -v, -Rpass=gpucc-cache, -fsave-optimization-record, ...)."
)]
struct Own {
    /// conservative | aggressive | cache-all | cache-none | off
    #[arg(long, value_name = "POLICY")]
    cache_policy: Option<String>,
    /// Threads per block, X[xY[xZ]] (default: reqntid, else __launch_bounds__, else 256)
    #[arg(long, value_name = "X[xY[xZ]]")]
    block_dim: Option<String>,
    /// Blocks per grid, X[xY[xZ]] (needed by --sample-blocks and nctaid in addresses)
    #[arg(long, value_name = "X[xY[xZ]]")]
    grid_dim: Option<String>,
    /// Value of an integer kernel argument, by name or index (repeatable)
    #[arg(long, value_name = "NAME_OR_INDEX=VALUE")]
    kernel_arg: Vec<String>,
    /// Evaluate N blocks spread over the grid and decide on the mean (needs --grid-dim)
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

pub enum Invocation {
    Help(String),
    Compile(Box<Job>),
}

fn value_of<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str> {
    *i += 1;
    args.get(*i)
        .map(String::as_str)
        .ok_or_else(|| anyhow!("{flag} needs a value"))
}

pub fn parse(argv: &[String]) -> Result<Invocation> {
    let mut own: Vec<String> = vec!["gpucc-cache".into()];
    let mut clang: Vec<String> = Vec::new();
    let mut inputs: Vec<PathBuf> = Vec::new();
    let mut output: Option<PathBuf> = None;
    let (mut compile_only, mut asm, mut emit_llvm, mut verbose, mut debug) =
        (false, false, false, false, false);
    let mut archs: Vec<String> = Vec::new();
    let mut opt_level = 3u8;
    let mut cuda_path: Option<PathBuf> = None;
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        let name = a.split('=').next().unwrap_or(a);
        if OWN_VALUED.contains(&name) {
            own.push(a.into());
            if !a.contains('=') {
                own.push(value_of(argv, &mut i, a)?.into());
            }
        } else if OWN_FLAGS.contains(&a) {
            own.push(a.into());
        } else if a == "-o" {
            output = Some(value_of(argv, &mut i, a)?.into());
        } else if let Some(o) = a.strip_prefix("-o").filter(|o| !o.is_empty()) {
            output = Some(o.into());
        } else if a == "-c" {
            compile_only = true;
        } else if a == "-S" {
            asm = true;
        } else if a == "-emit-llvm" {
            emit_llvm = true;
        } else if a == "-v" {
            verbose = true;
            clang.push(a.into());
        } else if let Some(v) = a
            .strip_prefix("--cuda-gpu-arch=")
            .or_else(|| a.strip_prefix("--offload-arch="))
        {
            archs.extend(v.split(',').map(String::from));
        } else if let Some(v) = a.strip_prefix("-arch=") {
            archs.push(v.into());
        } else if a == "-arch" {
            archs.push(value_of(argv, &mut i, a)?.into());
        } else if let Some(v) = a.strip_prefix("--cuda-path=") {
            cuda_path = Some(v.into());
        } else if let Some(level) = a.strip_prefix("-O") {
            opt_level = match level {
                "0" => 0,
                "1" => 1,
                "2" | "s" | "z" => 2,
                "" | "3" | "fast" => 3,
                other => bail!("unknown optimization level -O{other}; use -O0, -O1, -O2 or -O3"),
            };
            clang.push(a.into());
        } else if a.starts_with("-g") && a != "-g0" {
            debug = true;
            clang.push(a.into());
        } else if CLANG_VALUED.contains(&a) {
            clang.push(a.into());
            clang.push(value_of(argv, &mut i, a)?.into());
        } else if a.starts_with('-') {
            clang.push(a.into());
        } else {
            inputs.push(a.into());
        }
        i += 1;
    }
    let own = match Own::try_parse_from(&own) {
        Ok(o) => o,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            return Ok(Invocation::Help(e.to_string()));
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
    };

    let input = match inputs.as_slice() {
        [one] => one.clone(),
        [] => bail!("no input file; usage: gpucc-cache [OPTIONS] kernel.cu (see --help)"),
        many => bail!(
            "{} input files given; gpucc-cache compiles one file at a time",
            many.len()
        ),
    };
    let arch = match archs.as_slice() {
        [] => None,
        [a] => Some(Arch::parse(a).ok_or_else(|| {
            anyhow!(
                "unknown GPU arch '{a}'; use one of {}",
                Arch::supported_list()
            )
        })?),
        _ => bail!(
            "{} GPU archs given; gpucc-cache writes PTX for one arch per run",
            archs.len()
        ),
    };
    let kind = match (compile_only, asm, emit_llvm) {
        (_, true, true) => Output::LlvmText,
        (true, false, true) => Output::LlvmBitcode,
        (true, false, false) => Output::Object,
        _ => Output::Ptx,
    };
    let mut options = Options::default();
    let mut set = |k: &str, v: &Option<String>| -> Result<()> {
        if let Some(v) = v {
            options
                .set(k, v)
                .map_err(|e| anyhow!("--{}: {e}", flag_name(k)))?;
        }
        Ok(())
    };
    set("policy", &own.cache_policy)?;
    set("block", &own.block_dim)?;
    set("grid", &own.grid_dim)?;
    set("sample-blocks", &own.sample_blocks)?;
    set("model", &own.cache_model)?;
    set("l1", &own.l1_size)?;
    for ka in &own.kernel_arg {
        set("arg", &Some(ka.clone()))?;
    }
    if options.sample_blocks > 1 && options.grid.is_none() {
        bail!("--sample-blocks needs --grid-dim=X[xY[xZ]] to know where the blocks are");
    }
    let report = match own.cache_report.as_deref() {
        None => ReportFormat::Text,
        Some(r) => ReportFormat::parse(r).ok_or_else(|| {
            anyhow!("invalid value '{r}' for --cache-report: expected text, json or none")
        })?,
    };
    let output = output.unwrap_or_else(|| {
        let ext = match kind {
            Output::Ptx => "ptx",
            Output::LlvmText => "ll",
            Output::LlvmBitcode => "bc",
            Output::Object => "o",
        };
        input.with_extension(ext)
    });
    Ok(Invocation::Compile(Box::new(Job {
        input,
        output,
        kind,
        arch,
        opt_level,
        debug,
        options: Options {
            arch,
            rdc: clang.iter().any(|f| f == "-fgpu-rdc" || f == "-rdc=true"),
            ..options
        },
        report,
        report_file: own.cache_report_file,
        verify_ptx: own.verify_ptx,
        clang: own.clang,
        cuda_path,
        verbose,
        clang_flags: clang,
    })))
}

fn flag_name(option: &str) -> &str {
    match option {
        "policy" => "cache-policy",
        "block" => "block-dim",
        "grid" => "grid-dim",
        "model" => "cache-model",
        "l1" => "l1-size",
        "arg" => "kernel-arg",
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
            Invocation::Help(_) => panic!("help"),
        }
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
