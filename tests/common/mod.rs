//! Shared helpers for the integration tests: where the built driver, the
//! plugin, the CUDA root and the LLVM tools are, and small wrappers to run
//! them. `scripts/test` builds the workspace before `cargo test`, so the
//! driver binary and the plugin library exist when these run.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gpucc_cache_pass::{options::Options, run_on, Mode};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn testdata(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}

fn built(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let p = target.join("debug").join(name);
    assert!(
        p.is_file(),
        "{} is missing: run scripts/test (it builds the workspace first)",
        p.display()
    );
    p
}

pub fn driver() -> PathBuf {
    built("gpucc-cache")
}

pub fn plugin() -> PathBuf {
    built("libgpucc_cache_pass.so")
}

pub fn cuda_root() -> PathBuf {
    let p = root().join(".cuda");
    assert!(
        p.join("bin/ptxas").is_file(),
        "{} has no ptxas: run scripts/setup",
        p.display()
    );
    p
}

pub fn ptxas() -> PathBuf {
    cuda_root().join("bin/ptxas")
}

pub fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

pub fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Assembles PTX with ptxas for `arch`; panics with ptxas' errors if it fails.
pub fn assert_ptxas_accepts(ptx: &Path, arch: &str) {
    let out = run(Command::new(ptxas())
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg("/dev/null"));
    assert!(
        out.status.success(),
        "ptxas -arch={arch} rejected {}:\n{}",
        ptx.display(),
        text(&out).1
    );
}

/// Global-load instructions in PTX text, one string per instruction
/// (`ld.global.L1::no_allocate.f32`, `ld.global.f32`, ...).
pub fn global_loads(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("ld.global"))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

/// Runs a pass mode in process on a `.ll` file and returns the resulting IR text.
pub fn transform_ll(path: &Path, mode: Mode, params: &str) -> String {
    let context = Context::create();
    let buf = MemoryBuffer::create_from_file(path).expect("readable test input");
    let module = context
        .create_module_from_ir(buf)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let opts = Options::parse(params).expect("valid test parameters");
    run_on(&module, mode, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    module
        .verify()
        .unwrap_or_else(|e| panic!("{}: pass output does not verify: {e}", path.display()));
    module.print_to_string().to_string()
}

/// `clang++-19` set up for the device side of a CUDA compile for `arch`
/// against the project's CUDA root; add the output kind, flags and files.
pub fn device_clang(arch: &str) -> Command {
    let mut cmd = Command::new("clang++-19");
    cmd.args([
        "-x",
        "cuda",
        "--cuda-device-only",
        "-Wno-unknown-cuda-version",
    ])
    .arg(format!("--cuda-gpu-arch={arch}"))
    .arg(format!("--cuda-path={}", cuda_root().display()));
    cmd
}

/// Runs the driver on `input` for `arch`, writing `out`, with `extra` flags;
/// returns (success, stderr).
pub fn gpucc_to(input: &Path, arch: &str, out: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec![
        input.to_str().unwrap().to_string(),
        format!("--cuda-gpu-arch={arch}"),
        "-o".into(),
        out.to_str().unwrap().into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, _, err) = gpucc(&a);
    (ok, err)
}

/// The JSON report of the driver building `input` into an object (`-c`,
/// so host launches are read) for `arch`, with `extra` flags; panics with
/// the driver's stderr when it fails.
pub fn json_report(input: &Path, arch: &str, extra: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    let mut args = vec![
        "--cache-report=json".to_string(),
        format!("--cache-report-file={}", report.display()),
        "-c".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, err) = gpucc_to(input, arch, &dir.path().join("k.o"), &a);
    assert!(ok, "{err}");
    serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap()
}

/// The function of a JSON report (kernel or device function) whose
/// demangled name is `name(...)`; panics naming the report without one.
pub fn function_named<'a>(r: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    (r["kernels"].as_array().unwrap().iter())
        .find(|k| k["name"].as_str().unwrap().starts_with(&format!("{name}(")))
        .unwrap_or_else(|| panic!("no function {name} in {r}"))
}

/// Runs the driver with `args`; returns (success, stdout, stderr).
pub fn gpucc(args: &[&str]) -> (bool, String, String) {
    let out = run(Command::new(driver()).args(args));
    let (o, e) = text(&out);
    (out.status.success(), o, e)
}

/// Drops lines that name paths of this machine from IR text, so snapshots
/// are the same everywhere.
pub fn stable_ir(ir: &str) -> String {
    ir.lines()
        .filter(|l| !l.starts_with("; ModuleID") && !l.starts_with("source_filename"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// ptxas' errors when it rejects `ptx` for `arch`; `None` when it assembles
/// (for tests that collect every failure instead of stopping at the first).
pub fn ptxas_rejects(ptx: &Path, arch: &str) -> Option<String> {
    let out = run(Command::new(ptxas())
        .arg(format!("-arch={arch}"))
        .arg(ptx)
        .arg("-o")
        .arg("/dev/null"));
    (!out.status.success()).then(|| text(&out).1)
}

/// Every `.cu` file under `dir`, sorted, but those in `errors/` (inputs
/// that must fail), `stress/` (compile-time stress inputs, checked on
/// one arch by `tests/codegen.rs`: 300 template instantiations on every
/// arch and route would take minutes of the suite), `machine/` (the
/// inputs of `tests/machine.rs`, which compares their PTX itself) and
/// `sim/` (the simulator's whole programs, checked by `tests/codegen.rs` on
/// the two archs the simulator runs: every arch would add two minutes),
/// `launch_args/` and `bounded/` (model inputs, checked by their own tests).
pub fn cu_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        // `rdc`: sources that call device functions of other units, which
        // only separate compilation (`-fgpu-rdc`) assembles.
        let skipped = [
            "errors",
            "stress",
            "machine",
            "sim",
            "launch_args",
            "bounded",
            "rdc",
        ];
        if p.is_dir() && !skipped.iter().any(|s| p.ends_with(s)) {
            cu_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "cu") {
            out.push(p);
        }
    }
}
