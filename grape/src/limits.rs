//! The bounds on what the crate accepts before it allocates: the size of an input file, the length
//! of one of its lines, and the memory a partition of a graph will need, estimated from its vertex
//! and edge counts and compared with a fixed limit and with the memory the machine has available.
//!
//! The estimate is a measured upper bound, not an account of every allocation: METIS's own
//! structures dominate and are not ours to count. It exists so that a graph too large for the
//! machine is refused in a line before anything is built, instead of ending in an allocation abort
//! minutes in. Deliberately not here: limits on time (a partition that fits in memory runs to the
//! end), and any reservation of the memory (other processes may still take it).

use std::fmt;

/// The largest graph file read: 16 GiB. At 20 to 60 bytes per Matrix Market entry, that holds more
/// entries than [`MAX_PARTITION_BYTES`] lets a partition take; anything larger (a log that keeps
/// growing, a file that is not a graph) is refused rather than read for hours.
pub const MAX_INPUT_BYTES: u64 = 16 << 30;

/// The longest line of a text graph: 1 MiB. A line holds one entry or one edge (tens of bytes);
/// a megabyte without a newline is binary data or a device, and buffering it whole is the cost.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Peak bytes per edge of a partition run with every method, rounded up from measurements:
/// `/usr/bin/time -f %M gpucc-cache partition GRAPH --parts=64` (release build) peaked at 290 B per
/// edge (`gen:cycle:4000000`, 1.27 GB), 378 B (`gen:mesh2d:2000x2000`, 3.0 GB), 410 B
/// (`gen:scalefree:250000:8`, 0.87 GB); the partition bench reports 409 MiB for 1,001,112 mesh
/// edges (430 B). METIS on the clone graph (2 clones and about 3 weighted edges per edge)
/// dominates.
pub const BYTES_PER_EDGE: u64 = 512;

/// Peak bytes per vertex, beyond those of its edges: an edge list with 65 edges and ids up to 10^8
/// held 5.3 GB (53 B per vertex: degree, incidence offsets, orders, METIS's vertex baseline) when it
/// was stopped; rounded up to leave room for the arrays allocated later in the run.
pub const BYTES_PER_VERTEX: u64 = 128;

/// The most memory a partition may be estimated to need, whatever the machine: 64 GiB, so that
/// the largest generated graph (2^27 edges) is the most that fits. The machine's available memory
/// (`MemAvailable` in `/proc/meminfo`) lowers it further where it can be read.
pub const MAX_PARTITION_BYTES: u64 = 64 << 30;

/// The vertex and edge counts a partition is estimated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    pub vertices: u64,
    pub edges: u64,
}

/// How much memory a partition may take: [`MAX_PARTITION_BYTES`] or less, and the machine's
/// available memory when known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    pub limit: u64,
    pub available: Option<u64>,
}

/// Everything a reader bounds: file size, line length, and the graph's footprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub input_bytes: u64,
    pub line_bytes: usize,
    pub memory: MemoryBudget,
}

/// A graph whose estimated footprint exceeds the budget; `Display` is one line with the fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    pub footprint: Footprint,
    pub needed: u64,
    pub budget: MemoryBudget,
}

impl Footprint {
    /// The estimated peak bytes of partitioning this graph (saturating: never wraps to small).
    pub fn bytes(self) -> u64 {
        (self.edges.saturating_mul(BYTES_PER_EDGE))
            .saturating_add(self.vertices.saturating_mul(BYTES_PER_VERTEX))
    }
}

impl MemoryBudget {
    /// [`MAX_PARTITION_BYTES`], and this machine's `MemAvailable` when `/proc/meminfo` is readable.
    pub fn of_this_machine() -> MemoryBudget {
        let available = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|text| mem_available(&text));
        MemoryBudget {
            limit: MAX_PARTITION_BYTES,
            available,
        }
    }

    /// The bytes a partition may take: the limit, or the available memory when that is less.
    pub fn bytes(self) -> u64 {
        self.available.map_or(self.limit, |a| a.min(self.limit))
    }

    /// `Ok` when partitioning `footprint` fits the budget.
    pub fn check(self, footprint: Footprint) -> Result<(), TooLarge> {
        let needed = footprint.bytes();
        if needed <= self.bytes() {
            Ok(())
        } else {
            Err(TooLarge {
                footprint,
                needed,
                budget: self,
            })
        }
    }
}

impl Limits {
    /// The documented constants and this machine's available memory.
    pub fn of_this_machine() -> Limits {
        Limits {
            input_bytes: MAX_INPUT_BYTES,
            line_bytes: MAX_LINE_BYTES,
            memory: MemoryBudget::of_this_machine(),
        }
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes (the file gives kB, meaning KiB).
pub fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// Bytes for messages: GiB with one decimal, MiB below 1 GiB, bytes below 1 MiB.
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", b / f64::from(1u32 << 30))
    } else if bytes >= 1 << 20 {
        format!("{:.1} MiB", b / f64::from(1u32 << 20))
    } else {
        format!("{bytes} B")
    }
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Footprint { vertices, edges } = self.footprint;
        let limit = match self.budget.available {
            Some(a) if a < self.budget.limit => {
                format!("the {} of memory available (MemAvailable)", human_bytes(a))
            }
            _ => format!("the {} limit", human_bytes(self.budget.limit)),
        };
        write!(
            f,
            "partitioning {vertices} vertices and {edges} edges needs about {} \
             ({BYTES_PER_EDGE} B per edge + {BYTES_PER_VERTEX} B per vertex), more than {limit}; \
             partition a smaller graph (at most {} edges fit)",
            human_bytes(self.needed),
            self.budget
                .bytes()
                .saturating_sub(vertices.saturating_mul(BYTES_PER_VERTEX))
                / BYTES_PER_EDGE
        )
    }
}

impl std::error::Error for TooLarge {}
