//! The hardware facts of issue 19 as the kernel-level model sees them
//! (design.md §6): one kernel per fact under `testdata/model/`, built by
//! the driver with `--cache-policy=auto` and a JSON report, whose decisions
//! and `simulated.traffic_bytes` must be what the fact implies. Every
//! expected figure is worked out by hand beside its assertion, from the
//! kernel's addresses and the L1 the fact describes (sm_52: 24 KB L1/TEX in
//! two units of 12 KB, 128 B lines of four 32 B sectors, plain loads cached
//! only when asked, `.cg` bypass).

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

/// Runs the driver on `testdata/model/{file}` for `arch` under `auto`
/// with `extra` flags; returns the JSON report's first kernel.
fn kernel(dir: &Path, file: &str, arch: &str, extra: &[&str]) -> Value {
    let report = dir.join(format!("{file}.json"));
    let report_flag = format!("--cache-report-file={}", report.display());
    let mut flags = vec!["--cache-policy=auto", "--cache-report=json", &report_flag];
    flags.extend_from_slice(extra);
    let ptx = dir.join(format!("{file}.ptx"));
    let (ok, err) = gpucc_to(&testdata(&format!("model/{file}")), arch, &ptx, &flags);
    assert!(ok, "{file} on {arch}: {err}");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    json["kernels"][0].clone()
}

/// `simulated.traffic_bytes` as (auto, cache_all, cache_none).
fn traffic(k: &Value) -> (u64, u64, u64) {
    let t = &k["simulated"]["traffic_bytes"];
    let get = |p: &str| {
        t[p].as_u64()
            .unwrap_or_else(|| panic!("no {p} figure in {k}"))
    };
    (get("auto"), get("cache_all"), get("cache_none"))
}

fn decisions(k: &Value) -> Vec<String> {
    (k["loads"].as_array().unwrap().iter())
        .map(|l| l["decision"].as_str().unwrap().to_string())
        .collect()
}

/// Fact 1: Maxwell/Pascal L1/TEX fetches 32 B sectors, not 128 B lines.
#[test]
fn sm52_fills_sectors_so_caching_the_pair_halves_traffic() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(
        dir.path(),
        "sector_pair.cu",
        "sm_52",
        &["--grid-dim=1", "--block-dim=128"],
    );
    // One block of 4 warps. Lane l of a warp reads a[16i] at 64 B steps:
    // 32 distinct sectors (every other sector of 16 lines), 32 x 32 B =
    // 1,024 B per warp from L2 whether cached or not. a[16i+1] is 4 B
    // further, in the same sectors: a hit for all 32 when the first load
    // allocated them, another 1,024 B when it did not.
    // cache_all: 4 x 1,024 = 4,096 B. cache_none: 4 x 2,048 = 8,192 B.
    // Caching only one of the two saves nothing (the other skips L1 with
    // .cg, or finds nothing allocated): 8,192 B; so auto caches both.
    // (With 128 B line fills both cached would cost 16 x 128 = 2,048 B per
    // warp, a tie with cache_none: the old model bypassed both.)
    assert_eq!(traffic(&k), (4096, 4096, 8192));
    assert_eq!(decisions(&k), ["cache", "cache"]);
    assert_eq!(k["simulated"]["blocks"], 1);
}

/// Fact 2: a read-only (`ld.global.nc`) load allocates in L1/TEX on sm_52,
/// where a plain load does not unless asked.
#[test]
fn sm52_read_only_table_is_fetched_once() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(
        dir.path(),
        "readonly_table.cu",
        "sm_52",
        &["--grid-dim=1", "--block-dim=64"],
    );
    // One block of 2 warps. table[0..31] (128 B, one line) is read through
    // .nc, which no decision changes before sm_70, so every policy shares
    // its figure: warp 0's 32 uniform reads miss once per sector (4 x 32 B
    // = 128 B) and hit after; warp 1 hits all. (Not allocating, it cost 2
    // warps x 32 reads x 32 B = 2,048 B.) a[i]: 4 coalesced sectors per
    // warp, no reuse: 2 x 128 = 256 B cached or not.
    // Every policy: 128 + 256 = 384 B.
    assert_eq!(traffic(&k), (384, 384, 384));
    let ops: Vec<&str> = (k["loads"].as_array().unwrap().iter())
        .map(|l| l["operator"].as_str().unwrap())
        .collect();
    assert_eq!(ops.iter().filter(|o| **o == "ld.global.nc").count(), 32);
}

/// Fact 9: one L1/TEX unit per half SM; consecutive co-resident blocks on
/// different halves share no L1.
#[test]
fn sm52_blocks_on_two_halves_share_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let k = kernel(
        dir.path(),
        "two_halves.cu",
        "sm_52",
        &["--grid-dim=48", "--block-dim=128"],
    );
    // 4 warps per block, 16 blocks fit an SM (64 / 4 warps), and sm_52's
    // 24 SMs deal the 48 blocks out so SM 0 runs blocks 0 and 24: 2 blocks,
    // slots 0 and 1, on units 0 and 1. Each reads a[0..127] = 512 B = 16
    // sectors: cached or not, each unit fetches them once: 2 x 512 = 1,024
    // B for every policy. (One shared L1 would serve block 24 from block
    // 0's fills: cache_all 512 B.)
    assert_eq!(k["simulated"]["blocks"], 2);
    assert_eq!(traffic(&k), (1024, 1024, 1024));
}

/// Fact 8: a set-indexed L1 (a machine description's 16 ways on 8 KB: 4
/// sets) against the same L1 fully associative: rows 4 KB apart all fall in
/// set 0.
#[test]
fn rows_in_one_set_thrash_a_set_indexed_l1() {
    let dir = tempfile::tempdir().unwrap();
    let machine = |ways: &str| {
        let path = dir.path().join(format!("{ways}.machine"));
        let text = format!(
            "base = sm_70\nname = small-{ways}\nunified_bytes = 8K\ncarveouts = 0, 4K\n\
             shared_per_sm = 4K\nshared_per_block = 4K\nassociativity = {ways}\n"
        );
        std::fs::write(&path, text).unwrap();
        format!("--machine={}", path.display())
    };
    let run = |ways: &str| {
        let flag = machine(ways);
        let k = kernel(
            dir.path(),
            "row_stride.cu",
            "sm_70",
            &["--grid-dim=1", "--block-dim=32", &flag],
        );
        assert_eq!(k["simulated"]["l1_bytes"], 8192, "{k}");
        k
    };
    // One warp; lane r reads row r's line k / 8 sector at k = 0..31: 32
    // lines, 1 sector each per k. No shared memory: carveout 0, L1 8 KB =
    // 64 lines.
    // Fully associative: the 32 lines fit; each sector is fetched once:
    // 32 lines x 4 sectors x 32 B = 4,096 B. Bypassed: 32 k x 32 lanes x
    // 32 B = 32,768 B.
    let full = run("full");
    assert_eq!(traffic(&full), (4096, 4096, 32768));
    assert!(decisions(&full).iter().all(|d| d == "cache"));
    // 16 ways: 64 / 16 = 4 sets; rows are 32 lines apart, 32 mod 4 = 0:
    // all 32 lines in set 0 of 16 ways. LRU over a cycle of 32 lines in 16
    // ways misses every time: cache_all = cache_none = 32,768 B.
    // auto caches the first load of each sector (k = 0, 8, 16, 24) and
    // bypasses the other 7 with .L1::no_allocate, which probes: the cached
    // load leaves rows 16..31 in the set (32 allocations into 16 ways, in
    // lane order), so each of the 7 misses rows 0..15 (16 x 32 B = 512 B)
    // and hits the rest. Per sector: 1,024 + 7 x 512 = 4,608 B; x 4 =
    // 18,432 B.
    let sets = run("16");
    assert_eq!(traffic(&sets), (18432, 32768, 32768));
    let d = decisions(&sets);
    let cached: Vec<usize> = (0..d.len()).filter(|&i| d[i] == "cache").collect();
    assert_eq!(cached, [0, 8, 16, 24], "{d:?}");
}
