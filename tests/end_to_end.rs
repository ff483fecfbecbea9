//! End to end: the testdata kernels through the three entry points — the
//! driver, `clang++-19 -fpass-plugin`, and `opt-19 -load-pass-plugin` +
//! `llc-19` — for sm_52, sm_70, sm_80 and sm_90. Every PTX is assembled by
//! ptxas; the operators of its global loads are checked per policy.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

const ARCHS: &[&str] = &["sm_52", "sm_70", "sm_80", "sm_90"];
const KERNELS: &[&str] = &[
    "cu/sample.cu",
    "cu/shapes.cu",
    "cu/with_headers.cu",
    "cu/restrict.cu",
];

fn sm(arch: &str) -> u32 {
    arch.trim_start_matches("sm_").parse().unwrap()
}

/// What every global load in the PTX must look like under a global policy.
fn assert_policy(ptx: &str, arch: &str, policy: &str, what: &str) {
    let loads = global_loads(ptx);
    assert!(!loads.is_empty(), "{what}: no global loads in the PTX");
    let volta = sm(arch) >= 70;
    for l in &loads {
        let ok = match (policy, volta) {
            // Read-only (`const __restrict__`) data keeps the non-coherent path.
            ("cache-none", true) => {
                l.starts_with("ld.global.L1::no_allocate.")
                    || l.starts_with("ld.global.nc.L1::no_allocate.")
            }
            // Before sm_70 `.nc` is the only way into the read-only cache: kept.
            ("cache-none", false) => {
                l.starts_with("ld.global.cg.") || l.starts_with("ld.global.nc.")
            }
            ("cache-all", true) => {
                !l.contains("no_allocate") && !l.contains(".cg.") && !l.contains(".ca.")
            }
            ("cache-all", false) => {
                l.starts_with("ld.global.ca.") || l.starts_with("ld.global.nc.")
            }
            _ => unreachable!(),
        };
        assert!(ok, "{what}: {l} under {policy} on {arch}\n{loads:?}");
    }
}

fn driver_ptx(kernel: &str, arch: &str, extra: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.ptx");
    let (ok, err) = gpucc_to(&testdata(kernel), arch, &out, extra);
    assert!(ok, "gpucc-cache {kernel} {arch} {extra:?} failed:\n{err}");
    assert_ptxas_accepts(&out, arch);
    (std::fs::read_to_string(&out).unwrap(), err)
}

#[test]
fn driver_global_policies_every_arch() {
    for kernel in KERNELS {
        for arch in ARCHS {
            for policy in ["cache-none", "cache-all"] {
                let (ptx, _) = driver_ptx(
                    kernel,
                    arch,
                    &[&format!("--cache-policy={policy}"), "--cache-report=none"],
                );
                assert_policy(&ptx, arch, policy, &format!("driver {kernel}"));
            }
        }
    }
}

/// Under the per-load policies, the PTX carries exactly the report's decisions.
#[test]
fn driver_per_load_policies_match_the_report() {
    for arch in ARCHS {
        for policy in ["conservative", "aggressive"] {
            let dir = tempfile::tempdir().unwrap();
            let json = dir.path().join("r.json");
            let (ptx, _) = driver_ptx(
                "cu/sample.cu",
                arch,
                &[
                    &format!("--cache-policy={policy}"),
                    "--cache-report=json",
                    &format!("--cache-report-file={}", json.display()),
                    "--kernel-arg=n=1048576",
                ],
            );
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            let loads = report["kernels"][0]["loads"].as_array().unwrap();
            let bypass = loads.iter().filter(|l| l["decision"] == "bypass").count();
            let cache = loads.iter().filter(|l| l["decision"] == "cache").count();
            assert_eq!(
                bypass + cache,
                5,
                "{arch} {policy}: five global loads in sample.cu"
            );
            let ops = global_loads(&ptx);
            let bypass_op = if sm(arch) >= 70 {
                "ld.global.L1::no_allocate."
            } else {
                "ld.global.cg."
            };
            assert_eq!(
                ops.iter().filter(|o| o.starts_with(bypass_op)).count(),
                bypass,
                "{arch} {policy}: {ops:?}"
            );
            if sm(arch) < 70 {
                assert_eq!(
                    ops.iter()
                        .filter(|o| o.starts_with("ld.global.ca."))
                        .count(),
                    cache,
                    "{arch}: {ops:?}"
                );
            }
            // The table load (tid % 16) has within-block reuse and fits: cached by both policies.
            assert!(
                cache >= 1,
                "{arch} {policy}: the tid%16 table load is cached"
            );
            assert!(
                loads.iter().all(|l| l["line"].as_u64().unwrap() > 0),
                "line tables give every load a line"
            );
        }
    }
}

/// With the pass off, the driver's PTX is byte for byte clang's.
#[test]
fn policy_off_is_exactly_clang() {
    for arch in ["sm_52", "sm_90"] {
        for opt in ["-O0", "-O3"] {
            let dir = tempfile::tempdir().unwrap();
            let clang_ptx = dir.path().join("clang.ptx");
            let out = run(device_clang(arch)
                .args(["-S", opt])
                .arg(testdata("cu/sample.cu"))
                .arg("-o")
                .arg(&clang_ptx));
            assert!(out.status.success(), "{}", text(&out).1);
            // With the report on (line tables added, then stripped) and off.
            for report in ["--cache-report=text", "--cache-report=none"] {
                let (ptx, _) =
                    driver_ptx("cu/sample.cu", arch, &["--cache-policy=off", opt, report]);
                assert_eq!(
                    ptx,
                    std::fs::read_to_string(&clang_ptx).unwrap(),
                    "{arch} {opt} {report}"
                );
            }
        }
    }
}

fn plugin_env_clang(
    kernel: &Path,
    arch: &str,
    options: &str,
    extra: &[&str],
    out: &Path,
) -> (bool, String) {
    let o = run(device_clang(arch)
        .args(["-S", "-O3"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .args(extra)
        .env("GPUCC_CACHE_OPTIONS", options)
        .arg(kernel)
        .arg("-o")
        .arg(out));
    (o.status.success(), text(&o).1)
}

#[test]
fn clang_fpass_plugin_every_arch() {
    let dir = tempfile::tempdir().unwrap();
    for kernel in KERNELS {
        for arch in ARCHS {
            for policy in ["cache-none", "cache-all"] {
                let out = dir.path().join("k.ptx");
                let (ok, err) = plugin_env_clang(
                    &testdata(kernel),
                    arch,
                    &format!("policy={policy}"),
                    &[],
                    &out,
                );
                assert!(ok, "clang -fpass-plugin {kernel} {arch}: {err}");
                assert_ptxas_accepts(&out, arch);
                assert_policy(
                    &std::fs::read_to_string(&out).unwrap(),
                    arch,
                    policy,
                    &format!("clang plugin {kernel}"),
                );
            }
        }
    }
}

/// Under clang the plugin sees the host module too and must leave it alone:
/// host IR with and without the plugin is identical.
#[test]
fn clang_plugin_leaves_host_side_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let compile = |plugin_flag: Option<String>, out: &PathBuf| {
        let mut cmd = Command::new("clang++-19");
        cmd.args([
            "-x",
            "cuda",
            "--cuda-host-only",
            "-S",
            "-emit-llvm",
            "-O2",
            "-Wno-unknown-cuda-version",
        ])
        .arg(format!("--cuda-path={}", cuda_root().display()))
        .env("GPUCC_CACHE_OPTIONS", "policy=cache-none");
        if let Some(p) = plugin_flag {
            cmd.arg(p);
        }
        let o = run(cmd.arg(testdata("cu/sample.cu")).arg("-o").arg(out));
        assert!(o.status.success(), "{}", text(&o).1);
        stable_ir(&std::fs::read_to_string(out).unwrap())
    };
    let (a, b) = (dir.path().join("a.ll"), dir.path().join("b.ll"));
    let with = compile(Some(format!("-fpass-plugin={}", plugin().display())), &a);
    let without = compile(None, &b);
    assert!(
        !with.contains("gpucc"),
        "host module carries gpucc metadata"
    );
    assert_eq!(with, without);
}

#[test]
fn clang_remarks_show_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.ptx");
    let (ok, err) = plugin_env_clang(
        &testdata("cu/sample.cu"),
        "sm_90",
        "policy=conservative",
        &["-Rpass=gpucc-cache", "-g"],
        &out,
    );
    assert!(ok, "{err}");
    let remarks: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("remark:") && l.contains("[-Rpass=gpucc-cache]"))
        .collect();
    assert_eq!(remarks.len(), 5, "one remark per global load:\n{err}");
    assert!(
        remarks.iter().any(|r| r.contains("is cached in L1")),
        "{err}"
    );
    assert!(
        remarks.iter().all(|r| r.contains("sample.cu:")),
        "remarks carry source locations:\n{err}"
    );
    // The driver passes remark flags to clang.
    let (ok, _, err) = gpucc(&[
        testdata("cu/sample.cu").to_str().unwrap(),
        "--cuda-gpu-arch=sm_90",
        "-Rpass=gpucc-cache",
        "--cache-report=none",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        ok && err.matches("[-Rpass=gpucc-cache]").count() == 5,
        "{err}"
    );
    // And -fsave-optimization-record writes them to YAML.
    let yaml = dir.path().join("k.opt.yaml");
    let (ok, _, err) = gpucc(&[
        testdata("cu/sample.cu").to_str().unwrap(),
        "--cuda-gpu-arch=sm_90",
        &format!("-foptimization-record-file={}", yaml.display()),
        "-fsave-optimization-record",
        "--cache-report=none",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let y = std::fs::read_to_string(&yaml).unwrap();
    assert_eq!(y.matches("Pass:            gpucc-cache").count(), 5, "{y}");
}

fn opt_then_llc(input: &Path, pipeline: &str, arch: &str, dir: &Path) -> String {
    let ll = dir.join("out.ll");
    let o = run(Command::new("opt-19")
        .arg(format!("-load-pass-plugin={}", plugin().display()))
        .arg(format!("-passes={pipeline}"))
        .arg(input)
        .arg("-S")
        .arg("-o")
        .arg(&ll));
    assert!(o.status.success(), "opt {pipeline}: {}", text(&o).1);
    let ptx = dir.join("out.ptx");
    // The PTX ISA clang 19 picks with CUDA 12.5, as the module's functions say.
    let o = run(Command::new("llc-19")
        .arg(format!("-mcpu={arch}"))
        .arg("-mattr=+ptx85")
        .arg(&ll)
        .arg("-o")
        .arg(&ptx));
    assert!(o.status.success(), "llc: {}", text(&o).1);
    assert_ptxas_accepts(&ptx, arch);
    std::fs::read_to_string(ptx).unwrap()
}

#[test]
fn opt_load_pass_plugin_then_llc_every_arch() {
    let dir = tempfile::tempdir().unwrap();
    for kernel in KERNELS {
        for arch in ARCHS {
            // Optimized device bitcode from clang, without the plugin.
            let bc = dir.path().join("k.bc");
            let o = run(device_clang(arch)
                .args(["-emit-llvm", "-c", "-O3"])
                .arg(testdata(kernel))
                .arg("-o")
                .arg(&bc));
            assert!(o.status.success(), "{}", text(&o).1);
            for policy in ["cache-none", "cache-all"] {
                let ptx = opt_then_llc(
                    &bc,
                    &format!("gpucc-cache<policy={policy}>"),
                    arch,
                    dir.path(),
                );
                assert_policy(&ptx, arch, policy, &format!("opt {kernel}"));
                // Annotate and lower as separate pipeline elements give the same code.
                let split = opt_then_llc(
                    &bc,
                    &format!("function(load-store-vectorizer),gpucc-cache-annotate<policy={policy}>,gpucc-cache-lower"),
                    arch,
                    dir.path(),
                );
                assert_eq!(
                    global_loads(&ptx),
                    global_loads(&split),
                    "{kernel} {arch} {policy}"
                );
            }
        }
    }
}

/// Loads the backend reads through the non-coherent path keep it when they bypass.
#[test]
fn read_only_loads_keep_nc() {
    let (off, _) = driver_ptx(
        "cu/restrict.cu",
        "sm_90",
        &["--cache-policy=off", "--cache-report=none"],
    );
    let (none, _) = driver_ptx(
        "cu/restrict.cu",
        "sm_90",
        &["--cache-policy=cache-none", "--cache-report=none"],
    );
    let nc = global_loads(&off)
        .iter()
        .filter(|l| l.starts_with("ld.global.nc."))
        .count();
    assert!(
        nc >= 2,
        "clang reads __restrict__ data with ld.global.nc:\n{off}"
    );
    let kept = global_loads(&none)
        .iter()
        .filter(|l| l.starts_with("ld.global.nc.L1::no_allocate."))
        .count();
    assert_eq!(kept, nc, "{none}");
}

#[test]
fn opt_print_pass_reports_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("k.bc");
    let o = run(device_clang("sm_90")
        .args(["-emit-llvm", "-c", "-O3", "-gline-tables-only"])
        .arg(testdata("cu/sample.cu"))
        .arg("-o")
        .arg(&bc));
    assert!(o.status.success());
    let before = run(Command::new("llvm-dis-19").arg(&bc).arg("-o").arg("-"));
    let o = run(Command::new("opt-19")
        .arg(format!("-load-pass-plugin={}", plugin().display()))
        .arg("-passes=print<gpucc-cache<block=256>>")
        .arg(&bc)
        .arg("-S")
        .arg("-o")
        .arg("-"));
    let (ir, report) = text(&o);
    assert!(o.status.success(), "{report}");
    assert!(
        report.contains("kernel sample(") && report.contains("arg1 + 4*(tid.x & 15)"),
        "{report}"
    );
    assert_eq!(
        stable_ir(&ir),
        stable_ir(&text(&before).0),
        "print<gpucc-cache> changed the module"
    );
    let o = run(Command::new("opt-19")
        .arg(format!("-load-pass-plugin={}", plugin().display()))
        .arg("-passes=print<gpucc-cache<report=json>>")
        .arg(&bc)
        .arg("-disable-output"));
    let json: serde_json::Value = serde_json::from_str(&text(&o).1).expect("JSON report on stderr");
    assert_eq!(json["kernels"][0]["loads"].as_array().unwrap().len(), 5);
}

#[test]
fn driver_emits_annotated_llvm_ir() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.ll");
    let (ok, _, err) = gpucc(&[
        testdata("cu/sample.cu").to_str().unwrap(),
        "--cuda-gpu-arch=sm_90",
        "-S",
        "-emit-llvm",
        "--cache-report=none",
        // Every load bypasses, so every one is lowered (under auto, ties
        // go to cache on sm_90 and sample.cu's loads are all cached).
        "--cache-policy=cache-none",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let ir = std::fs::read_to_string(&out).unwrap();
    assert!(ir.contains("target triple = \"nvptx64-nvidia-cuda\""));
    assert!(ir.contains("!gpucc.cache.module"), "module record");
    assert!(
        ir.contains("asm sideeffect \"ld.global.L1::no_allocate.f32"),
        "lowered loads"
    );
    // The .ll written by the driver goes back through it (no front end).
    let ptx = dir.path().join("again.ptx");
    let (ok, _, err) = gpucc(&[
        out.to_str().unwrap(),
        "--cuda-gpu-arch=sm_90",
        "--verify-ptx",
        "-o",
        ptx.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
}

#[test]
fn driver_default_output_sits_next_to_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let cu = dir.path().join("kernel.cu");
    std::fs::copy(testdata("cu/sample.cu"), &cu).unwrap();
    let (ok, _, err) = gpucc(&[cu.to_str().unwrap(), "-arch=sm_80"]);
    assert!(ok, "{err}");
    assert!(dir.path().join("kernel.ptx").is_file());
    assert!(
        err.contains("gpucc-cache: arch sm_80, model sectored, policy auto"),
        "{err}"
    );
}

#[test]
fn driver_verbose_says_which_toolchain() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.ptx");
    let (ok, _, err) = gpucc(&[
        testdata("cu/sample.cu").to_str().unwrap(),
        "-v",
        "--cache-report=none",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("gpucc-cache: clang: ") && err.contains("gpucc-cache: CUDA: "),
        "{err}"
    );
}

/// Block size and its source for each kernel of a driver run's JSON report.
fn block_shapes(input: &str, extra: &[&str]) -> Vec<(String, Vec<u64>, String)> {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut flags = vec![
        "--cache-report=json".to_string(),
        format!("--cache-report-file={}", json.display()),
    ];
    flags.extend(extra.iter().map(|s| s.to_string()));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (ok, err) = gpucc_to(&testdata(input), "sm_80", &dir.path().join("o.ptx"), &flags);
    assert!(ok, "{input} {extra:?}:\n{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    report["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["kind"] == "kernel")
        .map(|k| {
            let name = k["name"].as_str().unwrap();
            let dims = k["block_dim"].as_array().unwrap();
            (
                name[..name.find('(').unwrap()].to_string(),
                dims.iter().map(|d| d.as_u64().unwrap()).collect(),
                k["block_dim_source"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn block_shape_comes_from_the_host_launch() {
    let row = |name: &str, dims: [u64; 3], source: &str| {
        (name.to_string(), dims.to_vec(), source.to_string())
    };
    // backprop_layer.cu: `dim3 threads(BLOCK_SIZE, BLOCK_SIZE)` with
    // `#define BLOCK_SIZE 16`, launched at lines 69 and 70.
    assert_eq!(
        block_shapes("corpus/backprop_layer.cu", &[]),
        [
            row("layerforward", [16, 16, 1], "host launch at line 69"),
            row("adjust_weights", [16, 16, 1], "host launch at line 70"),
        ]
    );
    // The user's shape wins over the host code's, for all kernels or one.
    assert_eq!(
        block_shapes("corpus/backprop_layer.cu", &["--block-dim=8x8"]),
        [
            row("layerforward", [8, 8, 1], "user"),
            row("adjust_weights", [8, 8, 1], "user"),
        ]
    );
    assert_eq!(
        block_shapes(
            "corpus/backprop_layer.cu",
            &["--block-dim=adjust_weights=32x4"]
        ),
        [
            row("layerforward", [16, 16, 1], "host launch at line 69"),
            row("adjust_weights", [32, 4, 1], "user"),
        ]
    );
    // nbody.cu launches with `int block_size = 256;`, a variable: not a
    // compile-time constant, so the shape stays unknown (the default, warned).
    assert_eq!(
        block_shapes("corpus/nbody.cu", &[]),
        [
            row("nbody_forces", [256, 1, 1], "default"),
            row("integrate", [256, 1, 1], "default"),
        ]
    );
    // stencil3d.cu: a 3-D block `dim3(8, 8, 4)` for the naive kernel.
    assert_eq!(
        block_shapes("corpus/stencil3d.cu", &[])[1],
        row("stencil7_naive", [8, 8, 4], "host launch at line 85")
    );
}

#[test]
fn unoptimized_input_is_warned_about() {
    // At -O0 clang keeps every value in local memory (allocas), so the
    // addresses of global loads come from memory and are unknown.
    let warning = "compiled without optimization (-O0)";
    let (_, err) = driver_ptx("cu/analysis/coalesced.cu", "sm_90", &["-O0"]);
    assert!(err.contains(warning), "{err}");
    let (_, err) = driver_ptx("cu/analysis/coalesced.cu", "sm_90", &[]);
    assert!(!err.contains(warning), "{err}");
}
