//! Runs from loaded starts stored one after another (issue 19 fact 12:
//! "use the known stride under an unknown base: reuse within a thread and
//! between lanes whose bases are near").
//!
//! A loop variable whose start is loaded per lane (`j = row_ptr[r]`,
//! `k = row_ptr[v]`) walks with its known step; the walk gives each such
//! start a region of its own (`unknowns::based_address`), so lanes with
//! unknown starts share nothing: the paper's assumption, and right when the
//! starts are scattered. In the compressed formats those loops come from
//! (CSR rows, adjacency lists) row r + 1 starts where row r ends, so a
//! warp's lanes, reading neighbouring rows, read neighbouring words and
//! share lines. Two placements:
//! - [`Packing::ByRow`], the nominal trace's for the starts the code shows
//!   to be row offsets (`control::packed_starts`: loaded from `p[i]` in a
//!   kernel that also loads `p[i + 1]`): each run at its row `i`, rows one
//!   after another, so a thread that skips its row leaves a gap and a row
//!   read again is read at the same place;
//! - [`Packing::ByThread`], the scenario's for every other loaded start:
//!   runs one after another in the order threads first use them (block,
//!   warp, lane), as if each thread's start were the previous thread's end.
//!
//! Each array is packed on its own, at the widest run any lane of the trace
//! made in it. The runs are as long as the walk made them (its trip counts,
//! guessed where the bound is loaded), so when rows are shorter than the
//! guess the placement understates the sharing.
//!
//! Measured where it matters (GPGPU-Sim's GTX480, `testdata/sim/bfs.cu`,
//! whose adjacency walk `adj[k]` starts at `row_ptr[v]`): caching that walk
//! took 0.73× the cycles and 0.71× the L2→L1 bytes of the better global
//! switch, which the model, under private starts only, could not see
//! (`bench/sim/disagreements.md`).

use std::collections::HashMap;

use crate::model::trace::Trace;
use crate::model::unknowns::{BASED_REGION, BASED_REGIONS, BASED_SPACING};

/// Where packed runs go: the last start region. A start numbered past
/// 45,055 (`BASED_REGIONS`) would share it; a trace makes that many only
/// when most loop entries make a single access.
pub const PACKED_REGION: u64 = BASED_REGION + (BASED_REGIONS - 1) * BASED_SPACING;

/// Where an array's addresses sit in a region: its stand-in base, `slot <<
/// 36` (`Base::address`), with the offsets around it. An access a little
/// below its base (`a[j - 1]` at `j = 0`) stays with its array: slots are
/// rounded to the nearest.
const ARRAY_SHIFT: u32 = 36;
const HALF_SLOT: u64 = 1 << (ARRAY_SHIFT - 1);
const SLOT_BYTES: u64 = 1 << ARRAY_SHIFT;

/// One unknown start's run in one array: its first and past-the-last byte.
#[derive(Clone, Copy)]
struct Run {
    lo: u64,
    hi: u64,
}

/// How runs are placed.
#[derive(Clone, Copy)]
pub enum Packing<'a> {
    /// Every start, in the order threads first use them (block, warp, lane):
    /// the scenario, for starts nothing places.
    ByThread,
    /// The starts whose row is known (`walk::Walked::packed_bases`, per
    /// start number - 1): each run at its row, rows of one variable one
    /// after another (gaps where a row's thread does not run, one place for
    /// a row read again). A region two starts share (numbers past
    /// [`BASED_REGIONS`]) is left alone.
    ByRow(&'a [Option<(u32, i64)>]),
}

impl Packing<'_> {
    /// The row of region `region`'s one start, with its variable.
    fn row(self, region: u64) -> Option<(u32, i64)> {
        match self {
            Packing::ByThread => None,
            Packing::ByRow(rows) => {
                let r = region as usize;
                let only = rows.len() <= r + BASED_REGIONS as usize;
                rows.get(r).copied().flatten().filter(|_| only)
            }
        }
    }

    fn packs(self, region: u64) -> bool {
        matches!(self, Packing::ByThread) || self.row(region).is_some()
    }
}

/// `trace` with the addresses relative to the unknown starts `packing`
/// places moved as the module doc says (into [`PACKED_REGION`]); `None`
/// when it moves none, or when the packed runs would not fit below the
/// next array's base.
pub fn starts_packed(trace: &Trace, packing: Packing) -> Option<Trace> {
    let split = |a: u64| {
        let region = (a - BASED_REGION) / BASED_SPACING;
        let offset = (a - BASED_REGION) % BASED_SPACING;
        (region, offset, (offset + HALF_SLOT) >> ARRAY_SHIFT)
    };
    let moved = |a: u64| (BASED_REGION..PACKED_REGION).contains(&a) && packing.packs(split(a).0);
    // Per start (region number): the thread that first used it, and per
    // array its run.
    let mut first: HashMap<u64, (u32, u32, u32, usize)> = HashMap::new();
    let mut runs: HashMap<(u64, u64), Run> = HashMap::new();
    for e in &trace.events {
        let (s, n) = (e.start as usize, e.lanes as usize);
        for (p, &a) in trace.addresses[s..s + n].iter().enumerate() {
            if !moved(a) {
                continue;
            }
            let (region, offset, array) = split(a);
            let seen = first.len();
            first
                .entry(region)
                .or_insert((e.block, e.warp, p as u32, seen));
            let run = runs.entry((region, array)).or_insert(Run {
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
    // Each start's place: its row from the first row of its variable, or
    // its rank in thread order.
    let place: HashMap<u64, u64> = match packing {
        Packing::ByThread => {
            let mut order: Vec<(u64, (u32, u32, u32, usize))> = first.into_iter().collect();
            order.sort_unstable_by_key(|&(_, key)| key);
            (order.iter().enumerate())
                .map(|(r, &(region, _))| (region, r as u64))
                .collect()
        }
        Packing::ByRow(_) => {
            let rows: Vec<(u64, (u32, i64))> = (first.keys())
                .filter_map(|&r| Some((r, packing.row(r)?)))
                .collect();
            let mut lowest: HashMap<u32, i64> = HashMap::new();
            for &(_, (var, row)) in &rows {
                let l = lowest.entry(var).or_insert(row);
                *l = (*l).min(row);
            }
            (rows.iter())
                .map(|&(r, (var, row))| (r, row.abs_diff(lowest[&var])))
                .collect()
        }
    };
    let last = place.values().copied().max().unwrap_or(0);
    let fits = |w: u64| (last + 1).checked_mul(w).is_some_and(|b| b < HALF_SLOT);
    if !spacing.values().all(|&w| fits(w)) {
        return None;
    }
    let mut out = trace.clone();
    for a in out.addresses.iter_mut().filter(|a| moved(**a)) {
        let (region, offset, array) = split(*a);
        let run = runs[&(region, array)];
        *a =
            PACKED_REGION + array * SLOT_BYTES + place[&region] * spacing[&array] + offset - run.lo;
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
    fn runs_are_packed_by_thread_or_by_row() {
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
        let packed = starts_packed(&t, Packing::ByThread).unwrap();
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
        assert!(starts_packed(&plain, Packing::ByThread).is_none());
        // By row: start 1 has no row (it keeps its own region); starts 2
        // and 3 are rows 7 and 5 of variable 0: row 5's run first (12
        // bytes), then a gap for row 6, whose thread did not run, then row
        // 7's at 24 bytes.
        let rows = [None, Some((0, 7)), Some((0, 5))];
        let by_row = starts_packed(&t, Packing::ByRow(&rows)).unwrap();
        assert_eq!(by_row.addresses[0], t.addresses[0]);
        assert_eq!(by_row.addresses[1..3], [b + 24, b]);
        assert_eq!(by_row.addresses[5..7], [b + 28, b + 4]);
        // A row read again is one place: both starts at row 4.
        let again = [None, Some((0, 4)), Some((0, 4))];
        let same = starts_packed(&t, Packing::ByRow(&again)).unwrap();
        assert_eq!(same.addresses[1..3], [b, b]);
        // An access just below its array's base (`a[j - 1]` at j = 0)
        // stays with that array.
        let mut low = Trace {
            instructions: t.instructions.clone(),
            blocks: 1,
            warps_per_block: 1,
            ..Trace::default()
        };
        low.push(event(0, 0, 1), &[based_address(base - 4, 1)]);
        low.push(event(0, 1, 1), &[based_address(base, 1)]);
        let low = starts_packed(&low, Packing::ByThread).unwrap();
        assert_eq!(low.addresses, [b, b + 4]);
    }
}
