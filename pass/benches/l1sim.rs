//! L1 simulation cost on synthetic traces (`l1sim`): coalesced, strided and
//! random-gather loads at 1 M, 4 M and 16 M thread-accesses, under two
//! Volta+ configurations (128 KiB, sector fill: fully associative, and
//! Accel-Sim's 4 sets in each of 2 slices) and a Fermi one (48 KiB, line
//! fill, 4 ways). Run with `cargo bench -p gpucc-cache-pass --bench l1sim`;
//! arguments after `--` keep only the cases whose "config pattern size"
//! name contains one of them (`-- gather`, `-- "4 sets"`, `-- "gather 1 M"`).
//!
//! Prints thread-accesses per second, best of three runs of a reused `L1`,
//! for a whole run ([`L1::run`]: coalescing and replay), for a replay of
//! requests coalesced beforehand ([`L1::run_requests`]) and for the same
//! replay without provenance ([`L1::count_requests`], what `auto`'s search
//! repeats),
//! each in wall time and, where Linux reports it, in time on a CPU (which
//! leaves out time other processes held the core on a shared machine); and,
//! to show the cost is linear in accesses, each size's wall cost per access
//! as a ratio to the 1 M trace of the same pattern.

use std::time::{Duration, Instant};

use clock::on_cpu;

use gpucc_cache_pass::model::l1sim::{L1Config, L1};
use gpucc_cache_pass::model::trace::{Event, Instruction, Kind, Trace};

#[path = "common/clock.rs"]
mod clock;

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

/// Best of three wall and on-CPU times of `f`, and what it returned.
fn time<T>(mut f: impl FnMut() -> T) -> (Duration, Option<Duration>, T) {
    let (mut wall, mut cpu) = (Duration::MAX, None::<Duration>);
    let mut out = None;
    for _ in 0..3 {
        let (start, cpu_start) = (Instant::now(), on_cpu());
        let r = f();
        let elapsed = start.elapsed();
        let used = on_cpu().zip(cpu_start).map(|(end, start)| end - start);
        wall = wall.min(elapsed);
        cpu = match (cpu, used) {
            (Some(c), Some(u)) => Some(c.min(u)),
            (c, u) => c.or(u),
        };
        out = Some(r);
    }
    (wall, cpu, out.expect("three runs"))
}

/// Millions of thread-accesses per second.
fn rate(n: u64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64() / 1e6
}

fn main() {
    // Arguments (after `--`): substrings of "config pattern" to run; none
    // runs all. Cargo's own `--bench` flag is ignored.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let volta = L1Config::sector_fill(128 << 10);
    let configs = [
        ("sm_70+ 128 KiB sector fill, fully assoc.", volta),
        (
            "sm_70+ 128 KiB sector fill, 4 sets, 2 slices",
            L1Config { slices: 2, ..volta }
                .with_sets(4)
                .expect("valid L1 configuration"),
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
        let mut header = false;
        for pattern in [Pattern::Coalesced, Pattern::Strided, Pattern::Gather] {
            let name = |accesses: u64| format!("{label} {} {} M", pattern.name(), accesses >> 20);
            let kept = |accesses: &u64| {
                filters.is_empty() || filters.iter().any(|f| name(*accesses).contains(f.as_str()))
            };
            if !sizes.iter().any(kept) {
                continue;
            }
            if !std::mem::replace(&mut header, true) {
                println!(
                    "{label} ({} slices x {} sets x {} ways)",
                    config.slices,
                    l1.sets(),
                    l1.ways()
                );
            }
            let mut base_ns = None;
            for &accesses in &sizes {
                if !kept(&accesses) {
                    continue;
                }
                let trace = build(pattern, accesses);
                let n = trace.thread_accesses();
                let cached = [true, false];
                let (wall, cpu, sim) = time(|| l1.run(&trace, &cached).expect("valid trace"));
                let requests = l1.requests(&trace).expect("valid trace");
                let (replay, replay_cpu, again) =
                    time(|| (l1.run_requests(&trace, &requests, &cached)).expect("valid trace"));
                assert_eq!(sim, again, "a replay of the same requests is the same run");
                let (count, count_cpu, counted) =
                    time(|| (l1.count_requests(&trace, &requests, &cached)).expect("valid trace"));
                assert_eq!(
                    (sim.loads, sim.stores, sim.evictions),
                    (counted.loads, counted.stores, counted.evictions),
                    "counting without provenance counts the same"
                );
                drop(requests);
                let ns = wall.as_secs_f64() * 1e9 / n as f64;
                let base = *base_ns.get_or_insert(ns);
                let on_cpu =
                    |d: Option<Duration>| d.map_or("-".into(), |d| format!("{:.1}", rate(n, d)));
                println!(
                    "  {:<10} {:>3} M: run {:>7.1} ms {:>6.1} M/s (on-CPU {:>6}) \
                     x{:.2} vs 1 M | replay {:>6.1} M/s (on-CPU {:>6}) \
                     | count {:>6.1} M/s (on-CPU {:>6}) | hits {}",
                    pattern.name(),
                    n >> 20,
                    wall.as_secs_f64() * 1e3,
                    rate(n, wall),
                    on_cpu(cpu),
                    ns / base,
                    rate(n, replay),
                    on_cpu(replay_cpu),
                    rate(n, count),
                    on_cpu(count_cpu),
                    sim.loads.hits,
                );
            }
        }
    }
}
