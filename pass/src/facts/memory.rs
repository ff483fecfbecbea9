//! Kernel data the user bound to pointer arguments (`--kernel-data=NAME=FILE`):
//! raw little-endian arrays that the evaluation reads when an address depends on
//! a value loaded from them, so that a gather `x[col[i]]` gets real indices
//! instead of the paper's ∞ (issue 8: GRAPE's effect measured in the model).
//!
//! A region starts at the stand-in address of its parameter (`Base::Param`), so
//! an address the evaluation computes from that base lands in the region. Only
//! integer loads are served; a read past the end, or of a width other than 1, 2,
//! 4 or 8 bytes, is unknown.

use std::cell::Cell;
use std::path::PathBuf;
use std::sync::Arc;

use crate::facts::address::Base;
use crate::llvm::ir::Value;
use crate::options::{ArgRef, KernelData};

/// The bound regions of one kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Memory {
    regions: Vec<Region>,
    /// Guessed row offsets ([`Memory::guess_rows`]).
    rows: Vec<GuessedRows>,
}

/// One parameter's bound data.
#[derive(Clone, Debug, PartialEq)]
struct Region {
    index: u32,
    /// The parameter's stand-in address, where the data's byte 0 lies.
    start: i64,
    bytes: Arc<Vec<u8>>,
    path: PathBuf,
    /// Reads near the region (within [`GUESSED_SPAN`] of its start, either
    /// side) that it does not hold whole: a file shorter than what the
    /// kernel reads, or of another element type ([`Memory::outside`]).
    outside: Cell<u64>,
}

/// Reads outside one parameter's bound data: the parameter, the file, its
/// length in bytes, and how many reads the evaluation made there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outside {
    pub index: u32,
    pub path: PathBuf,
    pub len: usize,
    pub reads: u64,
}

/// A row-offset array nobody bound, standing for one whose row `i` holds
/// `lengths[i % lengths.len()]` elements: `p[i]` is the sum of the lengths
/// before row `i`; offsets of `size` bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct GuessedRows {
    index: u32,
    start: i64,
    size: i64,
    lengths: &'static [i64],
}

impl GuessedRows {
    /// `p[row]`.
    fn offset(&self, row: i64) -> i64 {
        let n = self.lengths.len() as i64;
        let cycle: i64 = self.lengths.iter().sum();
        let before: i64 = self.lengths[..row.rem_euclid(n) as usize].iter().sum();
        row.div_euclid(n) * cycle + before
    }
}

/// How far past its start a guessed row-offset array reaches: 2^34 bytes,
/// a quarter of the distance between two parameters' stand-in addresses
/// (`Base::address`), so it never reads into another parameter's.
const GUESSED_SPAN: i64 = 1 << 34;

impl Memory {
    /// The regions `data` binds for `function`'s parameters (a name that is no
    /// parameter of this kernel binds nothing here).
    pub fn for_kernel(function: Value, data: &[KernelData]) -> Memory {
        let params = function.params();
        let mut regions = Vec::new();
        for KernelData { arg, bytes, path } in data {
            let index = match arg {
                ArgRef::Index(i) => Some(*i).filter(|&i| (i as usize) < params.len()),
                ArgRef::Name(n) => params.iter().position(|p| p.name() == *n).map(|i| i as u32),
            };
            let Some(index) = index else { continue };
            if !params[index as usize].ty().is_pointer() {
                continue;
            }
            let start = Base::Param {
                index,
                name: String::new(),
            }
            .address();
            regions.retain(|r: &Region| r.index != index);
            regions.push(Region {
                index,
                start,
                bytes: bytes.clone(),
                path: path.clone(),
                outside: Cell::new(0),
            });
        }
        Memory {
            regions,
            rows: Vec::new(),
        }
    }

    /// Binds parameter `index`, a row-offset array of `size`-byte offsets
    /// nobody bound, to the guess that its rows hold `lengths` elements in
    /// turn (row `i`: `lengths[i % lengths.len()]`). A parameter with bound
    /// data keeps it. Whether it bound the guess.
    pub fn guess_rows(&mut self, index: u32, size: i64, lengths: &'static [i64]) -> bool {
        if self.bound().contains(&index) || !matches!(size, 4 | 8) || lengths.is_empty() {
            return false;
        }
        let start = Base::Param {
            index,
            name: String::new(),
        }
        .address();
        self.rows.push(GuessedRows {
            index,
            start,
            size,
            lengths,
        });
        true
    }

    /// Whether some parameter holds guessed rows, not data.
    pub fn has_guesses(&self) -> bool {
        !self.rows.is_empty()
    }

    pub fn is_empty(&self) -> bool {
        self.regions.is_empty() && self.rows.is_empty()
    }

    /// The parameter indices with bound data or guessed rows.
    pub fn bound(&self) -> Vec<u32> {
        (self.regions.iter().map(|r| r.index))
            .chain(self.rows.iter().map(|r| r.index))
            .collect()
    }

    /// The bound parameters that reads fell outside of, so far.
    pub fn outside(&self) -> Vec<Outside> {
        (self.regions.iter())
            .filter(|r| r.outside.get() > 0)
            .map(|r| Outside {
                index: r.index,
                path: r.path.clone(),
                len: r.bytes.len(),
                reads: r.outside.get(),
            })
            .collect()
    }

    /// The integer of `bytes` bytes at `address`, sign-extended (the IR's
    /// casts give it its signedness); `None` outside every region.
    pub fn read(&self, address: i64, bytes: u32) -> Option<i64> {
        if !matches!(bytes, 1 | 2 | 4 | 8) {
            return None;
        }
        if let Some(r) = self.rows.iter().find(|r| {
            address >= r.start && address - r.start < GUESSED_SPAN && i64::from(bytes) == r.size
        }) {
            let at = address - r.start;
            return (at % r.size == 0).then(|| r.offset(at / r.size));
        }
        let near = |r: &&Region| address.abs_diff(r.start) < GUESSED_SPAN as u64;
        let region = self.regions.iter().find(near)?;
        let (start, data) = (region.start, &region.bytes);
        if address < start || (address - start) as u64 + u64::from(bytes) > data.len() as u64 {
            region.outside.set(region.outside.get() + 1);
            return None;
        }
        let at = (address - start) as usize;
        let mut raw = [0u8; 8];
        raw[..bytes as usize].copy_from_slice(&data[at..at + bytes as usize]);
        let v = i64::from_le_bytes(raw);
        let shift = 64 - 8 * bytes;
        Some((v << shift) >> shift)
    }
}

/// Elements per row of a row-offset array nobody bound (see `model::sm_model::simulate`),
/// row by row in turn: a guess, in the source loop's iterations. 5 to 8 is
/// a 2-D mesh's Laplacian (5) up to a 3-D one's (7) and a little beyond,
/// about the walk's guessed trip count (`walk::DEFAULT_BUDGET.unknown_trip`,
/// 8) on average; consecutive rows differ, as real rows do, so that every
/// remainder of an unroll by 2, 4 or 8 occurs and clang's remainder loop
/// runs for some lanes and not for others.
pub const ROW_GUESS: &[i64] = &[5, 6, 7, 8];

#[cfg(test)]
mod tests {
    use super::*;

    fn param(index: u32) -> i64 {
        Base::Param {
            index,
            name: String::new(),
        }
        .address()
    }

    #[test]
    fn guessed_rows_hold_their_lengths_in_turn() {
        // Rows of 5, 6, 7, 8 elements in turn: p[0..6] = 0, 5, 11, 18,
        // 26, 31 (26 = 5 + 6 + 7 + 8, then row 4 is 5 long again).
        let mut m = Memory::default();
        assert!(m.guess_rows(0, 4, &[5, 6, 7, 8]));
        let p = param(0);
        let got: Vec<Option<i64>> = (0..6).map(|i| m.read(p + 4 * i, 4)).collect();
        assert_eq!(
            got,
            [0, 5, 11, 18, 26, 31].map(Some),
            "4-byte offsets, read at their width"
        );
        // Another width, a misaligned address, another parameter: unknown.
        assert_eq!(m.read(p, 8), None);
        assert_eq!(m.read(p + 2, 4), None);
        assert_eq!(m.read(param(1), 4), None);
        assert_eq!(m.bound(), [0]);
        assert!(m.has_guesses());
        // 8-byte offsets: p[3] = 18.
        let mut wide = Memory::default();
        assert!(wide.guess_rows(2, 8, &[5, 6, 7, 8]));
        assert_eq!(wide.read(param(2) + 24, 8), Some(18));
        // A parameter whose data the user bound keeps its data.
        let bytes = Arc::new(7i32.to_le_bytes().repeat(4));
        let mut bound = Memory {
            regions: vec![Region {
                index: 0,
                start: param(0),
                bytes,
                path: PathBuf::from("p.i32"),
                outside: Cell::new(0),
            }],
            rows: Vec::new(),
        };
        assert!(!bound.guess_rows(0, 4, &[5, 6, 7, 8]));
        assert!(!bound.has_guesses());
        assert_eq!(bound.read(param(0) + 4, 4), Some(7));
        assert!(bound.outside().is_empty());
        // Past the end, straddling it, and before the start: unknown, and
        // counted; another parameter's place is not this one's.
        assert_eq!(bound.read(param(0) + 16, 4), None);
        assert_eq!(bound.read(param(0) + 14, 4), None);
        assert_eq!(bound.read(param(0) - 4, 4), None);
        assert_eq!(bound.read(param(1), 4), None);
        let out = bound.outside();
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].index, out[0].len, out[0].reads), (0, 16, 3));
    }
}
