//! Debug-location keys: how a load's decision travels through LLVM's code
//! generator into the PTX without changing the code.
//!
//! LLVM guarantees that debug locations do not change the generated code,
//! and the NVPTX backend prints an instruction's location as a `.loc`
//! directive before it. So the pass leaves every load a plain load and only
//! moves each global load's location to a line that encodes its key (an id
//! and the decision); after code generation `ptx::apply` reads the keys back,
//! writes the cache operators and removes the keys. The lines are far above
//! any real source line (2^30 and up), so they cannot be confused with the
//! user's own line table when the user compiles with `-g`.
//!
//! `NEUTRAL_LINE` marks instructions that had no location at all and could
//! otherwise inherit the key of the load before them (a `.loc` is only printed
//! when the location changes; a line-0 location is not always printed).
//!
//! This file is pure arithmetic; `ir` writes the locations and `ptx` reads them.

use crate::policy::Decision;

/// The first key line.
pub const KEY_BASE: u32 = 1 << 30;
/// The line given to located-nowhere instructions so that they end a key's span.
pub const NEUTRAL_LINE: u32 = KEY_BASE - 1;
/// Decisions per id in the line encoding.
const STRIDE: u32 = 4;

/// One load's key: its id in this module and what to do with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub id: u32,
    pub decision: Decision,
}

fn code(d: Decision) -> u32 {
    match d {
        Decision::Default => 0,
        Decision::Cache => 1,
        Decision::Bypass => 2,
    }
}

impl Key {
    /// The largest id a line can carry.
    pub const MAX_ID: u32 = (u32::MAX - KEY_BASE) / STRIDE - 1;

    /// The source line that carries this key.
    pub fn line(self) -> u32 {
        KEY_BASE + self.id.min(Self::MAX_ID) * STRIDE + code(self.decision)
    }

    /// The key a `.loc` line number carries, if it is one of ours.
    pub fn from_line(line: u32) -> Option<Key> {
        let rel = line.checked_sub(KEY_BASE)?;
        let decision = match rel % STRIDE {
            0 => Decision::Default,
            1 => Decision::Cache,
            2 => Decision::Bypass,
            _ => return None,
        };
        Some(Key {
            id: rel / STRIDE,
            decision,
        })
    }
}

/// Whether a `.loc` line number was written by gpucc-cache (a key or the neutral line).
pub fn is_ours(line: u32) -> bool {
    line >= NEUTRAL_LINE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip() {
        for decision in [Decision::Default, Decision::Cache, Decision::Bypass] {
            for id in [0, 1, 77, Key::MAX_ID] {
                let k = Key { id, decision };
                assert_eq!(Key::from_line(k.line()), Some(k));
                assert!(is_ours(k.line()));
            }
        }
        assert_eq!(Key::from_line(NEUTRAL_LINE), None);
        assert!(is_ours(NEUTRAL_LINE));
        assert_eq!(Key::from_line(120), None);
        assert!(!is_ours(65_000));
    }
}
