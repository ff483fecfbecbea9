//! The analysis core (address folding, guards, loops, evaluation, traffic,
//! policy) tested directly: every `testdata/ll/core/*.ll` goes through
//! `opt-19 -passes='print<gpucc-cache<PARAMS>>'` and its report is matched
//! against the expectations the file carries, FileCheck style.
//!
//! In each file:
//! - `; RUN-PARAMS: P` runs the pass with parameters `P` and checks the report
//!   against the `CHECK` lines; `; RUN-PARAMS-FOO: P` does the same for the
//!   `FOO` lines (one prefix per run, as FileCheck's `--check-prefix`);
//! - `; CHECK: text` matches the first later line that contains `text`;
//!   `; CHECK-NEXT: text` the line right after the previous match;
//!   `; CHECK-NOT: text` says no line between the previous match and the next
//!   one (or the end) contains `text`.
//!
//! Matching is by line (one match per line) on text whose runs of whitespace
//! are squeezed to one space, as FileCheck does by default. llvm-19's
//! FileCheck is in `llvm-19-tools`, which `scripts/setup` does not install,
//! hence this small matcher.
//!
//! The expected reports are worked out by hand in each file (traffic as in
//! the header of tests/analysis.rs), never copied from the tool's output.

mod common;

use std::path::Path;
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Check,
    Next,
    Not,
}

/// One expectation: its kind, its text and the file line it sits on.
struct Directive {
    kind: Kind,
    text: String,
    line: usize,
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The runs of a file: (prefix, pass parameters).
fn runs(src: &str) -> Vec<(String, String)> {
    src.lines()
        .filter_map(|l| l.strip_prefix("; RUN-PARAMS"))
        .filter_map(|rest| {
            let (prefix, params) = rest.split_once(": ")?;
            let prefix = match prefix.strip_prefix('-') {
                Some(p) => p.to_string(),
                None if prefix.is_empty() => "CHECK".to_string(),
                None => return None,
            };
            Some((prefix, params.trim().to_string()))
        })
        .collect()
}

/// The expectations of one prefix, in file order.
fn directives(src: &str, prefix: &str) -> Vec<Directive> {
    let kinds = [
        ("-NEXT:", Kind::Next),
        ("-NOT:", Kind::Not),
        (":", Kind::Check),
    ];
    let mut out = Vec::new();
    for (i, l) in src.lines().enumerate() {
        let Some(rest) = l.strip_prefix("; ").and_then(|r| r.strip_prefix(prefix)) else {
            continue;
        };
        if let Some((text, kind)) = kinds
            .iter()
            .find_map(|(tag, k)| rest.strip_prefix(tag).map(|t| (t, *k)))
        {
            out.push(Directive {
                kind,
                text: squeeze(text),
                line: i + 1,
            });
        }
    }
    out
}

/// Matches `output` against `checks`; the first failure, in words.
fn file_check(output: &str, checks: &[Directive]) -> Result<(), String> {
    let lines: Vec<String> = output.lines().map(squeeze).collect();
    // The line after the previous match; the `NOT`s waiting for the next one.
    let mut from = 0usize;
    let mut nots: Vec<&Directive> = Vec::new();
    let no_nots_in = |nots: &[&Directive], range: std::ops::Range<usize>| {
        for n in nots {
            if let Some(i) = range.clone().find(|&i| lines[i].contains(&n.text)) {
                return Err(format!(
                    "line {}: NOT \"{}\" found in output line {}: {}",
                    n.line,
                    n.text,
                    i + 1,
                    lines[i]
                ));
            }
        }
        Ok(())
    };
    for d in checks {
        let at = match d.kind {
            Kind::Not => {
                nots.push(d);
                continue;
            }
            Kind::Check => (from..lines.len()).find(|&i| lines[i].contains(&d.text)),
            Kind::Next if from == 0 => {
                return Err(format!("line {}: NEXT with nothing before it", d.line))
            }
            Kind::Next => Some(from).filter(|&i| i < lines.len() && lines[i].contains(&d.text)),
        };
        let Some(at) = at else {
            let next = lines.get(from).map_or("<end of output>", String::as_str);
            return Err(format!(
                "line {}: {:?} \"{}\" not found after output line {from} (next line: {next})",
                d.line, d.kind, d.text
            ));
        };
        no_nots_in(&nots, from..at)?;
        nots.clear();
        from = at + 1;
    }
    no_nots_in(&nots, from..lines.len())
}

/// The report `print<gpucc-cache<params>>` writes for `file` (stderr).
/// These files test the paper's per-load analysis, so a run that names no
/// policy runs `conservative` (the default, `auto`, is the kernel-level
/// model's, tested in `tests/kernel_model.rs`).
fn print_report(file: &Path, params: &str) -> Result<String, String> {
    let params = if params.contains("policy=") {
        params.to_string()
    } else {
        format!("policy=conservative;{params}")
    };
    let out = common::run(
        Command::new("opt-19")
            .arg(format!("-load-pass-plugin={}", common::plugin().display()))
            .arg(format!("-passes=print<gpucc-cache<{params}>>"))
            .arg("-disable-output")
            .arg(file)
            .env_remove("GPUCC_CACHE_OPTIONS")
            .env_remove("GPUCC_CACHE_EP"),
    );
    let (_, err) = common::text(&out);
    if out.status.success() {
        Ok(err)
    } else {
        Err(format!("opt-19 failed:\n{err}"))
    }
}

#[test]
fn analysis_core() {
    let dir = common::testdata("ll/core");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 12,
        "expected the core .ll inputs in {}",
        dir.display()
    );
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(file).unwrap();
        let runs = runs(&src);
        assert!(!runs.is_empty(), "{name}: no RUN-PARAMS line");
        // A misspelt prefix would silently check nothing.
        for (i, l) in src.lines().enumerate() {
            let Some((tag, _)) = l.strip_prefix("; ").and_then(|r| r.split_once(':')) else {
                continue;
            };
            let directive = !tag.is_empty()
                && tag
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-');
            let known = tag.starts_with("RUN-PARAMS")
                || runs.iter().any(|(p, _)| {
                    [p.clone(), format!("{p}-NEXT"), format!("{p}-NOT")].contains(&tag.to_string())
                });
            assert!(
                !directive || known,
                "{name}:{}: unknown directive {tag}:",
                i + 1
            );
        }
        for (prefix, params) in runs {
            let checks = directives(&src, &prefix);
            assert!(
                checks.iter().any(|d| d.kind != Kind::Not),
                "{name}: no {prefix} lines for its RUN-PARAMS"
            );
            let result = print_report(file, &params).and_then(|report| {
                file_check(&report, &checks).map_err(|e| format!("{e}\n--- report ---\n{report}"))
            });
            if let Err(e) = result {
                failures.push(format!("{name} [{prefix}: {params}]: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the runs failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn matcher_follows_filecheck() {
    let out = "a 1\nb  2\nc 3\nd 4\n";
    let src = |body: &str| directives(body, "CHECK");
    assert!(file_check(out, &src("; CHECK: b 2\n; CHECK-NEXT: c\n; CHECK: 4")).is_ok());
    // NEXT means the very next line.
    assert!(file_check(out, &src("; CHECK: a\n; CHECK-NEXT: c")).is_err());
    // CHECK only looks forward.
    assert!(file_check(out, &src("; CHECK: c\n; CHECK: a")).is_err());
    // NOT between two matches, and after the last one.
    assert!(file_check(out, &src("; CHECK: a\n; CHECK-NOT: b\n; CHECK: c")).is_err());
    assert!(file_check(out, &src("; CHECK: b\n; CHECK-NOT: a\n; CHECK: c")).is_ok());
    assert!(file_check(out, &src("; CHECK: c\n; CHECK-NOT: d")).is_err());
    assert_eq!(
        runs("; RUN-PARAMS: block=64\n; RUN-PARAMS-FERMI: model=fermi\n"),
        [
            ("CHECK".to_string(), "block=64".to_string()),
            ("FERMI".to_string(), "model=fermi".to_string())
        ]
    );
}
