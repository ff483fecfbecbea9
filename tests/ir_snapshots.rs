//! Snapshots of the annotated and lowered IR for the small hand-written
//! inputs in `testdata/ll/`, one idea per file (each file's first line says
//! which). Every snapshot runs under an explicit policy; the assertions next
//! to them pin the facts a reviewer would otherwise have to spot in the
//! snapshot (which loads stay plain, which PTX form a shape gets). The last
//! test compiles every lowered module with llc-19 and assembles it with
//! ptxas.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{assert_ptxas_accepts, global_loads, run, stable_ir, testdata, text, transform_ll};
use gpucc_cache_pass::{options::Options, run_on, Error, Mode};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

const CACHE_NONE: &str = "policy=cache-none";
const CACHE_ALL: &str = "policy=cache-all";

fn ll(stem: &str) -> PathBuf {
    testdata(&format!("ll/{stem}.ll"))
}

fn annotate(stem: &str, params: &str) -> String {
    stable_ir(&transform_ll(&ll(stem), Mode::Annotate, params))
}

fn full(stem: &str, params: &str) -> String {
    stable_ir(&transform_ll(&ll(stem), Mode::Full, params))
}

/// Snapshot name: `<file>__<mode>__<policy>`.
fn name(stem: &str, mode: &str, params: &str) -> String {
    let policy = params
        .trim_start_matches("policy=")
        .replace(['-', '=', ';'], "_");
    format!("{stem}__{mode}__{policy}")
}

/// Snapshots the Annotate and Full output of `stem` under `params`;
/// returns (annotated, lowered).
fn snapshot_both(stem: &str, params: &str) -> (String, String) {
    let src = std::fs::read_to_string(ll(stem)).unwrap();
    let idea = src
        .lines()
        .next()
        .unwrap_or("")
        .trim_start_matches(';')
        .trim();
    let a = annotate(stem, params);
    let f = full(stem, params);
    insta::with_settings!({ description => format!("testdata/ll/{stem}.ll, {params}: {idea}"), omit_expression => true }, {
        insta::assert_snapshot!(name(stem, "annotate", params), a);
        insta::assert_snapshot!(name(stem, "full", params), f);
    });
    (a, f)
}

/// Instruction lines (metadata definitions and declarations left out).
fn instructions(ir: &str) -> Vec<&str> {
    ir.lines()
        .map(str::trim)
        .filter(|l| l.starts_with('%') || l.starts_with("store ") || l.starts_with("call "))
        .collect()
}

/// The `load` instructions that are still plain loads.
fn plain_loads(ir: &str) -> Vec<&str> {
    instructions(ir)
        .into_iter()
        .filter(|l| {
            l.split_once(" = ")
                .is_some_and(|(_, rhs)| rhs.starts_with("load "))
        })
        .collect()
}

/// Loads carrying a `!gpucc.cache` decision (plain loads and lowered calls).
fn decided(ir: &str) -> Vec<&str> {
    instructions(ir)
        .into_iter()
        .filter(|l| l.contains("!gpucc.cache !"))
        .collect()
}

/// The inline-asm loads the pass wrote (they carry the `!gpucc.cache` node).
fn lowered(ir: &str) -> Vec<&str> {
    decided(ir)
        .into_iter()
        .filter(|l| l.contains("asm sideeffect \"ld.global"))
        .collect()
}

/// Asserts that the lowered IR holds a call with exactly this asm text and constraints.
fn assert_asm(ir: &str, asm: &str, constraints: &str) {
    let needle = format!("asm sideeffect \"{asm}\", \"{constraints}\"");
    assert!(
        lowered(ir).iter().any(|l| l.contains(&needle)),
        "no lowered call `{needle}` in:\n{ir}"
    );
}

fn assert_has(ir: &str, needle: &str) {
    assert!(ir.contains(needle), "`{needle}` missing from:\n{ir}");
}

#[test]
fn scalar_integers() {
    let (a, f) = snapshot_both("shapes_int", CACHE_NONE);
    assert_eq!(decided(&a).len(), 4, "{a}");
    assert!(
        plain_loads(&f).is_empty(),
        "every int load is lowered:\n{f}"
    );
    assert_eq!(lowered(&f).len(), 4, "{f}");
    assert_asm(&f, "ld.global.L1::no_allocate.u8 $0, [$1];", "=h,l");
    assert_has(&f, "trunc i16 ");
    assert_asm(&f, "ld.global.L1::no_allocate.u16 $0, [$1];", "=h,l");
    assert_asm(&f, "ld.global.L1::no_allocate.u32 $0, [$1];", "=r,l");
    assert_asm(&f, "ld.global.L1::no_allocate.u64 $0, [$1];", "=l,l");
}

#[test]
fn scalar_floats() {
    let (a, f) = snapshot_both("shapes_float", CACHE_NONE);
    assert_eq!(decided(&a).len(), 4, "{a}");
    assert!(
        plain_loads(&f).is_empty(),
        "every float load is lowered:\n{f}"
    );
    assert_eq!(lowered(&f).len(), 4, "{f}");
    // half and bfloat: one b16 register, bitcast back.
    assert_eq!(
        f.matches("asm sideeffect \"ld.global.L1::no_allocate.b16 $0, [$1];\", \"=h,l\"")
            .count(),
        2,
        "{f}"
    );
    assert_has(&f, "bitcast i16 %1 to half");
    assert_has(&f, "bitcast i16 %1 to bfloat");
    assert_asm(&f, "ld.global.L1::no_allocate.f32 $0, [$1];", "=f,l");
    assert_asm(&f, "ld.global.L1::no_allocate.f64 $0, [$1];", "=d,l");
}

#[test]
fn loaded_pointer() {
    let (a, f) = snapshot_both("shapes_ptr", CACHE_NONE);
    assert_eq!(decided(&a).len(), 1, "{a}");
    assert!(plain_loads(&f).is_empty(), "{f}");
    assert_asm(&f, "ld.global.L1::no_allocate.u64 $0, [$1];", "=l,l");
    assert_has(&f, "inttoptr i64 %1 to ptr");
}

#[test]
fn vectors_of_32_and_64_bit_elements() {
    let (a, f) = snapshot_both("shapes_vec", CACHE_NONE);
    assert_eq!(decided(&a).len(), 4, "{a}");
    assert!(plain_loads(&f).is_empty(), "{f}");
    assert_eq!(lowered(&f).len(), 4, "{f}");
    assert_asm(
        &f,
        "ld.global.L1::no_allocate.v2.f32 {$0, $1}, [$2];",
        "=f,=f,l",
    );
    assert_asm(
        &f,
        "ld.global.L1::no_allocate.v4.f32 {$0, $1, $2, $3}, [$4];",
        "=f,=f,=f,=f,l",
    );
    assert_asm(
        &f,
        "ld.global.L1::no_allocate.v4.u32 {$0, $1, $2, $3}, [$4];",
        "=r,=r,=r,=r,l",
    );
    assert_asm(
        &f,
        "ld.global.L1::no_allocate.v2.f64 {$0, $1}, [$2];",
        "=d,=d,l",
    );
}

#[test]
fn vectors_of_half() {
    let (a, f) = snapshot_both("shapes_vec_half", CACHE_NONE);
    assert_eq!(decided(&a).len(), 3, "{a}");
    assert!(plain_loads(&f).is_empty(), "{f}");
    assert_eq!(lowered(&f).len(), 3, "{f}");
    assert_asm(
        &f,
        "ld.global.L1::no_allocate.v2.b16 {$0, $1}, [$2];",
        "=h,=h,l",
    );
    assert_asm(
        &f,
        "ld.global.L1::no_allocate.v4.b16 {$0, $1, $2, $3}, [$4];",
        "=h,=h,=h,=h,l",
    );
    // Eight halves: four 32-bit words, bitcast back to the vector.
    assert_asm(
        &f,
        "ld.global.L1::no_allocate.v4.b32 {$0, $1, $2, $3}, [$4];",
        "=r,=r,=r,=r,l",
    );
    assert_has(&f, "to <8 x half>");
}

#[test]
fn under_aligned_vector_stays_a_plain_load() {
    let (a, f) = snapshot_both("underaligned", CACHE_NONE);
    assert_eq!(decided(&a).len(), 1, "the load is still decided:\n{a}");
    assert!(lowered(&f).is_empty(), "{f}");
    let plain = plain_loads(&f);
    assert_eq!(plain.len(), 1, "{f}");
    assert!(
        plain[0].contains("load <4 x float>, ptr addrspace(1) %a, align 4"),
        "{}",
        plain[0]
    );
}

#[test]
fn only_global_memory_is_touched() {
    let (a, f) = snapshot_both("addrspaces", CACHE_NONE);
    let d = decided(&a);
    assert_eq!(d.len(), 1, "{a}");
    assert!(d[0].contains("load i32, ptr addrspace(1) %pg"), "{}", d[0]);
    assert_eq!(lowered(&f).len(), 1, "{f}");
    let plain = plain_loads(&f);
    assert_eq!(plain.len(), 5, "{f}");
    for space in [
        "ptr addrspace(3) %ps",
        "ptr addrspace(4) %pc",
        "ptr addrspace(5) %pl",
        "ptr %buf",
        "ptr addrspace(101) %pp",
    ] {
        assert!(
            plain
                .iter()
                .any(|l| l.contains(space) && !l.contains("!gpucc")),
            "no untouched load from {space}:\n{f}"
        );
    }
}

#[test]
fn volatile_load_left_alone() {
    let (a, f) = snapshot_both("volatile", CACHE_NONE);
    assert_eq!(decided(&a).len(), 1, "only the control is decided:\n{a}");
    assert_eq!(lowered(&f).len(), 1, "the control is lowered:\n{f}");
    assert_eq!(
        plain_loads(&f),
        vec!["%f = load volatile i32, ptr addrspace(1) %flag, align 4"],
        "{f}"
    );
}

#[test]
fn atomic_load_left_alone() {
    let (a, f) = snapshot_both("atomic", CACHE_NONE);
    assert_eq!(decided(&a).len(), 1, "only the control is decided:\n{a}");
    assert_eq!(lowered(&f).len(), 1, "the control is lowered:\n{f}");
    assert_eq!(
        plain_loads(&f),
        vec!["%f = load atomic i32, ptr addrspace(1) %flag monotonic, align 4"],
        "{f}"
    );
}

#[test]
fn existing_inline_asm_left_alone() {
    let original = "%x = call float asm sideeffect \"ld.global.cs.f32 $0, [$1];\", \"=f,l\"(ptr addrspace(1) %pa)";
    let (a, f) = snapshot_both("inline_asm", CACHE_NONE);
    for ir in [&a, &f] {
        assert!(
            instructions(ir).contains(&original),
            "the existing asm call changed:\n{ir}"
        );
    }
    assert_eq!(decided(&a).len(), 1, "{a}");
    assert_eq!(lowered(&f).len(), 1, "{f}");
    assert!(plain_loads(&f).is_empty(), "{f}");
}

#[test]
fn generic_pointer_from_kernel_param_is_global() {
    let (a, f) = snapshot_both("generic_gep", CACHE_NONE);
    let d = decided(&a);
    assert_eq!(d.len(), 1, "{a}");
    assert!(d[0].contains("load float, ptr %a"), "{}", d[0]);
    assert!(plain_loads(&f).is_empty(), "{f}");
    assert_has(&f, "addrspacecast ptr %a to ptr addrspace(1)");
    assert_asm(&f, "ld.global.L1::no_allocate.f32 $0, [$1];", "=f,l");
    let call = lowered(&f)[0];
    assert!(call.contains("(ptr addrspace(1) %"), "{call}");
}

#[test]
fn two_kernels_in_one_module() {
    let (a, f) = snapshot_both("two_kernels", CACHE_NONE);
    assert_eq!(decided(&a).len(), 2, "{a}");
    assert_eq!(lowered(&f).len(), 2, "{f}");
    assert!(plain_loads(&f).is_empty(), "{f}");
    for ir in [&a, &f] {
        assert_has(
            ir,
            "!{ptr @first, !\"block\", i32 256, i32 1, i32 1, !\"source\", !\"default\"}",
        );
        assert_has(
            ir,
            "!{ptr @second, !\"block\", i32 128, i32 1, i32 1, !\"source\", !\"maxntid (__launch_bounds__)\"}",
        );
    }
}

#[test]
fn host_module_is_rejected_and_unchanged() {
    let path = ll("host");
    for mode in [Mode::Full, Mode::Annotate, Mode::Lower, Mode::Print] {
        let context = Context::create();
        let buf = MemoryBuffer::create_from_file(&path).unwrap();
        let module = context.create_module_from_ir(buf).unwrap();
        let before = module.print_to_string().to_string();
        let opts = Options::parse(CACHE_NONE).unwrap();
        match run_on(&module, mode, &opts) {
            Err(Error::WrongTarget { triple }) => assert_eq!(triple, "x86_64-unknown-linux-gnu"),
            Err(e) => panic!("{mode:?}: expected WrongTarget, got {e}"),
            Ok(_) => panic!("{mode:?}: a host module was accepted"),
        }
        assert_eq!(
            module.print_to_string().to_string(),
            before,
            "{mode:?} changed the module"
        );
    }
}

#[test]
fn operators_on_sm_52() {
    let (a, f) = snapshot_both("arch_sm52", CACHE_NONE);
    assert_has(&a, "!\"operator\", !\"ld.global.cg\"");
    assert!(
        !a.contains("!mem.cache_hint"),
        "no L1 eviction hint before sm_70:\n{a}"
    );
    assert_asm(&f, "ld.global.cg.f32 $0, [$1];", "=f,l");
    assert!(plain_loads(&f).is_empty(), "{f}");

    let (a, f) = snapshot_both("arch_sm52", CACHE_ALL);
    assert_has(&a, "!\"operator\", !\"ld.global.ca\"");
    assert_asm(&f, "ld.global.ca.f32 $0, [$1];", "=f,l");
    assert!(plain_loads(&f).is_empty(), "{f}");
}

#[test]
fn operators_on_sm_90() {
    let (a, f) = snapshot_both("arch_sm90", CACHE_NONE);
    assert_has(&a, "!\"operator\", !\"ld.global.L1::no_allocate\"");
    assert_has(&a, "!{!\"nvvm.l1_eviction\", !\"no_allocate\"}");
    assert_eq!(decided(&a).len(), 1, "{a}");
    assert!(
        a.lines()
            .any(|l| l.contains("load float") && l.contains("!mem.cache_hint !")),
        "{a}"
    );
    assert_asm(&f, "ld.global.L1::no_allocate.f32 $0, [$1];", "=f,l");
    assert!(plain_loads(&f).is_empty(), "{f}");

    // Caching is the plain load on sm_70+: decided, annotated, not lowered.
    let (a, f) = snapshot_both("arch_sm90", CACHE_ALL);
    assert_has(
        &a,
        "!\"decision\", !\"cache\", !\"operator\", !\"ld.global\",",
    );
    assert!(!a.contains("!mem.cache_hint"), "{a}");
    assert!(lowered(&f).is_empty(), "{f}");
    let plain = plain_loads(&f);
    assert_eq!(plain.len(), 1, "{f}");
    assert!(plain[0].contains("!gpucc.cache !"), "{}", plain[0]);
}

/// Decided loads (Annotate) and lowered loads (Full), under cache-none on
/// the file's own arch, for every nvptx input: the lowered count equals the
/// global-load count except where a load cannot be lowered.
#[test]
fn cache_none_lowers_every_global_load() {
    // (file, global loads, lowered by Full under cache-none)
    let expected = [
        ("addrspaces", 1, 1),
        ("arch_sm52", 1, 1),
        ("arch_sm90", 1, 1),
        ("atomic", 1, 1),
        ("generic_gep", 1, 1),
        ("inline_asm", 1, 1),
        ("shapes_float", 4, 4),
        ("shapes_int", 4, 4),
        ("shapes_ptr", 1, 1),
        ("shapes_vec", 4, 4),
        ("shapes_vec_half", 3, 3),
        ("two_kernels", 2, 2),
        ("underaligned", 1, 0),
        ("volatile", 1, 1),
    ];
    let files = nvptx_inputs();
    let stems: Vec<String> = files.iter().map(|(p, _)| stem(p)).collect();
    let listed: Vec<&str> = expected.iter().map(|e| e.0).collect();
    assert_eq!(
        stems, listed,
        "every nvptx input in testdata/ll has an expected count"
    );
    for (file, globals, lowered_count) in expected {
        let a = annotate(file, CACHE_NONE);
        assert_eq!(decided(&a).len(), globals, "{file}: decided loads\n{a}");
        let f = full(file, CACHE_NONE);
        assert_eq!(
            lowered(&f).len(),
            lowered_count,
            "{file}: lowered loads\n{f}"
        );
    }
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Every `.ll` in testdata/ll whose module is nvptx, sorted, with its `target-cpu`.
fn nvptx_inputs() -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = std::fs::read_dir(testdata("ll"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .filter_map(|p| {
            let src = std::fs::read_to_string(&p).unwrap();
            if !src.contains("target triple = \"nvptx64-nvidia-cuda\"") {
                return None;
            }
            let arch = src
                .split("\"target-cpu\"=\"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .unwrap_or_else(|| panic!("{}: no target-cpu", p.display()))
                .to_string();
            Some((p, arch))
        })
        .collect();
    out.sort();
    out
}

/// Every lowered shape is valid PTX: each nvptx input, through Full under
/// cache-none and cache-all, compiled by llc-19 for its arch and assembled
/// by ptxas. The sm_90 inputs are also retargeted to sm_52 (their
/// `target-cpu` rewritten) so that every shape is assembled with `.ca` and
/// `.cg` too. The PTX holds exactly as many loads with the decided operator
/// as the IR has lowered calls.
#[test]
fn lowered_modules_assemble_with_ptxas() {
    let inputs = nvptx_inputs();
    assert!(inputs.len() >= 14, "{inputs:?}");
    let dir = tempfile::tempdir().unwrap();
    let mut variants: Vec<(PathBuf, String, String)> = Vec::new();
    for (path, arch) in &inputs {
        let stem = stem(path);
        variants.push((path.clone(), arch.clone(), stem.clone()));
        if arch != "sm_52" {
            let src = std::fs::read_to_string(path).unwrap();
            let from = format!("\"target-cpu\"=\"{arch}\"");
            assert!(src.contains(&from), "{stem}");
            let retargeted = dir.path().join(format!("{stem}.sm_52.ll"));
            std::fs::write(&retargeted, src.replace(&from, "\"target-cpu\"=\"sm_52\"")).unwrap();
            variants.push((retargeted, "sm_52".into(), format!("{stem}.sm_52")));
        }
    }
    for (path, arch, name) in &variants {
        for params in [CACHE_NONE, CACHE_ALL] {
            let ir = transform_ll(path, Mode::Full, params);
            let tag = format!("{name}.{}", params.trim_start_matches("policy="));
            let ll = dir.path().join(format!("{tag}.out.ll"));
            let ptx = dir.path().join(format!("{tag}.ptx"));
            std::fs::write(&ll, &ir).unwrap();
            let o = run(Command::new("llc-19")
                .arg(format!("-mcpu={arch}"))
                .arg(&ll)
                .arg("-o")
                .arg(&ptx));
            assert!(
                o.status.success(),
                "llc-19 -mcpu={arch} {tag}:\n{}",
                text(&o).1
            );
            assert_ptxas_accepts(&ptx, arch);
            let ptx_text = std::fs::read_to_string(&ptx).unwrap();
            // The operator each lowered load must show in the PTX.
            let op = match (params, arch.as_str()) {
                (CACHE_NONE, "sm_52") => "ld.global.cg.",
                (_, "sm_52") => "ld.global.ca.",
                _ => "ld.global.L1::no_allocate.",
            };
            let in_ptx = global_loads(&ptx_text)
                .iter()
                .filter(|l| l.starts_with(op))
                .count();
            let want = lowered(&ir).len();
            assert_eq!(in_ptx, want, "{tag}: {op} loads in the PTX\n{ptx_text}");
        }
    }
}
