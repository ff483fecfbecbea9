//! `@file` on the command line: the file's contents, split into arguments
//! as clang splits them on Linux (GNU quoting, LLVM's
//! `cl::TokenizeGNUCommandLine`: whitespace separates, `'…'` and `"…"`
//! quote, `\` escapes the next character outside single quotes), and
//! expanded in place, recursively. As in clang, `@name` that names no file
//! stays an argument, and a nested `@file` is found relative to the file
//! that names it.
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
        if !path.is_file() && !is_stream(&path) {
            // Not a response file: clang passes it on as an argument.
            out.push(a.clone());
            continue;
        }
        if depth >= MAX_DEPTH {
            bail!(
                "response file {} nests @files more than {MAX_DEPTH} deep (a cycle?); flatten it",
                path.display()
            );
        }
        let text = read_bounded(&path, budget)?;
        files.push(path.clone());
        let inner = tokenize(&text);
        let dir = path.parent().map(Path::to_path_buf);
        expand_into(&inner, dir.as_deref(), depth + 1, out, files, budget)?;
    }
    Ok(())
}

/// A FIFO or character device (`@/dev/stdin`, a pipe): read as clang does.
fn is_stream(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo() || m.file_type().is_char_device())
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

/// Splits `text` as GNU tools do.
pub fn tokenize(text: &str) -> Vec<String> {
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
                while let Some(q) = chars.next() {
                    if q == c {
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
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gnu_quoting() {
        assert_eq!(
            tokenize("-DA=1  'two words' \"q\\\"x\" a\\ b ''\n-O2"),
            ["-DA=1", "two words", "q\"x", "a b", "", "-O2"]
        );
    }

    #[test]
    fn nested_relative_and_missing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/inner.rsp"), "-DINNER").unwrap();
        let outer = dir.path().join("sub/outer.rsp");
        std::fs::write(&outer, "-O1 @inner.rsp k.cu").unwrap();
        let argv = vec![format!("@{}", outer.display()), "@no-such".into()];
        let (args, files) = expand(&argv).unwrap();
        assert_eq!(args, ["-O1", "-DINNER", "k.cu", "@no-such"]);
        assert_eq!(files.len(), 2);
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
