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
/// SelectionDAG node addresses (they change from run to run), the function
/// it names, and a fix.
pub fn message(input: &str, reason: &str) -> String {
    let first: Vec<&str> = reason
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .filter(|w| !w.starts_with("0x"))
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

fn hint(reason: &str) -> &'static str {
    if reason.starts_with("Cannot select") {
        "the GPU arch lacks an instruction the IR needs (e.g. an acquire/release atomic before sm_70); \
         pick a newer arch with --cuda-gpu-arch=sm_XX or the module's target-cpu, or change the IR"
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
        assert!(m.contains("--cuda-gpu-arch"), "{m}");
        let m = message("q.ll", "Symbol name with unsupported characters");
        assert!(m.contains("rename the symbol"), "{m}");
    }
}
