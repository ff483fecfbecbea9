//! Kernel data the user bound to pointer arguments (`--kernel-data=NAME=FILE`):
//! raw little-endian arrays that the evaluation reads when an address depends on
//! a value loaded from them, so that a gather `x[col[i]]` gets real indices
//! instead of the paper's ∞ (issue 8: GRAPE's effect measured in the model).
//!
//! A region starts at the stand-in address of its parameter (`Base::Param`), so
//! an address the evaluation computes from that base lands in the region. Only
//! integer loads are served; a read past the end, or of a width other than 1, 2,
//! 4 or 8 bytes, is unknown.

use std::sync::Arc;

use crate::facts::address::Base;
use crate::llvm::ir::Value;
use crate::options::{ArgRef, KernelData};

/// The bound regions of one kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Memory {
    /// (parameter index, start address, bytes), by parameter index.
    regions: Vec<(u32, i64, Arc<Vec<u8>>)>,
}

impl Memory {
    /// The regions `data` binds for `function`'s parameters (a name that is no
    /// parameter of this kernel binds nothing here).
    pub fn for_kernel(function: Value, data: &[KernelData]) -> Memory {
        let params = function.params();
        let mut regions = Vec::new();
        for KernelData { arg, bytes, .. } in data {
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
            regions.retain(|r: &(u32, i64, Arc<Vec<u8>>)| r.0 != index);
            regions.push((index, start, bytes.clone()));
        }
        Memory { regions }
    }

    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// The parameter indices with bound data.
    pub fn bound(&self) -> Vec<u32> {
        self.regions.iter().map(|r| r.0).collect()
    }

    /// The integer of `bytes` bytes at `address`, sign-extended (the IR's
    /// casts give it its signedness); `None` outside every region.
    pub fn read(&self, address: i64, bytes: u32) -> Option<i64> {
        if !matches!(bytes, 1 | 2 | 4 | 8) {
            return None;
        }
        let (_, start, data) = self.regions.iter().find(|r| {
            address >= r.1 && (address - r.1) as u64 + u64::from(bytes) <= r.2.len() as u64
        })?;
        let at = (address - start) as usize;
        let mut raw = [0u8; 8];
        raw[..bytes as usize].copy_from_slice(&data[at..at + bytes as usize]);
        let v = i64::from_le_bytes(raw);
        let shift = 64 - 8 * bytes;
        Some((v << shift) >> shift)
    }
}
