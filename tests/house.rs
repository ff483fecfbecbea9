//! The shape of `pass/src` (issue 19, "The house"; `../shared/style.md`):
//! a module imports only what sits below it, so no two files import each
//! other through any chain; and a file over 900 lines says why in its `//!`
//! paragraph (a "Length" sentence). Read from the sources themselves: a
//! file's imports are the `crate::` paths it names outside its tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A file past this many lines needs a reason ("~800 lines" in the issue,
/// with room for a file that grew by a few functions since).
const LONG: usize = 900;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn pass_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("pass/src")
}

/// Module path of a file (`model/walk.rs` → `model::walk`; `mod.rs` and
/// `lib.rs` name their folder).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// The text of a file before its test module, if it has one inline.
fn without_tests(text: &str) -> &str {
    text.split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or(text)
}

/// The modules `text` names through `crate::` paths, each taken at its
/// longest prefix that is a module of `modules`.
fn imports(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        let path: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        for k in (1..=parts.len()).rev() {
            let m = parts[..k].join("::");
            if modules.contains(&m) {
                out.insert(m);
                break;
            }
        }
    }
    out
}

/// The import graph of `pass/src`: test files (`*_tests.rs`) left out.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = pass_src();
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.retain(|f| !f.to_string_lossy().ends_with("_tests.rs"));
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&root, f)).collect();
    let mut g = BTreeMap::new();
    for f in &files {
        let m = module_of(&root, f);
        let text = std::fs::read_to_string(f).unwrap();
        let mut deps = imports(without_tests(&text), &modules);
        deps.remove(&m);
        g.insert(m, deps);
    }
    g
}

/// A chain of imports from `from` back to itself, if there is one.
fn cycle_through(g: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut stack = vec![(from.to_string(), vec![from.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((m, path)) = stack.pop() {
        for d in g.get(&m).into_iter().flatten() {
            if d == from {
                let mut p = path.clone();
                p.push(d.clone());
                return Some(p);
            }
            if seen.insert(d.clone()) {
                let mut p = path.clone();
                p.push(d.clone());
                stack.push((d.clone(), p));
            }
        }
    }
    None
}

#[test]
fn no_file_of_pass_src_imports_itself_through_others() {
    let g = graph();
    assert!(g.len() > 40, "read only {} modules", g.len());
    let cycles: Vec<String> = g
        .keys()
        .filter_map(|m| cycle_through(&g, m))
        .map(|p| p.join(" -> "))
        .collect();
    assert!(cycles.is_empty(), "import circles:\n{}", cycles.join("\n"));
}

#[test]
fn the_cycle_finder_finds_a_circle() {
    // Two files naming each other, and a third below both.
    let modules: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    let mut g = BTreeMap::new();
    g.insert(
        "a".to_string(),
        imports("use crate::b::X; use crate::c;", &modules),
    );
    g.insert("b".to_string(), imports("let x = crate::a::f();", &modules));
    g.insert("c".to_string(), BTreeSet::new());
    assert_eq!(
        cycle_through(&g, "a"),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    assert_eq!(cycle_through(&g, "c"), None);
}

#[test]
fn a_long_file_of_pass_src_says_why() {
    let root = pass_src();
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut silent = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let lines = text.lines().count();
        let header: Vec<&str> = text.lines().take_while(|l| l.starts_with("//!")).collect();
        let says = header.iter().any(|l| l.contains("Length"));
        if lines > LONG && !says {
            silent.push(format!("{} ({lines} lines)", f.display()));
        }
    }
    assert!(
        silent.is_empty(),
        "files over {LONG} lines without a Length sentence in their //! paragraph:\n{}",
        silent.join("\n")
    );
}
