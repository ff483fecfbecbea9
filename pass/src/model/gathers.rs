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
//! A second scenario, [`gathers_in_tables`], is for unknown indices into an
//! array the kernel also reads at known addresses, the same range from
//! every warp: a table every thread scans (a k-nearest-neighbour search's
//! reference points, `ref[j]` for every `j` in each thread's loop, then
//! `ref[best].w` at an index the data chose). Taken to share nothing, such a
//! read fetches a line per lane on line-fill parts, although the table is
//! in L1 already; on GPGPU-Sim's GTX480 config the held-out kNN moved 5.3x
//! the bytes of cache-all with those four reads bypassed
//! (`bench/sim/holdout2`). Each such address is drawn uniformly within the
//! table's known range, as a bounded unknown's is within its range, in
//! every trace the model weighs: the evidence is the kernel's own reads.
//!
//! Not a scenario beside "shares nothing": weighed against it by worst-case
//! regret the choice splits (kNN on the GTX480 description: one of the
//! four reads cached, worst regret 1.50 either way), and the assumption
//! holds on the one input where it was checked. Where it is wrong (an index
//! beyond what every warp reads), caching costs at most the rest of a line
//! per lane on line-fill parts, and nothing on sector-fill parts, where a
//! cached miss fetches what a bypassed one does; the report names the
//! tables the choice rests on.

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

/// The kernel parameter slot of a based address (`Base::address`).
fn param_slot(address: u64) -> Option<u64> {
    (address < BASED_LIMIT).then_some(address >> 36)
}

/// `trace` with the unbounded unknown addresses of every instruction whose
/// address is based on one kernel parameter (`param_of[i]`, by index) drawn
/// within that parameter's table range, where it has one (see the module
/// doc), with the tables drawn in (parameter index, bytes), by index;
/// `None` when no instruction has such an address.
///
/// A table range: the bytes the known addresses based on the parameter
/// cover (from the first byte read to past the last), where every warp
/// that reads the parameter at a known address covers exactly that range
/// and does so in a loop (some instruction reads it again in a later
/// execution), at least two warps do, and the range is at most
/// `MAX_BOUNDED_SPAN`. The loop is the evidence of a scan: one read of
/// `x[0]` by every thread says nothing of where `x[idx[i]]` falls.
/// `evidence[i]`: instruction `i`'s known addresses count (not those of an
/// address that reads a stand-in, whose place is an assumption), and its
/// unknown ones may be drawn.
pub fn gathers_in_tables(
    trace: &Trace,
    param_of: &[Option<u32>],
    evidence: &[bool],
) -> Option<(Trace, Vec<(u32, u64)>)> {
    let param = |i: u32| {
        let i = i as usize;
        (evidence.get(i).copied().unwrap_or(false))
            .then(|| param_of.get(i).copied().flatten())
            .flatten()
    };
    type Hull = (u64, u64);
    let widen = |h: &mut Option<Hull>, lo: u64, hi: u64| {
        *h = Some(h.map_or((lo, hi), |(l, e)| (l.min(lo), e.max(hi))));
    };
    // Per parameter: the whole range, and each warp's.
    let mut whole: HashMap<u32, Option<Hull>> = HashMap::new();
    let mut by_warp: HashMap<(u32, u32, u32), Option<Hull>> = HashMap::new();
    // Per parameter and warp: whether some instruction read it at a known
    // address in a later execution (a loop over the table).
    let mut looped: HashMap<(u32, u32, u32), bool> = HashMap::new();
    for e in &trace.events {
        let Some(p) = param(e.inst) else { continue };
        let slot = u64::from(p) + 1;
        for &a in trace.lanes(e) {
            if param_slot(a) != Some(slot) {
                continue;
            }
            let end = a + u64::from(e.bytes);
            widen(whole.entry(p).or_default(), a, end);
            widen(by_warp.entry((p, e.block, e.warp)).or_default(), a, end);
            *looped.entry((p, e.block, e.warp)).or_default() |= e.execution > 0;
        }
    }
    let mut tables: HashMap<u32, Hull> = HashMap::new();
    for (&p, &h) in &whole {
        let Some(h) = h else { continue };
        let warps: Vec<(Option<Hull>, bool)> = (by_warp.iter())
            .filter(|((q, _, _), _)| *q == p)
            .map(|(key, &w)| (w, looped.get(key).copied().unwrap_or(false)))
            .collect();
        if warps.len() >= 2
            && warps.iter().all(|&(w, l)| w == Some(h) && l)
            && h.1 - h.0 <= crate::model::trace::MAX_BOUNDED_SPAN
        {
            tables.insert(p, h);
        }
    }
    let drawn = |e: &crate::model::trace::Event| -> Option<Range> {
        let (lo, end) = *tables.get(&param(e.inst)?)?;
        let last = end.checked_sub(u64::from(e.bytes))?;
        Range::within(
            Interval {
                lo: i128::from(lo),
                hi: i128::from(last.max(lo)),
            },
            e.bytes,
        )
    };
    let relevant = |e: &crate::model::trace::Event| e.unknown && drawn(e).is_some();
    if !trace.events.iter().any(relevant) {
        return None;
    }
    let mut out = trace.clone();
    let mut used: Vec<(u32, u64)> = Vec::new();
    for e in &trace.events {
        let Some(range) = drawn(e).filter(|_| e.unknown) else {
            continue;
        };
        if let Some(p) = param(e.inst) {
            let (lo, end) = tables[&p];
            if !used.iter().any(|&(q, _)| q == p) {
                used.push((p, end - lo));
            }
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

    #[test]
    fn unknown_indices_into_a_table_every_warp_reads_are_drawn_within_it() {
        let load = Instruction {
            kind: Kind::Load,
            site: "1:1".into(),
        };
        let mut t = Trace {
            instructions: vec![load; 4],
            blocks: 1,
            warps_per_block: 2,
            ..Trace::default()
        };
        let synthetic = |n: u64| UNKNOWN_REGION + n * 4096;
        // Instruction 0 reads parameter 0 at bytes 0..256 in both warps (8
        // words a lane pair: 0..128 then 128..256); instruction 1 reads it
        // at unknown addresses. Instruction 2 reads parameter 1 at its own
        // slice per warp (warp 0: 0..8, warp 1: 128..136), instruction 3
        // at unknown addresses: parameter 1 is no table.
        for w in 0..2 {
            t.push(event(0, w, 0, false), &[param(0), param(0) + 124]);
            t.push(event(0, w, 1, false), &[param(0) + 128, param(0) + 252]);
            t.push(event(2, w, 0, false), &[param(1) + 128 * u64::from(w) + 4]);
        }
        t.push(
            event(1, 0, 0, true),
            &[synthetic(1), synthetic(2), synthetic(3)],
        );
        t.push(event(3, 1, 0, true), &[synthetic(4)]);
        let params = [Some(0), Some(0), Some(1), Some(1)];
        let (drawn, tables) = gathers_in_tables(&t, &params, &[true; 4]).unwrap();
        assert_eq!(tables, vec![(0, 256)]);
        let e = t.events[6];
        for &a in drawn.lanes(&e) {
            assert!(a >= param(0) && a < param(0) + 256 && a % 4 == 0, "{a:#x}");
        }
        // Nothing else moved: the known reads, and parameter 1's unknown.
        assert_eq!(drawn.events, t.events);
        assert_eq!(drawn.lanes(&t.events[7]), t.lanes(&t.events[7]));
        assert_eq!(drawn.addresses[..10], t.addresses[..10]);
        // No table where the reads are not evidence (a stand-in's), or
        // where one warp alone read the range.
        assert!(gathers_in_tables(&t, &params, &[false, true, true, true]).is_none());
        // No table where no warp read it again in a later execution: a
        // read of x[0] by every thread is no scan.
        let mut once = t.clone();
        once.events.retain(|e| e.inst != 0 || e.execution == 0);
        assert!(gathers_in_tables(&once, &params, &[true; 4]).is_none());
        let mut one = t.clone();
        one.events.retain(|e| e.warp == 0 || e.inst != 0);
        assert!(gathers_in_tables(&one, &params, &[true; 4]).is_none());
    }
}
