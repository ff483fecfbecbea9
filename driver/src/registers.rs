//! Registers per thread from ptxas (issue 19, design.md §6): the occupancy
//! the kernel-level model simulates needs the count ptxas allocates, which
//! exists only once there is PTX. The cache operators the pass chooses are a
//! qualifier-only change of the PTX (design.md §8, checked by the codegen
//! tests), so they cannot change register allocation: the driver assembles
//! the PTX it made with `ptxas -v`, reads each kernel's count, and decides
//! again with the counts (`registers=NAME=N`) only where a count changes
//! the occupancy the model used.
//!
//! Deliberately not done: a second full compile when every count leaves the
//! occupancy as the estimate had it (the decisions and figures could not
//! change: occupancy is the count's only use), and any reading of the
//! cubin (the `-v` text is what ptxas documents). Device functions
//! (`.func`) have no count of their own for occupancy: ptxas folds theirs
//! into each entry that calls them.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context as _, Result};
use gpucc_cache_pass::gpu::hardware::Hardware;
use gpucc_cache_pass::gpu::occupancy::occupancy;

/// What ptxas allocated for one entry function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Usage {
    pub registers: u32,
    /// Static shared memory (`smem`); 0 when ptxas prints none.
    pub shared_bytes: u64,
    pub spill_stores: u64,
    pub spill_loads: u64,
}

/// The per-entry usage in `ptxas -v` output (CUDA 12's wording):
///
/// ```text
/// ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'
/// ptxas info    : Function properties for _Z1kPf
///     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
/// ptxas info    : Used 16 registers, 384 bytes smem, 360 bytes cmem[0]
/// ```
///
/// A `Used` line belongs to the entry compiled last; `.func` properties
/// (no `Compiling entry function`) are skipped. Text ptxas did not write
/// this way is an error, not a guess.
pub fn parse(text: &str) -> Result<BTreeMap<String, Usage>, String> {
    let mut out: BTreeMap<String, Usage> = BTreeMap::new();
    let mut entry: Option<String> = None;
    // Whose `Function properties` the next spill line is.
    let mut properties: Option<String> = None;
    for line in text.lines() {
        let body = line
            .strip_prefix("ptxas info")
            .and_then(|r| r.trim_start().strip_prefix(':'))
            .map(str::trim);
        if let Some(rest) = body.and_then(|b| b.strip_prefix("Compiling entry function '")) {
            let name = rest
                .split_once('\'')
                .map(|(n, _)| n)
                .ok_or_else(|| format!("unreadable ptxas line '{line}'"))?;
            entry = Some(name.to_string());
            out.insert(name.to_string(), Usage::default());
        } else if let Some(rest) = body.and_then(|b| b.strip_prefix("Function properties for ")) {
            properties = Some(rest.trim().to_string());
        } else if let Some(rest) = body.and_then(|b| b.strip_prefix("Used ")) {
            let name = entry
                .as_ref()
                .ok_or_else(|| format!("ptxas reported '{line}' for no entry function"))?;
            let usage = out.entry(name.clone()).or_default();
            for part in rest.split(',').map(str::trim) {
                let (n, what) = part
                    .split_once(' ')
                    .ok_or_else(|| format!("unreadable ptxas line '{line}'"))?;
                let n: u64 = n
                    .parse()
                    .map_err(|_| format!("unreadable ptxas line '{line}'"))?;
                match what {
                    "registers" | "register" => {
                        usage.registers = u32::try_from(n)
                            .map_err(|_| format!("unreadable ptxas line '{line}'"))?
                    }
                    "bytes smem" => usage.shared_bytes = n,
                    // Constant banks, barriers, textures: no bearing on L1.
                    _ => {}
                }
            }
        } else if body.is_none() && line.contains("bytes spill stores") {
            let Some(name) = properties.take() else {
                continue;
            };
            let Some(usage) = out.get_mut(&name) else {
                continue;
            };
            for part in line.split(',').map(str::trim) {
                let number = || part.split(' ').next().and_then(|n| n.parse::<u64>().ok());
                if part.ends_with("spill stores") {
                    usage.spill_stores = number().unwrap_or(0);
                } else if part.ends_with("spill loads") {
                    usage.spill_loads = number().unwrap_or(0);
                }
            }
        }
    }
    Ok(out)
}

/// Assembles `ptx` with `ptxas -v` for `arch` (with the user's ptxas flags,
/// which the real assembly gets too: `-maxrregcount` changes the count) in
/// `dir`, and reads each entry's usage. The cubin is thrown away.
pub fn measure(
    ptxas: &Path,
    ptx: &[u8],
    arch: &str,
    flags: &[String],
    dir: &Path,
    verbose: bool,
) -> Result<BTreeMap<String, Usage>> {
    let input = dir.join("registers.ptx");
    std::fs::write(&input, ptx).with_context(|| format!("cannot write {}", input.display()))?;
    let mut cmd = Command::new(ptxas);
    cmd.arg("-v")
        .arg(format!("-arch={arch}"))
        .args(flags.iter().filter(|f| f.as_str() != "-v"))
        .arg(&input)
        .arg("-o")
        .arg(dir.join("registers.cubin"));
    if verbose {
        say!("gpucc-cache: running {cmd:?}");
    }
    let out = crate::interrupt::output(&mut cmd)?;
    // ptxas writes `-v` to stdout in CUDA 12, to stderr in older releases.
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        let first = text
            .lines()
            .find(|l| l.contains("error") || l.contains("fatal"))
            .or_else(|| text.lines().next())
            .unwrap_or("no message");
        bail!("ptxas -v failed: {first}");
    }
    parse(&text).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Whether `registers` per thread give a block of `threads` threads with
/// `shared_bytes` of shared memory another occupancy than the estimate does,
/// in what the model uses of it: blocks per SM, L1 per SM and whether L1
/// serves global loads. A count the SM cannot run at all (an error) also
/// differs: the model must say so.
pub fn changes_occupancy(hw: &Hardware, threads: u32, registers: u32, shared_bytes: u64) -> bool {
    let seen = |r: Option<u32>| {
        occupancy(hw, threads, r, shared_bytes)
            .map(|o| (o.blocks_per_sm, o.l1_bytes_per_sm, o.l1_serves_global_loads))
    };
    match (seen(None), seen(Some(registers))) {
        (Ok(estimated), Ok(known)) => estimated != known,
        (Err(_), Err(_)) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CUDA 12.5's `ptxas -v -arch=sm_70` on a file with one `.func` and two
    /// entries (shape copied from a run; the counts are the test's own).
    const SAMPLE: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for _Z6helperPKfi
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function '_Z4heavyPKfPf' for 'sm_70'
ptxas info    : Function properties for _Z4heavyPKfPf
    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 40 registers, 384 bytes smem, 360 bytes cmem[0]
ptxas info    : Compiling entry function '_Z5lightPf' for 'sm_70'
ptxas info    : Function properties for _Z5lightPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, 352 bytes cmem[0]
";

    #[test]
    fn reads_each_entry_and_skips_device_functions() {
        let got = parse(SAMPLE).unwrap();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(
            got["_Z4heavyPKfPf"],
            Usage {
                registers: 40,
                shared_bytes: 384,
                spill_stores: 12,
                spill_loads: 8
            }
        );
        assert_eq!(
            got["_Z5lightPf"],
            Usage {
                registers: 8,
                ..Usage::default()
            }
        );
    }

    #[test]
    fn unreadable_counts_are_errors() {
        let e = parse("ptxas info    : Compiling entry function '_Z1kv' for 'sm_70'\nptxas info    : Used many registers\n")
            .unwrap_err();
        assert!(
            e.contains("Used many registers") && !e.contains('\n'),
            "{e}"
        );
        assert!(parse("ptxas info    : Used 8 registers\n").is_err());
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn only_counts_that_move_the_occupancy_matter() {
        let sm80 = Hardware::for_sm(80).unwrap();
        // sm_80, 256 threads = 8 warps, no shared memory. The estimate (32
        // registers) and the warp slots both allow 64 / 8 = 8 blocks.
        // 16 registers: 512 per warp; a sub-partition holds 16,384 / 512 =
        // 32 warps, x 4 = 128 -> 16 blocks: warps still bind at 8 -> same.
        assert!(!changes_occupancy(sm80, 256, 16, 0));
        // 40 registers: 1,280 per warp (1,280 is a multiple of the 256
        // unit); 16,384 / 1,280 = 12 warps, x 4 = 48 -> 6 blocks < 8.
        assert!(changes_occupancy(sm80, 256, 40, 0));
        // 255 registers at 1,024 threads: 255 x 32 = 8,160 -> 8,192 per
        // warp, x 32 warps = 262,144 > the 65,536 a block may hold: an
        // error the estimate does not have.
        assert!(changes_occupancy(sm80, 1024, 255, 0));
    }
}
