//! Issue 16 (robustness): the kernel-level model's budgets and their
//! reported fallback, many kernels in one file, `locality` tracing only the
//! kernel asked for, and kernel names that match no kernel. Inputs are the
//! stress files in `testdata/stress/`. Speed is the benchmark's
//! (`scripts/bench-driver`), never a test's: these check what is reported
//! and decided.

mod common;

use std::collections::HashMap;
use std::process::Command;

use common::*;
use serde_json::Value;

/// The driver's JSON report of `file` for `arch` with `extra` flags.
fn json_report(file: &str, arch: &str, extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let mut flags = vec![
        "--cache-report=json".to_string(),
        format!("--cache-report-file={}", report.display()),
    ];
    flags.extend(extra.iter().map(|s| s.to_string()));
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (ok, err) = gpucc_to(&testdata(file), arch, &dir.path().join("out.ptx"), &flags);
    assert!(ok, "{err}");
    serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap()
}

fn kernel<'a>(report: &'a Value, prefix: &str) -> &'a Value {
    (report["kernels"].as_array().unwrap().iter())
        .find(|k| k["name"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no kernel {prefix} in {report}"))
}

/// Decision per load key.
fn decisions(k: &Value) -> HashMap<u64, String> {
    (k["loads"].as_array().unwrap().iter())
        .map(|l| {
            (
                l["key"].as_u64().unwrap(),
                l["decision"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Five kernels of hash and PRNG chains in 1,000-trip loops, each walking
/// the kernel's 2^19 thread-accesses: the first four spend the module's
/// 2^21, so the fifth is decided by the paper's rules, and says so in the
/// JSON and the text. Its loads' addresses hash the thread index (rule 4:
/// not analyzable), so `conservative` bypasses each. On sm_90 (sector
/// fills, plain loads cached by default) that bypass rests on no evidence,
/// and `auto`'s fallback leaves every one at the default; with line fills
/// (`--cache-model=fermi`), where caching can fetch more, it is exactly
/// `conservative`.
#[test]
fn module_budget_falls_back_to_the_papers_rules_and_says_so() {
    let file = "stress/hash_loops.cu";
    let auto = json_report(file, "sm_90", &[]);
    for name in ["xorshift_probe", "lcg_walk", "murmur_chain", "double_hash"] {
        let k = kernel(&auto, name);
        assert_eq!(k["simulated"]["thread_accesses"], 1 << 19, "{name}");
        assert!(k.get("budget").is_none(), "{name}: {k}");
    }
    let last = kernel(&auto, "xorshift64_rows");
    assert!(last.get("simulated").is_none(), "{last}");
    let hits = last["budget"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{last}");
    assert_eq!(hits[0]["budget"], "module thread-accesses");
    assert_eq!(hits[0]["limit"], 1 << 21);
    assert_eq!(hits[0]["decided_by"], "paper");
    assert_eq!(hits[0]["deterministic"], true);

    let conservative = json_report(file, "sm_90", &["--cache-policy=conservative"]);
    let paper = decisions(kernel(&conservative, "xorshift64_rows"));
    assert!(!paper.is_empty());
    assert!(paper.values().all(|d| d == "bypass"), "{paper:?}");
    let fallback = decisions(last);
    assert_eq!(fallback.len(), paper.len());
    assert!(fallback.values().all(|d| d == "default"), "{fallback:?}");
    for l in last["loads"].as_array().unwrap() {
        let reason = l["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("auto without a kernel-level model")
                && reason.contains("rule 4: address not analyzable"),
            "{reason}"
        );
    }
    let fermi = |policy: &str| {
        let r = json_report(file, "sm_90", &["--cache-model=fermi", policy]);
        decisions(kernel(&r, "xorshift64_rows"))
    };
    assert_eq!(
        fermi("--cache-policy=auto"),
        fermi("--cache-policy=conservative")
    );

    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = gpucc_to(&testdata(file), "sm_90", &dir.path().join("o.ptx"), &[]);
    assert!(ok, "{text}");
    let section = text.split("\nkernel xorshift64_rows").nth(1).unwrap();
    assert!(
        section.contains(
            "budget: module thread-accesses (2097152) reached; decided by the paper's per-load rules (conservative; a tie or an unknown address on an L1-by-default sector-fill part is left at the default)"
        ),
        "{section}"
    );
}

/// 300 template instantiations, 280 of which only write: every kernel is
/// in the report, those without a global load get no model (nothing to
/// decide), and the 18 that read one have it decided by the model (of the
/// 20 `scale_in`, `in[i] * 0` on `int` and `unsigned` folds to 0 and reads
/// nothing; on `float` and `double` it must still read, for NaN).
#[test]
fn three_hundred_instantiations_are_all_decided() {
    let r = json_report("stress/templates300.cu", "sm_90", &[]);
    // The driver's host-launch shapes (`fill_const@LINE=...`) warn of nothing.
    let warnings = r["warnings"].to_string();
    assert!(!warnings.contains("no kernel named"), "{warnings}");
    let kernels = r["kernels"].as_array().unwrap();
    assert_eq!(kernels.len(), 300);
    let mut read = 0;
    for k in kernels {
        let loads = k["loads"].as_array().unwrap();
        assert!(k.get("budget").is_none(), "{k}");
        if loads.is_empty() {
            assert!(k.get("simulated").is_none(), "{k}");
            continue;
        }
        read += 1;
        assert!(k["simulated"].is_object(), "{k}");
        for l in loads {
            let d = l["decision"].as_str().unwrap();
            assert!(d == "cache" || d == "bypass", "{l}");
            assert!(l["reason"].as_str().unwrap().starts_with("auto:"), "{l}");
        }
    }
    assert_eq!(read, 18);
}

/// `locality --kernel=NAME` on a 300-kernel file analyses and traces that
/// kernel alone.
#[test]
fn locality_traces_only_the_kernel_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("c.csv");
    let out = run(Command::new(driver()).args([
        "locality",
        testdata("stress/templates300.cu").to_str().unwrap(),
        "--kernel=void scale_in<3, int>",
        "--cuda-gpu-arch=sm_90",
        &format!("--csv={}", csv.display()),
    ]));
    let (_, err) = text(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("traced 1 of the module's 300 kernels"),
        "{err}"
    );
    assert!(std::fs::read_to_string(&csv)
        .unwrap()
        .starts_with("level,N,K,LS"));
}

/// A per-kernel shape for a kernel the module does not have is a warning
/// naming the nearest kernel; the driver's own host-launch shapes (every
/// kernel of `kmeans_assign.cu` is launched in its host code) are not.
#[test]
fn unknown_kernel_names_warn_with_the_nearest_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = testdata("corpus/kmeans_assign.cu");
    let (ok, err) = gpucc_to(&file, "sm_90", &dir.path().join("o.ptx"), &[]);
    assert!(ok, "{err}");
    assert!(!err.contains("no kernel named"), "{err}");
    let (ok, err) = gpucc_to(
        &file,
        "sm_90",
        &dir.path().join("o.ptx"),
        &["--block-dim=kmeans_pont=128", "--grid-dim=invert_maping=64"],
    );
    assert!(ok, "{err}");
    assert!(
        err.contains(
            "--block-dim=kmeans_pont=128x1x1: no kernel named 'kmeans_pont'; ignored (did you mean 'kmeans_point'?)"
        ),
        "{err}"
    );
    assert!(
        err.contains("--grid-dim=invert_maping=64x1x1: no kernel named 'invert_maping'; ignored (did you mean 'invert_mapping'?)"),
        "{err}"
    );
    let (ok, err) = gpucc_to(
        &file,
        "sm_90",
        &dir.path().join("o.ptx"),
        &["--kernel-arg=npoint=1000"],
    );
    assert!(ok, "{err}");
    assert!(err.contains("did you mean 'npoints'?"), "{err}");
}
