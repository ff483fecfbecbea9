//! `gpucc-cache`: a drop-in wrapper of clang's CUDA compiler that chooses the
//! L1 cache operator of every global load and writes PTX plus a per-load
//! report.
//!
//! Thin by design: this file splits the command line into our flags and
//! clang's, and wires the pieces; `toolchain` finds clang and CUDA;
//! `compile` runs the two routes (in-process pass, or clang with the plugin);
//! `output` guards the files a run touches; `fatal` turns LLVM's fatal
//! errors into ours. The analysis itself is the `gpucc-cache-pass` library.

/// `eprintln!` that never panics (`say`).
macro_rules! say {
    ($($t:tt)*) => {
        $crate::say::line(&format!($($t)*))
    };
}

/// `eprint!` that never panics (`say`).
#[allow(unused_macros)]
macro_rules! say_raw {
    ($($t:tt)*) => {
        $crate::say::stderr(&format!($($t)*))
    };
}

mod apply;
mod args;
mod build;
mod compile;
mod cuid;
mod depfile;
mod fatal;
mod flags;
// Not yet wired: the whole-program compile will call it (issue 17, item 5).
mod host_launch;
mod interrupt;
mod launch;
mod locality;
mod output;
mod partition;
mod plot;
mod registers;
mod response;
mod say;
mod toolchain;

use std::io::Write as _;
use std::process::{Command, ExitCode};

use anyhow::{bail, Result};

fn main() -> ExitCode {
    // First, so that no LLVM code runs without it.
    fatal::install();
    interrupt::install();
    let result = utf8_args()
        .and_then(|args| response::expand(&args))
        .and_then(|(argv, files)| {
            output::set_response_files(files);
            dispatch(&argv)
        });
    match result {
        Ok(code) => code,
        Err(e) => {
            // One line: the chain of contexts joined, outermost first.
            let msg: Vec<String> = e
                .chain()
                .map(|c| c.to_string().replace('\n', " "))
                .collect();
            say!("gpucc-cache: error: {}", msg.join(": "));
            ExitCode::FAILURE
        }
    }
}

/// The arguments after the program's name; an error naming the first that
/// is not UTF-8 (clang's and LLVM's interfaces take text).
fn utf8_args() -> Result<Vec<String>> {
    (std::env::args_os().skip(1))
        .map(|a| {
            a.into_string().map_err(|a| {
                anyhow::anyhow!(
                    "argument {a:?} is not UTF-8 text; rename the file (or give the flag) in UTF-8"
                )
            })
        })
        .collect()
}

fn dispatch(argv: &[String]) -> Result<ExitCode> {
    if argv.first().is_some_and(|a| a == "apply") {
        apply::run(&argv[1..]).map(|()| ExitCode::SUCCESS)
    } else if argv.first().is_some_and(|a| a == "locality") {
        locality::run(&argv[1..]).map(|()| ExitCode::SUCCESS)
    } else if argv.first().is_some_and(|a| a == "partition") {
        partition::run(&argv[1..]).map(|()| ExitCode::SUCCESS)
    } else {
        compile(argv)
    }
}

fn compile(argv: &[String]) -> Result<ExitCode> {
    args::parse(argv).and_then(|inv| match inv {
        args::Invocation::Help(text) => {
            // A closed stdout (`--help | head -0`) is not an error worth a panic.
            let _ = std::io::stdout().write_all(text.as_bytes());
            Ok(ExitCode::SUCCESS)
        }
        args::Invocation::Version { text, clang } => {
            let _ = std::io::stdout().write_all(text.as_bytes());
            let _ = std::io::stdout().flush();
            let clang = toolchain::clang(clang.as_deref())?;
            let status = toolchain::status(Command::new(&clang.path).arg("--version"))?;
            if !status.success() {
                bail!("{} --version failed ({status})", clang.path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        args::Invocation::PassThrough(run) => pass_through(&run),
        args::Invocation::Build(b) => {
            if b.inputs.iter().any(|(p, _)| p.as_os_str() == "-") {
                bail!("standard input (-) gives one device output (-S); objects and executables need files");
            }
            build::run(&b).map(|()| ExitCode::SUCCESS)
        }
        args::Invocation::Compile(mut job) => {
            if job.input.as_os_str() == "-" {
                job.stdin = Some(read_stdin()?);
                fatal::set_input("<stdin>".into());
            } else {
                fatal::set_input(job.input.display().to_string());
            }
            compile::run(&job).map(|()| ExitCode::SUCCESS)
        }
    })
}

/// The most bytes of source read from standard input.
const MAX_STDIN: u64 = 256 << 20;

fn read_stdin() -> Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_STDIN + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read the source from standard input: {e}"))?;
    if bytes.len() as u64 > MAX_STDIN {
        bail!(
            "standard input holds more than {} MiB of source; give a file",
            MAX_STDIN >> 20
        );
    }
    Ok(bytes)
}

/// `-E`, `-M`, `-fsyntax-only`, `-###`: clang runs alone, with the clang and
/// CUDA root a compile would use, and its exit status is ours. Clang has
/// printed its own errors, so a failure adds no line of ours.
fn pass_through(run: &args::PassThrough) -> Result<ExitCode> {
    let clang = toolchain::clang(run.clang.as_deref())?;
    let mut cmd = Command::new(&clang.path);
    // Checked even when the user gave one (it is among the args), for our
    // message rather than clang's.
    let cuda = toolchain::cuda(run.cuda_path.as_deref())?;
    if run.cuda_path.is_none() {
        cmd.arg(format!("--cuda-path={}", cuda.path.display()));
    }
    cmd.args(&run.args);
    let status = toolchain::status(&mut cmd)?;
    match status.code() {
        Some(code) => Ok(ExitCode::from(u8::try_from(code).unwrap_or(1))),
        None => bail!("clang crashed ({status}); its command was {cmd:?}"),
    }
}
