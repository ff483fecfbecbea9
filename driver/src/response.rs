//! `@file` on the command line: the file's contents, split into arguments
//! as clang splits them on Linux (GNU quoting, LLVM's
//! `cl::TokenizeGNUCommandLine`: whitespace separates, `'…'` and `"…"`
//! quote, `\` escapes the next character outside single quotes), and
//! expanded in place, recursively. A nested `@file` is found relative to
//! the file that names it, as in clang. Unlike clang, `@name` that names no
//! file is an error rather than an input of that name (which would fail
//! later with a confusing count of inputs), and a response file must be a
//! regular file (a FIFO without a writer would wait forever).
//!
//! It does not guard the files it reads (`output` does, with the list it
//! returns).

use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};

/// The most bytes of all response files of one command line.
pub const MAX_BYTES: u64 = 16 << 20;
/// How deep `@file` inside `@file` may go (a cycle ends here too).
const MAX_DEPTH: usize = 16;

/// The arguments with every `@file` expanded, and the files read.
pub fn expand(argv: &[String]) -> Result<(Vec<String>, Vec<PathBuf>)> {
    let mut out = Vec::new();
    let mut files = Vec::new();
    let mut budget = MAX_BYTES;
    expand_into(argv, None, 0, &mut out, &mut files, &mut budget)?;
    Ok((out, files))
}

fn expand_into(
    args: &[String],
    base: Option<&Path>,
    depth: usize,
    out: &mut Vec<String>,
    files: &mut Vec<PathBuf>,
    budget: &mut u64,
) -> Result<()> {
    for a in args {
        let Some(name) = a.strip_prefix('@').filter(|n| !n.is_empty()) else {
            out.push(a.clone());
            continue;
        };
        let path = match base {
            Some(dir) if Path::new(name).is_relative() => dir.join(name),
            _ => PathBuf::from(name),
        };
        if !path.exists() {
            bail!(
                "response file {} not found; check the path (an input whose name starts with @ needs ./ before it)",
                path.display()
            );
        }
        if !path.is_file() {
            // A FIFO or device could keep the run waiting forever.
            bail!(
                "response file {} is not a regular file; write its arguments to a file",
                path.display()
            );
        }
        if depth >= MAX_DEPTH {
            bail!(
                "response file {} nests @files more than {MAX_DEPTH} deep (a cycle?); flatten it",
                path.display()
            );
        }
        let text = read_bounded(&path, budget)?;
        files.push(path.clone());
        let inner = tokenize(&text).map_err(|why| {
            anyhow::anyhow!("response file {}: {why}; fix its quoting", path.display())
        })?;
        let dir = path.parent().map(Path::to_path_buf);
        expand_into(&inner, dir.as_deref(), depth + 1, out, files, budget)?;
    }
    Ok(())
}

fn read_bounded(path: &Path, budget: &mut u64) -> Result<String> {
    let f = std::fs::File::open(path)
        .with_context(|| format!("cannot read response file {}", path.display()))?;
    let mut bytes = Vec::new();
    f.take(*budget + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read response file {}", path.display()))?;
    if bytes.len() as u64 > *budget {
        bail!(
            "response files hold more than {} MiB in all ({} among them); shorten them",
            MAX_BYTES >> 20,
            path.display()
        );
    }
    *budget -= bytes.len() as u64;
    String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "response file {} is not UTF-8 text; write its arguments as text",
            path.display()
        )
    })
}

/// Splits `text` as GNU tools do; an unterminated quote is an error.
pub fn tokenize(text: &str) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                out.extend(word.take());
            }
            '\\' => {
                let w = word.get_or_insert_with(String::new);
                if let Some(e) = chars.next() {
                    w.push(e);
                }
            }
            '\'' | '"' => {
                let w = word.get_or_insert_with(String::new);
                let mut closed = false;
                while let Some(q) = chars.next() {
                    if q == c {
                        closed = true;
                        break;
                    }
                    if q == '\\' && c == '"' {
                        if let Some(e) = chars.next() {
                            w.push(e);
                        }
                    } else {
                        w.push(q);
                    }
                }
                if !closed {
                    return Err(format!("a {c} quote is never closed"));
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gnu_quoting() {
        assert_eq!(
            tokenize("-DA=1  'two words' \"q\\\"x\" a\\ b ''\n-O2").unwrap(),
            ["-DA=1", "two words", "q\"x", "a b", "", "-O2"]
        );
        assert!(tokenize("'open").unwrap_err().contains("never closed"));
    }

    #[test]
    fn nested_relative_and_missing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/inner.rsp"), "-DINNER").unwrap();
        let outer = dir.path().join("sub/outer.rsp");
        std::fs::write(&outer, "-O1 @inner.rsp k.cu").unwrap();
        let argv = vec![format!("@{}", outer.display())];
        let (args, files) = expand(&argv).unwrap();
        assert_eq!(args, ["-O1", "-DINNER", "k.cu"]);
        assert_eq!(files.len(), 2);
        let e = expand(&["@no-such".to_string()]).unwrap_err().to_string();
        assert!(e.contains("not found"), "{e}");
    }

    #[test]
    fn a_cycle_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let me = dir.path().join("me.rsp");
        std::fs::write(&me, "@me.rsp").unwrap();
        let e = expand(&[format!("@{}", me.display())])
            .unwrap_err()
            .to_string();
        assert!(e.contains("nests @files"), "{e}");
    }
}
