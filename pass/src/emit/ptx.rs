//! Applying decisions to PTX text: the last step of the driver's route and
//! of `gpucc-cache apply` (design.md §8).
//!
//! The pass leaves every load plain and marks each global load with a key in
//! its debug location (`keys`). The code generator then writes exactly what
//! clang writes, plus `.loc` directives. Here each `ld.global` is matched to
//! the key of the `.loc` in force before it (only a `.loc` in the key file,
//! `keys::KEY_FILE`, carries one: the source's own lines never do), its
//! cache operator is written for the PTX's own `.target` and `.version`, and
//! the keys (and, when the debug info was ours, all of it) are removed, so
//! that the result equals clang's PTX except for the operators. With the user's own debug info
//! (`Strip::KeysOnly`) the key file's `.file` entry stays, so that the file
//! numbers the DWARF sections use stay valid.
//!
//! Operators, per PTX ISA `ld` and design.md §5: before sm_70 "cache" is
//! `.ca` and "bypass" `.cg`; from sm_70 "cache" is the plain (weak,
//! L1-allocating) load and "bypass" `.L1::no_allocate` (PTX 7.4+, else
//! `.cg`). A non-coherent load (`ld.global.nc`, which clang writes for
//! `const __restrict__` data and read-only tables) keeps `.nc` always; from
//! sm_70 it may bypass as `ld.global.nc.L1::no_allocate`, before sm_70 it is
//! never changed. Inline asm is never touched; neither is a load that
//! already names a cache operator.
//!
//! Pure text processing: no LLVM.

use std::collections::HashMap;

use crate::decide::policy::Decision;
use crate::emit::keys::{self, Key};
use crate::gpu::generation::Arch;
use crate::report::{PtxCount, Report};

/// What `.target` and `.version` say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub arch: Arch,
    /// PTX ISA version times ten (8.5 → 85).
    pub version: u32,
}

/// Which debug lines to remove.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strip {
    /// The debug info was added for the keys: remove all of it.
    AllDebugInfo,
    /// The user asked for debug info: remove only the key lines.
    KeysOnly,
}

/// One `ld.global` of the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxLoad {
    /// The function (`.entry` or `.func`) it is in.
    pub function: String,
    /// The key in force, if any (`None`: no key, left as clang wrote it).
    pub key: Option<Key>,
    /// The opcode as clang wrote it, e.g. `ld.global.nc.v4.f32`.
    pub original: String,
    /// The opcode written.
    pub written: String,
    /// Why it was left as written although its key asked for a change.
    pub kept: Option<&'static str>,
    /// Its key came from `recover`, not from a `.loc`.
    pub recovered: bool,
}

impl PtxLoad {
    /// A generic-address `ld` (counted only when keyed as global).
    pub fn is_generic(&self) -> bool {
        !self.original.starts_with("ld.global.")
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub text: String,
    pub target: Target,
    pub loads: Vec<PtxLoad>,
    /// Functions with inline asm. Clang writes the user's asm text between
    /// `// begin inline asm` and `// end inline asm` as it is, so a text
    /// holding those lines itself (paired or not) makes its own loads look
    /// like clang's; no keyless load of such a function is given a decision
    /// (`recover`), since it may be the user's. Keyed loads are not at risk:
    /// clang writes the asm's own location before it, which ends any key.
    pub with_asm: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxError {
    NoTarget,
    NoVersion,
}

impl std::fmt::Display for PtxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PtxError::NoTarget => f.write_str("no valid .target sm_XX line; is this PTX?"),
            PtxError::NoVersion => f.write_str("no valid .version line; is this PTX?"),
        }
    }
}

/// Reads `.target` and `.version`.
pub fn target(ptx: &str) -> Result<Target, PtxError> {
    let mut arch = None;
    let mut version = None;
    for line in ptx.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix(".target") {
            let first = rest.split([',', ' ', '\t']).find(|t| !t.is_empty());
            arch = first.and_then(Arch::parse);
        } else if let Some(rest) = line.strip_prefix(".version") {
            let (major, minor) = rest.trim().split_once('.').unwrap_or(("", ""));
            version = major
                .parse::<u32>()
                .ok()
                .zip(minor.parse::<u32>().ok())
                .map(|(a, b)| a * 10 + b);
        }
        if arch.is_some() && version.is_some() {
            break;
        }
    }
    Ok(Target {
        arch: arch.ok_or(PtxError::NoTarget)?,
        version: version.ok_or(PtxError::NoVersion)?,
    })
}

/// Cache operators clang never writes; a load that has one is left alone.
fn names_cache_operator(q: &str) -> bool {
    matches!(q, "ca" | "cg" | "cs" | "lu" | "cv") || q.starts_with("L1::") || q.starts_with("L2::")
}

/// The opcode for `decision`, or why it stays as written.
pub fn rewrite(opcode: &str, decision: Decision, target: Target) -> Result<String, &'static str> {
    let (space, rest) = match opcode.strip_prefix("ld.global.") {
        Some(rest) => ("ld.global", rest),
        None if is_generic_load(opcode) => ("ld", &opcode[3..]),
        None => return Err("not an ld.global"),
    };
    let quals: Vec<&str> = rest.split('.').collect();
    if quals.iter().any(|q| names_cache_operator(q)) {
        return Err("already names a cache operator");
    }
    let nc = quals.first() == Some(&"nc");
    let op = match decision {
        Decision::Default => return Ok(opcode.into()),
        Decision::Cache => target.arch.cache_op(),
        Decision::Bypass => Some(target.arch.bypass_op(target.version)),
    };
    let Some(op) = op else {
        return Ok(opcode.into());
    };
    if nc {
        if !target.arch.is_sectored() {
            return Err("read-only (.nc) path kept before sm_70");
        }
        if !op.fits_non_coherent() {
            return Err("read-only (.nc) path kept: .L1::no_allocate needs PTX ISA 7.4");
        }
        return Ok(format!(
            "ld.global.nc.{}.{}",
            op.spelling(),
            quals[1..].join(".")
        ));
    }
    Ok(format!("{space}.{}.{}", op.spelling(), quals.join(".")))
}

/// A generic-address load (`ld.f32`, `ld.v2.u32`): the backend writes one
/// for a pointer it cannot place, such as a device function's parameter.
/// The PTX ISA allows cache operators on it; they act when the address is
/// global, which the analysis proved before keying it.
fn is_generic_load(opcode: &str) -> bool {
    let mut q = opcode.split('.');
    q.next() == Some("ld")
        && q.next().is_some_and(|first| {
            first.starts_with('v') && first[1..].parse::<u32>().is_ok() || is_ptx_type(first)
        })
}

/// The name of the function a PTX header line opens, if it is one.
fn function_name(line: &str) -> Option<String> {
    if line.starts_with([' ', '\t']) {
        return None;
    }
    let mut rest = line;
    for prefix in [".visible", ".weak", ".extern"] {
        rest = rest.strip_prefix(prefix).map_or(rest, str::trim_start);
    }
    let rest = rest
        .strip_prefix(".entry")
        .or_else(|| rest.strip_prefix(".func"))?
        .trim_start();
    // `.func (.param .b32 func_retval0) name(`: skip the return parameters.
    let rest = if let Some(r) = rest.strip_prefix('(') {
        r.split_once(')')?.1.trim_start()
    } else {
        rest
    };
    let name: String = rest
        .chars()
        .take_while(|c| !matches!(c, '(' | ' ' | '\t' | ';'))
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The file index and line number of a `.loc file line column` directive.
fn loc_file_line(trimmed: &str) -> Option<(u32, u32)> {
    let rest = trimmed.strip_prefix(".loc")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let mut fields = rest.split_whitespace().map(|f| f.trim_end_matches(','));
    let file = fields.next()?.parse().ok()?;
    let line = fields.next()?.parse().ok()?;
    Some((file, line))
}

/// The index of a `.file index "path"` directive whose path names the key
/// file (`keys::KEY_FILE`). A path with escapes is never the key file, whose
/// name has none.
fn key_file_index(trimmed: &str) -> Option<u32> {
    let rest = trimmed.strip_prefix(".file")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let index = rest[..digits].parse().ok()?;
    let quoted = rest[digits..].trim_start().strip_prefix('"')?;
    let path = &quoted[..quoted.find('"')?];
    (!path.contains('\\') && keys::is_key_file(path)).then_some(index)
}

/// The file indices of the key file in the PTX's `.file` table (which
/// LLVM writes after the functions).
fn key_files(ptx: &str) -> Vec<u32> {
    ptx.lines()
        .filter_map(|l| key_file_index(l.trim()))
        .collect()
}

/// Debug-only lines that clang writes only when debug info is on.
fn is_debug_label(trimmed: &str) -> bool {
    let Some(label) = trimmed
        .strip_prefix("$L__")
        .and_then(|l| l.strip_suffix(':'))
    else {
        return false;
    };
    ["tmp", "func_begin", "func_end"].iter().any(|p| {
        label
            .strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Splits an instruction line into its indentation-and-predicate prefix,
/// opcode and the rest.
fn split_instruction(line: &str) -> Option<(&str, &str, &str)> {
    let body = line.trim_start();
    let mut start = line.len() - body.len();
    let mut after = body;
    if let Some(p) = body.strip_prefix('@') {
        let pred_end = p.find([' ', '\t'])?;
        let tail = &p[pred_end..];
        after = tail.trim_start();
        start = line.len() - after.len();
    }
    let end = after.find([' ', '\t']).unwrap_or(after.len());
    Some((&line[..start], &after[..end], &after[end..]))
}

/// State of one pass over the text.
struct Walk {
    strip: Strip,
    /// The key file's indices in the `.file` table: only their `.loc`s are keys.
    key_files: Vec<u32>,
    target: Target,
    function: String,
    key: Option<Key>,
    in_asm: bool,
    with_asm: Vec<String>,
    in_debug_section: bool,
    loads: Vec<PtxLoad>,
    /// Keys for loads that lost theirs (`recover`), by ordinal.
    overrides: HashMap<usize, Key>,
}

impl Walk {
    /// The line to write for `line`, or `None` to drop it.
    fn line(&mut self, line: &str) -> Option<String> {
        let t = line.trim();
        if self.in_debug_section {
            self.in_debug_section = t != "}";
            return None;
        }
        let marker = match t {
            "// begin inline asm" => Some(true),
            "// end inline asm" => Some(false),
            _ => None,
        };
        if let Some(begin) = marker {
            if !self.with_asm.contains(&self.function) {
                self.with_asm.push(self.function.clone());
            }
            self.in_asm = begin;
        }
        if let Some(name) = function_name(line) {
            self.function = name;
            self.key = None;
        }
        // The user's inline asm is theirs, `.loc` and labels included:
        // nothing in it is a key, debug info we added, or a load to decide.
        if self.in_asm {
            return Some(line.to_string());
        }
        if let Some((file, n)) = loc_file_line(t) {
            let ours = self.key_files.contains(&file);
            self.key = if ours { Key::from_line(n) } else { None };
            let drop = self.strip == Strip::AllDebugInfo || ours;
            return (!drop).then(|| line.to_string());
        }
        if self.strip == Strip::AllDebugInfo {
            if is_debug_label(t) || t.starts_with(".file\t") || t.starts_with(".file ") {
                return None;
            }
            if t.starts_with(".section\t.debug") || t.starts_with(".section .debug") {
                self.in_debug_section = !t.ends_with('}');
                return None;
            }
            if t.starts_with(".target") {
                return Some(line.replace(", debug", ""));
            }
        }
        Some(self.instruction(line))
    }

    fn instruction(&mut self, line: &str) -> String {
        let Some((prefix, opcode, rest)) = split_instruction(line) else {
            return line.to_string();
        };
        let generic = is_generic_load(opcode);
        // A generic load counts only when a key says it reads global memory.
        let keyed_global = self.key.is_some_and(|k| k.decision != Decision::Default);
        let counted = opcode.starts_with("ld.global.") || (generic && keyed_global);
        if !counted {
            return line.to_string();
        }
        let recovered = if self.key.is_none() {
            self.overrides.get(&self.loads.len()).copied()
        } else {
            None
        };
        let key = self.key.or(recovered);
        let decision = key.map_or(Decision::Default, |k| k.decision);
        let (written, kept) = match rewrite(opcode, decision, self.target) {
            Ok(w) => (w, None),
            Err(why) => (opcode.to_string(), Some(why)),
        };
        self.loads.push(PtxLoad {
            function: self.function.clone(),
            key,
            original: opcode.into(),
            written: written.clone(),
            kept,
            recovered: recovered.is_some(),
        });
        format!("{prefix}{written}{rest}")
    }
}

/// Writes the keyed decisions into `ptx` and removes the keys.
pub fn apply(ptx: &str, strip: Strip) -> Result<Applied, PtxError> {
    apply_with(ptx, strip, &HashMap::new())
}

/// `apply`, with keys for the unkeyed loads at the given ordinals (`recover`).
pub fn apply_with(
    ptx: &str,
    strip: Strip,
    overrides: &HashMap<usize, Key>,
) -> Result<Applied, PtxError> {
    let target = target(ptx)?;
    let mut walk = Walk {
        strip,
        key_files: key_files(ptx),
        target,
        function: String::new(),
        key: None,
        in_asm: false,
        with_asm: Vec::new(),
        in_debug_section: false,
        loads: Vec::new(),
        overrides: overrides.clone(),
    };
    let mut text = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if let Some(out) = walk.line(body) {
            text.push_str(&out);
            text.push_str(newline);
        }
    }
    Ok(Applied {
        text,
        target,
        loads: walk.loads,
        with_asm: walk.with_asm,
    })
}

/// PTX with comments and the cache operators of `ld` removed: what must
/// equal clang's output for the same flags (design.md §8).
pub fn normalized(ptx: &str) -> String {
    let mut out = String::new();
    for line in ptx.lines() {
        let code = line.split("//").next().unwrap_or("").trim_end();
        if code.trim().is_empty() {
            continue;
        }
        let normal = match split_instruction(code) {
            Some((prefix, opcode, rest)) if opcode.starts_with("ld.") => {
                let kept: Vec<&str> = opcode
                    .split('.')
                    .filter(|q| !names_cache_operator(q))
                    .collect();
                format!("{prefix}{}{rest}", kept.join("."))
            }
            _ => code.to_string(),
        };
        out.push_str(&normal);
        out.push('\n');
    }
    out
}

/// The operator part of an opcode (`ld.global.nc.L1::no_allocate.v4.f32` →
/// `ld.global.nc.L1::no_allocate`): the opcode less its vector and type.
fn operator_part(opcode: &str) -> String {
    let parts: Vec<&str> = opcode
        .split('.')
        .take_while(|q| !q.starts_with('v') || q.parse::<u32>().is_ok())
        .filter(|q| !is_ptx_type(q))
        .collect();
    parts.join(".")
}

fn is_ptx_type(q: &str) -> bool {
    let (head, bits) = q.split_at(q.len().min(1));
    matches!(head, "b" | "u" | "s" | "f") && bits.parse::<u32>().is_ok()
}

/// The shape of one `ld`: what a load that lost its key can be matched on.
/// Two accesses of different shapes are never the same access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Shape {
    /// Read through the non-coherent path (`.nc`, `__ldg`, `const __restrict__`).
    nc: bool,
    /// Vector lanes (1, 2, 4); 0 where the IR type packs several elements
    /// into a register (`<4 x i8>` read as `u32`) and only bytes compare.
    lanes: u32,
    /// Floating-point registers (`.f32`, `.f64`) rather than bit/integer ones.
    float: bool,
    bytes: u64,
}

impl Shape {
    /// Whether a PTX load of shape `self` can be a load the report lists as `row`.
    fn fits(self, row: Shape) -> bool {
        self.nc == row.nc
            && self.bytes == row.bytes
            && (row.lanes == 0 || (self.lanes == row.lanes && self.float == row.float))
    }

    /// Whether a PTX load of shape `self` can be a load the report lists as
    /// `row` that the backend narrowed: an integer scalar read whose upper
    /// bytes nothing uses becomes a narrower read of its low bytes at the
    /// same address (LLVM's DAG combiner, `ReduceLoadWidth`; little-endian
    /// NVPTX). Seen on `(unsigned char)lut[v]` from an `int` table, read as
    /// `ld.global.u16` (`testdata/holdout3/histeq.cu`).
    fn narrows(self, row: Shape) -> bool {
        self.nc == row.nc
            && !self.float
            && !row.float
            && self.lanes == 1
            && row.lanes == 1
            && self.bytes < row.bytes
    }
}

/// The shape of an `ld` opcode (`ld.global.nc.v4.f32`).
fn ptx_shape(opcode: &str) -> Option<Shape> {
    let mut lanes = 1;
    let mut ty = None;
    let mut nc = false;
    for q in opcode.split('.') {
        if let Some(n) = q.strip_prefix('v').and_then(|n| n.parse::<u32>().ok()) {
            lanes = n;
        } else if is_ptx_type(q) {
            ty = Some((q.starts_with('f'), q[1..].parse::<u64>().ok()?));
        } else if q == "nc" {
            nc = true;
        }
    }
    let (float, bits) = ty?;
    Some(Shape {
        nc,
        lanes,
        float,
        bytes: u64::from(lanes) * bits / 8,
    })
}

/// The shape the NVPTX backend gives a load of the IR type `ty` (as the
/// report prints it) of `bytes` bytes; `nc` from the report's operator.
fn ir_shape(ty: &str, bytes: u64, nc: bool) -> Option<Shape> {
    fn scalar(t: &str) -> Option<(bool, u64)> {
        match t {
            "float" => Some((true, 32)),
            "double" => Some((true, 64)),
            "half" | "bfloat" => Some((false, 16)),
            t if t.starts_with("ptr") => Some((false, 0)),
            t => t
                .strip_prefix('i')
                .and_then(|n| n.parse::<u64>().ok())
                .map(|n| (false, n)),
        }
    }
    let shape = |lanes, float| Shape {
        nc,
        lanes,
        float,
        bytes,
    };
    if let Some(inner) = ty.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
        let (n, elem) = inner.split_once(" x ")?;
        let n: u32 = n.trim().parse().ok()?;
        let (float, bits) = scalar(elem.trim())?;
        // Elements under 32 bits are packed into wider registers.
        return Some(if bits >= 32 || bits == 0 {
            shape(n, float)
        } else {
            shape(0, false)
        });
    }
    let (float, _) = scalar(ty)?;
    Some(shape(1, float))
}

fn decision_named(name: &str) -> Decision {
    match name {
        "cache" => Decision::Cache,
        "bypass" => Decision::Bypass,
        _ => Decision::Default,
    }
}

/// Whether a read the analysis left alone for `why`, which lost its key,
/// could be a keyless `ld.global` of `shape`. Other spaces, volatile
/// (`ld.volatile`) and atomic reads never give `ld.global`; neither does a
/// generic pointer the analysis cannot place, because the backend places
/// pointers from the same facts (kernel parameters, `addrspacecast`s,
/// global variables) and writes a generic `ld` otherwise. Copies the backend
/// expands into loops read bytes.
fn could_be(why: &str, byte_loop: bool, shape: Shape) -> bool {
    match why {
        "volatile" | "atomic" | "generic pointer not provably global" => false,
        w if w.ends_with(" memory") => false,
        "copy of a runtime length" => shape.bytes == 1,
        _ if byte_loop => shape.bytes == 1,
        _ => true,
    }
}

/// Why the keyless loads of one function could not be matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unmatched {
    /// No analysed load of that shape lacks its own `ld.global`.
    NoCandidate,
    /// More keyless loads of the shape than analysed loads that lack theirs,
    /// or a read the analysis left alone could be one of them.
    Ambiguous,
    /// The candidates have different decisions.
    Disagree,
    /// The function has inline asm: the load may be the user's asm text.
    InlineAsm,
}

/// Where keyless loads are grouped: function and shape.
type Place<'a> = (&'a str, Option<Shape>);

/// Keys for the keyless loads that are provably one of the report's loads
/// (`recover`), and why each other keyless load is not.
fn match_keyless(
    report: &Report,
    applied: &Applied,
) -> (HashMap<usize, Key>, Vec<(usize, Unmatched)>) {
    let mut has_own: HashMap<u32, u32> = HashMap::new();
    for l in &applied.loads {
        if let Some(k) = l.key {
            *has_own.entry(k.id).or_default() += 1;
        }
    }
    let missing = |key: Option<u32>| key.is_some_and(|id| !has_own.contains_key(&id));
    // Keyless loads grouped by function and shape, in PTX order.
    let mut groups: Vec<(Place, Vec<usize>)> = Vec::new();
    for (i, l) in applied.loads.iter().enumerate() {
        if l.key.is_some() {
            continue;
        }
        let at = (l.function.as_str(), ptx_shape(&l.original));
        match groups.iter_mut().find(|(g, _)| *g == at) {
            Some((_, v)) => v.push(i),
            None => groups.push((at, vec![i])),
        }
    }
    let mut out = HashMap::new();
    let mut unmatched = Vec::new();
    for ((function, shape), loads) in groups {
        if applied.with_asm.iter().any(|f| f == function) {
            unmatched.extend(loads.iter().map(|&i| (i, Unmatched::InlineAsm)));
            continue;
        }
        let kernel = report.kernels.iter().find(|k| k.symbol == function);
        let (Some(k), Some(shape)) = (kernel, shape) else {
            unmatched.extend(loads.iter().map(|&i| (i, Unmatched::NoCandidate)));
            continue;
        };
        // Analysed loads of this shape with no `ld.global` of their own. A
        // copy's loads have shapes of their own, up to the copy's size. A
        // load the model merges into another's vector access has none by
        // design (a `uchar4`'s `y`, `z`, `w` in its `x`'s `ld.global.u32`):
        // it is that access, not a keyless load's candidate.
        let candidates: Vec<(u32, Decision)> = k
            .loads
            .iter()
            .filter(|r| missing(r.key))
            .filter(|r| (r.in_kernel.as_ref()).is_none_or(|m| m.merged_into.is_none()))
            .filter(|r| {
                let nc = r.operator.starts_with("ld.global.nc");
                if r.ty.starts_with("copy of") {
                    return !shape.nc && shape.bytes <= r.bytes;
                }
                ir_shape(&r.ty, r.bytes, nc)
                    .is_some_and(|row| shape.fits(row) || shape.narrows(row))
            })
            .filter_map(|r| Some((r.key?, decision_named(&r.decision))))
            .collect();
        // Reads left alone that may have become a keyless load of this shape.
        let doubts: Vec<&crate::report::SkippedLoad> = k
            .skipped
            .iter()
            .filter(|s| missing(s.key) && could_be(&s.why, s.byte_loop, shape))
            .collect();
        let doubt = !doubts.is_empty();
        if candidates.is_empty()
            && !doubt
            && lanes_of_one_decision(k, shape, &missing, &loads, &mut out)
        {
            continue;
        }
        if candidates.is_empty() {
            // Byte loads no decided load explains: the loop the backend made
            // of a long copy that was left alone (and nothing else could be
            // them). They keep clang's operator; the copy counts them.
            let only_copy = match doubts.as_slice() {
                [s] if s.byte_loop => s.key,
                _ => None,
            };
            if let Some(id) = only_copy {
                for &i in &loads {
                    out.insert(
                        i,
                        Key {
                            id,
                            decision: Decision::Default,
                        },
                    );
                }
                continue;
            }
            unmatched.extend(loads.iter().map(|&i| (i, Unmatched::NoCandidate)));
            continue;
        }
        if doubt || loads.len() > candidates.len() {
            unmatched.extend(loads.iter().map(|&i| (i, Unmatched::Ambiguous)));
            continue;
        }
        let decision = candidates[0].1;
        if candidates.iter().any(|(_, d)| *d != decision) {
            unmatched.extend(loads.iter().map(|&i| (i, Unmatched::Disagree)));
            continue;
        }
        // As many keyless loads as candidates or fewer, all with one
        // decision: each load is one of them, and the operator is right
        // whichever; each candidate is counted once.
        for (&i, &(id, _)) in loads.iter().zip(&candidates) {
            out.insert(i, Key { id, decision });
        }
    }
    (out, unmatched)
}

/// A keyless vector load (`ld.global.v4.f32`) that the backend made of
/// scalar loads it merged and then moved out of their block, dropping the
/// location (a struct copy `Point8 p = pts[i]` read as eight `float`s,
/// merged into two `v4` loads and sunk past a branch). Each such load is
/// `lanes` analysed scalar loads of its element shape that have no
/// `ld.global` of their own. When the function has at least `lanes` of them
/// per keyless load of this shape, all with one decision, and no read the
/// analysis left alone could be one of the lanes, the operator is right
/// whichever of them the backend merged: each keyless load takes the key of
/// one of them, and is recorded in `out`. `false`, changing nothing,
/// otherwise. Keyless scalar loads of the lane shape in the same function
/// draw on the same candidates; as all have one decision, the operator
/// stays right whichever loads the backend made of them.
fn lanes_of_one_decision(
    k: &crate::report::KernelReport,
    shape: Shape,
    missing: &dyn Fn(Option<u32>) -> bool,
    loads: &[usize],
    out: &mut HashMap<usize, Key>,
) -> bool {
    if shape.lanes < 2 {
        return false;
    }
    let lane = Shape {
        lanes: 1,
        bytes: shape.bytes / u64::from(shape.lanes),
        ..shape
    };
    let lanes: Vec<(u32, Decision)> = (k.loads.iter())
        .filter(|r| missing(r.key) && !r.ty.starts_with("copy of"))
        .filter(|r| {
            let nc = r.operator.starts_with("ld.global.nc");
            ir_shape(&r.ty, r.bytes, nc).is_some_and(|row| lane.fits(row))
        })
        .filter_map(|r| Some((r.key?, decision_named(&r.decision))))
        .collect();
    let doubt = (k.skipped.iter()).any(|s| missing(s.key) && could_be(&s.why, s.byte_loop, lane));
    let need = loads.len() * shape.lanes as usize;
    let Some(&(_, decision)) = lanes.first() else {
        return false;
    };
    if doubt || need > lanes.len() || lanes.iter().any(|(_, d)| *d != decision) {
        return false;
    }
    for (n, &i) in loads.iter().enumerate() {
        let id = lanes[n * shape.lanes as usize].0;
        out.insert(i, Key { id, decision });
    }
    true
}

/// Keys for `ld.global` that lost theirs in the backend: MachineLICM and
/// the sinking passes drop the debug location of what they move out of its
/// block. A keyless load takes a decision only from loads that are provably
/// the same access: in the same function, of the same shape (`.nc` or not,
/// lanes, register type, bytes), analysed, with no `ld.global` of their own,
/// at least as many of them as keyless loads of that shape, all with one
/// decision, and no read the analysis left alone that could be one of the
/// keyless loads instead. Anything else stays as clang wrote it and is
/// counted unaccounted (`account` says why). Returns the keys by load
/// ordinal, for `apply_with`.
pub fn recover(report: &Report, applied: &Applied) -> HashMap<usize, Key> {
    match_keyless(report, applied).0
}

/// Writes what the PTX holds into the report: per load, how many
/// `ld.global` it became and the operator written; per function, the total
/// and the loads no key accounts for.
pub fn account(report: &mut Report, applied: &Applied) {
    explain_unmatched(report, applied);
    let mut per_key: HashMap<u32, (u32, String)> = HashMap::new();
    let mut per_function: HashMap<&str, PtxCount> = HashMap::new();
    for l in &applied.loads {
        let count = per_function.entry(l.function.as_str()).or_default();
        count.global_loads += 1;
        count.generic += u32::from(l.is_generic());
        match l.key {
            Some(k) => {
                let e = per_key
                    .entry(k.id)
                    .or_insert((0, operator_part(&l.written)));
                e.0 += 1;
            }
            None => count.unaccounted += 1,
        }
    }
    for k in &mut report.kernels {
        k.ptx = Some(
            per_function
                .get(k.symbol.as_str())
                .cloned()
                .unwrap_or_default(),
        );
        for l in &mut k.loads {
            let Some(id) = l.key else { continue };
            let (n, op) = per_key.get(&id).cloned().unwrap_or((0, String::new()));
            l.ptx_loads = Some(n);
            if n > 0 {
                l.operator = op;
                let moved = applied
                    .loads
                    .iter()
                    .any(|p| p.recovered && p.key.is_some_and(|k| k.id == id));
                if moved {
                    l.notes.push(
                        "moved by the backend, which dropped its location; matched to a keyless PTX load of the same function and shape (or a vector load of as many such loads as it has lanes), whose candidates all have this decision".into(),
                    );
                }
            } else if l.decision != "default" {
                // A load left at the default may be a generic `ld` the PTX
                // does not count (`Rewriter::instruction`): nothing to say.
                l.notes.push(
                    "no ld.global of its own in the PTX (merged, folded or removed by the backend)"
                        .into(),
                );
            }
        }
        for sk in &mut k.skipped {
            if let Some(id) = sk.key {
                sk.ptx_loads = Some(per_key.get(&id).map_or(0, |e| e.0));
            }
        }
    }
}

/// One warning per function whose keyless loads stayed as clang wrote them,
/// saying why no decision was given to them.
fn explain_unmatched(report: &mut Report, applied: &Applied) {
    // The loads as they were before `recover`.
    let mut before = applied.clone();
    for l in &mut before.loads {
        if l.recovered {
            l.key = None;
            l.recovered = false;
        }
    }
    let (_, unmatched) = match_keyless(report, &before);
    let mut per_function: Vec<(String, Unmatched, u32)> = Vec::new();
    for (i, why) in unmatched {
        let f = &before.loads[i].function;
        match per_function
            .iter_mut()
            .find(|(g, w, _)| g == f && *w == why)
        {
            Some(e) => e.2 += 1,
            None => per_function.push((f.clone(), why, 1)),
        }
    }
    for (f, why, n) in per_function {
        let name = report
            .kernels
            .iter()
            .find(|k| k.symbol == f)
            .map_or(f.clone(), |k| k.name.clone());
        let reason = match why {
            Unmatched::NoCandidate => "no analysed load of the same shape lacks its own",
            Unmatched::Ambiguous => "they cannot be told apart from other reads of the same shape",
            Unmatched::Disagree => "the analysed loads of the same shape have different decisions",
            Unmatched::InlineAsm => {
                "the function has inline asm, whose text may hold clang's '// end inline asm' line, so they may be the asm's"
            }
        };
        report.warnings.push(format!(
            "{name}: {n} ld.global with no key (the backend moved or made them): {reason}; left as clang wrote them, unaccounted"
        ));
    }
}

#[cfg(test)]
#[path = "ptx_tests.rs"]
mod tests;
