//! design.md §8, issue 6 §2–3: for every `.cu` in testdata, on sm_52, 70,
//! 80 and 90 under the policies `policies` picks, the driver's PTX equals
//! what `clang++-19 --cuda-device-only -S` writes with the same flags once
//! comments and the cache operators of `ld` are removed (byte for byte,
//! comments included, under `--cache-policy=off`); ptxas accepts it; and
//! every global load of the PTX is accounted for in the report (decided,
//! or left alone with a reason), per function. The simulator's programs
//! and the stress inputs run every policy.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::*;
use gpucc_cache_pass::emit::ptx::normalized;

const POLICIES: &[&str] = &[
    "auto",
    "conservative",
    "aggressive",
    "cache-all",
    "cache-none",
    "off",
];
const ARCHS: &[&str] = &["sm_52", "sm_70", "sm_80", "sm_90"];

/// The policies checked for the `index`-th file of the corpus on `arch`.
/// On sm_52 (`.ca`/`.cg`) and sm_90 (plain/`.L1::no_allocate`): `auto`,
/// `off` (byte-identical output) and one of the other four, rotating over
/// files and the two archs, so that each of them runs on half the files.
/// On sm_70 and sm_80 only `auto`, whose decisions follow each part's own
/// L1. With this toolchain clang writes PTX 8.5 for sm_70, sm_80 and sm_90
/// alike, so every policy lowers there with sm_90's operators (checked:
/// the same operators); the driver's PTX differs from clang's only where
/// a decision writes an operator (`emit::transplant`), so what each of the
/// other four adds is its own operators, which the rotation covers (and
/// the simulator's programs and the stress inputs run all six on every
/// file). Each run costs a front-end run
/// (about 0.6 s): every policy on every file made this over 40 % of the
/// suite's time.
fn policies(index: usize, arch: &str) -> Vec<&'static str> {
    const OTHERS: [&str; 4] = ["conservative", "aggressive", "cache-all", "cache-none"];
    match arch {
        "sm_52" => vec!["auto", "off", OTHERS[index % 4]],
        "sm_90" => vec!["auto", "off", OTHERS[(index + 2) % 4]],
        _ => vec!["auto"],
    }
}

/// Opcodes of `ld.global` outside inline asm, counted from the text alone.
fn global_loads_in(ptx: &str) -> usize {
    let mut asm = false;
    let mut n = 0;
    for l in ptx.lines().map(str::trim) {
        match l {
            "// begin inline asm" => asm = true,
            "// end inline asm" => asm = false,
            _ => {}
        }
        let op = l.trim_start_matches(|c| c != ' ' && l.starts_with('@'));
        let op = op.split_whitespace().next().unwrap_or("");
        if !asm && op.starts_with("ld.global.") {
            n += 1;
        }
    }
    n
}

/// The report's accounting matches the PTX: per function, the loads it
/// lists add up to the PTX's, none unaccounted; in all, the text's count.
fn check_accounting(report: &serde_json::Value, ptx: &str) -> Result<(), String> {
    let mut listed_global = 0i64;
    for k in report["kernels"].as_array().unwrap() {
        let Some(p) = k.get("ptx") else {
            return Err(format!("{}: no PTX count", k["name"]));
        };
        let total = p["global_loads"].as_i64().unwrap();
        let generic = p["generic"].as_i64().unwrap();
        let unaccounted = p["unaccounted"].as_i64().unwrap();
        let sum = |key: &str| -> i64 {
            k[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["ptx_loads"].as_i64().unwrap_or(0))
                .sum()
        };
        if unaccounted != 0 {
            return Err(format!(
                "{}: {unaccounted} unaccounted ld.global",
                k["name"]
            ));
        }
        if sum("loads") + sum("skipped") != total {
            return Err(format!(
                "{}: loads {} + left alone {} != PTX {total}",
                k["name"],
                sum("loads"),
                sum("skipped")
            ));
        }
        listed_global += total - generic;
    }
    let counted = global_loads_in(ptx) as i64;
    if listed_global != counted {
        return Err(format!(
            "report lists {listed_global} ld.global, the PTX has {counted}"
        ));
    }
    Ok(())
}

fn check_one(file: &Path, arch: &str, dir: &Path, policies: &[&str]) -> Vec<String> {
    let name = file.file_stem().unwrap().to_string_lossy().to_string();
    let base = dir.join(format!("{name}.{arch}.clang.ptx"));
    let out = run(device_clang(arch)
        .args(["-O3", "-S", "-o"])
        .arg(&base)
        .arg(file));
    if !out.status.success() {
        return vec![format!("{name} {arch}: clang failed: {}", text(&out).1)];
    }
    let clang = std::fs::read_to_string(&base).unwrap();
    let mut failures = Vec::new();
    for policy in policies {
        let what = format!("{} {arch} {policy}", file.display());
        let ptx = dir.join(format!("{name}.{arch}.{policy}.ptx"));
        let report = dir.join(format!("{name}.{arch}.{policy}.json"));
        let policy_flag = format!("--cache-policy={policy}");
        let report_flag = format!("--cache-report-file={}", report.display());
        let (ok, err) = gpucc_to(
            file,
            arch,
            &ptx,
            &[
                &policy_flag,
                "--cache-report=json",
                &report_flag,
                "--verify-ptx",
            ],
        );
        if !ok {
            failures.push(format!("{what}: driver failed: {err}"));
            continue;
        }
        let ours = std::fs::read_to_string(&ptx).unwrap();
        if *policy == "off" && ours != clang {
            failures.push(format!("{what}: not byte-identical to clang"));
        }
        if normalized(&ours) != normalized(&clang) {
            failures.push(format!(
                "{what}: code differs from clang beyond cache operators"
            ));
        }
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        if let Err(e) = check_accounting(&json, &ours) {
            failures.push(format!("{what}: {e}"));
        }
    }
    failures
}

/// `check_one` over (file index, file, arch) jobs on two threads, each
/// under the policies `policies` gives for it; all failures.
fn check_all(
    jobs: &[(usize, PathBuf, &str)],
    policies: fn(usize, &str) -> Vec<&'static str>,
) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((index, file, arch)) = jobs.get(i) else {
                    break;
                };
                let f = check_one(file, arch, dir.path(), &policies(*index, arch));
                failures.lock().unwrap().extend(f);
            });
        }
    });
    failures.into_inner().unwrap()
}

/// `(index, file, arch)` for every file and arch.
fn jobs<'a>(files: &[PathBuf], archs: &[&'a str]) -> Vec<(usize, PathBuf, &'a str)> {
    (files.iter().enumerate())
        .flat_map(|(i, f)| archs.iter().map(move |a| (i, f.clone(), *a)))
        .collect()
}

#[test]
fn ptx_equals_clang_except_cache_operators() {
    let mut files = Vec::new();
    cu_files(&testdata(""), &mut files);
    assert!(
        files.len() >= 25,
        "the corpus has {} .cu files",
        files.len()
    );
    // The held-out kNN's query point `query[q]` (x, y, z: a `v2` and a
    // scalar load) reaches the PTX keyless on sm_52: the backend sinks it
    // past the `nref < 1` test. Under `aggressive` the report cannot tell
    // which analysed load each one is (one shape has none keyless, the other
    // mixed decisions) and leaves both as clang wrote them, with a warning
    // (as in `simulator_programs_keep_clangs_code`).
    let known = [(
        "holdout2/knn_bruteforce.cu",
        "knn4(float4 const*, float4 const*, int const*, int4*, float4*, int*, int, int)",
        2,
    )];
    let failures: Vec<String> = check_all(&jobs(&files, ARCHS), policies)
        .into_iter()
        .filter(|f| !known_unaccounted(f, &known))
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Whether failure `f` is only a known case of keyless loads left as clang
/// wrote them: (file under testdata, kernel, the most such loads seen).
fn known_unaccounted(f: &str, known: &[(&str, &str, u32)]) -> bool {
    known.iter().any(|(file, kernel, most)| {
        let tail = f.split(&format!("\"{kernel}\": ")).nth(1);
        let count = tail
            .and_then(|t| t.strip_suffix(" unaccounted ld.global"))
            .and_then(|n| n.parse::<u32>().ok());
        f.contains(&format!("/{file} ")) && count.is_some_and(|n| n <= *most)
    })
}

/// The compile-time stress inputs (hash and PRNG loops, 300 template
/// instantiations) keep clang's code too, on one arch: their point is the
/// model's budgets, which the other archs exercise no differently.
#[test]
fn stress_inputs_keep_clangs_code() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for name in ["hash_loops.cu", "prng_pcg.cu", "templates300.cu"] {
        failures.extend(check_one(
            &testdata(&format!("stress/{name}")),
            "sm_90",
            dir.path(),
            POLICIES,
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The simulator's whole programs (`testdata/sim/`, run by
/// `scripts/sim-validate`) keep clang's code on the archs the simulator runs
/// them for: sm_52 (GTX480) and sm_70 (QV100). What is simulated must be
/// clang's program with other cache operators, nothing else.
#[test]
fn simulator_programs_keep_clangs_code() {
    let mut files = Vec::new();
    for e in std::fs::read_dir(testdata("sim")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "cu") {
            files.push(p);
        }
    }
    files.sort();
    assert!(
        files.len() >= 12,
        "testdata/sim has {} programs",
        files.len()
    );
    let jobs = jobs(&files, &["sm_52", "sm_70"]);
    // Loads the backend hoisted out of a loop lose their keys; where the
    // report cannot tell which analysed load each one is, it leaves them as
    // clang wrote them and counts them `unaccounted`, with a warning (README,
    // "How the PTX is made"). Two programs have such loads on both archs:
    // pinned here with the most seen (nbody: 1, but 2 under `aggressive` on
    // sm_70, whose mixed decisions leave one more keyless load uncertain),
    // so that a new case fails.
    let known = [
        (
            "sim/kmeans.cu",
            "assign(Point8 const*, Point8 const*, int*, int*, int, int)",
            2,
        ),
        (
            "sim/nbody.cu",
            "forces(float4 const*, float4*, int, int)",
            2,
        ),
    ];
    let failures: Vec<String> = check_all(&jobs, |_, _| POLICIES.to_vec())
        .into_iter()
        .filter(|f| !known_unaccounted(f, &known))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Debug info asked for the device side through a flag pair, as nvcc-style
/// builds and cc1 users write it: `-Xarch_device -g` and `-Xclang
/// -debug-info-kind=limited`. The driver keyed its decisions with line
/// tables of its own and removed all debug info after, as if the user had
/// asked for none (7 `.loc` lines in clang's PTX, 0 in the driver's; 10,336
/// lines against 34). Now they count as `-g`: under `off` the PTX is
/// clang's byte for byte, under `auto` equal once operators are removed.
#[test]
fn device_debug_flag_pairs_keep_the_debug_info() {
    let dir = tempfile::tempdir().unwrap();
    let file = testdata("programs/checksum.cu");
    // cc1 reads `-Xclang` after what the driver made of `-g0`: debug info
    // stays on in the third (clang's own PTX has it; the review found the
    // driver dropping it).
    let spellings: [&[&str]; 3] = [
        &["-Xarch_device", "-g"],
        &["-Xclang", "-debug-info-kind=limited"],
        &["-Xclang", "-debug-info-kind=limited", "-g0"],
    ];
    for pair in spellings {
        let reference = dir.path().join("clang.ptx");
        let out = run(device_clang("sm_70")
            .args(["-O3", "-S"])
            .args(pair)
            .arg("-o")
            .arg(&reference)
            .arg(&file));
        assert!(out.status.success(), "clang {pair:?}: {}", text(&out).1);
        let clang = std::fs::read_to_string(&reference).unwrap();
        assert!(
            clang.contains("\t.loc\t"),
            "{pair:?}: clang wrote no line info"
        );
        for policy in ["off", "auto"] {
            let ptx = dir.path().join(format!("{policy}.ptx"));
            let policy_flag = format!("--cache-policy={policy}");
            let flags: Vec<&str> = std::iter::once(policy_flag.as_str())
                .chain(pair.iter().copied())
                .collect();
            let (ok, err) = gpucc_to(&file, "sm_70", &ptx, &flags);
            assert!(ok, "{pair:?} {policy}: {err}");
            let ours = std::fs::read_to_string(&ptx).unwrap();
            if policy == "off" {
                assert!(ours == clang, "{pair:?}: not byte-identical to clang");
            }
            assert!(
                normalized(&ours) == normalized(&clang),
                "{pair:?} {policy}: code differs from clang beyond cache operators"
            );
        }
    }
}
