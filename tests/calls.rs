//! Issue 19: the kernel-level model follows calls into device functions
//! kept out of line (`__noinline__`), with the caller's arguments
//! (`model::control`), and a device function's load takes the verdict of
//! the kernels that run it (`decide::callees`). Checked against clang's own
//! inliner: the same program built with the functions inlined must give
//! the model the same accesses; and on programs with their host launches,
//! with figures worked by hand.

mod common;

use common::*;
use serde_json::Value;

/// The report of one program (`-c`, host launches read) for `arch`.
fn report(file: &str, arch: &str, extra: &[&str]) -> Value {
    json_report(&testdata(file), arch, extra)
}

/// The function `name` (kernel or device function) of the report.
fn unit<'a>(r: &'a Value, name: &str) -> &'a Value {
    function_named(r, name)
}

fn bytes(k: &Value, policy: &str) -> u64 {
    k["simulated"]["traffic_bytes"][policy].as_u64().unwrap()
}

/// `(line, column) -> decision` of every load of the listed functions.
fn decisions(r: &Value, names: &[&str]) -> Vec<((u64, u64), String)> {
    let mut out: Vec<_> = (names.iter())
        .flat_map(|n| unit(r, n)["loads"].as_array().unwrap().iter())
        .map(|l| {
            let at = (l["line"].as_u64().unwrap(), l["column"].as_u64().unwrap());
            (at, l["decision"].as_str().unwrap().to_string())
        })
        .collect();
    out.sort();
    out
}

const INLINED: &str = "-DOUT_OF_LINE=__forceinline__";

#[test]
fn followed_calls_give_the_model_what_inlining_gives_it() {
    // `residual` calls `stencil`, `coeff` and `row_sum`; inlining changes
    // none of their memory instructions (clang merges nothing across the
    // calls there), so the trace must be the same access for access, and
    // so must the simulated bytes of every whole-kernel assignment and
    // `auto`'s decisions. Not the paper's per-load verdicts: alone, a
    // device function's addresses read arguments it cannot see. Registers
    // differ between the builds, occupancy not (8 blocks of 256 threads,
    // warp-limited, on each part).
    let args = [
        "--kernel-arg=nx=512",
        "--kernel-arg=ny=512",
        "--kernel-arg=m=8",
    ];
    for arch in ["sm_52", "sm_70", "sm_90"] {
        let out_of_line = report("programs/device_calls.cu", arch, &args);
        let mut with = args.to_vec();
        with.push(INLINED);
        let inlined = report("programs/device_calls.cu", arch, &with);
        let (k, i) = (unit(&out_of_line, "residual"), unit(&inlined, "residual"));
        assert_eq!(
            k["simulated"]["followed_calls"],
            serde_json::json!([
                "stencil(float const*, int, int, int)",
                "coeff(float const*, int)",
                "row_sum(float const*, int, int, int, int)"
            ]),
            "{arch}"
        );
        assert!(i["simulated"]["followed_calls"].is_null(), "{arch}");
        assert_eq!(
            k["simulated"]["thread_accesses"], i["simulated"]["thread_accesses"],
            "{arch}"
        );
        for policy in ["auto", "cache_all", "cache_none"] {
            assert_eq!(bytes(k, policy), bytes(i, policy), "{arch} {policy}");
        }
        assert_eq!(
            decisions(&out_of_line, &["stencil", "coeff", "row_sum"]),
            decisions(&inlined, &["residual"]),
            "{arch}"
        );
    }
    // `smooth` reads u[y * nx + x] itself and again as stencil's centre
    // u[c]: inlined, clang loads it once (GVN); out of line it is two
    // loads. So the out-of-line trace has exactly that load more, with its
    // bytes: cache-all differs by the centre load's own L2->L1 bytes.
    let out_of_line = report("programs/device_calls.cu", "sm_70", &[]);
    let inlined = report("programs/device_calls.cu", "sm_70", &[INLINED]);
    let (k, i) = (unit(&out_of_line, "smooth"), unit(&inlined, "smooth"));
    let centre = (unit(&out_of_line, "stencil")["loads"]
        .as_array()
        .unwrap()
        .iter())
    .find(|l| l["column"] == 66)
    .unwrap()["in_kernel"]
        .clone();
    let centre_accesses = centre["sectors"].as_u64().unwrap();
    assert_eq!(
        k["simulated"]["thread_accesses"].as_u64().unwrap()
            - i["simulated"]["thread_accesses"].as_u64().unwrap(),
        centre_accesses,
        "one sector a thread: the centre load's accesses"
    );
    assert_eq!(
        bytes(k, "cache_all") - bytes(i, "cache_all"),
        centre["l2_bytes"].as_u64().unwrap()
    );
}

#[test]
fn kernels_that_disagree_on_a_shared_load_are_weighed() {
    // `at` is called by `lookup` (8 iterations of t[k]: every warp reads the
    // same 32-byte sector) and by `stream` (a[i], once per thread). One SM
    // runs 8 blocks of 256 threads (warp-limited on both parts).
    // lookup: 8 blocks x 8 warps x 8 iterations = 512 warp accesses of one
    // sector. Bypassed: 512 x 32 = 16,384 B. Cached: sm_70 fetches it once,
    // 32 B; sm_52's L1/TEX is two units, each fetching it, 64 B.
    // stream: 2,048 threads x 4 B = 8,192 B cached or not: its model
    // bypasses a[i] (read once), lookup's caches t[k]. Caching costs
    // stream 1x, bypassing costs lookup 16,384 / 32 = 512x (sm_70) or
    // 16,384 / 64 = 256x (sm_52): `at` is cached.
    for (arch, cached, ratio, op) in [
        ("sm_52", 64, "256.000x", "ld.ca"),
        ("sm_70", 32, "512.000x", "ld"),
    ] {
        let r = report("robust/shared_callee.cu", arch, &[]);
        let lookup = unit(&r, "lookup");
        assert_eq!(bytes(lookup, "cache_all"), cached, "{arch}");
        assert_eq!(bytes(lookup, "cache_none"), 16_384, "{arch}");
        assert_eq!(bytes(lookup, "auto"), cached, "{arch}");
        let stream = unit(&r, "stream");
        assert_eq!(bytes(stream, "cache_all"), 8192, "{arch}");
        assert_eq!(bytes(stream, "cache_none"), 8192, "{arch}");
        let load = &unit(&r, "at")["loads"][0];
        assert_eq!(load["decision"], "cache", "{arch}");
        assert_eq!(load["operator"], op, "{arch}");
        let reason = load["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("auto: cache: the kernels that run it disagree (lookup("),
            "{arch}: {reason}"
        );
        assert!(
            reason.contains("bypasses it") && reason.contains(&format!("bypassing {ratio}")),
            "{arch}: {reason}"
        );
    }
}

#[test]
fn one_instruction_called_from_two_sites_is_one_load() {
    // `twice` calls at2(a, i) and at2(a, i ^ 1): the two call sites run
    // at2's one load. On sm_70, 64 warps x 2 calls, each a 128-byte line
    // (4 sectors): 512 sectors; the second call's lines are the first's,
    // 256 hits when cached; 2,048 x 4 = 8,192 B from L2 (16,384 B
    // bypassed).
    let r = report("robust/shared_callee.cu", "sm_70", &[]);
    let k = unit(&r, "twice");
    assert_eq!(bytes(k, "cache_none"), 16_384);
    assert_eq!(bytes(k, "auto"), 8192);
    let load = &unit(&r, "at2")["loads"][0];
    assert_eq!(load["decision"], "cache");
    let m = &load["in_kernel"];
    assert_eq!(
        (&m["sectors"], &m["hits"], &m["l2_bytes"]),
        (&512.into(), &256.into(), &8192.into())
    );
    assert!(load["reason"]
        .as_str()
        .unwrap()
        .starts_with("auto, followed from kernel twice("));
}

#[test]
fn a_policy_other_than_auto_prices_the_callees_own_verdicts() {
    // Under `conservative` (the model runs for a machine description), at's
    // unknown address is bypassed (rule 4): lookup's decided bytes are the
    // bypassed 16,384, not auto's 32.
    let dir = tempfile::tempdir().unwrap();
    let machine = dir.path().join("m.machine");
    std::fs::write(&machine, "base = sm_70\n").unwrap();
    let flag = format!("--machine={}", machine.display());
    let r = report(
        "robust/shared_callee.cu",
        "sm_70",
        &["--cache-policy=conservative", &flag],
    );
    assert_eq!(unit(&r, "at")["loads"][0]["decision"], "bypass");
    assert_eq!(bytes(unit(&r, "lookup"), "decided"), 16_384);
    assert_eq!(bytes(unit(&r, "lookup"), "auto"), 32);
}

#[test]
fn a_caller_without_evidence_keeps_a_shared_load_cached() {
    // `once` streams a[i] through `at3` and `near` through `at4`: read once,
    // their models bypass it. But `late` reads an 8-entry table through
    // `at3` only in blocks 1,000 and up, which its traced wave (blocks 0,
    // 80, ..., 560 on sm_70's 80 SMs; 0, 24, ... on sm_52's 24) never
    // reaches, and `far` reaches `at4` through seven calls, one past the
    // depth the model follows: their reuse is unseen, and a bypass could
    // cost it whole, while caching costs `once` and `near` nothing (2,048
    // threads x 4 B = 8,192 B either way). Both loads are cached.
    for arch in ["sm_52", "sm_70"] {
        let r = report("robust/shared_callee.cu", arch, &[]);
        for (f, streams, unseen, why) in [
            ("at3", "once", "late", "its trace does not run it"),
            (
                "at4",
                "near",
                "far",
                "its model does not follow every call into it",
            ),
        ] {
            let k = unit(&r, streams);
            assert_eq!(bytes(k, "cache_all"), 8192, "{arch} {streams}");
            assert_eq!(bytes(k, "cache_none"), 8192, "{arch} {streams}");
            let load = &unit(&r, f)["loads"][0];
            assert_eq!(load["decision"], "cache", "{arch} {f}");
            let reason = load["reason"].as_str().unwrap();
            assert!(
                reason.starts_with(&format!("auto: cache: kernel {unseen}(")),
                "{arch}: {reason}"
            );
            assert!(reason.contains(why), "{arch}: {reason}");
            assert!(
                reason.contains("bypasses it) pay at most 1.000x"),
                "{arch}: {reason}"
            );
        }
        // far's trace stops at the call it does not follow.
        let far = &unit(&r, "far")["simulated"]["followed_calls"];
        assert_eq!(far.as_array().map(Vec::len), Some(6), "{arch}: {far}");
    }
}
