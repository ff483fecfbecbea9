//! Bounded unknowns in the kernel-level model: a per-thread address read
//! from memory but confined by its expression (`table[v & (LUT - 1)]`) is
//! spread over its range in the trace, not given a synthetic address of its
//! own, so caching a small table can be seen to pay; an unbounded gather
//! (`x[idx[i]]`) still shares nothing. Input: testdata/bounded/.

mod common;

use common::*;
use serde_json::Value;

/// The JSON report of `testdata/bounded/table_lookup.cu` under auto on sm_70.
fn report() -> Value {
    json_report(
        &testdata("bounded").join("table_lookup.cu"),
        "sm_70",
        &["--cache-policy=auto"],
    )
}

fn kernel<'a>(r: &'a Value, name: &str) -> &'a Value {
    (r["kernels"].as_array().unwrap().iter())
        .find(|k| k["name"].as_str().unwrap().starts_with(&format!("{name}(")))
        .unwrap_or_else(|| panic!("no kernel {name} in {r}"))
}

/// The load whose pattern starts with `base`.
fn load<'a>(k: &'a Value, base: &str) -> &'a Value {
    (k["loads"].as_array().unwrap().iter())
        .find(|l| l["pattern"].as_str().unwrap().starts_with(base))
        .unwrap_or_else(|| panic!("no load of {base} in {k}"))
}

fn bytes(k: &Value, policy: &str) -> u64 {
    k["simulated"]["traffic_bytes"][policy].as_u64().unwrap()
}

fn notes(l: &Value) -> Vec<&str> {
    (l["notes"].as_array().unwrap().iter())
        .map(|n| n.as_str().unwrap())
        .collect()
}

#[test]
fn masked_table_is_cached_and_the_stream_bypassed() {
    // lookup<<<1024, 256>>> on sm_70 (80 SMs, L1 128 KB at carveout 0): 8
    // co-resident blocks of 8 warps, 4 iterations each (n = 2^20, stride
    // 2^18), so 256 warp-executions per load on the SM.
    //
    // table[v & 32767]: 8192 lane reads spread over 32768 ints = 4096
    // sectors (128 KB). Bypassed, a warp's 32 lanes fall in ~32 distinct
    // sectors and each is fetched: ~256 * 32 * 32 B = 262144 B. Cached, a
    // sector is fetched once: 8192 draws over 4096 sectors touch
    // 4096 * (1 - e^-2) ~ 3542 of them, ~113 KB. Cache wins by ~2x.
    //
    // data[i]: every element once, 32 KB either way (sector fill); cached,
    // its lines take L1 the 128 KB table needs all of, evicting table
    // lines before their reuse, so it is bypassed.
    let r = report();
    let k = kernel(&r, "lookup");
    let table = load(k, "table");
    assert_eq!(table["locality"].as_array().unwrap().len(), 0);
    assert_eq!(table["decision"], "cache", "{table}");
    assert_eq!(table["in_kernel"]["unknown_within"], 131072, "{table}");
    assert!(
        notes(table).contains(
            &"address unknown but within a 131072-byte range; modelled as spread uniformly over it"
        ),
        "{table}"
    );
    let hits = table["in_kernel"]["hits"].as_u64().unwrap();
    assert!(
        hits > 3000,
        "a 128 KB table read 8192 times reuses: {table}"
    );
    let stream = load(k, "data");
    assert_eq!(stream["decision"], "bypass", "{stream}");
    assert!(
        bytes(k, "auto") < bytes(k, "cache_all"),
        "caching the stream evicts table lines: {k}"
    );
    assert!(bytes(k, "auto") < bytes(k, "cache_none"), "{k}");
    // The paper's per-load verdicts are unchanged: the unknown is ∞ to it.
    assert_eq!(table["in_kernel"]["paper"][0], "bypass");
    assert_eq!(table["in_kernel"]["paper"][1], "bypass");
}

#[test]
fn small_table_is_fetched_once() {
    // lookup_small reads table[v & 255], 1 KB = 32 sectors. Bypassed, a
    // warp's 32 lanes fall in 32 * (1 - (31/32)^32) ~ 20.5 distinct
    // sectors: ~256 * 20.5 * 32 B ~ 168 KB. Cached, the 32 sectors are
    // fetched once, 1024 B. (The stream costs 32 KB either way and, with
    // only 1 KB to protect, evicts nothing: auto may cache or bypass it.)
    let r = report();
    let k = kernel(&r, "lookup_small");
    let table = load(k, "table");
    assert_eq!(table["decision"], "cache", "{table}");
    assert_eq!(table["in_kernel"]["l2_bytes"], 1024, "{table}");
    assert_eq!(table["in_kernel"]["unknown_within"], 1024, "{table}");
    assert!(bytes(k, "auto") < bytes(k, "cache_none"), "{k}");
    assert!(bytes(k, "cache_none") - bytes(k, "auto") > 100_000, "{k}");
}

#[test]
fn unbounded_gather_stays_unknown_per_thread() {
    // x[idx[i]]: idx[i] is any int, so the address spans 16 GiB past x
    // (4 * [-2^31, 2^31)), beyond the 1 MiB limit: each lane keeps a
    // synthetic address of its own and nothing hits. On sm_70 (sector
    // fill) caching it then fetches exactly what bypassing does, and the
    // real indices may repeat where the synthetic ones cannot, so the tie
    // goes to cache (issue 19, facts 4 and 12).
    let r = report();
    let k = kernel(&r, "gather");
    let x = load(k, "x");
    assert_eq!(x["decision"], "cache", "{x}");
    assert_eq!(bytes(k, "cache_all"), bytes(k, "cache_none"), "{k}");
    assert_eq!(x["in_kernel"]["hits"], 0, "{x}");
    assert!(x["in_kernel"].get("unknown_within").is_none(), "{x}");
    assert!(!notes(x).iter().any(|n| n.contains("within a")), "{x}");
    // Every one of its 8192 lane reads fetches a sector of its own.
    assert_eq!(x["in_kernel"]["l2_bytes"], 8192 * 32, "{x}");
}
