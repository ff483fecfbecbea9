//! The warp scheduler of the whole-SM walk (issue 19): which warp issues
//! the next memory instruction. A warp issues its memory instructions back
//! to back (a *burst*) until one waits on a load in flight
//! (`MemOp::waits`) or it reaches a block barrier; what happens then is
//! the [`WarpOrder`].
//!
//! - [`WarpOrder::Gto`], greedy-then-oldest (Rogers, O'Connor, Aamodt,
//!   MICRO 2012; the scheduler of Accel-Sim's validated Volta
//!   configuration): the scheduler keeps the current warp until it stalls;
//!   a warp that waits is ready again `latency` issue slots later; the next
//!   warp is then the oldest ready one (lowest block slot, then warp
//!   index); when none is ready, time jumps to the earliest ready. One
//!   memory instruction takes one issue slot.
//! - [`WarpOrder::RoundRobin`]: each warp in turn issues one burst, over all
//!   warps of all blocks (the loose round-robin of simple simulators).
//!
//! Under both, a warp at a barrier waits until every warp of its block
//! that has not exited reached one (a barrier counts arrivals per block,
//! PTX ISA `bar.sync`; warps that exited are not waited for, as on
//! hardware that counts exited warps as arrived).
//!
//! Pure bookkeeping over warp numbers: it knows nothing of programs or
//! addresses; the walk tells it what each warp did.

use std::collections::VecDeque;

/// How the SM picks the warp that issues next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOrder {
    /// Greedy-then-oldest; `latency`: issue slots from a wait until the
    /// warp is ready again.
    Gto { latency: u32 },
    /// One burst per warp per turn.
    RoundRobin,
}

/// The default wait, in issue slots of one SM: an L2 hit's latency,
/// about 200 cycles on Volta and Turing (Jia et al., "Dissecting the NVIDIA
/// Volta GPU Architecture via Microbenchmarking", 2018: 193 cycles on V100;
/// "... Turing T4", 2019: 188), counted as one memory instruction per cycle
/// (V100's 32 load/store units per SM take one warp instruction a cycle).
/// An assumption: a kernel with arithmetic between its loads issues fewer
/// memory instructions per cycle (a shorter wait in slots), an L2 miss
/// waits longer; the decision layer also evaluates
/// [`WarpOrder::RoundRobin`] for that reason.
pub const DEFAULT_LATENCY: u32 = 200;

impl Default for WarpOrder {
    fn default() -> WarpOrder {
        WarpOrder::Gto {
            latency: DEFAULT_LATENCY,
        }
    }
}

/// What a warp did at its turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Issued {
    /// A memory instruction, and the warp can issue its next one at once.
    Burst,
    /// A memory instruction after which the warp waits for a load.
    Waits,
    /// The warp reached a block barrier (no instruction issued).
    Barrier,
    /// The warp exited.
    Exited,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Ready at this issue slot.
    Ready(u64),
    AtBarrier,
    Exited,
}

/// The scheduler's state over the SM's warps, numbered block slot by block
/// slot, warp index within (the oldest first).
///
/// A warp ready at a later slot waits in `pending`, in the order it will
/// be ready; once its slot has come it joins `ready`, a bit per warp, whose
/// lowest bit is the oldest ready warp. Both orders hold without sorting:
/// time only moves forward, and every wait is the same `latency`. Picking a
/// warp so costs a few word operations rather than a scan of every warp's
/// state (by `perf`, about a twentieth of the walk of a 64-warp SM).
pub struct Scheduler {
    order: WarpOrder,
    warps_per_block: usize,
    states: Vec<State>,
    /// The warps whose state is `Ready` at a slot not after `now`.
    ready: Vec<u64>,
    /// The other `Ready` warps (GTO): (slot, warp), slots in increasing order.
    pending: VecDeque<(u64, usize)>,
    /// Warps of each block at a barrier or exited.
    arrived: Vec<usize>,
    /// The issue slot now (GTO).
    now: u64,
    /// The warp in its burst, if any.
    current: Option<usize>,
    /// Round-robin: the warp whose turn comes next.
    cursor: usize,
}

impl Scheduler {
    /// `blocks` blocks of `warps_per_block` warps each, all ready.
    pub fn new(order: WarpOrder, blocks: usize, warps_per_block: usize) -> Scheduler {
        let warps = blocks * warps_per_block;
        let mut ready = vec![!0u64; warps.div_ceil(64)];
        if let Some(last) = ready.last_mut() {
            *last >>= (64 - warps % 64) % 64;
        }
        Scheduler {
            order,
            warps_per_block: warps_per_block.max(1),
            states: vec![State::Ready(0); warps],
            ready,
            pending: VecDeque::new(),
            arrived: vec![0; blocks],
            now: 0,
            current: None,
            cursor: 0,
        }
    }

    /// The warp that issues next; `None` when every warp exited.
    pub fn pick(&mut self) -> Option<usize> {
        if let Some(w) = self.current {
            return Some(w);
        }
        let w = match self.order {
            WarpOrder::Gto { .. } => self.oldest_ready()?,
            WarpOrder::RoundRobin => {
                // The first ready warp from the cursor on, else from 0.
                let w = self
                    .first_ready(self.cursor)
                    .or_else(|| self.first_ready(0))?;
                self.cursor = (w + 1) % self.states.len();
                w
            }
        };
        self.current = Some(w);
        Some(w)
    }

    /// The oldest warp ready now, advancing time to the earliest ready
    /// when none is.
    fn oldest_ready(&mut self) -> Option<usize> {
        self.release(self.now);
        if let Some(w) = self.first_ready(0) {
            return Some(w);
        }
        let &(at, _) = self.pending.front()?;
        self.now = at;
        self.release(at);
        self.first_ready(0)
    }

    /// Moves the warps pending until `now` or before to `ready`.
    fn release(&mut self, now: u64) {
        while let Some(&(at, w)) = self.pending.front() {
            if at > now {
                break;
            }
            self.pending.pop_front();
            self.ready[w / 64] |= 1 << (w % 64);
        }
    }

    /// The lowest-numbered ready warp from `from` on.
    fn first_ready(&self, from: usize) -> Option<usize> {
        let word = from / 64;
        let first = *self.ready.get(word)? & (!0u64 << (from % 64));
        if first != 0 {
            return Some(word * 64 + first.trailing_zeros() as usize);
        }
        let (i, bits) = (self.ready[word + 1..].iter().enumerate()).find(|(_, b)| **b != 0)?;
        Some((word + 1 + i) * 64 + bits.trailing_zeros() as usize)
    }

    /// Makes `w` ready at `at` (not before `now`).
    fn ready_at(&mut self, w: usize, at: u64) {
        self.states[w] = State::Ready(at);
        if at <= self.now {
            self.ready[w / 64] |= 1 << (w % 64);
        } else {
            self.pending.push_back((at, w));
        }
    }

    /// Records what warp `w` (the one [`Scheduler::pick`] gave) did.
    pub fn issued(&mut self, w: usize, what: Issued) {
        if what != Issued::Burst {
            self.ready[w / 64] &= !(1 << (w % 64));
        }
        match what {
            Issued::Burst => self.now += 1,
            Issued::Waits => {
                self.now += 1;
                let at = match self.order {
                    WarpOrder::Gto { latency } => self.now + u64::from(latency),
                    WarpOrder::RoundRobin => self.now,
                };
                self.ready_at(w, at);
                self.current = None;
            }
            Issued::Barrier => {
                self.states[w] = State::AtBarrier;
                self.current = None;
                self.arrive(w);
            }
            Issued::Exited => {
                if self.states[w] == State::AtBarrier {
                    self.arrived[w / self.warps_per_block] -= 1;
                }
                self.states[w] = State::Exited;
                self.current = None;
                self.arrive(w);
            }
        }
    }

    /// Counts `w` as arrived at (or out of) its block's barrier; releases
    /// the block when every warp of it has.
    fn arrive(&mut self, w: usize) {
        let block = w / self.warps_per_block;
        self.arrived[block] += 1;
        if self.arrived[block] < self.warps_per_block {
            return;
        }
        let first = block * self.warps_per_block;
        let mut exited = 0;
        for v in first..first + self.warps_per_block {
            match self.states[v] {
                State::AtBarrier => self.ready_at(v, self.now),
                State::Exited => exited += 1,
                State::Ready(_) => {}
            }
        }
        self.arrived[block] = exited;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `warps` scripted warps (each a list of what it does per turn)
    /// and returns the order of (warp, turn) the scheduler gives.
    fn run(
        order: WarpOrder,
        blocks: usize,
        per_block: usize,
        script: &[&[Issued]],
    ) -> Vec<(usize, usize)> {
        let mut s = Scheduler::new(order, blocks, per_block);
        let mut turn = vec![0; script.len()];
        let mut out = Vec::new();
        while let Some(w) = s.pick() {
            let what = script[w].get(turn[w]).copied().unwrap_or(Issued::Exited);
            if what != Issued::Exited {
                out.push((w, turn[w]));
            }
            turn[w] += 1;
            s.issued(w, what);
        }
        out
    }

    use Issued::{Barrier, Burst, Waits};

    /// The scheduler as first written, a scan of every warp's state per
    /// pick: the definition the bit sets and the queue must agree with.
    struct Scan {
        order: WarpOrder,
        per_block: usize,
        states: Vec<State>,
        arrived: Vec<usize>,
        now: u64,
        current: Option<usize>,
        cursor: usize,
    }

    impl Scan {
        fn pick(&mut self) -> Option<usize> {
            if let Some(w) = self.current {
                return Some(w);
            }
            let n = self.states.len();
            let ready = |s: &State| matches!(s, State::Ready(_));
            let w = match self.order {
                WarpOrder::Gto { .. } => {
                    let now = (self.states.iter().enumerate())
                        .find(|(_, s)| matches!(s, State::Ready(at) if *at <= self.now));
                    match now {
                        Some((w, _)) => w,
                        None => {
                            let (at, w) = (self.states.iter().enumerate())
                                .filter_map(|(w, s)| match s {
                                    State::Ready(at) => Some((*at, w)),
                                    _ => None,
                                })
                                .min()?;
                            self.now = at;
                            w
                        }
                    }
                }
                WarpOrder::RoundRobin => {
                    let w = (0..n)
                        .map(|i| (self.cursor + i) % n)
                        .find(|&w| ready(&self.states[w]))?;
                    self.cursor = (w + 1) % n;
                    w
                }
            };
            self.current = Some(w);
            Some(w)
        }

        fn issued(&mut self, w: usize, what: Issued) {
            let block = w / self.per_block;
            match what {
                Burst => self.now += 1,
                Waits => {
                    self.now += 1;
                    self.states[w] = State::Ready(match self.order {
                        WarpOrder::Gto { latency } => self.now + u64::from(latency),
                        WarpOrder::RoundRobin => self.now,
                    });
                    self.current = None;
                    return;
                }
                Barrier => self.states[w] = State::AtBarrier,
                Issued::Exited => {
                    if self.states[w] == State::AtBarrier {
                        self.arrived[block] -= 1;
                    }
                    self.states[w] = State::Exited;
                }
            }
            if what == Burst {
                return;
            }
            self.current = None;
            self.arrived[block] += 1;
            if self.arrived[block] < self.per_block {
                return;
            }
            let mut exited = 0;
            for s in &mut self.states[block * self.per_block..][..self.per_block] {
                match s {
                    State::AtBarrier => *s = State::Ready(self.now),
                    State::Exited => exited += 1,
                    State::Ready(_) => {}
                }
            }
            self.arrived[block] = exited;
        }
    }

    #[test]
    fn picks_what_a_scan_of_every_warp_picks() {
        // Pseudo-random scripts (an xorshift), over block shapes that fill
        // one bit-set word, part of one and several; every order.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let orders = [
            WarpOrder::Gto { latency: 0 },
            WarpOrder::Gto { latency: 3 },
            WarpOrder::default(),
            WarpOrder::RoundRobin,
        ];
        for (blocks, per_block) in [(1, 1), (2, 3), (8, 8), (3, 40), (5, 13)] {
            for order in orders {
                let warps = blocks * per_block;
                // Each warp: up to 40 turns of bursts, waits and barriers
                // (rare), then it exits.
                let script: Vec<Vec<Issued>> = (0..warps)
                    .map(|_| {
                        (0..next(40))
                            .map(|_| match next(20) {
                                0 => Barrier,
                                1..=9 => Burst,
                                _ => Waits,
                            })
                            .collect()
                    })
                    .collect();
                let mut fast = Scheduler::new(order, blocks, per_block);
                let mut scan = Scan {
                    order,
                    per_block,
                    states: vec![State::Ready(0); warps],
                    arrived: vec![0; blocks],
                    now: 0,
                    current: None,
                    cursor: 0,
                };
                let mut turn = vec![0; warps];
                loop {
                    let w = fast.pick();
                    assert_eq!(w, scan.pick(), "{order:?}, {blocks} x {per_block}");
                    let Some(w) = w else { break };
                    let what = script[w].get(turn[w]).copied().unwrap_or(Issued::Exited);
                    turn[w] += 1;
                    fast.issued(w, what);
                    scan.issued(w, what);
                    assert_eq!(fast.now, scan.now);
                }
            }
        }
    }

    #[test]
    fn gto_keeps_a_warp_until_it_waits_then_takes_the_oldest_ready() {
        // Two warps, each: a burst of two loads, a wait, one more load.
        // Latency 3. Slot 0,1: warp 0's burst (waits after slot 1, ready
        // at 2 + 3 = 5). Slots 2,3: warp 1 (ready at 4 + 3 = 7). Nobody is
        // ready at 4: time jumps to 5, warp 0's last load; it exits; time
        // jumps to 7, warp 1's last load.
        let script: &[&[Issued]] = &[&[Burst, Waits, Waits], &[Burst, Waits, Waits]];
        let order = run(WarpOrder::Gto { latency: 3 }, 1, 2, script);
        assert_eq!(order, vec![(0, 0), (0, 1), (1, 0), (1, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn gto_returns_to_an_older_warp_only_when_the_current_one_waits() {
        // Three warps, each two single-load bursts. Latency 1: warp 0
        // waits after slot 0 (ready at 2); warp 1 issues slot 1 (ready at
        // 3); at slot 2 warp 0 is ready and older than warp 2: it goes
        // first, then warp 1 (ready at 3), then warp 2 at slot 4.
        let script: &[&[Issued]] = &[&[Waits, Waits], &[Waits, Waits], &[Waits, Waits]];
        let order = run(WarpOrder::Gto { latency: 1 }, 1, 3, script);
        assert_eq!(order, vec![(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (2, 1)]);
    }

    #[test]
    fn round_robin_takes_one_burst_per_turn() {
        let script: &[&[Issued]] = &[&[Burst, Waits, Waits], &[Waits, Waits]];
        let order = run(WarpOrder::RoundRobin, 1, 2, script);
        assert_eq!(order, vec![(0, 0), (0, 1), (1, 0), (0, 2), (1, 1)]);
    }

    #[test]
    fn a_barrier_holds_a_block_until_its_live_warps_arrive() {
        // Block 0: warps 0, 1; block 1: warps 2, 3. Warp 0 reaches the
        // barrier at once; warp 1 has a load first; warp 3 exits at once.
        // GTO: warp 0 parks; warp 1 loads then parks, releasing block 0;
        // but warp 0 is released at slot 1 and is oldest: it goes next.
        // Block 1: warp 2 parks at its barrier; warp 3 exits, which
        // releases warp 2 (an exited warp counts as arrived).
        let script: &[&[Issued]] = &[
            &[Barrier, Waits],
            &[Waits, Barrier, Waits],
            &[Barrier, Waits],
            &[],
        ];
        let order = run(WarpOrder::Gto { latency: 0 }, 2, 2, script);
        assert_eq!(
            order,
            vec![(0, 0), (1, 0), (1, 1), (0, 1), (1, 2), (2, 0), (2, 1)]
        );
    }
}
