//! The packed-starts scenario (issue 19 fact 12: "use the known stride under
//! an unknown base: reuse within a thread and between lanes whose bases are
//! near").
//!
//! A loop variable whose start is loaded per lane (`j = row_ptr[r]`,
//! `k = row_ptr[v]`) walks with its known step; the walk gives each such
//! start a region of its own (`unknowns::based_address`), so lanes with
//! unknown starts share nothing: the paper's assumption, and right when the
//! starts are scattered. In the compressed formats those loops come from
//! (CSR rows, adjacency lists, segments of a sorted array) the runs of
//! consecutive threads are stored one after another: row r + 1 starts
//! where row r ends, so a warp's lanes read neighbouring words and share
//! lines. This scenario is that case: every start's region is moved next to
//! the previous thread's, in thread order (block, warp, lane), each array
//! on its own, at the widest run any lane of the trace made in that array.
//! The runs are as long as the walk made them (its trip counts, guessed
//! where the bound is loaded), so when rows are shorter than the guess the
//! scenario still understates the sharing; it invents none.
//!
//! Measured where it matters (GPGPU-Sim's GTX480, `testdata/sim/bfs.cu`,
//! whose adjacency walk `adj[k]` starts at `row_ptr[v]`): caching that walk
//! took 0.73× the cycles and 0.71× the L2→L1 bytes of the better global
//! switch, which the model, under private starts only, could not see
//! (`bench/sim/disagreements.md`).

use std::collections::HashMap;

use crate::model::trace::{Trace, UNKNOWN_REGION};
use crate::model::unknowns::{BASED_REGION, BASED_REGIONS, BASED_SPACING};

/// Where packed runs go: the last start region. A start numbered past
/// 45,055 (`BASED_REGIONS`) would share it; a trace makes that many only
/// when most loop entries make a single access.
pub const PACKED_REGION: u64 = BASED_REGION + (BASED_REGIONS - 1) * BASED_SPACING;

/// Where an array's addresses sit in a region (its stand-in base, `slot <<
/// 36`: `Base::address`) and the offsets below that.
const ARRAY_SHIFT: u32 = 36;
const OFFSET_MASK: u64 = (1 << ARRAY_SHIFT) - 1;

/// One unknown start's run in one array: its first and past-the-last byte.
#[derive(Clone, Copy)]
struct Run {
    lo: u64,
    hi: u64,
}

/// Whether every start that uses region `region` (`unknowns::based_address`:
/// start numbers `region + 1`, `region + 1 + BASED_REGIONS`, ...) has its
/// runs stored one after another, `packed[number - 1]` saying so per start
/// (`walk::Walked::packed_bases`).
pub fn region_packed(packed: &[bool], region: u64) -> bool {
    let first = region as usize;
    first < packed.len()
        && packed[first..]
            .iter()
            .step_by(BASED_REGIONS as usize)
            .all(|&p| p)
}

/// `trace` with every address relative to an unknown start whose region
/// `packs` accepts moved as the module doc says (into [`PACKED_REGION`]);
/// `None` when no event holds one, or when the packed runs would not fit
/// below the next array's base.
pub fn starts_packed(trace: &Trace, packs: &dyn Fn(u64) -> bool) -> Option<Trace> {
    let based = |a: u64| {
        (BASED_REGION..UNKNOWN_REGION).contains(&a) && packs((a - BASED_REGION) / BASED_SPACING)
    };
    // Per start (region number): the thread that first used it, in thread
    // order, and per array its run.
    let mut first: HashMap<u64, (u32, u32, u32, usize)> = HashMap::new();
    let mut runs: HashMap<(u64, u64), Run> = HashMap::new();
    for e in &trace.events {
        let (s, n) = (e.start as usize, e.lanes as usize);
        for (p, &a) in trace.addresses[s..s + n].iter().enumerate() {
            if !based(a) {
                continue;
            }
            let region = (a - BASED_REGION) / BASED_SPACING;
            let offset = (a - BASED_REGION) % BASED_SPACING;
            let seen = first.len();
            first
                .entry(region)
                .or_insert((e.block, e.warp, p as u32, seen));
            let run = runs.entry((region, offset >> ARRAY_SHIFT)).or_insert(Run {
                lo: offset,
                hi: offset,
            });
            run.lo = run.lo.min(offset);
            run.hi = run.hi.max(offset + u64::from(e.bytes));
        }
    }
    if first.is_empty() {
        return None;
    }
    // Each array's spacing: its widest run.
    let mut spacing: HashMap<u64, u64> = HashMap::new();
    for (&(_, array), run) in &runs {
        let w = spacing.entry(array).or_insert(0);
        *w = (*w).max(run.hi - run.lo);
    }
    let mut order: Vec<(u64, (u32, u32, u32, usize))> = first.into_iter().collect();
    order.sort_unstable_by_key(|&(_, key)| key);
    let rank: HashMap<u64, u64> = (order.iter().enumerate())
        .map(|(r, &(region, _))| (region, r as u64))
        .collect();
    let count = order.len() as u64;
    if spacing
        .values()
        .any(|&w| count.saturating_mul(w) > OFFSET_MASK)
    {
        return None;
    }
    let mut out = trace.clone();
    for a in out.addresses.iter_mut().filter(|a| based(**a)) {
        let region = (*a - BASED_REGION) / BASED_SPACING;
        let offset = (*a - BASED_REGION) % BASED_SPACING;
        let array = offset >> ARRAY_SHIFT;
        let run = runs[&(region, array)];
        *a = PACKED_REGION + (array << ARRAY_SHIFT) + rank[&region] * spacing[&array] + offset
            - run.lo;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::{Event, Instruction, Kind};
    use crate::model::unknowns::based_address;

    fn event(warp: u32, execution: u32, lanes: u32) -> Event {
        Event {
            inst: 0,
            block: 0,
            warp,
            execution,
            bytes: 4,
            start: 0,
            lanes,
            unknown: false,
        }
    }

    #[test]
    fn runs_of_consecutive_threads_follow_each_other() {
        let mut t = Trace {
            instructions: vec![Instruction {
                kind: Kind::Load,
                site: "1:1".into(),
            }],
            blocks: 1,
            warps_per_block: 2,
            ..Trace::default()
        };
        // `a[j]` for j from an unknown start, three iterations, in array
        // slot 2 (stand-in base 2 << 36). Warp 1 (thread 32) runs first,
        // with start 1 at offset 0; then warp 0's two lanes with starts 2
        // and 3 at offsets 1 and 2 (`START_OFFSETS`: (start - 1) mod 8). A
        // known address (640) stays.
        let base = 2i64 << 36;
        let at = |start: u32, word: i64| based_address(base + 4 * word, start);
        for it in 0..3 {
            t.push(event(1, it, 1), &[at(1, it as i64)]);
            t.push(
                event(0, it, 3),
                &[at(2, 1 + it as i64), at(3, 2 + it as i64), 640],
            );
        }
        let packed = starts_packed(&t, &|_| true).unwrap();
        // Each run is 12 bytes; in thread order warp 0's lanes come first
        // (ranks 0 and 1), then warp 1's (rank 2): runs at 0, 12 and 24
        // bytes from the array's base, each lane's words consecutive.
        let b = PACKED_REGION + (2u64 << 36);
        let expect = [
            [b + 24, b, b + 12, 640],
            [b + 28, b + 4, b + 16, 640],
            [b + 32, b + 8, b + 20, 640],
        ];
        for (it, want) in expect.iter().enumerate() {
            assert_eq!(
                packed.addresses[it * 4..it * 4 + 4],
                want[..],
                "iteration {it}"
            );
        }
        assert_eq!(packed.events, t.events);
        // Nothing relative to an unknown start: no scenario.
        let mut plain = Trace {
            instructions: t.instructions.clone(),
            blocks: 1,
            warps_per_block: 1,
            ..Trace::default()
        };
        plain.push(event(0, 0, 1), &[128]);
        assert!(starts_packed(&plain, &|_| true).is_none());
        // Only the starts a predicate accepts move: start 1 (region 0)
        // keeps its own region.
        let some = starts_packed(&t, &|r| r != 0).unwrap();
        assert_eq!(some.addresses[0], t.addresses[0]);
        assert_eq!(some.addresses[1..3], [b, b + 12]);
        // Region 0 is packed only when every start using it is.
        assert!(region_packed(&[true, false], 0));
        assert!(!region_packed(&[true, false], 1));
        assert!(!region_packed(&[true], 3));
    }
}
