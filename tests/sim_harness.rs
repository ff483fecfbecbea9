//! `scripts/sim-validate`, the GPGPU-Sim harness, without the simulator:
//! its log parser on stored logs of real runs, and its refusals. The
//! simulator runs themselves are benchmarks (`bench/sim/`), not tests.
//!
//! The logs are GPGPU-Sim 4.2 (patched by scripts/setup-sim) running
//! `testdata/programs/checksum.cu` built with `--cache-policy=cache-all`
//! (QV100: sm_70; GTX480: sm_52). Every expected number below was read off
//! the log by hand (`zcat LOG | grep -n ...`), with the lines quoted: the
//! simulator prints its counters cumulatively, the L1 ones once per stream,
//! so a launch's figure is a difference of sums.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;

fn harness() -> Command {
    let mut c = Command::new("python3");
    c.arg(common::root().join("scripts/sim-validate"));
    c
}

fn parse(log: &str) -> Vec<Value> {
    parsed("--parse-log", log)
}

/// The launches the harness prints for `flag=testdata/FILE`.
fn parsed(flag: &str, file: &str) -> Vec<Value> {
    let mut c = harness();
    c.arg(format!("{flag}={}", common::testdata(file).display()));
    let v = json_of(c);
    v.as_array().expect("a list of launches").clone()
}

/// What Python `code` prints, as JSON, run with the script at `path` (under
/// the project root) imported as module `alias`.
fn python_with(path: &str, alias: &str, code: &str) -> Value {
    let import = format!(
        "import importlib.machinery, importlib.util, json, sys\n\
         loader = importlib.machinery.SourceFileLoader({alias:?}, sys.argv[1])\n\
         {alias} = importlib.util.module_from_spec(importlib.util.spec_from_loader({alias:?}, loader))\n\
         loader.exec_module({alias})\n"
    );
    let mut c = Command::new("python3");
    c.args(["-c", &format!("{import}{code}")])
        .arg(common::root().join(path));
    json_of(c)
}

/// What `command` prints, as JSON; it must succeed.
fn json_of(mut command: Command) -> Value {
    let out = command.output().expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on standard output")
}

fn l1(launch: &Value) -> [u64; 5] {
    let c = &launch["l1_global_loads"];
    ["hits", "misses", "sector_misses", "mshr_hits", "accesses"]
        .map(|k| c[k].as_u64().unwrap_or_else(|| panic!("{k} in {c}")))
}

#[test]
fn qv100_log_parses_into_per_launch_fields() {
    let l = parse("sim-logs/checksum-QV100-cache-all.log.gz");
    let names: Vec<&str> = l.iter().map(|k| k["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "_Z7advanceP8Particleif",
            "_Z6smoothPKfPfii",
            "_Z5shadePK6float4PKfPfii",
            "_Z9histogramPKfPji"
        ]
    );
    assert!(l.iter().all(|k| k["launch"] == 1));
    // 393: gpu_sim_cycle = 1190; 3435: = 1799; 6478: = 1981; 9575: = 16568.
    let cycles: Vec<u64> = l.iter().map(|k| k["cycles"].as_u64().unwrap()).collect();
    assert_eq!(cycles, [1190, 1799, 1981, 16568]);
    // 306: gridDim= (128,1,1) blockDim = (128,1,1); 3364: (8,8,1) (16,16,1).
    assert_eq!(l[0]["grid"], serde_json::json!([128, 1, 1]));
    assert_eq!(l[1]["grid"], serde_json::json!([8, 8, 1]));
    assert_eq!(l[1]["block"], serde_json::json!([16, 16, 1]));
    // 519-585: HIT 16384, MISS 2048, SECTOR_MISS 6144, MSHR_HIT 8192,
    // TOTAL_ACCESS 32768 (the first stream's block, the only one yet).
    assert_eq!(l1(&l[0]), [16384, 2048, 6144, 8192, 32768]);
    // 3561-3627, the same stream grown: 16672-16384, 3952-2048, 8304-6144,
    // 8192-8192, 37120-32768.
    assert_eq!(l1(&l[1]), [288, 1904, 2160, 0, 4352]);
    // 6604-6738: the first stream unchanged, a second stream's block
    // 14896, 2112, 6336, 1232, 24576 is all of shade's.
    assert_eq!(l1(&l[2]), [14896, 2112, 6336, 1232, 24576]);
    // 9839-9903: a third block, MISS 512, SECTOR_MISS 1536, TOTAL 2048.
    assert_eq!(l1(&l[3]), [0, 512, 1536, 0, 2048]);
    // traffic_breakdown_memtocore[GLOBAL_ACC_R] packets of 40 bytes (32 of
    // data and an 8-byte header): 628: {40:8192}, 3670: {40:12256},
    // 6781: {40:20704}, 9945: {40:22752}.
    let bytes: Vec<u64> = l
        .iter()
        .map(|k| k["l2_to_l1_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(
        bytes,
        [
            8192 * 32,
            (12256 - 8192) * 32,
            (20704 - 12256) * 32,
            (22752 - 20704) * 32
        ]
    );
}

#[test]
fn gtx480_log_parses_into_per_launch_fields() {
    let l = parse("sim-logs/checksum-GTX480-cache-all.log.gz");
    assert_eq!(l.len(), 4);
    // 343: gpu_sim_cycle = 6688; 1241: = 3847.
    assert_eq!(l[0]["cycles"], 6688);
    assert_eq!(l[1]["cycles"], 3847);
    // 406-472: HIT 31, MISS 4096, no SECTOR_MISS line (a non-sectored L1
    // prints 0), MSHR_HIT 4065, TOTAL_ACCESS 8192.
    assert_eq!(l1(&l[0]), [31, 4096, 0, 4065, 8192]);
    // 1304-1370: 1173-31, 6154-4096, 4065-4065, 11392-8192.
    assert_eq!(l1(&l[1]), [1142, 2058, 0, 0, 3200]);
    // 521: {40:16384}; 1421: {40:24616}.
    assert_eq!(l[0]["l2_to_l1_bytes"], 16384 * 32);
    assert_eq!(l[1]["l2_to_l1_bytes"], (24616 - 16384) * 32);
    // 2121 and 2155: two kernels pushed before shade's statistics; each
    // launch still gets its own grid.
    assert_eq!(l[2]["name"], "_Z5shadePK6float4PKfPfii");
    assert_eq!(l[2]["grid"], serde_json::json!([64, 1, 1]));
}

fn refusal(args: &[&str], sim_dir: &Path) -> String {
    let out = harness()
        .args(args)
        .env("GPUCC_SIM_DIR", sim_dir)
        .env("GPUCC_CACHE", common::driver())
        .output()
        .expect("python3 runs");
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(out.stdout.is_empty());
    err
}

/// An Nsight Compute round from the H200 (`bench/device/raw/h200-run2.tgz`,
/// `results/auto/bfs.1.csv`): `bfs_level`'s eight launches, one row per
/// metric. Launch 0's rows read gpc__cycles_elapsed.max "9,879",
/// lts__t_sectors_srcunit_tex_op_read.sum "20,956" (x 32 = 670,592 B),
/// l1tex ... ld.sum "43,195", lookup_hit "21,829", lookup_miss "21,366",
/// launch__grid_size "64".
#[test]
fn nsight_compute_csv_parses_into_per_launch_fields() {
    let launches = parsed("--parse-ncu", "device/bfs_auto.ncu.csv");
    assert_eq!(launches.len(), 8);
    let first = &launches[0];
    assert_eq!(first["name"], "_Z9bfs_levelPKiS0_PiiiS1_");
    assert_eq!(first["launch"], 1);
    assert_eq!(first["cycles"], 9879.0);
    assert_eq!(first["l2_to_l1_bytes"], 670_592);
    assert_eq!(first["grid"], serde_json::json!([64, 1, 1]));
    let l1 = &first["l1_global_loads"];
    assert_eq!(
        (
            l1["accesses"].as_u64(),
            l1["hits"].as_u64(),
            l1["misses"].as_u64()
        ),
        (Some(43_195), Some(21_829), Some(21_366))
    );
    assert_eq!(launches[7]["launch"], 8);
}

#[test]
fn refusals_are_one_line_and_name_the_fix() {
    let empty = tempfile::tempdir().unwrap();
    let app = common::testdata("programs/checksum.cu");
    let app = app.to_str().unwrap();
    let e = refusal(&[app], empty.path());
    assert!(
        e.contains("not set up") && e.contains("scripts/setup-sim"),
        "{e}"
    );
    let e = refusal(&["--config=K80", app], empty.path());
    assert!(e.contains("--config=K80") && e.contains("QV100"), "{e}");
    let e = refusal(&["--policies=auto,fast", app], empty.path());
    assert!(e.contains("fast") && e.contains("cache-none"), "{e}");
    let e = refusal(&["missing.cu"], empty.path());
    assert!(e.contains("missing.cu: no such file"), "{e}");
    // Another tool's CSV, and a text with no CSV at all.
    for other in ["device/other_tool.csv", "programs/checksum.cu"] {
        let path = common::testdata(other);
        let e = refusal(&[&format!("--parse-ncu={}", path.display())], empty.path());
        assert!(
            e.contains("not an Nsight Compute --csv log"),
            "{other}: {e}"
        );
    }
    let e = refusal(&["--parse-log=missing.log"], empty.path());
    assert!(e.contains("missing.log: no such file"), "{e}");
}

/// The oracle forces one kernel's assignment at a time, every other kernel
/// as `auto` decides it, and takes `auto`'s own assignment from the auto
/// run (so that an assignment and `auto` are measured in the same program,
/// not beside other kernels' forced choices). Two kernels: K with sites 0
/// and 1 (auto: site 0 bypass, site 1 cached but for one copy no thread
/// ran, left `default`, so its own assignment is a = 0b10 = 2; site 2 is
/// undecided, no bit), L with site 4 (auto: cached, a = 1). Expected: K's
/// assignments 0, 1, 3 and L's 0 are built, each naming its own kernel
/// only; K's a = 2 and L's a = 1 are not. In the summary, K's cycles come
/// from its own runs (1000, 900, auto's 800, 950: best 800 by `auto`'s
/// assignment, share 1.0 against the switch's 1000), never from L's.
#[test]
fn oracle_forces_one_kernel_at_a_time() {
    let code = r#"
report = {"kernels": [
    {"symbol": "K", "loads": [{"site": 0, "decision": "bypass"}, {"site": 1, "decision": "cache"},
                              {"site": 1, "decision": "cache"}, {"site": 1, "decision": "default"},
                              {"site": 2, "decision": "default"}]},
    {"symbol": "L", "loads": [{"site": 4, "decision": "cache"}]}]}
eligible = sv.decided_loads(report, 3)
builds = [(s, a, b.decisions, own) for s, a, b, own in sv.oracle_builds(eligible, report)]
def run(policy, k, l, **extra):
    kernels = [{"name": "K", "cycles": k, "l2_to_l1_bytes": 10 * k}, {"name": "L", "cycles": l, "l2_to_l1_bytes": l}]
    return dict({"policy": policy, "exit": 0, "kernels": kernels}, **extra)
runs = [run("cache-all", 1000, 500), run("cache-none", 1100, 450), run("auto", 800, 470)]
forced = [run("f", 1000, 1, kernel="K", assignment=0), run("f", 900, 2, kernel="K", assignment=1),
          run("auto", 800, 470, kernel="K", assignment=2), run("f", 950, 3, kernel="K", assignment=3),
          run("f", 5, 460, kernel="L", assignment=0), run("auto", 800, 470, kernel="L", assignment=1)]
summary = {k["name"]: k["cycles"] for k in sv.oracle_summary(eligible, forced, runs)}
print(json.dumps({"eligible": eligible, "builds": builds, "summary": summary}))
"#;
    let v = python_with("scripts/sim-validate", "sv", code);
    assert_eq!(v["eligible"], serde_json::json!({"K": [0, 1], "L": [4]}));
    let builds: Vec<(String, u64, String, bool)> = v["builds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b[0].as_str().unwrap().to_string(),
                b[1].as_u64().unwrap(),
                b[2].as_str().unwrap().to_string(),
                b[3].as_bool().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("K", 0, "K 0 bypass\nK 1 bypass\n", false),
        ("K", 1, "K 0 cache\nK 1 bypass\n", false),
        ("K", 2, "K 0 bypass\nK 1 cache\n", true),
        ("K", 3, "K 0 cache\nK 1 cache\n", false),
        ("L", 0, "L 4 bypass\n", false),
        ("L", 1, "L 4 cache\n", true),
    ];
    assert_eq!(builds.len(), expected.len());
    for (got, want) in builds.iter().zip(expected) {
        assert_eq!(
            (got.0.as_str(), got.1, got.2.as_str(), got.3),
            want,
            "{builds:?}"
        );
    }
    let k = &v["summary"]["K"];
    assert_eq!(k["best"], 800);
    assert_eq!(
        k["best_assignment"],
        serde_json::json!({"0": "bypass", "1": "cache"})
    );
    assert_eq!(k["better_switch"], 1000);
    assert_eq!(k["share_of_oracle_gain"]["auto"], 1.0);
    assert_eq!(k["share_of_oracle_gain"]["cache-none"], -0.5);
    // L: best 460 (bypass, its own forced run), switch min(500, 450) = 450:
    // no gain over the switch, so no share.
    let l = &v["summary"]["L"];
    assert_eq!(l["best"], 460);
    assert_eq!(l["better_switch"], 450);
    assert_eq!(l["share_of_oracle_gain"]["auto"], Value::Null);
}

/// `bench/sim/summarize`'s per-kernel oracle figures from the forced runs:
/// kernel K (2 loads, 2 launches in the cache-all run) has forced runs for
/// assignments 0..3; assignment 1's run ran K once (a failed launch) and
/// does not count, assignment 2's has no byte figure and does not count:
/// points (0, 1000 cycles, 50 bytes) and (3, 900, 40), and no in-context
/// figures, since two assignments are missing. Within the byte goal of 40
/// bytes (1.02 x 40 = 40.8): only assignment 3, 900. With all four
/// assignments, (0, 1000, 50), (1, 980, 60), (2, 870, 45), (3, 900, 40),
/// in one context: switch = min(1000, 900) = 900, best 870, within the
/// byte goal (the switches' fewest bytes, 40) 900, auto (the oracle
/// summary's) 950. A file whose runs lack `kernel` gives no figures.
#[test]
fn summarize_counts_only_whole_forced_runs() {
    let code = r#"
def launch(c, b):
    return {"name": "K", "cycles": c, "l2_to_l1_bytes": b}
def run(a, launches):
    return {"policy": f"forced-{a}", "exit": 0, "kernel": "K", "assignment": a, "kernels": launches}
result = {
    "runs": [{"policy": "cache-all", "exit": 0, "kernels": [launch(1, 1), launch(1, 1)]}],
    "oracle": {"runs": [run(0, [launch(500, 25), launch(500, 25)]), run(1, [launch(100, 1)]),
                        run(2, [launch(100, None), launch(100, 1)]), run(3, [launch(450, 20), launch(450, 20)])]}}
k = {"name": "K", "loads": 2, "cycles": {"policies": {"auto": 950}}}
points = sm.oracle_points(result, k)
old = json.loads(json.dumps(result))
del old["oracle"]["runs"][0]["kernel"]
full = [(0, 1000, 50), (1, 980, 60), (2, 870, 45), (3, 900, 40)]
print(json.dumps({"points": points, "context": sm.in_context(points, k),
                  "within": sm.best_within_bytes(points, 40), "old": sm.oracle_points(old, k),
                  "full": sm.in_context(full, k)}))
"#;
    let v = python_with("bench/sim/summarize", "sm", code);
    assert_eq!(
        v["points"],
        serde_json::json!([[0, 1000, 50], [3, 900, 40]])
    );
    // Assignments 1 and 2 are missing, so no in-context figures.
    assert_eq!(v["context"], Value::Null);
    assert_eq!(v["within"], 900);
    assert_eq!(v["old"], Value::Null);
    assert_eq!(v["full"], serde_json::json!([900, 870, 900, 950]));
}

#[test]
fn launches_the_model_walked_apart_are_predicted_apart() {
    // K: nominal launch (line 10) and two others (lines 30, 20) in the
    // report; three simulated launches: matched in line order (10, 20,
    // 30). L: one other launch but three simulated (a loop): all nominal.
    let code = r#"
other = lambda line, bytes, blocks: {"line": line, "blocks": blocks,
    "traffic_bytes": {"cache_all": bytes, "decided": bytes}}
model = {"K": {"block_dim": [128, 1, 1], "simulated": {"blocks": 2,
             "traffic_bytes": {"cache_all": 1000, "decided": 1000},
             "other_launches": [other(30, 300, 1), other(20, 200, 4)]}},
         "L": {"block_dim": [128, 1, 1], "simulated": {"blocks": 2,
             "traffic_bytes": {"cache_all": 50, "decided": 50},
             "other_launches": [other(40, 7, 1)]}}}
launch = lambda name, grid: {"name": name, "grid": [grid, 1, 1], "block": [128, 1, 1]}
entry = {"policy": "cache-all", "kernels": [launch("K", 4), launch("L", 2), launch("K", 8),
         launch("L", 2), launch("K", 2), launch("L", 2)]}
sv.add_predictions(entry, None, model)
print(json.dumps([l["predicted_l2_to_l1_bytes"] for l in entry["kernels"]]))
"#;
    let v = python_with("scripts/sim-validate", "sv", code);
    // K: 1000 B for 2 blocks scaled to 4 = 2000; line 20's 200 B for 4
    // blocks scaled to 8 = 400; line 30's 300 B for 1 block scaled to 2 =
    // 600. L: 50 B for 2 blocks, at 2 blocks each time = 50.
    assert_eq!(v, serde_json::json!([2000, 50, 400, 50, 600, 50]));
}
