//! Ctrl-C and `kill`: the run stops cleanly. On SIGINT, SIGTERM or SIGHUP
//! the children the driver started (clang, ptxas) are sent SIGTERM by
//! process id, the temporary directories and half-staged outputs it made
//! are removed, and the driver exits with 128 + the signal number (130 for
//! SIGINT, 143 for SIGTERM), as a shell reports a process the signal ended.
//!
//! It does not make outputs atomic (`output` does) nor decide what is
//! temporary: callers register what to remove and deregister it when done.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Mutex;

use anyhow::{anyhow, Result};

/// What a signal must clean up.
struct Pending {
    /// Children by process id, and whether each leads its own process
    /// group (then the group is signalled: clang's own children, such as
    /// the linker, go with it).
    children: Vec<(u32, bool)>,
    paths: Vec<PathBuf>,
}

static PENDING: Mutex<Pending> = Mutex::new(Pending {
    children: Vec::new(),
    paths: Vec::new(),
});

fn pending() -> std::sync::MutexGuard<'static, Pending> {
    // A panic while holding the lock leaves the lists as they were: still
    // the right lists to clean up.
    PENDING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts the thread that waits for signals. Called once, first thing.
pub fn install() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        // Without the handler a signal still ends the run, as before.
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            clean_up_and_exit(sig);
        }
    });
}

fn clean_up_and_exit(sig: i32) -> ! {
    let p = pending();
    for &(pid, group) in &p.children {
        if let Ok(pid) = i32::try_from(pid) {
            let target = if group { -pid } else { pid };
            // SAFETY: kill(2) on a process (group) we started and have not
            // yet reaped, so the id is still that child's.
            unsafe { libc::kill(target, libc::SIGTERM) };
        }
    }
    for path in &p.paths {
        let _ = if path.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
    }
    // _exit, not exit: the main thread may be inside LLVM, whose static
    // destructors must not run under it.
    // SAFETY: ends the process; nothing after it runs.
    unsafe { libc::_exit(128 + sig) }
}

/// Spawns `cmd` in a process group of its own, registered so that a signal
/// kills the group (the tool and whatever it started). The lock is held
/// across the spawn, so no signal falls between the start and the record.
/// For tools that do not read the terminal (their standard input is ours
/// only when it is not a terminal's, or piped).
pub fn spawn(cmd: &mut Command) -> Result<Child> {
    use std::os::unix::process::CommandExt as _;
    cmd.process_group(0);
    spawn_registered(cmd, true)
}

fn spawn_registered(cmd: &mut Command, group: bool) -> Result<Child> {
    let mut p = pending();
    let child = cmd
        .spawn()
        .map_err(|e| anyhow!("cannot run {}: {e}", cmd.get_program().to_string_lossy()))?;
    p.children.push((child.id(), group));
    Ok(child)
}

/// Waits for a child from `spawn` and forgets it.
pub fn wait(mut child: Child) -> Result<std::process::ExitStatus> {
    let status = child.wait();
    pending().children.retain(|&(c, _)| c != child.id());
    Ok(status?)
}

/// Runs `cmd` to its end in its own process group, registered meanwhile.
pub fn status(cmd: &mut Command) -> Result<std::process::ExitStatus> {
    wait(spawn(cmd)?)
}

/// Runs `cmd` in our process group (it may read the terminal: `-E -`),
/// registered meanwhile; a terminal's Ctrl-C reaches it directly.
pub fn status_in_foreground(cmd: &mut Command) -> Result<std::process::ExitStatus> {
    wait(spawn_registered(cmd, false)?)
}

/// As `Command::output`, registered meanwhile.
pub fn output(cmd: &mut Command) -> Result<std::process::Output> {
    use std::process::Stdio;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = spawn(cmd)?;
    let id = child.id();
    let out = child.wait_with_output();
    pending().children.retain(|&(c, _)| c != id);
    Ok(out?)
}

/// A path removed if a signal ends the run; forgotten when dropped (its
/// owner removes it, or keeps it, as the normal path decides).
pub struct Removal(PathBuf);

impl Removal {
    pub fn new(path: &Path) -> Removal {
        pending().paths.push(path.to_path_buf());
        Removal(path.to_path_buf())
    }
}

impl Drop for Removal {
    fn drop(&mut self) {
        let mut p = pending();
        if let Some(i) = p.paths.iter().rposition(|q| *q == self.0) {
            p.paths.remove(i);
        }
    }
}
