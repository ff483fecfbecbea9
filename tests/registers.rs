//! Registers per thread from ptxas (issue 19): the driver assembles the PTX
//! it made with `ptxas -v`, and where a kernel's count changes the occupancy
//! the estimate of 32 gave, decides again with the count; a count given
//! with `--registers` is used as it is; without ptxas the estimate stands
//! and the report says so.
//!
//! The occupancy figures are worked by hand from the rules of CUDA's
//! `cuda_occupancy.h` (`cudaOccMaxActiveBlocksPerMultiprocessor`) with the
//! sm_80 table entry (`gpu::hardware`: 65,536 registers per SM in 4
//! sub-partitions, allocated per warp in units of 256; 64 warps, 32 blocks,
//! 1 KB of shared memory reserved per block; 192 KB unified L1/shared with
//! carveouts 0, 8, 16, 32, 64, 100, 132, 164 KB).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{gpucc, ptxas, run, testdata, text};

fn heavy() -> PathBuf {
    testdata("cu/registers/heavy.cu")
}

/// The driver on `input` for sm_80 with a JSON report file and `extra`;
/// (the report, the PTX path, stderr).
fn report(input: &Path, dir: &Path, extra: &[&str]) -> (serde_json::Value, PathBuf, String) {
    let ptx = dir.join("out.ptx");
    let json = dir.join("report.json");
    let mut args = vec![
        input.to_str().unwrap().to_string(),
        "--cuda-gpu-arch=sm_80".into(),
        "-S".into(),
        "-o".into(),
        ptx.to_str().unwrap().into(),
        "--cache-report=json".into(),
        format!("--cache-report-file={}", json.display()),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, _, err) = gpucc(&a);
    assert!(ok, "driver failed: {err}");
    let r = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (r, ptx, err)
}

fn occupancy_text(r: &serde_json::Value) -> String {
    r["kernels"][0]["simulated"]["occupancy"]
        .as_str()
        .expect("the model ran on the kernel")
        .to_string()
}

/// The registers ptxas -v allocates for the only kernel of `ptx`.
fn ptxas_registers(ptx: &Path) -> u32 {
    let out = run(Command::new(ptxas())
        .args(["-v", "-arch=sm_80"])
        .arg(ptx)
        .args(["-o", "/dev/null"]));
    let (o, e) = text(&out);
    let all = format!("{o}{e}");
    let used = all
        .lines()
        .find_map(|l| l.split("Used ").nth(1))
        .unwrap_or_else(|| panic!("no 'Used' line in ptxas -v:\n{all}"));
    used.split(' ').next().unwrap().parse().unwrap()
}

/// How many times the driver ran clang with the plugin (`-v` prints each
/// command with its `GPUCC_CACHE_OPTIONS`).
fn plugin_runs(verbose: &str) -> Vec<&str> {
    verbose
        .lines()
        .filter(|l| l.contains("GPUCC_CACHE_OPTIONS="))
        .collect()
}

#[test]
fn ptxas_registers_set_the_occupancy() {
    let dir = tempfile::tempdir().unwrap();
    let (r, ptx, _) = report(&heavy(), dir.path(), &[]);
    // The PTX the driver wrote is the one it measured: its count is ptxas'.
    let regs = ptxas_registers(&ptx);
    // 256 threads = 8 warps. Any count from 65 to 72 gives 65 x 32 = 2,080
    // .. 72 x 32 = 2,304 registers per warp, rounded up to the 256 unit:
    // 2,304. A sub-partition holds 16,384 / 2,304 = 7.1 -> 7 warps, x 4 =
    // 28 warps per SM -> 28 / 8 = 3 blocks, below the warp slots' 64 / 8 =
    // 8 and the block slots' 32: register-bound. (CUDA 12.5's ptxas gives
    // 72.) Shared: 3 x 1 KB reserved = 3 KB -> carveout 8 KB, L1 192 - 8 =
    // 184 KB = 188,416 B.
    assert!(
        (65..=72).contains(&regs),
        "ptxas allocated {regs} registers"
    );
    assert_eq!(
        occupancy_text(&r),
        format!(
            "3 blocks/SM (registers-limited; {regs} registers/thread), shared carveout 8192 B, L1 188416 B per SM"
        )
    );
    assert_eq!(r["kernels"][0]["simulated"]["blocks"], 3);
}

#[test]
fn a_count_that_moves_the_occupancy_decides_again() {
    let dir = tempfile::tempdir().unwrap();
    let (_, ptx, verbose) = report(&heavy(), dir.path(), &["-v"]);
    let regs = ptxas_registers(&ptx);
    let runs = plugin_runs(&verbose);
    // First with the estimate, then with ptxas' count (65..72 registers
    // bind at 3 blocks, the estimate at 8: see above).
    assert_eq!(runs.len(), 2, "{verbose}");
    assert!(!runs[0].contains("registers="), "{}", runs[0]);
    assert!(
        runs[1].contains(&format!("registers=_Z5heavyPKdPdi={regs};")),
        "{}",
        runs[1]
    );
    assert!(verbose.contains(&format!(
        "ptxas: _Z5heavyPKdPdi: {regs} registers/thread, 0 B spilled; changes the occupancy"
    )));
}

/// The lines of `stderr` that hold `needle`.
fn count(stderr: &str, needle: &str) -> usize {
    stderr.lines().filter(|l| l.contains(needle)).count()
}

#[test]
fn a_second_compile_does_not_repeat_clangs_messages() {
    // heavy_warning.cu: heavy.cu (whose count moves the occupancy, so the
    // device side is compiled twice) and a function with two -Wall
    // warnings. clang's own device-only compile prints each once; so must
    // the driver, and the -Rpass remarks once per load, as the second
    // (final) compile decided them: heavy's 32 loads of `a`.
    let dir = tempfile::tempdir().unwrap();
    let input = testdata("cu/registers/heavy_warning.cu");
    let flags = ["-Wall", "-Rpass=gpucc-cache"];
    let (r, _, stderr) = report(&input, dir.path(), &[&flags[..], &["-v"]].concat());
    assert_eq!(plugin_runs(&stderr).len(), 2, "{stderr}");
    let (_, _, stderr) = report(&input, dir.path(), &flags);
    let out = run(common::device_clang("sm_80")
        .args(["-S", "-O3", "-Wall"])
        .arg(&input)
        .arg("-o")
        .arg(dir.path().join("clang.ptx")));
    let (_, clang) = text(&out);
    for w in [
        "unused variable 'never_read'",
        "unused function 'unused_helper'",
    ] {
        assert_eq!(count(&clang, w), 1, "clang's own:\n{clang}");
        assert_eq!(count(&stderr, w), 1, "{stderr}");
    }
    let loads = r["kernels"][0]["loads"].as_array().unwrap().len();
    assert_eq!(loads, 32);
    assert_eq!(count(&stderr, "remark: load is"), loads, "{stderr}");
    // The remarks are the final compile's: they say what the report says.
    let cached = (r["kernels"][0]["loads"].as_array().unwrap().iter())
        .filter(|l| l["decision"] == "cache")
        .count();
    assert_eq!(count(&stderr, "remark: load is cached"), cached, "{stderr}");
}

#[test]
fn a_count_that_leaves_the_occupancy_decides_once() {
    // sample.cu: 256 threads (__launch_bounds__) of 16 registers on sm_80
    // (ptxas 12.5): 512 per warp, 16,384 / 512 = 32 warps per
    // sub-partition, x 4 = 128 -> 16 blocks; the warp slots allow 8, as with
    // the estimate: the decisions cannot change, so clang runs once.
    let dir = tempfile::tempdir().unwrap();
    let (r, ptx, verbose) = report(&testdata("cu/sample.cu"), dir.path(), &["-v"]);
    let regs = ptxas_registers(&ptx);
    assert!(regs <= 32, "sample.cu now uses {regs} registers");
    assert_eq!(plugin_runs(&verbose).len(), 1, "{verbose}");
    assert!(verbose.contains(&format!(
        "ptxas: {}: {regs} registers/thread",
        r["kernels"][0]["symbol"].as_str().unwrap()
    )));
    // The report says what ptxas measured, with the estimate's occupancy.
    assert!(
        occupancy_text(&r).starts_with(&format!(
            "8 blocks/SM (warps-limited; {regs} registers/thread from ptxas, the estimate's occupancy)"
        )),
        "{}",
        occupancy_text(&r)
    );
}

#[test]
fn a_given_count_is_used_without_ptxas() {
    let dir = tempfile::tempdir().unwrap();
    let (r, _, verbose) = report(&heavy(), dir.path(), &["-v", "--registers=heavy=40"]);
    // 40 registers: 1,280 per warp (a multiple of 256); 16,384 / 1,280 =
    // 12.8 -> 12 warps per sub-partition, x 4 = 48 -> 48 / 8 = 6 blocks
    // (warp slots 8): register-bound. Shared 6 x 1 KB -> carveout 8 KB,
    // L1 184 KB = 188,416 B.
    assert_eq!(
        occupancy_text(&r),
        "6 blocks/SM (registers-limited; 40 registers/thread), shared carveout 8192 B, L1 188416 B per SM"
    );
    assert!(!verbose.contains("ptxas\" \"-v\""), "{verbose}");
    assert_eq!(plugin_runs(&verbose).len(), 1, "{verbose}");
}

#[test]
fn a_given_count_skips_ptxas() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, verbose) = report(&heavy(), dir.path(), &["-v", "--registers=heavy=40"]);
    let runs = plugin_runs(&verbose);
    assert_eq!(runs.len(), 1, "{verbose}");
    assert!(runs[0].contains("registers=heavy=40;"), "{}", runs[0]);
    assert!(!verbose.contains("\"-v\" \"-arch=sm_80\""), "{verbose}");
}

#[test]
fn a_count_for_no_kernel_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let (r, _, _) = report(&heavy(), dir.path(), &["--registers=haevy=40"]);
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains(
            "registers=haevy=40: no kernel named 'haevy'; ignored (did you mean 'heavy'?)"
        ),
        "{warnings}"
    );
    let e = gpucc(&[heavy().to_str().unwrap(), "-S", "--registers=heavy=256"]).2;
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(e.contains("0 to 255"), "{e}");
}

#[test]
fn without_ptxas_the_estimate_stands_and_is_said() {
    // A CUDA root with everything but bin/ptxas, and a PATH without one.
    let dir = tempfile::tempdir().unwrap();
    let cuda = dir.path().join("cuda");
    std::fs::create_dir_all(cuda.join("bin")).unwrap();
    let real = common::cuda_root();
    for e in std::fs::read_dir(&real).unwrap() {
        let e = e.unwrap();
        if e.file_name() != "bin" {
            std::os::unix::fs::symlink(e.path(), cuda.join(e.file_name())).unwrap();
        }
    }
    let out = run(Command::new(common::driver())
        .arg(heavy())
        .args([
            "--cuda-gpu-arch=sm_80",
            "-S",
            "--cache-report=json",
            "--clang=/usr/bin/clang++-19",
        ])
        .arg(format!("--cuda-path={}", cuda.display()))
        .arg("-o")
        .arg(dir.path().join("o.ptx"))
        .env("PATH", "/nonexistent"));
    let (_, err) = text(&out);
    assert!(out.status.success(), "{err}");
    let r: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert!(
        r["warnings"].to_string().contains(
            "no ptxas found (run scripts/setup, or give --cuda-path): occupancy estimates 32 registers per thread"
        ),
        "{}",
        r["warnings"]
    );
    // The estimate: 32 x 32 = 1,024 per warp; 16,384 / 1,024 = 16 warps per
    // sub-partition, x 4 = 64 -> 8 blocks, as the warp slots (64 / 8): a
    // tie, warps named. Shared 8 x 1 KB -> carveout 8 KB, L1 188,416 B.
    assert_eq!(
        occupancy_text(&r),
        "8 blocks/SM (warps-limited; 32 registers/thread estimated), shared carveout 8192 B, L1 188416 B per SM"
    );
}
