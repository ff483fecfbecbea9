//! Finding the tools: clang 19, a CUDA root (headers, libdevice, ptxas), and
//! the plugin library that sits beside this binary.
//!
//! Order for each: an explicit flag, then an environment variable, then a
//! real install, then the project's own (the `.cuda/` root that
//! `scripts/setup` builds from NVIDIA's PyPI wheels).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Result};

/// A located tool and how it was found (shown with `-v`).
#[derive(Clone, Debug)]
pub struct Found {
    pub path: PathBuf,
    pub how: String,
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// clang 19, checked to be one: anything else (another version, or not
/// clang at all) fails later with errors that do not point here.
pub fn clang(flag: Option<&Path>) -> Result<Found> {
    let (found, named, fix) = locate_clang(flag)?;
    // A clang found by its versioned name is clang 19; asking costs a process
    // per compile (about 8% of a small kernel's compile), so only a clang the
    // user named is asked.
    let named_by_user = flag.is_some() || std::env::var_os("GPUCC_CACHE_CLANG").is_some();
    if !named_by_user {
        return Ok(found);
    }
    if let Err(said) = answers_clang_19(&found.path) {
        bail!("{named} is not clang 19 ({said}); point {fix} at clang++-19");
    }
    Ok(found)
}

/// The clang to use, how to name it in an error, and the setting to fix.
fn locate_clang(flag: Option<&Path>) -> Result<(Found, String, &'static str)> {
    let found = |path: PathBuf, how: &str| Found {
        path,
        how: how.into(),
    };
    if let Some(p) = flag {
        if !p.is_file() {
            bail!(
                "--clang={} does not exist; point it at a clang++ 19 binary",
                p.display()
            );
        }
        let named = format!("--clang={}", p.display());
        return Ok((found(p.into(), "--clang"), named, "--clang"));
    }
    if let Some(p) = std::env::var_os("GPUCC_CACHE_CLANG") {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!(
                "GPUCC_CACHE_CLANG={} does not exist; point it at a clang++ 19 binary",
                p.display()
            );
        }
        let named = format!("GPUCC_CACHE_CLANG={}", p.display());
        return Ok((found(p, "GPUCC_CACHE_CLANG"), named, "GPUCC_CACHE_CLANG"));
    }
    let system = on_path("clang++-19")
        .map(|p| (p, "clang++-19 on PATH"))
        .or_else(|| {
            let debian = PathBuf::from("/usr/lib/llvm-19/bin/clang++");
            debian.is_file().then_some((debian, "/usr/lib/llvm-19"))
        });
    match system {
        Some((p, how)) => {
            let named = format!("{} ({how})", p.display());
            Ok((found(p, how), named, "--clang"))
        }
        None => {
            bail!("clang 19 not found; run scripts/setup (installs clang-19) or pass --clang=PATH")
        }
    }
}

/// `Ok` if `clang --version` says clang 19; else what it said instead.
fn answers_clang_19(clang: &Path) -> std::result::Result<(), String> {
    let out = crate::interrupt::output(Command::new(clang).arg("--version"))
        .map_err(|e| format!("it cannot run: {e}"))?;
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    // "clang version 19.1.1", also "Ubuntu clang version 19.1.1 (...)".
    if out.status.success() && said.contains("clang version 19.") {
        return Ok(());
    }
    let first = said.lines().map(str::trim).find(|l| !l.is_empty());
    Err(match first {
        None => format!("it printed nothing for --version, {}", out.status),
        Some(l) if l.chars().count() > 80 => {
            format!("it printed '{}...'", l.chars().take(80).collect::<String>())
        }
        Some(l) => format!("it printed '{l}'"),
    })
}

/// A CUDA root clang accepts with `--cuda-path`: it has `include/cuda.h` and libdevice.
fn is_cuda_root(p: &Path) -> bool {
    p.join("include/cuda.h").is_file() && p.join("nvvm/libdevice").is_dir()
}

/// The project's `.cuda/`: searched upwards from the executable, then from
/// the source tree this binary was built from.
fn project_cuda_root() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let from_exe = exe
        .ancestors()
        .map(|a| a.join(".cuda"))
        .find(|p| is_cuda_root(p));
    from_exe.or_else(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()?
            .join(".cuda");
        is_cuda_root(&src).then_some(src)
    })
}

pub fn cuda(flag: Option<&Path>) -> Result<Found> {
    if let Some(p) = flag {
        if !is_cuda_root(p) {
            bail!(
                "--cuda-path={} is not a CUDA root (no include/cuda.h or nvvm/libdevice)",
                p.display()
            );
        }
        return Ok(Found {
            path: p.into(),
            how: "--cuda-path".into(),
        });
    }
    for var in ["GPUCC_CACHE_CUDA_PATH", "CUDA_PATH"] {
        if let Some(p) = std::env::var_os(var) {
            let p = PathBuf::from(p);
            if !is_cuda_root(&p) {
                bail!("{var}={} is not a CUDA root (no include/cuda.h or nvvm/libdevice); fix or unset it", p.display());
            }
            return Ok(Found {
                path: p,
                how: var.into(),
            });
        }
    }
    let system = PathBuf::from("/usr/local/cuda");
    if is_cuda_root(&system) {
        return Ok(Found {
            path: system,
            how: "/usr/local/cuda".into(),
        });
    }
    if let Some(p) = project_cuda_root() {
        return Ok(Found {
            path: p,
            how: "the project's CUDA root (scripts/setup)".into(),
        });
    }
    bail!("no CUDA headers found; run scripts/setup (builds .cuda/ from PyPI wheels), or set CUDA_PATH or --cuda-path")
}

/// ptxas inside a CUDA root, else on PATH.
pub fn ptxas(cuda: &Path) -> Result<PathBuf> {
    let p = cuda.join("bin/ptxas");
    if p.is_file() {
        return Ok(p);
    }
    on_path("ptxas").ok_or_else(|| {
        anyhow::anyhow!(
            "--verify-ptx needs ptxas, not found in {}/bin or on PATH; run scripts/setup",
            cuda.display()
        )
    })
}

/// The plugin library built beside this binary.
pub fn plugin() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let p = dir.join("libgpucc_cache_pass.so");
    if p.is_file() {
        return Ok(p);
    }
    bail!(
        "plugin {} not found; build it with cargo build --workspace",
        p.display()
    )
}

/// How a tool ended.
pub enum Ended {
    Ok,
    /// Exited nonzero (it has said why on stderr).
    Failed,
    /// Killed by a signal: it crashed.
    Crashed(i32),
}

/// Runs a command with our stdin, stdout and stderr, in our process group
/// (it may read the terminal); its exit status.
pub fn status(cmd: &mut Command) -> Result<std::process::ExitStatus> {
    crate::interrupt::status_in_foreground(cmd)
}

fn ended(status: std::process::ExitStatus) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    if status.success() {
        Ended::Ok
    } else {
        status.signal().map_or(Ended::Failed, Ended::Crashed)
    }
}

/// Runs a command; its output goes to ours.
pub fn run(cmd: &mut Command, verbose: bool) -> Result<Ended> {
    if verbose {
        say!("gpucc-cache: running {cmd:?}");
    }
    Ok(ended(crate::interrupt::status(cmd)?))
}

/// Runs a command whose standard input is piped, feeding it `input`.
pub fn run_with_input(cmd: &mut Command, input: &[u8], verbose: bool) -> Result<Ended> {
    use std::io::Write as _;
    if verbose {
        say!("gpucc-cache: running {cmd:?} (source on standard input)");
    }
    let mut child = crate::interrupt::spawn(cmd)?;
    if let Some(mut stdin) = child.stdin.take() {
        // A child that stops reading early (an error in the first lines)
        // closes the pipe; its exit status says what happened.
        let _ = stdin.write_all(input);
    }
    Ok(ended(crate::interrupt::wait(child)?))
}
