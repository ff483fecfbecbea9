//! Bad input gets one line that names the problem and the fix, and a
//! nonzero exit: never a panic, an LLVM crash report or a silent output.

mod common;

use std::process::Command;

use common::*;

/// The failure is clean: nonzero exit, our one-line message last, no crash.
fn assert_clean_failure(args: &[&str], expect: &str) {
    let (ok, _, err) = gpucc(args);
    assert!(!ok, "gpucc-cache {args:?} succeeded");
    for crash in ["panicked", "Stack dump", "PLEASE submit", "RUST_BACKTRACE"] {
        assert!(!err.contains(crash), "gpucc-cache {args:?} crashed:\n{err}");
    }
    let last = err.lines().last().unwrap_or("");
    assert!(
        last.starts_with("gpucc-cache: error: "),
        "{args:?}: last line is not our error:\n{err}"
    );
    assert!(
        last.contains(expect),
        "{args:?}: expected '{expect}' in:\n{last}"
    );
    let ours: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("gpucc-cache: error"))
        .collect();
    assert_eq!(ours.len(), 1, "{args:?}: one line of ours:\n{err}");
}

fn td(rel: &str) -> String {
    testdata(rel).to_str().unwrap().to_string()
}

#[test]
fn missing_empty_malformed_and_foreign_inputs() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().join("x.ptx");
    let o = o.to_str().unwrap();
    assert_clean_failure(
        &["no/such/kernel.cu", "-o", o],
        "'no/such/kernel.cu' not found",
    );
    assert_clean_failure(&[&td("errors/empty.ll"), "-o", o], "is empty");
    assert_clean_failure(&[&td("errors/malformed.ll"), "-o", o], "cannot parse");
    assert_clean_failure(&[&td("errors/host_x86.ll"), "-o", o], "not NVPTX");
    assert_clean_failure(
        &[&td("errors/compile_error.cu"), "-o", o],
        "clang failed on",
    );
    assert!(
        !std::path::Path::new(o).exists(),
        "no output is left behind on failure"
    );
    let dir = out.path().to_str().unwrap();
    assert_clean_failure(&[dir, "-o", o], "is a directory");
    let cu = td("cu/sample.cu");
    assert_clean_failure(
        &[&cu, "-o", &format!("{dir}/no/such/dir/x.ptx")],
        "does not exist",
    );
    assert_clean_failure(&[&cu, "-o", dir], "is a directory");
}

#[test]
fn bad_flag_values() {
    let cu = td("cu/sample.cu");
    let cases: &[(&str, &str)] = &[
        ("--cache-policy=fast", "--cache-policy"),
        ("--block-dim=0", "--block-dim"),
        ("--block-dim=2048", "1 to 1024 threads"),
        ("--block-dim=32x64", "1 to 1024 threads"),
        ("--grid-dim=0x4", "--grid-dim"),
        ("--kernel-arg=n", "NAME=VALUE"),
        ("--kernel-arg=n=lots", "NAME=VALUE"),
        ("--cuda-gpu-arch=sm_99", "unknown GPU arch 'sm_99'"),
        ("-arch=sm_13", "unknown GPU arch 'sm_13'"),
        ("--cache-model=kepler", "--cache-model"),
        ("--l1-size=0", "--l1-size"),
        ("--l1-size=big", "--l1-size"),
        ("--cache-report=xml", "--cache-report"),
        ("--sample-blocks=4", "--grid-dim"),
        ("--sample-blocks=zero", "--sample-blocks"),
        ("-O7", "-O7"),
        ("--grid-dim=4294967295x2", "--grid-dim"),
        ("--grid-dim=64x65536", "--grid-dim"),
    ];
    for (flag, expect) in cases {
        assert_clean_failure(&[&cu, flag], expect);
    }
    assert_clean_failure(&[&cu, "--block-dim"], "--block-dim needs a value");
    assert_clean_failure(&[], "no input file");
    assert_clean_failure(&[&cu, &cu], "2 input files");
    assert_clean_failure(&[&cu, "--cuda-gpu-arch=sm_80,sm_90"], "one arch per run");
}

#[test]
fn object_output_needs_a_full_toolkit() {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("k.o");
    // The project's CUDA root has headers, libdevice and ptxas but no fatbinary.
    let (ok, _, err) = gpucc(&[&td("cu/sample.cu"), "-c", "-o", o.to_str().unwrap()]);
    if toolchain_has_fatbinary() {
        assert!(ok, "{err}");
    } else {
        assert!(!ok);
        assert!(err.trim_end().ends_with("or drop -c to get PTX"), "{err}");
    }
}

fn toolchain_has_fatbinary() -> bool {
    std::env::var_os("CUDA_PATH").is_some()
        || std::path::Path::new("/usr/local/cuda/bin/fatbinary").is_file()
}

/// In opt, a wrong module or a bad parameter ends with one LLVM ERROR line
/// and exit code 1, without a crash report.
#[test]
fn opt_plugin_errors() {
    let cases = [
        (
            "gpucc-cache",
            td("errors/host_x86.ll"),
            "module targets 'x86_64-unknown-linux-gnu', not NVPTX",
        ),
        (
            "gpucc-cache<policy=fast>",
            td("errors/host_x86.ll"),
            "invalid value 'fast' for policy",
        ),
        (
            "gpucc-cache<frobnicate=1>",
            td("errors/host_x86.ll"),
            "unknown gpucc-cache option 'frobnicate'",
        ),
        (
            "print<gpucc-cache<block=4096>>",
            td("errors/host_x86.ll"),
            "invalid value '4096' for block",
        ),
    ];
    for (pipeline, input, expect) in cases {
        let out = run(Command::new("opt-19")
            .arg(format!("-load-pass-plugin={}", plugin().display()))
            .arg(format!("-passes={pipeline}"))
            .arg(&input)
            .arg("-disable-output"));
        let err = text(&out).1;
        assert_eq!(out.status.code(), Some(1), "{pipeline}: {err}");
        assert!(
            !err.contains("Stack dump") && !err.contains("PLEASE submit"),
            "{pipeline} crashed:\n{err}"
        );
        let ours: Vec<&str> = err.lines().filter(|l| l.contains("gpucc-cache")).collect();
        assert_eq!(ours.len(), 1, "{pipeline}:\n{err}");
        // Bad parameters stop the pipeline parse (LLVM ERROR); a bad module is
        // an error diagnostic from the running pass.
        let prefixed = ours[0].starts_with("LLVM ERROR: gpucc-cache: ")
            || ours[0].starts_with("error: gpucc-cache: ");
        assert!(prefixed && ours[0].contains(expect), "{pipeline}:\n{err}");
    }
}
