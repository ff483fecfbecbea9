//! Decisions under uncertainty (issue 19, design.md §6 "Decisions under
//! uncertainty"): `auto`'s choice is the assignment of cache/bypass to the
//! kernel's loads with the least worst-case regret over a set of
//! [`Scenario`]s, each one plausible answer to a question the hardware
//! documentation leaves open (the warp order, the carveout the driver picks,
//! the effective L1 size, whether `.L1::no_allocate` loads hit lines others
//! allocated, whether Volta+ stores allocate, the set index, whether a
//! data-dependent gather shares lines, whether runs from loaded starts are
//! stored one after another).
//!
//! Regret of an assignment in a scenario: its simulated L2→L1 bytes over
//! the fewest bytes any candidate assignment reaches in that scenario (1.0:
//! the best there). The chosen assignment minimises the largest regret over
//! the scenarios. Candidates are what the search found under each scenario
//! plus the complete choices (cache-all, cache-none, the paper's), and,
//! where the choice's worst regret is above a near-tie, the assignments a
//! descent on that regret simulated ([`weigh_and_descend`]); the best of
//! each scenario is taken over the same candidates, so a regret is
//! measured against something the model did find, never guessed.
//!
//! Near-ties: on sector-fill parts (Maxwell onward) caching a load never
//! fetches more bytes than bypassing it, while a wrong bypass can cost the
//! whole reuse factor, so among candidates within [`NEAR`] of the least
//! worst-case regret the one that caches the most loads wins. On line-fill
//! parts (Fermi) the one that caches the fewest wins: the paper's rule 1
//! (ties bypass; Jia et al. measured it on Fermi) and what the simulator
//! shows (issue 19 fact 13, bytes are not time). A cached miss there fills a
//! whole 128-byte line and holds it reserved until the fill returns; the
//! bytes count the fill but not that time. On GPGPU-Sim's GTX480 config,
//! `spmv_csr` and `spmv_grape` took 1.1 % and 3.4 % more cycles with their
//! row pointers cached than with every load bypassed, which the caching
//! saved under 0.1 % of the bytes for (`bench/sim/disagreements.md`, fifth
//! session). A tie is decided on which bytes cost
//! less time, not on the order the candidates were listed in.
//!
//! What this file does not do: build scenarios (`model::scenarios` knows the
//! hardware and the launch) or search (`kernel_model`). Pure: traces,
//! configurations and candidates in; bytes and a choice out.

use crate::decide::kernel_model::SearchLimit;
use crate::model::l1sim::{L1Config, L1Error, Requests, L1};
use crate::model::trace::Trace;

/// Two worst-case regrets within this fraction of each other are a tie.
pub const NEAR: f64 = 0.01;

/// One open question about the hardware, answered one way.
#[derive(Clone, Debug, PartialEq)]
pub enum Assumption {
    /// The model's own answers: greedy-then-oldest warp order, the smallest
    /// carveout that holds the blocks' shared memory at its nominal size,
    /// no_allocate loads hit present sectors, stores do not allocate, the
    /// set index the hardware table gives.
    Nominal,
    /// Warps interleave loose round-robin (GPGPU-Sim's `lrr`).
    RoundRobin,
    /// The driver picks the next larger carveout: L1 has `l1_bytes`.
    LargerCarveout { l1_bytes: u32 },
    /// L1 holds less than nominal: MT4G measured effective L1 sizes 4–10 %
    /// below NVIDIA's figures; `l1_bytes` is 8 % below, or less where a
    /// probe of the real part found a larger shortfall
    /// (`Measured::l1_shortfall_bytes`).
    EffectiveL1 { l1_bytes: u32 },
    /// `.L1::no_allocate` loads do not hit lines other loads allocated (the
    /// PTX ISA only says "do not allocate"; GPGPU-Sim treats them as `.cg`).
    NoAllocateMisses,
    /// Stores allocate in L1 (Accel-Sim's write-policy microbenchmark on
    /// Volta–Ampere; its own tested config says no-allocate).
    StoresAllocate,
    /// `sets` sets with a linear index (line number mod sets), Accel-Sim's
    /// microbenchmark figure for Volta, instead of full associativity.
    Sets { sets: u32 },
    /// Data-dependent gathers read near their own thread's index, as on a
    /// well-ordered mesh (`model::gathers`), instead of sharing nothing.
    GathersLocal,
    /// The kernel runs with another host launch's argument values (the
    /// launch at `line`), where launches pass different constants: the
    /// nominal trace has the first launch's.
    Launch { line: u32 },
    /// Runs from unknown per-lane starts (`j = row_ptr[r]`) are stored one
    /// after another in thread order, as CSR rows are
    /// (`model::packed_starts`), instead of sharing nothing.
    StartsPacked,
}

impl Assumption {
    /// The scenario's name in the report.
    pub fn name(&self) -> String {
        match self {
            Assumption::Nominal => "nominal".into(),
            Assumption::RoundRobin => "round-robin warp order".into(),
            Assumption::LargerCarveout { l1_bytes } => {
                format!("next larger carveout (L1 {l1_bytes} B)")
            }
            Assumption::EffectiveL1 { l1_bytes } => {
                format!("effective L1 below nominal ({l1_bytes} B)")
            }
            Assumption::NoAllocateMisses => "no_allocate loads do not hit".into(),
            Assumption::StoresAllocate => "stores allocate in L1".into(),
            Assumption::Sets { sets } => format!("{sets} sets, linear index"),
            Assumption::GathersLocal => "gathers read near their thread's index".into(),
            Assumption::Launch { line } => format!("the host launch at line {line}"),
            Assumption::StartsPacked => "runs from loaded starts stored one after another".into(),
        }
    }
}

/// One scenario: a trace (its warp order) and an L1 that answers the
/// open questions one way.
pub struct Scenario<'t> {
    pub assumption: Assumption,
    pub trace: &'t Trace,
    pub config: L1Config,
}

/// An assignment to weigh: per trace instruction, whether it allocates in
/// L1 (meaningful for decided loads; the others are the same in every
/// candidate).
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Where it comes from, for the report: `search (nominal)`, `cache-all`...
    pub origin: String,
    pub cached: Vec<bool>,
}

/// The weighing.
#[derive(Clone, Debug)]
pub struct Weighed {
    /// Index of the chosen candidate.
    pub chosen: usize,
    /// `bytes[c][s]`: candidate `c`'s L2→L1 bytes in scenario `s`; a
    /// candidate the limit cut has fewer entries (see `complete`).
    pub bytes: Vec<Vec<u64>>,
    /// Whether candidate `c` was simulated in every scenario.
    pub complete: Vec<bool>,
    /// Per scenario, the least bytes of any candidate.
    pub best: Vec<u64>,
    /// The chosen candidate's largest regret, and in which scenario.
    pub worst: f64,
    pub worst_scenario: usize,
    pub simulations: u32,
    pub simulated_accesses: u64,
}

impl Weighed {
    /// Candidate `c`'s regret in scenario `s` (infinite where the limit
    /// left it unsimulated).
    pub fn regret(&self, c: usize, s: usize) -> f64 {
        self.bytes[c]
            .get(s)
            .map_or(f64::INFINITY, |&b| ratio(b, self.best[s]))
    }

    /// The candidate with the fewest bytes in scenario `s` (the first on a
    /// tie, which is the earliest search result).
    pub fn best_in(&self, s: usize) -> usize {
        (0..self.bytes.len())
            .filter(|&c| self.complete[c])
            .min_by_key(|&c| self.bytes[c][s])
            .unwrap_or(0)
    }
}

/// `bytes` over `best`, 1.0 when both are zero.
pub fn ratio(bytes: u64, best: u64) -> f64 {
    if best == 0 {
        if bytes == 0 {
            1.0
        } else {
            f64::INFINITY
        }
    } else {
        bytes as f64 / best as f64
    }
}

/// Simulates every candidate in every scenario and picks the one with the
/// least worst-case regret (near-ties as the module doc says). Candidates
/// that are equal are simulated once. Stops adding simulations past
/// `limit`; a candidate it could not simulate in every scenario is not
/// chosen (the first candidate always is simulated).
pub fn weigh(
    candidates: &[Candidate],
    scenarios: &[Scenario],
    prefer_cache: bool,
    limit: SearchLimit,
) -> Result<Weighed, L1Error> {
    let mut candidates = candidates.to_vec();
    weigh_and_descend(&mut candidates, scenarios, prefer_cache, limit, &[])
}

/// Assignments the regret descent tries at most, over all its passes.
pub const MAX_DESCENT_TRIES: usize = 48;

/// Passes of the regret descent over the groups at most.
pub const MAX_DESCENT_PASSES: u32 = 2;

/// [`weigh`], then, where the chosen candidate's worst-case regret is
/// above a near-tie, a descent on that regret itself: flip one group of
/// loads at a time (`groups`: trace instruction indices that move together,
/// the copies clang made of one source load by unrolling), simulate the
/// flip in every scenario, and keep it when it lowers the worst-case regret
/// by more than a near-tie. Every assignment the descent simulates joins
/// `candidates` (origin `regret descent`), so the best of each scenario is
/// still taken over what the model found, and the choice among them follows
/// the same rule as the weighing's.
///
/// Why: each scenario's own search minimises that scenario's bytes, so an
/// assignment that is second best everywhere and never far off (`val[j]`,
/// `col[j]` of a CSR row loop cached: a small cost if rows are as long as
/// the walk's guess, a large saving if they are as short as a mesh's) is
/// found by none of them (issue 19 fact 12; `bench/sim/disagreements.md`,
/// sixth session).
pub fn weigh_and_descend(
    candidates: &mut Vec<Candidate>,
    scenarios: &[Scenario],
    prefer_cache: bool,
    limit: SearchLimit,
    groups: &[Vec<usize>],
) -> Result<Weighed, L1Error> {
    let mut simulations = 0u32;
    let mut simulated_accesses = 0u64;
    let mut bytes: Vec<Vec<u64>> = vec![Vec::new(); candidates.len()];
    let mut runs = Vec::with_capacity(scenarios.len());
    // Weighed in this order, so that where the budget runs out the global
    // switches (every load cached, none) have been weighed in every
    // scenario after the first candidate: they are the baseline a choice
    // must not lose to (`particles_aos` on the GTX480 description: the
    // budget ran out before cache-all, the best under one scenario, was
    // weighed in the others). The order decides nothing else: `choose`
    // reads the candidates in their own order.
    let switch = |c: &Candidate| c.cached.iter().all(|&x| x) || !c.cached.iter().any(|&x| x);
    let order: Vec<usize> = std::iter::once(0)
        .chain((1..candidates.len()).filter(|&c| switch(&candidates[c])))
        .chain((1..candidates.len()).filter(|&c| !switch(&candidates[c])))
        .collect();
    for (s, sc) in scenarios.iter().enumerate() {
        let mut l1 = L1::new(sc.config)?;
        let requests: Requests = l1.requests(sc.trace)?;
        for &c in &order {
            let cand = &candidates[c];
            if bytes[c].len() != s {
                continue;
            }
            if let Some(same) = (0..candidates.len())
                .find(|&d| d != c && bytes[d].len() > s && candidates[d].cached == cand.cached)
            {
                let b = bytes[same][s];
                bytes[c].push(b);
                continue;
            }
            let over = simulated_accesses + sc.trace.thread_accesses() > limit.simulated_accesses
                || past(limit);
            if c > 0 && over {
                continue;
            }
            simulations += 1;
            simulated_accesses += sc.trace.thread_accesses();
            let b = l1
                .count_requests(sc.trace, &requests, &cand.cached)?
                .loads
                .l2_bytes;
            bytes[c].push(b);
        }
        // Kept for the descent only: without groups there is none.
        if !groups.is_empty() {
            runs.push((l1, requests));
        }
    }
    let mut w = choose(candidates, bytes, scenarios.len(), prefer_cache);
    w.simulations = simulations;
    w.simulated_accesses = simulated_accesses;
    if groups.is_empty() || w.worst <= 1.0 + NEAR {
        return Ok(w);
    }
    // One try costs a replay of every scenario's trace.
    let per_try: u64 = scenarios.iter().map(|s| s.trace.thread_accesses()).sum();
    let mut current = w.chosen;
    let mut tries = 0usize;
    'passes: for _ in 0..MAX_DESCENT_PASSES {
        let mut improved = false;
        for group in groups {
            let Some(&first) = group.first() else {
                continue;
            };
            let mut flipped = candidates[current].cached.clone();
            for &i in group {
                flipped[i] = !candidates[current].cached[first];
            }
            if candidates.iter().any(|c| c.cached == flipped) {
                continue;
            }
            if tries >= MAX_DESCENT_TRIES
                || w.simulated_accesses + per_try > limit.simulated_accesses
                || past(limit)
            {
                break 'passes;
            }
            tries += 1;
            let mut figures = Vec::with_capacity(scenarios.len());
            for (sc, (l1, requests)) in scenarios.iter().zip(runs.iter_mut()) {
                figures.push(
                    l1.count_requests(sc.trace, requests, &flipped)?
                        .loads
                        .l2_bytes,
                );
            }
            w.simulations += scenarios.len() as u32;
            w.simulated_accesses += per_try;
            candidates.push(Candidate {
                origin: "regret descent".into(),
                cached: flipped,
            });
            let mut all = std::mem::take(&mut w.bytes);
            all.push(figures);
            let (simulations, accesses) = (w.simulations, w.simulated_accesses);
            w = choose(candidates, all, scenarios.len(), prefer_cache);
            w.simulations = simulations;
            w.simulated_accesses = accesses;
            // Both against the best now known, which the flip may have
            // lowered.
            let flip = candidates.len() - 1;
            let regret = |c: usize| worst_regret(&w.bytes[c], &w.best).0;
            if regret(flip) < regret(current) * (1.0 - NEAR) {
                current = flip;
                improved = true;
            }
        }
        if !improved {
            break;
        }
    }
    Ok(w)
}

/// Whether the limit's deadline has passed.
fn past(limit: SearchLimit) -> bool {
    limit
        .deadline
        .is_some_and(|d| std::time::Instant::now() >= d)
}

/// The largest regret of one candidate's figures against the scenarios'
/// best, and in which scenario (the first on a tie).
fn worst_regret(bytes: &[u64], best: &[u64]) -> (f64, usize) {
    (0..best.len())
        .map(|s| (ratio(bytes[s], best[s]), s))
        .fold((1.0, 0), |a, b| if b.0 > a.0 { b } else { a })
}

/// The choice over simulated candidates: per scenario the least bytes of a
/// complete candidate, then the least worst-case regret, near-ties as the
/// module doc says.
fn choose(
    candidates: &[Candidate],
    bytes: Vec<Vec<u64>>,
    scenarios: usize,
    prefer_cache: bool,
) -> Weighed {
    let complete: Vec<bool> = bytes.iter().map(|b| b.len() == scenarios).collect();
    let best: Vec<u64> = (0..scenarios)
        .map(|s| {
            (0..candidates.len())
                .filter(|&c| complete[c])
                .map(|c| bytes[c][s])
                .min()
                .unwrap_or(0)
        })
        .collect();
    let worst_of = |c: usize| worst_regret(&bytes[c], &best);
    let least = (0..candidates.len())
        .filter(|&c| complete[c])
        .map(|c| worst_of(c).0)
        .fold(f64::INFINITY, f64::min);
    let near: Vec<usize> = (0..candidates.len())
        .filter(|&c| complete[c] && worst_of(c).0 <= least * (1.0 + NEAR))
        .collect();
    // The most caching (sector fill) or the least (line fill); among
    // those, the least regret; then the first.
    let preferred = |c: usize| {
        let cached = candidates[c].cached.iter().filter(|&&x| x).count() as i64;
        if prefer_cache {
            cached
        } else {
            -cached
        }
    };
    let chosen = *near
        .iter()
        .max_by(|&&a, &&b| {
            preferred(a)
                .cmp(&preferred(b))
                .then(worst_of(b).0.total_cmp(&worst_of(a).0))
                .then(b.cmp(&a))
        })
        .unwrap_or(&0);
    let (worst, worst_scenario) = worst_of(chosen);
    Weighed {
        chosen,
        bytes,
        complete,
        best,
        worst,
        worst_scenario,
        simulations: 0,
        simulated_accesses: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::l1sim::{Bypass, L1Config};

    /// One warp, one lane, reading the given addresses with one load
    /// instruction per address list entry (instruction index = position).
    fn trace(reads: &[(u32, u64)], instructions: u32) -> Trace {
        let sites: Vec<String> = (0..instructions).map(|i| format!("1:{i}")).collect();
        Trace::one_lane(&sites, reads)
    }

    #[test]
    fn least_worst_regret_beats_the_nominal_best() {
        // Load 0 reads sector 0 of line 0; load 1 then reads the same
        // sector twice. Sector fill, 32 B per miss, one line of L1.
        // Candidate A caches load 0 only, B caches both.
        // Nominal (no_allocate probes): A = 32 (load 0 misses, load 1 hits
        // twice on what load 0 allocated); B = 32. Best 32.
        // no_allocate misses (skip L1): A = 32 + 2 x 32 = 96; B = 32.
        // Regrets: A max(32/32, 96/32) = 3.0; B 1.0. B is chosen.
        let t = trace(&[(0, 0), (1, 0), (1, 0)], 2);
        let nominal = L1Config::sector_fill(128);
        let skip = L1Config {
            bypass: Bypass::SkipL1,
            ..nominal
        };
        let scenarios = [
            Scenario {
                assumption: Assumption::Nominal,
                trace: &t,
                config: nominal,
            },
            Scenario {
                assumption: Assumption::NoAllocateMisses,
                trace: &t,
                config: skip,
            },
        ];
        let cands = [
            Candidate {
                origin: "A".into(),
                cached: vec![true, false],
            },
            Candidate {
                origin: "B".into(),
                cached: vec![true, true],
            },
        ];
        let w = weigh(&cands, &scenarios, false, SearchLimit::NONE).unwrap();
        assert_eq!(w.bytes, vec![vec![32, 96], vec![32, 32]]);
        assert_eq!(w.best, vec![32, 32]);
        assert_eq!(w.chosen, 1);
        assert_eq!(w.worst, 1.0);
        // A's regret hinges on the no_allocate question.
        assert_eq!(w.regret(0, 1), 3.0);
        assert_eq!(w.best_in(0), 0);
    }

    #[test]
    fn the_descent_finds_what_no_candidate_offered() {
        // Loads 0 and 1, each its own group; one line of L1 (128 B).
        // Candidates: cache both (cc) and bypass both (bb). The descent
        // finds cb (cache 0, bypass 1), which neither is.
        // N, sector fill: 0@0, 1@128, 0@0.
        //   cc: 32 + 32 (evicts line 0) + 32 = 96; bb: 3 x 32 = 96;
        //   cb: 32 (allocates line 0) + 32 (bypassed) + hit = 64.
        // M, sector fill: 0@0, 0@0.
        //   cc: 32 + hit = 32; bb: 64; cb: 32.
        // R, line fill (a miss fills the 128 B line), 1@128 once.
        //   cc: 128; bb: 32 (one sector read around L1); cb: 32.
        // Before the descent: best N 96, M 32, R 32; cc's regrets 1, 1, 4
        // (worst 4), bb's 1, 2, 1 (worst 2): bb is chosen, worst 2 > 1.01,
        // so the descent runs. Flipping group [0] gives cb: 64, 32, 32, the
        // new best everywhere, regret 1 (bb's is now 1.5, 2, 1: worst 2),
        // so cb is kept. Then every flip of cb is cc or bb, already known.
        let n = trace(&[(0, 0), (1, 128), (0, 0)], 2);
        let m = trace(&[(0, 0), (0, 0)], 2);
        let r = trace(&[(1, 128)], 2);
        let scenarios = [
            Scenario {
                assumption: Assumption::Nominal,
                trace: &n,
                config: L1Config::sector_fill(128),
            },
            Scenario {
                assumption: Assumption::RoundRobin,
                trace: &m,
                config: L1Config::sector_fill(128),
            },
            Scenario {
                assumption: Assumption::GathersLocal,
                trace: &r,
                config: L1Config::line_fill(128),
            },
        ];
        let mut cands = vec![
            Candidate {
                origin: "cc".into(),
                cached: vec![true, true],
            },
            Candidate {
                origin: "bb".into(),
                cached: vec![false, false],
            },
        ];
        let groups = [vec![0], vec![1]];
        let plain = weigh(&cands, &scenarios, false, SearchLimit::NONE).unwrap();
        assert_eq!(plain.chosen, 1);
        assert_eq!(plain.worst, 2.0);
        let w =
            weigh_and_descend(&mut cands, &scenarios, false, SearchLimit::NONE, &groups).unwrap();
        assert_eq!(cands.len(), 3);
        assert_eq!(cands[2].origin, "regret descent");
        assert_eq!(cands[2].cached, vec![true, false]);
        assert_eq!(
            w.bytes,
            vec![vec![96, 32, 128], vec![96, 64, 32], vec![64, 32, 32]]
        );
        assert_eq!(w.best, vec![64, 32, 32]);
        assert_eq!(w.chosen, 2);
        assert_eq!(w.worst, 1.0);
        // Two plain weighings' simulations (2 x 3) and one flip's (3).
        assert_eq!(w.simulations, 9);
        // With no group, or a limit that leaves no room for a flip, the
        // plain weighing's choice stands.
        let mut again = cands[..2].to_vec();
        let cut = SearchLimit {
            simulated_accesses: plain.simulated_accesses,
            deadline: None,
        };
        let w = weigh_and_descend(&mut again, &scenarios, false, cut, &groups).unwrap();
        assert_eq!((again.len(), w.chosen, w.worst), (2, 1, 2.0));
    }

    #[test]
    fn a_short_budget_weighs_the_global_switches_first() {
        // Two loads, one lane, two reads: every simulation replays 2
        // thread-accesses. Candidates: the nominal search's choice (cache
        // load 0), another search's (cache load 1), and every load cached.
        // A budget of 4 simulated accesses weighs two of them in the one
        // scenario: the first always, then the switch (cache-all), not the
        // second search's, which comes before it in the list.
        let t = trace(&[(0, 0), (1, 128)], 2);
        let scenarios = [Scenario {
            assumption: Assumption::Nominal,
            trace: &t,
            config: L1Config::sector_fill(128),
        }];
        let cands = [
            Candidate {
                origin: "nominal".into(),
                cached: vec![true, false],
            },
            Candidate {
                origin: "another".into(),
                cached: vec![false, true],
            },
            Candidate {
                origin: "cache-all".into(),
                cached: vec![true, true],
            },
        ];
        let short = SearchLimit {
            simulated_accesses: 4,
            deadline: None,
        };
        let w = weigh(&cands, &scenarios, false, short).unwrap();
        assert_eq!(w.complete, vec![true, false, true]);
        assert_eq!(w.simulated_accesses, 4);
        // With room for all, all are weighed, and the choice is read in
        // the candidates' own order.
        let all = weigh(&cands, &scenarios, false, SearchLimit::NONE).unwrap();
        assert_eq!(all.complete, vec![true, true, true]);
    }

    #[test]
    fn near_ties_go_to_bypass_on_line_fill() {
        // Two lanes of one warp read bytes 0 and 32 of one line, twice.
        // Bypassed: 2 sectors x 2 reads = 128 B. Cached: the 128 B line
        // once, then hits = 128 B. A tie under line fill: the candidate
        // caching fewer loads (bypass, listed second) wins.
        let t = trace(&[(0, 0), (0, 32), (0, 0), (0, 32)], 1);
        let cands = [
            Candidate {
                origin: "cache".into(),
                cached: vec![true],
            },
            Candidate {
                origin: "bypass".into(),
                cached: vec![false],
            },
        ];
        let sc = [Scenario {
            assumption: Assumption::Nominal,
            trace: &t,
            config: L1Config::line_fill(1024),
        }];
        let w = weigh(&cands, &sc, false, SearchLimit::NONE).unwrap();
        assert_eq!(w.bytes, vec![vec![128], vec![128]]);
        assert_eq!(w.chosen, 1);
    }

    #[test]
    fn near_ties_go_to_cache_on_sector_fill_only() {
        // One load reading two different sectors once each: caching or
        // not, 2 x 32 = 64 B. A tie: sector fill picks the caching
        // candidate (index 1), line fill the first (index 0).
        let t = trace(&[(0, 0), (0, 32)], 1);
        let cands = [
            Candidate {
                origin: "bypass".into(),
                cached: vec![false],
            },
            Candidate {
                origin: "cache".into(),
                cached: vec![true],
            },
        ];
        let sc = |config| {
            [Scenario {
                assumption: Assumption::Nominal,
                trace: &t,
                config,
            }]
        };
        let sector = weigh(
            &cands,
            &sc(L1Config::sector_fill(1024)),
            true,
            SearchLimit::NONE,
        );
        assert_eq!(sector.unwrap().chosen, 1);
        // Line fill: caching fetches the 128 B line once (128 B) against
        // 2 x 32 = 64 B bypassed, so bypass is simply better.
        let line = weigh(
            &cands,
            &sc(L1Config::line_fill(1024)),
            false,
            SearchLimit::NONE,
        )
        .unwrap();
        assert_eq!(line.bytes, vec![vec![64], vec![128]]);
        assert_eq!(line.chosen, 0);
    }
}
