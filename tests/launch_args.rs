//! Kernel arguments from the host launches: the driver reads each launch's
//! integer arguments from clang's host IR (builds, `-c`), and a kernel's
//! argument takes the constant every launch of it passes, unless the user's
//! `--kernel-arg` gives one. Input: `testdata/launch_args/launch_args.cu`,
//! whose kernels are each launched `<<<32, 128>>>` (lines 36 to 40).

mod common;

use common::{gpucc_to, testdata};
use serde_json::Value;

/// The JSON report of building `launch_args.cu` for sm_70 with `--kernel-arg=step=8`.
fn report() -> Value {
    build_report("launch_args.cu", &["--kernel-arg=step=8"])
}

/// The JSON report of building `testdata/launch_args/FILE` for sm_70 with
/// `-c` (so the driver reads clang's host IR) and `extra` flags.
fn build_report(file: &str, extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut flags = vec![
        "-c".to_string(),
        "--cache-report=json".to_string(),
        format!("--cache-report-file={}", json.display()),
    ];
    flags.extend(extra.iter().map(|s| s.to_string()));
    let f: Vec<&str> = flags.iter().map(String::as_str).collect();
    let cu = testdata(&format!("launch_args/{file}"));
    let (ok, err) = gpucc_to(&cu, "sm_70", &dir.path().join("a.o"), &f);
    assert!(ok, "{err}");
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// The one global load of kernel `name`.
fn load<'a>(report: &'a Value, name: &str) -> &'a Value {
    let kernel = (report["kernels"].as_array().unwrap().iter())
        .find(|k| k["name"].as_str().unwrap().starts_with(&format!("{name}(")))
        .unwrap_or_else(|| panic!("no kernel {name} in {report:#}"));
    assert_eq!(
        kernel["block_dim"],
        serde_json::json!([128, 1, 1]),
        "{name}"
    );
    let loads = kernel["loads"].as_array().unwrap();
    assert_eq!(loads.len(), 1, "{name}: {loads:#?}");
    &loads[0]
}

fn notes(load: &Value) -> Vec<&str> {
    (load["notes"].as_array().unwrap().iter())
        .map(|n| n.as_str().unwrap())
        .collect()
}

#[test]
fn constants_of_the_only_launch_are_used() {
    let r = report();
    let l = load(&r, "scale");
    // i = 128*ctaid.x + tid.x; in[i * 2] is at in + 4*2*i bytes.
    assert_eq!(l["pattern"], "in + 8*tid.x + 1024*ctaid.x");
    // The guard i < n is evaluated with n = 4096: block 0 runs all 128 threads.
    assert_eq!(
        l["guards"],
        serde_json::json!(["tid.x + 128*ctaid.x < 4096"])
    );
    assert_eq!(l["active_threads"], 128);
    // 128 threads 8 B apart span 1024 B: 32 sectors of 32 B, each read once.
    assert_eq!(l["traffic_off_bytes"], 1024);
    assert_eq!(
        notes(l),
        [
            "kernel argument n = 4096 from the host launch at line 36",
            "kernel argument stride = 2 from the host launch at line 36",
        ]
    );
}

#[test]
fn launches_that_disagree_take_the_first_and_weigh_the_others() {
    let r = report();
    let l = load(&r, "twice");
    // w is 64 at line 37 and 128 at line 38: the first launch's 64 is the
    // nominal value (the other is a scenario under auto): in + 4*64*i.
    assert_eq!(l["pattern"], "in + 256*tid.x + 32768*ctaid.x");
    // 256 B apart: each of the 128 threads in a sector of its own.
    assert_eq!(l["traffic_off_bytes"], 128 * 32);
    assert!(notes(l).contains(
        &"kernel argument w differs between host launches (lines 37, 38): the model takes w = 64 from the first (line 37) and, under auto, weighs the other launches as scenarios where their walks fit the budget; give --kernel-arg=w=VALUE for one value"
    ), "{:?}", notes(l));
}

#[test]
fn a_runtime_argument_stays_unknown() {
    let r = report();
    let l = load(&r, "runtime");
    // in[i] does not read m; its guard i < m does, and stays symbolic.
    assert_eq!(l["pattern"], "in + 4*tid.x + 512*ctaid.x");
    assert_eq!(l["guards"], serde_json::json!(["tid.x + 128*ctaid.x < m"]));
    assert_eq!(
        notes(l),
        [
            "guard needs kernel argument m; all threads assumed to execute",
            "kernel argument m is not a constant at the host launch at line 39; give --kernel-arg=m=VALUE",
        ]
    );
}

#[test]
fn the_users_value_wins_over_the_launch() {
    let r = report();
    let l = load(&r, "overridden");
    // step = 8 (the user's), not 4 (the launch's): in + 4*8*i.
    assert_eq!(l["pattern"], "in + 32*tid.x + 4096*ctaid.x");
    // 32 B apart: each of the 128 threads reads a sector of its own (with 4,
    // two threads would share each sector: 2048 B).
    assert_eq!(l["traffic_off_bytes"], 4096);
    assert!(notes(l).is_empty(), "{:?}", notes(l));
}

/// A value the parameter's type cannot hold is warned about, not silently
/// wrapped (found by an adversarial review: 2^62 for an `int` read as 0).
#[test]
fn a_value_the_parameter_cannot_hold_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let cu = testdata("launch_args/launch_args.cu");
    let out = dir.path().join("a.ptx");
    let run = |value: &str| {
        let flag = format!("--kernel-arg=step={value}");
        let (ok, err) = gpucc_to(&cu, "sm_70", &out, &["-S", "--cuda-device-only", &flag]);
        assert!(ok, "{err}");
        err
    };
    let err = run("4611686018427387904");
    assert!(
        err.contains("kernel argument 'step' = 4611686018427387904 does not fit its 32-bit integer parameter"),
        "{err}"
    );
    // The largest 32-bit value read unsigned, and the smallest signed, fit.
    for fits in ["4294967295", "-2147483648"] {
        let err = run(fits);
        assert!(!err.contains("does not fit"), "{fits}: {err}");
    }
}

/// Pointer arguments (`testdata/launch_args/aliased_launch.cu`, built for
/// sm_70 with `-c`, so the driver reads clang's host IR). `pair(a, b, out)`
/// gets two allocations: each of its streams is read by one thread once,
/// so both loads are read once and bypassed; so does its second launch,
/// whose `first` and `d_c + 64` come from one host variable allocated twice
/// (two loads of it, not one allocation) and an offset of 256 bytes (still
/// aligned). `pair_shifted(a, a + 1, out)` reads a[i] and a[i + 1], the
/// same lines; `pair_same(a, a, out)` reads each line twice. The model,
/// which places every pointer argument at the start of an allocation of its
/// own, cannot see that: the build warns, once per launch with every
/// reason, and claims no read-once load through those parameters; so for
/// `pair_same` launched again by hand with `void *args[] = {&a, &a, &out}`
/// (line 77: one variable's address in two slots, its value unknown).
/// `axpy(2, x, y, y)` runs in place: y's load is not read once, x's still
/// is. `relax` is launched from a ping-pong loop whose pointers swap (a phi
/// on the host): nothing is claimed of them, nothing warned; then by a
/// helper in a header with each array one element before its start, which
/// the warning places in the header's file.
#[test]
fn pointers_into_one_allocation_are_warned_of_and_never_read_once() {
    let r = build_report("aliased_launch.cu", &[]);
    let tail =
        "it assumes distinct allocations, each 256-byte aligned, so no load through them is \
                read once and its figures may be off";
    let warnings: Vec<&str> = (r["warnings"].as_array().unwrap().iter())
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        vec![
            format!(
                "pair_shifted(float const*, float const*, float*): the launch at line 63 passes \
                 pointers the model cannot tell apart (arguments 0 and 1 point into one \
                 allocation; argument 1 points 4 bytes into its allocation); {tail}"
            ),
            format!(
                "pair_same(float const*, float const*, float*): the launch at line 64 passes \
                 pointers the model cannot tell apart (arguments 0 and 1 point into one \
                 allocation); {tail}"
            ),
            format!(
                "pair_same(float const*, float const*, float*): the launch at line 77 passes \
                 pointers the model cannot tell apart (arguments 0 and 1 point into one \
                 allocation); {tail}"
            ),
            format!(
                "axpy(float, float const*, float const*, float*): the launch at line 65 passes \
                 pointers the model cannot tell apart (arguments 2 and 3 point into one \
                 allocation); {tail}"
            ),
            format!(
                "relax(float const*, float*, int): the launch at one_based_launch.cuh:6 passes \
                 pointers the model cannot tell apart (argument 0 points 4 bytes before its \
                 allocation's start; argument 1 points 4 bytes before its allocation's start); \
                 {tail}"
            ),
        ],
    );
    let loads = |name: &str| -> Vec<Value> {
        let kernel = (r["kernels"].as_array().unwrap().iter())
            .find(|k| k["name"].as_str().unwrap().starts_with(&format!("{name}(")))
            .unwrap_or_else(|| panic!("no kernel {name}"));
        kernel["loads"].as_array().unwrap().clone()
    };
    let read_once = |l: &Value| l["in_kernel"]["read_once"] == Value::Bool(true);
    let pair = loads("pair");
    assert_eq!(pair.len(), 2);
    for l in &pair {
        assert!(read_once(l), "{l:#}");
        assert_eq!(l["decision"], "bypass", "{l:#}");
    }
    for name in ["pair_shifted", "pair_same", "relax"] {
        for l in loads(name) {
            assert!(!read_once(&l), "{name}: {l:#}");
        }
    }
    // axpy's loads in source order: x[i], then y[i].
    let axpy: Vec<(String, bool)> = (loads("axpy").iter())
        .map(|l| (l["pattern"].as_str().unwrap().to_string(), read_once(l)))
        .collect();
    assert_eq!(
        axpy,
        [
            ("x + 4*tid.x + 1024*ctaid.x".to_string(), true),
            ("y + 4*tid.x + 1024*ctaid.x".to_string(), false)
        ]
    );
}
