//! L1 simulation cost on synthetic traces (`l1sim`): coalesced, strided and
//! random-gather loads at 1 M, 4 M and 16 M thread-accesses, under a Volta+
//! configuration (128 KiB, sector fill, fully associative) and a Fermi one
//! (48 KiB, line fill, 4 ways). Run with
//! `cargo bench -p gpucc-cache-pass --bench l1sim`.
//!
//! Prints thread-accesses per second (best of three runs of a reused `L1`)
//! and, to show the cost is linear in accesses, each size's cost per access
//! as a ratio to the 1 M trace of the same pattern.

use std::time::{Duration, Instant};

use gpucc_cache_pass::model::l1sim::{L1Config, L1};
use gpucc_cache_pass::model::trace::{Event, Instruction, Kind, Trace};

const BLOCKS: u32 = 4;
const WARPS_PER_BLOCK: u32 = 8;
const LANES: u64 = 32;

#[derive(Clone, Copy)]
enum Pattern {
    /// Lane l reads element e + l (4 B); the second load reads e + l + 1.
    Coalesced,
    /// Lane l reads 4 B every 32 B: 32 sectors in 8 lines per event.
    Strided,
    /// Lane l reads a random 4 B word of 64 MiB; the second load reads the
    /// next word (a struct field), so it can hit the first one's sector.
    Gather,
}

impl Pattern {
    fn name(self) -> &'static str {
        match self {
            Pattern::Coalesced => "coalesced",
            Pattern::Strided => "strided",
            Pattern::Gather => "gather",
        }
    }
}

/// A trace of two loads executed round-robin by every warp of every block
/// until `accesses` thread-accesses are reached.
fn build(pattern: Pattern, accesses: u64) -> Trace {
    let mut t = Trace {
        instructions: (0..2)
            .map(|i| Instruction {
                kind: Kind::Load,
                site: format!("bench:{i}"),
            })
            .collect(),
        blocks: BLOCKS,
        warps_per_block: WARPS_PER_BLOCK,
        ..Trace::default()
    };
    t.addresses.reserve(accesses as usize);
    let warps = u64::from(BLOCKS * WARPS_PER_BLOCK);
    let mut rng = 0x2545_F491_4F6C_DD1D_u64;
    let mut lanes = vec![0u64; LANES as usize];
    let mut gathered = vec![0u64; LANES as usize];
    for i in 0.. {
        for gw in 0..warps {
            for inst in 0..2u32 {
                if t.thread_accesses() >= accesses {
                    return t;
                }
                let element = (i * warps + gw) * LANES;
                for (l, a) in lanes.iter_mut().enumerate() {
                    let l = l as u64;
                    *a = match pattern {
                        Pattern::Coalesced => (element + l + u64::from(inst)) * 4,
                        Pattern::Strided => (element + l) * 32 + u64::from(inst) * 4,
                        Pattern::Gather => {
                            if inst == 0 {
                                rng ^= rng << 13;
                                rng ^= rng >> 7;
                                rng ^= rng << 17;
                                gathered[l as usize] = (rng % (64 << 20)) & !7;
                            }
                            gathered[l as usize] + u64::from(inst) * 4
                        }
                    };
                }
                let event = Event {
                    inst,
                    block: (gw / u64::from(WARPS_PER_BLOCK)) as u32,
                    warp: (gw % u64::from(WARPS_PER_BLOCK)) as u32,
                    execution: i as u32,
                    bytes: 4,
                    start: 0,
                    lanes: 0,
                    unknown: false,
                };
                t.push(event, &lanes);
            }
        }
    }
    t
}

/// Best of three runs.
fn time(l1: &mut L1, trace: &Trace) -> (Duration, u64) {
    let mut best = Duration::MAX;
    let mut hits = 0;
    for _ in 0..3 {
        let start = Instant::now();
        let sim = l1
            .run(trace, &[true, false])
            .expect("valid trace and config");
        best = best.min(start.elapsed());
        hits = sim.loads.hits;
    }
    (best, hits)
}

fn main() {
    let configs = [
        (
            "sm_70+ 128 KiB sector fill, fully assoc.",
            L1Config::sector_fill(128 << 10),
        ),
        (
            "sm_2x 48 KiB line fill, 4 ways",
            L1Config {
                ways: Some(4),
                ..L1Config::line_fill(48 << 10)
            },
        ),
    ];
    let sizes = [1u64 << 20, 4 << 20, 16 << 20];
    for (label, config) in configs {
        let mut l1 = L1::new(config).expect("valid L1 configuration");
        println!("{label} ({} sets x {} ways)", l1.sets(), l1.ways());
        for pattern in [Pattern::Coalesced, Pattern::Strided, Pattern::Gather] {
            let mut base_ns = None;
            for &accesses in &sizes {
                let trace = build(pattern, accesses);
                let n = trace.thread_accesses();
                let (elapsed, hits) = time(&mut l1, &trace);
                let ns = elapsed.as_secs_f64() * 1e9 / n as f64;
                let base = *base_ns.get_or_insert(ns);
                println!(
                    "  {:<10} {:>3} M accesses: {:>8.1} ms  {:>6.1} M accesses/s  \
                     {:>5.2} ns/access  x{:.2} vs 1 M  (sector hits {hits})",
                    pattern.name(),
                    n >> 20,
                    elapsed.as_secs_f64() * 1e3,
                    n as f64 / elapsed.as_secs_f64() / 1e6,
                    ns,
                    ns / base,
                );
            }
        }
    }
}
