//! Reading the make rules clang writes with `-MD -MF`: the files a compile
//! read, so that no output of the run may overwrite one of them.
//!
//! Make's escapes as clang writes them (`DependencyFile.cpp`): a space,
//! `#` or `\` before one is escaped with `\`, `$` is doubled, a line
//! continues after a trailing `\`. `-MP` adds empty rules, one per header,
//! whose targets are read as prerequisites here (the same files).

use std::path::PathBuf;

/// The prerequisites of every rule in `text`, in order, repeats removed.
pub fn dependencies(text: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut word = String::new();
    // Whether the words so far on this logical line are targets (before
    // the rule's `:`).
    let mut in_targets = true;
    let mut chars = text.chars().peekable();
    let push = |w: &mut String, targets: bool, out: &mut Vec<PathBuf>| {
        if !w.is_empty() {
            // A `-MP` rule's target is a header; a real rule's target is the
            // output, which is not an input.
            let p = PathBuf::from(std::mem::take(w));
            if !targets && !out.contains(&p) {
                out.push(p);
            }
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some('\n') => {
                    chars.next();
                    push(&mut word, in_targets, &mut out);
                }
                Some(&e @ (' ' | '#' | '\\')) => {
                    chars.next();
                    word.push(e);
                }
                _ => word.push('\\'),
            },
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                word.push('$');
            }
            ':' if in_targets && matches!(chars.peek(), None | Some(' ' | '\t' | '\n')) => {
                // `hdr.h:` of -MP names a header: keep it as one.
                let header_rule = matches!(chars.peek(), None | Some('\n'));
                push(&mut word, !header_rule, &mut out);
                in_targets = false;
            }
            ' ' | '\t' => push(&mut word, in_targets, &mut out),
            '\n' => {
                push(&mut word, in_targets, &mut out);
                in_targets = true;
            }
            c => word.push(c),
        }
    }
    push(&mut word, in_targets, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_escapes_continuations_and_phony_rules() {
        let text = "out/k.ptx: k.cu \\\n  inc/a\\ b.h /x/$$c.h \\\n  d\\#e.h\n\ninc/a\\ b.h:\n\n/x/$$c.h:\n";
        let deps = dependencies(text);
        let want: Vec<PathBuf> = ["k.cu", "inc/a b.h", "/x/$c.h", "d#e.h"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(deps, want);
    }

    #[test]
    fn target_is_not_an_input() {
        assert_eq!(dependencies("k.o: k.cu\n"), vec![PathBuf::from("k.cu")]);
        assert!(dependencies("").is_empty());
    }
}
