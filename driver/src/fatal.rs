//! LLVM's fatal errors, turned into our one-line error.
//!
//! LLVM's code generator stops on IR it cannot lower (an instruction the
//! arch cannot select, a symbol PTX cannot spell) with `report_fatal_error`,
//! which prints "LLVM ERROR" and aborts the process. The in-process route
//! runs that code generator, so the driver installs a handler that prints
//! the error as ours, with the input's name and a fix, and exits with 1.
//!
//! It does not catch LLVM paths that call `abort` directly or fail an
//! assertion; those still end the process with a signal.
//!
//! A `.cu` input's code generator runs inside clang, which prints the same
//! error as "fatal error: error in backend: ..." followed by the
//! SelectionDAG's nodes, a request to report a bug and a stack dump:
//! [`in_clang_log`] finds it in clang's held standard error, so that the
//! user reads the source's own diagnostics and then our one line.

use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

/// The input being compiled, named in the message.
static INPUT: OnceLock<String> = OnceLock::new();

/// Names the input for a later fatal error; the first call wins.
pub fn set_input(name: String) {
    let _ = INPUT.set(name);
}

/// Routes LLVM's fatal errors to `on_fatal` for the rest of the process.
pub fn install() {
    // SAFETY: installs a plain function pointer; LLVM keeps no other state.
    unsafe { llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(on_fatal)) };
}

/// The one line for LLVM's `reason`: its first line without the
/// SelectionDAG node addresses (they change from run to run) and the
/// plugin's key locations (internal), the function it names, and a fix.
pub fn message(input: &str, reason: &str) -> String {
    let first: Vec<&str> = reason
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .filter(|w| !w.starts_with("0x") && !key_location(w))
        .collect();
    let mut what = match first.join(" ") {
        w if w.is_empty() => "an unnamed fatal error".to_string(),
        w => w,
    };
    if let Some(f) = reason.lines().find_map(|l| l.strip_prefix("In function: ")) {
        what = format!("{what} in function {}", f.trim());
    }
    format!(
        "LLVM's NVPTX backend failed on {input}: {what}; {}",
        hint(reason)
    )
}

/// A debug location in the plugin's key file (`path:line`, `emit::keys`),
/// which names no place of the user's.
fn key_location(word: &str) -> bool {
    let word = word.trim_end_matches(',');
    (word.rsplit_once(':')).is_some_and(|(path, _)| gpucc_cache_pass::emit::keys::is_key_file(path))
}

fn hint(reason: &str) -> &'static str {
    // A fence is never relaxed (clang drops a relaxed one); a load or store
    // says its order in the node.
    let ordered = reason.contains("AtomicFence")
        || (["acquire", "release", "seq_cst"].iter())
            .any(|o| reason.lines().next().unwrap_or("").contains(o));
    let atomic = reason.contains("AtomicLoad")
        || reason.contains("AtomicStore")
        || reason.contains("AtomicFence");
    if reason.starts_with("Cannot select") && atomic && ordered {
        // Measured with clang++-19 alone: `__atomic_load_n(p,
        // __ATOMIC_ACQUIRE)` and `__atomic_thread_fence(__ATOMIC_ACQUIRE)`
        // fail so on sm_60, sm_70 and sm_90; a relaxed load compiles.
        "LLVM 19's NVPTX backend lowers no atomic load, store or fence with acquire, release or \
         seq_cst order, on any arch (clang++-19 alone fails the same way); use a relaxed atomic \
         with __threadfence(), or libcu++'s cuda::atomic_ref"
    } else if reason.starts_with("Cannot select") {
        "LLVM 19's NVPTX backend has no instruction for it on this arch (check with clang++-19 \
         --cuda-device-only -S alone); pick another arch with --cuda-gpu-arch=sm_XX or the \
         module's target-cpu, or rewrite the operation"
    } else if reason.contains("Symbol name") {
        "PTX names may use only letters, digits, _ and $; rename the symbol in the IR"
    } else {
        "check that the IR is valid for NVPTX (llc-19 -mcpu=sm_XX shows the same error), \
         and report it if clang compiles the source"
    }
}

/// LLVM's handler. It must not return: LLVM aborts after a handler that
/// returns. Nothing here may panic, since unwinding out of an `extern "C"`
/// function aborts too.
/// In clang's standard error `log`, a fatal error of LLVM's backend: the
/// lines before it (the source's own diagnostics, shown as they are) and
/// the one line for it. `plain` gives a line without colour sequences.
pub fn in_clang_log<'a>(
    log: &'a str,
    input: &str,
    plain: impl Fn(&str) -> String,
) -> Option<(Vec<&'a str>, String)> {
    const FATAL: &str = "fatal error: error in backend: ";
    let lines: Vec<&str> = log.lines().collect();
    let (at, reason) = lines.iter().enumerate().find_map(|(i, l)| {
        let l = plain(l);
        let at = l.find(FATAL)?;
        Some((i, l[at + FATAL.len()..].to_string()))
    })?;
    let function = (lines[at..].iter())
        .find_map(|l| plain(l).strip_prefix("In function: ").map(str::to_string));
    let reason = match function {
        Some(f) => format!("{reason}\nIn function: {f}"),
        None => reason,
    };
    Some((lines[..at].to_vec(), message(input, &reason)))
}

extern "C" fn on_fatal(reason: *const c_char) {
    let reason = if reason.is_null() {
        String::new()
    } else {
        // SAFETY: LLVM passes a NUL-terminated string that lives for this call.
        unsafe { CStr::from_ptr(reason) }
            .to_string_lossy()
            .into_owned()
    };
    let input = INPUT.get().map_or("the input", String::as_str);
    say!("gpucc-cache: error: {}", message(input, &reason));
    std::process::exit(1);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_without_node_addresses() {
        let reason = "Cannot select: 0x55d4a1e7c7e0: i32,ch = AtomicLoad<(load acquire (s32))>\n  0x55d4: i64 = undef\nIn function: k";
        let m = message("k.ll", reason);
        assert!(!m.contains('\n') && !m.contains("0x"), "{m}");
        assert!(
            m.starts_with("LLVM's NVPTX backend failed on k.ll: Cannot select: i32,ch = AtomicLoad<(load acquire (s32))> in function k; "),
            "{m}"
        );
        assert!(
            m.contains("on any arch") && m.contains("__threadfence"),
            "{m}"
        );
        let fence =
            "Cannot select: 0x5: ch = AtomicFence 0x6, TargetConstant:i64<4>\nIn function: k";
        assert!(message("k.cu", fence).contains("on any arch"));
        let m = message(
            "k.ll",
            "Cannot select: 0x5: i32 = SomethingElse\nIn function: k",
        );
        assert!(m.contains("--cuda-gpu-arch"), "{m}");
        let m = message("q.ll", "Symbol name with unsupported characters");
        assert!(m.contains("rename the symbol"), "{m}");
    }

    /// Clang's report of the same error: the warning before it is kept,
    /// the node dump, bug request and stack dump are not, and the plugin's
    /// key location does not reach the message.
    #[test]
    fn clangs_fatal_error_becomes_one_line() {
        let log = "k.cu:3:7: warning: unused variable 'u' [-Wunused-variable]\n\
            fatal error: error in backend: Cannot select: 0x55: i32,ch = AtomicLoad<(load acquire (s32) from %ir.5, addrspace 1)> 0x56, 0x57, gpucc-cache-keys:1073741824\n\
            \x20 0x57: i64 = add nuw 0x58, Constant:i64<256>, k.cu:2:43\n\
            In function: _Z1kPiS_\n\
            PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/\n\
            Stack dump:\n\
            0.\tProgram arguments: /usr/bin/clang++-19 -fpass-plugin=x.so\n";
        let (kept, m) = in_clang_log(log, "k.cu", str::to_string).expect("a fatal error");
        assert_eq!(
            kept,
            ["k.cu:3:7: warning: unused variable 'u' [-Wunused-variable]"]
        );
        assert!(
            m.starts_with("LLVM's NVPTX backend failed on k.cu: Cannot select: i32,ch = AtomicLoad<(load acquire (s32) from %ir.5, addrspace 1)> in function _Z1kPiS_; "),
            "{m}"
        );
        assert!(!m.contains("gpucc-cache-keys") && !m.contains('\n'), "{m}");
        assert!(in_clang_log(
            "k.cu:1:1: error: unknown type name 'x'\n",
            "k.cu",
            str::to_string
        )
        .is_none());
    }
}
