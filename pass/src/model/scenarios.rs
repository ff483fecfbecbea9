//! The scenarios `auto` weighs for one kernel (issue 19: warp order, L1
//! size, `no_allocate` hits, store allocation, gathers, packed starts,
//! other launches' values) and its choice over them by least worst-case
//! regret (`decide::robust`), with what each decision hinges on.

use crate::decide::kernel_model::{model_within, site_groups, KernelModel, SearchLimit, Verdicts};
use crate::decide::robust::{weigh_and_descend, Assumption, Candidate, Scenario, NEAR};
use crate::gpu::hardware::{DataCache, Hardware};
use crate::gpu::occupancy::Occupancy;
use crate::model::l1_config::Scenario as L1Question;
use crate::model::l1sim::{Fill, L1Config, L1Error};
use crate::model::trace::{Kind, Trace};
use crate::report::{Robustness, ScenarioFigure};

/// The scenarios `auto` weighs (issue 19; `decide::robust`): the nominal
/// L1 and trace, then each open question answered the other way, one at a
/// time. `rr` is the round-robin trace when the walk made one.
pub(crate) fn scenarios<'t>(
    hw: &Hardware,
    occ: &Occupancy,
    config: L1Config,
    trace: &'t Trace,
    rr: Option<&'t Trace>,
    [gathers_local, starts_packed]: [Option<&'t Trace>; 2],
    launches: &'t [(u32, Trace, L1Config)],
) -> Vec<Scenario<'t>> {
    let nominal = Scenario {
        assumption: Assumption::Nominal,
        trace,
        config,
    };
    let mut out = vec![];
    if let Some(rr) = rr {
        out.push(Scenario {
            assumption: Assumption::RoundRobin,
            trace: rr,
            config,
        });
    }
    // Capacities stay whole sets of lines in every L1/TEX unit, as
    // `L1::new` requires.
    let unit = u64::from(config.line_bytes)
        * u64::from(config.ways.unwrap_or(1))
        * u64::from(config.slices.max(1));
    let sized = |bytes: u64| -> Option<u32> {
        let b = bytes / unit * unit;
        (b >= unit && b < u64::from(config.capacity_bytes)).then_some(b as u32)
    };
    if let (DataCache::Unified { bytes, carveouts }, Some(c)) = (hw.data_cache, occ.carveout) {
        // The runtime may pick a larger carveout than the smallest that
        // holds the blocks' shared memory (the carveout is a preference,
        // CUDA Guide "Shared Memory" for 7.x); one step up. A step down
        // would not hold the shared memory: the model's carveout is the
        // smallest that does (`occupancy`).
        if let Some(next) = carveouts.iter().find(|&&x| x > c) {
            if let Some(l1) = sized(bytes.saturating_sub(*next)) {
                out.push(Scenario {
                    assumption: Assumption::LargerCarveout { l1_bytes: l1 },
                    trace,
                    config: L1Config {
                        capacity_bytes: l1,
                        ..config
                    },
                });
            }
        }
    }
    // MT4G measured effective L1 4-10 % below the nominal size; 8 %, or
    // the shortfall a probe of the real part found where that is more (the
    // H200: about 8 KB at 224 KB and at 28 KB of L1).
    let full = u64::from(config.capacity_bytes);
    let shortfall = hw.measured.map_or(0, |m| m.l1_shortfall_bytes);
    if let Some(l1) = sized((full * 92 / 100).min(full.saturating_sub(shortfall))) {
        out.push(Scenario {
            assumption: Assumption::EffectiveL1 { l1_bytes: l1 },
            trace,
            config: L1Config {
                capacity_bytes: l1,
                ..config
            },
        });
    }
    // The L1's own open questions (`l1_config`): the set index, whether
    // no_allocate loads hit, whether stores allocate (only asked when the
    // trace has stores).
    if let Some(local) = gathers_local {
        out.push(Scenario {
            assumption: Assumption::GathersLocal,
            trace: local,
            config,
        });
    }
    // Another launch on its own L1 (another block may get another
    // carveout).
    for (line, t, config) in launches {
        out.push(Scenario {
            assumption: Assumption::Launch { line: *line },
            trace: t,
            config: *config,
        });
    }
    if let Some(packed) = starts_packed {
        out.push(Scenario {
            assumption: Assumption::StartsPacked,
            trace: packed,
            config,
        });
    }
    let stores = (trace.instructions.iter()).any(|i| i.kind == Kind::Store);
    for q in L1Question::for_machine(hw, &config) {
        let assumption = match q {
            L1Question::Nominal => continue,
            L1Question::Sets(sets) => Assumption::Sets { sets },
            L1Question::NoAllocateMisses => Assumption::NoAllocateMisses,
            L1Question::StoresAllocate if stores => Assumption::StoresAllocate,
            L1Question::StoresAllocate => continue,
        };
        if let Ok(c) = q.apply(config) {
            out.push(Scenario {
                assumption,
                trace,
                config: c,
            });
        }
    }
    std::iter::once(nominal).chain(out).collect()
}

/// The open questions the probe answered on the real part (no scenario asks
/// them): the part, then each answer, for the report.
pub(crate) fn measured_answers(hw: &Hardware) -> Vec<String> {
    let Some(m) = hw.measured else {
        return Vec::new();
    };
    let mut out = vec![m.part.to_string()];
    out.push(
        if m.no_allocate_hits {
            "no_allocate loads hit"
        } else {
            "no_allocate loads do not hit"
        }
        .into(),
    );
    if !m.four_linear_sets {
        out.push("no linear 4-set index".into());
    }
    if m.l1_shortfall_bytes > 0 {
        out.push(format!(
            "effective L1 {} B below nominal",
            m.l1_shortfall_bytes
        ));
    }
    out
}

/// `auto`'s choice weighed over the scenarios, for the build and the report.
pub(crate) struct RobustChoice {
    pub(crate) choice: Vec<bool>,
    /// Per trace instruction: the scenarios that would flip it.
    pub(crate) hinges: Vec<Vec<String>>,
    pub(crate) report: Robustness,
    pub(crate) simulations: u32,
    pub(crate) simulated_accesses: u64,
}

/// Searches each scenario (within an equal share of what the nominal
/// search left of `limit`), then weighs those results with the complete
/// choices over every scenario.
pub(crate) fn robust_choice(
    scenarios: &[Scenario],
    nominal: &KernelModel,
    [cons, aggr]: [&Verdicts; 2],
    gathers: &[bool],
    usable: bool,
    limit: SearchLimit,
) -> Result<RobustChoice, L1Error> {
    let n = nominal.auto.len();
    let default = scenarios[0].config.default_load_allocates;
    let choice = |v: &Verdicts| -> Vec<bool> {
        (0..n)
            .map(|i| v.get(i).copied().flatten().unwrap_or(default) && usable)
            .collect()
    };
    let mut candidates = vec![Candidate {
        origin: "search (nominal)".into(),
        cached: nominal.auto.clone(),
    }];
    if (scenarios.iter()).any(|s| s.assumption == Assumption::GathersLocal) {
        let cached: Vec<bool> = (nominal.auto.iter().enumerate())
            .map(|(i, &c)| c || (usable && gathers.get(i).copied().unwrap_or(false)))
            .collect();
        if cached != nominal.auto {
            candidates.push(Candidate {
                origin: "search (nominal), gathers cached".into(),
                cached,
            });
        }
    }
    let mut simulations = 0;
    let mut spent = 0u64;
    let left = limit
        .simulated_accesses
        .saturating_sub(nominal.simulated_accesses);
    // More searches, each within what the nominal one cost and a share of
    // half of what is left (the other half is for weighing): under the
    // round-robin trace, under each smaller L1 (the next carveout, the
    // effective size), under the gather scenario's trace (`model::gathers`:
    // with the nominal choice and its gathers cached, which a byte search
    // under the nominal trace never proposes on line-fill parts), and with
    // every open question about the L1 answered
    // against caching at once (the smallest L1 of any scenario, its set
    // index, no_allocate loads never hitting, stores allocating). The last
    // finds assignments that cache only what fits everywhere, which no
    // single scenario's search needs to; the size searches find how much
    // better than caching everything a smaller L1 can do, without which
    // the regret of caching everything there is understated
    // (`testdata/robust/l1_size.cu`'s `sweep`: 1.33 against 1.92).
    let base = scenarios[0].config;
    let mut pessimistic = L1Config {
        capacity_bytes: (scenarios.iter())
            .map(|s| s.config.capacity_bytes)
            .min()
            .unwrap_or(base.capacity_bytes),
        ..base
    };
    for s in &scenarios[1..] {
        match s.assumption {
            Assumption::NoAllocateMisses => pessimistic.bypass = s.config.bypass,
            Assumption::StoresAllocate => pessimistic.stores = s.config.stores,
            _ => {}
        }
    }
    if let Some(sets) = scenarios.iter().find_map(|s| match s.assumption {
        Assumption::Sets { sets } => Some(sets),
        _ => None,
    }) {
        pessimistic = pessimistic.with_sets(sets).unwrap_or(pessimistic);
    }
    let mut searches: Vec<(String, &Trace, L1Config)> = Vec::new();
    for s in &scenarios[1..] {
        if matches!(
            s.assumption,
            Assumption::RoundRobin
                | Assumption::LargerCarveout { .. }
                | Assumption::EffectiveL1 { .. }
                | Assumption::GathersLocal
                | Assumption::Launch { .. }
                | Assumption::StartsPacked
        ) {
            searches.push((s.assumption.name(), s.trace, s.config));
        }
    }
    if pessimistic != base {
        searches.push((
            "every open question against caching".into(),
            scenarios[0].trace,
            pessimistic,
        ));
    }
    let share = (left / 2 / searches.len().max(5) as u64).min(nominal.simulated_accesses);
    for (name, trace, config) in searches {
        let sub = SearchLimit {
            simulated_accesses: share,
            deadline: limit.deadline,
        };
        let m = model_within(trace, config, [cons, aggr], usable, sub)?;
        simulations += m.simulations;
        spent += m.simulated_accesses;
        candidates.push(Candidate {
            origin: format!("search ({name})"),
            cached: m.auto,
        });
    }
    for (origin, cached) in [
        ("cache-all", vec![usable; n]),
        ("cache-none", vec![false; n]),
        ("conservative", choice(cons)),
        ("aggressive", choice(aggr)),
    ] {
        candidates.push(Candidate {
            origin: origin.into(),
            cached,
        });
    }
    let weigh_limit = SearchLimit {
        simulated_accesses: left.saturating_sub(spent),
        deadline: limit.deadline,
    };
    let prefer_cache = scenarios[0].config.fill == Fill::Sector;
    let groups = if usable {
        source_groups(scenarios)
    } else {
        Vec::new()
    };
    let w = weigh_and_descend(
        &mut candidates,
        scenarios,
        prefer_cache,
        weigh_limit,
        &groups,
    )?;
    let chosen = &candidates[w.chosen];
    let mut hinges = vec![Vec::new(); n];
    let mut hinges_on = Vec::new();
    let figures = (scenarios.iter().enumerate())
        .map(|(s, sc)| {
            let best = w.best_in(s);
            let ratio = w.regret(w.chosen, s);
            if ratio > 1.0 + NEAR {
                hinges_on.push(sc.assumption.name());
                for (i, h) in hinges.iter_mut().enumerate() {
                    if candidates[best].cached[i] != chosen.cached[i] {
                        h.push(sc.assumption.name());
                    }
                }
            }
            ScenarioFigure {
                name: sc.assumption.name(),
                l2_bytes: w.bytes[w.chosen].get(s).copied().unwrap_or(0),
                best_bytes: w.best[s],
                best: candidates[best].origin.clone(),
                ratio,
            }
        })
        .collect();
    Ok(RobustChoice {
        choice: chosen.cached.clone(),
        hinges,
        report: Robustness {
            chosen: chosen.origin.clone(),
            worst_ratio: w.worst,
            worst_scenario: scenarios[w.worst_scenario].assumption.name(),
            hinges_on,
            scenarios: figures,
            measured: Vec::new(),
            guessed_rows: Vec::new(),
            tables: Vec::new(),
        },
        simulations: simulations + w.simulations,
        simulated_accesses: spent + w.simulated_accesses,
    })
}

/// The decided loads some scenario's trace executes, grouped by source
/// site (`line:column`): the copies clang made of one source load by
/// unrolling a loop (a CSR row walk's prologue and its four-fold body)
/// share one, and a decision about the source load is a decision about all
/// of them. A load without a location (line 0) is a group of its own.
pub(crate) fn source_groups(scenarios: &[Scenario]) -> Vec<Vec<usize>> {
    let Some(first) = scenarios.first() else {
        return Vec::new();
    };
    let instructions = &first.trace.instructions;
    let mut executed = vec![false; instructions.len()];
    for s in scenarios {
        for e in &s.trace.events {
            if let Some(x) = executed.get_mut(e.inst as usize) {
                *x = true;
            }
        }
    }
    site_groups(instructions, &executed)
}
