//! The whole-kernel access trace of one SM (issue 7, design.md §6): every
//! global memory instruction that every warp of every co-resident block
//! executes, in the order the SM issues them, each with the byte addresses
//! of its active lanes.
//!
//! This file holds the trace's data types, which the L1 simulation
//! (`l1sim`) and the locality curves (`locality`) consume. They are pure
//! data: no IR, no policy. A per-thread address the analysis cannot know is
//! already replaced by a synthetic address of its own (distinct per thread
//! and execution, in [`UNKNOWN_REGION`]), the paper's assumption that such
//! an access shares nothing; `Event::unknown` says which events hold them.
//! The exception is a *bounded* unknown, one whose expression confines it
//! to at most [`MAX_BOUNDED_SPAN`] bytes (`table[v & 255]`): it is drawn
//! within that range instead (see `walk`), and [`Trace::bounded`] says so.

/// Synthetic addresses for per-thread unknowns start here; no real base
/// (kernel parameters, globals, block-uniform stand-ins) is this high.
pub const UNKNOWN_REGION: u64 = 0xF000_0000_0000_0000;

/// The distance between two synthetic unknown addresses: more than a line
/// (so no two share one in L1) and more than the largest locality distance
/// the curves measure (128 B), so two unknowns never look spatially close.
pub const UNKNOWN_SPACING: u64 = 4096;

/// The widest range, in bytes, over which a data-dependent address is
/// spread rather than made a synthetic unknown: 1 MiB, four times the
/// largest L1 of any modelled GPU (256 KB per SM, sm_90). Up to a few
/// times L1 the spread still says something the synthetic address cannot:
/// a range within L1 is fetched once and then hits, one of a few times L1
/// hits in proportion. Far beyond that, uniform draws over the range almost
/// never meet again within a trace (at most 2^19 accesses), so they would
/// tell nothing more than synthetic addresses, while the uniform assumption
/// grows weaker (an index of a whole `int` spans 16 GiB, of which a
/// program allocates and touches a small part) and the range would run
/// into other allocations' stand-in addresses (2^36 bytes apart,
/// `Base::address`).
pub const MAX_BOUNDED_SPAN: u64 = 1 << 20;

/// What a memory instruction does to L1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A global load whose cache behaviour is decided per run: the
    /// simulation is told, per instruction, whether it allocates in L1.
    Load,
    /// A global load the tool does not decide and that is not read-only
    /// (volatile, a byte-loop copy, left alone): it behaves as the target's
    /// default load.
    FixedLoad,
    /// A global load the tool does not decide that the backend reads through
    /// the non-coherent path (`ld.global.nc`: `const __restrict__`,
    /// `__ldg`, constant tables; before sm_70 no decision changes it). It
    /// allocates in L1 on every modelled part: "Data that is read-only for
    /// the entire lifetime of the kernel can also be cached in the unified
    /// L1/texture cache" (CUDA Programming Guide, Compute Capability 5.x,
    /// Global Memory), which holds on sm_50 too, where plain loads are not
    /// cached in L1; 6.x "behaves as 5.x"; from 7.x the read-only path is
    /// the same L1.
    ReadOnly,
    Store,
    Atomic,
}

/// One warp executing one memory instruction once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// The instruction: an index into [`Trace::instructions`].
    pub inst: u32,
    /// The co-resident block on this SM (0-based slot).
    pub block: u32,
    /// The warp within its block.
    pub warp: u32,
    /// How many times this warp executed this instruction before (0 at the
    /// first execution): tells reuse across loop iterations apart from reuse
    /// across warps.
    pub execution: u32,
    /// Bytes each lane reads or writes.
    pub bytes: u32,
    /// The lanes' addresses: `Trace::addresses[start..start + lanes]`, in
    /// lane order, active lanes only.
    pub start: u32,
    pub lanes: u32,
    /// Some lane's address is a synthetic per-thread unknown.
    pub unknown: bool,
}

/// A memory instruction of the kernel, as the report names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    pub kind: Kind,
    /// `line:column` (or `file:line:column`) for the report.
    pub site: String,
}

/// The trace of one SM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub instructions: Vec<Instruction>,
    pub events: Vec<Event>,
    pub addresses: Vec<u64>,
    /// Co-resident blocks simulated.
    pub blocks: u32,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Set when a budget cut the trace short (loop iterations or events):
    /// what was cut, for the report.
    pub truncated: Option<String>,
    /// Per instruction (empty: none): `Some(bytes)` when every address of
    /// it that was unknown was bounded, and spread over a range of at most
    /// that many bytes (the widest of its lanes' ranges).
    pub bounded: Vec<Option<u64>>,
    /// Per instruction (empty: none), where [`Trace::bounded`] is `Some`:
    /// the bytes its drawn addresses may fall in, from the lowest range's
    /// first byte to past the highest's last. What it may really touch,
    /// where the drawn addresses are a sample (`model::read_once`).
    pub reach: Vec<Option<(u64, u64)>>,
}

impl Trace {
    /// The active lanes' addresses of `event`, in lane order.
    pub fn lanes(&self, event: &Event) -> &[u64] {
        let s = event.start as usize;
        &self.addresses[s..s + event.lanes as usize]
    }

    /// A test trace: one lane of one warp of one block, loads only;
    /// instruction `i`'s site is `sites[i]`, and `reads[k] = (instruction,
    /// address)` are its 4-byte reads in order.
    #[cfg(test)]
    pub fn one_lane<S: AsRef<str>>(sites: &[S], reads: &[(u32, u64)]) -> Trace {
        let mut t = Trace {
            instructions: (sites.iter())
                .map(|s| Instruction {
                    kind: Kind::Load,
                    site: s.as_ref().to_string(),
                })
                .collect(),
            blocks: 1,
            warps_per_block: 1,
            ..Trace::default()
        };
        let mut executions = vec![0u32; sites.len()];
        for &(inst, addr) in reads {
            let e = Event {
                inst,
                block: 0,
                warp: 0,
                execution: executions[inst as usize],
                bytes: 4,
                start: 0,
                lanes: 1,
                unknown: false,
            };
            executions[inst as usize] += 1;
            t.push(e, &[addr]);
        }
        t
    }

    /// Appends an event whose lanes read `addresses` (in lane order).
    pub fn push(&mut self, mut event: Event, addresses: &[u64]) {
        event.start = self.addresses.len() as u32;
        event.lanes = addresses.len() as u32;
        self.addresses.extend_from_slice(addresses);
        self.events.push(event);
    }

    /// Appends an event whose lanes' addresses (in lane order) were
    /// appended to [`Trace::addresses`] from `start` on.
    pub fn push_appended(&mut self, mut event: Event, start: usize) {
        event.start = start as u32;
        event.lanes = (self.addresses.len() - start) as u32;
        self.events.push(event);
    }

    /// The byte range instruction `inst`'s unknown addresses were spread
    /// over, when every one was bounded (see [`Trace::bounded`]).
    pub fn bounded_span(&self, inst: u32) -> Option<u64> {
        self.bounded.get(inst as usize).copied().flatten()
    }

    /// See [`Trace::reach`].
    pub fn bounded_reach(&self, inst: u32) -> Option<(u64, u64)> {
        self.reach.get(inst as usize).copied().flatten()
    }

    /// This trace, then `other`'s events as blocks of their own (numbered
    /// after this trace's): what the SM would see if `other`'s blocks ran
    /// after these. The instruction table and the bounded facts are this
    /// trace's, widened by `other`'s.
    pub fn followed_by(&self, other: &Trace) -> Trace {
        let mut out = self.clone();
        for e in &other.events {
            let moved = Event {
                block: e.block + self.blocks,
                ..*e
            };
            out.push(moved, other.lanes(e));
        }
        out.blocks += other.blocks;
        // An instruction stays bounded where neither trace has an unknown
        // of it that was not: its span the wider, its reach the union.
        let n = self.instructions.len();
        let unbounded = |t: &Trace, i: usize| {
            t.bounded_reach(i as u32).is_none()
                && (t.events.iter()).any(|e| e.inst as usize == i && e.unknown)
        };
        let widest = |a: Option<u64>, b: Option<u64>| a.max(b);
        let union = |a: Option<(u64, u64)>, b: Option<(u64, u64)>| match (a, b) {
            (Some((l, h)), Some((l2, h2))) => Some((l.min(l2), h.max(h2))),
            (a, b) => a.or(b),
        };
        out.bounded = (0..n)
            .map(|i| {
                let keep = !unbounded(self, i) && !unbounded(other, i);
                keep.then(|| widest(self.bounded_span(i as u32), other.bounded_span(i as u32)))
                    .flatten()
            })
            .collect();
        out.reach = (0..n)
            .map(|i| {
                out.bounded[i]?;
                union(self.bounded_reach(i as u32), other.bounded_reach(i as u32))
            })
            .collect();
        out
    }

    /// Thread-level accesses in the trace (one per active lane per event).
    pub fn thread_accesses(&self) -> u64 {
        self.addresses.len() as u64
    }
}
