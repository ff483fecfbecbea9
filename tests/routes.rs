//! Issue 6 §8: the plugin's own routes over the corpus `codegen.rs` runs
//! the driver on: every `.cu` in testdata (but `testdata/errors`), every
//! policy, each file on one of sm_52 and sm_90, alternating (`codegen.rs`
//! runs the driver, whose `.cu` route is this plugin under clang with
//! `lower=keys`, on every file for all four archs).
//!
//! The route that keeps the compiler's code (README, "Which path gives
//! what": `lower=keys`, line tables kept, then `gpucc-cache apply`) runs for
//! every file through both entry points:
//! - `clang++-19 -fpass-plugin` with `GPUCC_CACHE_OPTIONS=policy=P;lower=keys`
//!   and `-gline-tables-only -mllvm -use-unknown-locations=Enable`, against
//!   `clang++-19 --cuda-device-only -S` of the same file, for one policy
//!   per file, rotating over the six (each front-end run costs about
//!   0.6 s; all six policies on every file and both archs made this the
//!   suite's second-longest file, 5 min);
//! - `opt-19 -passes='gpucc-cache<policy=P;lower=keys>'` on clang's `-O3`
//!   device bitcode, then `llc-19 -use-unknown-locations=Enable`, against
//!   `llc-19` on the same bitcode (`-mcpu` the arch, `-mattr` the PTX
//!   version clang chose), for every policy (no front end: cheap). The
//!   bitcode has no debug info, so the pass adds
//!   its own line tables, README's other way to keep them; the clang route
//!   covers `-gline-tables-only`. (Bitcode with line tables too would be one
//!   more front-end run per file, past this file's time budget.)
//!
//! After `apply`: the PTX with comments and `ld` cache operators removed
//! equals the baseline's (`ptx::normalized`); under `off`, which changes
//! nothing, it equals the baseline with only comments removed, operators
//! included; `apply` does not warn (it does when no key reached the PTX);
//! ptxas accepts it.
//!
//! The default `lower=asm` promises ptxas acceptance only, and only that is
//! checked, on fewer combinations, for time: `opt` + `llc` for every
//! file under the `ASM_CASES` of its arch (the pairs where the lowering
//! writes asm at all), and `clang -fpass-plugin` for one of them per file,
//! rotating.
//!
//! Every failure is collected and reported in one assertion.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::*;
use gpucc_cache_pass::emit::ptx::{normalized, target};

const POLICIES: &[&str] = &[
    "auto",
    "conservative",
    "aggressive",
    "cache-all",
    "cache-none",
    "off",
];
/// One arch of each operator family: before sm_70 (`.ca`/`.cg`) and after
/// (plain/`.L1::no_allocate`), each file on one of them. `tests/codegen.rs`
/// runs the driver on all four; the plugin routes ran on all four, then on
/// both of these for every file, until the corpus grew past what the
/// suite's 20 minutes allow (709 s, then 349 s of it).
const ARCHS: &[&str] = &["sm_52", "sm_90"];
/// The (arch, policy) pairs the asm lowering is assembled under. It
/// rewrites only loads whose operator is not the plain load (README, "What
/// it writes"): `conservative` and `aggressive` give each load they decide
/// one of the operators `cache-all` and `cache-none` give it, `off` lowers
/// nothing, and from sm_70 "cache" is the plain load, so `cache-all` lowers
/// nothing there either.
const ASM_CASES: &[(&str, &str)] = &[
    ("sm_52", "cache-none"),
    ("sm_52", "cache-all"),
    ("sm_90", "cache-none"),
];

/// One `.cu` file on one arch; `file_index` keeps its files apart from
/// those of a file with the same name in another directory.
struct Job {
    file_index: usize,
    file: PathBuf,
    arch: &'static str,
}

impl Job {
    fn path(&self, dir: &Path, what: &str) -> PathBuf {
        let stem = self.file.file_stem().unwrap().to_string_lossy();
        dir.join(format!("{}-{stem}.{}.{what}", self.file_index, self.arch))
    }

    fn name(&self, route: &str, policy: &str) -> String {
        let rel = self.file.strip_prefix(root()).unwrap_or(&self.file);
        format!("{} {} {policy} [{route}]", rel.display(), self.arch)
    }
}

/// The first lines of a tool's stderr, enough to see what went wrong.
fn excerpt(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().take(12).collect();
    lines.join("\n    ")
}

/// Runs a step; its stderr when it succeeds, a failure line when not.
fn succeed(cmd: &mut Command, step: &str) -> Result<String, String> {
    let out = run(cmd);
    let err = text(&out).1;
    if out.status.success() {
        return Ok(err);
    }
    let how = match out.status.code() {
        Some(c) => format!("exit {c}"),
        None => "killed by a signal".into(),
    };
    Err(format!("{step} failed ({how}):\n    {}", excerpt(&err)))
}

/// PTX with comments removed, operators kept.
fn code(ptx: &str) -> String {
    ptx.lines()
        .map(|l| l.split("//").next().unwrap_or("").trim_end())
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The first three lines where two texts differ (line by line, so an
/// inserted line shows as the first), as `line N: ours | baseline`.
fn first_difference(ours: &str, baseline: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), baseline.lines().collect());
    (0..a.len().max(b.len()))
        .filter(|&i| a.get(i) != b.get(i))
        .take(3)
        .map(|i| {
            format!(
                "    line {}: {:?} | baseline {:?}",
                i + 1,
                a.get(i).copied().unwrap_or("<end>"),
                b.get(i).copied().unwrap_or("<end>")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn plugin_clang(arch: &str, options: &str) -> Command {
    let mut cmd = device_clang(arch);
    cmd.args(["-O3", "-S"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .env("GPUCC_CACHE_OPTIONS", options);
    cmd
}

fn opt(input: &Path, pipeline: &str, out: &Path) -> Command {
    let mut cmd = Command::new("opt-19");
    cmd.arg(format!("-load-pass-plugin={}", plugin().display()))
        .arg(format!("-passes={pipeline}"))
        .arg(input)
        .arg("-o")
        .arg(out);
    cmd
}

/// `llc-19` for the arch at the PTX version clang chose (README's `opt`
/// example sets `-mattr` the same way).
fn llc(arch: &str, ptx_feature: &str, input: &Path, out: &Path) -> Command {
    let mut cmd = Command::new("llc-19");
    cmd.arg(format!("-mcpu={arch}"))
        .arg(format!("-mattr={ptx_feature}"))
        .arg(input)
        .arg("-o")
        .arg(out);
    cmd
}

/// `gpucc-cache apply` on keyed PTX, then the checks of the keys route
/// against `baseline` (the same compile without the plugin).
fn apply_and_compare(
    keyed: &Path,
    out: &Path,
    baseline: &str,
    policy: &str,
    arch: &str,
) -> Vec<String> {
    let warned = match succeed(
        Command::new(driver())
            .arg("apply")
            .arg(keyed)
            .arg("-o")
            .arg(out),
        "gpucc-cache apply",
    ) {
        Ok(stderr) => stderr,
        Err(e) => return vec![e],
    };
    let mut failures = Vec::new();
    if !warned.trim().is_empty() {
        failures.push(format!("apply warned:\n    {}", excerpt(&warned)));
    }
    let ours = std::fs::read_to_string(out).unwrap();
    let (n_ours, n_base) = (normalized(&ours), normalized(baseline));
    if n_ours != n_base {
        failures.push(format!(
            "code differs from the baseline beyond cache operators:\n{}",
            first_difference(&n_ours, &n_base)
        ));
    } else if policy == "off" && code(&ours) != code(baseline) {
        failures.push(format!(
            "policy off changed the PTX:\n{}",
            first_difference(&code(&ours), &code(baseline))
        ));
    }
    if let Some(e) = ptxas_rejects(out, arch) {
        failures.push(format!(
            "ptxas rejected {}:\n    {}",
            out.display(),
            excerpt(&e)
        ));
    }
    failures
}

fn ptxas_only(ptx: &Path, arch: &str) -> Result<(), String> {
    match ptxas_rejects(ptx, arch) {
        None => Ok(()),
        Some(e) => Err(format!(
            "ptxas rejected {}:\n    {}",
            ptx.display(),
            excerpt(&e)
        )),
    }
}

/// Both routes for one file on one arch; one line per failure.
fn check_one(job: &Job, dir: &Path) -> Vec<String> {
    let arch = job.arch;
    let mut failures = Vec::new();
    let mut fail = |route: &str, policy: &str, e: String| {
        failures.push(format!("{}: {e}", job.name(route, policy)));
    };

    // Baselines: clang's PTX; clang's bitcode and llc's PTX of it.
    let clang_ptx = job.path(dir, "clang.ptx");
    let bc = job.path(dir, "bc");
    let llc_ptx = job.path(dir, "llc.ptx");
    let baselines = succeed(
        device_clang(arch)
            .args(["-O3", "-S"])
            .arg(&job.file)
            .arg("-o")
            .arg(&clang_ptx),
        "clang (baseline)",
    )
    .and_then(|_| {
        succeed(
            device_clang(arch)
                .args(["-O3", "-c", "-emit-llvm"])
                .arg(&job.file)
                .arg("-o")
                .arg(&bc),
            "clang -emit-llvm (baseline)",
        )
    });
    if let Err(e) = baselines {
        fail("baseline", "-", e);
        return failures;
    }
    let clang_text = std::fs::read_to_string(&clang_ptx).unwrap();
    let ptx_feature = match target(&clang_text) {
        Ok(t) => format!("+ptx{}", t.version),
        Err(e) => {
            fail("baseline", "-", format!("clang's PTX: {e}"));
            return failures;
        }
    };
    if let Err(e) = succeed(
        &mut llc(arch, &ptx_feature, &bc, &llc_ptx),
        "llc (baseline)",
    ) {
        fail("baseline", "-", e);
        return failures;
    }
    let llc_text = std::fs::read_to_string(&llc_ptx).unwrap();

    for (p, policy) in POLICIES.iter().enumerate() {
        // clang -fpass-plugin, lower=keys, then apply: for one policy per
        // file, rotating over the files of each arch, so that every policy
        // takes this route on a sixth of them (the front end is most of
        // this file's time; the opt route below takes every policy on
        // every file through the same pass and lowering).
        if p == (job.file_index / ARCHS.len()) % POLICIES.len() {
            let route = "clang -fpass-plugin, lower=keys";
            let keyed = job.path(dir, &format!("{policy}.clang-keys.keyed.ptx"));
            let out = job.path(dir, &format!("{policy}.clang-keys.ptx"));
            match succeed(
                plugin_clang(arch, &format!("policy={policy};lower=keys"))
                    .args([
                        "-gline-tables-only",
                        "-mllvm",
                        "-use-unknown-locations=Enable",
                    ])
                    .arg(&job.file)
                    .arg("-o")
                    .arg(&keyed),
                "clang -fpass-plugin",
            ) {
                Ok(_) => {
                    for e in apply_and_compare(&keyed, &out, &clang_text, policy, arch) {
                        fail(route, policy, e);
                    }
                }
                Err(e) => fail(route, policy, e),
            }
        }

        // opt, lower=keys, llc, then apply.
        let route = "opt + llc, lower=keys";
        let keyed_bc = job.path(dir, &format!("{policy}.opt-keys.bc"));
        let keyed = job.path(dir, &format!("{policy}.opt-keys.keyed.ptx"));
        let out = job.path(dir, &format!("{policy}.opt-keys.ptx"));
        let compiled = succeed(
            &mut opt(
                &bc,
                &format!("gpucc-cache<policy={policy};lower=keys>"),
                &keyed_bc,
            ),
            "opt",
        )
        .and_then(|_| {
            succeed(
                llc(arch, &ptx_feature, &keyed_bc, &keyed).arg("-use-unknown-locations=Enable"),
                "llc",
            )
        });
        match compiled {
            Ok(_) => {
                for e in apply_and_compare(&keyed, &out, &llc_text, policy, arch) {
                    fail(route, policy, e);
                }
            }
            Err(e) => fail(route, policy, e),
        }
    }

    let cases: Vec<&str> = (ASM_CASES.iter())
        .filter(|c| c.0 == arch)
        .map(|c| c.1)
        .collect();
    for (case, &policy) in cases.iter().enumerate() {
        // opt, default lower=asm, llc: ptxas only.
        let route = "opt + llc, lower=asm";
        let asm_bc = job.path(dir, &format!("{policy}.opt-asm.bc"));
        let asm_ptx = job.path(dir, &format!("{policy}.opt-asm.ptx"));
        let checked = succeed(
            &mut opt(&bc, &format!("gpucc-cache<policy={policy}>"), &asm_bc),
            "opt",
        )
        .and_then(|_| succeed(&mut llc(arch, &ptx_feature, &asm_bc, &asm_ptx), "llc"))
        .and_then(|_| ptxas_only(&asm_ptx, arch));
        if let Err(e) = checked {
            fail(route, policy, e);
        }

        // clang -fpass-plugin, default lower=asm: ptxas only, for one of
        // the arch's cases per file, rotating.
        if (job.file_index / ARCHS.len()) % cases.len() == case {
            let route = "clang -fpass-plugin, lower=asm";
            let asm_ptx = job.path(dir, &format!("{policy}.clang-asm.ptx"));
            let checked = succeed(
                plugin_clang(arch, &format!("policy={policy}"))
                    .arg(&job.file)
                    .arg("-o")
                    .arg(&asm_ptx),
                "clang -fpass-plugin",
            )
            .and_then(|_| ptxas_only(&asm_ptx, arch));
            if let Err(e) = checked {
                fail(route, policy, e);
            }
        }
    }
    failures
}

#[test]
fn plugin_routes_keep_code_generation_and_assemble() {
    let mut files = Vec::new();
    cu_files(&testdata(""), &mut files);
    assert!(
        files.len() >= 25,
        "the corpus has {} .cu files",
        files.len()
    );
    let jobs: Vec<Job> = files
        .iter()
        .enumerate()
        .map(|(file_index, f)| Job {
            file_index,
            file: f.clone(),
            arch: ARCHS[file_index % ARCHS.len()],
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else {
                    break;
                };
                let f = check_one(job, dir.path());
                failures.lock().unwrap().extend(f);
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
