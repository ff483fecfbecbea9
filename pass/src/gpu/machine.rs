//! A machine description (`--machine=FILE`, `machine=FILE`): the hardware
//! facts of one GPU, given as a text file, used by the model in place of
//! the [`Hardware`] table entry of the compile arch. It exists so that the
//! model can be told the machine a simulator (GPGPU-Sim's GTX480, QV100,
//! RTX3070 configs; design.md §11) or a lent GPU really has.
//!
//! The file is `key = value` lines, `#` comments and blank lines. `base =
//! sm_XX` names the table entry every fact not given comes from; the other
//! keys are the [`Hardware`] fields (see [`KEYS`]). Byte values take `K` and
//! `M` suffixes. The facts are checked against each other (a line a whole
//! number of sectors, the L1 a whole number of sets, ...), and every error
//! is one line naming `FILE:LINE`, the key, what is wrong and the fix.
//!
//! It parses and checks; it decides nothing and runs no model. Which PTX
//! the build writes still follows the compile arch (`generation`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::gpu::generation::Arch;
use crate::gpu::hardware::{DataCache, Fill, GlobalLoads, Hardware, SetIndex, WARP_SIZE};

/// One machine description, read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    /// The file as the user named it.
    pub path: PathBuf,
    /// `name =`, else the file's name: for reports.
    pub name: String,
    /// The table entry the description starts from.
    pub base: Arch,
    /// The facts the model uses: the base's entry with the file's keys applied.
    pub hardware: Hardware,
}

/// Every key a description may give, in the order the documentation lists them.
pub const KEYS: &[&str] = &[
    "base",
    "name",
    "sms",
    "l1_bytes",
    "unified_bytes",
    "carveouts",
    "line_bytes",
    "sector_bytes",
    "fill",
    "associativity",
    "set_index",
    "l1_slices",
    "global_loads",
    "shared_per_sm",
    "shared_per_block",
    "shared_granularity",
    "shared_reserved_per_block",
    "max_threads_per_block",
    "max_blocks_per_sm",
    "max_warps_per_sm",
    "registers_per_sm",
    "registers_per_block",
    "register_granularity",
    "register_partitions",
    "l2_bytes",
];

/// The largest size or count a description may give (1 G): far above any
/// GPU's, so only a typo is refused, and products stay within `u64`.
const MAX_VALUE: u64 = 1 << 30;

/// The `key = value` lines of a description: value and line number by key.
struct Lines<'a> {
    path: &'a str,
    values: HashMap<&'a str, (&'a str, usize)>,
}

impl<'a> Lines<'a> {
    fn parse(path: &'a str, text: &'a str) -> Result<Lines<'a>, Error> {
        let mut values: HashMap<&str, (&str, usize)> = HashMap::new();
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let err = |msg: String| file_error(path, Some(line), msg);
            let Some((key, value)) = content.split_once('=') else {
                return Err(err(format!(
                    "'{content}' is not a key = value line; write e.g. l1_bytes = 48K"
                )));
            };
            let (key, value) = (key.trim(), value.trim());
            if !KEYS.contains(&key) {
                return Err(err(format!(
                    "unknown key '{key}'; the keys are {}",
                    KEYS.join(", ")
                )));
            }
            if value.is_empty() {
                return Err(err(format!("{key} has no value; give one after '='")));
            }
            if let Some((_, first)) = values.insert(key, (value, line)) {
                return Err(err(format!(
                    "{key} given again (first on line {first}); keep one"
                )));
            }
        }
        Ok(Lines { path, values })
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        self.values.get(key).map(|v| v.0)
    }

    /// An error about `key`: at its line when given, else at the file.
    fn error(&self, key: &str, msg: String) -> Error {
        let line = self.values.get(key).map(|v| v.1);
        file_error(self.path, line, format!("{key}: {msg}"))
    }

    /// A count or size, with an optional `K`/`M` suffix; `zero`: 0 allowed.
    fn number(&self, key: &str, zero: bool) -> Result<Option<u64>, Error> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let least = if zero { 0 } else { 1 };
        parse_number(v)
            .filter(|&n| n >= least && n <= MAX_VALUE)
            .map(Some)
            .ok_or_else(|| {
                self.error(
                    key,
                    format!(
                        "'{v}' is not a number from {least} to 1G; write e.g. 49152, 48K or 1M"
                    ),
                )
            })
    }

    fn count(&self, key: &str) -> Result<Option<u32>, Error> {
        // MAX_VALUE fits u32.
        Ok(self.number(key, false)?.map(|n| n as u32))
    }
}

/// `FILE:LINE: message` (or `FILE: message` for the file as a whole).
fn file_error(path: &str, line: Option<usize>, message: String) -> Error {
    let at = match line {
        Some(l) => format!("{path}:{l}"),
        None => path.to_string(),
    };
    Error::File {
        message: format!("{at}: {message}"),
    }
}

/// `49152`, `48K`, `1M` (also lower case).
fn parse_number(s: &str) -> Option<u64> {
    let t = s.trim();
    let (num, mult) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1 << 10),
        'm' | 'M' => (&t[..t.len() - 1], 1 << 20),
        _ => (t, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

impl Machine {
    /// Reads and checks the description at `path`.
    pub fn read(path: &str) -> Result<Machine, Error> {
        let text = crate::files::read_text_file("the machine description", path)?;
        Machine::parse(path, &text)
    }

    /// Checks the description `text`, read from `path` (named in errors).
    pub fn parse(path: &str, text: &str) -> Result<Machine, Error> {
        let lines = Lines::parse(path, text)?;
        let Some(base_text) = lines.get("base") else {
            return Err(file_error(
                path,
                None,
                format!(
                    "base: missing; add a line base = sm_XX naming the arch whose table entry gives \
                     the facts not listed (one of {})",
                    Arch::supported_list()
                ),
            ));
        };
        let base = Arch::parse(base_text).ok_or_else(|| {
            lines.error(
                "base",
                format!(
                    "'{base_text}' is not a supported arch; give one of {}",
                    Arch::supported_list()
                ),
            )
        })?;
        let mut hw = *Hardware::for_arch(base);
        // The base's probe answers were measured on its real part, not on
        // the machine the file describes: its open questions stay open.
        hw.measured = None;
        apply(&lines, &mut hw)?;
        check(&lines, &hw)?;
        let name = lines.get("name").map(str::to_string).unwrap_or_else(|| {
            Path::new(path)
                .file_name()
                .map_or(path.to_string(), |n| n.to_string_lossy().into_owned())
        });
        Ok(Machine {
            path: PathBuf::from(path),
            name,
            base,
            hardware: hw,
        })
    }
}

/// Sets the fields the file gives.
fn apply(lines: &Lines, hw: &mut Hardware) -> Result<(), Error> {
    if let Some(n) = lines.count("sms")? {
        hw.sms = Some(n);
    }
    apply_data_cache(lines, hw)?;
    let bytes = |key: &str| lines.number(key, false);
    if let Some(b) = bytes("line_bytes")? {
        hw.line_bytes = b;
    }
    if let Some(b) = bytes("sector_bytes")? {
        hw.sector_bytes = b;
    }
    if let Some(v) = lines.get("fill") {
        hw.fill = match v {
            "sectors" => Fill::Sectors,
            "line" => Fill::WholeLine,
            _ => {
                return Err(lines.error(
                    "fill",
                    format!("'{v}' is not a fill; give sectors (Maxwell on) or line (Fermi)"),
                ))
            }
        };
    }
    if let Some(v) = lines.get("associativity") {
        hw.associativity = if v == "full" {
            None
        } else {
            let ways = lines.count("associativity").map_err(|_| {
                lines.error(
                    "associativity",
                    format!("'{v}' is not a number of ways; give e.g. 4, or full"),
                )
            })?;
            ways
        };
    }
    if let Some(v) = lines.get("set_index") {
        hw.set_index = match v {
            "linear" => SetIndex::Linear,
            "fermi-hash" => SetIndex::FermiHash,
            _ => {
                return Err(lines.error(
                    "set_index",
                    format!("'{v}' is not a set index; give linear or fermi-hash"),
                ))
            }
        };
    }
    if let Some(v) = lines.get("global_loads") {
        hw.global_loads = match v {
            "l1" => GlobalLoads::L1ByDefault,
            "opt-in" => GlobalLoads::OptIn,
            "l2-only" => GlobalLoads::L2Only,
            _ => {
                return Err(lines.error(
                    "global_loads",
                    format!("'{v}' is not a behaviour; give l1, opt-in or l2-only"),
                ))
            }
        };
    }
    let counts: [(&str, &mut u32); 8] = [
        ("l1_slices", &mut hw.l1_slices),
        ("max_threads_per_block", &mut hw.max_threads_per_block),
        ("max_blocks_per_sm", &mut hw.max_blocks_per_sm),
        ("max_warps_per_sm", &mut hw.max_warps_per_sm),
        ("registers_per_sm", &mut hw.registers_per_sm),
        ("registers_per_block", &mut hw.registers_per_block),
        ("register_granularity", &mut hw.register_granularity),
        ("register_partitions", &mut hw.register_partitions),
    ];
    for (key, field) in counts {
        if let Some(n) = lines.count(key)? {
            *field = n;
        }
    }
    let sizes: [(&str, &mut u64, bool); 5] = [
        ("shared_per_sm", &mut hw.shared_per_sm, false),
        ("shared_per_block", &mut hw.shared_per_block, false),
        ("shared_granularity", &mut hw.shared_granularity, false),
        (
            "shared_reserved_per_block",
            &mut hw.shared_reserved_per_block,
            true,
        ),
        ("l2_bytes", &mut hw.l2_bytes, false),
    ];
    for (key, field, zero) in sizes {
        if let Some(n) = lines.number(key, zero)? {
            *field = n;
        }
    }
    if lines.get("l2_bytes").is_some() {
        hw.l2_part = "the machine description";
    }
    Ok(())
}

/// `l1_bytes` (a separate L1) or `unified_bytes` and `carveouts` (unified).
fn apply_data_cache(lines: &Lines, hw: &mut Hardware) -> Result<(), Error> {
    let l1 = lines.number("l1_bytes", false)?;
    let unified = lines.number("unified_bytes", false)?;
    let carveouts = match lines.get("carveouts") {
        Some(v) => Some(parse_carveouts(lines, v)?),
        None => None,
    };
    if let Some(l1) = l1 {
        if unified.is_some() || carveouts.is_some() {
            let other = if unified.is_some() {
                "unified_bytes"
            } else {
                "carveouts"
            };
            return Err(lines.error(
                "l1_bytes",
                format!(
                    "a separate L1 contradicts {other} (a unified L1/shared array); keep l1_bytes or \
                     unified_bytes with carveouts"
                ),
            ));
        }
        hw.data_cache = DataCache::Separate { l1_bytes: l1 };
        return Ok(());
    }
    if unified.is_none() && carveouts.is_none() {
        return Ok(());
    }
    let (base_bytes, base_carveouts) = match hw.data_cache {
        DataCache::Unified { bytes, carveouts } => (Some(bytes), Some(carveouts)),
        DataCache::Separate { .. } => (None, None),
    };
    let bytes = unified.or(base_bytes).ok_or_else(|| {
        lines.error(
            "carveouts",
            "the base has a separate L1, so carveouts need unified_bytes too; add unified_bytes"
                .into(),
        )
    })?;
    let carveouts = match carveouts {
        // One leak per description read (once per process in practice): the
        // table's `Hardware` holds `&'static` slices, and keeping it `Copy`
        // and borrowed-free is worth a few bytes.
        Some(c) => &*Box::leak(c.into_boxed_slice()),
        None => base_carveouts.ok_or_else(|| {
            lines.error(
                "unified_bytes",
                "the base has a separate L1, so a unified array needs its carveouts; add \
                 carveouts = 0, 16K, 32K (the shared-memory steps)"
                    .into(),
            )
        })?,
    };
    hw.data_cache = DataCache::Unified { bytes, carveouts };
    Ok(())
}

/// `0, 8K, 16K`: ascending shared-memory carveouts.
fn parse_carveouts(lines: &Lines, v: &str) -> Result<Vec<u64>, Error> {
    let mut out: Vec<u64> = Vec::new();
    for item in v.split(',') {
        let n = parse_number(item)
            .filter(|&n| n <= MAX_VALUE)
            .ok_or_else(|| {
                lines.error(
                    "carveouts",
                    format!(
                        "'{}' is not a size; write a comma list such as 0, 32K, 64K",
                        item.trim()
                    ),
                )
            })?;
        if out.last().is_some_and(|&last| n <= last) {
            return Err(lines.error(
                "carveouts",
                format!("{n} does not follow {} in ascending order; list each step once, smallest first", out[out.len() - 1]),
            ));
        }
        out.push(n);
    }
    Ok(out)
}

/// The facts agree with each other and the simulation can run on them.
fn check(lines: &Lines, hw: &Hardware) -> Result<(), Error> {
    let (line, sector) = (hw.line_bytes, hw.sector_bytes);
    for (key, b) in [("line_bytes", line), ("sector_bytes", sector)] {
        if !b.is_power_of_two() {
            return Err(lines.error(
                key,
                format!("{b} is not a power of two; give e.g. 128 or 32"),
            ));
        }
    }
    if !line.is_multiple_of(sector) || line / sector > 32 {
        let key = if lines.get("sector_bytes").is_some() {
            "sector_bytes"
        } else {
            "line_bytes"
        };
        return Err(lines.error(
            key,
            format!(
                "a {line} B line is not 1 to 32 sectors of {sector} B; make line_bytes a multiple of sector_bytes"
            ),
        ));
    }
    // Each L1 size the part can have: the fixed one, or one per carveout.
    let (l1_key, sizes): (&str, Vec<(u64, Option<u64>)>) = match hw.data_cache {
        DataCache::Separate { l1_bytes } => ("l1_bytes", vec![(l1_bytes, None)]),
        DataCache::Unified { bytes, carveouts } => {
            if carveouts.is_empty() {
                return Err(lines.error("carveouts", "is empty; list at least one step".into()));
            }
            let mut v = Vec::new();
            for &c in carveouts {
                if c >= bytes {
                    return Err(lines.error(
                        "carveouts",
                        format!(
                            "{c} leaves no L1 of the {bytes} B unified array; every step must be below unified_bytes"
                        ),
                    ));
                }
                v.push((bytes - c, Some(c)));
            }
            ("unified_bytes", v)
        }
    };
    for (l1, carveout) in sizes {
        let with = carveout.map_or(String::new(), |c| format!(" (with the {c} B carveout)"));
        if !l1.is_multiple_of(line) {
            return Err(lines.error(
                l1_key,
                format!("the L1 of {l1} B{with} is not a whole number of {line} B lines; make it a multiple of line_bytes"),
            ));
        }
        // Each L1/TEX unit holds an equal share (`l1sim`'s slices).
        let units = u64::from(hw.l1_slices);
        if !(l1 / line).is_multiple_of(units) {
            return Err(lines.error(
                "l1_slices",
                format!(
                    "the {} lines of the {l1} B L1{with} do not split evenly over {units} L1 units; give l1_slices = 1, or an L1 of a multiple of {} B",
                    l1 / line,
                    line * units
                ),
            ));
        }
        let lines_n = l1 / line / units;
        let of = if units == 1 {
            String::new()
        } else {
            " in each L1 unit".to_string()
        };
        if let Some(ways) = hw.associativity {
            if !lines_n.is_multiple_of(u64::from(ways)) {
                return Err(lines.error(
                    "associativity",
                    format!(
                        "{ways} ways do not divide the {lines_n} lines{of} of the {l1} B L1{with}; give a divisor, or full"
                    ),
                ));
            }
        }
        if hw.set_index == SetIndex::FermiHash && line != 128 {
            return Err(lines.error(
                "set_index",
                format!("the Fermi hash is measured for 128 B lines, not {line} B; give line_bytes = 128, or set_index = linear"),
            ));
        }
        if hw.set_index == SetIndex::FermiHash {
            let sets = hw.associativity.map(|w| lines_n / u64::from(w));
            if !matches!(sets, Some(32 | 64)) {
                let has = sets.map_or("no sets (full associativity)".to_string(), |n| {
                    format!("{n} sets")
                });
                let fix = if lines_n >= 32 && lines_n.is_multiple_of(32) {
                    format!("associativity = {}, or set_index = linear", lines_n / 32)
                } else {
                    "set_index = linear".to_string()
                };
                return Err(lines.error(
                    "set_index",
                    format!(
                        "the Fermi hash indexes 32 or 64 sets; the {l1} B L1{with} has {has}{of}; give {fix}"
                    ),
                ));
            }
        }
        if lines_n > 1 << 26 {
            return Err(lines.error(
                l1_key,
                format!("{l1} B is more L1 than the model simulates; give at most 8M"),
            ));
        }
    }
    if let DataCache::Unified { carveouts, .. } = hw.data_cache {
        let largest = carveouts[carveouts.len() - 1];
        if hw.shared_per_sm > largest {
            return Err(lines.error(
                "shared_per_sm",
                format!(
                    "{} B is more than the largest carveout ({largest} B); give shared_per_sm = {largest}",
                    hw.shared_per_sm
                ),
            ));
        }
    }
    let pairs: [(&str, u64, &str, u64); 3] = [
        (
            "shared_per_block",
            hw.shared_per_block,
            "shared_per_sm",
            hw.shared_per_sm,
        ),
        (
            "registers_per_block",
            hw.registers_per_block.into(),
            "registers_per_sm",
            hw.registers_per_sm.into(),
        ),
        (
            "max_threads_per_block",
            hw.max_threads_per_block.into(),
            "max_warps_per_sm",
            u64::from(hw.max_warps_per_sm) * u64::from(WARP_SIZE),
        ),
    ];
    for (small, a, big, b) in pairs {
        if a > b {
            let key = if lines.get(small).is_some() {
                small
            } else {
                big
            };
            return Err(lines.error(
                key,
                format!("{small} = {a} exceeds {big} ({b}); lower {small} or raise {big}"),
            ));
        }
    }
    if !hw.registers_per_sm.is_multiple_of(hw.register_partitions) {
        return Err(lines.error(
            "register_partitions",
            format!(
                "{} partitions do not divide {} registers per SM; give a divisor",
                hw.register_partitions, hw.registers_per_sm
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KB: u64 = 1024;

    fn err(text: &str) -> String {
        let e = Machine::parse("m.txt", text).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    }

    #[test]
    fn a_fermi_like_file_on_maxwell() {
        let m = Machine::parse(
            "gtx480.machine",
            "# GTX480 as GPGPU-Sim configures it\nbase = sm_52\nname = GTX480\nsms = 15\n\
             l1_bytes = 16K   # the 16 KB L1 / 48 KB shared split\nfill = line\nassociativity = 4\n\
             global_loads = l1\n\n",
        )
        .unwrap();
        let hw = m.hardware;
        assert_eq!(m.name, "GTX480");
        assert_eq!(m.base.sm, 52);
        assert_eq!(hw.data_cache, DataCache::Separate { l1_bytes: 16 * KB });
        assert_eq!(hw.fill, Fill::WholeLine);
        assert_eq!(hw.associativity, Some(4));
        assert_eq!(hw.global_loads, GlobalLoads::L1ByDefault);
        assert_eq!(hw.sm_count(), 15);
        // Not given: the base's.
        assert_eq!(hw.shared_per_sm, 96 * KB);
        assert_eq!(hw.line_bytes, 128);
    }

    #[test]
    fn a_fermi_like_l1_takes_the_hashed_set_index() {
        // GPGPU-Sim's GTX480 L1 (scripts/sim-validate writes it so): 16 KB,
        // 4 ways of 128 B lines = 32 sets, the Fermi hash.
        let m = Machine::parse(
            "gtx480",
            "base = sm_52\nl1_slices = 1\nl1_bytes = 16K\nfill = line\nassociativity = 4\nset_index = fermi-hash",
        )
        .unwrap();
        assert_eq!(m.hardware.set_index, SetIndex::FermiHash);
        // Not given: the tables' linear index.
        let m = Machine::parse("m", "base = sm_52").unwrap();
        assert_eq!(m.hardware.set_index, SetIndex::Linear);
    }

    #[test]
    fn a_unified_array_takes_its_carveouts() {
        let m = Machine::parse(
            "qv100",
            "base = sm_70\nunified_bytes = 128K\ncarveouts = 0, 8K, 16K, 32K, 64K, 96K\nassociativity = full",
        )
        .unwrap();
        assert_eq!(m.name, "qv100");
        assert_eq!(m.hardware.l1_bytes(Some(32 * KB)), Some(96 * KB));
        assert_eq!(m.hardware.associativity, None);
        // The base's carveouts are kept when only the size changes.
        let m = Machine::parse(
            "m",
            "base = sm_86\nunified_bytes = 132K\nshared_per_sm = 100K",
        )
        .unwrap();
        assert_eq!(m.hardware.largest_l1_bytes(), 132 * KB);
    }

    #[test]
    fn every_error_is_one_line_at_its_place() {
        let cases = [
            ("l1_bytes = 16K", "m.txt: base: missing"),
            ("base = sm_20", "m.txt:1: base: 'sm_20' is not a supported arch"),
            ("base = sm_52\nfrob = 1", "m.txt:2: unknown key 'frob'"),
            ("base = sm_52\nsms = 2\nsms = 3", "m.txt:3: sms given again (first on line 2)"),
            ("base = sm_52\njunk", "m.txt:2: 'junk' is not a key = value line"),
            ("base = sm_52\nsms =", "m.txt:2: sms has no value"),
            ("base = sm_52\nl1_bytes = lots", "m.txt:2: l1_bytes: 'lots' is not a number"),
            ("base = sm_52\nl1_bytes = 0", "m.txt:2: l1_bytes: '0' is not a number from 1"),
            ("base = sm_52\nfill = half", "m.txt:2: fill: 'half' is not a fill"),
            ("base = sm_52\nglobal_loads = yes", "m.txt:2: global_loads: 'yes'"),
            ("base = sm_52\nassociativity = some", "m.txt:2: associativity: 'some'"),
            ("base = sm_52\nset_index = xor", "m.txt:2: set_index: 'xor' is not a set index; give linear or fermi-hash"),
            // sm_52: 96 lines per unit, fully associative: no sets to hash.
            ("base = sm_52\nset_index = fermi-hash", "m.txt:2: set_index: the Fermi hash indexes 32 or 64 sets; the 24576 B L1 has no sets (full associativity) in each L1 unit; give associativity = 3, or set_index = linear"),
            ("base = sm_52\nl1_slices = 1\nl1_bytes = 16K\nassociativity = 8\nset_index = fermi-hash", "m.txt:5: set_index: the Fermi hash indexes 32 or 64 sets; the 16384 B L1 has 16 sets; give associativity = 4, or set_index = linear"),
            ("base = sm_52\nl1_slices = 1\nl1_bytes = 16K\nline_bytes = 64\nsector_bytes = 32\nassociativity = 8\nset_index = fermi-hash", "m.txt:7: set_index: the Fermi hash is measured for 128 B lines, not 64 B; give line_bytes = 128, or set_index = linear"),
            ("base = sm_52\nl1_bytes = 1000", "m.txt:2: l1_bytes: the L1 of 1000 B is not a whole number of 128 B lines"),
            // 24 KB = 192 lines, 96 in each of sm_52's 2 L1/TEX units.
            ("base = sm_52\nassociativity = 5", "m.txt:2: associativity: 5 ways do not divide the 96 lines in each L1 unit"),
            ("base = sm_52\nl1_bytes = 384", "m.txt: l1_slices: the 3 lines of the 384 B L1 do not split evenly over 2 L1 units"),
            ("base = sm_52\nline_bytes = 96", "m.txt:2: line_bytes: 96 is not a power of two"),
            ("base = sm_52\nsector_bytes = 256", "m.txt:2: sector_bytes: a 128 B line is not 1 to 32 sectors"),
            ("base = sm_70\ncarveouts = 0, 64K, 32K", "m.txt:2: carveouts: 32768 does not follow 65536"),
            ("base = sm_70\ncarveouts = 0, 128K", "m.txt:2: carveouts: 131072 leaves no L1"),
            ("base = sm_70\nl1_bytes = 32K\ncarveouts = 0", "m.txt:2: l1_bytes: a separate L1 contradicts carveouts"),
            ("base = sm_52\ncarveouts = 0, 16K", "m.txt:2: carveouts: the base has a separate L1"),
            ("base = sm_52\nshared_per_block = 128K", "m.txt:2: shared_per_block: shared_per_block = 131072 exceeds shared_per_sm (98304)"),
            ("base = sm_70\ncarveouts = 0, 32K", "m.txt:2: carveouts: ... "),
        ];
        for (text, want) in cases.iter().take(cases.len() - 1) {
            let e = err(text);
            assert!(e.starts_with(want), "{text:?}: {e}");
            assert!(e.contains("; "), "says the fix: {e}");
        }
        // Carveouts below the base's shared memory per SM: named at the key
        // that is not given, at the file.
        let e = err(cases[cases.len() - 1].0);
        assert!(
            e.starts_with("m.txt: shared_per_sm: 98304 B is more than the largest carveout"),
            "{e}"
        );
        let e = Machine::read("/nonexistent/m.txt").unwrap_err().to_string();
        assert!(e.contains("/nonexistent/m.txt") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn numbers_take_suffixes() {
        assert_eq!(parse_number("48K"), Some(48 * KB));
        assert_eq!(parse_number("1m"), Some(1 << 20));
        assert_eq!(parse_number("49152"), Some(49152));
        assert_eq!(parse_number("K"), None);
        assert_eq!(parse_number("-1"), None);
    }
}
