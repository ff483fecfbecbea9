//! The launch's L2->L1 bytes per policy, from the first wave of blocks of
//! every SM that gets blocks (issue 19; see [`launch_estimate`]): the
//! prediction the report and the simulator harness compare, which decides
//! nothing.

use std::time::Instant;

use crate::decide::kernel_model::{l2_bytes_of, verdict_choice, Verdicts};
use crate::facts::geometry::Dim3;
use crate::gpu::generation::CacheOp;
use crate::gpu::hardware::Hardware;
use crate::gpu::occupancy::occupancy;
use crate::model::kernel_trace::{resident_blocks_on, KernelProgram};
use crate::model::l1_config::l1_config;
use crate::model::l1sim::{L1Config, L1Error};
use crate::model::trace::Trace;
use crate::model::walk::{walk_limited, Budget, Launch, Limits, Walked};
use crate::report::{LaunchTraffic, OtherLaunch, PolicyTraffic};

/// What [`launch_estimate`] needs.
pub(crate) struct LaunchEstimate<'a> {
    pub(crate) program: &'a KernelProgram,
    pub(crate) launch: &'a Launch,
    /// SM 0's trace (the nominal one) and its figures.
    pub(crate) sm0: &'a Trace,
    pub(crate) sm0_bytes: PolicyTraffic,
    /// `auto`'s choice and the build's, then the paper's verdicts.
    pub(crate) choices: [&'a [bool]; 2],
    pub(crate) verdicts: [&'a Verdicts; 2],
    pub(crate) config: L1Config,
    pub(crate) usable: bool,
    pub(crate) sms: u32,
    pub(crate) blocks_per_sm: u32,
    pub(crate) grid: Option<Dim3>,
    /// Whether SM 0's walk covered the whole of its blocks' work.
    pub(crate) complete: bool,
    /// Evaluation steps SM 0's walk took, and the budget it walked in.
    pub(crate) nominal_cost: u64,
    pub(crate) budget: Budget,
    pub(crate) deadline: Instant,
    /// What makes a walk's trace as the nominal one is made (rows
    /// packed, tables drawn in).
    pub(crate) prepare: &'a dyn Fn(Walked) -> Trace,
}

/// Evaluation steps the launch estimate may take, over every SM it walks
/// besides SM 0, at SM 0's cost each: about a tenth of a second of walking.
const LAUNCH_EVALUATIONS: u64 = 1 << 24;

/// Simulated thread-accesses the launch estimate may replay, at SM 0's
/// count per SM and assignment (`matmul_global` on the GTX480 description:
/// 8.3 M).
const LAUNCH_SIMULATED: u64 = 1 << 23;

/// The launch's L2->L1 bytes per policy. One SM's blocks are not the
/// grid's: where the grid has edges (a stencil's border blocks read fewer
/// lines) SM 0 holds its own share of them, and its figure times the
/// number of SMs can be off by a quarter (`testdata/sim/stencil3d.cu` on
/// GPGPU-Sim's GTX480: SM 0's blocks predicted 0.765x the launch's bytes,
/// the fifteen SMs' together 0.979x). So the first wave of blocks of every
/// SM that gets blocks is walked and simulated, as SM 0's is, and their
/// bytes scaled to the grid by blocks. All SMs or none: per-SM figures
/// vary by 2x there, so a sample of a few SMs is no better an estimate
/// than SM 0's (four evenly spaced SMs of the fifteen: 0.730x). None where
/// that would cost more than [`LAUNCH_EVALUATIONS`] or
/// [`LAUNCH_SIMULATED`], where SM 0's trace was cut (its figure covers
/// part of the kernel), the grid is unknown, or another SM's walk was cut.
/// Charged to no budget: it decides nothing, and must not change what a
/// later kernel's model may spend.
pub(crate) fn launch_estimate(e: &LaunchEstimate) -> Option<LaunchTraffic> {
    let grid = e.grid?;
    let grid_blocks = grid.count();
    let with_blocks = u64::from(e.sms).min(grid_blocks) as u32;
    if !e.complete || with_blocks < 2 || e.sm0.thread_accesses() == 0 {
        return None;
    }
    let others = with_blocks - 1;
    let n = e.sm0.instructions.len();
    let default = e.config.default_load_allocates;
    let paper = |v: &Verdicts| -> Vec<bool> {
        (0..n)
            .map(|i| v.get(i).copied().flatten().unwrap_or(default) && e.usable)
            .collect()
    };
    let choices = [
        e.choices[0].to_vec(),
        vec![e.usable; n],
        vec![false; n],
        paper(e.verdicts[0]),
        paper(e.verdicts[1]),
        e.choices[1].to_vec(),
    ];
    // Each distinct assignment simulated once per SM.
    let mut distinct: Vec<&Vec<bool>> = Vec::new();
    for c in &choices {
        if !distinct.contains(&c) {
            distinct.push(c);
        }
    }
    let cost = u64::from(others).saturating_mul(e.nominal_cost);
    let simulated =
        (u64::from(others) * distinct.len() as u64).saturating_mul(e.sm0.thread_accesses());
    if cost > LAUNCH_EVALUATIONS || simulated > LAUNCH_SIMULATED {
        return None;
    }
    let s0 = &e.sm0_bytes;
    let mut total = [
        s0.auto,
        s0.cache_all,
        s0.cache_none,
        s0.conservative,
        s0.aggressive,
        s0.decided,
    ];
    let mut blocks = u64::from(e.sm0.blocks);
    let mut evaluations = 0u64;
    for sm in 1..with_blocks {
        let launch = Launch {
            blocks: resident_blocks_on(sm, e.blocks_per_sm, e.sms, e.grid),
            ..e.launch.clone()
        };
        let w = walk_limited(
            &e.program.program,
            e.program.instructions.clone(),
            &launch,
            e.budget,
            Limits {
                evaluations: LAUNCH_EVALUATIONS.saturating_sub(evaluations),
                deadline: Some(e.deadline),
            },
        );
        evaluations += w.evaluations;
        if w.cut.is_some() || w.trace.truncated.is_some() {
            return None;
        }
        let t = (e.prepare)(w);
        let mut figures = Vec::with_capacity(distinct.len());
        for c in &distinct {
            figures.push(l2_bytes_of(&t, e.config, c).ok()?);
        }
        for (sum, c) in total.iter_mut().zip(&choices) {
            *sum += figures[distinct.iter().position(|d| *d == c).unwrap_or(0)];
        }
        blocks += u64::from(t.blocks);
    }
    // A figure past 2^64 bytes (a grid of 2^46 blocks) is no estimate.
    let scale =
        |b: u64| u64::try_from(u128::from(b) * u128::from(grid_blocks) / u128::from(blocks)).ok();
    let scaled: Option<Vec<u64>> = total.iter().map(|&b| scale(b)).collect();
    let [auto, cache_all, cache_none, conservative, aggressive, decided] =
        <[u64; 6]>::try_from(scaled?).ok()?;
    Some(LaunchTraffic {
        sms: with_blocks,
        blocks,
        grid_blocks,
        traffic_bytes: PolicyTraffic {
            auto,
            cache_all,
            cache_none,
            conservative,
            aggressive,
            decided,
        },
    })
}

/// Another host launch walked as a scenario (`sm_model`): its line, grid
/// and block, the L1 its block gets, and its walk's trace.
pub struct OtherTrace {
    pub line: u32,
    pub grid: Option<Dim3>,
    pub block: Dim3,
    pub config: L1Config,
    pub trace: Trace,
}

/// Each other launch's bytes under every policy, on its own walk (one SM's
/// blocks of its grid): what a run of that launch would move. `choices`:
/// `auto`'s and the emitted decisions; `verdicts`: the paper's two.
pub fn other_launch_figures(
    others: &[OtherTrace],
    nominal_block: Dim3,
    [auto, emitted]: [&[bool]; 2],
    [cons, aggr]: [&[Option<bool>]; 2],
    usable: bool,
) -> Result<Vec<OtherLaunch>, L1Error> {
    let mut out = Vec::new();
    for o in others {
        let (config, t, n) = (o.config, &o.trace, o.trace.instructions.len());
        let verdict =
            |v: &[Option<bool>]| verdict_choice(v, n, config.default_load_allocates, usable);
        let bytes = |c: &[bool]| l2_bytes_of(t, config, c);
        out.push(OtherLaunch {
            line: o.line,
            grid_dim: o.grid.map(|g| g.as_array()),
            block_dim: (o.block != nominal_block).then(|| o.block.as_array()),
            blocks: t.blocks,
            traffic_bytes: PolicyTraffic {
                auto: bytes(auto)?,
                cache_all: bytes(&vec![usable; n])?,
                cache_none: bytes(&vec![false; n])?,
                conservative: bytes(&verdict(cons))?,
                aggressive: bytes(&verdict(aggr))?,
                decided: bytes(emitted)?,
            },
        });
    }
    Ok(out)
}

/// The resident blocks per SM and the L1 bytes (whole sets, as
/// `l1_config` cuts them) another launch's `block` gets: its own occupancy
/// and carveout, with the kernel's registers and static shared memory.
pub fn other_block(
    hw: &Hardware,
    bypass: CacheOp,
    block: Dim3,
    (registers, static_shared): (Option<u32>, u64),
) -> Option<(u32, u32)> {
    let threads = u32::try_from(block.count()).ok()?;
    let o = occupancy(hw, threads, registers, static_shared).ok()?;
    let capacity = u32::try_from(o.l1_bytes_per_sm / hw.line_bytes * hw.line_bytes).ok()?;
    Some((
        o.blocks_per_sm,
        l1_config(hw, bypass, capacity).capacity_bytes,
    ))
}
