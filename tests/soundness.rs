//! Issue 6 §1 and §3: program meaning is never changed, and every global
//! load gets a decision that rests on evidence. One finding per test; each
//! input is in `testdata/soundness/` or the corpus.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::Value;

/// `opt-19` with the plugin and `pipeline` on `input`; returns the IR text.
fn opt(input: &Path, pipeline: &str, env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new("opt-19");
    cmd.arg(format!("-load-pass-plugin={}", plugin().display()))
        .arg(format!("-passes={pipeline}"))
        .arg(input)
        .args(["-S", "-o", "-"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run(&mut cmd);
    let (o, e) = text(&out);
    assert!(
        out.status.success(),
        "opt {pipeline} {}: {e}",
        input.display()
    );
    o
}

/// `llc-19` on IR text for `cpu`; returns the PTX.
fn llc(ir: &str, cpu: &str, dir: &Path) -> String {
    let ll = dir.join("in.ll");
    std::fs::write(&ll, ir).unwrap();
    let ptx = dir.join("out.ptx");
    let out = run(Command::new("llc-19")
        .arg(format!("-mcpu={cpu}"))
        .arg(&ll)
        .arg("-o")
        .arg(&ptx));
    assert!(out.status.success(), "llc: {}", text(&out).1);
    assert_ptxas_accepts(&ptx, cpu);
    std::fs::read_to_string(&ptx).unwrap()
}

fn driver_report(input: &Path, arch: &str, extra: &[&str]) -> (Value, String) {
    report_unassembled(input, arch, extra, |ptx| assert_ptxas_accepts(ptx, arch))
}

/// The report and PTX of `input`; `check` sees the PTX file first (ptxas
/// assembles relocatable PTX, with calls to other units, only with -c).
fn report_unassembled(
    input: &Path,
    arch: &str,
    extra: &[&str],
    check: impl FnOnce(&Path),
) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let (json, ptx) = (dir.path().join("r.json"), dir.path().join("k.ptx"));
    let report_file = format!("--cache-report-file={}", json.display());
    let mut flags = vec!["--cache-report=json", &report_file];
    flags.extend_from_slice(extra);
    let (ok, err) = gpucc_to(input, arch, &ptx, &flags);
    assert!(ok, "{}: {err}", input.display());
    check(&ptx);
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (report, std::fs::read_to_string(&ptx).unwrap())
}

fn unit<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().starts_with(name))
        .unwrap_or_else(|| panic!("no {name} in {report:#}"))
}

/// Under `clang -fpass-plugin` with no options the plugin cannot know that it
/// sees the whole program (clang writes the same device IR with and without
/// `-fgpu-rdc`), so an external device function's pointer parameter is not
/// assumed global: another translation unit may pass it a `__shared__` array.
#[test]
fn plugin_without_options_assumes_separate_compilation() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.ptx");
    for (options, global) in [
        ("policy=cache-none", false),
        ("policy=cache-none;whole-program=1", true),
    ] {
        let o = run(device_clang("sm_90")
            .args(["-O3", "-S", "-fgpu-rdc"])
            .arg(format!("-fpass-plugin={}", plugin().display()))
            .env("GPUCC_CACHE_OPTIONS", options)
            .arg("-o")
            .arg(&out)
            .arg(testdata("regress/callee.cu")));
        assert!(o.status.success(), "{}", text(&o).1);
        let ptx = std::fs::read_to_string(&out).unwrap();
        let get = ptx.split(".func").nth(1).unwrap_or("");
        let get = get.split(".entry").next().unwrap();
        assert_eq!(
            get.contains("cvta.to.global") || get.contains("ld.global"),
            global,
            "{options}: get()'s parameter read as global memory:\n{get}"
        );
    }
}

/// LLVM 19 reads the `"kernel"` annotation first: `"kernel", i32 0` on a
/// ptx_kernel function makes it a `.func`, whose pointer may be shared.
#[test]
fn kernel_detection_agrees_with_the_backend() {
    let input = testdata("soundness/not_a_kernel.ll");
    let ir = opt(&input, "gpucc-cache<policy=cache-none>", &[]);
    assert!(
        !ir.contains("asm"),
        "a .func's generic load was lowered:\n{ir}"
    );
    let dir = tempfile::tempdir().unwrap();
    let ptx = llc(&ir, "sm_90", dir.path());
    assert!(ptx.contains(".func f("), "{ptx}");
    assert!(!ptx.contains("ld.global"), "{ptx}");
}

/// Stale `!gpucc.cache` metadata never becomes PTX: not on a shared load
/// (llc crashed), not as an operator gpucc-cache does not write.
#[test]
fn lowering_trusts_no_metadata_from_the_input() {
    let input = testdata("soundness/stale_metadata.ll");
    let ir = opt(&input, "gpucc-cache-lower", &[]);
    assert!(!ir.contains("asm"), "stale metadata was lowered:\n{ir}");
    let dir = tempfile::tempdir().unwrap();
    let ptx = llc(&ir, "sm_90", dir.path());
    assert!(!ptx.contains("bogus") && !ptx.contains("trap"), "{ptx}");
    assert!(ptx.contains("ld.shared.f32"), "{ptx}");
}

/// An explicit pipeline's result is final: with the plugin loaded, the
/// optimizer-last hook inside `default<O3>` must not decide again.
#[test]
fn explicit_pipeline_is_not_redecided_by_the_extension_point() {
    let input = testdata("ll/arch_sm90.ll");
    let ir = opt(&input, "gpucc-cache<policy=off>,default<O3>", &[]);
    assert!(!ir.contains("asm"), "policy=off was overridden:\n{ir}");
    assert!(ir.contains("!gpucc.cache.processed"), "{ir}");
}

/// Without a +ptx feature llc writes the CPU's minimum PTX ISA (6.0 for
/// sm_70), which has no `.L1::no_allocate`: bypass is `.cg` and ptxas
/// accepts the result.
#[test]
fn operators_fit_the_ptx_version_llc_writes() {
    let input = testdata("soundness/no_ptx_feature.ll");
    let ir = opt(&input, "gpucc-cache<policy=cache-none>", &[]);
    assert!(ir.contains("ld.global.cg.f32"), "{ir}");
    let dir = tempfile::tempdir().unwrap();
    let ptx = llc(&ir, "sm_70", dir.path());
    assert!(ptx.contains(".version 6.0"), "{ptx}");
    assert!(!ptx.contains("no_allocate"), "{ptx}");
}

/// `arch=` that contradicts the module's target-cpu is an error.
#[test]
fn arch_option_must_match_the_module() {
    let out = run(Command::new("opt-19")
        .arg(format!("-load-pass-plugin={}", plugin().display()))
        .arg("-passes=gpucc-cache<arch=sm_52>")
        .arg(testdata("ll/arch_sm90.ll"))
        .args(["-disable-output"]));
    let (_, err) = text(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("contradicts the module's target-cpu sm_90"),
        "{err}"
    );
}

/// Struct copies are `llvm.memcpy` in the IR, expanded by the backend after
/// every IR pass: they get a decision, and the PTX loads they become carry it.
#[test]
fn aggregate_copies_are_decided() {
    let input = testdata("corpus/float4_copy.cu");
    let (report, ptx) = driver_report(&input, "sm_52", &["--cache-policy=cache-none"]);
    let copies: Vec<&Value> = report["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|k| k["loads"].as_array().unwrap())
        .filter(|l| l["type"].as_str().unwrap().starts_with("copy of 20 B"))
        .collect();
    assert!(!copies.is_empty(), "no decided copy:\n{report:#}");
    for c in &copies {
        assert_eq!(c["decision"], "bypass", "{c:#}");
        assert!(c["ptx_loads"].as_u64().unwrap() >= 1, "{c:#}");
    }
    assert_eq!(
        global_loads(&ptx)
            .iter()
            .filter(|l| !l.starts_with("ld.global.cg.") && !l.starts_with("ld.global.nc."))
            .count(),
        0,
        "{ptx}"
    );
}

/// libdevice's constant tables (`__cudart_i2opi_f`, read by sinf/cosf) are
/// read-only and shared by every thread: they keep `ld.global.nc`, under
/// every policy and on every generation.
#[test]
fn libdevice_tables_keep_the_read_only_path() {
    let input = testdata("corpus/particle_filter.cu");
    for arch in ["sm_52", "sm_90"] {
        let (report, ptx) = driver_report(&input, arch, &["--cache-policy=cache-none"]);
        let k = unit(&report, "propagate(");
        let table: Vec<&Value> = k["loads"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["pattern"].as_str().unwrap().contains("__cudart_"))
            .collect();
        assert!(!table.is_empty(), "{k:#}");
        for t in table {
            assert_eq!(t["decision"], "default", "{t:#}");
            assert_eq!(t["operator"], "ld.global.nc", "{t:#}");
        }
        assert!(ptx.contains("ld.global.nc.u32"), "{ptx}");
    }
}

/// A load no evaluated thread executes (`if (blockIdx.x == 1)` with block 0
/// sampled) has no verdict: it stays at the target's default.
#[test]
fn no_verdict_without_evidence() {
    let input = testdata("corpus/guarded_blocks.cu");
    let (report, _) = driver_report(&input, "sm_90", &["--cache-policy=cache-none"]);
    let k = unit(&report, "second_block_only(");
    let loads = k["loads"].as_array().unwrap();
    assert!(!loads.is_empty(), "{k:#}");
    for l in loads {
        assert_eq!(l["active_threads"], 0, "{l:#}");
        assert_eq!(l["decision"], "default", "{l:#}");
        assert!(
            l["reason"]
                .as_str()
                .unwrap()
                .contains("no evaluated thread"),
            "{l:#}"
        );
    }
}

/// The functions a fencing kernel calls run after its fence as much as its
/// own code does: `sum_partials`, the `__noinline__` final sum of a
/// last-block reduction, reads the partial sums other blocks wrote. An
/// adversarial review found its loads `.ca` on sm_52 and sm_61 under every
/// policy but `off`. Under separate compilation (`-fgpu-rdc`) a function
/// another translation unit can call (`lookup`, reading a `__device__`
/// table) may run after a fence there, so it stays plain too; in a
/// whole-program build, called only by a kernel that does not fence, it is
/// cached. sm_70 (a plain load allocates in L1 anyway) keeps the policy's.
#[test]
fn functions_a_fencing_kernel_calls_stay_plain_where_l1_is_opt_in() {
    let input = testdata("regress/fence_callee.cu");
    for arch in ["sm_52", "sm_61"] {
        for policy in ["cache-all", "auto", "aggressive", "conservative"] {
            let flag = format!("--cache-policy={policy}");
            let (report, ptx) = driver_report(&input, arch, &[&flag, "-O3"]);
            let callee = unit(&report, "sum_partials");
            let loads = callee["loads"].as_array().unwrap();
            assert!(loads.len() >= 2, "{arch} {policy}: {callee}");
            for l in loads {
                // Plain (the default: L2 only) or bypassed; never cached.
                let op = l["operator"].as_str().unwrap();
                assert!(
                    l["decision"] != "cache" && !op.contains(".ca"),
                    "{arch} {policy}: {l}"
                );
            }
            if policy == "cache-all" {
                assert!(
                    (loads.iter())
                        .all(|l| l["reason"].as_str().unwrap().starts_with(
                            "a kernel that calls this function fences beyond its block"
                        )),
                    "{arch}: {callee}"
                );
                // `key[i]` and `lookup`'s table: the only .ca of the file.
                assert_eq!(ptx.matches("ld.global.ca").count(), 2, "{arch}:\n{ptx}");
            }
        }
        let rdc = driver_report(&input, arch, &["--cache-policy=cache-all", "-fgpu-rdc"]).0;
        let lookup = &unit(&rdc, "lookup")["loads"][0];
        assert_eq!(lookup["decision"], "default", "{arch}: {lookup}");
        assert!(
            (lookup["reason"].as_str().unwrap()).contains("another translation unit"),
            "{arch}: {lookup}"
        );
    }
    let (report, _) = driver_report(&input, "sm_70", &["--cache-policy=cache-all"]);
    let callee = unit(&report, "sum_partials")["loads"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        callee.iter().all(|l| l["decision"] == "cache"),
        "{callee:?}"
    );
}

/// The fence rule reaches what a fencing kernel calls through a pointer
/// (`sum_a`, `sum_b` from a table of function pointers), and, under
/// separate compilation, what another unit may do: `finish` calls
/// `signal_done`, defined elsewhere, and then reads partial sums; `api`'s
/// `static` and anonymous-namespace helpers may run after another unit's
/// fence. An adversarial review found all of them `.ca` on sm_52/sm_61.
#[test]
fn pointers_and_other_units_are_followed_by_the_fence_rule() {
    for arch in ["sm_52", "sm_61"] {
        let input = testdata("regress/fence_indirect.cu");
        let (report, ptx) = driver_report(&input, arch, &["--cache-policy=cache-all"]);
        assert!(!ptx.contains(".ca."), "{arch}:\n{ptx}");
        for name in ["sum_a", "sum_b"] {
            for l in unit(&report, name)["loads"].as_array().unwrap() {
                assert_eq!(l["decision"], "default", "{arch}: {l}");
            }
        }
        // Relocatable PTX (an extern call): not assembled.
        let input = testdata("rdc/fence_rdc.cu");
        let flags = ["--cache-policy=cache-all", "-fgpu-rdc"];
        let (report, ptx) = report_unassembled(&input, arch, &flags, |_| {});
        // Only `user`'s table read is cached.
        assert_eq!(ptx.matches("ld.global.ca").count(), 1, "{arch}:\n{ptx}");
        for name in ["finish", "helper(", "(anonymous namespace)::helper2"] {
            let loads = unit(&report, name)["loads"].as_array().unwrap().clone();
            assert!(!loads.is_empty(), "{arch}: {name}");
            assert!(
                loads.iter().all(|l| l["decision"] == "default"),
                "{arch}: {loads:?}"
            );
        }
    }
}

/// A function that fences at device scope (`__threadfence()`, the
/// last-block reduction of CUDA's samples) reads what other blocks wrote
/// during the kernel. On sm_52 and sm_61 a plain `ld.global` is served
/// from L2 only by default, which such code relies on; a `.ca` written for
/// a "cache" decision could serve a stale line from the SM's L1 (not
/// coherent for global data, PTX ISA). So its loads stay plain there,
/// with the reason, while `smooth` (no fence) in the same file is cached
/// as before; on sm_70, where a plain load allocates in L1 anyway, the
/// decisions are the model's.
#[test]
fn loads_of_a_fencing_function_stay_plain_where_l1_is_opt_in() {
    let input = testdata("cu/last_block_reduction.cu");
    for arch in ["sm_52", "sm_61"] {
        let (report, ptx) = driver_report(&input, arch, &[]);
        for name in ["sum_last_block", "sum_asm_fence"] {
            let fenced = unit(&report, name);
            let loads = fenced["loads"].as_array().unwrap();
            assert!(loads.len() >= 2, "{fenced}");
            for l in loads {
                assert_eq!(l["decision"], "default", "{arch}: {l}");
            }
            assert!(
                (loads.iter()).any(|l| l["reason"]
                    .as_str()
                    .unwrap()
                    .contains("fences beyond its block")),
                "{arch}: {fenced}"
            );
        }
        let smooth = unit(&report, "smooth");
        assert!(
            (smooth["loads"].as_array().unwrap().iter()).all(|l| l["decision"] == "cache"),
            "{arch}: {smooth}"
        );
        // Only `smooth`'s three loads name .ca.
        assert_eq!(ptx.matches("ld.global.ca").count(), 3, "{arch}:\n{ptx}");
    }
    let (report, _) = driver_report(&input, "sm_70", &[]);
    let fenced = unit(&report, "sum_last_block")["loads"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        fenced.iter().any(|l| l["decision"] == "cache"),
        "{fenced:?}"
    );
}
