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

#[test]
fn mixed_kernel_beats_both_uniform_policies() {
    // weigh reads p[i].w, then the gather data[idx[i]], then p[i].bias.
    // Caching everything lets the gather's 32 lines per warp push the
    // record's lines out before .bias reads them (and on sm_52 each gathered
    // lane fills a whole 128 B line); caching nothing reads the record's
    // lines twice. The model caches the record and keeps the gather out.
    for arch in ["sm_52", "sm_90"] {
        let k = simulated("mixed_gather.cu", arch);
        let (_, s) = k.iter().find(|(n, _)| n.starts_with("weigh")).unwrap();
        let auto = bytes(s, "auto");
        assert!(auto < bytes(s, "cache_all"), "{arch}: {s}");
        assert!(auto < bytes(s, "cache_none"), "{arch}: {s}");
    }
}

#[test]
fn text_report_carries_the_models_figures() {
    // The same figures as the JSON report, under the kernel's heading, and
    // per load the paper's verdicts, the model's and where hits come from.
    let dir = tempfile::tempdir().unwrap();
    let out = run(Command::new(driver())
        .arg(testdata("corpus").join("mixed_gather.cu"))
        .arg("--cuda-gpu-arch=sm_52")
        .arg("--cache-policy=auto")
        .arg("--cache-report=text")
        .arg("-o")
        .arg(dir.path().join("k.ptx")));
    assert!(out.status.success(), "{}", text(&out).1);
    let report = text(&out).1;
    let weigh = report
        .split("\nkernel weigh")
        .nth(1)
        .expect("weigh's section");
    let (_, s) = simulated("mixed_gather.cu", "sm_52")
        .into_iter()
        .find(|(n, _)| n.starts_with("weigh"))
        .unwrap();
    let line = format!(
        "L2->L1 bytes: auto {}, cache-all {}, cache-none {}, conservative {}, aggressive {}",
        bytes(&s, "auto"),
        bytes(&s, "cache_all"),
        bytes(&s, "cache_none"),
        bytes(&s, "conservative"),
        bytes(&s, "aggressive")
    );
    assert!(weigh.contains(&line), "{weigh}");
    assert!(
        weigh.contains("simulated on one SM: 8 co-resident blocks"),
        "{weigh}"
    );
    // p[i].bias (line 38) hits every sector p[i].w (36:20) brought in.
    assert!(
        weigh.contains("model: cache (paper: conservative bypass, aggressive cache); in the kernel 512 sectors, 512 hits, 0 B from L2"),
        "{weigh}"
    );
    assert!(weigh.contains("hits: 512 reuse lines of 36:20"), "{weigh}");
}
