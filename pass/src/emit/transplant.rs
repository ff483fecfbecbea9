//! Cache operators moved from one PTX text to another of the same code:
//! how a compile with the user's debug info gets its decisions without the
//! keys ever touching its debug info.
//!
//! The keys ride in debug locations (`keys`), so a compile that carries
//! them cannot also carry the user's `-g` line table unchanged: a load's
//! own location is replaced by its key, and locations the optimizer merges
//! differ. So with `-g` the driver compiles twice: once keyed (line tables
//! of its own, removed afterwards) to decide, once as clang alone with the
//! user's flags. Debug info does not change code generation (LLVM's rule;
//! checked here line by line), so the two texts have the same instructions
//! in the same order once the debug lines are set aside; each `ld` of the
//! user's text takes the opcode of its twin in the decided text. A
//! difference anywhere else is a `Mismatch`, and the caller keeps clang's
//! text unchanged.
//!
//! Pure text processing: no LLVM.

use crate::emit::ptx::normalized;

/// The decided and the plain text are not the same code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The first differing instruction of each, or `None` where one text
    /// ended first.
    pub decided: Option<String>,
    pub plain: Option<String>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |l: &Option<String>| l.clone().unwrap_or_else(|| "the end".into());
        write!(
            f,
            "debug info changed code generation: '{}' against '{}'",
            show(&self.decided),
            show(&self.plain)
        )
    }
}

/// The code of a line (comment removed), if it is code other than debug
/// info: `.loc`, `.file`, the labels the backend adds for debug ranges
/// (`$L__func_begin0:`, `$L__tmp3:`, `$L__func_end0:`) and `.section
/// .debug_*` blocks are debug info.
fn code_lines(ptx: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    // Inside a `.section .debug_*` block: its brace depth, and whether its
    // `{` was seen (it may open on the next line).
    let mut debug: Option<(i32, bool)> = None;
    for (i, line) in ptx.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("").trim_end();
        let t = code.trim();
        if debug.is_none() && t.starts_with(".section") && t.contains(".debug") {
            debug = Some((0, false));
        }
        if let Some((depth, opened)) = debug.as_mut() {
            let opens = t.matches('{').count() as i32;
            *depth += opens - t.matches('}').count() as i32;
            *opened |= opens > 0;
            if *opened && *depth <= 0 {
                debug = None;
            }
            continue;
        }
        if t.is_empty() || t.starts_with(".loc") || t.starts_with(".file") || is_debug_label(t) {
            continue;
        }
        // `.target sm_70, debug`: full debug info (`-g` at -O0) says so on
        // the target line, which the keyed compile's line tables do not.
        let code = match code.strip_suffix(", debug") {
            Some(target) if t.starts_with(".target") => target,
            _ => code,
        };
        out.push((i, code));
    }
    out
}

fn is_debug_label(t: &str) -> bool {
    let Some(name) = t.strip_prefix("$L__").and_then(|r| r.strip_suffix(':')) else {
        return false;
    };
    ["func_begin", "func_end", "tmp"].iter().any(|p| {
        name.strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// `plain` with the cache operators of `decided`.
pub fn transplant(decided: &str, plain: &str) -> Result<String, Mismatch> {
    let d = code_lines(decided);
    let p = code_lines(plain);
    let mut replace = std::collections::HashMap::new();
    for k in 0..d.len().max(p.len()) {
        let (dl, pl) = (d.get(k), p.get(k));
        let same = matches!((dl, pl), (Some(a), Some(b)) if normalized(a.1) == normalized(b.1));
        if !same {
            return Err(Mismatch {
                decided: dl.map(|l| l.1.trim().to_string()),
                plain: pl.map(|l| l.1.trim().to_string()),
            });
        }
        let (a, b) = (dl.expect("same"), pl.expect("same"));
        if a.1.trim() != b.1.trim() {
            replace.insert(b.0, a.1.trim());
        }
    }
    let mut out = String::with_capacity(plain.len() + 64);
    for (i, line) in plain.lines().enumerate() {
        match replace.get(&i) {
            Some(code) => {
                // The user's indentation and trailing comment, our opcode.
                let indent = &line[..line.len() - line.trim_start().len()];
                let comment = line.find("//").map_or("", |c| &line[c..]);
                out.push_str(indent);
                out.push_str(code);
                if !comment.is_empty() {
                    out.push(' ');
                    out.push_str(comment);
                }
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: &str = "\
.visible .entry k(
\t.param .u64 k_param_0
)
{
$L__func_begin0:
\t.loc\t1 3 0
\tld.param.u64 \t%rd1, [k_param_0];
$L__tmp0:
\t.loc\t1 4 9
\tld.global.f32 \t%f1, [%rd1]; // load
\tret;
$L__tmp1:
$L__func_end0:
}
\t.section\t.debug_abbrev
\t{
.b8 1
\t}
\t.file\t1 \"k.cu\"
";

    #[test]
    fn operators_move_and_debug_lines_stay() {
        let decided = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tld.param.u64 \t%rd1, [k_param_0];\n\tld.global.L1::no_allocate.f32 \t%f1, [%rd1];\n\tret;\n}\n";
        let out = transplant(decided, PLAIN).unwrap();
        assert!(
            out.contains("\tld.global.L1::no_allocate.f32 \t%f1, [%rd1]; // load\n"),
            "{out}"
        );
        assert_eq!(out.lines().count(), PLAIN.lines().count());
        assert!(out.contains("$L__tmp0:\n\t.loc\t1 4 9\n"));
        assert!(out.contains(".section\t.debug_abbrev"));
    }

    #[test]
    fn the_targets_debug_flag_is_debug_info() {
        // clang -O0 -g writes `.target sm_70, debug`; the keyed compile,
        // with line tables only, `.target sm_70`. The user's line stays.
        let plain = format!(".target sm_70, debug\n{PLAIN}");
        let decided = ".target sm_70\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tld.param.u64 \t%rd1, [k_param_0];\n\tld.global.L1::no_allocate.f32 \t%f1, [%rd1];\n\tret;\n}\n";
        let out = transplant(decided, &plain).unwrap();
        assert!(out.starts_with(".target sm_70, debug\n"), "{out}");
        assert!(out.contains("ld.global.L1::no_allocate.f32"), "{out}");
        // Any other difference on the target line is one.
        let other = decided.replace(".target sm_70", ".target sm_80");
        assert!(transplant(&other, &plain).is_err());
    }

    #[test]
    fn other_code_is_a_mismatch() {
        let decided = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tld.param.u64 \t%rd1, [k_param_0];\n\tld.global.f32 \t%f2, [%rd1];\n\tret;\n}\n";
        let e = transplant(decided, PLAIN).unwrap_err();
        assert_eq!(e.plain.as_deref(), Some("ld.global.f32 \t%f1, [%rd1];"));
        let short = ".visible .entry k(\n";
        assert!(transplant(short, PLAIN).unwrap_err().decided.is_none());
    }
}
