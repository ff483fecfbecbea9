//! `--machine=FILE` and `--decisions=FILE` (design.md §11): a machine
//! description replaces the arch's hardware table in the model, forced
//! decisions replace the policy's for the loads they name, and
//! `traffic_bytes.decided` is the model's figure for what the build emits.
//! One small input, `testdata/machine/stencil.cu`: three neighbouring loads
//! `in[i-1]`, `in[i]`, `in[i+1]` (sites 0, 1, 2) of kernel
//! `_Z7stencilPKfPfi`.

mod common;

use std::path::Path;

use common::*;
use gpucc_cache_pass::emit::ptx::normalized;
use serde_json::Value;

const SYMBOL: &str = "_Z7stencilPKfPfi";

/// A Fermi-like L1 on Maxwell's table entry: 16 KB, whole-line fills, 4
/// ways, plain loads cached (GPGPU-Sim's GTX480 caches global loads in L1).
const FERMI_LIKE: &str = "# GTX480-like\nbase = sm_52\nname = fermi-like\nsms = 15\n\
                          l1_bytes = 16K\nfill = line\nassociativity = 4\nglobal_loads = l1\n";

/// Runs the driver on the stencil for `arch` with `extra` flags; returns
/// the PTX and the JSON report, or the driver's stderr when it fails.
fn build(dir: &Path, arch: &str, extra: &[&str]) -> Result<(String, Value), String> {
    let ptx = dir.join("s.ptx");
    let report = dir.join("r.json");
    let report_flag = format!("--cache-report-file={}", report.display());
    let mut flags = vec![
        "--kernel-arg=n=1048576",
        "--grid-dim=4096",
        "--block-dim=256",
        "--cache-report=json",
        &report_flag,
    ];
    flags.extend_from_slice(extra);
    let (ok, err) = gpucc_to(&testdata("machine/stencil.cu"), arch, &ptx, &flags);
    if !ok {
        return Err(err);
    }
    let json = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    Ok((std::fs::read_to_string(&ptx).unwrap(), json))
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

fn flag(name: &str, path: &str) -> String {
    format!("--{name}={path}")
}

fn traffic(report: &Value, policy: &str) -> u64 {
    report["kernels"][0]["simulated"]["traffic_bytes"][policy]
        .as_u64()
        .unwrap_or_else(|| panic!("no {policy} figure in {report}"))
}

#[test]
fn a_machine_file_replaces_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let machine = write(dir.path(), "fermi.machine", FERMI_LIKE);
    let none = write(dir.path(), "none.txt", "# nothing forced\n");
    // sm_52's table: 24 KB L1, plain loads not cached (opt-in), so under
    // `off` the emitted plain loads cost what cache-none does. An empty
    // decisions file runs the model without forcing anything.
    let (_, table) = build(
        dir.path(),
        "sm_52",
        &["--cache-policy=off", &flag("decisions", &none)],
    )
    .unwrap();
    assert!(table.get("machine").is_none(), "{table}");
    assert_eq!(table["kernels"][0]["simulated"]["l1_bytes"], 24 * 1024);
    assert_eq!(traffic(&table, "decided"), traffic(&table, "cache_none"));
    // The description: 16 KB, and plain loads cached as on Fermi.
    let (_, fermi) = build(
        dir.path(),
        "sm_52",
        &["--cache-policy=off", &flag("machine", &machine)],
    )
    .unwrap();
    assert_eq!(fermi["machine"]["name"], "fermi-like");
    assert_eq!(fermi["machine"]["file"], machine.as_str());
    assert_eq!(fermi["machine"]["sms"], 15);
    assert_eq!(
        fermi["model"], "fermi",
        "fill = line picks the line-fill model"
    );
    assert_eq!(fermi["l1_bytes"], 16 * 1024);
    assert_eq!(fermi["kernels"][0]["simulated"]["l1_bytes"], 16 * 1024);
    assert_eq!(traffic(&fermi, "decided"), traffic(&fermi, "cache_all"));
    assert!(traffic(&fermi, "decided") < traffic(&fermi, "cache_none"));
    // The text report names the machine in its header.
    let text = dir.path().join("r.txt");
    let (ok, err) = gpucc_to(
        &testdata("machine/stencil.cu"),
        "sm_52",
        &dir.path().join("t.ptx"),
        &[
            &flag("machine", &machine),
            &format!("--cache-report-file={}", text.display()),
        ],
    );
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(text).unwrap();
    assert!(
        text.contains(&format!("machine: fermi-like ({machine}, 15 SMs)")),
        "{text}"
    );
}

#[test]
fn bad_machine_files_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("nobase", "l1_bytes = 16K\n", ": base: missing"),
        (
            "unknown",
            "base = sm_52\nways = 4\n",
            ":2: unknown key 'ways'",
        ),
        (
            "twice",
            "base = sm_52\nsms = 2\nsms = 3\n",
            ":3: sms given again (first on line 2)",
        ),
        (
            "value",
            "base = sm_52\nfill = half\n",
            ":2: fill: 'half' is not a fill",
        ),
        (
            "lines",
            "base = sm_52\nl1_bytes = 1000\n",
            ":2: l1_bytes: the L1 of 1000 B is not a whole number",
        ),
        (
            "ways",
            "base = sm_52\nassociativity = 5\n",
            ":2: associativity: 5 ways do not divide",
        ),
        (
            "carveout",
            "base = sm_70\ncarveouts = 0, 200K\n",
            ":2: carveouts: 204800 leaves no L1",
        ),
    ];
    for (name, text, want) in cases {
        let path = write(dir.path(), name, text);
        let err = build(dir.path(), "sm_52", &[&flag("machine", &path)]).unwrap_err();
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(&format!("{path}{want}")), "{name}: {err}");
    }
    let err = build(dir.path(), "sm_52", &["--machine=/nonexistent/m.machine"]).unwrap_err();
    assert!(
        err.contains("/nonexistent/m.machine") && err.lines().count() == 1,
        "{err}"
    );
    let machine = write(dir.path(), "ok.machine", FERMI_LIKE);
    let (ok, _, err) = gpucc(&[
        testdata("machine/stencil.cu").to_str().unwrap(),
        "-S",
        "--cuda-gpu-arch=sm_52",
        "--cuda-gpu-arch=sm_70",
        "--machine",
        &machine,
    ]);
    assert!(!ok);
    assert_eq!(
        err.trim(),
        "gpucc-cache: error: --machine describes one GPU; give one --cuda-gpu-arch"
    );
}

#[test]
fn a_device_a_fifo_or_a_directory_is_refused_not_read() {
    // /dev/zero was read without end (the process killed for memory), a
    // FIFO waited on for a writer. Now each is one line, at once.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let fifo = fifo.to_str().unwrap();
    let folder = dir.path().to_str().unwrap();
    for option in ["machine", "decisions"] {
        for (path, kind) in [
            ("/dev/zero", "not a regular file (a FIFO, socket or device)"),
            (fifo, "not a regular file (a FIFO, socket or device)"),
            (folder, "a directory"),
        ] {
            let err = build(dir.path(), "sm_70", &[&flag(option, path)]).unwrap_err();
            assert_eq!(err.lines().count(), 1, "--{option}={path}: {err}");
            assert!(
                err.contains(&format!("{path}: it is {kind}; give a regular file")),
                "--{option}={path}: {err}"
            );
        }
    }
}

#[test]
fn bad_decisions_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    // Checked when the flag is read: one line.
    for (name, text, want) in [
        (
            "word",
            format!("{SYMBOL} 0 maybe\n"),
            ":1: 'maybe' is not a decision",
        ),
        (
            "twice",
            format!("{SYMBOL} 0 cache\n{SYMBOL} 0 bypass\n"),
            ":2: _Z7stencilPKfPfi site 0 listed again",
        ),
        (
            "short",
            format!("{SYMBOL} 0\n"),
            ":1: '_Z7stencilPKfPfi 0' is not SYMBOL SITE",
        ),
    ] {
        let path = write(dir.path(), name, &text);
        let err = build(dir.path(), "sm_70", &[&flag("decisions", &path)]).unwrap_err();
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(&format!("{path}{want}")), "{name}: {err}");
    }
    // Checked against the module, by the plugin inside clang: its one
    // line, without clang's count of errors.
    for (name, text, want) in [
        ("symbol", "_Z3fooPf 0 bypass\n".to_string(), ":1: no function '_Z3fooPf' with global loads"),
        ("site", format!("{SYMBOL} 7 bypass\n"), ":1: site 7 of _Z7stencilPKfPfi is not a load site of it; give one of its sites (0, 1, 2)"),
    ] {
        let path = write(dir.path(), name, &text);
        let err = build(dir.path(), "sm_70", &[&flag("decisions", &path)]).unwrap_err();
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(&format!("{path}{want}")), "{name}: {err}");
    }
    let err = build(dir.path(), "sm_70", &["--decisions=/nonexistent/d.txt"]).unwrap_err();
    assert!(
        err.contains("/nonexistent/d.txt") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn forced_decisions_are_emitted_as_the_policy_would() {
    let dir = tempfile::tempdir().unwrap();
    let mixed = write(
        dir.path(),
        "mixed.txt",
        &format!("{SYMBOL} 0 bypass\n{SYMBOL} 1 cache  # the centre\n{SYMBOL} 2 bypass\n"),
    );
    for (arch, want) in [
        (
            "sm_52",
            ["ld.global.cg.f32", "ld.global.ca.f32", "ld.global.cg.f32"],
        ),
        (
            "sm_70",
            [
                "ld.global.L1::no_allocate.f32",
                "ld.global.f32",
                "ld.global.L1::no_allocate.f32",
            ],
        ),
    ] {
        let (off, _) = build(dir.path(), arch, &["--cache-policy=off"]).unwrap();
        for policy in ["auto", "off", "cache-all"] {
            let policy_flag = format!("--cache-policy={policy}");
            let (ptx, report) = build(
                dir.path(),
                arch,
                &[&policy_flag, &flag("decisions", &mixed)],
            )
            .unwrap();
            assert_eq!(global_loads(&ptx), want, "{arch} {policy}");
            assert_eq!(
                normalized(&ptx),
                normalized(&off),
                "{arch} {policy}: code changed"
            );
            for load in report["kernels"][0]["loads"].as_array().unwrap() {
                let reason = load["reason"].as_str().unwrap();
                assert_eq!(
                    reason,
                    format!("forced by --decisions {mixed}"),
                    "{arch} {policy}"
                );
            }
        }
    }
}

#[test]
fn decided_matches_the_policy_with_the_same_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let all = |word: &str| {
        (0..3)
            .map(|s| format!("{SYMBOL} {s} {word}\n"))
            .collect::<String>()
    };
    let bypass = write(dir.path(), "bypass.txt", &all("bypass"));
    let cache = write(dir.path(), "cache.txt", &all("cache"));
    for arch in ["sm_52", "sm_70"] {
        let (_, r) = build(dir.path(), arch, &[&flag("decisions", &bypass)]).unwrap();
        assert_eq!(traffic(&r, "decided"), traffic(&r, "cache_none"), "{arch}");
        let (_, r) = build(dir.path(), arch, &[&flag("decisions", &cache)]).unwrap();
        assert_eq!(traffic(&r, "decided"), traffic(&r, "cache_all"), "{arch}");
        // Under auto with nothing forced, the emitted decisions are auto's.
        let (_, r) = build(dir.path(), arch, &[]).unwrap();
        assert_eq!(traffic(&r, "decided"), traffic(&r, "auto"), "{arch}");
    }
}

/// `set_index = fermi-hash` (Fermi's hashed L1 index, Nugteren et al., HPCA
/// 2014; GPGPU-Sim's GTX480 config, `H`): `testdata/holdout/gemv_rowmajor.cu`,
/// one thread per row of a row-major 1024 x 96 float matrix, 8 blocks of
/// 128, so one block an SM. At each column a block's 128 lanes hold one
/// line each, 3 lines apart (a row is 384 B): lines 3t, t = 0..127. With a
/// linear index (3t mod 32 sets, 3 and 32 coprime) that is exactly 4 lines
/// a set, the 4 ways of a 16 KB L1: every row line stays for its 32
/// columns, and caching `A` is what the model picks. With the hash the same
/// lines crowd some sets (worked out by hand from the hash's bits: up to
/// 6 lines in a set, 15 lines past the 4 ways at the first column), so the
/// rows thrash and `A` is bypassed. Simulated (`scripts/sim-validate
/// --config=GTX480`): caching `A` took 2.15x the cycles of bypassing it,
/// and 5.70 MB against the 5.73 MB the hashed model predicts for it.
#[test]
fn a_hashed_set_index_sees_rows_crowd_a_set() {
    let dir = tempfile::tempdir().unwrap();
    let input = testdata("holdout/gemv_rowmajor.cu");
    let decisions = |index: &str| -> Vec<(String, String)> {
        let text = format!("{FERMI_LIKE}l1_slices = 1\nset_index = {index}\n");
        let machine = write(dir.path(), &format!("{index}.txt"), &text);
        let report = dir.path().join(format!("{index}.json"));
        let (ok, err) = gpucc_to(
            &input,
            "sm_52",
            &dir.path().join("g.ptx"),
            &[
                &flag("machine", &machine),
                // What a whole-program build reads from the host code.
                "--kernel-arg=rows=1024",
                "--kernel-arg=cols=96",
                "--grid-dim=8",
                "--cache-report=json",
                &flag("cache-report-file", report.to_str().unwrap()),
            ],
        );
        assert!(ok, "{err}");
        let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        (r["kernels"][0]["loads"].as_array().unwrap().iter())
            .filter(|l| l["pattern"].as_str().unwrap().starts_with("A + "))
            .map(|l| {
                let s = |k: &str| l[k].as_str().unwrap().to_string();
                (s("pattern"), s("decision"))
            })
            .collect()
    };
    let linear = decisions("linear");
    let hashed = decisions("fermi-hash");
    // The row load: 8 copies in clang's body unrolled by 8, and one in the
    // remainder loop, which no thread runs (96 = 12 x 8): no verdict.
    let body = |d: &[(String, String)], want: &str| {
        let (rest, body): (Vec<_>, Vec<_>) = d.iter().partition(|(p, _)| p.contains("epil"));
        assert_eq!((body.len(), rest.len()), (8, 1), "{d:?}");
        assert_eq!(rest[0].1, "default", "{d:?}");
        assert!(body.iter().all(|(_, x)| x == want), "{d:?}");
    };
    body(&linear, "cache");
    body(&hashed, "bypass");
}
