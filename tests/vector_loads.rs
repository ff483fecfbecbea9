//! Vector loads in the kernel-level model (issue 19): the NVPTX backend
//! merges the scalar loads clang splits a `float4` into back into one
//! `ld.global.v4` (or `.v2` + scalar for 12 bytes at align 16), and the
//! model must count one request per warp for them, not four. Runs the
//! driver on `testdata/model/float4_loop.cu` (`--cache-policy=auto`, JSON
//! report, sm_70: sectored L1, 32 B sectors of 128 B lines, bypass
//! `.L1::no_allocate`); every expected figure is worked out by hand.

mod common;

use common::*;
use serde_json::Value;

/// The JSON report's kernel named `name` (its `name`, e.g. `pull(...)`).
fn kernel(report: &Value, name: &str) -> Value {
    (report["kernels"].as_array().unwrap().iter())
        .find(|k| k["name"].as_str().unwrap().starts_with(name))
        .unwrap_or_else(|| panic!("no kernel {name} in {report}"))
        .clone()
}

/// `simulated.traffic_bytes` as (cache_all, cache_none).
fn traffic(k: &Value) -> (u64, u64) {
    let t = &k["simulated"]["traffic_bytes"];
    (
        t["cache_all"].as_u64().unwrap(),
        t["cache_none"].as_u64().unwrap(),
    )
}

#[test]
fn a_float4_loop_costs_one_sector_per_warp_and_source() {
    let report = json_report(
        &testdata("model/float4_loop.cu"),
        "sm_70",
        &["--cache-policy=auto"],
    );
    let k = kernel(&report, "pull");
    // The host launch: grid N / BLOCK = 2 blocks of 64 threads, nsrc = 8.
    // SM 0 runs block 0 only (2 < 80 SMs): 2 warps. Each iteration j reads
    // src[j], one 16-byte address for the whole warp: one ld.global.v4,
    // one 32 B sector (src is 256 B aligned; src[2m] and src[2m+1] share
    // sector m).
    // cache_none: 2 warps x 8 sources x 32 B = 512 B. (Four scalar loads
    // per source, as the model counted before: 4 x 512 = 2,048 B.)
    // cache_all: the 8 sources are 128 B = 4 sectors, fetched once by the
    // first warp; the second warp and the second source of each sector
    // hit: 4 x 32 = 128 B.
    assert_eq!(k["simulated"]["blocks"], 1);
    assert_eq!(traffic(&k), (128, 512));
    // Each merged load follows its leader (the first of the group in
    // program order, whose key the vector load takes): same decision, no
    // figures of its own, and a note that says so.
    let loads = k["loads"].as_array().unwrap();
    let merged: Vec<&Value> = (loads.iter())
        .filter(|l| !l["in_kernel"]["merged_into"].is_null())
        .collect();
    assert!(!merged.is_empty(), "no merged load in {k}");
    for m in merged {
        assert_eq!(m["in_kernel"]["l2_bytes"], 0, "{m}");
        assert_eq!(m["in_kernel"]["sectors"], 0, "{m}");
        assert!((m["notes"].as_array().unwrap().iter())
            .any(|n| n.as_str().unwrap().starts_with("merged by the backend")));
        let site = m["in_kernel"]["merged_into"].as_str().unwrap();
        let leader = (loads.iter())
            .find(|l| {
                l["in_kernel"]["merged_into"].is_null()
                    && l["in_kernel"]["sectors"].as_u64().unwrap_or(0) > 0
                    && format!("{}:{}", l["line"], l["column"]) == site
            })
            .expect("a leader with figures at the site");
        assert_eq!(m["decision"], leader["decision"], "{m}");
    }
}

#[test]
fn twelve_bytes_at_align_16_are_a_v2_and_a_scalar() {
    let report = json_report(
        &testdata("model/float4_loop.cu"),
        "sm_70",
        &["--cache-policy=auto"],
    );
    let k = kernel(&report, "drift");
    // One block of 2 warps. Lane l reads pos[i] x, y, z: bytes 16i..16i+12.
    // x and y: one ld.global.v2, 8 B per lane at 16 B steps: a warp spans
    // 512 B = 16 sectors. z: a scalar in the same 16 sectors.
    // cache_none: 2 warps x (16 + 16) x 32 B = 2,048 B (three scalar loads
    // would be 3,072 B).
    // cache_all: the v2 fills the 16 sectors, z hits: 2 x 16 x 32 = 1,024 B.
    assert_eq!(traffic(&k), (1024, 2048));
    let x = &k["loads"][0]["in_kernel"];
    let y = &k["loads"][1]["in_kernel"];
    let z = &k["loads"][2]["in_kernel"];
    assert!(x["merged_into"].is_null() && z["merged_into"].is_null());
    assert_eq!(y["merged_into"], "26:14");
    // z's 16 sectors hit the lines x's access filled under auto (cache).
    assert_eq!(
        (x["sectors"].as_u64(), z["sectors"].as_u64()),
        (Some(32), Some(32))
    );
}
