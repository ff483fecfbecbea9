//! Tests of the PTX rewrite (`ptx`), kept apart so that the file holds the
//! rewrite alone: each cache operator and qualifier rule on hand-written PTX.

use super::*;

fn t(sm: &str, version: u32) -> Target {
    Target {
        arch: Arch::parse(sm).unwrap(),
        version,
    }
}

#[test]
fn operators_per_generation() {
    let maxwell = t("sm_52", 85);
    let hopper = t("sm_90", 85);
    let old_volta = t("sm_70", 60);
    assert_eq!(
        rewrite("ld.global.f32", Decision::Cache, maxwell).unwrap(),
        "ld.global.ca.f32"
    );
    assert_eq!(
        rewrite("ld.global.v4.f32", Decision::Bypass, maxwell).unwrap(),
        "ld.global.cg.v4.f32"
    );
    assert!(rewrite("ld.global.nc.f32", Decision::Bypass, maxwell).is_err());
    assert_eq!(
        rewrite("ld.global.f32", Decision::Cache, hopper).unwrap(),
        "ld.global.f32"
    );
    assert_eq!(
        rewrite("ld.global.u8", Decision::Bypass, hopper).unwrap(),
        "ld.global.L1::no_allocate.u8"
    );
    assert_eq!(
        rewrite("ld.global.nc.v2.f32", Decision::Bypass, hopper).unwrap(),
        "ld.global.nc.L1::no_allocate.v2.f32"
    );
    assert_eq!(
        rewrite("ld.global.s32", Decision::Bypass, old_volta).unwrap(),
        "ld.global.cg.s32"
    );
    assert!(rewrite("ld.global.nc.f32", Decision::Bypass, old_volta).is_err());
    assert!(rewrite("ld.global.cs.f32", Decision::Bypass, hopper).is_err());
    assert_eq!(
        rewrite("ld.global.f32", Decision::Default, maxwell).unwrap(),
        "ld.global.f32"
    );
}

#[test]
fn keys_are_applied_and_removed() {
    let bypass = Key {
        id: 3,
        decision: Decision::Bypass,
    }
    .line();
    let cache = Key {
        id: 4,
        decision: Decision::Cache,
    }
    .line();
    // File 1 is the source's, file 2 the key file: the same key line in
    // file 1 (`#line 1073741826`) is the source's own, never a key.
    let ptx = format!(
            "//\n.version 8.5\n.target sm_52, debug\n.address_size 64\n\n.visible .entry k(\n)\n{{\n\
             \t.loc\t1 0 0\n$L__func_begin0:\n\t.loc\t2 {bypass} 0\n\t@%p1 ld.global.f32 \t%f1, [%rd1+4];\n\
             \t.loc\t2 {cache} 0\n\tld.global.nc.f32 \t%f2, [%rd2];\n\tld.global.v2.u32 \t{{%r1, %r2}}, [%rd3];\n\
             \t// begin inline asm\n\tld.global.f32 %f3, [%rd4];\n\t// end inline asm\n\
             \t.loc\t2 {} 0\n\tld.global.u8 \t%rs1, [%rd5];\n\
             \t.loc\t1 {bypass} 0\n\tld.global.f32 \t%f4, [%rd6];\n\tret;\n$L__tmp1:\n$L__func_end0:\n}}\n\
             \t.file\t1 \"/src/k.cu\"\n\t.file\t2 \"gpucc-cache-keys\"\n\
             \t.section\t.debug_abbrev\n\t{{\n.b8 1\n\t}}\n\t.section\t.debug_loc\t{{\t}}\n",
            keys::NEUTRAL_LINE
        );
    let a = apply(&ptx, Strip::AllDebugInfo).unwrap();
    let expect = "//\n.version 8.5\n.target sm_52\n.address_size 64\n\n.visible .entry k(\n)\n{\n\
             \t@%p1 ld.global.cg.f32 \t%f1, [%rd1+4];\n\
             \tld.global.nc.f32 \t%f2, [%rd2];\n\tld.global.ca.v2.u32 \t{%r1, %r2}, [%rd3];\n\
             \t// begin inline asm\n\tld.global.f32 %f3, [%rd4];\n\t// end inline asm\n\
             \tld.global.u8 \t%rs1, [%rd5];\n\tld.global.f32 \t%f4, [%rd6];\n\tret;\n}\n";
    assert_eq!(a.text, expect);
    let keys: Vec<Option<u32>> = a.loads.iter().map(|l| l.key.map(|k| k.id)).collect();
    // The asm load is not counted; the loads after the neutral line and
    // after the source's own line 1073741826 have no key.
    assert_eq!(keys, vec![Some(3), Some(4), Some(4), None, None]);
    assert_eq!(
        a.loads[1].kept,
        Some("read-only (.nc) path kept before sm_70")
    );
    assert!(a.loads.iter().all(|l| l.function == "k"));
    let user = apply(&ptx, Strip::KeysOnly).unwrap();
    assert!(user.text.contains("\t.loc\t1 0 0\n"));
    assert!(user.text.contains(".target sm_52, debug"));
    assert!(!user.text.contains(&format!("2 {bypass}")));
    // The source's line stays in its line table.
    assert!(user.text.contains(&format!("\t.loc\t1 {bypass} 0\n")));
}

#[test]
fn only_the_key_file_carries_keys() {
    assert_eq!(key_file_index(".file\t2 \"gpucc-cache-keys\""), Some(2));
    assert_eq!(
        key_file_index(".file 7 \"/a/b/gpucc-cache-keys\", 0, 0"),
        Some(7)
    );
    assert_eq!(key_file_index(".file\t1 \"/src/k.cu\""), None);
    assert_eq!(key_file_index(".file\t1 \"gpucc-cache-keys.cu\""), None);
    assert_eq!(key_file_index(".file\t1 \"x\\\"gpucc-cache-keys\""), None);
    assert_eq!(loc_file_line(".loc\t3 1073741826 0"), Some((3, 1073741826)));
    // A key line in the source's own file is not a key.
    let ptx = ".version 8.5\n.target sm_90\n.entry k()\n{\n\t.loc\t1 1073741826 0\n\tld.global.f32 \t%f1, [%rd1];\n}\n\t.file\t1 \"k.cu\"\n";
    let a = apply(ptx, Strip::KeysOnly).unwrap();
    assert_eq!(a.text, ptx);
    assert_eq!(a.loads[0].key, None);
}

/// A report with one kernel `k` whose loads are `(type, operator, decision, key)`.
fn report_with(loads: &[(&str, &str, &str, u32)]) -> Report {
    let row = |(ty, op, d, key): &(&str, &str, &str, u32)| {
        serde_json::json!({
            "line": 1, "column": 1, "type": ty, "bytes": 4, "pattern": "", "guards": [],
            "analyzable": true, "active_threads": 1, "locality": [], "traffic_on_bytes": 0,
            "traffic_off_bytes": 0, "decision": d, "operator": op, "reason": "", "lowered": false,
            "notes": [], "key": key
        })
    };
    let kernel = serde_json::json!({
        "name": "k", "symbol": "k", "kind": "kernel", "block_dim": [1, 1, 1],
        "block_dim_source": "", "sampled_blocks": 1,
        "loads": loads.iter().map(row).collect::<Vec<_>>(), "skipped": []
    });
    let mut r: Report = serde_json::from_value(serde_json::json!({
        "arch": "sm_90", "model": "sectored", "policy": "auto", "l1_bytes": 0,
        "kernels": [kernel], "warnings": []
    }))
    .unwrap_or_else(|e| panic!("{e}"));
    r.warnings.clear();
    r
}

#[test]
fn a_keyless_load_takes_a_decision_only_from_its_own_shape() {
    let ptx = ".version 8.5\n.target sm_90\n.entry k()\n{\n\tld.global.f32 \t%f1, [%rd1];\n\tld.global.nc.f32 \t%f2, [%rd2];\n}\n";
    let applied = apply(ptx, Strip::AllDebugInfo).unwrap();
    // One plain float load lost its key; an __ldg read of the same width
    // also has none: only the plain one is matched.
    let report = report_with(&[("float", "ld.global.L1::no_allocate", "bypass", 0)]);
    let keys = recover(&report, &applied);
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert_eq!(keys[&0].decision, Decision::Bypass);
    // Two candidates that disagree: neither decision is given.
    let report = report_with(&[
        ("float", "ld.global.L1::no_allocate", "bypass", 0),
        ("float", "ld.global", "cache", 1),
    ]);
    assert!(recover(&report, &applied).is_empty());
    // An integer load of the same width is another access.
    let report = report_with(&[("i32", "ld.global.L1::no_allocate", "bypass", 0)]);
    assert!(recover(&report, &applied).is_empty());
    // More keyless loads than candidates: none is matched.
    let two = ".version 8.5\n.target sm_90\n.entry k()\n{\n\tld.global.f32 \t%f1, [%rd1];\n\tld.global.f32 \t%f2, [%rd2];\n}\n";
    let applied = apply(two, Strip::AllDebugInfo).unwrap();
    let report = report_with(&[("float", "ld.global.L1::no_allocate", "bypass", 0)]);
    assert!(recover(&report, &applied).is_empty());
    let mut report = report;
    account(&mut report, &applied);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("cannot be told apart")),
        "{:?}",
        report.warnings
    );
}

/// Inline asm whose text holds clang's own markers (`// end inline asm`
/// then `// begin inline asm`, so that they still pair): the `ld.global`
/// between them is the user's asm, though the scan cannot tell; a load
/// the analysis saw lost its key, with the same shape. Without the guard
/// the asm's load took that load's decision and the user's asm text
/// changed (adversarial review, eighteenth session).
#[test]
fn a_function_with_inline_asm_gives_no_keyless_decision() {
    let ptx = ".version 8.5\n.target sm_90\n.entry k()\n{\n\t// begin inline asm\n\
               \t// end inline asm\n\tld.global.f32 \t%f1, [%rd1];\n\t// begin inline asm\n\
               \t// end inline asm\n}\n";
    let applied = apply(ptx, Strip::AllDebugInfo).unwrap();
    assert_eq!(applied.with_asm, ["k"]);
    let report = report_with(&[("float", "ld.global.L1::no_allocate", "bypass", 0)]);
    assert!(recover(&report, &applied).is_empty());
    let mut report = report;
    account(&mut report, &applied);
    assert!(
        (report.warnings.iter()).any(|w| w.contains("the function has inline asm")),
        "{:?}",
        report.warnings
    );
    // Without asm the same keyless load is matched.
    let plain = ".version 8.5\n.target sm_90\n.entry k()\n{\n\tld.global.f32 \t%f1, [%rd1];\n}\n";
    let applied = apply(plain, Strip::AllDebugInfo).unwrap();
    assert!(applied.with_asm.is_empty());
    let report = report_with(&[("float", "ld.global.L1::no_allocate", "bypass", 0)]);
    assert_eq!(recover(&report, &applied).len(), 1);
}

#[test]
fn a_keyless_vector_load_takes_the_decision_of_its_lanes() {
    // A struct copy read as four floats, merged into one v4 load and
    // moved by the backend: its key is lost.
    let ptx = ".version 8.5\n.target sm_90\n.entry k()\n{\n\tld.global.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd1];\n}\n";
    let applied = apply(ptx, Strip::AllDebugInfo).unwrap();
    let lane = |key| ("float", "ld.global.L1::no_allocate", "bypass", key);
    let report = report_with(&[lane(0), lane(1), lane(2), lane(3)]);
    let keys = recover(&report, &applied);
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert_eq!(keys[&0].decision, Decision::Bypass);
    // Three lanes cannot make a v4 load.
    let report = report_with(&[lane(0), lane(1), lane(2)]);
    assert!(recover(&report, &applied).is_empty());
    // Lanes that disagree give no decision.
    let report = report_with(&[
        lane(0),
        lane(1),
        lane(2),
        ("float", "ld.global", "cache", 3),
    ]);
    assert!(recover(&report, &applied).is_empty());
    // Integer lanes are another access.
    let int = |key| ("i32", "ld.global.L1::no_allocate", "bypass", key);
    let report = report_with(&[int(0), int(1), int(2), int(3)]);
    assert!(recover(&report, &applied).is_empty());
}

#[test]
fn operator_parts() {
    assert_eq!(
        operator_part("ld.global.nc.L1::no_allocate.v4.f32"),
        "ld.global.nc.L1::no_allocate"
    );
    assert_eq!(operator_part("ld.global.cg.u8"), "ld.global.cg");
    assert_eq!(operator_part("ld.global.v2.b64"), "ld.global");
}

#[test]
fn a_narrowed_integer_read_can_be_its_wider_load_and_nothing_else_can() {
    let int = ir_shape("i32", 4, false).unwrap();
    let narrowed = ptx_shape("ld.global.u16").unwrap();
    assert!(!narrowed.fits(int) && narrowed.narrows(int));
    assert!(ptx_shape("ld.global.u8").unwrap().narrows(int));
    // Not a float, a vector, the other path, or a wider read.
    assert!(!narrowed.narrows(ir_shape("float", 4, false).unwrap()));
    assert!(!ptx_shape("ld.global.f16").is_some_and(|s| s.narrows(int)));
    assert!(!ptx_shape("ld.global.v2.u16").unwrap().narrows(int));
    assert!(!ptx_shape("ld.global.nc.u16").unwrap().narrows(int));
    assert!(!ptx_shape("ld.global.u64").unwrap().narrows(int));
}

#[test]
fn function_headers() {
    assert_eq!(
        function_name(".visible .entry _Z1kPf(").as_deref(),
        Some("_Z1kPf")
    );
    assert_eq!(
        function_name(".func  (.param .b32 func_retval0) _Z3extPfi(").as_deref(),
        Some("_Z3extPfi")
    );
    assert_eq!(function_name(".extern .func foo;").as_deref(), Some("foo"));
    assert_eq!(function_name("\tld.global.f32 %f1, [a];"), None);
}

#[test]
fn normalized_drops_comments_and_operators() {
    let a = "\tld.global.ca.f32 \t%f1, [%rd1]; // x\n// c\n\tld.global.nc.L1::no_allocate.f32 %f2, [%rd2];\n";
    let b = "\tld.global.f32 \t%f1, [%rd1];\n\tld.global.nc.f32 %f2, [%rd2];\n";
    assert_eq!(normalized(a), normalized(b));
    assert_ne!(
        normalized("\tld.global.f32 %f1, [%rd1+4];"),
        normalized("\tld.global.f32 %f1, [%rd1];")
    );
}
