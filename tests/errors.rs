//! Bad input gets one line that names the problem and the fix, and a
//! nonzero exit: never a panic, an LLVM crash report or a silent output.

mod common;

use std::process::Command;

use common::*;

/// The failure is clean: nonzero exit, our one-line message last, no crash.
fn assert_clean_failure(args: &[&str], expect: &str) {
    assert_clean_exit(Command::new(driver()).args(args), expect);
}

/// As `assert_clean_failure`, for a prepared command (environment, directory).
fn assert_clean_exit(cmd: &mut Command, expect: &str) {
    let out = run(cmd);
    let err = text(&out).1;
    let args: Vec<_> = cmd.get_args().collect();
    assert!(!out.status.success(), "gpucc-cache {args:?} succeeded");
    // Exit 1, not a signal: LLVM's fatal errors end in abort() unless caught.
    assert_eq!(out.status.code(), Some(1), "{args:?}:\n{err}");
    for crash in [
        "panicked",
        "Stack dump",
        "PLEASE submit",
        "RUST_BACKTRACE",
        "LLVM ERROR",
    ] {
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
    // A line break in the file name would end a PTX comment and leave the
    // rest of the name as a line ptxas rejects (the adversarial review,
    // ninth session): refused for -S and for objects alike.
    let odd = out.path().join("line\nbreak.cu");
    std::fs::copy(&cu, &odd).unwrap();
    let odd = odd.to_str().unwrap();
    for mode in ["-S", "-c"] {
        assert_clean_failure(
            &[odd, mode, "-o", o],
            "has a line break in its name, which would break the PTX; rename it",
        );
    }
    // A name that is not UTF-8 panicked (exit 101, a backtrace).
    use std::os::unix::ffi::OsStrExt as _;
    let bytes = out.path().join(std::ffi::OsStr::from_bytes(b"\xff\xfe.cu"));
    std::fs::copy(&cu, &bytes).unwrap();
    assert_clean_exit(
        Command::new(driver()).arg(&bytes).args(["-S", "-o", o]),
        "is not UTF-8 text; rename the file (or give the flag) in UTF-8",
    );
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
        ("--grid-dim=2147483648", "--grid-dim"),
        ("--block-dim=1024x2", "1 to 1024 threads"),
        // Once allocated 103 GB and crashed.
        ("--sample-blocks=4294967295", "from 1 to 1024"),
        ("--sample-blocks=1025", "from 1 to 1024"),
        ("--l1-size=1048577K", "from 1 to 1G"),
        ("--l1-size=99999999999M", "from 1 to 1G"),
        ("--kernel-arg=n=9223372036854775808", "NAME=VALUE"),
        ("--kernel-arg=n=0x8000000000000000", "NAME=VALUE"),
        ("--kernel-arg=n=--5", "NAME=VALUE"),
    ];
    for (flag, expect) in cases {
        assert_clean_failure(&[&cu, flag], expect);
    }
    assert_clean_failure(&[&cu, "--block-dim"], "--block-dim needs a value");
    // The value forgotten before another flag: said so, not "unexpected '-S'".
    assert_clean_failure(
        &["--block-dim", "-S", &cu],
        "--block-dim needs a value, and '-S' is a flag",
    );
    assert_clean_failure(&[&cu, "--block-dim=128", "--block-dim=64"], "name a kernel");
    assert_clean_failure(&[&cu, "--kernel-data=col"], "--kernel-data");
    assert_clean_failure(
        &[&cu, "--kernel-data=col=/nonexistent/c.i32"],
        "/nonexistent/c.i32",
    );
    assert_clean_failure(&[], "no input file");
    assert_clean_failure(&[&cu, &cu, "-S"], "2 input files");
}

#[test]
fn builds_refuse_what_they_cannot_make() {
    let cu = td("cu/sample.cu");
    assert_clean_failure(&[&cu, "-c", "-fgpu-rdc"], "separate compilation");
    assert_clean_failure(&[&cu, "-rdc=true", "-o", "app"], "separate compilation");
    assert_clean_failure(&[&cu, &cu, "-c", "-o", "x.o"], "one object per input");
    assert_clean_failure(&[&cu, "--cuda-device-only", "-c"], "would make a cubin");
    assert_clean_failure(&[&td("ll/atomic.ll"), "-c"], "is device IR");
    assert_clean_failure(
        &[&cu, "-S", "-arch=sm_70", "-arch=sm_80", "-o", "k.ptx"],
        "drop -o",
    );
    assert_clean_failure(&[&cu, "-gencode", "arch=compute_80", "-c"], "-gencode");
    assert_clean_failure(&[&cu, "-cudart", "dynamic", "-o", "app"], "-cudart dynamic");
    assert_clean_failure(&[&cu, "-c", "-dc"], "-dc is separate compilation");
    assert_clean_failure(
        &[&cu, "-cudart", "static", "-o", "/tmp/gpucc-cache-never"],
        "libcudart_static.a",
    );
    assert_clean_failure(
        &[&cu, "-c", "-gencode", "arch=compute_90,code=sm_80"],
        "cannot come from the virtual arch compute_90",
    );
    assert_clean_failure(
        &[&cu, "-c", "-gencode", "arch=compute_80,code=compute_90"],
        "cannot come from",
    );
    assert_clean_failure(
        &[&cu, "-c", "-arch=sm_80", "--no-cuda-include-ptx=sm_70"],
        "names no requested arch",
    );
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

/// A copy of a test input in a fresh directory, so a test may try to clobber it.
fn scratch_copy(rel: &str, name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::copy(testdata(rel), &p).unwrap();
    (dir, p)
}

#[test]
fn outputs_never_overwrite_the_input() {
    let (dir, ll) = scratch_copy("ll/atomic.ll", "m.ll");
    let before = std::fs::read(&ll).unwrap();
    // clang's default name for -S -emit-llvm of m.ll is m.ll itself.
    assert_clean_exit(
        Command::new(driver())
            .current_dir(dir.path())
            .args(["m.ll", "-S", "-emit-llvm"]),
        "give -o with another name",
    );
    assert_clean_exit(
        Command::new(driver()).current_dir(dir.path()).args([
            "m.ll",
            "-S",
            "-emit-llvm",
            "-o",
            "./m.ll",
        ]),
        "-o ./m.ll would overwrite the input m.ll; choose another output name",
    );
    let link = dir.path().join("linked.ll");
    std::fs::hard_link(&ll, &link).unwrap();
    let (l, i) = (link.to_str().unwrap(), ll.to_str().unwrap());
    assert_clean_failure(
        &[i, "-S", "-emit-llvm", "-o", l],
        "would overwrite the input",
    );
    assert_eq!(std::fs::read(&ll).unwrap(), before, "the input is intact");

    let (dir, cu) = scratch_copy("cu/sample.cu", "k.cu");
    let before = std::fs::read(&cu).unwrap();
    let k = cu.to_str().unwrap();
    assert_clean_failure(&[k, "-o", k], "would overwrite the input");
    let ptx = dir.path().join("k.ptx");
    let p = ptx.to_str().unwrap();
    let report = format!("--cache-report-file={p}");
    assert_clean_failure(&[k, "-o", p, &report], "name the same file");
    let report = format!("--cache-report-file={k}");
    assert_clean_failure(&[k, "-o", p, &report], "would overwrite the input");
    assert_eq!(std::fs::read(&cu).unwrap(), before, "the input is intact");
    assert!(!ptx.exists(), "nothing was written");
}

/// LLVM's code generator stops on these (valid, verified) modules with
/// report_fatal_error, which used to abort the driver with SIGABRT.
#[test]
fn llvm_fatal_errors_are_one_line() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().join("x.ptx");
    let o = o.to_str().unwrap();
    assert_clean_failure(
        &[&td("errors/atomic_acquire_sm52.ll"), "-o", o],
        "atomic_acquire_sm52.ll: Cannot select: i32,ch = AtomicLoad",
    );
    assert_clean_failure(
        &[&td("errors/quote_in_symbol.ll"), "-o", o],
        "quote_in_symbol.ll: Symbol name with unsupported characters; PTX names may use only",
    );
    assert!(
        !std::path::Path::new(o).exists(),
        "no output is left behind"
    );
    // The same error inside clang (a `.cu` input): clang's node dump, bug
    // request and stack dump are not shown, the plugin's key locations do
    // not reach the message, and no crash reproducer is left in the
    // temporary directory.
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(driver());
    cmd.args([&td("errors/atomic_acquire.cu"), "-S", "-o", o])
        .env("TMPDIR", tmp.path());
    assert_clean_exit(
        &mut cmd,
        "atomic_acquire.cu: Cannot select: i32,ch = AtomicLoad<(load acquire (s32)",
    );
    let err = text(&run(&mut cmd)).1;
    assert!(!err.contains("gpucc-cache-keys"), "{err}");
    assert!(err.contains("on any arch"), "{err}");
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "left in the temporary directory: {left:?}");
    assert!(!std::path::Path::new(o).exists(), "no PTX is written");
}

#[test]
fn misspelled_own_flags_are_ours() {
    let cu = td("cu/sample.cu");
    let cases: &[(&str, &str)] = &[
        (
            "--cache-polcy=aggressive",
            "unknown option '--cache-polcy'; did you mean '--cache-policy'?",
        ),
        ("--blockdim=16", "did you mean '--block-dim'?"),
        ("--grid=16", "did you mean '--grid-dim'?"),
        ("--kernel-args=n=4", "did you mean '--kernel-arg'?"),
        ("--sample-block=2", "did you mean '--sample-blocks'?"),
        ("--l1size=48K", "did you mean '--l1-size'?"),
        (
            "--cache-report-fil=r.txt",
            "did you mean '--cache-report-file'?",
        ),
        ("--verify-ptxas", "did you mean '--verify-ptx'?"),
        ("--verify-ptx=1", "--verify-ptx takes no value"),
    ];
    for (flag, expect) in cases {
        assert_clean_failure(&[&cu, flag], expect);
    }
}

#[test]
fn bad_tools_inputs_and_tmpdir() {
    let cu = td("cu/sample.cu");
    assert_clean_failure(
        &[&cu, "--clang=/bin/false"],
        "--clang=/bin/false is not clang 19 (it printed",
    );
    assert_clean_failure(
        &["/dev/null"],
        "'/dev/null' is not a regular file; give a .cu",
    );
    let (dir, txt) = scratch_copy("cu/sample.cu", "k.txt");
    assert_clean_failure(
        &[txt.to_str().unwrap()],
        "has the extension .txt; gpucc-cache compiles .cu or .cuh (CUDA)",
    );
    let missing = dir.path().join("no-such-dir");
    let o = dir.path().join("k.ptx");
    assert_clean_exit(
        Command::new(driver())
            .env("TMPDIR", &missing)
            .args([&cu, "-o", o.to_str().unwrap()]),
        "(TMPDIR): it does not exist; set TMPDIR to an existing writable directory",
    );
}

/// -E, -M, -MM, -fsyntax-only and -### are clang's alone: its output, its
/// exit status, nothing of ours.
#[test]
fn preprocessing_and_syntax_checks_pass_through() {
    let cu = td("cu/sample.cu");
    let (ok, out, err) = gpucc(&["-E", &cu, "--cache-policy=off"]);
    assert!(ok, "{err}");
    assert!(!err.contains("gpucc-cache"), "{err}");
    assert!(out.contains("__attribute__((global))") || out.contains("__global__"));
    assert!(!out.contains("#define N 256") && out.contains("float a = coalesced[i];"));

    let dir = tempfile::tempdir().unwrap();
    let syntax = run(Command::new(driver())
        .current_dir(dir.path())
        .args(["-fsyntax-only", &cu]));
    let (out, err) = text(&syntax);
    assert!(syntax.status.success(), "{err}");
    assert!(out.is_empty() && err.is_empty(), "{out}{err}");
    let written = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(written, 0, "-fsyntax-only writes no file");

    let (ok, out, err) = gpucc(&["-MM", &cu]);
    assert!(ok && out.starts_with("sample.o: "), "{out}{err}");

    // Clang's own errors, clang's exit status, no line of ours.
    let bad = run(Command::new(driver()).args(["-fsyntax-only", &td("errors/compile_error.cu")]));
    let err = text(&bad).1;
    assert!(!bad.status.success(), "{err}");
    assert!(
        err.contains("error:") && !err.contains("gpucc-cache"),
        "{err}"
    );
}
