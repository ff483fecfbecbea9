//! Issue 7 (in progress): the kernel-level model under `--cache-policy=auto`
//! on testdata kernels whose loads share lines (struct fields read one by
//! one, a radius-3 stencil). Figures are the simulated L2→L1 bytes of one
//! SM over the simulated part of the kernel, from the driver's JSON report.

mod common;

use std::process::Command;

use common::*;
use serde_json::Value;

fn simulated(file: &str, arch: &str) -> Vec<(String, Value)> {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    let out = run(Command::new(driver())
        .arg(testdata("corpus").join(file))
        .arg(format!("--cuda-gpu-arch={arch}"))
        .arg("--cache-policy=auto")
        .arg("--cache-report=json")
        .arg(format!("--cache-report-file={}", report.display()))
        .arg("-o")
        .arg(dir.path().join("k.ptx")));
    assert!(out.status.success(), "{}", text(&out).1);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    r["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap().to_string(),
                k["simulated"].clone(),
            )
        })
        .collect()
}

fn bytes(s: &Value, policy: &str) -> u64 {
    s["traffic_bytes"][policy].as_u64().unwrap()
}

#[test]
fn auto_is_never_above_cache_all_or_cache_none_on_shared_lines() {
    for file in ["struct_fields.cu", "stencil1d_radius.cu", "mixed_gather.cu"] {
        for arch in ["sm_52", "sm_90"] {
            for (name, s) in simulated(file, arch) {
                assert_eq!(s["scope"], "sm", "{file} {arch} {name}");
                assert!(s["blocks"].as_u64().unwrap() >= 1);
                let best = bytes(&s, "cache_all").min(bytes(&s, "cache_none"));
                let auto = bytes(&s, "auto");
                assert!(auto <= best, "{file} {arch} {name}: auto {auto} > {best}");
                assert!(auto <= bytes(&s, "conservative"), "{file} {arch} {name}");
            }
        }
    }
}

#[test]
fn struct_fields_are_cached_together_where_the_paper_bypasses_them() {
    // sum_fields reads b[i].x, b[i].y, b[i].z of a 12-byte struct: each
    // field alone is "within-warp only", so the paper's conservative rule
    // bypasses all three and the block fetches the same sectors three
    // times. The model sees the second and third reuse the first's lines.
    for arch in ["sm_52", "sm_90"] {
        let k = simulated("struct_fields.cu", arch);
        let (_, s) = k.iter().find(|(n, _)| n.starts_with("sum_fields")).unwrap();
        assert!(bytes(s, "auto") < bytes(s, "conservative"), "{arch}: {s}");
        assert!(bytes(s, "auto") < bytes(s, "cache_none"), "{arch}: {s}");
    }
}
