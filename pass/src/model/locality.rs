//! Locality curves LS(N, K) of the whole-kernel trace (design.md §6), as
//! Gupta, Xiang and Zhou define them (MSPC 2013): an access to byte
//! address X has locality (N, K) when some address Y among the next N
//! distinct addresses after it has |Y − X| ≤ K; LS(N, K) is the fraction of
//! accesses that do. K = 0 is temporal locality; larger K is spatial
//! locality at a distance of K bytes. N runs over [`NS`], K over [`KS`].
//!
//! The paper writes |Y − X| < K; this module counts |Y − X| ≤ K, so that
//! K = 0 is temporal locality as a curve of its own. The two differ only
//! at distance exactly K: for 4-byte aligned accesses, where every
//! distance is a multiple of 4, K = 4 here is the paper's K = 8 (distance
//! 0 or 4), K = 8 its K = 12, and so on. Figures compared with the paper's
//! must shift K accordingly (issue 19, fact 11).
//!
//! The streams come from a [`Trace`] at three levels ([`Level`]): one warp,
//! one block (its warps interleaved as the SM issues them) and the SM (every
//! co-resident block). Every event of the trace counts (loads, stores,
//! atomics alike: the paper measures the reference stream, not what L1
//! keeps), each active lane one access at its first byte; `Event::bytes` is
//! not used. Synthetic addresses of unknowns count as accesses and as
//! distinct addresses, which is the trace's "shares nothing" assumption.
//!
//! This module measures a stream; it does not simulate a cache (that is
//! `l1sim`), read IR or decide anything, and it writes only CSV: plotting
//! belongs to the driver.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::model::trace::Trace;

/// The window sizes N: the paper's powers of two from 1 to 1,024.
pub const NS: [u32; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/// The distances K in bytes; 0 is temporal locality.
pub const KS: [u64; 7] = [0, 4, 8, 16, 32, 64, 128];

const WINDOW: usize = NS[NS.len() - 1] as usize;
const K_MAX: u64 = KS[KS.len() - 1];
/// "No position" in the scan's index arrays.
const NONE: u32 = u32::MAX;

/// For each distance d in 0..=K_MAX, the index of the smallest K ≥ d.
const SMALLEST_K: [u8; K_MAX as usize + 1] = {
    let mut table = [0; K_MAX as usize + 1];
    let mut d = 0;
    while d <= K_MAX as usize {
        while KS[table[d] as usize] < d as u64 {
            table[d] += 1;
        }
        if d < K_MAX as usize {
            table[d + 1] = table[d];
        }
        d += 1;
    }
    table
};

/// Which accesses form one stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// One warp's accesses in program order.
    Warp,
    /// One block's accesses, its warps interleaved as in the trace.
    Block,
    /// Every access of the SM, in trace order.
    Sm,
}

impl Level {
    /// The spelling in CSV files and plots.
    pub fn name(self) -> &'static str {
        match self {
            Level::Warp => "warp",
            Level::Block => "block",
            Level::Sm => "sm",
        }
    }
}

/// One point of a curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub n: u32,
    /// Bytes.
    pub k: u64,
    /// LS(n, k), in 0..=1.
    pub ls: f64,
}

/// LS(N, K) at one level, pooled over that level's streams: the fraction of
/// all accesses of all streams (every warp, or every block) that have
/// locality, so that each stream weighs by its access count. A mean of
/// per-stream fractions would let a warp that ran one access weigh as much
/// as one that ran a loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Curves {
    pub level: Level,
    /// K-major (every N of `KS[0]`, then of `KS[1]`, ...), N ascending.
    pub points: Vec<Point>,
    /// Accesses in all streams of the level (every one is evaluated: no
    /// sampling).
    pub accesses: u64,
}

impl Curves {
    /// LS(n, k), if (n, k) is one of the curves' points.
    pub fn ls(&self, n: u32, k: u64) -> Option<f64> {
        self.points
            .iter()
            .find(|p| p.n == n && p.k == k)
            .map(|p| p.ls)
    }
}

/// The address streams of `level`, each in trace order with lanes in lane
/// order: one per (block, warp) for [`Level::Warp`], one per block for
/// [`Level::Block`], one for [`Level::Sm`]; ordered by block, then warp.
pub fn streams(trace: &Trace, level: Level) -> Vec<Vec<u64>> {
    let mut by_owner: BTreeMap<(u32, u32), Vec<u64>> = BTreeMap::new();
    for event in &trace.events {
        let owner = match level {
            Level::Warp => (event.block, event.warp),
            Level::Block => (event.block, 0),
            Level::Sm => (0, 0),
        };
        by_owner
            .entry(owner)
            .or_default()
            .extend_from_slice(trace.lanes(event));
    }
    by_owner.into_values().collect()
}

/// The curves of `trace` at `level`.
pub fn curves(trace: &Trace, level: Level) -> Curves {
    let streams = streams(trace, level);
    pool(level, streams.iter().map(Vec::as_slice))
}

/// The pooled curves of `streams` (labelled `level`), exact: every access
/// is evaluated.
///
/// Cost: O(L log L) for a stream of L accesses, whatever its shape and
/// independent of the window: a sort to index it, then per access at most
/// 2 × 128 + 1 neighbouring addresses and a few O(log L) Fenwick operations
/// (see `Scan`). Measured in release on one stream of 4 × 10⁶ accesses
/// (one core of a shared 2-core machine): 0.2 s for distinct far-apart
/// addresses, 0.4 s for a 128-byte-strided array read twice, 0.7 s for a
/// unit-stride read, 0.8 s for a tiled broadcast-plus-row pattern, 3.2 s for
/// uniformly random 4-byte-aligned addresses (cache misses). So no stream
/// needs sampling, and none is sampled.
pub fn pool<'a>(level: Level, streams: impl IntoIterator<Item = &'a [u64]>) -> Curves {
    let mut tally = Tally::new();
    let mut scan = Scan::default();
    let mut accesses = 0u64;
    for stream in streams {
        scan.index(stream);
        scan.run(&mut tally);
        accesses += stream.len() as u64;
    }
    Curves {
        level,
        points: tally.points(),
        accesses,
    }
}

/// Writes `curves` as CSV: the header `level,N,K,LS`, then one row per point
/// (`warp,1,0,0.437500`), curves in the order given.
pub fn write_csv(curves: &[Curves], mut out: impl Write) -> io::Result<()> {
    writeln!(out, "level,N,K,LS")?;
    for c in curves {
        for p in &c.points {
            writeln!(out, "{},{},{},{:.6}", c.level.name(), p.n, p.k, p.ls)?;
        }
    }
    Ok(())
}

/// Counts over the accesses evaluated so far.
struct Tally {
    /// `first[r][k]`: how many accesses meet an address within `KS[k]` of
    /// theirs first at the r-th distinct address after them (r in
    /// 1..=WINDOW). Such an access has locality (N, K) exactly for N ≥ r, so
    /// one pass of cumulative sums gives every N at once.
    first: Vec<[u64; KS.len()]>,
    accesses: u64,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            first: vec![[0; KS.len()]; WINDOW + 1],
            accesses: 0,
        }
    }

    fn add(&mut self, ranks: [u32; KS.len()]) {
        self.accesses += 1;
        for (k, &rank) in ranks.iter().enumerate() {
            if rank != 0 {
                self.first[rank as usize][k] += 1;
            }
        }
    }

    fn points(&self) -> Vec<Point> {
        let mut points = Vec::with_capacity(KS.len() * NS.len());
        for (k, &bytes) in KS.iter().enumerate() {
            let mut with_locality = 0u64;
            for rank in 1..=WINDOW {
                with_locality += self.first[rank][k];
                if rank.is_power_of_two() {
                    let ls = if self.accesses == 0 {
                        0.0
                    } else {
                        with_locality as f64 / self.accesses as f64
                    };
                    points.push(Point {
                        n: rank as u32,
                        k: bytes,
                        ls,
                    });
                }
            }
        }
        points
    }
}

/// One right-to-left scan over a stream; the buffers are reused from stream
/// to stream.
///
/// Going backwards, the scan keeps for every address its first occurrence
/// after the current access i, and a Fenwick tree marking those positions.
/// The addresses within K of X whose first occurrence comes earliest give
/// the position p of the first Y within K; the marks up to p count the
/// distinct addresses from i + 1 to p, which is Y's rank among "the next
/// distinct addresses" of the definition (repeats carry no mark).
#[derive(Default)]
struct Scan {
    /// The stream's addresses, sorted and deduplicated; an address's id is
    /// its index here.
    sorted: Vec<u64>,
    /// Per position: the id of its address.
    ids: Vec<u32>,
    /// Per id: the first position after the current access holding it
    /// (`NONE` while it does not occur there).
    first_after: Vec<u32>,
    /// Per position (1-based Fenwick layout): marks of the `first_after`
    /// positions.
    marks: Vec<u32>,
}

impl Scan {
    /// Prepares the scan of `stream`. Positions are `u32`, which holds any
    /// stream of a trace (`Event::start` is `u32`).
    fn index(&mut self, stream: &[u64]) {
        self.sorted.clear();
        self.sorted.extend_from_slice(stream);
        self.sorted.sort_unstable();
        self.sorted.dedup();
        self.ids.clear();
        for address in stream {
            let (Ok(id) | Err(id)) = self.sorted.binary_search(address);
            self.ids.push(id as u32);
        }
        self.first_after.clear();
        self.first_after.resize(self.sorted.len(), NONE);
        self.marks.clear();
        self.marks.resize(stream.len() + 1, 0);
    }

    fn run(&mut self, tally: &mut Tally) {
        for i in (0..self.ids.len()).rev() {
            tally.add(self.first_ranks(i));
            self.enter(i);
        }
    }

    /// Makes position `i` the first occurrence of its address.
    fn enter(&mut self, i: usize) {
        let id = self.ids[i] as usize;
        let old = std::mem::replace(&mut self.first_after[id], i as u32);
        if old != NONE {
            self.mark(old as usize, -1);
        }
        self.mark(i, 1);
    }

    /// Adds (`delta` 1) or removes (-1) the mark of position `p`.
    fn mark(&mut self, p: usize, delta: i32) {
        let mut node = p + 1;
        while node < self.marks.len() {
            self.marks[node] = self.marks[node].wrapping_add_signed(delta);
            node += node & node.wrapping_neg();
        }
    }

    /// Marks at positions up to and including `p`.
    fn marked_up_to(&self, p: usize) -> u32 {
        let mut node = p + 1;
        let mut count = 0;
        while node > 0 {
            count += self.marks[node];
            node &= node - 1;
        }
        count
    }

    /// For access `i` (the scan standing just before it): per K, the rank
    /// (1-based) among the distinct addresses after `i` of the first one
    /// within K bytes of it; 0 when there is none among the first
    /// [`WINDOW`].
    fn first_ranks(&self, i: usize) -> [u32; KS.len()] {
        let id = self.ids[i] as usize;
        let x = self.sorted[id];
        // Addresses within K_MAX of x, outwards in both directions: at most
        // 2 × K_MAX + 1 of them, whatever the stream.
        let above = (id..self.sorted.len()).take_while(|&j| self.sorted[j] - x <= K_MAX);
        let below = (0..id).rev().take_while(|&j| x - self.sorted[j] <= K_MAX);
        // earliest[k]: the earliest later position of an address within
        // KS[k], first per smallest K reaching it, then widened to all K.
        let mut earliest = [NONE; KS.len()];
        for j in above.chain(below) {
            let p = self.first_after[j];
            if p != NONE {
                let k = SMALLEST_K[self.sorted[j].abs_diff(x) as usize] as usize;
                earliest[k] = earliest[k].min(p);
            }
        }
        for k in 1..KS.len() {
            earliest[k] = earliest[k].min(earliest[k - 1]);
        }
        // From the widest K down: a smaller K's first position is no
        // earlier, so its rank is no smaller, and once one rank is past the
        // window the rest are too.
        let mut ranks = [0; KS.len()];
        let mut known = (NONE, 0);
        for (rank, &p) in ranks.iter_mut().zip(&earliest).rev() {
            if p == NONE {
                break;
            }
            if p != known.0 {
                known = (p, self.marked_up_to(p as usize));
            }
            if known.1 as usize > WINDOW {
                break;
            }
            *rank = known.1;
        }
        ranks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::{Event, Instruction, Kind};

    fn one(stream: &[u64]) -> Curves {
        pool(Level::Warp, [stream])
    }

    fn ls(c: &Curves, n: u32, k: u64) -> f64 {
        c.ls(n, k).expect("a point of the curves")
    }

    #[test]
    fn repeated_address_is_temporal_at_every_window() {
        // Each access but the last finds 0 as its first distinct successor.
        let c = one(&[0, 0, 0, 0]);
        for n in NS {
            for k in KS {
                assert_eq!(ls(&c, n, k), 0.75, "N={n} K={k}");
            }
        }
        assert_eq!(c.accesses, 4);
        assert_eq!(c.points.len(), NS.len() * KS.len());
    }

    #[test]
    fn unit_stride_is_spatial_not_temporal() {
        // 0,4,8,12: each of the first three has its successor 4 bytes away.
        let c = one(&[0, 4, 8, 12]);
        assert_eq!(ls(&c, 1, 4), 0.75);
        assert_eq!(ls(&c, 1, 128), 0.75);
        for n in NS {
            assert_eq!(ls(&c, n, 0), 0.0, "N={n}");
        }
    }

    #[test]
    fn distance_k_is_inclusive() {
        // |Y − X| ≤ K: 128 bytes apart is within K = 128, 129 is not.
        let c = one(&[0, 128]);
        assert_eq!((ls(&c, 1, 64), ls(&c, 1, 128)), (0.0, 0.5));
        let c = one(&[129, 0]);
        assert_eq!(ls(&c, 1024, 128), 0.0);
    }

    #[test]
    fn repeats_inside_the_window_count_once() {
        // Position 0 (address 0) meets 1000, 2000, then 0: the 3rd distinct
        // address, though the 5th access; needs N = 4. Positions 1 and 2
        // reuse 1000 at rank 1; 3, 4, 5 never reuse (2000 and 0 are far).
        let c = one(&[0, 1000, 1000, 1000, 2000, 0]);
        assert_eq!(ls(&c, 1, 0), 2.0 / 6.0);
        assert_eq!(ls(&c, 2, 0), 2.0 / 6.0);
        assert_eq!(ls(&c, 4, 0), 3.0 / 6.0);
        assert_eq!(ls(&c, 1024, 128), 3.0 / 6.0);
    }

    #[test]
    fn each_distance_takes_its_own_first_rank() {
        // 100 meets 0 (100 bytes, rank 1) then 104 (4 bytes, rank 2);
        // 0 meets 104 (104 bytes, rank 1); 104 meets nothing.
        let c = one(&[100, 0, 104]);
        assert_eq!(ls(&c, 1, 128), 2.0 / 3.0);
        assert_eq!(ls(&c, 1, 64), 0.0);
        assert_eq!(ls(&c, 1, 4), 0.0);
        assert_eq!(ls(&c, 2, 4), 1.0 / 3.0);
        assert_eq!(ls(&c, 2, 64), 1.0 / 3.0);
        assert_eq!(ls(&c, 2, 0), 0.0);
    }

    #[test]
    fn window_ends_at_1024_distinct_addresses() {
        // 0, then m addresses 1000 bytes apart, then 0 again: the reuse is
        // the (m+1)-th distinct address after the first access.
        let stream = |m: u64| -> Vec<u64> {
            let mut s = vec![0];
            s.extend((1..=m).map(|i| i * 1000));
            s.push(0);
            s
        };
        let c = one(&stream(1023));
        assert_eq!(ls(&c, 1024, 0), 1.0 / 1025.0);
        assert_eq!(ls(&c, 512, 0), 0.0);
        let c = one(&stream(1024));
        assert_eq!(ls(&c, 1024, 0), 0.0);
    }

    #[test]
    fn pooling_weighs_streams_by_accesses() {
        // [0, 0]: 1 of 2; [0, 1000, 2000, 3000]: 0 of 4. Pooled 1/6, not
        // the mean of fractions (1/4).
        let a: &[u64] = &[0, 0];
        let b: &[u64] = &[0, 1000, 2000, 3000];
        let c = pool(Level::Block, [a, b]);
        assert_eq!(ls(&c, 1, 0), 1.0 / 6.0);
        assert_eq!(c.accesses, 6);
    }

    /// The definition taken literally: collect the next distinct addresses,
    /// then look for one within K among the first N.
    fn by_definition(stream: &[u64]) -> Vec<Point> {
        let mut hits = vec![[0u64; KS.len()]; NS.len()];
        for (i, &x) in stream.iter().enumerate() {
            let mut distinct: Vec<u64> = Vec::new();
            for &y in &stream[i + 1..] {
                if !distinct.contains(&y) {
                    distinct.push(y);
                }
            }
            for (ni, &n) in NS.iter().enumerate() {
                for (ki, &k) in KS.iter().enumerate() {
                    let window = &distinct[..distinct.len().min(n as usize)];
                    if window.iter().any(|&y| y.abs_diff(x) <= k) {
                        hits[ni][ki] += 1;
                    }
                }
            }
        }
        let mut points = Vec::new();
        for (ki, &k) in KS.iter().enumerate() {
            for (ni, &n) in NS.iter().enumerate() {
                let ls = hits[ni][ki] as f64 / stream.len() as f64;
                points.push(Point { n, k, ls });
            }
        }
        points
    }

    #[test]
    fn agrees_with_the_definition_on_pseudo_random_streams() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |range: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % range
        };
        // Dense (much temporal reuse), sparse (more than 1,024 distinct, so
        // the window ends), and odd byte addresses near each other.
        let dense: Vec<u64> = (0..1500).map(|_| 4 * next(200)).collect();
        let sparse: Vec<u64> = (0..1500).map(|_| 2 * next(3000)).collect();
        let bytes: Vec<u64> = (0..600).map(|_| 5000 + next(300)).collect();
        for stream in [dense, sparse, bytes] {
            assert_eq!(one(&stream).points, by_definition(&stream));
        }
    }

    #[test]
    fn csv_has_one_row_per_point() {
        let c = one(&[0, 0, 0, 0]);
        let mut sm = one(&[0, 4, 8, 12]);
        sm.level = Level::Sm;
        let mut out = Vec::new();
        write_csv(&[c, sm], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 2 * NS.len() * KS.len());
        assert_eq!(lines[0], "level,N,K,LS");
        assert_eq!(lines[1], "warp,1,0,0.750000");
        assert_eq!(lines[11], "warp,1024,0,0.750000");
        assert_eq!(lines[12], "warp,1,4,0.750000");
        assert_eq!(lines[78], "sm,1,0,0.000000");
        assert_eq!(lines[89], "sm,1,4,0.750000");
        assert!(text.ends_with("sm,1024,128,0.750000\n"));
    }

    /// Two blocks of two warps; block 1's warp 1 never runs.
    fn tiny_trace() -> Trace {
        let mut t = Trace {
            instructions: vec![Instruction {
                kind: Kind::Load,
                site: "1:1".into(),
            }],
            blocks: 2,
            warps_per_block: 2,
            ..Trace::default()
        };
        let event = |block, warp| Event {
            inst: 0,
            block,
            warp,
            execution: 0,
            bytes: 4,
            start: 0,
            lanes: 0,
            unknown: false,
        };
        t.push(event(0, 0), &[0, 4]);
        t.push(event(0, 1), &[0]);
        t.push(event(1, 0), &[4]);
        t.push(event(0, 0), &[0]);
        t
    }

    #[test]
    fn levels_cut_the_trace_into_streams() {
        let t = tiny_trace();
        assert_eq!(
            streams(&t, Level::Warp),
            vec![vec![0, 4, 0], vec![0], vec![4]]
        );
        assert_eq!(streams(&t, Level::Block), vec![vec![0, 4, 0, 0], vec![4]]);
        assert_eq!(streams(&t, Level::Sm), vec![vec![0, 4, 0, 4, 0]]);
    }

    #[test]
    fn sharing_across_warps_and_blocks_raises_the_curves() {
        // Warp (0,0) [0,4,0]: the first 0 reuses at rank 2. Block 0
        // [0,4,0,0] adds warp 1's 0 right before warp 0's: one more reuse,
        // at rank 1. The SM [0,4,0,4,0] adds block 1's 4: the first 4 and
        // the middle 0 reuse at rank 2. All over 5 accesses.
        let t = tiny_trace();
        let warp = curves(&t, Level::Warp);
        let block = curves(&t, Level::Block);
        let sm = curves(&t, Level::Sm);
        assert_eq!((ls(&warp, 1, 0), ls(&warp, 2, 0)), (0.0, 0.2));
        assert_eq!((ls(&block, 1, 0), ls(&block, 2, 0)), (0.2, 0.4));
        assert_eq!((ls(&sm, 1, 0), ls(&sm, 2, 0)), (0.0, 0.6));
        assert_eq!([warp.accesses, block.accesses, sm.accesses], [5, 5, 5]);
        assert_eq!(sm.level, Level::Sm);
    }
}
