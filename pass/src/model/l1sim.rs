//! The L1 simulation (design.md §6): replays the [`Trace`] of one SM through a
//! model of its L1 data cache and counts, per memory instruction, line
//! requests, sector hits and misses, the bytes the SM pulls from L2, and who
//! filled each sector it hits. The cache is set-associative (or fully
//! associative) with true LRU over 128 B lines and a linear set index (line
//! number mod sets); a load miss fills the whole line (Fermi) or only the
//! missing 32 B sectors (Maxwell and later); stores and atomics follow the
//! generation's policy; a load that does not allocate either probes L1
//! (`.L1::no_allocate`) or skips it (`.cg`); a read-only (`.nc`) load always
//! allocates. An SM whose L1 is several units (Maxwell/Pascal: two L1/TEX
//! units, one per half SM) is simulated as that many independent caches,
//! each of an equal share of the capacity with its own LRU state; the
//! blocks are dealt to them by slot ([`L1Config::slices`]).
//!
//! It deliberately models no time: no MSHRs or in-flight miss merging, no
//! bank conflicts, no L2, no separate texture path beside L1 (read-only data
//! shares the one L1/TEX array), no eviction priorities beyond "allocate or
//! not". Events are replayed in trace order, and the lanes of one event
//! coalesce into one request per line. It reads no IR and decides nothing:
//! the caller says which loads allocate and which generation's rules apply
//! ([`L1Config`]; `l1_config` builds it from the hardware facts). Its tests
//! are in `l1sim_tests.rs`. Length: the file stays above 800 lines (about
//! 1,250) on purpose: the tag state, its line index and the coalescer are private
//! parts of one replay loop tuned together (`auto` replays a trace many
//! times, and issue 19 asks for speed); the next split, if it grows, is the
//! coalescer.

use std::fmt;

use crate::gpu::hardware::SetIndex;
use crate::model::trace::{Kind, Trace};

/// The L1 line from Fermi on: "A L1 cache line is 128 bytes and maps to a
/// 128 byte aligned segment in device memory" (Nsight Visual Studio Edition
/// documentation, "Memory Statistics - Global"; design.md §6 for Volta+).
pub const LINE_BYTES: u32 = 128;
/// The unit L2 serves ("L2 and texture transactions are 32 bytes", Nsight
/// VSE, "Memory Statistics - Caches"), and the unit a Volta+ L1 tracks
/// validity in.
pub const SECTOR_BYTES: u32 = 32;

/// How much of a line a load miss brings into L1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// The whole line. Fermi: "if every thread in a warp loads a 4-byte value
    /// from sparse locations which miss in L1 cache, each thread will incur
    /// one 128-byte L1 transaction and four 32-byte L2 transactions" (Nsight
    /// VSE, "Memory Statistics - Caches").
    Line,
    /// Only the missing sectors; the line frame is still taken whole, so
    /// capacity is occupied in lines. Maxwell and Pascal: "For all Maxwell -
    /// Pascal the L1/TEX cache line size is 128B consisting of 4 32B sectors.
    /// On a load miss only the 32B sectors in the cache line that were
    /// accessed are loaded from L2" (NVIDIA developer forums, thread "Pascal
    /// L1 cache", NVIDIA staff, post 12; MT4G measures a 32 B fetch on a
    /// Quadro P6000). Volta and later: "On miss the cache will only fetch the
    /// unique 32 byte sectors that missed" (same thread, post 14).
    Sector,
}

/// What a global store, and a global atomic, does to L1.
///
/// Atomics always remove the L1 copy of what they touch, at the policy's
/// granularity. Assumption: global atomics are performed at L2 and bypass L1
/// (said on the NVIDIA developer forums, "How to keep L1 and L2 cache
/// consistent"; not in NVIDIA's guides), so an L1 copy would be stale.
/// Stores and atomics never move load bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorePolicy {
    /// Fermi: the store goes to L2 and evicts the whole line it touches.
    /// PTX ISA, cache operators, `.wb`: "sm_20 does NOT cache global store
    /// data in L1 ... Global stores bypass L1, and discard any L1 lines that
    /// match, regardless of the value of the cache operator".
    EvictLine,
    /// Volta and later: write-through without write-allocate. Assumption (no
    /// NVIDIA document found that states it): a store updates the sectors
    /// that are present, which stay valid with their recency unchanged, and
    /// allocates nothing on a miss. Atomics invalidate the touched sectors.
    /// Accel-Sim's tested Volta configuration models an L1 that does not
    /// keep written data for later loads in this sense.
    UpdateSectors,
    /// Volta and later, the other reading: write-through *with* write
    /// allocation, as Accel-Sim's L1 write-policy microbenchmark reports on
    /// Volta to Ampere (issue 19; one tool's measurement, not an NVIDIA
    /// statement). A store takes a frame for its line on a miss (evicting the
    /// set's LRU line), makes the sectors it writes valid without fetching
    /// anything (assumption: a later load of a written sector hits, even if
    /// the store wrote only part of it) and makes the line most recently
    /// used. Atomics invalidate the touched sectors as under `UpdateSectors`.
    /// A scenario for decisions that must hold either way.
    AllocateSectors,
}

/// What a load that does not allocate does in L1. Whether a
/// `.L1::no_allocate` load really hits lines other loads allocated is not
/// documented beyond the PTX ISA sentence below; a decision that must hold
/// either way simulates `NoAllocate` (it probes) and `SkipL1` (it does not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bypass {
    /// `.L1::no_allocate`. PTX ISA, eviction priorities: "Do not allocate
    /// data to cache." It forbids allocation only, so a present sector is
    /// served from L1 (and, an assumption, refreshes the line's recency like
    /// any hit); a missing sector comes from L2 as 32 B and is not installed.
    NoAllocate,
    /// `.cg`. PTX ISA, cache operators: "Cache at global level (cache in L2
    /// and below, not L1)." The load does not look up L1: every sector comes
    /// from L2 as a 32 B transaction.
    SkipL1,
}

/// The L1 of one SM, as the simulation sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L1Config {
    /// L1 data capacity in bytes (after the shared-memory carveout).
    pub capacity_bytes: u32,
    /// Line (frame) size: a power of two, a whole number (1..=32) of sectors.
    pub line_bytes: u32,
    /// Sector size: a power of two.
    pub sector_bytes: u32,
    /// Ways per set; `None` is fully associative. Sets are then the lines
    /// of one slice over the ways; [`L1Config::with_sets`] gives a set count
    /// instead, for any capacity.
    pub ways: Option<u32>,
    /// How a line picks its set where `ways` leaves more than one. The
    /// Fermi hash is defined for 32 and 64 sets; at any other set count
    /// (a scenario's capacity that is not a whole number of the machine's
    /// sets of `ways`) the index is linear.
    pub set_index: SetIndex,
    /// Independent L1 units sharing `capacity_bytes` equally, each with its
    /// own sets and LRU state (Maxwell/Pascal: 2, one L1/TEX unit per half
    /// SM; otherwise 1). Block slot `b` of the trace uses unit `b % slices`:
    /// the model's assumption, since the block scheduler's placement is not
    /// documented; alternating puts consecutive co-resident blocks on
    /// different halves, as an SM filling both halves evenly would. With
    /// partitioned global caching a block runs on one half only
    /// (`cuda_occupancy.h`), so its loads meet only its half's L1. A store
    /// or atomic acts on its own unit only (L1 is not coherent).
    pub slices: u32,
    pub fill: Fill,
    pub stores: StorePolicy,
    pub bypass: Bypass,
    /// Whether a load the tool does not decide (`Kind::FixedLoad`; not
    /// `Kind::ReadOnly`, which always allocates), or a decided load the
    /// caller gives no answer for, allocates in L1 on this
    /// target: true where plain `ld.global` caches in L1 (Fermi with the
    /// default `-dlcm=ca`, sm_60, Volta and later), false where it does not
    /// (Kepler, Maxwell, sm_61 without opting in; design.md §6).
    pub default_load_allocates: bool,
}

impl L1Config {
    /// Fermi's L1 (sm_2x): line fills, stores evict, bypass is `.cg`.
    pub fn line_fill(capacity_bytes: u32) -> Self {
        L1Config {
            capacity_bytes,
            line_bytes: LINE_BYTES,
            sector_bytes: SECTOR_BYTES,
            ways: None,
            set_index: SetIndex::Linear,
            slices: 1,
            fill: Fill::Line,
            stores: StorePolicy::EvictLine,
            bypass: Bypass::SkipL1,
            default_load_allocates: true,
        }
    }

    /// The L1 of Volta and later (sm_70+): sector fills, write-through
    /// stores, bypass is `.L1::no_allocate`.
    pub fn sector_fill(capacity_bytes: u32) -> Self {
        L1Config {
            fill: Fill::Sector,
            stores: StorePolicy::UpdateSectors,
            bypass: Bypass::NoAllocate,
            ..L1Config::line_fill(capacity_bytes)
        }
    }

    /// This L1 with `sets` sets per slice and a linear set index: the ways
    /// are what the capacity holds, `capacity / (slices × sets × line)`, and
    /// the capacity is trimmed to whole sets (an effective capacity a few
    /// per cent below nominal need not be a multiple of them). Accel-Sim
    /// models Volta's L1 so, 4 sets whose ways follow the carveout.
    pub fn with_sets(self, sets: u32) -> Result<L1Config, L1Error> {
        let set_bytes = u64::from(self.line_bytes) * u64::from(sets) * u64::from(self.slices);
        let ways = u64::from(self.capacity_bytes)
            .checked_div(set_bytes)
            .filter(|&w| w > 0)
            .ok_or(L1Error::Capacity {
                capacity_bytes: self.capacity_bytes,
                set_bytes,
            })?;
        // ways × set_bytes <= capacity_bytes, which is a u32.
        Ok(L1Config {
            capacity_bytes: (ways * set_bytes) as u32,
            ways: Some(ways as u32),
            set_index: SetIndex::Linear,
            ..self
        })
    }

    fn geometry(&self) -> Result<Geometry, L1Error> {
        for (what, bytes) in [("line", self.line_bytes), ("sector", self.sector_bytes)] {
            if !bytes.is_power_of_two() {
                return Err(L1Error::NotPowerOfTwo { what, bytes });
            }
        }
        let per_line = self.line_bytes / self.sector_bytes;
        if self.line_bytes < self.sector_bytes || per_line > 32 {
            return Err(L1Error::SectorsPerLine {
                line_bytes: self.line_bytes,
                sector_bytes: self.sector_bytes,
            });
        }
        if self.slices == 0 || self.slices > MAX_SLICES {
            return Err(L1Error::Slices {
                slices: self.slices,
            });
        }
        let slice_bytes = self.capacity_bytes / self.slices;
        let lines = slice_bytes / self.line_bytes;
        let ways = self.ways.unwrap_or(lines);
        let whole = self.capacity_bytes.is_multiple_of(self.slices)
            && slice_bytes.is_multiple_of(self.line_bytes)
            && ways > 0
            && lines.is_multiple_of(ways);
        if !whole || lines == 0 || lines > MAX_LINES / self.slices {
            return Err(L1Error::Capacity {
                capacity_bytes: self.capacity_bytes,
                set_bytes: u64::from(self.line_bytes)
                    * u64::from(ways.max(1))
                    * u64::from(self.slices),
            });
        }
        let sets = lines / ways;
        Ok(Geometry {
            slices: self.slices,
            sets,
            ways,
            fermi_hash: self.set_index == SetIndex::FermiHash && matches!(sets, 32 | 64),
            sector_shift: self.sector_bytes.trailing_zeros(),
            line_shift: per_line.trailing_zeros(),
            full: if per_line == 32 {
                u32::MAX
            } else {
                (1 << per_line) - 1
            },
        })
    }
}

/// More lines than any L1 has; keeps frame indices clear of [`NIL`].
const MAX_LINES: u32 = 1 << 26;

/// More L1 units per SM than any GPU has (Maxwell/Pascal have 2).
const MAX_SLICES: u32 = 64;

/// Why a simulation could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum L1Error {
    /// A line or sector size is not a power of two.
    NotPowerOfTwo {
        what: &'static str,
        bytes: u32,
    },
    SectorsPerLine {
        line_bytes: u32,
        sector_bytes: u32,
    },
    /// The capacity is not a whole number of sets of `ways` lines in each
    /// slice (`set_bytes` counts one set in every slice).
    Capacity {
        capacity_bytes: u32,
        set_bytes: u64,
    },
    /// No L1 units, or more than any GPU has.
    Slices {
        slices: u32,
    },
    /// A malformed trace: an event's instruction index is out of range.
    UnknownInstruction {
        event: usize,
        inst: u32,
    },
    /// A malformed trace: an event's `start..start + lanes` is out of range.
    LanesOutOfRange {
        event: usize,
    },
}

impl fmt::Display for L1Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            L1Error::NotPowerOfTwo { what, bytes } => {
                write!(f, "L1 {what} size {bytes} B is not a power of two")
            }
            L1Error::SectorsPerLine {
                line_bytes,
                sector_bytes,
            } => write!(
                f,
                "L1 line of {line_bytes} B is not 1 to 32 sectors of {sector_bytes} B"
            ),
            L1Error::Capacity {
                capacity_bytes,
                set_bytes,
            } => write!(
                f,
                "L1 capacity {capacity_bytes} B is not a whole number of {set_bytes} B sets \
                 (1 to 2^26 lines)"
            ),
            L1Error::Slices { slices } => {
                write!(f, "{slices} L1 units per SM: give 1 to {MAX_SLICES}")
            }
            L1Error::UnknownInstruction { event, inst } => {
                write!(
                    f,
                    "trace event {event} names instruction {inst}, which the trace lacks"
                )
            }
            L1Error::LanesOutOfRange { event } => {
                write!(
                    f,
                    "trace event {event} has lanes outside the trace's addresses"
                )
            }
        }
    }
}

impl std::error::Error for L1Error {}

/// Per-instruction (or total) counts. For loads, `hits + misses == sectors`.
/// For stores and atomics, `hits` are sectors found present in L1 (nothing is
/// read) and `misses` the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Line-level requests: one per distinct line an event's lanes touch.
    pub requests: u64,
    /// Distinct sectors requested, summed over events.
    pub sectors: u64,
    pub hits: u64,
    pub misses: u64,
    /// Bytes moved from L2 toward the SM by loads: line or sector fills, and
    /// 32 B per missed sector of a load that does not allocate.
    pub l2_bytes: u64,
    /// Valid sectors that stores or atomics removed from L1.
    pub invalidated: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.requests += o.requests;
        self.sectors += o.sectors;
        self.hits += o.hits;
        self.misses += o.misses;
        self.l2_bytes += o.l2_bytes;
        self.invalidated += o.invalidated;
    }
}

/// Who filled the sectors a load hit. The fields sum to the load's hits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// This instruction, same warp: reuse across loop iterations or
    /// re-execution (within one event every sector is looked up once).
    pub same_warp: u64,
    /// This instruction, another warp of the same block.
    pub same_block: u64,
    /// This instruction, another block.
    pub other_block: u64,
    /// Other instructions, ascending by instruction index.
    pub other_inst: Vec<OtherInst>,
}

/// Hits on sectors another instruction filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtherInst {
    /// The filling instruction (index into `Trace::instructions`).
    pub inst: u32,
    pub hits: u64,
    /// Of `hits`, those whose filler ran in another block.
    pub other_block: u64,
}

/// The result for one instruction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstResult {
    pub counts: Counts,
    /// Empty for stores and atomics.
    pub from: Provenance,
}

/// The result of replaying one trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Simulation {
    /// Indexed like `Trace::instructions`.
    pub instructions: Vec<InstResult>,
    /// `Kind::Load` and `Kind::FixedLoad` together.
    pub loads: Counts,
    pub stores: Counts,
    pub atomics: Counts,
    /// Lines holding valid data that an allocation pushed out.
    pub evictions: u64,
}

/// A simulated L1, reusable across runs (the `auto` policy replays one trace
/// under many decisions): its buffers are allocated once.
pub struct L1 {
    config: L1Config,
    cache: Cache,
    coalescer: Coalescer,
}

impl L1 {
    pub fn new(config: L1Config) -> Result<L1, L1Error> {
        let geometry = config.geometry()?;
        Ok(L1 {
            config,
            cache: Cache::new(&config, geometry),
            coalescer: Coalescer::new(),
        })
    }

    pub fn config(&self) -> &L1Config {
        &self.config
    }

    pub fn sets(&self) -> u32 {
        self.cache.geometry.sets
    }

    pub fn ways(&self) -> u32 {
        self.cache.geometry.ways
    }

    /// Replays `trace` from a cold cache. `cached[i]` says whether the
    /// `Kind::Load` instruction `i` allocates in L1; an index past its end
    /// takes `default_load_allocates`, as `Kind::FixedLoad` always does;
    /// `Kind::ReadOnly` always allocates.
    pub fn run(&mut self, trace: &Trace, cached: &[bool]) -> Result<Simulation, L1Error> {
        // Every event's lanes are checked before any event is replayed, so a
        // malformed trace gives the error `requests` would.
        let len = trace.addresses.len() as u64;
        for (n, event) in trace.events.iter().enumerate() {
            if u64::from(event.start) + u64::from(event.lanes) > len {
                return Err(L1Error::LanesOutOfRange { event: n });
            }
        }
        // Each event is coalesced just before its replay: no trace-long
        // buffer of requests is written and read back.
        self.replay_trace::<true>(trace, None, cached)
    }

    /// Every event's line requests, coalesced once for any number of runs
    /// over the same trace ([`L1::run_requests`]): `auto` replays one trace
    /// under many decisions, and coalescing is a large share of a replay.
    pub fn requests(&mut self, trace: &Trace) -> Result<Requests, L1Error> {
        let mut out = Requests {
            requests: Vec::with_capacity(trace.events.len() * 4),
            ends: Vec::with_capacity(trace.events.len()),
        };
        for (n, event) in trace.events.iter().enumerate() {
            let start = event.start as usize;
            let lanes = (trace.addresses.get(start..start + event.lanes as usize))
                .ok_or(L1Error::LanesOutOfRange { event: n })?;
            self.coalescer
                .coalesce(lanes, event.bytes, &self.cache.geometry);
            out.requests.extend_from_slice(&self.coalescer.requests);
            out.ends.push(out.requests.len() as u32);
        }
        Ok(out)
    }

    /// [`L1::run`] with the trace's requests already coalesced by
    /// [`L1::requests`] on an L1 of the same geometry.
    pub fn run_requests(
        &mut self,
        trace: &Trace,
        requests: &Requests,
        cached: &[bool],
    ) -> Result<Simulation, L1Error> {
        self.replay_trace::<true>(trace, Some(requests), cached)
    }

    /// The counts of [`L1::run_requests`] without who filled what: every
    /// instruction's `from` is empty. What a search over decisions needs
    /// (it compares bytes); keeping no filler per sector spares a write
    /// per fill and a read per hit, each at a random place of a table as
    /// large as the L1 (`l1sim` bench: random gathers replay 1.3× faster).
    pub fn count_requests(
        &mut self,
        trace: &Trace,
        requests: &Requests,
        cached: &[bool],
    ) -> Result<Simulation, L1Error> {
        self.replay_trace::<false>(trace, Some(requests), cached)
    }

    /// Replays the events of `trace` with their requests taken from
    /// `requests` (up to its last event) or, if none, coalesced from the
    /// lanes as they come (which `run` has checked); `FROM`: whether to
    /// keep who filled each sector, for the hits' provenance.
    fn replay_trace<const FROM: bool>(
        &mut self,
        trace: &Trace,
        requests: Option<&Requests>,
        cached: &[bool],
    ) -> Result<Simulation, L1Error> {
        self.cache.reset();
        let default = self.config.default_load_allocates;
        let actions: Vec<Action> = (trace.instructions.iter().enumerate())
            .map(|(i, ins)| match ins.kind {
                Kind::Load => Action::Load(cached.get(i).copied().unwrap_or(default)),
                Kind::FixedLoad => Action::Load(default),
                Kind::ReadOnly => Action::Load(true),
                Kind::Store => Action::Store,
                Kind::Atomic => Action::Atomic,
            })
            .collect();
        let mut results = vec![InstResult::default(); actions.len()];
        let mut start = 0;
        let g = self.cache.geometry;
        for (n, event) in trace.events.iter().enumerate() {
            let these: &[Request] = match requests {
                Some(r) => {
                    let Some(&end) = r.ends.get(n) else { break };
                    let these = &r.requests[start..end as usize];
                    start = end as usize;
                    these
                }
                None => {
                    let lanes = &trace.addresses[event.start as usize..][..event.lanes as usize];
                    self.coalescer.coalesce(lanes, event.bytes, &g);
                    &self.coalescer.requests
                }
            };
            let inst = event.inst as usize;
            let action = *(actions.get(inst)).ok_or(L1Error::UnknownInstruction {
                event: n,
                inst: event.inst,
            })?;
            let who = Filler {
                inst: event.inst,
                block: event.block,
                warp: event.warp,
            };
            self.cache
                .replay::<FROM>(these, action, who, &mut results[inst]);
        }
        Ok(self.summarize(&actions, results))
    }

    fn summarize(&self, actions: &[Action], mut instructions: Vec<InstResult>) -> Simulation {
        let mut sim = Simulation {
            evictions: self.cache.evictions,
            ..Simulation::default()
        };
        for (action, result) in actions.iter().zip(&mut instructions) {
            result.from.other_inst.sort_unstable_by_key(|o| o.inst);
            match action {
                Action::Load(_) => sim.loads += result.counts,
                Action::Store => sim.stores += result.counts,
                Action::Atomic => sim.atomics += result.counts,
            }
        }
        sim.instructions = instructions;
        sim
    }
}

/// The coalesced line requests of a trace's events, in event order.
pub struct Requests {
    requests: Vec<Request>,
    /// Per event, the end of its requests in `requests`.
    ends: Vec<u32>,
}

/// One-shot form of [`L1::run`].
pub fn simulate(trace: &Trace, config: &L1Config, cached: &[bool]) -> Result<Simulation, L1Error> {
    L1::new(*config)?.run(trace, cached)
}

#[derive(Clone, Copy, Debug)]
enum Action {
    /// Whether it allocates in L1.
    Load(bool),
    Store,
    Atomic,
}

#[derive(Clone, Copy, Debug)]
struct Geometry {
    /// Independent units; each has `sets` sets.
    slices: u32,
    /// Sets per slice: set `s` of slice `k` is `k * sets + s` overall.
    sets: u32,
    ways: u32,
    /// The set comes from `SetIndex::FermiHash` (32 or 64 sets), not the
    /// line number modulo the sets.
    fermi_hash: bool,
    /// log2 of the sector size.
    sector_shift: u32,
    /// log2 of the sectors per line.
    line_shift: u32,
    /// All sectors of a line, as a mask.
    full: u32,
}

impl Geometry {
    /// The set of `line` within a slice (a mask where `sets` is a power of
    /// two: a 64-bit division costs tens of cycles).
    fn set_of(&self, line: u64) -> u32 {
        if self.fermi_hash {
            return self.fermi_set(line);
        }
        let sets = u64::from(self.sets);
        // Not `is_power_of_two`, which counts bits (see `count`).
        if sets & (sets - 1) == 0 {
            (line & (sets - 1)) as u32
        } else {
            (line % sets) as u32
        }
    }

    /// `SetIndex::FermiHash`: the line number's 5 low bits XOR address
    /// bits 13, 14, 15, 17, 19 (as bits 0-4); with 64 sets, address bit 12
    /// is the sixth bit.
    fn fermi_set(&self, line: u64) -> u32 {
        let addr = line << (self.sector_shift + self.line_shift);
        let bit = |b: u32| (addr >> b) & 1;
        let upper = ((addr >> 13) & 0b111) | bit(17) << 3 | bit(19) << 4;
        let mut set = (line & 0x1F) ^ upper;
        if self.sets == 64 {
            set |= bit(12) << 5;
        }
        set as u32
    }

    /// Whether a lookup scans the ways of the set rather than the index.
    fn scans(&self) -> bool {
        self.ways <= SCAN_WAYS
    }
}

/// Sets of at most this many ways are searched way by way (a few adjacent
/// frames); wider ones through the [`LineIndex`].
const SCAN_WAYS: u32 = 8;

/// The event that filled a sector, for provenance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Filler {
    inst: u32,
    block: u32,
    warp: u32,
}

/// One line an event touches, with the sectors it wants (bit i = sector i)
/// and its set within a slice, worked out once when coalescing (it fills
/// what would be padding).
#[derive(Clone, Copy, Debug)]
struct Request {
    line: u64,
    sectors: u32,
    set: u32,
}

/// What one request did: sectors found in L1, sectors moved from L2 toward
/// the SM, sectors removed from L1.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    hits: u64,
    fetched: u64,
    invalidated: u64,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.hits += o.hits;
        self.fetched += o.fetched;
        self.invalidated += o.invalidated;
    }
}

/// No frame.
const NIL: u32 = u32::MAX;

/// A way of a set. `valid == 0` exactly when the frame holds no line (the
/// index then skips any entry it still has for it).
#[derive(Clone, Copy, Debug)]
struct Frame {
    line: u64,
    valid: u32,
    set: u32,
}

/// A node of a set's recency list: neighbours towards the most recently
/// used frame (`prev`) and towards the victim (`next`). Each list is
/// circular through its set's sentinel node, so no link is ever missing.
#[derive(Clone, Copy, Debug)]
struct Link {
    prev: u32,
    next: u32,
}

/// The tag state. Frames of set `s` (counted over all slices) are
/// `s * ways .. (s + 1) * ways`; a hash index from line to frame makes
/// lookup O(1) at any associativity (narrow sets are scanned instead),
/// and per-set circular doubly linked lists make true LRU O(1). A line may sit in several slices at once: a frame is
/// found by its line and its set, which names the slice.
struct Cache {
    geometry: Geometry,
    fill: Fill,
    stores: StorePolicy,
    bypass: Bypass,
    sector_bytes: u64,
    frames: Vec<Frame>,
    /// `frames.len() << line_shift` entries: the filler of each sector.
    fillers: Vec<Filler>,
    /// Per frame, then one sentinel per set (`frames.len() + set`): its
    /// `next` is the most recently used frame, its `prev` the victim.
    links: Vec<Link>,
    index: LineIndex,
    evictions: u64,
}

impl Cache {
    fn new(config: &L1Config, geometry: Geometry) -> Cache {
        let frames = (geometry.slices * geometry.sets * geometry.ways) as usize;
        let empty = Frame {
            line: 0,
            valid: 0,
            set: 0,
        };
        let sets = (geometry.slices * geometry.sets) as usize;
        let mut cache = Cache {
            geometry,
            fill: config.fill,
            stores: config.stores,
            bypass: config.bypass,
            sector_bytes: u64::from(config.sector_bytes),
            frames: vec![empty; frames],
            fillers: vec![Filler::default(); frames << geometry.line_shift],
            links: vec![Link { prev: 0, next: 0 }; frames + sets],
            // A scanning cache keeps no index.
            index: LineIndex::new(if geometry.scans() { 0 } else { frames }),
            evictions: 0,
        };
        cache.reset();
        cache
    }

    /// Empties the cache; each set's list runs in frame order.
    fn reset(&mut self) {
        self.index.clear();
        self.evictions = 0;
        let ways = self.geometry.ways;
        let sets = self.links.len() - self.frames.len();
        for s in 0..sets as u32 {
            let (first, last) = (s * ways, s * ways + ways - 1);
            let sentinel = self.sentinel(s);
            self.links[sentinel as usize] = Link {
                prev: last,
                next: first,
            };
            for f in first..=last {
                self.frames[f as usize] = Frame {
                    line: 0,
                    valid: 0,
                    set: s,
                };
                self.links[f as usize] = Link {
                    prev: if f == first { sentinel } else { f - 1 },
                    next: if f == last { sentinel } else { f + 1 },
                };
            }
        }
    }

    /// Applies the coalesced requests of one event of `who` to the cache;
    /// `FROM`: whether fillers are kept and hits credited to them.
    fn replay<const FROM: bool>(
        &mut self,
        requests: &[Request],
        action: Action,
        who: Filler,
        result: &mut InstResult,
    ) {
        // Tallied per event, then added once: the counters stay in registers.
        let mut sectors = 0;
        let mut tally = Tally::default();
        let g = self.geometry;
        let first_set = (who.block % g.slices) * g.sets;
        for &request in requests {
            sectors += count(request.sectors);
            let set = first_set + request.set;
            tally += match action {
                Action::Load(allocate) => {
                    self.load::<FROM>(request, set, who, allocate, &mut result.from)
                }
                Action::Store => self.store::<FROM>(request, set, who),
                Action::Atomic => self.atomic(request, set),
            };
        }
        let counts = &mut result.counts;
        counts.requests += requests.len() as u64;
        counts.sectors += sectors;
        counts.hits += tally.hits;
        counts.misses += sectors - tally.hits;
        counts.l2_bytes += tally.fetched * self.sector_bytes;
        counts.invalidated += tally.invalidated;
    }

    /// `set`: the request's set over all slices (`Cache::replay`).
    fn load<const FROM: bool>(
        &mut self,
        request: Request,
        set: u32,
        who: Filler,
        allocate: bool,
        from: &mut Provenance,
    ) -> Tally {
        if !allocate && self.bypass == Bypass::SkipL1 {
            return Tally {
                fetched: count(request.sectors),
                ..Tally::default()
            };
        }
        let found = self.lookup(request.line, set);
        let frame = found.ok();
        let present = frame.map_or(0, |f| self.frames[f as usize].valid & request.sectors);
        let missing = request.sectors & !present;
        if let Some(f) = frame.filter(|_| present != 0) {
            if FROM {
                self.credit(f, present, who, from);
            }
            self.touch(f);
        }
        let fetched = if missing == 0 {
            0
        } else if allocate {
            let f = found.unwrap_or_else(|slot| self.allocate(request.line, set, slot));
            self.touch(f);
            self.fill::<FROM>(f, missing, who)
        } else {
            count(missing)
        };
        Tally {
            hits: count(present),
            fetched,
            invalidated: 0,
        }
    }

    fn store<const FROM: bool>(&mut self, request: Request, set: u32, who: Filler) -> Tally {
        let found = self.lookup(request.line, set);
        let present = found.map_or(0, |f| self.frames[f as usize].valid & request.sectors);
        let mut invalidated = 0;
        match (found, self.stores) {
            (Ok(f), StorePolicy::EvictLine) => {
                invalidated = count(self.frames[f as usize].valid);
                self.free(f);
            }
            // The present sectors take the new data and stay valid.
            (_, StorePolicy::UpdateSectors) | (Err(_), StorePolicy::EvictLine) => {}
            (found, StorePolicy::AllocateSectors) => {
                let f = found.unwrap_or_else(|slot| self.allocate(request.line, set, slot));
                self.touch(f);
                let written = request.sectors & !present;
                self.frames[f as usize].valid |= written;
                if FROM {
                    self.record(f, written, who);
                }
            }
        }
        Tally {
            hits: count(present),
            fetched: 0,
            invalidated,
        }
    }

    fn atomic(&mut self, request: Request, set: u32) -> Tally {
        let (f, hits) = self.find(request, set);
        let Some(f) = f else {
            return Tally {
                hits,
                ..Tally::default()
            };
        };
        let frame = &mut self.frames[f as usize];
        let removed = match self.stores {
            StorePolicy::EvictLine => frame.valid,
            StorePolicy::UpdateSectors | StorePolicy::AllocateSectors => {
                frame.valid & request.sectors
            }
        };
        frame.valid &= !removed;
        if frame.valid == 0 {
            self.free(f);
        }
        Tally {
            hits,
            fetched: 0,
            invalidated: count(removed),
        }
    }

    /// The line's frame if present, and how many requested sectors it holds.
    fn find(&self, request: Request, set: u32) -> (Option<u32>, u64) {
        let f = self.lookup(request.line, set).ok();
        let present = f.map_or(0, |f| self.frames[f as usize].valid & request.sectors);
        (f, count(present))
    }

    /// The frame of `set` holding `line` with valid sectors, or else where
    /// the index would enter it (for `allocate`; nothing when scanning).
    fn lookup(&self, line: u64, set: u32) -> Result<u32, usize> {
        if !self.geometry.scans() {
            return self.index.find(line, set, &self.frames);
        }
        let ways = self.geometry.ways as usize;
        let first = set as usize * ways;
        let frames = &self.frames[first..first + ways];
        match frames.iter().position(|w| w.line == line && w.valid != 0) {
            Some(w) => Ok((first + w) as u32),
            None => Err(0),
        }
    }

    /// Records who filled each of the `present` sectors of frame `f`.
    fn credit(&self, f: u32, present: u32, who: Filler, from: &mut Provenance) {
        let base = (f as usize) << self.geometry.line_shift;
        let mut bits = present;
        while bits != 0 {
            let filler = self.fillers[base + bits.trailing_zeros() as usize];
            bits &= bits - 1;
            from.credit(filler, who);
        }
    }

    /// Makes `missing` sectors of frame `f` valid per the fill granularity;
    /// returns how many sectors came from L2.
    fn fill<const FROM: bool>(&mut self, f: u32, missing: u32, who: Filler) -> u64 {
        let frame = &mut self.frames[f as usize];
        let fetched = match self.fill {
            Fill::Line => self.geometry.full & !frame.valid,
            Fill::Sector => missing,
        };
        frame.valid |= fetched;
        if FROM {
            self.record(f, fetched, who);
        }
        count(fetched)
    }

    /// Records `who` as the filler of the `sectors` of frame `f`.
    fn record(&mut self, f: u32, sectors: u32, who: Filler) {
        let base = (f as usize) << self.geometry.line_shift;
        let mut bits = sectors;
        while bits != 0 {
            self.fillers[base + bits.trailing_zeros() as usize] = who;
            bits &= bits - 1;
        }
    }

    /// Takes the LRU frame of `set` for `line` (evicting what it held);
    /// `slot` is where the index's search for `line` ended.
    fn allocate(&mut self, line: u64, set: u32, slot: usize) -> u32 {
        let f = self.links[self.sentinel(set) as usize].prev;
        if self.frames[f as usize].valid != 0 {
            self.evictions += 1;
        }
        self.frames[f as usize].line = line;
        self.frames[f as usize].valid = 0;
        if !self.geometry.scans() {
            self.index.insert(line, set, f, slot, &self.frames);
        }
        f
    }

    /// Empties frame `f` and makes it its set's next victim.
    fn free(&mut self, f: u32) {
        // The index skips a frame without valid sectors.
        self.frames[f as usize].valid = 0;
        self.unlink(f);
        self.push_back(f);
    }

    /// The sentinel node of `set`'s recency list.
    fn sentinel(&self, set: u32) -> u32 {
        self.frames.len() as u32 + set
    }

    /// Makes `f` the most recently used frame of its set.
    fn touch(&mut self, f: u32) {
        let sentinel = self.sentinel(self.frames[f as usize].set);
        if self.links[sentinel as usize].next != f {
            self.unlink(f);
            self.insert_after(sentinel, f);
        }
    }

    fn unlink(&mut self, f: u32) {
        let Link { prev, next } = self.links[f as usize];
        self.links[prev as usize].next = next;
        self.links[next as usize].prev = prev;
    }

    /// Links `f` in after node `at`.
    fn insert_after(&mut self, at: u32, f: u32) {
        let next = self.links[at as usize].next;
        self.links[f as usize] = Link { prev: at, next };
        self.links[next as usize].prev = f;
        self.links[at as usize].next = f;
    }

    fn push_back(&mut self, f: u32) {
        let sentinel = self.sentinel(self.frames[f as usize].set);
        let tail = self.links[sentinel as usize].prev;
        self.insert_after(tail, f);
    }
}

impl Provenance {
    fn credit(&mut self, filler: Filler, who: Filler) {
        if filler.inst == who.inst {
            if filler.block != who.block {
                self.other_block += 1;
            } else if filler.warp != who.warp {
                self.same_block += 1;
            } else {
                self.same_warp += 1;
            }
            return;
        }
        let other_block = u64::from(filler.block != who.block);
        // Few instructions share lines with any one load: a scan is cheaper
        // than a map.
        match self.other_inst.iter_mut().find(|o| o.inst == filler.inst) {
            Some(o) => {
                o.hits += 1;
                o.other_block += other_block;
            }
            None => self.other_inst.push(OtherInst {
                inst: filler.inst,
                hits: 1,
                other_block,
            }),
        }
    }
}

/// Fibonacci hashing: the multiplier's high product bits mix every input bit.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
/// Spreads a set number over the line's bits before hashing, so that the
/// copies of one line in several slices do not share a probe sequence.
const SET_MIX: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// Line to frame, for O(1) lookup in wide sets: linear probing over slots
/// that hold a frame index and a 32-bit fingerprint of the frame's line and
/// set, so a probe reads a frame only when the fingerprints agree (mostly
/// the frame sought). Entries are never deleted one by one, since every
/// miss would then pay for a backward shift: an entry whose frame no longer
/// holds its line, valid, is simply skipped, and the table is rebuilt from
/// the frames when half of it is used, which costs O(1) per insertion
/// amortized. It is 8 slots per frame: a rebuild (every frame entered
/// again, at random slots) then comes after 3 to 7 misses per frame rather
/// than 1 to 3 (the table is a power of two), and probes are shorter; random gathers ran 9 % faster (on
/// the CPU, `l1sim` bench, 4 slots per frame before) for twice the table
/// (128 KB for a 224 KB L1).
struct LineIndex {
    slots: Vec<IndexSlot>,
    /// log2 of `slots.len()`.
    bits: u32,
    /// Slots used since the last rebuild, stale ones included.
    used: usize,
}

#[derive(Clone, Copy, Debug)]
struct IndexSlot {
    /// [`NIL`] when empty.
    frame: u32,
    tag: u32,
}

const EMPTY_SLOT: IndexSlot = IndexSlot { frame: NIL, tag: 0 };

impl LineIndex {
    fn new(frames: usize) -> LineIndex {
        let bits = (frames * 8).next_power_of_two().trailing_zeros().max(4);
        LineIndex {
            slots: vec![EMPTY_SLOT; 1 << bits],
            bits,
            used: 0,
        }
    }

    fn clear(&mut self) {
        self.slots.fill(EMPTY_SLOT);
        self.used = 0;
    }

    /// The home slot and fingerprint of `line` in `set`.
    fn hash(&self, line: u64, set: u32) -> (usize, u32) {
        let h = (line ^ u64::from(set).wrapping_mul(SET_MIX)).wrapping_mul(GOLDEN);
        ((h >> (64 - self.bits)) as usize, (h ^ (h >> 32)) as u32)
    }

    /// The frame of `set` holding `line` with valid sectors, or else the
    /// empty slot that ends the search, where `line` would be entered.
    fn find(&self, line: u64, set: u32, frames: &[Frame]) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let (mut i, tag) = self.hash(line, set);
        loop {
            let slot = self.slots[i];
            if slot.frame == NIL {
                return Err(i);
            }
            if slot.tag == tag {
                let frame = &frames[slot.frame as usize];
                if frame.line == line && frame.set == set && frame.valid != 0 {
                    return Ok(slot.frame);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Enters frame `f`, which now holds `line` in `set`, at `slot`: the
    /// slot `find` returned for them (nothing is entered in between).
    fn insert(&mut self, line: u64, set: u32, f: u32, slot: usize, frames: &[Frame]) {
        if 2 * (self.used + 1) <= self.slots.len() {
            self.slots[slot] = IndexSlot {
                frame: f,
                tag: self.hash(line, set).1,
            };
            self.used += 1;
            return;
        }
        self.clear();
        for (g, frame) in frames.iter().enumerate() {
            if frame.valid != 0 && g != f as usize {
                self.enter(frame.line, frame.set, g as u32);
            }
        }
        self.enter(line, set, f);
    }

    fn enter(&mut self, line: u64, set: u32, f: u32) {
        let mask = self.slots.len() - 1;
        let (mut i, tag) = self.hash(line, set);
        while self.slots[i].frame != NIL {
            i = (i + 1) & mask;
        }
        self.slots[i] = IndexSlot { frame: f, tag };
        self.used += 1;
    }
}

/// Groups an event's lanes into one [`Request`] per distinct line, in order
/// of first touch, without allocating per event: adjacent lanes on the same
/// line (the coalesced case) merge directly, others go through a small
/// open-addressed table whose slots are valid only for the current stamp, so
/// it is never cleared.
struct Coalescer {
    requests: Vec<Request>,
    slots: Vec<Slot>,
    /// log2 of `slots.len()`.
    bits: u32,
    stamp: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    line: u64,
    stamp: u32,
    request: u32,
}

impl Coalescer {
    fn new() -> Coalescer {
        // 128 slots: a full warp's 32 lines at most a quarter full.
        Coalescer {
            requests: Vec::with_capacity(64),
            slots: vec![Slot::default(); 128],
            bits: 7,
            stamp: 0,
        }
    }

    fn coalesce(&mut self, lanes: &[u64], bytes: u32, g: &Geometry) {
        self.requests.clear();
        if !self.run_of(lanes, bytes, g) {
            self.each_lane(lanes, bytes, g);
        }
    }

    /// The requests of lanes that read one run of bytes lane after lane
    /// (`a[i]` for consecutive `i`, the coalesced case), worked out from
    /// the run's ends: what `each_lane` finds, one request per line in
    /// increasing order, each with the sectors of the run it holds. By
    /// cachegrind, coalescing lane by lane was about a quarter of the
    /// simulation's instructions. False, with nothing done, for any other
    /// event (some lane elsewhere, zero-byte accesses, a run past the
    /// last address).
    fn run_of(&mut self, lanes: &[u64], bytes: u32, g: &Geometry) -> bool {
        let step = u64::from(bytes);
        let Some(&first) = lanes.first().filter(|_| step > 0) else {
            return false;
        };
        let end = (lanes.len() as u64)
            .checked_mul(step)
            .and_then(|n| first.checked_add(n));
        let Some(end) = end else {
            return false;
        };
        // `end` did not overflow, so neither does the next lane's address.
        let mut next = first;
        for &a in lanes {
            if a != next {
                return false;
            }
            next += step;
        }
        let last = (end - 1) >> g.sector_shift;
        let in_line = (1u64 << g.line_shift) - 1;
        let mut sector = first >> g.sector_shift;
        loop {
            let top = last.min(sector | in_line);
            let (from, to) = ((sector & in_line) as u32, (top & in_line) as u32);
            let line = sector >> g.line_shift;
            self.requests.push(Request {
                line,
                sectors: ((1u64 << (to + 1)) - 1) as u32 & !((1u32 << from) - 1),
                set: g.set_of(line),
            });
            if top == last {
                return true;
            }
            sector = top + 1;
        }
    }

    /// The requests of `lanes`, lane by lane.
    fn each_lane(&mut self, lanes: &[u64], bytes: u32, g: &Geometry) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill(Slot::default());
            self.stamp = 1;
        }
        // A zero-byte access is taken to touch the sector of its address.
        let span = u64::from(bytes.max(1) - 1);
        let index_mask = (1u64 << g.line_shift) - 1;
        // The request of the previous lane's line: coalesced lanes stop here.
        let mut current: Option<(u64, usize)> = None;
        for &address in lanes {
            let mut sector = address >> g.sector_shift;
            let last = address.saturating_add(span) >> g.sector_shift;
            loop {
                let line = sector >> g.line_shift;
                let bit = 1 << (sector & index_mask);
                match current {
                    Some((l, r)) if l == line => self.requests[r].sectors |= bit,
                    _ => current = Some((line, self.add(line, bit))),
                }
                if sector == last {
                    break;
                }
                sector += 1;
            }
        }
        for r in &mut self.requests {
            r.set = g.set_of(r.line);
        }
    }

    /// Adds sector `bit` to this event's request for `line`, made if new;
    /// returns the request's index.
    fn add(&mut self, line: u64, bit: u32) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = slot_of(line, self.bits);
        loop {
            let slot = self.slots[i];
            if slot.stamp != self.stamp {
                let r = self.requests.len();
                self.slots[i] = Slot {
                    line,
                    stamp: self.stamp,
                    request: r as u32,
                };
                self.requests.push(Request {
                    line,
                    sectors: bit,
                    set: 0,
                });
                if 2 * self.requests.len() > self.slots.len() {
                    self.grow();
                }
                return r;
            }
            if slot.line == line {
                let r = slot.request as usize;
                self.requests[r].sectors |= bit;
                return r;
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the table (an event touching very many lines) and re-enters
    /// this event's requests.
    fn grow(&mut self) {
        self.bits += 1;
        self.slots = vec![Slot::default(); 1 << self.bits];
        let mask = self.slots.len() - 1;
        for (r, request) in self.requests.iter().enumerate() {
            let mut i = slot_of(request.line, self.bits);
            while self.slots[i].stamp == self.stamp {
                i = (i + 1) & mask;
            }
            self.slots[i] = Slot {
                line: request.line,
                stamp: self.stamp,
                request: r as u32,
            };
        }
    }
}

/// The sectors in a mask. By table, a byte at a time: the x86-64 baseline
/// the crate is built for has no population-count instruction, and its
/// emulation cost more than the rest of a cache hit; a line rarely has more
/// than 8 sectors (4 on every modelled GPU).
fn count(sectors: u32) -> u64 {
    if sectors < 256 {
        return u64::from(BITS_IN_BYTE[sectors as usize]);
    }
    (sectors.to_le_bytes().iter())
        .map(|&b| u64::from(BITS_IN_BYTE[b as usize]))
        .sum()
}

/// The set bits of each byte value.
const BITS_IN_BYTE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b & 1) as u8 + table[b / 2];
        b += 1;
    }
    table
};

fn slot_of(line: u64, bits: u32) -> usize {
    (line.wrapping_mul(GOLDEN) >> (64 - bits)) as usize
}

#[cfg(test)]
#[path = "l1sim_tests.rs"]
mod tests;
