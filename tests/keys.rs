//! Issue 16 item 9: keys ride in debug locations of a file of their own, so
//! a source's `#line` directives (any line number, any column) are never read
//! as keys, and a source that names the key file is refused. Checked through
//! the driver (PTX route) and through the plugin's `lower=keys` plus
//! `gpucc-cache apply`.

mod common;

use std::process::Command;

use common::*;
use gpucc_cache_pass::emit::ptx::normalized;

const FORGED: &str = "regress/forged_lines.cu";

fn clang_ptx(arch: &str, dir: &std::path::Path) -> String {
    let out = dir.join(format!("clang-{arch}.ptx"));
    let o = run(device_clang(arch)
        .args(["-O3", "-S"])
        .arg(testdata(FORGED))
        .arg("-o")
        .arg(&out));
    assert!(o.status.success(), "clang: {}", text(&o).1);
    std::fs::read_to_string(out).unwrap()
}

/// The `ld.global` opcodes of a PTX, in order.
fn opcodes(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.split_whitespace().find(|t| t.starts_with("ld.global")))
        .map(String::from)
        .collect()
}

#[test]
fn source_lines_in_the_key_range_are_not_keys() {
    let dir = tempfile::tempdir().unwrap();
    for arch in ["sm_52", "sm_90"] {
        let clang = clang_ptx(arch, dir.path());
        for policy in ["off", "cache-all", "cache-none", "auto"] {
            let out = dir.path().join(format!("{arch}-{policy}.ptx"));
            let flag = format!("--cache-policy={policy}");
            let (ok, err) = gpucc_to(&testdata(FORGED), arch, &out, &[&flag]);
            assert!(ok, "{arch} {policy}: {err}");
            assert_ptxas_accepts(&out, arch);
            let ptx = std::fs::read_to_string(&out).unwrap();
            if policy == "off" {
                assert_eq!(ptx, clang, "{arch}: off is not clang's PTX byte for byte");
            }
            assert_eq!(normalized(&ptx), normalized(&clang), "{arch} {policy}");
            let ops = opcodes(&ptx);
            assert_eq!(ops.len(), 3, "{ops:?}");
            // The policy decides every load; the forged lines (a bypass
            // and a cache key, were they keys) decide nothing.
            let expect: &[&str] = match (arch, policy) {
                (_, "off") => &["ld.global.f32", "ld.global.f32", "ld.global.nc.f32"],
                ("sm_52", "cache-all") => {
                    &["ld.global.ca.f32", "ld.global.ca.f32", "ld.global.nc.f32"]
                }
                ("sm_52", "cache-none") => {
                    &["ld.global.cg.f32", "ld.global.cg.f32", "ld.global.nc.f32"]
                }
                ("sm_90", "cache-all") => &["ld.global.f32", "ld.global.f32", "ld.global.nc.f32"],
                ("sm_90", "cache-none") => &[
                    "ld.global.L1::no_allocate.f32",
                    "ld.global.L1::no_allocate.f32",
                    "ld.global.nc.L1::no_allocate.f32",
                ],
                _ => continue,
            };
            let mut got = ops.clone();
            let mut want: Vec<String> = expect.iter().map(|s| s.to_string()).collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "{arch} {policy}");
        }
    }
}

#[test]
fn the_plugin_and_apply_ignore_source_lines_in_the_key_range() {
    let dir = tempfile::tempdir().unwrap();
    let arch = "sm_90";
    let clang = clang_ptx(arch, dir.path());
    for policy in ["off", "cache-all"] {
        let keyed = dir.path().join(format!("{policy}.keyed.ptx"));
        let out = dir.path().join(format!("{policy}.ptx"));
        let o = run(device_clang(arch)
            .args(["-O3", "-S", "-gline-tables-only"])
            .args(["-mllvm", "-use-unknown-locations=Enable"])
            .arg(format!("-fpass-plugin={}", plugin().display()))
            .env("GPUCC_CACHE_OPTIONS", format!("policy={policy};lower=keys"))
            .arg(testdata(FORGED))
            .arg("-o")
            .arg(&keyed));
        assert!(o.status.success(), "clang -fpass-plugin: {}", text(&o).1);
        let o = run(Command::new(driver())
            .arg("apply")
            .arg(&keyed)
            .arg("-o")
            .arg(&out));
        assert!(o.status.success(), "apply: {}", text(&o).1);
        let ptx = std::fs::read_to_string(&out).unwrap();
        if policy == "off" {
            assert_eq!(ptx, clang, "off through apply is not clang's PTX");
        }
        assert_eq!(normalized(&ptx), normalized(&clang), "{policy}");
        assert!(
            !ptx.contains("no_allocate"),
            "a source line was read as a bypass key:\n{ptx}"
        );
    }
}

#[test]
fn a_source_that_names_the_key_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k.ptx");
    for policy in ["off", "auto"] {
        let flag = format!("--cache-policy={policy}");
        let (ok, err) = gpucc_to(
            &testdata("errors/reserved_key_file.cu"),
            "sm_90",
            &out,
            &[&flag],
        );
        assert!(!ok, "{policy}: accepted a source naming the key file");
        assert!(
            err.contains("gpucc-cache-keys'") && err.contains("rename it"),
            "{policy}: {err}"
        );
        assert!(!out.exists(), "{policy}: wrote PTX");
    }
}

#[test]
fn the_users_own_lines_in_the_key_range_stay_in_their_line_table() {
    // With -g the user's line table is kept and only the keys are removed:
    // the source's `.loc` lines at 1073741825 and 1073741826 are its own.
    let dir = tempfile::tempdir().unwrap();
    let arch = "sm_90";
    let base = dir.path().join("clang-g.ptx");
    let o = run(device_clang(arch)
        .args(["-O3", "-S", "-g"])
        .arg(testdata(FORGED))
        .arg("-o")
        .arg(&base));
    assert!(o.status.success(), "clang -g: {}", text(&o).1);
    let clang = std::fs::read_to_string(&base).unwrap();
    let out = dir.path().join("g.ptx");
    let (ok, err) = gpucc_to(&testdata(FORGED), arch, &out, &["--cache-policy=off", "-g"]);
    assert!(ok, "{err}");
    let ptx = std::fs::read_to_string(&out).unwrap();
    let forged: Vec<&str> = clang
        .lines()
        .filter(|l| l.trim_start().starts_with(".loc\t1 107374182"))
        .collect();
    assert!(!forged.is_empty(), "clang wrote no forged .loc:\n{clang}");
    for l in forged {
        assert!(ptx.lines().any(|m| m == l), "{l:?} is gone:\n{ptx}");
    }
}
