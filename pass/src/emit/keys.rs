//! Debug-location keys: how a load's decision travels through LLVM's code
//! generator into the PTX without changing the code.
//!
//! LLVM guarantees that debug locations do not change the generated code,
//! and the NVPTX backend prints an instruction's location as a `.loc`
//! directive before it. So the pass leaves every load a plain load and only
//! moves each global load's location to a line that encodes its key (an id
//! and the decision); after code generation `ptx::apply` reads the keys back,
//! writes the cache operators and removes the keys.
//!
//! The carrier is the file, not the line: key locations name a file of
//! their own, `KEY_FILE` (a `DILexicalBlockFile` over the load's scope, so
//! scope and inlining stay), and a `.loc` is a key only when its file index
//! is that file's in the PTX's `.file` table. A source can write any line
//! and column (`#line 1073741826`), so neither can mark a key; it could name
//! the file too (`#line 5 "gpucc-cache-keys"`), so the pass refuses a module
//! whose own debug info names a file called `KEY_FILE` (`Error::ReservedDebugFile`):
//! in a PTX the pass keyed, every `.loc` in that file is the pass's. A
//! per-run nonce in the name would not help: `gpucc-cache apply` sees only
//! the PTX and could not tell the pass's nonce from a source's.
//!
//! `NEUTRAL_LINE` marks instructions that had no location at all and could
//! otherwise inherit the key of the load before them (a `.loc` is only printed
//! when the location changes; a line-0 location is not always printed).
//!
//! This file is pure arithmetic and names; `ir` writes the locations and `ptx` reads them.

use crate::decide::policy::Decision;

/// The name of the file that key locations name (and nothing else may).
pub const KEY_FILE: &str = "gpucc-cache-keys";

/// Whether a path names the key file: its last component is `KEY_FILE`.
pub fn is_key_file(path: &str) -> bool {
    path.trim_end_matches('/').rsplit('/').next() == Some(KEY_FILE)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip() {
        for decision in [Decision::Default, Decision::Cache, Decision::Bypass] {
            for id in [0, 1, 77, Key::MAX_ID] {
                let k = Key { id, decision };
                assert_eq!(Key::from_line(k.line()), Some(k));
            }
        }
        assert_eq!(Key::from_line(NEUTRAL_LINE), None);
        assert_eq!(Key::from_line(120), None);
    }

    #[test]
    fn key_file_names() {
        assert!(is_key_file(KEY_FILE));
        assert!(is_key_file("/tmp/x/gpucc-cache-keys"));
        assert!(is_key_file("./gpucc-cache-keys/"));
        assert!(!is_key_file("/tmp/gpucc-cache-keys.cu"));
        assert!(!is_key_file("gpucc-cache-keys-2"));
        assert!(!is_key_file("k.cu"));
    }
}
