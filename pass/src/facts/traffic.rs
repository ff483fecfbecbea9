//! The traffic model (Jia, Shaw, Martonosi, ICS 2012, Algorithms 2 and 3;
//! design.md §4): bytes one load instruction moves between L2 and the SM for
//! one thread block, with L1 on and with L1 off.
//!
//! - cache on: every fill unit (128-byte line under `fermi`, 32-byte sector
//!   under `sectored`) touched by any thread of the block is fetched once;
//! - cache off: each warp of 32 consecutive linear thread ids fetches every
//!   32-byte segment it touches, again for every warp;
//! - a thread whose address is unknown (∞) costs one unit of its own.
//!
//! Pure: accesses in, figures out. No IR here.

use crate::gpu::generation::Model;

/// What one thread does at a load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// The thread does not execute the load.
    Inactive,
    /// The thread reads from this byte address.
    At(u64),
    /// The thread executes the load at an address the analysis cannot know.
    Unknown,
}

/// Bytes of one uncached request segment (the L2 sector).
pub const SEGMENT_BYTES: u64 = 32;
pub const WARP_SIZE: usize = 32;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    pub on_bytes: u64,
    pub off_bytes: u64,
    /// False when some executing thread's address is unknown.
    pub analyzable: bool,
    /// Some warp touches one fill unit from two threads.
    pub within_warp: bool,
    /// The block fetches less with L1 than without (reuse across warps).
    pub within_block: bool,
    pub active_threads: u64,
}

impl Traffic {
    pub fn locality(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.within_warp {
            v.push("within-warp");
        }
        if self.within_block {
            v.push("within-block");
        }
        v
    }
}

/// Units of `unit` bytes covered by an access of `size` bytes at `addr`.
fn units(addr: u64, size: u64, unit: u64) -> std::ops::RangeInclusive<u64> {
    addr / unit..=addr.saturating_add(size.max(1) - 1) / unit
}

fn count_unique(v: &mut Vec<u64>) -> u64 {
    v.sort_unstable();
    v.dedup();
    v.len() as u64
}

/// Traffic of one load for one block; `accesses` in linear thread order,
/// `size` the bytes each thread reads.
pub fn block_traffic(accesses: &[Access], size: u64, model: Model) -> Traffic {
    let fill = model.fill_bytes();
    let mut block_units: Vec<u64> = Vec::with_capacity(accesses.len());
    let mut unknown_threads = 0u64;
    let mut off_segments = 0u64;
    let mut within_warp = false;
    let mut active = 0u64;
    let mut warp_units: Vec<u64> = Vec::with_capacity(WARP_SIZE * 2);
    let mut warp_segments: Vec<u64> = Vec::with_capacity(WARP_SIZE * 2);
    for warp in accesses.chunks(WARP_SIZE) {
        warp_units.clear();
        warp_segments.clear();
        let mut warp_unknown = 0u64;
        for a in warp {
            match *a {
                Access::Inactive => {}
                Access::Unknown => {
                    warp_unknown += 1;
                    active += 1;
                }
                Access::At(addr) => {
                    active += 1;
                    warp_units.extend(units(addr, size, fill));
                    warp_segments.extend(units(addr, size, SEGMENT_BYTES));
                }
            }
        }
        let touches = warp_units.len() as u64;
        block_units.extend_from_slice(&warp_units);
        if count_unique(&mut warp_units) < touches {
            within_warp = true;
        }
        off_segments += count_unique(&mut warp_segments) + warp_unknown;
        unknown_threads += warp_unknown;
    }
    let on_units = count_unique(&mut block_units) + unknown_threads;
    let on_bytes = on_units * fill;
    let off_bytes = off_segments * SEGMENT_BYTES;
    Traffic {
        on_bytes,
        off_bytes,
        analyzable: unknown_threads == 0,
        within_warp,
        within_block: unknown_threads == 0 && on_bytes < off_bytes,
        active_threads: active,
    }
}

/// The mean over several sampled blocks (the decision uses the mean).
pub fn mean(samples: &[Traffic]) -> Traffic {
    let n = samples.len().max(1) as u64;
    Traffic {
        on_bytes: samples.iter().map(|t| t.on_bytes).sum::<u64>() / n,
        off_bytes: samples.iter().map(|t| t.off_bytes).sum::<u64>() / n,
        analyzable: samples.iter().all(|t| t.analyzable),
        within_warp: samples.iter().any(|t| t.within_warp),
        within_block: samples.iter().any(|t| t.within_block),
        active_threads: samples.iter().map(|t| t.active_threads).sum::<u64>() / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(f: impl Fn(u64) -> u64, n: u64) -> Vec<Access> {
        (0..n).map(|t| Access::At(f(t))).collect()
    }

    #[test]
    fn coalesced_512_threads_fermi() {
        // a[blockIdx.x*512 + tid], 4 B: 2048 B = 16 lines on; 16 warps × 4 segments × 32 B off.
        let t = block_traffic(&at(|t| 4 * t, 512), 4, Model::Fermi);
        assert_eq!((t.on_bytes, t.off_bytes), (2048, 2048));
        assert_eq!(t.locality(), vec!["within-warp"]);
    }

    #[test]
    fn indirect_512_threads_fermi() {
        // ∞: one 128 B line per thread on (64 KB), one 32 B segment per thread off (16 KB).
        let t = block_traffic(&vec![Access::Unknown; 512], 4, Model::Fermi);
        assert_eq!(
            (t.on_bytes, t.off_bytes, t.analyzable),
            (65536, 16384, false)
        );
        assert!(t.locality().is_empty());
    }

    #[test]
    fn same_row_for_every_warp() {
        // 16x16 block, a[threadIdx.x]: 64 B used; 1 line on; 8 warps × 2 segments × 32 B off.
        let t = block_traffic(&at(|t| 4 * (t % 16), 256), 4, Model::Fermi);
        assert_eq!((t.on_bytes, t.off_bytes), (128, 512));
        assert_eq!(t.locality(), vec!["within-warp", "within-block"]);
        let s = block_traffic(&at(|t| 4 * (t % 16), 256), 4, Model::Sectored);
        assert_eq!((s.on_bytes, s.off_bytes), (64, 512));
    }

    #[test]
    fn inactive_threads_cost_nothing_and_straddles_count_twice() {
        let mut v = at(|t| 4 * t, 64);
        for a in v.iter_mut().skip(32) {
            *a = Access::Inactive;
        }
        let t = block_traffic(&v, 4, Model::Sectored);
        assert_eq!((t.on_bytes, t.off_bytes, t.active_threads), (128, 128, 32));
        // An 8-byte read at byte 28 touches two 32 B segments.
        let s = block_traffic(&[Access::At(28)], 8, Model::Sectored);
        assert_eq!((s.on_bytes, s.off_bytes), (64, 64));
    }
}
