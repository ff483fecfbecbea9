//! The report a user can act on: where each load is (its file, header code
//! included, and loads without a line or location said honestly), copies of
//! one source load grouped, guards printed simplified, remarks that state
//! the operator the PTX gets, and one spelling of locality in the metadata,
//! the report and the remarks.
//!
//! The `.cu` inputs are written into a temporary directory by each test
//! (with a header beside them), so that the PTX-equality corpus under
//! `testdata/` stays as it is; the `.ll` input is
//! `testdata/ll/report/locations.ll`.

mod common;

use std::path::Path;
use std::process::Command;

use common::{gpucc_to, plugin, run, testdata, text};
use serde_json::Value;

const HEADER: &str = "\
// A helper in a header, inlined into the kernel at each call.
__device__ __forceinline__ float fetch(const float *p, int i) {
  return p[i];
}
";

const KERNELS: &str = "\
#include \"helpers.cuh\"

__global__ void __launch_bounds__(256) both(const float *a, const float *b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = fetch(a, i) + fetch(b, i) + a[i + 1];
}

__global__ void __launch_bounds__(256) taps(const float *w, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    s += w[k] * in[i + 32 * k];
  out[i] = s;
}

__global__ void __launch_bounds__(128) shift(const float *b, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    s += b[i + k - 1];
  out[i] = s;
}

__global__ void __launch_bounds__(128) early(const float *a, float *out) {
  int t = threadIdx.x;
  if (t >= 40)
    return;
  out[t] = a[t];
}
";

/// The driver's JSON and text reports for `KERNELS` on sm_80.
fn driver_reports(dir: &Path) -> (Value, String) {
    std::fs::write(dir.join("helpers.cuh"), HEADER).unwrap();
    let cu = dir.join("kernel.cu");
    std::fs::write(&cu, KERNELS).unwrap();
    let json = dir.join("r.json");
    let txt = dir.join("r.txt");
    let ptx = dir.join("k.ptx");
    for (format, file) in [("json", &json), ("text", &txt)] {
        // The paper's policy: its per-load verdicts make rows whose copies
        // differ (the model's report is tests/kernel_model.rs's).
        let flags = [
            "--cache-policy=conservative".to_string(),
            format!("--cache-report={format}"),
            format!("--cache-report-file={}", file.display()),
        ];
        let f: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (ok, err) = gpucc_to(&cu, "sm_80", &ptx, &f);
        assert!(ok, "{err}");
    }
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (report, std::fs::read_to_string(&txt).unwrap())
}

fn kernel<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().starts_with(&format!("{name}(")))
        .unwrap_or_else(|| panic!("no kernel {name} in {report:#}"))
}

/// The text report's section of one kernel.
fn section<'a>(text: &'a str, name: &str) -> &'a str {
    let start = text
        .find(&format!("kernel {name}("))
        .or_else(|| text.find(&format!("kernel {name} (")))
        .unwrap_or_else(|| panic!("no kernel {name} in\n{text}"));
    let rest = &text[start..];
    let end = rest[1..].find("\nkernel ").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

/// Table rows (not the header, the model's figures and scenarios, `why:`/`note:`/`inlined
/// at` lines or left-alone loads) of a text section, their runs of blanks
/// squeezed.
fn rows(section: &str) -> Vec<String> {
    section
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("      "))
        .filter(|l| !l.starts_with("  left alone at "))
        .filter(|l| !l.starts_with("  simulated on one SM") && !l.starts_with("  L2->L1 bytes"))
        .filter(|l| {
            !l.starts_with("  auto over ")
                && !l.starts_with("  measured on ")
                && !l.starts_with("  rows guessed: ")
        })
        .skip(1)
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn header_code_is_named_by_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let (report, text) = driver_reports(dir.path());
    let source = report["source"].as_str().expect("the main input is named");
    assert!(source.ends_with("kernel.cu"), "{source}");
    let loads = kernel(&report, "both")["loads"].as_array().unwrap();
    assert_eq!(loads.len(), 3, "{loads:#?}");
    // fetch(a, i) and fetch(b, i): line 3 of the header, inlined at the
    // two calls on line 5 of kernel.cu (columns 12 and 26).
    for (l, column) in loads[..2].iter().zip([12, 26]) {
        assert!(
            l["file"].as_str().unwrap().ends_with("helpers.cuh"),
            "{l:#}"
        );
        assert_eq!(
            (l["line"].as_u64(), l["column"].as_u64()),
            (Some(3), Some(10))
        );
        let inlined = l["inlined_at"].as_array().unwrap();
        assert_eq!(inlined.len(), 1, "{l:#}");
        assert_eq!(inlined[0]["file"].as_str(), Some(source));
        assert_eq!(inlined[0]["line"].as_u64(), Some(5));
        assert_eq!(inlined[0]["column"].as_u64(), Some(column));
        assert_eq!(l["copies"].as_u64(), Some(1), "two calls are not copies");
    }
    assert_ne!(loads[0]["site"], loads[1]["site"]);
    // a[i + 1] is in the kernel itself.
    assert_eq!(loads[2]["file"].as_str(), Some(source));
    assert!(loads[2].get("inlined_at").is_none(), "{:#}", loads[2]);

    let rows = rows(section(&text, "both"));
    assert_eq!(
        rows.iter()
            .filter(|r| r.starts_with("helpers.cuh:3:10 "))
            .count(),
        2,
        "{text}"
    );
    assert!(rows.iter().any(|r| r.starts_with("5:40 a + ")), "{text}");
    assert!(!rows.iter().any(|r| r.starts_with("3:10")), "{text}");
    for at in ["inlined at 5:12", "inlined at 5:26"] {
        assert!(
            text.lines().any(|l| l.trim() == at),
            "{at} missing:\n{text}"
        );
    }
}

#[test]
fn unrolled_copies_share_a_site_and_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let (report, text) = driver_reports(dir.path());
    // taps: w[k] and in[i + 32*k], unrolled 4 times: two sites of 4.
    let loads = kernel(&report, "taps")["loads"].as_array().unwrap();
    assert_eq!(loads.len(), 8, "{loads:#?}");
    for column in [10, 17] {
        let copies: Vec<&Value> = loads
            .iter()
            .filter(|l| l["line"] == 13 && l["column"] == column)
            .collect();
        assert_eq!(copies.len(), 4, "{loads:#?}");
        assert!(copies
            .iter()
            .all(|l| l["copies"] == 4 && l["site"] == copies[0]["site"]));
    }
    let taps = rows(section(&text, "taps"));
    assert_eq!(
        taps,
        [
            "13:10 x4 w + {0, 4, 8, 12} within-warp+within-block 32 256 cache ld.global",
            "13:17 x4 in + 4*tid.x + 1024*ctaid.x + {0, 128, 256, 384} within-warp 1024 1024 bypass ld.global.L1::no_allocate",
        ],
        "{text}"
    );
    // shift: b[i + k - 1]; the aligned copy (k = 1) reads whole segments
    // (rule 1, bypass), the three others straddle one more sector than they
    // use per 128 threads, 544 B on < 640 B off (rule 2, cache): one row each
    // decision, both counted.
    let loads = kernel(&report, "shift")["loads"].as_array().unwrap();
    assert_eq!(loads.len(), 4);
    assert!(loads
        .iter()
        .all(|l| l["copies"] == 4 && l["site"] == loads[0]["site"]));
    let shift = rows(section(&text, "shift"));
    assert_eq!(
        shift,
        [
            "22:10 x3 b + 4*tid.x + 512*ctaid.x + {-4, 4, 8} within-warp+within-block 544 640 cache ld.global",
            "22:10 x1 b + 4*tid.x + 512*ctaid.x within-warp 512 512 bypass ld.global.L1::no_allocate",
        ],
        "{text}"
    );
    // One `why:` per row, not one per copy.
    assert_eq!(section(&text, "shift").matches("why:").count(), 2, "{text}");
}

/// Runs opt-19 with the plugin on `input`; returns (stderr, output IR).
fn opt(input: &Path, pipeline: &str, dir: &Path, remarks: bool) -> (String, String) {
    let out = dir.join("out.ll");
    let mut cmd = Command::new("opt-19");
    cmd.arg(format!("-load-pass-plugin={}", plugin().display()))
        .arg(format!("-passes={pipeline}"))
        .arg(input)
        .arg("-S")
        .arg("-o")
        .arg(&out);
    if remarks {
        cmd.args([
            "-pass-remarks=gpucc-cache",
            "-pass-remarks-missed=gpucc-cache",
        ]);
    }
    let o = run(&mut cmd);
    let (_, err) = text(&o);
    assert!(o.status.success(), "opt {pipeline}: {err}");
    (err, std::fs::read_to_string(&out).unwrap())
}

#[test]
fn loads_without_a_line_or_location_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let input = testdata("ll/report/locations.ll");
    let (err, _) = opt(&input, "print<gpucc-cache<block=256>>", dir.path(), false);
    let rows = rows(section(&err, "k"));
    assert_eq!(rows.len(), 4, "{err}");
    assert!(rows[0].starts_with("5:7 a + 136*tid.x none "), "{err}");
    assert!(rows[1].starts_with("<no line> b + 4*tid.x "), "{err}");
    assert!(rows[2].starts_with("<no location> c + 4*tid.x "), "{err}");
    assert!(rows[3].starts_with("6:9 v + 16*tid.x "), "{err}");
    assert!(
        err.contains("\n  left alone at <no location>: shared memory\n"),
        "{err}"
    );
    assert!(
        !err.contains(" - ") && !err.contains("0:0") && !err.contains("at -:"),
        "{err}"
    );

    let json = dir.path().join("r.json");
    opt(
        &input,
        &format!(
            "print<gpucc-cache<block=256;report=json;report-file={}>>",
            json.display()
        ),
        dir.path(),
        false,
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["source"], "/src/k.cu");
    let loads = report["kernels"][0]["loads"].as_array().unwrap();
    let files: Vec<Option<&str>> = loads.iter().map(|l| l["file"].as_str()).collect();
    assert_eq!(
        files,
        [
            Some("/src/k.cu"),
            Some("/src/k.cu"),
            None,
            Some("/src/k.cu")
        ]
    );
    assert!(
        loads[2]["file"].is_null(),
        "file is written as null: {:#}",
        loads[2]
    );
    // Entries without a line are sites of their own.
    let sites: Vec<u64> = loads.iter().map(|l| l["site"].as_u64().unwrap()).collect();
    assert_eq!(sites, [0, 1, 2, 3]);
    let skipped = &report["kernels"][0]["skipped"][0];
    assert_eq!(skipped["file"], Value::Null);
    assert_eq!(skipped["site"], 4);
    assert_eq!(skipped["copies"], 1);
}

#[test]
fn guards_read_simplified() {
    let dir = tempfile::tempdir().unwrap();
    let guards = |file: &str, params: &str| -> Vec<Vec<String>> {
        let json = dir.path().join("g.json");
        opt(
            &testdata(file),
            &format!(
                "print<gpucc-cache<{params};report=json;report-file={}>>",
                json.display()
            ),
            dir.path(),
            false,
        );
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        r["kernels"][0]["loads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                l["guards"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| g.as_str().unwrap().to_string())
                    .collect()
            })
            .collect()
    };
    // switch (tid.x / 32): case 0, cases 1 and 2, default. The default is a
    // flat chain of one operator, the cases one `||`.
    assert_eq!(
        guards("ll/core/guard_switch.ll", "block=128"),
        [
            vec!["(tid.x >> 5) == 0"],
            vec!["(tid.x >> 5) == 1 || (tid.x >> 5) == 2"],
            vec!["(tid.x >> 5) != 0 && (tid.x >> 5) != 1 && (tid.x >> 5) != 2"],
        ]
    );
    // The else side of `if (tid.x < n)`: the comparison flips instead of
    // printing `!(tid.x < 40)`.
    assert_eq!(
        guards("ll/core/guard_else.ll", "block=64;arg=n=40"),
        [vec!["tid.x < 40"], vec!["tid.x >= 40"]]
    );
    // `if (t >= 40) return;` through clang: the load runs on the branch's
    // false side, printed as the comparison that holds there.
    let (report, _) = driver_reports(dir.path());
    assert_eq!(
        kernel(&report, "early")["loads"][0]["guards"],
        serde_json::json!(["tid.x <= 39"])
    );
}

/// The remark lines opt printed, in order.
fn remark_lines(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.starts_with("remark: ")).collect()
}

#[test]
fn remarks_follow_the_lowering_and_name_the_ptx_operator() {
    let dir = tempfile::tempdir().unwrap();
    let input = testdata("ll/report/locations.ll");
    let json = dir.path().join("r.json");
    let (err, ir) = opt(
        &input,
        &format!(
            "gpucc-cache<policy=conservative;block=256;report=json;report-file={}>",
            json.display()
        ),
        dir.path(),
        true,
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let loads = report["kernels"][0]["loads"].as_array().unwrap();
    let remarks = remark_lines(&err);
    assert_eq!(remarks.len(), 4, "{err}");
    // The under-aligned vector load stays plain: the report and the remark
    // say the PTX's plain ld.global, and the remark is a missed one.
    let v = &loads[3];
    assert_eq!(v["decision"], "bypass");
    assert_eq!(v["operator"], "ld.global", "{v:#}");
    assert_eq!(v["lowered"], false);
    assert!(
        remarks[3].starts_with("remark: k.cu:6:9: load stays ld.global, not ld.global.L1::no_allocate as decided (bypass: "),
        "{err}"
    );
    assert!(
        remarks[3].contains("left as a plain load: alignment 4"),
        "{err}"
    );
    // The lowered ones: the remark names the report's operator and keeps
    // the load's source location although the load is now inline asm.
    for (r, l) in remarks[..3].iter().zip(loads) {
        assert_eq!(l["lowered"], true, "{l:#}");
        assert!(
            r.contains(&format!(
                "load bypasses L1 ({}): ",
                l["operator"].as_str().unwrap()
            )),
            "{r}"
        );
    }
    assert!(remarks[0].starts_with("remark: k.cu:5:7: "), "{err}");
    // The PTX has exactly the operators the report names.
    let ll = dir.path().join("lowered.ll");
    std::fs::write(&ll, &ir).unwrap();
    let o = run(Command::new("llc-19")
        .arg("-mcpu=sm_90")
        .arg(&ll)
        .arg("-o")
        .arg("-"));
    assert!(o.status.success(), "{}", text(&o).1);
    let ptx = text(&o).0;
    let mut in_ptx: Vec<String> = common::global_loads(&ptx)
        .into_iter()
        .map(|op| {
            op.trim_end_matches(".f32")
                .trim_end_matches(".v4")
                .to_string()
        })
        .collect();
    let mut in_report: Vec<String> = loads
        .iter()
        .map(|l| l["operator"].as_str().unwrap().to_string())
        .collect();
    in_ptx.sort();
    in_report.sort();
    assert_eq!(in_ptx, in_report, "{ptx}");
}

#[test]
fn locality_is_spelled_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = testdata("ll/report/locations.ll");
    let (err, ir) = opt(
        &input,
        "gpucc-cache<block=256;report=text>",
        dir.path(),
        true,
    );
    // The scattered a[34*t] has no locality: "none" everywhere (the
    // metadata used to write an empty string).
    let in_metadata: Vec<&str> = ir
        .lines()
        .filter(|l| l.contains("!\"locality\""))
        .map(|l| {
            l.split("!\"locality\", !\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .collect();
    let in_remarks: Vec<&str> = remark_lines(&err)
        .into_iter()
        .map(|r| {
            r.split("locality ")
                .nth(1)
                .unwrap()
                .split(',')
                .next()
                .unwrap()
        })
        .collect();
    let in_report: Vec<String> = rows(section(&err, "k"))
        .iter()
        .map(|r| {
            let f: Vec<&str> = r.split(' ').collect();
            f[f.len() - 5].to_string()
        })
        .collect();
    assert_eq!(
        in_metadata,
        ["none", "within-warp", "within-warp", "within-warp"],
        "{ir}"
    );
    assert_eq!(in_remarks, in_metadata, "{err}");
    assert_eq!(in_report, in_metadata, "{err}");
}
