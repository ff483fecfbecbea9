//! Cases an adversarial review found, one idea per input in
//! `testdata/regress/`: loads that must be left alone, lowered shapes that
//! must stay exact, inputs that must not crash or take forever.

mod common;

use std::process::Command;

use common::*;
use gpucc_cache_pass::Mode;
use serde_json::Value;

/// Compiles a regression kernel for sm_90 with a JSON report; returns (report, PTX).
fn compile(file: &str, extra: &[&str]) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let (json, ptx) = (dir.path().join("r.json"), dir.path().join("k.ptx"));
    let input = testdata(&format!("regress/{file}"));
    let report_file = format!("--cache-report-file={}", json.display());
    let mut flags = vec!["--cache-report=json", &report_file];
    flags.extend_from_slice(extra);
    let (ok, err) = gpucc_to(&input, "sm_90", &ptx, &flags);
    assert!(ok, "{file}: {err}");
    assert_ptxas_accepts(&ptx, "sm_90");
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (report, std::fs::read_to_string(&ptx).unwrap())
}

fn unit<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["name"].as_str().unwrap().starts_with(name))
        .unwrap_or_else(|| panic!("no {name} in {report:#}"))
}

/// A struct passed by value lives in param (or local) memory: its own
/// fields (`t.p` itself, `t.m[j]`) are read with `ld.param` and left alone.
/// The pointer the host put in it is another matter: the NVPTX backend
/// marks pointers loaded from a kernel's `byval` parameter global (LLVM 19
/// `NVPTXLowerArgs`) and reads `t.p[i]` with `ld.global`, so that load is
/// decided like any global load (`facts::global_loads`).
#[test]
fn struct_by_value_is_param_memory_and_its_pointers_global() {
    let (report, ptx) = compile("byval.cu", &["--cache-policy=cache-none"]);
    let k = unit(&report, "byval(");
    let loads: Vec<(&str, &str)> = (k["loads"].as_array().unwrap().iter())
        .map(|l| {
            (
                l["pattern"].as_str().unwrap(),
                l["decision"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(loads, [("[t] + 4*tid.x", "bypass")], "{k:#}");
    let why: Vec<&str> = k["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["why"].as_str().unwrap())
        .collect();
    assert_eq!(why, ["param memory", "param memory"], "{k:#}");
    // The bypass is on the global load; no `ld.param` was touched.
    let global: Vec<&str> = ptx.lines().filter(|l| l.contains("ld.global")).collect();
    assert_eq!(global.len(), 1, "{ptx}");
    assert!(
        global[0].contains("no_allocate") || global[0].contains(".cg"),
        "{ptx}"
    );
    for l in ptx.lines().filter(|l| l.contains("ld.param")) {
        assert!(
            !l.contains("no_allocate") && !l.contains(".cg") && !l.contains(".ca"),
            "{l}"
        );
    }
}

/// A struct's pointer fields declared in another address space (shared,
/// constant) are not global: the backend reads through them with
/// `ld.shared`/`ld.const`, and a generic read of a shared pointer taken from
/// one (in a device function) is no global load either. Only `s.gp[i]` is
/// decided, and no cache operator lands anywhere but on its `ld.global`.
#[test]
fn struct_pointer_fields_of_other_spaces_are_left_alone() {
    let (report, ptx) = compile("byval_spaces.cu", &["--cache-policy=cache-none"]);
    let k = unit(&report, "k(");
    let patterns: Vec<&str> = (k["loads"].as_array().unwrap().iter())
        .map(|l| l["pattern"].as_str().unwrap())
        .collect();
    assert_eq!(patterns, ["[s + 16] + 4*tid.x"], "{k:#}");
    let g = unit(&report, "g(");
    assert!(g["loads"].as_array().unwrap().is_empty(), "{g:#}");
    for l in ptx
        .lines()
        .filter(|l| l.contains("no_allocate") || l.contains(".cg"))
    {
        assert!(
            l.contains("ld.global"),
            "a cache operator off a global load: {l}\n{ptx}"
        );
    }
    assert_eq!(ptx.matches("no_allocate").count(), 1, "{ptx}");
}

/// A struct passed by value that the kernel writes
/// (`testdata/regress/byval_written.cu`: `v.data = tile - ...` on one path)
/// holds no host pointer after the store: a read through `v.data` may read
/// shared memory. At -O0 the backend reads it with a generic `ld`, and a
/// first version of the byval rule gave that `ld` a cache operator (found
/// by an adversarial review). Now no pointer read from a written parameter
/// copy counts as global, at any level: nothing through `v.data` is
/// decided, and no operator lands off an `ld.global`. At -O3 only
/// `scale[r]` is decided.
#[test]
fn a_struct_the_kernel_writes_holds_no_host_pointer() {
    for (level, decided) in [("-O0", 0), ("-O3", 1)] {
        let (report, ptx) = compile("byval_written.cu", &["--cache-policy=cache-none", level]);
        let k = unit(&report, "scale_rows(");
        let patterns: Vec<&str> = (k["loads"].as_array().unwrap().iter())
            .map(|l| l["pattern"].as_str().unwrap())
            .collect();
        assert_eq!(patterns.len(), decided, "{level}: {k:#}");
        assert!(
            patterns.iter().all(|p| p.starts_with("scale")),
            "{level}: {k:#}"
        );
        for l in ptx
            .lines()
            .filter(|l| l.contains("no_allocate") || l.contains(".cg"))
        {
            assert!(
                l.contains("ld.global"),
                "{level}: operator off a global load: {l}\n{ptx}"
            );
        }
    }
}

#[test]
fn function_called_through_a_pointer_is_left_alone() {
    let (report, _) = compile("indirect_call.cu", &["--cache-policy=cache-none"]);
    let get = unit(&report, "get(");
    assert!(get["loads"].as_array().unwrap().is_empty(), "{get:#}");
    assert_eq!(
        get["skipped"][0]["why"],
        "generic pointer not provably global"
    );
}

#[test]
fn relocatable_device_code_makes_callers_unknown() {
    let (whole, _) = compile("callee.cu", &["--cache-policy=cache-none"]);
    assert_eq!(
        unit(&whole, "get(")["loads"].as_array().unwrap().len(),
        1,
        "{whole:#}"
    );
    let (rdc, _) = compile("callee.cu", &["--cache-policy=cache-none", "-fgpu-rdc"]);
    assert!(
        unit(&rdc, "get(")["loads"].as_array().unwrap().is_empty(),
        "{rdc:#}"
    );
}

/// Separate compilation names internal symbols after the unit's ID, which
/// clang hashes from the command line; the driver's own runs have scratch
/// paths there. One ID per input and command: the same PTX on every run,
/// the same names for every arch, and otherwise clang's PTX.
#[test]
fn separate_compilation_names_internal_symbols_the_same_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(testdata("regress/rdc_internal.cu"), d.join("k.cu")).unwrap();
    let suffixes = |ptx: &str| -> Vec<String> {
        let mut v: Vec<String> = (ptx.match_indices("__intern__"))
            .map(|(i, _)| {
                let hash = ptx[i + 10..].chars().take_while(char::is_ascii_hexdigit);
                format!("__intern__{}", hash.collect::<String>())
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let ours = |args: &[&str]| {
        let out = run(Command::new(driver())
            .current_dir(d)
            .args(["-fgpu-rdc", "-O3", "k.cu", "--cuda-device-only", "-S"])
            .args(args));
        assert!(out.status.success(), "{}", text(&out).1);
    };
    ours(&["--cuda-gpu-arch=sm_70", "-o", "k.ptx"]);
    let first = std::fs::read_to_string(d.join("k.ptx")).unwrap();
    ours(&["--cuda-gpu-arch=sm_70", "-o", "k.ptx"]);
    let second = std::fs::read_to_string(d.join("k.ptx")).unwrap();
    assert_eq!(first, second, "two runs, two PTX texts");
    let names = suffixes(&first);
    assert_eq!(names.len(), 1, "{names:?}");
    // clang's own PTX, but for the ID's hash.
    let made = run(device_clang("sm_70").current_dir(d).args([
        "-fgpu-rdc",
        "-O3",
        "-S",
        "-o",
        "clang.ptx",
        "k.cu",
    ]));
    assert!(made.status.success());
    let theirs = std::fs::read_to_string(d.join("clang.ptx")).unwrap();
    let unnamed = |ptx: &str, names: &[String]| {
        let mut t = gpucc_cache_pass::emit::ptx::normalized(ptx);
        for n in names {
            t = t.replace(n.as_str(), "__intern__ID");
        }
        t
    };
    assert_eq!(
        unnamed(&first, &names),
        unnamed(&theirs, &suffixes(&theirs))
    );
    // Two archs in one run: one name in both; also with clang's default
    // written out (`-fuse-cuid=hash`, which would hash the driver's runs).
    for extra in [&[][..], &["-fuse-cuid=hash"][..]] {
        let mut args = vec!["--cuda-gpu-arch=sm_70", "--cuda-gpu-arch=sm_90"];
        args.extend_from_slice(extra);
        ours(&args);
        let a = std::fs::read_to_string(d.join("k-sm_70.ptx")).unwrap();
        let b = std::fs::read_to_string(d.join("k-sm_90.ptx")).unwrap();
        assert_eq!(suffixes(&a), suffixes(&b), "{extra:?}");
        ours(&args);
        let again = std::fs::read_to_string(d.join("k-sm_70.ptx")).unwrap();
        assert_eq!(a, again, "{extra:?}: two runs, two PTX texts");
    }
}

#[test]
fn loop_exit_test_is_not_a_guard() {
    let (report, _) = compile("loop_exit.cu", &[]);
    let k = unit(&report, "loop_exit(");
    let after = k["loads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["line"] == 8)
        .unwrap();
    // a[tid % 16] for 256 threads, sectored: bytes 0..63 = 2 sectors, 64 on;
    // 8 warps x 2 segments x 32 = 512 off; every thread runs it.
    assert_eq!(after["active_threads"], 256, "{after:#}");
    assert_eq!(
        (
            after["traffic_on_bytes"].as_u64(),
            after["traffic_off_bytes"].as_u64()
        ),
        (Some(64), Some(512))
    );
    assert_eq!(after["decision"], "cache");
}

#[test]
fn deep_chains_give_up_quickly() {
    let start = std::time::Instant::now();
    let (report, _) = compile("deep.cu", &[]);
    let l = &unit(&report, "deep(")["loads"][0];
    assert_eq!(l["analyzable"], false, "{l:#}");
    assert!(l["pattern"].as_str().unwrap().chars().count() <= 200);
    // Plain clang takes about a second on this; exponential work would not finish.
    assert!(start.elapsed().as_secs() < 60, "took {:?}", start.elapsed());
}

#[test]
fn launch_bounds_beyond_cuda_limits_are_ignored() {
    let (report, _) = compile("huge_bounds.cu", &[]);
    let k = unit(&report, "huge_bounds(");
    assert_eq!(k["block_dim"], serde_json::json!([256, 1, 1]));
    assert!(report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("exceed CUDA's 1024")));
}

/// Lowers a regression `.ll` under cache-none, then llc + ptxas.
fn lower_and_assemble(file: &str) -> (String, String) {
    let ir = transform_ll(
        &testdata(&format!("regress/{file}")),
        Mode::Full,
        "policy=cache-none",
    );
    let dir = tempfile::tempdir().unwrap();
    let (ll, ptx) = (dir.path().join("k.ll"), dir.path().join("k.ptx"));
    std::fs::write(&ll, &ir).unwrap();
    let o = run(Command::new("llc-19")
        .args(["-mcpu=sm_90", "-mattr=+ptx85"])
        .arg(&ll)
        .arg("-o")
        .arg(&ptx));
    assert!(o.status.success(), "{}", text(&o).1);
    assert_ptxas_accepts(&ptx, "sm_90");
    (ir, std::fs::read_to_string(ptx).unwrap())
}

#[test]
fn narrow_pointers_load_their_own_width() {
    let (ir, ptx) = lower_and_assemble("narrow_pointers.ll");
    assert!(
        ir.contains("asm sideeffect \"ld.global.L1::no_allocate.u32 $0, [$1];\", \"=r,l\""),
        "{ir}"
    );
    assert_eq!(global_loads(&ptx), vec!["ld.global.L1::no_allocate.u32"]);
}

#[test]
fn pointer_vectors_stay_plain_and_valid() {
    let (ir, _) = lower_and_assemble("pointer_vectors.ll");
    assert!(ir.contains("load <2 x ptr>"), "{ir}");
    assert!(ir.contains("!gpucc.cache.unlowered"), "{ir}");
}

/// Under clang, a bad GPUCC_CACHE_OPTIONS is a compile error, not a crash.
#[test]
fn bad_environment_options_under_clang() {
    let o = run(device_clang("sm_90")
        .args(["-S", "-O3"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .env("GPUCC_CACHE_OPTIONS", "policy=bogus")
        .arg(testdata("cu/sample.cu"))
        .arg("-o")
        .arg("/dev/null"));
    let err = text(&o).1;
    assert!(!o.status.success());
    assert!(
        !err.contains("Stack dump") && !err.contains("PLEASE submit"),
        "{err}"
    );
    assert!(err.lines().any(|l| l == "error: gpucc-cache: invalid value 'bogus' for policy: expected auto, conservative, aggressive, cache-all, cache-none, off"), "{err}");
}

/// Like `compile`, for another arch and without the PTX check's arch fixed.
fn compile_for(file: &str, arch: &str, extra: &[&str]) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let (json, ptx) = (dir.path().join("r.json"), dir.path().join("k.ptx"));
    let input = testdata(file);
    let report_file = format!("--cache-report-file={}", json.display());
    let mut flags = vec!["--cache-report=json", &report_file];
    flags.extend_from_slice(extra);
    let (ok, err) = gpucc_to(&input, arch, &ptx, &flags);
    assert!(ok, "{file}: {err}");
    assert_ptxas_accepts(&ptx, arch);
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (report, std::fs::read_to_string(&ptx).unwrap())
}

fn loads(unit: &Value) -> &Vec<Value> {
    unit["loads"].as_array().unwrap()
}

#[test]
fn read_only_loads_before_sm_70_are_not_the_models_to_choose() {
    let (report, ptx) = compile_for("regress/readonly_old_arch.cu", "sm_52", &[]);
    let k = unit(&report, "readonly_sum(");
    for l in loads(k) {
        assert!(l["in_kernel"].is_null(), "{l:#}");
        assert_eq!(l["operator"], "ld.global.nc", "{l:#}");
        let notes = l["notes"].to_string();
        assert!(notes.contains("read-only load"), "{notes}");
    }
    assert_eq!(ptx.matches("ld.global.nc.f32").count(), 2, "{ptx}");
    // From sm_70 the same loads may bypass as .nc.L1::no_allocate: the model decides them.
    let (report, _) = compile_for("regress/readonly_old_arch.cu", "sm_90", &[]);
    let k = unit(&report, "readonly_sum(");
    assert!(loads(k).iter().all(|l| !l["in_kernel"].is_null()), "{k:#}");
}

#[test]
fn copies_the_backend_turns_into_loops_are_left_alone() {
    let (report, ptx) = compile_for("regress/big_copy.cu", "sm_52", &[]);
    let k = unit(&report, "nudge(");
    let skipped = k["skipped"].to_string();
    assert!(
        skipped.contains("copy of 188 B, which the backend turns into a byte loop (over 64 B)"),
        "{skipped}"
    );
    // The one load decided is the 4-byte t.v[0]; the byte loop stays plain.
    assert_eq!(loads(k).len(), 1, "{k:#}");
    assert!(ptx.contains("ld.global.u8"), "{ptx}");
    assert!(
        !ptx.contains("ld.global.cg.u8") && !ptx.contains("ld.global.ca.u8"),
        "{ptx}"
    );
}

#[test]
fn an_argument_nobody_gave_invents_no_reuse() {
    let flags = ["--block-dim=16x16", "--grid-dim=256x256"];
    let (report, ptx) = compile_for("regress/unknown_width.cu", "sm_52", &flags);
    let k = unit(&report, "scale2d(");
    let model = &loads(k)[0]["in_kernel"];
    // Rows y * w collapse onto one row if w reads as 0: 112 of 128 hits before.
    assert_eq!(model["hits"], 0, "{model:#}");
    // With no reuse, caching it fetches what bypassing does (sm_52's
    // L1/TEX fills 32-byte sectors, issue 19 fact 1), so the tie goes to
    // cache (fact 4): the decision is no evidence of reuse either way.
    let t = &k["simulated"]["traffic_bytes"];
    assert_eq!(t["cache_all"], t["cache_none"], "{k:#}");
    assert_eq!(loads(k)[0]["decision"], "cache", "{k:#}");
    // A pure shift by an unknown keeps the reuse between the two loads.
    let k = unit(&report, "pairs(");
    let second = &loads(k)[1]["in_kernel"];
    assert!(second["hits"].as_u64().unwrap() > 0, "{k:#}");
    let text = ptx.split(".entry").find(|e| e.contains("scale2d")).unwrap();
    assert!(!text.contains("ld.global.ca"), "{text}");
    // Rows j * n of a column walk: 8 loads, none reusing another's lines
    // (the 16 rows of threads of a block do share their column).
    let k = unit(&report, "column_walk(");
    assert_eq!(loads(k).len(), 8, "{k:#}");
    for l in loads(k) {
        let from = l["in_kernel"]["hits_from"].to_string();
        assert!(!from.contains("reuse lines of"), "{l:#}");
    }
    // t & n: unknown per thread, one sector per thread (8 blocks of 256).
    let m = &loads(unit(&report, "masked("))[0]["in_kernel"];
    assert_eq!(
        (m["sectors"].as_u64(), m["hits"].as_u64()),
        (Some(2048), Some(0)),
        "{m:#}"
    );
    // blockIdx.x * n: each block's 8 warps share one line: 7 of 8 requests hit.
    let m = &loads(unit(&report, "block_row("))[0]["in_kernel"];
    assert_eq!(
        m["hits"].as_u64().unwrap() * 8,
        m["sectors"].as_u64().unwrap() * 7,
        "{m:#}"
    );
}

#[test]
fn the_entry_test_of_a_rotated_loop_guards_its_body() {
    let (report, _) = compile_for("regress/rotated_loop.cu", "sm_70", &["--kernel-arg=n=100"]);
    let l = &loads(unit(&report, "copy_strided("))[0];
    assert_eq!(l["active_threads"], 100, "{l:#}");
    assert_eq!(l["guards"][0], "tid.x < 100", "{l:#}");
}

#[test]
fn the_models_choice_stands_where_the_sampled_block_runs_no_thread() {
    // One thread a block: the paper's sampled block decides nothing, the
    // model sees 32 blocks; what it simulated is what the PTX says.
    let (report, ptx) = compile_for("corpus/stencil1d_radius.cu", "sm_61", &["--block-dim=1"]);
    let k = &report["kernels"][0];
    let mut cached = 0;
    for l in loads(k) {
        let Some(model) = l["in_kernel"]["model"].as_str() else {
            continue;
        };
        assert_eq!(l["decision"], model, "{l:#}");
        if model == "cache" {
            assert_eq!(l["operator"], "ld.global.ca", "{l:#}");
            cached += l["ptx_loads"].as_u64().unwrap() as usize;
        }
    }
    assert!(cached > 0, "{k:#}");
    assert_eq!(ptx.matches("ld.global.ca").count(), cached, "{ptx}");
}

/// `(rows, ld.global in the PTX)` for one operator: how many `ld.global`
/// the report's rows of that operator account for, and how many the PTX has.
fn operator_counts(unit: &Value, ptx: &str, operator: &str) -> (u64, usize) {
    let rows: u64 = loads(unit)
        .iter()
        .filter(|l| l["operator"] == operator)
        .map(|l| l["ptx_loads"].as_u64().unwrap_or(0))
        .sum();
    // The opcode less its vector width and type: `ld.global.nc.v2.f32` → `ld.global.nc`.
    let operator_of = |opcode: &str| -> String {
        let parts: Vec<&str> = opcode
            .split('.')
            .take_while(|q| {
                let typed = q.len() > 1
                    && matches!(&q[..1], "b" | "u" | "s" | "f" | "v")
                    && q[1..].parse::<u32>().is_ok();
                !typed
            })
            .collect();
        parts.join(".")
    };
    let in_ptx = ptx
        .lines()
        .filter_map(|l| l.split_whitespace().find(|t| t.starts_with("ld.global")))
        .filter(|op| operator_of(op) == operator)
        .count();
    (rows, in_ptx)
}

#[test]
fn a_load_that_lost_its_key_gives_no_decision_to_ldg_reads() {
    // Issue 16 item 8: x[i] is sunk out of its block and loses its key; the
    // __ldg reads of the same width (coef, gain) were unanalysed and took
    // x[i]'s bypass (ld.global.nc.L1::no_allocate) while the report said
    // nothing was unaccounted.
    let (report, ptx) = compile_for(
        "regress/hoisted_ldg.cu",
        "sm_90",
        &["--cache-policy=conservative"],
    );
    let k = unit(&report, "fir_gain(");
    let rows = loads(k);
    let ldg: Vec<&Value> = rows
        .iter()
        .filter(|l| l["operator"].as_str().unwrap().starts_with("ld.global.nc"))
        .collect();
    assert!(!ldg.is_empty(), "__ldg reads are not analysed: {k:#}");
    let x = rows.iter().find(|l| l["line"] == 14).expect("x[i] row");
    assert_eq!(x["decision"], "bypass", "{x:#}");
    // Every operator in the PTX is the one its own row decided.
    for op in [
        "ld.global.L1::no_allocate",
        "ld.global.nc.L1::no_allocate",
        "ld.global.nc",
    ] {
        let (rows, in_ptx) = operator_counts(k, &ptx, op);
        assert_eq!(
            rows as usize, in_ptx,
            "{op}: rows {rows}, PTX {in_ptx}\n{ptx}\n{k:#}"
        );
    }
    let p = &k["ptx"];
    assert_eq!(p["unaccounted"], 0, "{k:#}");
    let listed: u64 = rows
        .iter()
        .chain(k["skipped"].as_array().unwrap())
        .map(|l| l["ptx_loads"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(listed, p["global_loads"].as_u64().unwrap(), "{k:#}");
}
