//! The LLVM pass-plugin boundary.
//!
//! LLVM loads the plugin by calling `llvmGetPassPluginInfo`; it must be
//! exported by the cdylib itself (a symbol defined only in the C++ static
//! library would not be), so it lives here. The C++ shim (`cpp/plugin.cpp`)
//! holds what only C++ can do: registering pipeline-parsing and
//! optimizer-last callbacks with the new pass manager, wrapping our module
//! pass, and emitting optimization remarks. It calls back into
//! `gpucc_pipeline_element` and `gpucc_run_on_module` below.
//!
//! The module handed to Rust belongs to LLVM: it is borrowed, never dropped.

use std::ffi::{c_char, c_int, c_void, CStr, CString};

use crate::analysis::Analysis;
use crate::gpu::generation::AsmOp;
use crate::options::{Options, ENV_OPTIONS};
use crate::report::LoadReport;
use crate::{is_nvptx, run, Mode};

/// `llvm::PassPluginLibraryInfo`, C layout (LLVM_PLUGIN_API_VERSION 1).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    pub api_version: u32,
    pub plugin_name: *const c_char,
    pub plugin_version: *const c_char,
    pub register_callbacks: unsafe extern "C" fn(*mut c_void),
}

extern "C" {
    fn gpucc_register_callbacks(pass_builder: *mut c_void);
    fn gpucc_emit_remark(
        location: llvm_sys::prelude::LLVMMetadataRef,
        block: llvm_sys::prelude::LLVMBasicBlockRef,
        name: *const c_char,
        message: *const c_char,
        missed: c_int,
    );
}

#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: 1,
        plugin_name: c"gpucc-cache".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char,
        register_callbacks: gpucc_register_callbacks,
    }
}

/// Mode codes shared with the C++ shim.
const NOT_OURS: c_int = -1;
const BAD_PARAMS: c_int = -2;
const FROM_EXTENSION_POINT: c_int = 100;

fn mode_code(mode: Mode) -> c_int {
    match mode {
        Mode::Full => 0,
        Mode::Annotate => 1,
        Mode::Lower => 2,
        Mode::Print => 3,
    }
}

fn mode_of(code: c_int) -> Option<Mode> {
    Some(match code {
        0 => Mode::Full,
        1 => Mode::Annotate,
        2 => Mode::Lower,
        3 => Mode::Print,
        _ => return None,
    })
}

/// Splits a pipeline element name into our mode and its parameter text:
/// `gpucc-cache<policy=x>` → (Full, "policy=x"); `print<gpucc-cache<...>>` → Print.
pub fn parse_element(name: &str) -> Option<(Mode, &str)> {
    let (inner, print) = match name
        .strip_prefix("print<")
        .and_then(|s| s.strip_suffix('>'))
    {
        Some(inner) => (inner, true),
        None => (name, false),
    };
    let (base, params) = match inner.split_once('<') {
        Some((b, rest)) => (b, rest.strip_suffix('>')?),
        None => (inner, ""),
    };
    let mode = match (base, print) {
        ("gpucc-cache", true) => Mode::Print,
        ("gpucc-cache", false) => Mode::Full,
        ("gpucc-cache-annotate", false) => Mode::Annotate,
        ("gpucc-cache-lower", false) => Mode::Lower,
        _ => return None,
    };
    Some((mode, params))
}

/// Options for a plugin run: `GPUCC_CACHE_OPTIONS` first, then the pass parameters.
fn plugin_options(params: &str) -> Result<Options, crate::Error> {
    let env = std::env::var(ENV_OPTIONS).unwrap_or_default();
    let base = Options::parse(&env)?;
    base.apply(params)
}

fn set_error(out: *mut *mut c_char, msg: String) {
    if !out.is_null() {
        let c = CString::new(msg.replace('\0', "")).unwrap_or_default();
        // SAFETY: `out` points to the caller's slot; freed by gpucc_free_string.
        unsafe { *out = c.into_raw() };
    }
}

/// # Safety
/// `name` points to `len` bytes; `error` is null or a writable slot.
#[no_mangle]
pub unsafe extern "C" fn gpucc_pipeline_element(
    name: *const c_char,
    len: usize,
    error: *mut *mut c_char,
) -> c_int {
    // SAFETY: the caller passes a StringRef's data and size.
    let bytes = unsafe { std::slice::from_raw_parts(name as *const u8, len) };
    let Ok(name) = std::str::from_utf8(bytes) else {
        return NOT_OURS;
    };
    let Some((mode, params)) = parse_element(name) else {
        return NOT_OURS;
    };
    match plugin_options(params) {
        Ok(_) => mode_code(mode),
        Err(e) => {
            set_error(error, format!("in pass '{name}': {e}"));
            BAD_PARAMS
        }
    }
}

/// Runs the pass; returns 1 if the module changed, 0 if not, -1 on error.
///
/// # Safety
/// `module` is a live module owned by LLVM; `params` points to `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn gpucc_run_on_module(
    module: llvm_sys::prelude::LLVMModuleRef,
    code: c_int,
    params: *const c_char,
    len: usize,
    error: *mut *mut c_char,
) -> c_int {
    // SAFETY: LLVM keeps the module alive for the duration of the pass.
    let m = unsafe { crate::llvm::ir::Module::from_raw(module) };
    // SAFETY: the caller passes a string's data and size.
    let params =
        std::str::from_utf8(unsafe { std::slice::from_raw_parts(params as *const u8, len) })
            .unwrap_or("");
    let (mode, params) = if code == FROM_EXTENSION_POINT {
        // Under clang -fpass-plugin: host modules pass through untouched.
        // GPUCC_CACHE_EP=0 turns the extension point off (for opt users who
        // load the plugin into a default<O3> pipeline and want only explicit
        // pipeline elements to run).
        if !is_nvptx(&m.triple()) || std::env::var("GPUCC_CACHE_EP").is_ok_and(|v| v == "0") {
            return 0;
        }
        // An explicit `-passes=` pipeline already decided (or, with
        // policy=off, decided to change nothing): never decide again.
        if crate::emit::annotate::is_processed(m) {
            return 0;
        }
        (Mode::Full, "")
    } else {
        match mode_of(code) {
            Some(mode) => (mode, parse_element(params).map_or("", |(_, p)| p)),
            None => return 0,
        }
    };
    let (result, report_file) = match plugin_options(params) {
        Ok(opts) => (run(m, mode, &opts), opts.report_file.clone()),
        Err(e) => (Err(e), None),
    };
    match result {
        Ok(outcome) => c_int::from(outcome.changed),
        Err(e) => {
            // For the driver, which tells it from clang's other messages.
            if let Some(report) = report_file {
                let _ = std::fs::write(crate::options::error_file(&report), e.to_string());
            }
            set_error(error, e.to_string());
            -1
        }
    }
}

/// # Safety
/// `s` was produced by `set_error` (or is null).
#[no_mangle]
pub unsafe extern "C" fn gpucc_free_string(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: allocated by CString::into_raw in set_error.
        drop(unsafe { CString::from_raw(s) });
    }
}

/// Where a decided load was, for its remark: its debug location and block,
/// taken before the lowering erases the load or the keys move its location.
#[derive(Clone, Copy, Debug)]
pub struct RemarkSite {
    location: llvm_sys::prelude::LLVMMetadataRef,
    block: crate::llvm::ir::Block,
}

/// The remark sites of the analysis' decided loads, in `decided` order.
pub fn remark_sites(analysis: &Analysis) -> Vec<RemarkSite> {
    analysis
        .decided
        .iter()
        .map(|d| RemarkSite {
            location: d.load.debug_loc_raw(),
            block: d.load.parent_block(),
        })
        .collect()
}

/// A decided load's remark: its name, its text and whether it is a missed
/// one. The text states the operator the PTX gets (the report's `operator`,
/// after the lowering) and the locality as the report and the metadata spell
/// it. A load the lowering had to leave plain is a missed remark that says
/// which operator it keeps instead of the decided one, and why.
pub fn remark(l: &LoadReport, decided_op: Option<AsmOp>) -> (&'static CStr, String, bool) {
    let facts = format!(
        "pattern {}, locality {}, traffic on {} B / off {} B",
        l.pattern,
        l.locality_text(),
        l.traffic_on_bytes,
        l.traffic_off_bytes
    );
    let wanted = decided_op.map(|op| op.spelling());
    match wanted.filter(|w| *w != l.operator) {
        Some(wanted) => {
            let why = l
                .notes
                .iter()
                .rev()
                .find(|n| n.starts_with(LEFT_PLAIN))
                .map_or("the lowering left it plain", String::as_str);
            (
                c"NotLowered",
                format!(
                    "load stays {}, not {wanted} as decided ({}: {}); {why}; {facts}",
                    l.operator, l.decision, l.reason
                ),
                true,
            )
        }
        None if l.decision == "cache" => (
            c"CacheLoad",
            format!(
                "load is cached in L1 ({}): {}; {facts}",
                l.operator, l.reason
            ),
            false,
        ),
        None => (
            c"BypassL1",
            format!("load bypasses L1 ({}): {}; {facts}", l.operator, l.reason),
            false,
        ),
    }
}

/// The note the lowering leaves on a load it could not rewrite.
pub const LEFT_PLAIN: &str = "left as a plain load";

/// One optimization remark per decided load (pass name `gpucc-cache`), shown
/// by `-Rpass=gpucc-cache` (`-Rpass-missed=gpucc-cache` for loads the
/// lowering left plain) and saved by `-fsave-optimization-record`. Called
/// after the lowering (or the keys), so that each remark says what the PTX
/// gets; `sites` are from `remark_sites`, taken before. A no-op unless the
/// context has remarks enabled.
pub fn emit_remarks(analysis: &Analysis, sites: &[RemarkSite]) {
    for (d, site) in analysis.decided.iter().zip(sites) {
        let l = &analysis.report.kernels[d.kernel].loads[d.entry];
        let (name, msg, missed) = remark(l, d.op);
        let msg = CString::new(msg.replace('\0', "")).unwrap_or_default();
        // SAFETY: the block is a live block of a live module (the lowering
        // replaces instructions, never blocks); the location is context-owned
        // metadata or null.
        unsafe {
            gpucc_emit_remark(
                site.location,
                site.block.raw(),
                name.as_ptr(),
                msg.as_ptr(),
                c_int::from(missed),
            )
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipeline_element_names() {
        assert_eq!(parse_element("gpucc-cache"), Some((Mode::Full, "")));
        assert_eq!(
            parse_element("gpucc-cache<policy=cache-none;block=256>"),
            Some((Mode::Full, "policy=cache-none;block=256"))
        );
        assert_eq!(
            parse_element("gpucc-cache-annotate"),
            Some((Mode::Annotate, ""))
        );
        assert_eq!(parse_element("gpucc-cache-lower"), Some((Mode::Lower, "")));
        assert_eq!(parse_element("print<gpucc-cache>"), Some((Mode::Print, "")));
        assert_eq!(
            parse_element("print<gpucc-cache<report=json>>"),
            Some((Mode::Print, "report=json"))
        );
        assert_eq!(parse_element("instcombine"), None);
        assert_eq!(parse_element("print<gpucc-cache-lower>"), None);
    }
}
