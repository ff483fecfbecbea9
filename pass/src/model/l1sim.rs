//! The L1 simulation (design.md §6): replays the [`Trace`] of one SM through a
//! model of its L1 data cache and counts, per memory instruction, line
//! requests, sector hits and misses, the bytes the SM pulls from L2, and who
//! filled each sector it hits. The cache is set-associative (or fully
//! associative) with true LRU over 128 B lines; a load miss fills the whole
//! line (Fermi) or only the missing 32 B sectors (Volta and later); stores and
//! atomics follow the generation's policy; a load that does not allocate
//! either probes L1 (`.L1::no_allocate`) or skips it (`.cg`).
//!
//! It deliberately models no time: no MSHRs or in-flight miss merging, no
//! bank conflicts, no L2, no separate texture/read-only path, no eviction
//! priorities beyond "allocate or not". Events are replayed in trace order,
//! and the lanes of one event coalesce into one request per line. It reads no
//! IR and decides nothing: the caller says which loads allocate and which
//! generation's rules apply ([`L1Config`]).

use std::fmt;

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
    /// capacity is occupied in lines. Volta and later: "On miss the cache will
    /// only fetch the unique 32 byte sectors that missed. The full cache line
    /// is not automatically fetched from L2" (NVIDIA developer forums, thread
    /// "Pascal L1 cache", reply on Volta; design.md §6).
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
    UpdateSectors,
}

/// What a load that does not allocate does in L1.
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
    /// Ways per set; `None` is fully associative.
    pub ways: Option<u32>,
    pub fill: Fill,
    pub stores: StorePolicy,
    pub bypass: Bypass,
    /// Whether a load the tool does not decide (`Kind::FixedLoad`), or a
    /// decided load the caller gives no answer for, allocates in L1 on this
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
        let lines = self.capacity_bytes / self.line_bytes;
        let ways = self.ways.unwrap_or(lines);
        let whole = self.capacity_bytes.is_multiple_of(self.line_bytes)
            && ways > 0
            && lines.is_multiple_of(ways);
        if !whole || lines == 0 || lines > MAX_LINES {
            return Err(L1Error::Capacity {
                capacity_bytes: self.capacity_bytes,
                set_bytes: u64::from(self.line_bytes) * u64::from(ways.max(1)),
            });
        }
        Ok(Geometry {
            sets: lines / ways,
            ways,
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
    /// The capacity is not a whole number of sets of `ways` lines.
    Capacity {
        capacity_bytes: u32,
        set_bytes: u64,
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
    /// takes `default_load_allocates`, as `Kind::FixedLoad` always does.
    pub fn run(&mut self, trace: &Trace, cached: &[bool]) -> Result<Simulation, L1Error> {
        let requests = self.requests(trace)?;
        self.run_requests(trace, &requests, cached)
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
        self.cache.reset();
        let default = self.config.default_load_allocates;
        let actions: Vec<Action> = (trace.instructions.iter().enumerate())
            .map(|(i, ins)| match ins.kind {
                Kind::Load => Action::Load(cached.get(i).copied().unwrap_or(default)),
                Kind::FixedLoad => Action::Load(default),
                Kind::Store => Action::Store,
                Kind::Atomic => Action::Atomic,
            })
            .collect();
        let mut results = vec![InstResult::default(); actions.len()];
        let mut start = 0;
        for (n, (event, &end)) in trace.events.iter().zip(&requests.ends).enumerate() {
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
            let these = &requests.requests[start..end as usize];
            start = end as usize;
            self.replay(these, action, who, &mut results[inst]);
        }
        Ok(self.summarize(&actions, results))
    }

    /// Applies the coalesced requests of one event of `who` to the cache.
    fn replay(
        &mut self,
        requests: &[Request],
        action: Action,
        who: Filler,
        result: &mut InstResult,
    ) {
        // Tallied per event, then added once: the counters stay in registers.
        let mut sectors = 0;
        let mut tally = Tally::default();
        for &request in requests {
            sectors += count(request.sectors);
            tally += match action {
                Action::Load(allocate) => self.cache.load(request, who, allocate, &mut result.from),
                Action::Store => self.cache.store(request),
                Action::Atomic => self.cache.atomic(request),
            };
        }
        let counts = &mut result.counts;
        counts.requests += requests.len() as u64;
        counts.sectors += sectors;
        counts.hits += tally.hits;
        counts.misses += sectors - tally.hits;
        counts.l2_bytes += tally.fetched * self.cache.sector_bytes;
        counts.invalidated += tally.invalidated;
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
    sets: u32,
    ways: u32,
    /// log2 of the sector size.
    sector_shift: u32,
    /// log2 of the sectors per line.
    line_shift: u32,
    /// All sectors of a line, as a mask.
    full: u32,
}

/// The event that filled a sector, for provenance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Filler {
    inst: u32,
    block: u32,
    warp: u32,
}

/// One line an event touches, with the sectors it wants (bit i = sector i).
#[derive(Clone, Copy, Debug)]
struct Request {
    line: u64,
    sectors: u32,
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
    /// Neighbours in the set's recency list (towards MRU, towards LRU).
    prev: u32,
    next: u32,
}

/// A set's recency list: `head` most recently used, `tail` the victim.
#[derive(Clone, Copy, Debug)]
struct Lru {
    head: u32,
    tail: u32,
}

/// The tag state. Frames of set `s` are `s * ways .. (s + 1) * ways`; a hash
/// index from line to frame makes lookup O(1) at any associativity, and
/// per-set doubly linked lists make true LRU O(1).
struct Cache {
    geometry: Geometry,
    fill: Fill,
    stores: StorePolicy,
    bypass: Bypass,
    sector_bytes: u64,
    frames: Vec<Frame>,
    /// `frames.len() << line_shift` entries: the filler of each sector.
    fillers: Vec<Filler>,
    sets: Vec<Lru>,
    index: LineIndex,
    evictions: u64,
}

impl Cache {
    fn new(config: &L1Config, geometry: Geometry) -> Cache {
        let frames = (geometry.sets * geometry.ways) as usize;
        let empty = Frame {
            line: 0,
            valid: 0,
            set: 0,
            prev: NIL,
            next: NIL,
        };
        let mut cache = Cache {
            geometry,
            fill: config.fill,
            stores: config.stores,
            bypass: config.bypass,
            sector_bytes: u64::from(config.sector_bytes),
            frames: vec![empty; frames],
            fillers: vec![Filler::default(); frames << geometry.line_shift],
            sets: vec![
                Lru {
                    head: NIL,
                    tail: NIL
                };
                geometry.sets as usize
            ],
            index: LineIndex::new(frames),
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
        for (s, lru) in self.sets.iter_mut().enumerate() {
            let (first, last) = (s as u32 * ways, s as u32 * ways + ways - 1);
            *lru = Lru {
                head: first,
                tail: last,
            };
            for f in first..=last {
                self.frames[f as usize] = Frame {
                    line: 0,
                    valid: 0,
                    set: s as u32,
                    prev: if f == first { NIL } else { f - 1 },
                    next: if f == last { NIL } else { f + 1 },
                };
            }
        }
    }

    fn load(
        &mut self,
        request: Request,
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
        let found = self.index.find(request.line, &self.frames);
        let frame = found.ok();
        let present = frame.map_or(0, |f| self.frames[f as usize].valid & request.sectors);
        let missing = request.sectors & !present;
        if let Some(f) = frame.filter(|_| present != 0) {
            self.credit(f, present, who, from);
            self.touch(f);
        }
        let fetched = if missing == 0 {
            0
        } else if allocate {
            let f = found.unwrap_or_else(|slot| self.allocate(request.line, slot));
            self.touch(f);
            self.fill(f, missing, who)
        } else {
            count(missing)
        };
        Tally {
            hits: count(present),
            fetched,
            invalidated: 0,
        }
    }

    fn store(&mut self, request: Request) -> Tally {
        let (f, hits) = self.find(request);
        let mut invalidated = 0;
        if let (Some(f), StorePolicy::EvictLine) = (f, self.stores) {
            invalidated = count(self.frames[f as usize].valid);
            self.free(f);
        }
        // UpdateSectors: the present sectors take the new data and stay valid.
        Tally {
            hits,
            fetched: 0,
            invalidated,
        }
    }

    fn atomic(&mut self, request: Request) -> Tally {
        let (f, hits) = self.find(request);
        let Some(f) = f else {
            return Tally {
                hits,
                ..Tally::default()
            };
        };
        let frame = &mut self.frames[f as usize];
        let removed = match self.stores {
            StorePolicy::EvictLine => frame.valid,
            StorePolicy::UpdateSectors => frame.valid & request.sectors,
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
    fn find(&self, request: Request) -> (Option<u32>, u64) {
        let f = self.index.get(request.line, &self.frames);
        let present = f.map_or(0, |f| self.frames[f as usize].valid & request.sectors);
        (f, count(present))
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
    fn fill(&mut self, f: u32, missing: u32, who: Filler) -> u64 {
        let frame = &mut self.frames[f as usize];
        let fetched = match self.fill {
            Fill::Line => self.geometry.full & !frame.valid,
            Fill::Sector => missing,
        };
        frame.valid |= fetched;
        let base = (f as usize) << self.geometry.line_shift;
        let mut bits = fetched;
        while bits != 0 {
            self.fillers[base + bits.trailing_zeros() as usize] = who;
            bits &= bits - 1;
        }
        count(fetched)
    }

    /// Takes the LRU frame of `line`'s set for `line` (evicting what it held);
    /// `slot` is where the index's search for `line` ended.
    fn allocate(&mut self, line: u64, slot: usize) -> u32 {
        let set = (line % u64::from(self.geometry.sets)) as usize;
        let f = self.sets[set].tail;
        if self.frames[f as usize].valid != 0 {
            self.evictions += 1;
        }
        self.frames[f as usize].line = line;
        self.frames[f as usize].valid = 0;
        self.index.insert(line, f, slot, &self.frames);
        f
    }

    /// Empties frame `f` and makes it its set's next victim.
    fn free(&mut self, f: u32) {
        // The index skips a frame without valid sectors.
        self.frames[f as usize].valid = 0;
        self.unlink(f);
        self.push_back(f);
    }

    /// Makes `f` the most recently used frame of its set.
    fn touch(&mut self, f: u32) {
        let set = self.frames[f as usize].set as usize;
        if self.sets[set].head != f {
            self.unlink(f);
            self.push_front(f);
        }
    }

    fn unlink(&mut self, f: u32) {
        let Frame {
            prev, next, set, ..
        } = self.frames[f as usize];
        match prev {
            NIL => self.sets[set as usize].head = next,
            p => self.frames[p as usize].next = next,
        }
        match next {
            NIL => self.sets[set as usize].tail = prev,
            n => self.frames[n as usize].prev = prev,
        }
    }

    fn push_front(&mut self, f: u32) {
        let set = self.frames[f as usize].set as usize;
        let head = self.sets[set].head;
        self.frames[f as usize].prev = NIL;
        self.frames[f as usize].next = head;
        match head {
            NIL => self.sets[set].tail = f,
            h => self.frames[h as usize].prev = f,
        }
        self.sets[set].head = f;
    }

    fn push_back(&mut self, f: u32) {
        let set = self.frames[f as usize].set as usize;
        let tail = self.sets[set].tail;
        self.frames[f as usize].next = NIL;
        self.frames[f as usize].prev = tail;
        match tail {
            NIL => self.sets[set].head = f,
            t => self.frames[t as usize].next = f,
        }
        self.sets[set].tail = f;
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

/// Line to frame, for O(1) lookup at any associativity: linear probing
/// over frame indices, whose keys are the frames' lines. Entries are never
/// deleted one by one, since every miss would then pay for a backward shift:
/// an entry whose frame no longer holds its line, valid, is simply skipped,
/// and the table is rebuilt from the frames when half of it is used, which
/// costs O(1) per insertion amortized (it is 4 slots per frame).
struct LineIndex {
    slots: Vec<u32>,
    /// log2 of `slots.len()`.
    bits: u32,
    /// Slots used since the last rebuild, stale ones included.
    used: usize,
}

impl LineIndex {
    fn new(frames: usize) -> LineIndex {
        let bits = (frames * 4).next_power_of_two().trailing_zeros().max(4);
        LineIndex {
            slots: vec![NIL; 1 << bits],
            bits,
            used: 0,
        }
    }

    fn clear(&mut self) {
        self.slots.fill(NIL);
        self.used = 0;
    }

    /// The frame holding `line` with valid sectors, or else the empty slot
    /// that ends the search, where `line` would be entered.
    fn find(&self, line: u64, frames: &[Frame]) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let mut i = slot_of(line, self.bits);
        loop {
            let f = self.slots[i];
            if f == NIL {
                return Err(i);
            }
            let frame = &frames[f as usize];
            if frame.line == line && frame.valid != 0 {
                return Ok(f);
            }
            i = (i + 1) & mask;
        }
    }

    fn get(&self, line: u64, frames: &[Frame]) -> Option<u32> {
        self.find(line, frames).ok()
    }

    /// Enters frame `f`, which now holds `line`, at `slot`: the slot `find`
    /// returned for `line` (nothing is entered in between).
    fn insert(&mut self, line: u64, f: u32, slot: usize, frames: &[Frame]) {
        if 2 * (self.used + 1) <= self.slots.len() {
            self.slots[slot] = f;
            self.used += 1;
            return;
        }
        self.clear();
        for (g, frame) in frames.iter().enumerate() {
            if frame.valid != 0 && g != f as usize {
                self.enter(frame.line, g as u32);
            }
        }
        self.enter(line, f);
    }

    fn enter(&mut self, line: u64, f: u32) {
        let mask = self.slots.len() - 1;
        let mut i = slot_of(line, self.bits);
        while self.slots[i] != NIL {
            i = (i + 1) & mask;
        }
        self.slots[i] = f;
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
                self.requests.push(Request { line, sectors: bit });
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

/// The sectors in a mask.
fn count(sectors: u32) -> u64 {
    u64::from(sectors.count_ones())
}

fn slot_of(line: u64, bits: u32) -> usize {
    (line.wrapping_mul(GOLDEN) >> (64 - bits)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::{Event, Instruction};

    fn trace(kinds: &[Kind], blocks: u32, warps: u32) -> Trace {
        Trace {
            instructions: (kinds.iter())
                .map(|&kind| Instruction {
                    kind,
                    site: String::new(),
                })
                .collect(),
            blocks,
            warps_per_block: warps,
            ..Trace::default()
        }
    }

    /// Appends one event: `inst` run by (`block`, `warp`) for the
    /// `execution`-th time, its lanes reading `bytes` each at `addresses`.
    fn push(
        t: &mut Trace,
        (inst, block, warp, execution): (u32, u32, u32, u32),
        bytes: u32,
        addresses: &[u64],
    ) {
        let event = Event {
            inst,
            block,
            warp,
            execution,
            bytes,
            start: 0,
            lanes: 0,
            unknown: false,
        };
        t.push(event, addresses);
    }

    /// `n` lanes reading consecutive `bytes`-sized elements from `base`.
    fn run(base: u64, n: u64, bytes: u64) -> Vec<u64> {
        (0..n).map(|l| base + l * bytes).collect()
    }

    fn counts(requests: u64, sectors: u64, hits: u64, misses: u64, l2_bytes: u64) -> Counts {
        Counts {
            requests,
            sectors,
            hits,
            misses,
            l2_bytes,
            invalidated: 0,
        }
    }

    /// (a) Fermi: 512 B = 2 sets × 2 ways × 128 B, line fill, `.cg` bypass.
    /// Line n lives in set n % 2: lines 0, 2, 4 (addresses 0, 256, 512) share
    /// set 0; line 1 (address 128) is in set 1.
    #[test]
    fn fermi_line_fill_hit_eviction_and_bypass() {
        let mut t = trace(&[Kind::Load, Kind::Load], 1, 2);
        // e0 warp 0: 32 × 4 B at 0: line 0, 4 sectors, miss: fill 128 B.
        push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
        // e1 warp 1: 16 × 4 B at 0: sectors 0-1 of line 0: 2 hits.
        push(&mut t, (0, 0, 1, 0), 4, &run(0, 16, 4));
        // e2 warp 0: line 2 (set 0, second way): 4 misses, 128 B.
        push(&mut t, (0, 0, 0, 1), 4, &run(256, 32, 4));
        // e3 warp 1: line 4, set 0 full: evicts the LRU line 0 (e1 < e2).
        push(&mut t, (0, 0, 1, 1), 4, &run(512, 32, 4));
        // e4 inst 1 (.cg): line 2 is present but not looked up: 1 miss, 32 B.
        push(&mut t, (1, 0, 0, 0), 4, &[256]);
        // e5 inst 1: 2 lanes in sector 0 of line 1: 1 miss, 32 B, not installed.
        push(&mut t, (1, 0, 0, 1), 4, &[128, 132]);
        // e6 warp 1: line 0 again: evicted by e3, so 1 miss and a 128 B fill,
        // evicting set 0's LRU: line 2 (e2), since e4 did not touch it.
        push(&mut t, (0, 0, 1, 2), 4, &[0]);
        // e7 warp 0: line 1: e5 did not install it: miss, 128 B, set 1 has room.
        push(&mut t, (0, 0, 0, 2), 4, &[128]);
        // e8 warp 0: line 4 survived (e6 evicted line 2): 1 hit, filled by
        // warp 1 (e3).
        push(&mut t, (0, 0, 0, 3), 4, &[512]);

        let config = L1Config {
            ways: Some(2),
            ..L1Config::line_fill(512)
        };
        let sim = simulate(&t, &config, &[true, false]).unwrap();
        // inst 0: requests e0,e1,e2,e3,e6,e7,e8 = 7; sectors 4+2+4+4+1+1+1 =
        // 17; hits 2 (e1) + 1 (e8) = 3; misses 17 - 3 = 14; five line fills
        // (e0, e2, e3, e6, e7) = 640 B.
        assert_eq!(sim.instructions[0].counts, counts(7, 17, 3, 14, 640));
        // All three hits are warp-to-warp within block 0.
        let from = &sim.instructions[0].from;
        assert_eq!(
            (from.same_warp, from.same_block, from.other_block),
            (0, 3, 0)
        );
        // inst 1: 2 requests, 2 sectors, 2 misses, 2 × 32 B.
        assert_eq!(sim.instructions[1].counts, counts(2, 2, 0, 2, 64));
        assert_eq!(sim.loads, counts(9, 19, 3, 16, 704));
        assert_eq!(sim.evictions, 2); // e3 and e6
    }

    /// (b) Volta+: 256 B fully associative = 2 frames of 128 B, sector fill,
    /// `.L1::no_allocate` bypass.
    #[test]
    fn sectored_fill_occupies_whole_lines() {
        let mut t = trace(&[Kind::Load, Kind::Load], 1, 3);
        // e0 warp 0: 32 × 4 B at 0: 1 request, 4 sectors of line 0, 4 × 32 B.
        push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
        // e1 warp 1: 16 × 4 B at 128: sectors 0-1 of line 1: 2 misses, 64 B,
        // not the whole line.
        push(&mut t, (0, 0, 1, 0), 4, &run(128, 16, 4));
        // e2 warp 2: sectors 0, 1 (present) and 2 (new) of line 1: 2 hits,
        // 1 miss, 32 B.
        push(&mut t, (0, 0, 2, 0), 4, &[128, 160, 192]);
        // e3 warp 0: line 2. The frames hold 4 + 3 sectors = 224 of 256 B, but
        // both are taken: the LRU frame (line 0, e0) is evicted. 1 miss, 32 B.
        push(&mut t, (0, 0, 0, 1), 4, &[256]);
        // e4 inst 1 (no_allocate): sector 0 of line 2 present: 1 hit (filled
        // by inst 0); sector 1 absent: 1 miss, 32 B, not installed.
        push(&mut t, (1, 0, 1, 0), 4, &[256, 288]);
        // e5 warp 1: sector 1 of line 2 again: e4 did not install it: 1 miss,
        // 32 B, installed now.
        push(&mut t, (0, 0, 1, 1), 4, &[288]);
        // e6 warp 0: line 0 was evicted by e3: 1 miss, 32 B; evicts the LRU:
        // line 1 (e2) is older than line 2 (e5).
        push(&mut t, (0, 0, 0, 2), 4, &[0]);

        let config = L1Config::sector_fill(256);
        let sim = simulate(&t, &config, &[true, false]).unwrap();
        // inst 0: requests 6; sectors 4+2+3+1+1+1 = 12; hits 2 (e2); misses
        // 10; bytes (4+2+1+1+1+1) × 32 = 320.
        assert_eq!(sim.instructions[0].counts, counts(6, 12, 2, 10, 320));
        assert_eq!(sim.instructions[0].from.same_block, 2);
        assert_eq!(sim.instructions[1].counts, counts(1, 2, 1, 1, 32));
        let other = OtherInst {
            inst: 0,
            hits: 1,
            other_block: 0,
        };
        assert_eq!(sim.instructions[1].from.other_inst, vec![other]);
        assert_eq!(sim.evictions, 2); // e3 (line 0) and e6 (line 1)
    }

    /// (c) Fermi: a store evicts the whole line it touches.
    #[test]
    fn fermi_store_evicts_line() {
        let mut t = trace(&[Kind::Load, Kind::Store], 1, 1);
        // e0: 32 × 4 B at 0: line 0 filled, 128 B.
        push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
        // e1: store 4 B at 0: line 0 present (sector 0 found): evicts all 4
        // sectors; no load bytes.
        push(&mut t, (1, 0, 0, 0), 4, &[0]);
        // e2: load at 64 (sector 2): the line is gone: miss, 128 B.
        push(&mut t, (0, 0, 0, 1), 4, &[64]);

        let sim = simulate(&t, &L1Config::line_fill(16 * 1024), &[true]).unwrap();
        assert_eq!(sim.instructions[0].counts, counts(2, 5, 0, 5, 256));
        let store = Counts {
            invalidated: 4,
            ..counts(1, 1, 1, 0, 0)
        };
        assert_eq!(sim.stores, store);
        assert_eq!(sim.evictions, 0); // an invalidation is not an eviction
    }

    /// (c) Volta+: stores update present sectors and allocate nothing;
    /// atomics invalidate the sectors they touch.
    #[test]
    fn volta_store_updates_atomic_invalidates() {
        let mut t = trace(&[Kind::Load, Kind::Store, Kind::Atomic], 1, 1);
        // e0: 32 × 4 B at 0: 4 sectors, 128 B.
        push(&mut t, (0, 0, 0, 0), 4, &run(0, 32, 4));
        // e1: store 16 × 4 B at 0: sectors 0-1 present; they stay valid.
        push(&mut t, (1, 0, 0, 0), 4, &run(0, 16, 4));
        // e2: load at 0: hit, still credited to the load that filled it.
        push(&mut t, (0, 0, 0, 1), 4, &[0]);
        // e3: store at 128 (line 1 absent): 1 miss, no allocation.
        push(&mut t, (1, 0, 0, 1), 4, &[128]);
        // e4: load at 128: miss (the store did not allocate), 32 B.
        push(&mut t, (0, 0, 0, 2), 4, &[128]);
        // e5: atomic at 32 (sector 1 of line 0): invalidates 1 sector.
        push(&mut t, (2, 0, 0, 0), 4, &[32]);
        // e6: 32 × 4 B at 0: sectors 0, 2, 3 hit; sector 1 misses, 32 B.
        push(&mut t, (0, 0, 0, 3), 4, &run(0, 32, 4));

        let sim = simulate(&t, &L1Config::sector_fill(16 * 1024), &[true]).unwrap();
        // loads: requests 4; sectors 4+1+1+4 = 10; hits 1 (e2) + 3 (e6) = 4;
        // misses 6; bytes (4 + 1 + 1) × 32 = 192.
        assert_eq!(sim.loads, counts(4, 10, 4, 6, 192));
        assert_eq!(sim.instructions[0].from.same_warp, 4);
        assert_eq!(sim.stores, counts(2, 3, 2, 1, 0));
        let atomic = Counts {
            invalidated: 1,
            ..counts(1, 1, 1, 0, 0)
        };
        assert_eq!(sim.atomics, atomic);
    }

    /// (d) Provenance over 2 blocks × 2 warps, sector fill, all loads cached.
    #[test]
    fn provenance_by_instruction_block_and_execution() {
        let mut t = trace(&[Kind::Load, Kind::Load, Kind::Load], 2, 2);
        // e0 inst 0, block 0 warp 0: sector 0 of line 0: miss, filler (0,0,0).
        push(&mut t, (0, 0, 0, 0), 4, &[0]);
        // e1 same warp, next execution: hit, same_warp.
        push(&mut t, (0, 0, 0, 1), 4, &[4]);
        // e1' and once more (a loop): hit, same_warp.
        push(&mut t, (0, 0, 0, 2), 4, &[20]);
        // e2 block 0 warp 1: hit, same_block.
        push(&mut t, (0, 0, 1, 0), 4, &[8]);
        // e3 block 1 warp 0: hit, other_block.
        push(&mut t, (0, 1, 0, 0), 4, &[12]);
        // e4 inst 1, block 0: hit, inst 0 in the same block.
        push(&mut t, (1, 0, 0, 0), 4, &[0]);
        // e5 inst 1, block 1: hit, inst 0 in another block.
        push(&mut t, (1, 1, 1, 0), 4, &[16]);
        // e6 inst 2, block 1: 32 × 4 B at 0: sector 0 hits (inst 0, block 0);
        // sectors 1-3 miss and are filled by inst 2 in block 1.
        push(&mut t, (2, 1, 0, 0), 4, &run(0, 32, 4));
        // e7 inst 1, block 1: sector 1: hit, inst 2 in the same block.
        push(&mut t, (1, 1, 0, 1), 4, &[32]);

        let sim = simulate(&t, &L1Config::sector_fill(16 * 1024), &[]).unwrap();
        let from0 = &sim.instructions[0].from;
        assert_eq!(
            (from0.same_warp, from0.same_block, from0.other_block),
            (2, 1, 1)
        );
        assert!(from0.other_inst.is_empty());
        let from1 = &sim.instructions[1].from;
        let expected = vec![
            OtherInst {
                inst: 0,
                hits: 2,
                other_block: 1,
            },
            OtherInst {
                inst: 2,
                hits: 1,
                other_block: 0,
            },
        ];
        assert_eq!(from1.other_inst, expected);
        let from2 = &sim.instructions[2].from;
        assert_eq!(
            from2.other_inst,
            vec![OtherInst {
                inst: 0,
                hits: 1,
                other_block: 1
            }]
        );
        assert_eq!(sim.instructions[2].counts, counts(1, 4, 1, 3, 96));
    }

    #[test]
    fn lanes_coalesce_per_line_in_first_touch_order() {
        let mut c = Coalescer::new();
        let g = L1Config::sector_fill(1024).geometry().unwrap();
        // 8 B at 28 spans sectors 0 and 1; 300 is line 2 sector 1; 4 is a
        // repeat of line 0 sector 0 after another line.
        c.coalesce(&[28, 300, 4, 130], 8, &g);
        let got: Vec<(u64, u32)> = c.requests.iter().map(|r| (r.line, r.sectors)).collect();
        assert_eq!(got, vec![(0, 0b11), (2, 0b10), (1, 0b1)]);
        // 300 lanes on distinct lines force the table to grow.
        let lanes: Vec<u64> = (0..300).map(|l| l * 4096).collect();
        c.coalesce(&lanes, 4, &g);
        assert_eq!(c.requests.len(), 300);
        assert!(c
            .requests
            .iter()
            .enumerate()
            .all(|(i, r)| r.line == i as u64 * 32));
    }

    #[test]
    fn bad_geometry_is_an_error() {
        let config = L1Config {
            ways: Some(3),
            ..L1Config::sector_fill(1024)
        };
        let err = L1::new(config).err().unwrap();
        assert_eq!(
            err,
            L1Error::Capacity {
                capacity_bytes: 1024,
                set_bytes: 384
            }
        );
        let config = L1Config {
            sector_bytes: 48,
            ..L1Config::sector_fill(1024)
        };
        assert!(matches!(
            L1::new(config),
            Err(L1Error::NotPowerOfTwo { bytes: 48, .. })
        ));
        let mut t = trace(&[Kind::Load], 1, 1);
        push(&mut t, (3, 0, 0, 0), 4, &[0]);
        let err = simulate(&t, &L1Config::sector_fill(1024), &[]).unwrap_err();
        assert_eq!(err, L1Error::UnknownInstruction { event: 0, inst: 3 });
    }

    /// A deliberately naive model (per-set vectors of (line, valid sectors,
    /// last use), linear scans, victim = oldest) to check the indexed one
    /// against on pseudo-random traces. Returns loads, stores + atomics,
    /// evictions.
    fn naive(t: &Trace, config: &L1Config, cached: &[bool]) -> (Counts, Counts, u64) {
        let g = config.geometry().unwrap();
        let mut sets: Vec<Vec<(u64, u32, u64)>> = vec![Vec::new(); g.sets as usize];
        let (mut loads, mut writes, mut evictions) = (Counts::default(), Counts::default(), 0);
        let mut c = Coalescer::new();
        let mut now = 0u64;
        for e in &t.events {
            let kind = t.instructions[e.inst as usize].kind;
            c.coalesce(t.lanes(e), e.bytes, &g);
            for r in &c.requests {
                now += 1; // per request: the lines of one event age in order
                let set = &mut sets[(r.line % u64::from(g.sets)) as usize];
                let mut way = set.iter().position(|w| w.0 == r.line && w.1 != 0);
                let present = way.map_or(0, |w| set[w].1 & r.sectors);
                let n = u64::from(r.sectors.count_ones());
                let hits = u64::from(present.count_ones());
                let write = matches!(kind, Kind::Store | Kind::Atomic);
                let into = if write { &mut writes } else { &mut loads };
                let allocate = kind == Kind::FixedLoad
                    || kind == Kind::Load && cached.get(e.inst as usize).copied().unwrap_or(true);
                if !write && !allocate && config.bypass == Bypass::SkipL1 {
                    *into += counts(1, n, 0, n, n * 32);
                    continue;
                }
                *into += counts(1, n, hits, n - hits, 0);
                if let (true, Some(w)) = (write, way) {
                    let removed = match (config.stores, kind) {
                        (StorePolicy::EvictLine, _) => set[w].1,
                        (StorePolicy::UpdateSectors, Kind::Atomic) => present,
                        (StorePolicy::UpdateSectors, _) => 0,
                    };
                    into.invalidated += u64::from(removed.count_ones());
                    set[w].1 &= !removed;
                    continue;
                }
                if write {
                    continue;
                }
                if present != 0 {
                    set[way.unwrap()].2 = now;
                }
                if !allocate || n == hits {
                    into.l2_bytes += (n - hits) * 32;
                    continue;
                }
                if way.is_none() {
                    let w = if set.len() < g.ways as usize {
                        set.push((r.line, 0, 0));
                        set.len() - 1
                    } else {
                        let w = (0..set.len())
                            .min_by_key(|&w| (set[w].1 != 0, set[w].2))
                            .unwrap();
                        evictions += u64::from(set[w].1 != 0);
                        w
                    };
                    set[w] = (r.line, 0, 0);
                    way = Some(w);
                }
                let w = way.unwrap();
                let fetched = match config.fill {
                    Fill::Line => g.full & !set[w].1,
                    Fill::Sector => r.sectors & !present,
                };
                into.l2_bytes += u64::from(fetched.count_ones()) * 32;
                set[w].1 |= fetched;
                set[w].2 = now;
            }
        }
        (loads, writes, evictions)
    }

    /// Pseudo-random trace mixing coalesced, gathered and misaligned 8 B
    /// accesses over a small footprint, so that hits and evictions abound.
    fn random_trace(seed: u64, events: usize) -> Trace {
        let kinds = [
            Kind::Load,
            Kind::Load,
            Kind::FixedLoad,
            Kind::Store,
            Kind::Atomic,
        ];
        let mut t = trace(&kinds, 2, 4);
        let mut x = seed;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in 0..events {
            let r = next();
            let inst = (r % 5) as u32;
            let base = (r >> 8) % 8192;
            let lanes: Vec<u64> = match (r >> 4) % 3 {
                0 => run(base & !3, 32, 4),
                1 => (0..32).map(|_| (next() % 8192) & !3).collect(),
                _ => run(base, 8, 8),
            };
            let bytes = if (r >> 4) % 3 == 2 { 8 } else { 4 };
            push(
                &mut t,
                (inst, (r >> 20) as u32 % 2, (r >> 24) as u32 % 4, n as u32),
                bytes,
                &lanes,
            );
        }
        t
    }

    /// The indexed LRU agrees with the naive one on caches of several shapes,
    /// under both generations' rules.
    #[test]
    fn matches_naive_model_on_random_traces() {
        let shapes = [None, Some(1), Some(2), Some(4), Some(16)];
        for (seed, ways) in shapes.into_iter().enumerate() {
            for base in [L1Config::sector_fill(2048), L1Config::line_fill(2048)] {
                let config = L1Config { ways, ..base };
                check_against_naive(&random_trace(seed as u64 + 1, 3000), &config);
            }
        }
    }

    fn check_against_naive(t: &Trace, config: &L1Config) {
        let cached = [true, false];
        let sim = simulate(t, config, &cached).unwrap();
        let (loads, writes, evictions) = naive(t, config, &cached);
        assert_eq!(sim.loads, loads, "loads, {config:?}");
        let mut both = sim.stores;
        both += sim.atomics;
        assert_eq!(both, writes, "stores and atomics, {config:?}");
        assert_eq!(sim.evictions, evictions, "evictions, {config:?}");
        let busy = sim.evictions > 100 && sim.loads.hits > 1000 && both.invalidated > 100;
        assert!(busy, "the trace should exercise the cache: {sim:?}");
        // Every load hit has a filler; stores and atomics have none.
        for (i, r) in sim.instructions.iter().enumerate() {
            let f = &r.from;
            let others: u64 = f.other_inst.iter().map(|o| o.hits).sum();
            let credited = f.same_warp + f.same_block + f.other_block + others;
            assert_eq!(credited, if i < 3 { r.counts.hits } else { 0 }, "inst {i}");
        }
    }
}
