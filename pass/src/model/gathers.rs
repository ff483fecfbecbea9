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

use crate::model::trace::{Trace, UNKNOWN_REGION};

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
}
