//! The address analysis and the traffic model on small kernels whose traffic
//! is worked out by hand (testdata/cu/analysis/*.cu).
//!
//! Every kernel goes through the driver to PTX for sm_90 under both traffic
//! models (`fermi`: 128 B lines fill L1; `sectored`: 32 B sectors) and both
//! per-load policies. For each global load (found by its source line) the
//! JSON report must give the traffic, locality, analyzability and decision
//! computed below, and the PTX must spell the decisions: on sm_90 bypass is
//! `ld.global.L1::no_allocate`, cache is the plain `ld.global.<type>`.
//!
//! The model, for one block (block 0 unless told otherwise):
//! - on  = unique fill units the whole block touches x fill size
//!   (fermi 128 B lines, sectored 32 B sectors);
//! - off = sum over warps (32 consecutive linear thread ids) of the unique
//!   32 B segments that warp touches x 32;
//! - an unknown address costs one unit per executing thread (fill size on,
//!   32 B off);
//! - kernel pointer arguments are 256 B aligned, so offsets from them can be
//!   counted from 0;
//! - decision: unknown -> bypass; on < off -> cache if on <= L1 else bypass;
//!   on == off -> bypass if on > L1, else conservative bypasses and
//!   aggressive caches; on > off -> bypass.
//! - L1 on sm_90: 16384 B under fermi, 28672 B under sectored.
//!
//! Expected numbers are never copied from the tool's output.

mod common;

use serde_json::Value;

const ARCH: &str = "sm_90";
const BYPASS_OP: &str = "ld.global.L1::no_allocate";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Model {
    Fermi,
    Sectored,
}

impl Model {
    fn name(self) -> &'static str {
        match self {
            Model::Fermi => "fermi",
            Model::Sectored => "sectored",
        }
    }
}

const POLICIES: [&str; 2] = ["conservative", "aggressive"];

/// What one load must report under one model.
#[derive(Clone, Copy, Debug)]
struct Load {
    line: u64,
    on: u64,
    off: u64,
    locality: &'static [&'static str],
    analyzable: bool,
    /// Decision under `conservative`.
    conservative: &'static str,
    /// Decision under `aggressive`.
    aggressive: &'static str,
}

const WARP: &[&str] = &["within-warp"];
const BLOCK: &[&str] = &["within-warp", "within-block"];
const NONE: &[&str] = &[];

/// Shorthand for the four decision shapes of the rules.
const fn load(
    line: u64,
    on: u64,
    off: u64,
    locality: &'static [&'static str],
    analyzable: bool,
    decisions: (&'static str, &'static str),
) -> Load {
    Load {
        line,
        on,
        off,
        locality,
        analyzable,
        conservative: decisions.0,
        aggressive: decisions.1,
    }
}

/// on == off and fits: conservative bypasses, aggressive caches (rule 1).
const EQUAL: (&str, &str) = ("bypass", "cache");
/// Both policies cache.
const CACHE: (&str, &str) = ("cache", "cache");
/// Both policies bypass.
const BYPASS: (&str, &str) = ("bypass", "bypass");

/// One driver run: the parsed JSON report and the PTX text.
struct Run {
    report: Value,
    ptx: String,
    what: String,
}

fn run_driver(file: &str, model: Model, policy: &str, extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let ptx = dir.path().join("out.ptx");
    let input = common::testdata(&format!("cu/analysis/{file}"));
    let own = [
        format!("--cache-model={}", model.name()),
        format!("--cache-policy={policy}"),
        "--cache-report=json".into(),
        format!("--cache-report-file={}", json.display()),
    ];
    let mut flags: Vec<&str> = own.iter().map(String::as_str).collect();
    flags.extend_from_slice(extra);
    let (ok, err) = common::gpucc_to(&input, ARCH, &ptx, &flags);
    let what = format!("{file} {} {policy} {extra:?}", model.name());
    assert!(ok, "{what}: gpucc-cache failed:\n{err}");
    common::assert_ptxas_accepts(&ptx, ARCH);
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("{what}: no report: {e}"));
    let report: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: bad JSON: {e}\n{text}"));
    Run {
        report,
        ptx: std::fs::read_to_string(&ptx).unwrap(),
        what,
    }
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// The report entry (kernel or device function) whose name starts with `name(`.
fn unit<'a>(run: &'a Run, name: &str) -> &'a Value {
    run.report["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().starts_with(&format!("{name}(")))
        .unwrap_or_else(|| panic!("{}: no entry {name} in {:#}", run.what, run.report))
}

/// Checks every load of `name` against `expected` (loads on one line are
/// matched in report order), and that there are no others.
/// `space` is the state space the backend's `ld` names: "global", or "" for
/// a generic load (a device function's pointer parameter), whose operator the
/// report writes without `.global`.
fn check_loads(run: &Run, name: &str, policy: &str, space: &str, expected: &[Load]) {
    let entry = unit(run, name);
    let loads = entry["loads"].as_array().unwrap();
    assert_eq!(
        loads.len(),
        expected.len(),
        "{}: {name} has {} loads, expected {}:\n{:#}",
        run.what,
        loads.len(),
        expected.len(),
        entry
    );
    let mut used = vec![false; loads.len()];
    for e in expected {
        let i = (0..loads.len())
            .find(|&i| !used[i] && loads[i]["line"].as_u64() == Some(e.line))
            .unwrap_or_else(|| {
                panic!(
                    "{}: {name}: no (more) load at line {}:\n{:#}",
                    run.what, e.line, entry
                )
            });
        used[i] = true;
        let l = &loads[i];
        let what = format!("{}: {name} line {}", run.what, e.line);
        assert_eq!(
            l["traffic_on_bytes"].as_u64(),
            Some(e.on),
            "{what}: on bytes\n{l:#}"
        );
        assert_eq!(
            l["traffic_off_bytes"].as_u64(),
            Some(e.off),
            "{what}: off bytes\n{l:#}"
        );
        assert_eq!(strs(&l["locality"]), e.locality, "{what}: locality\n{l:#}");
        assert_eq!(
            l["analyzable"].as_bool(),
            Some(e.analyzable),
            "{what}: analyzable\n{l:#}"
        );
        let decision = match policy {
            "conservative" => e.conservative,
            "aggressive" => e.aggressive,
            _ => unreachable!(),
        };
        assert_eq!(
            l["decision"].as_str(),
            Some(decision),
            "{what}: decision\n{l:#}"
        );
        let ld = if space.is_empty() {
            "ld".to_string()
        } else {
            format!("ld.{space}")
        };
        let operator = if decision == "bypass" {
            format!("{ld}.L1::no_allocate")
        } else {
            ld
        };
        assert_eq!(
            l["operator"].as_str(),
            Some(operator.as_str()),
            "{what}: operator\n{l:#}"
        );
    }
}

/// PTX global-memory loads split into (bypass, plain `ld.global.<type>`,
/// plain generic `ld.<type>`); param, shared, local and const loads left out.
fn ptx_loads(ptx: &str) -> (usize, usize, usize) {
    let (mut bypass, mut global, mut generic) = (0, 0, 0);
    for l in ptx.lines().map(str::trim) {
        let Some(op) = l.split_whitespace().next() else {
            continue;
        };
        if !op.starts_with("ld.") {
            continue;
        }
        let parts: Vec<&str> = op.split('.').collect();
        match parts[1] {
            "param" | "shared" | "local" | "const" => {}
            "global" if op.starts_with(&format!("{BYPASS_OP}.")) => bypass += 1,
            // `ld.global.f32`: nothing between the space and the type.
            "global" if parts.len() == 3 => global += 1,
            "global" => panic!("unexpected global load {op} in PTX:\n{ptx}"),
            // A generic load the analysis proved global, bypassing
            // (`ld.L1::no_allocate.f32`: cache operators act on generic
            // addresses that are global, PTX ISA `ld`).
            "L1::no_allocate" if parts.len() == 3 => bypass += 1,
            // Generic `ld.f32` (a pointer the backend cannot place).
            _ if parts.len() == 2 => generic += 1,
            _ => panic!("unexpected load {op} in PTX:\n{ptx}"),
        }
    }
    (bypass, global, generic)
}

/// The PTX carries one `ld.global.L1::no_allocate` per bypassed load and
/// one plain `ld.global.<type>` per cached load.
fn check_ptx(run: &Run, expected: &[Load], policy: &str) {
    let decisions: Vec<&str> = expected
        .iter()
        .map(|e| {
            if policy == "conservative" {
                e.conservative
            } else {
                e.aggressive
            }
        })
        .collect();
    let bypass = decisions.iter().filter(|d| **d == "bypass").count();
    let cache = decisions.len() - bypass;
    let (b, g, generic) = ptx_loads(&run.ptx);
    assert_eq!(
        (b, g, generic),
        (bypass, cache, 0),
        "{}: PTX loads\n{}",
        run.what,
        run.ptx
    );
}

/// Runs `file` under both policies for `model` and checks `kernel`'s loads.
fn check(file: &str, kernel: &str, model: Model, extra: &[&str], expected: &[Load]) {
    for policy in POLICIES {
        let run = run_driver(file, model, policy, extra);
        assert_eq!(run.report["arch"], ARCH, "{}", run.what);
        assert_eq!(run.report["model"], model.name(), "{}", run.what);
        assert_eq!(run.report["policy"], policy, "{}", run.what);
        // L1 on sm_90: fermi 16 KiB = 16384 B; sectored 256 KiB - 228 KiB = 28 KiB
        // = 28672 B; or what --l1-size says.
        let l1 = match (
            extra.iter().find_map(|a| a.strip_prefix("--l1-size=")),
            model,
        ) {
            (Some(n), _) => n.parse().unwrap(),
            (None, Model::Fermi) => 16384,
            (None, Model::Sectored) => 28672,
        };
        assert_eq!(run.report["l1_bytes"].as_u64(), Some(l1), "{}", run.what);
        check_loads(&run, kernel, policy, "global", expected);
        check_ptx(&run, expected, policy);
    }
}

fn block_of(run: &Run, name: &str) -> Vec<u64> {
    unit(run, name)["block_dim"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

// ---------------------------------------------------------------------------
// coalesced.cu, 512-thread block.
// line 6: a[blockIdx.x*512 + threadIdx.x], int (4 B);
// line 8: b[blockIdx.x*blockDim.x + threadIdx.x], double (8 B).

#[test]
fn coalesced() {
    let extra = ["--block-dim=512"];
    check(
        "coalesced.cu",
        "coalesced",
        Model::Fermi,
        &extra,
        &[
            // 512 threads x 4 B = 2048 B contiguous from a 256 B aligned base
            // = 16 lines x 128 B = 2048 on; 16 warps x (32 x 4 B = 128 B = 4 segments)
            // x 32 B = 2048 off. Each line is read by 32 threads of one warp:
            // within-warp. on == off = 2048 <= 16384: rule 1.
            load(6, 2048, 2048, WARP, true, EQUAL),
            // 512 x 8 B = 4096 B = 32 lines x 128 = 4096 on; 16 warps x
            // (32 x 8 = 256 B = 8 segments) x 32 = 4096 off; 16 threads per line.
            // on == off = 4096 <= 16384: rule 1.
            load(8, 4096, 4096, WARP, true, EQUAL),
        ],
    );
    check(
        "coalesced.cu",
        "coalesced",
        Model::Sectored,
        &extra,
        &[
            // 2048 B = 64 sectors x 32 = 2048 on; off as above 16 x 4 x 32 = 2048;
            // 8 threads per sector: within-warp. on == off <= 28672: rule 1.
            load(6, 2048, 2048, WARP, true, EQUAL),
            // 4096 B = 128 sectors x 32 = 4096 on; 16 x 8 x 32 = 4096 off; 4 threads
            // per sector. Rule 1.
            load(8, 4096, 4096, WARP, true, EQUAL),
        ],
    );
}

// ---------------------------------------------------------------------------
// strided.cu, 256-thread block, floats.
// line 6: a[34*i] (byte 136*t); line 7: b[2*i] (byte 8*t).

#[test]
fn strided() {
    let extra = ["--block-dim=256"];
    check(
        "strided.cu",
        "strided",
        Model::Fermi,
        &extra,
        &[
            // 136 B apart > 128 B: every thread its own line, 256 lines x 128 = 32768 on.
            // 136*t mod 32 is 0, 8, 16 or 24, so the 4 B never straddles: one segment
            // per thread, 256 x 32 = 8192 off. No unit touched twice: no locality.
            // on 32768 > off 8192: rule 3, bypass.
            load(6, 32768, 8192, NONE, true, BYPASS),
            // bytes 8*t, t < 256: 0..2043 = 16 lines x 128 = 2048 on; each warp
            // spans 32 x 8 = 256 B = 8 segments, 8 warps x 8 x 32 = 2048 off;
            // 16 threads per line: within-warp. on == off: rule 1.
            load(7, 2048, 2048, WARP, true, EQUAL),
        ],
    );
    check(
        "strided.cu",
        "strided",
        Model::Sectored,
        &extra,
        &[
            // One 32 B sector per thread: 256 x 32 = 8192 on; same 8192 off.
            // No sector read twice: no locality. on == off = 8192 <= 28672: rule 1,
            // so the aggressive policy caches even this scattered load.
            load(6, 8192, 8192, NONE, true, EQUAL),
            // 0..2043 = 64 sectors x 32 = 2048 on; 8 x 8 x 32 = 2048 off; 4 threads
            // per sector: within-warp. Rule 1.
            load(7, 2048, 2048, WARP, true, EQUAL),
        ],
    );
}

// ---------------------------------------------------------------------------
// mod16.cu, 256-thread block: a[threadIdx.x % 16], float (line 5).

#[test]
fn tid_mod_16() {
    let extra = ["--block-dim=256"];
    check(
        "mod16.cu",
        "mod16",
        Model::Fermi,
        &extra,
        // bytes 4*(t%16) = 0..63: one line, 128 on. Every warp reads the same
        // 64 B = 2 segments: 8 warps x 2 x 32 = 512 off. on 128 < off 512 and
        // 128 <= 16384: rule 2, cache. Locality: within-warp and within-block.
        &[load(5, 128, 512, BLOCK, true, CACHE)],
    );
    check(
        "mod16.cu",
        "mod16",
        Model::Sectored,
        &extra,
        // 0..63 = 2 sectors x 32 = 64 on; 8 x 2 x 32 = 512 off. Rule 2, cache.
        &[load(5, 64, 512, BLOCK, true, CACHE)],
    );
}

// ---------------------------------------------------------------------------
// div16.cu, 256-thread block: a[threadIdx.x / 16], float (line 6).

#[test]
fn tid_div_16() {
    let extra = ["--block-dim=256"];
    check(
        "div16.cu",
        "div16",
        Model::Fermi,
        &extra,
        // t/16 = 0..15, bytes 0..63: one line, 128 on. Warp w holds t/16 in
        // {2w, 2w+1}: bytes 8w..8w+7, inside one segment (8w mod 32 <= 24):
        // 8 warps x 1 x 32 = 256 off. 128 < 256 and 128 <= 16384: rule 2, cache.
        &[load(6, 128, 256, BLOCK, true, CACHE)],
    );
    check(
        "div16.cu",
        "div16",
        Model::Sectored,
        &extra,
        // 0..63 = 2 sectors = 64 on; 256 off as above. Rule 2, cache.
        &[load(6, 64, 256, BLOCK, true, CACHE)],
    );
}

// ---------------------------------------------------------------------------
// block2d.cu, 16x16 block, floats; linear id = x + 16*y, warp w = rows y in
// {2w, 2w+1}, 8 warps.
// line 6: a[threadIdx.x]; line 7: b[threadIdx.y*16 + threadIdx.x];
// line 8: c[threadIdx.x*16 + threadIdx.y].

#[test]
fn block_2d() {
    let extra = ["--block-dim=16x16"];
    check(
        "block2d.cu",
        "block2d",
        Model::Fermi,
        &extra,
        &[
            // bytes 4*x = 0..63: one line, 128 on. Every warp (two rows, x 0..15)
            // reads those 64 B = 2 segments: 8 x 2 x 32 = 512 off. Rule 2, cache
            // under both policies; within-warp and within-block.
            load(6, 128, 512, BLOCK, true, CACHE),
            // bytes 4*(16y + x) = 4 * linear id: 1024 B = 8 lines = 1024 on;
            // 8 warps x 4 segments x 32 = 1024 off. Rule 1.
            load(7, 1024, 1024, WARP, true, EQUAL),
            // index 16x + y covers 0..255: bytes 0..1023 = 8 lines = 1024 on.
            // Warp w: bytes 64x + 8w .. 64x + 8w + 7 for x = 0..15, one segment per
            // x (8w mod 32 <= 24): 16 segments, 8 x 16 x 32 = 4096 off; line
            // floor(x/2) read by 4 threads: within-warp. 1024 < 4096: rule 2, cache.
            load(8, 1024, 4096, BLOCK, true, CACHE),
        ],
    );
    check(
        "block2d.cu",
        "block2d",
        Model::Sectored,
        &extra,
        &[
            // 0..63 = 2 sectors = 64 on; 512 off. Rule 2, cache.
            load(6, 64, 512, BLOCK, true, CACHE),
            // 1024 B = 32 sectors = 1024 on; 1024 off. Rule 1.
            load(7, 1024, 1024, WARP, true, EQUAL),
            // 0..1023 all read: 32 sectors = 1024 on; 4096 off; threads y = 2w and
            // 2w+1 share a sector: within-warp. Rule 2, cache.
            load(8, 1024, 4096, BLOCK, true, CACHE),
        ],
    );
}

// ---------------------------------------------------------------------------
// block3d.cu, 8x4x4 block (128 threads, 4 warps; warp w = slice z = w since
// one slice is 8 x 4 = 32 threads), floats.
// line 6: a[(z*blockDim.y + y)*blockDim.x + x]; line 7: b[threadIdx.z];
// line 8: c[threadIdx.y*8 + threadIdx.x].

#[test]
fn block_3d() {
    let extra = ["--block-dim=8x4x4"];
    check(
        "block3d.cu",
        "block3d",
        Model::Fermi,
        &extra,
        &[
            // 4 * linear id: 128 x 4 = 512 B = 4 lines = 512 on; 4 warps x 4
            // segments x 32 = 512 off. Rule 1.
            load(6, 512, 512, WARP, true, EQUAL),
            // bytes 4z = 0..15: one line, 128 on. Warp w reads one float: 1 segment,
            // 4 x 1 x 32 = 128 off. on == off = 128: rule 1; 32 threads share the
            // line: within-warp.
            load(7, 128, 128, WARP, true, EQUAL),
            // index 8y + x = 0..31, bytes 0..127: one line, 128 on. Each warp (one
            // slice) reads all 128 B = 4 segments: 4 x 4 x 32 = 512 off. Rule 2.
            load(8, 128, 512, BLOCK, true, CACHE),
        ],
    );
    check(
        "block3d.cu",
        "block3d",
        Model::Sectored,
        &extra,
        &[
            // 512 B = 16 sectors = 512 on; 512 off. Rule 1.
            load(6, 512, 512, WARP, true, EQUAL),
            // 0..15: one sector, 32 on; 128 off. 32 < 128: rule 2, cache.
            load(7, 32, 128, BLOCK, true, CACHE),
            // 0..127: 4 sectors = 128 on; 512 off. Rule 2, cache.
            load(8, 128, 512, BLOCK, true, CACHE),
        ],
    );
    let run = run_driver("block3d.cu", Model::Fermi, "conservative", &extra);
    assert_eq!(block_of(&run, "block3d"), [8, 4, 4]);
}

// ---------------------------------------------------------------------------
// indirect.cu, 512-thread block. line 5: j = b[i] (int); line 6: a[j] (float).

#[test]
fn indirect() {
    let extra = ["--block-dim=512"];
    check(
        "indirect.cu",
        "indirect",
        Model::Fermi,
        &extra,
        &[
            // 512 x 4 B = 2048 B = 16 lines = 2048 on; 16 warps x 4 x 32 = 2048 off.
            // Rule 1.
            load(5, 2048, 2048, WARP, true, EQUAL),
            // Address from memory: one 128 B line per thread, 512 x 128 = 65536 on;
            // one 32 B segment per thread, 512 x 32 = 16384 off. Unknown: rule 4,
            // bypass; no locality.
            load(6, 65536, 16384, NONE, false, BYPASS),
        ],
    );
    check(
        "indirect.cu",
        "indirect",
        Model::Sectored,
        &extra,
        &[
            // 2048 B = 64 sectors = 2048 on; 2048 off. Rule 1.
            load(5, 2048, 2048, WARP, true, EQUAL),
            // One 32 B sector per thread: 512 x 32 = 16384 on; 512 x 32 = 16384 off.
            // Unknown: rule 4, bypass.
            load(6, 16384, 16384, NONE, false, BYPASS),
        ],
    );
}

// ---------------------------------------------------------------------------
// guard.cu, 256-thread block: `if (i < n) out[i] = a[i];`, a[i] float at
// line 6; n is parameter 2.

fn active_threads(run: &Run, name: &str, line: u64) -> u64 {
    unit(run, name)["loads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["line"].as_u64() == Some(line))
        .unwrap()["active_threads"]
        .as_u64()
        .unwrap()
}

#[test]
fn guard_by_name() {
    let extra = ["--block-dim=256", "--kernel-arg=n=100"];
    check(
        "guard.cu",
        "guard",
        Model::Fermi,
        &extra,
        // Threads 0..99 run: bytes 0..399 = lines 0..3 (399/128 = 3), 4 x 128 = 512
        // on. Warps 0, 1, 2 read 128 B each = 4 segments; warp 3 has threads 96..99,
        // bytes 384..399 = 1 segment; warps 4..7 nothing: 13 x 32 = 416 off.
        // on 512 > off 416: rule 3, bypass. Within-warp.
        &[load(6, 512, 416, WARP, true, BYPASS)],
    );
    check(
        "guard.cu",
        "guard",
        Model::Sectored,
        &extra,
        // bytes 0..399 = sectors 0..12 = 13 x 32 = 416 on; 416 off. Rule 1.
        &[load(6, 416, 416, WARP, true, EQUAL)],
    );
    let run = run_driver("guard.cu", Model::Fermi, "conservative", &extra);
    // 100 threads pass i < 100.
    assert_eq!(active_threads(&run, "guard", 6), 100);
}

#[test]
fn guard_by_index() {
    let extra = ["--block-dim=256", "--kernel-arg=2=64"];
    check(
        "guard.cu",
        "guard",
        Model::Fermi,
        &extra,
        // Threads 0..63: bytes 0..255 = 2 lines = 256 on; warps 0 and 1, 4 segments
        // each: 2 x 4 x 32 = 256 off. Rule 1.
        &[load(6, 256, 256, WARP, true, EQUAL)],
    );
    check(
        "guard.cu",
        "guard",
        Model::Sectored,
        &extra,
        // 0..255 = 8 sectors = 256 on; 256 off. Rule 1.
        &[load(6, 256, 256, WARP, true, EQUAL)],
    );
    let run = run_driver("guard.cu", Model::Fermi, "conservative", &extra);
    assert_eq!(active_threads(&run, "guard", 6), 64);
}

#[test]
fn guard_without_n_keeps_every_thread() {
    let extra = ["--block-dim=256"];
    check(
        "guard.cu",
        "guard",
        Model::Fermi,
        &extra,
        // n unknown: all 256 threads assumed to run; 1024 B = 8 lines = 1024 on;
        // 8 warps x 4 x 32 = 1024 off. Rule 1.
        &[load(6, 1024, 1024, WARP, true, EQUAL)],
    );
    check(
        "guard.cu",
        "guard",
        Model::Sectored,
        &extra,
        // 32 sectors = 1024 on; 1024 off. Rule 1.
        &[load(6, 1024, 1024, WARP, true, EQUAL)],
    );
    let run = run_driver("guard.cu", Model::Fermi, "conservative", &extra);
    assert_eq!(active_threads(&run, "guard", 6), 256);
    let notes = strs(&unit(&run, "guard")["loads"][0]["notes"]);
    assert!(
        notes.iter().any(|n| n.contains("kernel argument n")),
        "{notes:?}"
    );
}

// ---------------------------------------------------------------------------
// loop.cu, 256-thread block, loops kept rolled (#pragma unroll 1).
// line 9:  a[k*blockDim.x*gridDim.x + i], k = 0..3 (first iteration: a[i]);
// line 12: b[k*8 + i], k = 1..4 (first iteration: b[8 + i], 32 B in).

/// Line 9 and line 12 at their first iterations.
fn loop_expected(model: Model) -> [Load; 2] {
    match model {
        Model::Fermi => [
            // k = 0: a[i], 256 x 4 = 1024 B = 8 lines = 1024 on; 8 warps x 4 x 32 =
            // 1024 off. Rule 1.
            load(9, 1024, 1024, WARP, true, EQUAL),
            // k = 1: bytes 32..1055 = lines 0..8 (1055/128 = 8), 9 x 128 = 1152 on.
            // Warp w: bytes 32+128w .. 159+128w = segments 1+4w .. 4+4w, 4 segments:
            // 8 x 4 x 32 = 1024 off. 1152 > 1024: rule 3, bypass.
            load(12, 1152, 1024, WARP, true, BYPASS),
        ],
        Model::Sectored => [
            // 32 sectors = 1024 on; 1024 off. Rule 1.
            load(9, 1024, 1024, WARP, true, EQUAL),
            // bytes 32..1055 = sectors 1..32, 32 x 32 = 1024 on; 1024 off. Rule 1.
            load(12, 1024, 1024, WARP, true, EQUAL),
        ],
    }
}

#[test]
fn loop_first_iteration_decides() {
    // With the grid given every term of the address is known.
    let extra = ["--block-dim=256", "--grid-dim=64"];
    for model in [Model::Fermi, Model::Sectored] {
        check("loop.cu", "loop", model, &extra, &loop_expected(model));
    }
}

#[test]
fn loop_first_iteration_needs_no_grid() {
    // At k = 0 the term k*blockDim.x*gridDim.x is 0 whatever gridDim.x is, so
    // the first iteration is a[i] without --grid-dim too.
    let extra = ["--block-dim=256"];
    for model in [Model::Fermi, Model::Sectored] {
        check("loop.cu", "loop", model, &extra, &loop_expected(model));
    }
}

// ---------------------------------------------------------------------------
// unrolled.cu, 256-thread block: #pragma unroll, a[k*8 + i] for k = 0..3, four
// float loads on line 9 at 0, 32, 64 and 96 bytes past a[i].

#[test]
fn unrolled_loop() {
    let extra = ["--block-dim=256"];
    check(
        "unrolled.cu",
        "unrolled",
        Model::Fermi,
        &extra,
        &[
            // k = 0: bytes 0..1023 = 8 lines = 1024 on; 8 warps x 4 x 32 = 1024 off.
            // Rule 1.
            load(9, 1024, 1024, WARP, true, EQUAL),
            // k = 1: bytes 32..1055 = lines 0..8 = 1152 on; each warp 128 B from
            // 32+128w = segments 1+4w..4+4w = 4: 1024 off. Rule 3, bypass.
            load(9, 1152, 1024, WARP, true, BYPASS),
            // k = 2: bytes 64..1087 = lines 0..8 (1087/128 = 8) = 1152 on; warp
            // 64+128w..191+128w = segments 2+4w..5+4w = 4: 1024 off. Rule 3.
            load(9, 1152, 1024, WARP, true, BYPASS),
            // k = 3: bytes 96..1119 = lines 0..8 (1119/128 = 8) = 1152 on; warp
            // 96+128w..223+128w = segments 3+4w..6+4w = 4: 1024 off. Rule 3.
            load(9, 1152, 1024, WARP, true, BYPASS),
        ],
    );
    check(
        "unrolled.cu",
        "unrolled",
        Model::Sectored,
        &extra,
        &[
            // k = 0: sectors 0..31 = 1024 on; 1024 off. Rule 1.
            load(9, 1024, 1024, WARP, true, EQUAL),
            // k = 1: sectors 1..32 = 32 x 32 = 1024 on; 1024 off. Rule 1.
            load(9, 1024, 1024, WARP, true, EQUAL),
            // k = 2: sectors 2..33 = 1024 on; 1024 off. Rule 1.
            load(9, 1024, 1024, WARP, true, EQUAL),
            // k = 3: sectors 3..34 = 1024 on; 1024 off. Rule 1.
            load(9, 1024, 1024, WARP, true, EQUAL),
        ],
    );
}

// ---------------------------------------------------------------------------
// noinline.cu, 256-thread block. Two __noinline__ device functions, each
// analysed with its caller's block:
// line 5: get(p, i) = p[i], i an argument of the device function (unknown);
// line 7: row(p) = p[threadIdx.x % 16].

fn noinline_expected(model: Model) -> ([Load; 1], [Load; 1]) {
    match model {
        Model::Fermi => (
            // Unknown: 256 threads x 128 = 32768 on; 256 x 32 = 8192 off. Rule 4.
            [load(5, 32768, 8192, NONE, false, BYPASS)],
            // As mod16.cu: 1 line = 128 on; 8 warps x 2 x 32 = 512 off. Rule 2.
            [load(7, 128, 512, BLOCK, true, CACHE)],
        ),
        Model::Sectored => (
            // Unknown: 256 x 32 = 8192 on; 256 x 32 = 8192 off. Rule 4.
            [load(5, 8192, 8192, NONE, false, BYPASS)],
            // 2 sectors = 64 on; 512 off. Rule 2.
            [load(7, 64, 512, BLOCK, true, CACHE)],
        ),
    }
}

#[test]
fn noinline_device_functions() {
    let extra = ["--block-dim=256"];
    for model in [Model::Fermi, Model::Sectored] {
        let (get, row) = noinline_expected(model);
        for policy in POLICIES {
            let run = run_driver("noinline.cu", model, policy, &extra);
            assert!(
                unit(&run, "noinline_kernel")["loads"]
                    .as_array()
                    .unwrap()
                    .is_empty(),
                "{}: the kernel itself has no global load",
                run.what
            );
            for (name, expected) in [("get", &get), ("row", &row)] {
                assert_eq!(unit(&run, name)["kind"], "device function", "{}", run.what);
                assert_eq!(block_of(&run, name), [256, 1, 1], "{}", run.what);
                assert_eq!(
                    unit(&run, name)["block_dim_source"],
                    "user, of its caller noinline_kernel",
                    "{}",
                    run.what
                );
                check_loads(&run, name, policy, "", expected);
            }
            // Both pointers are device functions' parameters, so the backend
            // writes generic loads: get's is bypassed (`ld.L1::no_allocate.f32`),
            // row's is cached, which on sm_90 is the plain `ld.f32`.
            let (b, g, generic) = ptx_loads(&run.ptx);
            assert_eq!((b, g + generic), (1, 1), "{}:\n{}", run.what, run.ptx);
        }
        // Under `auto` the kernel-level model follows both calls into the
        // kernel's trace (issue 19), with get's index bound to the caller's
        // i: one SM's 8 blocks of 256 threads. get reads a[i], 2,048 floats
        // once each: 8,192 B either way. row reads b[tid % 16], 64 B (two
        // sectors): cached, once for the SM; bypassed, every one of the 64
        // warps fetches both sectors, 4,096 B. cache-all 8,256 B,
        // cache-none 12,288 B: both cached, with either per-load model (the
        // kernel model is sm_90's), and no load of the PTX bypasses. Under
        // the paper's rules alone (no kernel-level model, before) get was
        // bypassed on the Fermi model.
        let run = run_driver("noinline.cu", model, "auto", &extra);
        let decisions: Vec<String> = ["get", "row"]
            .iter()
            .map(|n| {
                unit(&run, n)["loads"][0]["decision"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(decisions, ["cache", "cache"], "{}", run.what);
        let reason = unit(&run, "get")["loads"][0]["reason"].as_str().unwrap();
        assert!(
            reason.starts_with("auto, followed from kernel noinline_kernel("),
            "{}: {reason}",
            run.what
        );
        let simulated = &unit(&run, "noinline_kernel")["simulated"];
        assert_eq!(
            strs(&simulated["followed_calls"]),
            ["get(float const*, int)", "row(float const*)"],
            "{}",
            run.what
        );
        let bytes = &simulated["traffic_bytes"];
        assert_eq!(
            (&bytes["cache_all"], &bytes["cache_none"], &bytes["auto"]),
            (&8256.into(), &12288.into(), &8256.into()),
            "{}",
            run.what
        );
        let (b, g, generic) = ptx_loads(&run.ptx);
        assert_eq!((b, g + generic), (0, 2), "{}:\n{}", run.what, run.ptx);
    }
}

// ---------------------------------------------------------------------------
// shared_tile.cu, 256-thread block: line 7 tile[tid] = a[i] (global float);
// line 9 tile[255 - tid] (shared, left alone).

#[test]
fn shared_tile_global_load() {
    let extra = ["--block-dim=256"];
    // a[i]: 1024 B = 8 lines = 1024 on; 8 x 4 x 32 = 1024 off. Rule 1.
    check(
        "shared_tile.cu",
        "shared_tile",
        Model::Fermi,
        &extra,
        &[load(7, 1024, 1024, WARP, true, EQUAL)],
    );
    // 32 sectors = 1024 on; 1024 off. Rule 1.
    check(
        "shared_tile.cu",
        "shared_tile",
        Model::Sectored,
        &extra,
        &[load(7, 1024, 1024, WARP, true, EQUAL)],
    );
}

#[test]
fn shared_tile_load_is_skipped_as_shared() {
    let run = run_driver(
        "shared_tile.cu",
        Model::Fermi,
        "conservative",
        &["--block-dim=256"],
    );
    let entry = unit(&run, "shared_tile");
    let skipped = entry["skipped"].as_array().unwrap();
    assert!(
        entry["loads"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["line"].as_u64() != Some(9)),
        "{}: the shared load is not a global load:\n{entry:#}",
        run.what
    );
    assert_eq!(skipped.len(), 1, "{}:\n{entry:#}", run.what);
    assert_eq!(
        skipped[0]["line"].as_u64(),
        Some(9),
        "{}:\n{entry:#}",
        run.what
    );
    assert_eq!(
        skipped[0]["why"], "shared memory",
        "{}:\n{entry:#}",
        run.what
    );
    assert!(
        run.ptx.contains("ld.shared.f32"),
        "{}:\n{}",
        run.what,
        run.ptx
    );
}

// ---------------------------------------------------------------------------
// uniform.cu, 256-thread block: block-uniform unknowns are symbolic bases
// (issue 6 §4). A value read from a block-uniform address (line 10's
// `offsets[blockIdx.x]`) or an integer argument nobody gave that only adds
// to the address (line 15's `blockIdx.y * n`) shifts the block's footprint;
// taken as 256-byte aligned, the 256 floats are 1024 contiguous bytes. An
// unknown that multiplies the thread id (line 19's `threadIdx.x * n`) or a
// value each thread reads at its own address (line 27's `idx[threadIdx.x]`),
// or from a volatile location (line 31), stays unknown.

/// The notes of the loads of `kernel` on `line`, joined.
fn notes_at(run: &Run, kernel: &str, line: u64) -> String {
    unit(run, kernel)["loads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["line"].as_u64() == Some(line))
        .flat_map(|l| strs(&l["notes"]))
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn block_uniform_values() {
    for model in [Model::Fermi, Model::Sectored] {
        // Contiguous 1024 B: fermi 8 lines x 128 = 1024 on, 32 segments x 32
        // = 1024 off; sectored 32 sectors x 32 both ways. Rule 1.
        let shifted = |line| load(line, 1024, 1024, WARP, true, EQUAL);
        // Unknown per thread: fermi a 128 B line on and a 32 B segment off
        // per thread (256 x 128 = 32768, 256 x 32 = 8192); sectored a 32 B
        // sector both ways (8192, 8192). Rule 4.
        let unknown = |line| match model {
            Model::Fermi => load(line, 32768, 8192, NONE, false, BYPASS),
            Model::Sectored => load(line, 8192, 8192, NONE, false, BYPASS),
        };
        // One address for the whole block: one line (fermi 128 B) or sector
        // (32 B) on; a 32 B segment per warp off, 8 x 32 = 256. Rule 2.
        let one = match model {
            Model::Fermi => load(9, 128, 256, BLOCK, true, CACHE),
            Model::Sectored => load(9, 32, 256, BLOCK, true, CACHE),
        };
        for policy in POLICIES {
            let run = run_driver("uniform.cu", model, policy, &["--block-dim=256"]);
            check_loads(&run, "segment", policy, "global", &[one, shifted(10)]);
            check_loads(&run, "row_of", policy, "global", &[shifted(15)]);
            check_loads(&run, "stride_of", policy, "global", &[unknown(19)]);
            check_loads(
                &run,
                "per_thread",
                policy,
                "global",
                &[shifted(27), unknown(27)],
            );
            check_loads(&run, "flag", policy, "global", &[unknown(31)]);
            let what = &run.what;
            let n = notes_at(&run, "segment", 10);
            assert!(
                n.contains("block-uniform [offsets + 4*ctaid.x] only shifts"),
                "{what}: {n}"
            );
            let n = notes_at(&run, "row_of", 15);
            assert!(
                n.contains("block-uniform n only shifts") && n.contains("--kernel-arg=n=VALUE"),
                "{what}: {n}"
            );
            let n = notes_at(&run, "stride_of", 19);
            assert!(
                n.contains("varies per thread with kernel argument n"),
                "{what}: {n}"
            );
        }
    }
    // Given, the argument is a number again: `n=64` puts block (0, 0) at 0.
    let run = run_driver(
        "uniform.cu",
        Model::Sectored,
        "conservative",
        &["--block-dim=256", "--kernel-arg=n=64"],
    );
    check_loads(
        &run,
        "row_of",
        "conservative",
        "global",
        &[load(15, 1024, 1024, WARP, true, EQUAL)],
    );
    assert_eq!(notes_at(&run, "row_of", 15), "");
    // n=8: thread t reads 32*t, one sector per thread and no two threads in
    // one sector (no locality): 256 x 32 on and off. Rule 1.
    let run = run_driver(
        "uniform.cu",
        Model::Sectored,
        "conservative",
        &["--block-dim=256", "--kernel-arg=n=8"],
    );
    check_loads(
        &run,
        "stride_of",
        "conservative",
        "global",
        &[load(19, 8192, 8192, NONE, true, EQUAL)],
    );
}

// ---------------------------------------------------------------------------
// device_global.cu, 256-thread block: line 8 reads `table[threadIdx.x]` of a
// `__device__ float` array (IR `align 4`), placed at 4 bytes past a 256-byte
// boundary: bytes 4..1027 of its window.

#[test]
fn device_globals_at_their_own_alignment() {
    let extra = ["--block-dim=256"];
    // Fermi: lines 0..8 = 9 x 128 = 1152 on; off, each warp's 128 bytes
    // (4+128w .. 131+128w) touch 5 segments: 8 x 5 x 32 = 1280. Lines shared
    // by two warps: within-block. Rule 2: cache.
    check(
        "device_global.cu",
        "read_table",
        Model::Fermi,
        &extra,
        &[load(8, 1152, 1280, BLOCK, true, CACHE)],
    );
    // Sectored: sectors 0..32 = 33 x 32 = 1056 on; 1280 off as above.
    check(
        "device_global.cu",
        "read_table",
        Model::Sectored,
        &extra,
        &[load(8, 1056, 1280, BLOCK, true, CACHE)],
    );
}

// ---------------------------------------------------------------------------
// Capacity: --l1-size changes the rules' outcome.

#[test]
fn capacity_override() {
    // mod16.cu under fermi with 64 B of L1: on 128 < off 512 but 128 > 64:
    // rule 2 thrash, bypass under both policies.
    check(
        "mod16.cu",
        "mod16",
        Model::Fermi,
        &["--block-dim=256", "--l1-size=64"],
        &[load(5, 128, 512, BLOCK, true, BYPASS)],
    );
    // coalesced.cu under fermi with 1 KiB: line 6 on = off = 2048 > 1024 and
    // line 8 4096 > 1024: rule 1 with no room, bypass even when aggressive.
    for policy in POLICIES {
        let run = run_driver(
            "coalesced.cu",
            Model::Fermi,
            policy,
            &["--block-dim=512", "--l1-size=1024"],
        );
        assert_eq!(run.report["l1_bytes"].as_u64(), Some(1024));
        let expected = [
            load(6, 2048, 2048, WARP, true, BYPASS),
            load(8, 4096, 4096, WARP, true, BYPASS),
        ];
        check_loads(&run, "coalesced", policy, "global", &expected);
        check_ptx(&run, &expected, policy);
    }
}

// ---------------------------------------------------------------------------
// The text report of one kernel file, reviewed by hand.

#[test]
fn text_report_block2d() {
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("report.txt");
    let ptx = dir.path().join("out.ptx");
    let input = common::testdata("cu/analysis/block2d.cu");
    let args = [
        input.to_str().unwrap().to_string(),
        format!("--cuda-gpu-arch={ARCH}"),
        "--cache-model=fermi".into(),
        "--cache-policy=conservative".into(),
        "--block-dim=16x16".into(),
        "--cache-report=text".into(),
        format!("--cache-report-file={}", txt.display()),
        "-o".into(),
        ptx.to_str().unwrap().into(),
    ];
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, _, err) = common::gpucc(&a);
    assert!(ok, "gpucc-cache {a:?} failed:\n{err}");
    let text = std::fs::read_to_string(&txt).unwrap();
    assert!(!text.contains(input.to_str().unwrap()));
    insta::assert_snapshot!("analysis_block2d_fermi_conservative_text", text);
}

// ---------------------------------------------------------------------------
// --sample-blocks: the mean over blocks spread over the grid.

#[test]
fn sampled_blocks_average_a_partial_grid() {
    // guard.cu, 256-thread blocks, grid of 4, n = 640, all 4 blocks sampled.
    let extra = [
        "--block-dim=256",
        "--grid-dim=4",
        "--kernel-arg=n=640",
        "--sample-blocks=4",
    ];
    let run = run_driver("guard.cu", Model::Sectored, "conservative", &extra);
    let entry = unit(&run, "guard");
    assert_eq!(entry["sampled_blocks"], 4, "{entry:#}");
    let l = &entry["loads"][0];
    // Block 0: i = 0..255 all run, 1024 contiguous bytes = 32 sectors: 1024 on;
    //   8 warps x 4 segments x 32 = 1024 off. Block 1: i = 256..511 < 640, the same.
    // Block 2: i = 512..767, only 512..639 run: 512 bytes = 16 sectors = 512 on;
    //   warps 0..3 x 4 segments x 32 = 512 off. Block 3: i >= 768, nobody runs: 0, 0.
    // Mean: on (1024 + 1024 + 512 + 0) / 4 = 640; off the same: rule 1, bypass.
    // Threads: (256 + 256 + 128 + 0) / 4 = 160.
    assert_eq!(l["traffic_on_bytes"], 640, "{l:#}");
    assert_eq!(l["traffic_off_bytes"], 640, "{l:#}");
    assert_eq!(l["active_threads"], 160, "{l:#}");
    assert_eq!(l["decision"], "bypass", "{l:#}");
}
