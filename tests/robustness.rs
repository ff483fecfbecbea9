//! Robustness round 3 (issue 16), the classes the driver itself owns:
//! outputs that are devices, FIFOs, symlinks or directories; outputs that
//! are inputs of the run (headers, kernel data, response files, graphs);
//! nothing written on failure; signals; debug and ptxas flags leaving the
//! PTX as clang writes it; files clang writes beside the output; and the
//! command-line forms clang users type. Each test names its class.

mod common;

use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// A realistic small program: a header with a struct, a kernel over 2-D
/// blocks that reads struct fields and a neighbour, and its host launch.
const HEADER: &str = "#pragma once\nstruct Cell { float t; float k; };\n#define SCALE 0.25f\n";
const SOURCE: &str = r#"#include "cell.cuh"
#include <cuda_runtime.h>

__global__ void relax(const Cell *cells, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int i = y * w + x;
  float left = x > 0 ? cells[i - 1].t : cells[i].t;
  out[i] = cells[i].t + SCALE * cells[i].k * (left - cells[i].t);
}

int main() {
  const int w = 256, h = 128;
  Cell *cells; float *out;
  cudaMalloc(&cells, w * h * sizeof(Cell));
  cudaMalloc(&out, w * h * sizeof(float));
  relax<<<dim3(w / 16, h / 16), dim3(16, 16)>>>(cells, out, w, h);
  cudaDeviceSynchronize();
  return 0;
}
"#;

/// A temporary directory holding `relax.cu` and `cell.cuh`.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cell.cuh"), HEADER).unwrap();
    let src = dir.path().join("relax.cu");
    std::fs::write(&src, SOURCE).unwrap();
    (dir, src)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// Runs the driver in `dir`; (success, stdout, stderr).
fn gpucc_in(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = run(Command::new(driver()).current_dir(dir).args(args));
    let (o, e) = text(&out);
    (out.status.success(), o, e)
}

fn assert_refused(ok: bool, err: &str, expect: &str) {
    assert!(
        !ok,
        "expected a refusal with '{expect}', got success:\n{err}"
    );
    let last = err.lines().last().unwrap_or("");
    assert!(
        last.starts_with("gpucc-cache: error: ") && last.contains(expect),
        "expected '{expect}' in:\n{err}"
    );
}

/// Class 1: an output that is a device or FIFO is written through and
/// stays what it was; a symlink's target is replaced and the link stays; a
/// directory is refused. For every writer: compile `-o`, the report, `apply
/// -o`, `partition --json`, `locality --csv`.
#[test]
fn outputs_write_through_devices_fifos_and_symlinks() {
    let (dir, src) = project();
    let d = dir.path();
    if is_root() {
        // A null device of our own, so the system's is never at stake.
        let dev = d.join("null");
        let made = Command::new("mknod")
            .arg(&dev)
            .args(["c", "1", "3"])
            .status()
            .unwrap();
        assert!(made.success());
        for args in [
            vec![s(&src), "-S", "-o", s(&dev)],
            vec![s(&src), "-o", s(&dev), "--cache-report=none"],
            vec![s(&src), "-o", "x.ptx", "--cache-report-file", s(&dev)],
            vec![
                "partition",
                "gen:mesh2d:8x8",
                "--parts=4",
                "--json",
                s(&dev),
            ],
        ] {
            let (ok, _, err) = gpucc_in(d, &args);
            assert!(ok, "{args:?}: {err}");
            let t = std::fs::symlink_metadata(&dev).unwrap().file_type();
            assert!(t.is_char_device(), "{args:?} replaced the device");
        }
    } else {
        eprintln!("not root: the mknod part of this test needs root (CI runs as root)");
    }
    // A FIFO: the PTX arrives through it, and it stays a FIFO.
    let fifo = d.join("pipe.ptx");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let (ok, _, err) = gpucc_in(d, &[s(&src), "-o", s(&fifo), "--cache-report=none"]);
    assert!(ok, "{err}");
    assert!(reader
        .join()
        .unwrap()
        .contains(".entry _Z5relaxPK4CellPfii"));
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    // Symlinks: the target gets the new content, the link stays a link.
    let check_link = |args: &[&str], target: &Path, link: &Path, expect: &str| {
        std::fs::write(target, "old").unwrap();
        let (ok, _, err) = gpucc_in(d, args);
        assert!(ok, "{args:?}: {err}");
        assert!(std::fs::symlink_metadata(link)
            .unwrap()
            .file_type()
            .is_symlink());
        let got = std::fs::read_to_string(target).unwrap();
        assert!(got.contains(expect), "{args:?}: {got}");
    };
    let target = d.join("real.out");
    let link = d.join("link.out");
    std::os::unix::fs::symlink("real.out", &link).unwrap();
    check_link(&[s(&src), "-S", "-o", s(&link)], &target, &link, ".entry");
    // A program through a link: the executable is written where it leads.
    std::fs::write(&target, "old").unwrap();
    let (ok, _, err) = gpucc_in(d, &[s(&src), "-o", s(&link), "--cache-report=none"]);
    assert!(ok, "{err}");
    assert!(std::fs::read(&target).unwrap().starts_with(b"\x7fELF"));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    check_link(
        &[
            s(&src),
            "-o",
            "k.ptx",
            "--cache-report=json",
            "--cache-report-file",
            s(&link),
        ],
        &target,
        &link,
        "\"kernels\"",
    );
    check_link(
        &[
            "partition",
            "gen:mesh2d:8x8",
            "--parts=4",
            "--json",
            s(&link),
        ],
        &target,
        &link,
        "\"methods\"",
    );
    check_link(
        &[
            "locality",
            s(&src),
            "--kernel=relax",
            "--level=warp",
            "--csv",
            s(&link),
        ],
        &target,
        &link,
        "level,N,K,LS",
    );
    // apply over a symlink, with the PTX the plugin route keys.
    let keyed = d.join("keyed.ptx");
    std::fs::write(&keyed, std::fs::read(d.join("k.ptx")).unwrap()).unwrap();
    check_link(
        &["apply", s(&keyed), "-o", s(&link)],
        &target,
        &link,
        ".entry",
    );
    // Directories are refused, by every writer, before any work.
    let sub = d.join("sub");
    std::fs::create_dir(&sub).unwrap();
    for args in [
        vec![s(&src), "-o", s(&sub)],
        vec![s(&src), "--cache-report-file", s(&sub)],
        vec!["apply", s(&keyed), "-o", s(&sub)],
        vec![
            "partition",
            "gen:mesh2d:8x8",
            "--parts=4",
            "--json",
            s(&sub),
        ],
        vec![
            "locality",
            s(&src),
            "--kernel=relax",
            "--level=sm",
            "--svg",
            s(&sub),
        ],
    ] {
        let (ok, _, err) = gpucc_in(d, &args);
        assert_refused(ok, &err, "is a directory");
    }
}

/// Class 2: no output may be an input of the run, by identity: a header the
/// source includes (also through a symlink or hard link), kernel data, a
/// response file, the partition graph.
#[test]
fn outputs_never_overwrite_any_input() {
    let (dir, src) = project();
    let d = dir.path();
    let header = d.join("cell.cuh");
    let hard = d.join("hard.cuh");
    std::fs::hard_link(&header, &hard).unwrap();
    let soft = d.join("soft.cuh");
    std::os::unix::fs::symlink("cell.cuh", &soft).unwrap();
    for (flag, out) in [
        ("-o", &header),
        ("-o", &hard),
        ("--cache-report-file", &soft),
    ] {
        let (ok, _, err) = gpucc_in(d, &[s(&src), flag, s(out)]);
        assert_refused(ok, &err, "would overwrite a file the source includes");
        assert_eq!(std::fs::read_to_string(&header).unwrap(), HEADER);
    }
    // A dependency file aimed at the header.
    let (ok, _, err) = gpucc_in(d, &[s(&src), "-o", "k.ptx", "-MD", "-MF", s(&header)]);
    assert_refused(ok, &err, "would overwrite a file the source includes");
    assert_eq!(std::fs::read_to_string(&header).unwrap(), HEADER);
    // Kernel data, for compile and locality.
    let data = d.join("idx.i32");
    std::fs::write(&data, [0u8; 64]).unwrap();
    let bind = format!("--kernel-data=cells={}", s(&data));
    for args in [
        vec![s(&src), "-o", s(&data), &bind],
        vec![
            "locality",
            s(&src),
            "--kernel=relax",
            &bind,
            "--csv",
            s(&data),
        ],
    ] {
        let (ok, _, err) = gpucc_in(d, &args);
        assert_refused(ok, &err, "would overwrite the kernel data");
        assert_eq!(std::fs::read(&data).unwrap(), [0u8; 64]);
    }
    // A response file.
    let rsp = d.join("flags.rsp");
    std::fs::write(&rsp, "-O2 --cache-report=none").unwrap();
    let at = format!("@{}", s(&rsp));
    let (ok, _, err) = gpucc_in(d, &[s(&src), &at, "-o", s(&rsp)]);
    assert_refused(ok, &err, "would overwrite the response file");
    assert_eq!(
        std::fs::read_to_string(&rsp).unwrap(),
        "-O2 --cache-report=none"
    );
    // Headers only the host side includes, the header of a C++ input, a
    // host-only build, locality, and a system header under -MMD.
    std::fs::write(d.join("hosth.h"), "int host_only();\n").unwrap();
    std::fs::write(
        d.join("hm.cu"),
        "#include \"cell.cuh\"\n#ifndef __CUDA_ARCH__\n#include \"hosth.h\"\n#endif\n\
         __global__ void k(float *a) { a[threadIdx.x] *= SCALE; }\n\
         int main() { float *a; cudaMalloc(&a, 1024); k<<<1, 256>>>(a); return 0; }\n",
    )
    .unwrap();
    std::fs::write(d.join("cpph.h"), "int hf();\n").unwrap();
    std::fs::write(
        d.join("hf.cpp"),
        "#include \"cpph.h\"\nint hf() { return 0; }\n",
    )
    .unwrap();
    std::fs::create_dir(d.join("sysinc")).unwrap();
    std::fs::write(d.join("sysinc/sysh.h"), "#define SYSV 1\n").unwrap();
    std::fs::write(
        d.join("s.cu"),
        "#include <sysh.h>\n__global__ void s(float *a) { a[threadIdx.x] = SYSV; }\n",
    )
    .unwrap();
    let kept: Vec<(PathBuf, Vec<u8>)> = ["hosth.h", "cell.cuh", "cpph.h", "sysinc/sysh.h"]
        .iter()
        .map(|f| (d.join(f), std::fs::read(d.join(f)).unwrap()))
        .collect();
    for args in [
        vec!["hm.cu", "-o", "hosth.h"],
        vec!["-c", "hm.cu", "-arch=sm_80", "-o", "hosth.h"],
        vec!["-c", "hm.cu", "-o", "hm.o", "--cache-report-file=hosth.h"],
        vec!["-c", "hm.cu", "--cuda-host-only", "-o", "cell.cuh"],
        vec!["hm.cu", "hf.cpp", "-o", "cpph.h"],
        vec![
            "-S",
            "s.cu",
            "-isystem",
            "sysinc",
            "-MMD",
            "-o",
            "sysinc/sysh.h",
        ],
        vec!["locality", "hm.cu", "--kernel=k", "--csv=cell.cuh"],
    ] {
        let (ok, _, err) = gpucc_in(d, &args);
        assert_refused(ok, &err, "would overwrite a file the source includes");
    }
    for (f, bytes) in kept {
        assert_eq!(std::fs::read(&f).unwrap(), bytes, "{} changed", f.display());
    }
    // The partition graph, through a hard link.
    let graph = d.join("g.txt");
    std::fs::write(&graph, "0 1\n1 2\n2 3\n3 0\n").unwrap();
    let graph_link = d.join("g.json");
    std::fs::hard_link(&graph, &graph_link).unwrap();
    let (ok, _, err) = gpucc_in(
        d,
        &[
            "partition",
            s(&graph),
            "--parts=2",
            "--json",
            s(&graph_link),
        ],
    );
    assert_refused(ok, &err, "would overwrite the input graph");
    assert_eq!(
        std::fs::read_to_string(&graph).unwrap(),
        "0 1\n1 2\n2 3\n3 0\n"
    );
}

/// Class 3: a run that fails writes nothing, on every route: IR output with
/// the report going nowhere, PTX with ptxas refusing, a clang error.
#[test]
fn a_failed_run_writes_nothing() {
    let (dir, src) = project();
    let d = dir.path();
    let nowhere = d.join("no/such/dir/report.txt");
    for (mode, out) in [
        (vec!["-S", "-emit-llvm"], "k.ll"),
        (vec!["-c", "-emit-llvm"], "k.bc"),
        (vec!["-S"], "k.ptx"),
    ] {
        let mut args = vec![s(&src), "-o", out, "--cache-report-file", s(&nowhere)];
        args.extend(mode.iter().copied());
        let (ok, _, err) = gpucc_in(d, &args);
        assert_refused(ok, &err, "does not exist");
        assert!(!d.join(out).exists(), "{mode:?} left {out} behind");
    }
    // The in-process route (.ll input), a report file beside an output
    // that would be fine.
    let ll = d.join("relax.ll");
    let made = run(device_clang("sm_70").args(["-S", "-emit-llvm", "-O3", "-o", s(&ll), s(&src)]));
    assert!(made.status.success());
    let (ok, _, err) = gpucc_in(
        d,
        &[
            s(&ll),
            "-S",
            "-emit-llvm",
            "-o",
            "out.ll",
            "--cache-report-file",
            s(&nowhere),
        ],
    );
    assert_refused(ok, &err, "does not exist");
    assert!(!d.join("out.ll").exists());
    // A compile error: no output, no report, no dependency file.
    let bad = d.join("bad.cu");
    std::fs::write(
        &bad,
        "__global__ void k(float *a) { a[0] = undefined_name; }\n",
    )
    .unwrap();
    let (ok, _, _) = gpucc_in(
        d,
        &[
            s(&bad),
            "-o",
            "bad.ptx",
            "--cache-report-file",
            "bad.txt",
            "-MD",
        ],
    );
    assert!(!ok);
    for f in ["bad.ptx", "bad.txt", "bad.d"] {
        assert!(!d.join(f).exists(), "{f} written by a failed run");
    }
}

/// Class 7: SIGTERM and SIGINT end the run with 143 and 130, kill the clang
/// the driver started (by pid), and leave no temporary directory.
#[test]
fn signals_kill_children_and_clean_up() {
    let (dir, src) = project();
    let d = dir.path();
    // A clang that says it is clang 19 and then hangs, telling its pid.
    let fake = d.join("fake-clang");
    let pid_file = d.join("clang.pid");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'clang version 19.1.7'; exit 0; fi\necho $$ > {}\nexec sleep 60\n",
            s(&pid_file)
        ),
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    for (signal, code) in [("TERM", 143), ("INT", 130), ("HUP", 129)] {
        let tmp = d.join(format!("tmp-{signal}"));
        std::fs::create_dir(&tmp).unwrap();
        let _ = std::fs::remove_file(&pid_file);
        let mut child = Command::new(driver())
            .current_dir(d)
            .env("TMPDIR", &tmp)
            .arg(format!("--clang={}", s(&fake)))
            .args([s(&src), "-o", "sig.ptx"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The shell creates the file before it writes the pid: wait for a
        // number, not for the file (a loaded machine showed it empty).
        let start = Instant::now();
        let clang_pid = loop {
            let text = std::fs::read_to_string(&pid_file).unwrap_or_default();
            if let Ok(pid) = text.trim().parse::<u32>() {
                break pid.to_string();
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the fake clang never started"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        // The child clang is gone (reaped by init once killed).
        let start = Instant::now();
        while Path::new(&format!("/proc/{clang_pid}")).exists()
            && !std::fs::read_to_string(format!("/proc/{clang_pid}/stat"))
                .unwrap_or_default()
                .contains(") Z")
        {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "SIG{signal}: clang {clang_pid} still runs"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
        assert!(left.is_empty(), "SIG{signal}: temporaries left: {left:?}");
        assert!(!d.join("sig.ptx").exists());
    }
}

/// Class 9: debug and ptxas flags leave the PTX as clang writes it: with
/// policy off, byte for byte.
#[test]
fn debug_and_ptxas_flags_leave_clangs_ptx() {
    let (dir, src) = project();
    let d = dir.path();
    for flags in [
        vec!["-g", "-g0"],
        vec!["-gz"],
        vec!["-gcolumn-info"],
        vec!["-Xcuda-ptxas", "-g"],
        vec!["-Xcuda-ptxas", "-O0"],
        vec!["-g"],
        vec!["-g0", "-gline-tables-only"],
        vec!["-gdwarf-4", "-gcolumn-info"],
    ] {
        let clang_ptx = d.join("clang.ptx");
        // In the same directory: -g records the compilation directory.
        let made = run(device_clang("sm_80")
            .current_dir(d)
            .args(["-S", "-O3"])
            .args(&flags)
            .args(["-o", s(&clang_ptx), s(&src)]));
        assert!(made.status.success(), "{flags:?}: {}", text(&made).1);
        let mut args = vec![
            s(&src),
            "--cuda-gpu-arch=sm_80",
            "--cache-policy=off",
            "-o",
            "ours.ptx",
        ];
        args.extend(flags.iter().copied());
        let (ok, _, err) = gpucc_in(d, &args);
        assert!(ok, "{flags:?}: {err}");
        let ours = std::fs::read_to_string(d.join("ours.ptx")).unwrap();
        let theirs = std::fs::read_to_string(&clang_ptx).unwrap();
        assert!(ours == theirs, "{flags:?}: the PTX differs from clang's");
    }
    // With -g and a policy that decides: clang's debug info whole, the
    // operators written. At -O0 clang marks the target `, debug`, which the
    // keyed compile (line tables only) does not: once taken for a change of
    // code, and every decision dropped with a warning (an adversarial
    // review).
    // At -O0 the project's pointers live in local memory (nothing to
    // decide): a `__device__` table read at the thread's index is.
    let table = d.join("table.cu");
    std::fs::write(
        &table,
        "__device__ float table[256];\n__global__ void k(float *out) { out[threadIdx.x] = table[threadIdx.x]; }\n",
    )
    .unwrap();
    for (level, src, decided) in [("-O3", &src, 3), ("-O0", &table, 1)] {
        let (ok, _, err) = gpucc_in(
            d,
            &[
                s(src),
                "--cuda-gpu-arch=sm_80",
                "--cache-policy=cache-none",
                level,
                "-g",
                "-o",
                "ours.ptx",
            ],
        );
        assert!(ok, "{err}");
        assert!(!err.contains("debug info changed"), "{level}: {err}");
        let ours = std::fs::read_to_string(d.join("ours.ptx")).unwrap();
        let made = run(device_clang("sm_80").current_dir(d).args([
            "-S",
            level,
            "-g",
            "-o",
            "clang.ptx",
            s(src),
        ]));
        assert!(made.status.success());
        let theirs = std::fs::read_to_string(d.join("clang.ptx")).unwrap();
        let normal = gpucc_cache_pass::emit::ptx::normalized;
        assert_eq!(normal(&ours), normal(&theirs), "{level}");
        assert_eq!(ours.matches(".loc").count(), theirs.matches(".loc").count());
        let bypassed = ours.matches("L1::no_allocate").count();
        assert_eq!(bypassed, decided, "{level}: {ours}");
        if level == "-O0" {
            assert!(ours.contains(".target sm_80, debug"), "{ours}");
        }
    }
}

/// Class 10: files clang writes beside the output land where clang puts
/// them: the optimization record (with our remarks), the dependency file
/// (naming the output as its target).
#[test]
fn files_beside_the_output_land_where_clang_puts_them() {
    let (dir, src) = project();
    let d = dir.path();
    std::fs::create_dir(d.join("out")).unwrap();
    let (ok, _, err) = gpucc_in(
        d,
        &[
            s(&src),
            "-o",
            "out/relax.ptx",
            "-fsave-optimization-record",
            "-MD",
        ],
    );
    assert!(ok, "{err}");
    let record = std::fs::read_to_string(d.join("out/relax.opt.yaml")).unwrap();
    assert!(record.contains("Pass:            gpucc-cache"), "{record}");
    let deps = std::fs::read_to_string(d.join("out/relax.d")).unwrap();
    assert!(deps.starts_with("out/relax.ptx:"), "{deps}");
    assert!(deps.contains("cell.cuh"), "{deps}");
    // Named places, and -MMD without system headers.
    let (ok, _, err) = gpucc_in(
        d,
        &[
            s(&src),
            "-o",
            "k.ptx",
            "-MMD",
            "-MF",
            "deps.mk",
            "-MT",
            "mine",
            "-foptimization-record-file=rec.yaml",
        ],
    );
    assert!(ok, "{err}");
    let deps = std::fs::read_to_string(d.join("deps.mk")).unwrap();
    assert!(
        deps.starts_with("mine:") && !deps.contains("cuda_runtime.h"),
        "{deps}"
    );
    assert!(d.join("rec.yaml").is_file());
    // Nothing is left in the temporary directory's place of clang's choice.
    assert!(!d.join("k.d").exists());
}

/// Class 11: what clang users type: response files, -imacros, -idirafter,
/// --cuda-path DIR, --, -x cuda on another extension, stdin, the
/// environment's GPUCC_CACHE_EP, a ';' in a path.
#[test]
fn clang_command_lines_work() {
    let (dir, src) = project();
    let d = dir.path();
    let reference = d.join("ref.ptx");
    let (ok, _, err) = gpucc_in(d, &[s(&src), "-o", s(&reference), "--cache-report=none"]);
    assert!(ok, "{err}");
    let expected = std::fs::read_to_string(&reference).unwrap();
    let same = |args: &[&str], why: &str| {
        let _ = std::fs::remove_file(d.join("t.ptx"));
        let (ok, _, err) = gpucc_in(d, args);
        assert!(ok, "{why}: {args:?}: {err}");
        let got = std::fs::read_to_string(d.join("t.ptx")).unwrap();
        assert!(got == expected, "{why}: the PTX differs");
    };
    std::fs::write(
        d.join("a.rsp"),
        format!("--cache-report=none \"{}\" @b.rsp", s(&src)),
    )
    .unwrap();
    std::fs::write(d.join("b.rsp"), "-o 't.ptx'").unwrap();
    same(&["@a.rsp"], "nested response files");
    std::fs::write(d.join("m.h"), "#define UNUSED_MACRO 1\n").unwrap();
    same(
        &[
            s(&src),
            "-imacros",
            "m.h",
            "-idirafter",
            "/nonexistent",
            "-o",
            "t.ptx",
            "--cache-report=none",
        ],
        "-imacros, -idirafter",
    );
    let cuda = cuda_root();
    same(
        &[
            s(&src),
            "--cuda-path",
            s(&cuda),
            "-o",
            "t.ptx",
            "--cache-report=none",
        ],
        "--cuda-path DIR",
    );
    same(&["--cache-report=none", "-o", "t.ptx", "--", s(&src)], "--");
    let odd = d.join("relax.cu.cc");
    std::fs::copy(&src, &odd).unwrap();
    same(
        &["-x", "cuda", s(&odd), "-o", "t.ptx", "--cache-report=none"],
        "-x cuda on .cc",
    );
    // Standard input, includes found from the working directory as clang does.
    let mut child = Command::new(driver())
        .current_dir(d)
        .args(["-x", "cuda", "-", "-o", "t.ptx", "--cache-report=none"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(SOURCE.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read_to_string(d.join("t.ptx"))
        .unwrap()
        .contains(".entry _Z5relaxPK4CellPfii"));
    // -o -: the PTX on standard output, no file named '-'.
    let out = run(Command::new(driver()).current_dir(d).args([
        s(&src),
        "-S",
        "-o",
        "-",
        "--cache-report=none",
    ]));
    assert!(out.status.success(), "{}", text(&out).1);
    assert_eq!(text(&out).0, expected);
    assert!(!d.join("-").exists());
    // The user's GPUCC_CACHE_EP (for their opt pipelines) does not switch
    // the driver's plugin off.
    let out = run(Command::new(driver())
        .current_dir(d)
        .env("GPUCC_CACHE_EP", "0")
        .args([s(&src), "-o", "t.ptx", "--cache-report=none"]));
    assert!(out.status.success(), "{}", text(&out).1);
    assert_eq!(std::fs::read_to_string(d.join("t.ptx")).unwrap(), expected);
    // A ';' in a kernel-data path (it travels in the plugin's parameters).
    let odd_data = d.join("a;b.i32");
    std::fs::write(&odd_data, [0u8; 16]).unwrap();
    let bind = format!("--kernel-data=cells={}", s(&odd_data));
    let (ok, _, err) = gpucc_in(d, &[s(&src), "-o", "t.ptx", &bind, "--cache-report=none"]);
    assert!(ok, "{err}");
    // Forms that make no device code say so.
    let (ok, _, err) = gpucc_in(d, &["-x", "c++", s(&src), "-o", "t.ptx"]);
    assert_refused(ok, &err, "-x c++ makes no device code");
    let (ok, _, err) = gpucc_in(d, &["-", "-o", "t.ptx"]);
    assert_refused(ok, &err, "needs -x cuda or -x ir");
}

/// Class 6, the driver's own inputs: `apply` reads only a regular file (a
/// device or FIFO would never end), and a build's inputs likewise.
#[test]
fn driver_inputs_are_regular_files() {
    let (dir, src) = project();
    let d = dir.path();
    let fifo = d.join("keyed.ptx");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for args in [
        vec!["apply", "/dev/zero", "-o", "out.ptx"],
        vec!["apply", s(&fifo), "-o", "out.ptx"],
        vec![s(&src), "/dev/zero", "-o", "app"],
    ] {
        let start = Instant::now();
        let (ok, _, err) = gpucc_in(d, &args);
        assert_refused(ok, &err, "is not a regular file");
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{args:?} took too long"
        );
    }
    // A response file that is a FIFO (no writer would ever come).
    let (ok, _, err) = gpucc_in(d, &[&format!("@{}", s(&fifo)), s(&src), "-S"]);
    assert_refused(ok, &err, "response file");
    let (ok, _, err) = gpucc_in(d, &["@missing.rsp", s(&src), "-S"]);
    assert_refused(ok, &err, "response file missing.rsp not found");
    std::fs::write(d.join("open.rsp"), "'-DX=1").unwrap();
    let (ok, _, err) = gpucc_in(d, &["@open.rsp", s(&src), "-S"]);
    assert_refused(ok, &err, "never closed");
}

/// Messages to a standard error that cannot be written (a full disk) do
/// not turn into a panic.
#[test]
fn an_unwritable_stderr_is_no_crash() {
    if !is_root() {
        eprintln!("not root: this test needs mknod (CI runs as root)");
        return;
    }
    let (dir, src) = project();
    let d = dir.path();
    let full = d.join("full");
    let made = Command::new("mknod")
        .arg(&full)
        .args(["c", "1", "7"])
        .status()
        .unwrap();
    assert!(made.success());
    let to_full = || std::fs::OpenOptions::new().write(true).open(&full).unwrap();
    let out = Command::new(driver())
        .current_dir(d)
        .args([s(&src), "-S", "-o", "k.ptx", "--cache-polcy=off"])
        .stderr(to_full())
        .status()
        .unwrap();
    assert_eq!(out.code(), Some(1), "an error exit, not a panic (101)");
    let out = Command::new(driver())
        .current_dir(d)
        .args([s(&src), "-S", "-o", "k.ptx"])
        .stderr(to_full())
        .status()
        .unwrap();
    assert_eq!(
        out.code(),
        Some(0),
        "the report is lost, the PTX is written"
    );
    assert!(d.join("k.ptx").is_file());
}
