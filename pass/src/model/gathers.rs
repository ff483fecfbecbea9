//! The gather scenario (issue 19 fact 12: "treat a data-dependent gather
//! as uncertain (a scenario), not as no reuse").
//!
//! The walk gives each lane of a gather (`x[col[j]]`, an address computed
//! from a value loaded per thread) a synthetic address of its own
//! (`trace::UNKNOWN_REGION`): the paper's assumption that it shares
//! nothing, the worst case for caching. Real gathers often share a great
//! deal: a mesh or sparse matrix numbered with locality (reverse
//! Cuthill–McKee, GRAPE's clusters, a banded matrix) has row r read x near
//! r, so the lanes of a warp read neighbouring words and one thread's next
//! iteration the next word. This scenario is that case: the `e`-th
//! execution of a gather by the thread at position `t` of the SM reads the
//! word `t + e` of a region of the gather's own (one region per
//! instruction, so two gathers never share a line: the scenario invents no
//! reuse between arrays). The truth lies between the two; weighing both
//! (`decide::robust`) keeps a gather cached where bypassing it would cost
//! the reuse a well-ordered input has, and bypassed only where that costs
//! little against what caching costs when it shares nothing (on line-fill
//! parts, a whole line fetched per lane).
//!
//! Bounded unknowns (`table[v & 255]`) keep their drawn addresses: their
//! range is known.
//!
//! A second rule, [`gathers_in_tables`], is for an index the kernel chose
//! among values it computed, into an array it also reads at known
//! addresses, the same range from every warp, in a loop: a table every
//! thread scans (a k-nearest-neighbour search's reference points, `ref[j]`
//! for every `j` in each thread's loop, then `ref[best].w` at the `j` the
//! data chose). Taken to share nothing, such a read fetches a line per lane
//! on line-fill parts, although the table is in L1 already; on GPGPU-Sim's
//! GTX480 config the held-out kNN moved 5.3x the bytes of cache-all with
//! those four reads bypassed (`bench/sim/holdout2`). Each such address is
//! drawn uniformly within the table's known range, as a bounded unknown's
//! is within its range, in every trace the model weighs: the evidence is
//! the kernel's own reads and its own index. An index loaded from memory
//! (`x[idx[i]]`) is not drawn: it may read anywhere in a larger array of
//! which every warp scans a part (`x[0..16)`), and keeps "shares nothing".
//!
//! Not a scenario beside "shares nothing": weighed against it by worst-case
//! regret the choice splits (kNN on the GTX480 description: one of the
//! four reads cached, worst regret 1.50 either way), and the assumption
//! holds on the one input where it was checked. Where it is wrong (a chosen
//! index beyond what every warp scans), caching costs a line per lane on
//! line-fill parts, and what those lines evict; nothing on sector-fill
//! parts, where a cached miss fetches what a bypassed one does. The report
//! names the tables the choice rests on.

use std::collections::HashMap;

use crate::facts::bounds::Interval;
use crate::model::trace::{Trace, UNKNOWN_REGION};
use crate::model::unknowns::Range;

/// Where the scenario's gather addresses live: above the synthetic
/// unknowns (at most one per thread-access, 4 KiB apart: far below 2^59),
/// one region of [`REGION_SPACING`] bytes per instruction.
pub const LOCAL_GATHER_REGION: u64 = UNKNOWN_REGION + (1 << 59);
const REGION_SPACING: u64 = 1 << 40;

/// `trace` with every synthetic address of the instructions `gathers` marks
/// replaced as the module doc says; `None` when no event of those holds
/// one.
pub fn gathers_local(trace: &Trace, gathers: &[bool]) -> Option<Trace> {
    let is_gather = |i: u32| gathers.get(i as usize).copied().unwrap_or(false);
    if !(trace.events.iter()).any(|e| e.unknown && is_gather(e.inst)) {
        return None;
    }
    let mut out = trace.clone();
    let warps = u64::from(trace.warps_per_block);
    for e in &trace.events {
        if !e.unknown || !is_gather(e.inst) {
            continue;
        }
        let region = LOCAL_GATHER_REGION + u64::from(e.inst) * REGION_SPACING;
        let first = (u64::from(e.block) * warps + u64::from(e.warp)) * 32;
        let (s, n) = (e.start as usize, e.lanes as usize);
        for (p, a) in out.addresses[s..s + n].iter_mut().enumerate() {
            if *a >= UNKNOWN_REGION && *a < LOCAL_GATHER_REGION {
                let word = first + p as u64 + u64::from(e.execution);
                *a = region + word * u64::from(e.bytes);
            }
        }
    }
    Some(out)
}

/// Addresses below this are a base plus an offset (`Base::address`: a
/// parameter's slot is `(1 + index) << 36`); stand-in shifts and synthetic
/// unknowns live above (`unknowns::shift_region`, [`UNKNOWN_REGION`]).
const BASED_LIMIT: u64 = 1 << 60;

/// The kernel parameter slot of a based address (`Base::address`): the
/// nearest base, so that a read below it (`p[j - 8]`) counts as its own.
fn param_slot(address: u64) -> Option<u64> {
    (address < BASED_LIMIT).then_some((address + (1 << 35)) >> 36)
}

/// What [`gathers_in_tables`] may use of each trace instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableUse {
    /// The one kernel parameter its address is based on.
    pub param: Option<u32>,
    /// Its known addresses are evidence of a table: a load (stores and
    /// atomics write, they say nothing of what is read) whose address reads
    /// no stand-in (whose place is an assumption).
    pub evidence: bool,
    /// Its unknown addresses may be drawn within a table: an index the
    /// kernel chose among values it computed (kNN's best `j`, a phi the
    /// data picked), not one loaded from memory (`x[idx[i]]`, a gather
    /// that may read anywhere in a larger array: it keeps "shares nothing",
    /// with `gathers_local` beside it).
    pub drawable: bool,
}

/// `trace` with the unbounded unknown addresses of every drawable
/// instruction based on one kernel parameter drawn within that
/// parameter's table range, where it has one (see the module doc), with
/// the tables drawn in (parameter index, bytes), by index; `None` when no
/// instruction has such an address.
///
/// A table range: the bytes the known addresses of evidence loads based on
/// the parameter cover (from the first byte read to past the last), where
/// - every warp that reads the parameter at a known address covers exactly
///   that range, and at least two warps of two blocks do (one block's warps
///   may share a slice of their own: `x + blockIdx.x * n`);
/// - every such warp scans it: some instruction reads it in a later
///   execution at another address than in its first (a read of `x[0]` by
///   every thread, even in a loop, says nothing of where an index falls);
/// - the range is at most `MAX_BOUNDED_SPAN`.
pub fn gathers_in_tables(trace: &Trace, uses: &[TableUse]) -> Option<(Trace, Vec<(u32, u64)>)> {
    let at = |i: u32| uses.get(i as usize).copied().unwrap_or_default();
    // Most kernels have no unknown a table could hold: no pass over every
    // address for them.
    let drawable = |e: &crate::model::trace::Event| {
        let u = at(e.inst);
        e.unknown && u.drawable && u.param.is_some()
    };
    if !trace.events.iter().any(drawable) {
        return None;
    }
    type Hull = (u64, u64);
    let widen = |h: &mut Option<Hull>, lo: u64, hi: u64| {
        *h = Some(h.map_or((lo, hi), |(l, e)| (l.min(lo), e.max(hi))));
    };
    // Per parameter: the whole range; per parameter and warp, its range
    // and whether it scanned; per instruction and warp, the first lane's
    // address at the first execution.
    let mut whole: HashMap<u32, Option<Hull>> = HashMap::new();
    let mut by_warp: HashMap<(u32, u32, u32), (Option<Hull>, bool)> = HashMap::new();
    let mut first: HashMap<(u32, u32, u32), u64> = HashMap::new();
    for e in &trace.events {
        let u = at(e.inst);
        let Some(p) = u.param.filter(|_| u.evidence) else {
            continue;
        };
        let slot = u64::from(p) + 1;
        let warp = (p, e.block, e.warp);
        for (l, &a) in trace.lanes(e).iter().enumerate() {
            if param_slot(a) != Some(slot) {
                continue;
            }
            let end = a + u64::from(e.bytes);
            widen(whole.entry(p).or_default(), a, end);
            let w = by_warp.entry(warp).or_default();
            widen(&mut w.0, a, end);
            if l == 0 {
                let at_first = *first.entry((e.inst, e.block, e.warp)).or_insert(a);
                w.1 |= e.execution > 0 && a != at_first;
            }
        }
    }
    let mut tables: HashMap<u32, Hull> = HashMap::new();
    for (&p, &h) in &whole {
        let Some(h) = h else { continue };
        let warps: Vec<(u32, (Option<Hull>, bool))> = (by_warp.iter())
            .filter(|((q, _, _), _)| *q == p)
            .map(|(&(_, block, _), &w)| (block, w))
            .collect();
        let blocks = warps
            .iter()
            .map(|&(b, _)| b)
            .collect::<std::collections::HashSet<_>>();
        if blocks.len() >= 2
            && warps
                .iter()
                .all(|&(_, (w, scanned))| w == Some(h) && scanned)
            && h.1 - h.0 <= crate::model::trace::MAX_BOUNDED_SPAN
        {
            tables.insert(p, h);
        }
    }
    let drawn = |e: &crate::model::trace::Event| -> Option<(u32, Range)> {
        let u = at(e.inst);
        let p = u.param.filter(|_| u.drawable && e.unknown)?;
        let (lo, end) = *tables.get(&p)?;
        let last = end.checked_sub(u64::from(e.bytes))?;
        let range = Range::within(
            Interval {
                lo: i128::from(lo),
                hi: i128::from(last.max(lo)),
            },
            e.bytes,
        )?;
        Some((p, range))
    };
    if !trace.events.iter().any(|e| drawn(e).is_some()) {
        return None;
    }
    let mut out = trace.clone();
    let mut used: Vec<(u32, u64)> = Vec::new();
    for e in &trace.events {
        let Some((p, range)) = drawn(e) else {
            continue;
        };
        let (lo, end) = tables[&p];
        if !used.iter().any(|&(q, _)| q == p) {
            used.push((p, end - lo));
        }
        let (s, n) = (e.start as usize, e.lanes as usize);
        for (l, a) in out.addresses[s..s + n].iter_mut().enumerate() {
            if *a >= UNKNOWN_REGION && *a < LOCAL_GATHER_REGION {
                *a = range.draw([e.inst, e.block, e.warp, l as u32, e.execution]);
            }
        }
    }
    used.sort_unstable();
    Some((out, used))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::{Event, Instruction, Kind};

    fn event(inst: u32, warp: u32, execution: u32, unknown: bool) -> Event {
        Event {
            inst,
            block: 0,
            warp,
            execution,
            bytes: 4,
            start: 0,
            lanes: 0,
            unknown,
        }
    }

    #[test]
    fn gather_lanes_read_their_threads_neighbourhood_and_nothing_else_moves() {
        let mut t = Trace {
            instructions: vec![
                Instruction {
                    kind: Kind::Load,
                    site: "1:1".into(),
                };
                2
            ],
            blocks: 1,
            warps_per_block: 2,
            ..Trace::default()
        };
        let synthetic = |n: u64| UNKNOWN_REGION + n * 4096;
        // Instruction 0, a gather: warp 1's second execution, lane 0
        // synthetic, lane 1 bounded (a drawn address, kept). Instruction 1:
        // a known address and an unknown that is no gather.
        t.push(event(0, 1, 1, true), &[synthetic(7), 640]);
        t.push(event(1, 0, 0, false), &[128, 132]);
        t.push(event(1, 0, 1, true), &[synthetic(8)]);
        assert!(gathers_local(&t, &[false, false]).is_none());
        let local = gathers_local(&t, &[true, false]).unwrap();
        // Warp 1, position 0: thread 32; execution 1: word 33.
        assert_eq!(local.addresses[0], LOCAL_GATHER_REGION + 33 * 4);
        assert_eq!(local.addresses[1..], t.addresses[1..]);
        assert_eq!(local.events, t.events);
    }

    /// Parameter `p`'s base address (`Base::address`).
    fn param(p: u64) -> u64 {
        (1 + p) << 36
    }

    /// A load of parameter `param`, evidence, drawable.
    fn load(param: u32) -> TableUse {
        TableUse {
            param: Some(param),
            evidence: true,
            drawable: true,
        }
    }

    #[test]
    fn unknown_indices_into_a_table_every_warp_scans_are_drawn_within_it() {
        let site = Instruction {
            kind: Kind::Load,
            site: "1:1".into(),
        };
        let mut t = Trace {
            instructions: vec![site; 4],
            blocks: 2,
            warps_per_block: 1,
            ..Trace::default()
        };
        let synthetic = |n: u64| UNKNOWN_REGION + n * 4096;
        let at = |inst: u32, block: u32, execution: u32, unknown: bool| Event {
            block,
            ..event(inst, 0, execution, unknown)
        };
        // Instruction 0 scans parameter 0 over bytes -8..256 in the warp
        // of each block (lanes at -8 and 124, then 128 and 252);
        // instruction 1 reads it at unknown addresses. Instruction 2 reads
        // parameter 1 at a slice per block (0..4 twice, 128..132 twice),
        // instruction 3 at unknown addresses: parameter 1 is no table.
        for b in 0..2 {
            t.push(at(0, b, 0, false), &[param(0) - 8, param(0) + 124]);
            t.push(at(0, b, 1, false), &[param(0) + 128, param(0) + 252]);
            for x in 0..2 {
                t.push(at(2, b, x, false), &[param(1) + 128 * u64::from(b)]);
            }
        }
        t.push(
            at(1, 0, 0, true),
            &[synthetic(1), synthetic(2), synthetic(3)],
        );
        t.push(at(3, 1, 0, true), &[synthetic(4)]);
        let uses = [load(0), load(0), load(1), load(1)];
        let (drawn, tables) = gathers_in_tables(&t, &uses).unwrap();
        assert_eq!(tables, vec![(0, 264)]);
        let e = t.events[8];
        for &a in drawn.lanes(&e) {
            assert!(
                a >= param(0) - 8 && a < param(0) + 256 && a % 4 == 0,
                "{a:#x}"
            );
        }
        // Nothing else moved: the known reads, and parameter 1's unknown.
        assert_eq!(drawn.events, t.events);
        assert_eq!(drawn.lanes(&t.events[9]), t.lanes(&t.events[9]));
        assert_eq!(drawn.addresses[..12], t.addresses[..12]);
        // No table where the reads are no evidence (a stand-in's, or a
        // store's), where the unknown may not be drawn (a loaded index), or
        // where one block alone read the range.
        let with = |i: usize, u: TableUse| {
            let mut v = uses;
            v[i] = u;
            v
        };
        let no_evidence = with(
            0,
            TableUse {
                evidence: false,
                ..load(0)
            },
        );
        assert!(gathers_in_tables(&t, &no_evidence).is_none());
        let loaded = with(
            1,
            TableUse {
                drawable: false,
                ..load(0)
            },
        );
        assert!(gathers_in_tables(&t, &loaded).is_none());
        let mut one = t.clone();
        one.events.retain(|e| e.block == 0 || e.inst != 0);
        assert!(gathers_in_tables(&one, &uses).is_none());
        // No table where no warp read another address in a later
        // execution: x[0] read again and again in a loop is no scan.
        let mut same = t.clone();
        for e in same.events.clone() {
            if e.inst == 0 {
                let s = e.start as usize;
                same.addresses[s..s + e.lanes as usize].copy_from_slice(&[param(0), param(0) + 4]);
            }
        }
        assert!(gathers_in_tables(&same, &uses).is_none());
    }
}
