//! Runs the kernel-level model for one analysed kernel (issue 7, design.md
//! §6): hardware model → occupancy → program → whole-SM trace → L1
//! simulation → per-policy figures and `auto`'s choices, as report values.
//!
//! The assumptions, said once: registers per thread are estimated
//! (`occupancy::ESTIMATED_REGISTERS_PER_THREAD`) since the plugin sees no
//! ptxas output; static shared memory is the kernel's `__shared__`
//! variables; the SM runs blocks 0, S, 2S, ... (S SMs of the arch's
//! reference part); the L1 is modelled fully associative (NVIDIA documents
//! no associativity) with `fermi` line fills or `sectored` sector fills as
//! the analysis' model says.

use std::collections::HashMap;
use std::rc::Rc;

use crate::generation::{Arch, Model};
use crate::geometry::Dim3;
use crate::hardware::{GlobalLoads, Hardware};
use crate::ir::Value;
use crate::kernel_model::{model, KernelModel};
use crate::kernel_trace::{kernel_program, resident_blocks, KernelProgram, Scope, TracedLoad};
use crate::l1sim::{L1Config, Provenance};
use crate::memory::Memory;
use crate::occupancy::occupancy;
use crate::policy::Decision;
use crate::report::{LoadModel, PolicyTraffic, Simulated};
use crate::trace::Trace;
use crate::walk::{walk, Launch, DEFAULT_BUDGET};

/// What the model needs of one kernel.
pub struct KernelInputs<'a> {
    pub function: Value,
    pub scope: Scope<'a>,
    pub arch: Arch,
    pub model: Model,
    pub block: Dim3,
    pub grid: Option<Dim3>,
    pub args: HashMap<u32, i64>,
    pub memory: Option<Rc<Memory>>,
    /// Evaluated loads, with the paper's (conservative, aggressive) verdicts.
    pub loads: &'a [(TracedLoad, [Decision; 2])],
    pub static_shared_bytes: u64,
}

/// The model's result, ready for the report.
pub struct SmResult {
    pub simulated: Simulated,
    /// Per report entry: its figures and whether `auto` caches it.
    pub loads: HashMap<usize, (LoadModel, bool)>,
    /// The simulated trace (for the locality curves).
    pub trace: Trace,
}

pub fn simulate(k: &KernelInputs) -> Result<SmResult, String> {
    let hw = Hardware::for_arch(k.arch);
    let threads = u32::try_from(k.block.count()).map_err(|_| "block too large".to_string())?;
    let occ = occupancy(hw, threads, None, k.static_shared_bytes).map_err(|e| e.to_string())?;
    let program = kernel_program(
        k.function,
        &k.loads.iter().map(|l| l.0).collect::<Vec<_>>(),
        &k.scope,
        k.memory.as_ref().map(|m| m.bound()).unwrap_or_default(),
    );
    let launch = Launch {
        block: k.block,
        grid: k.grid,
        blocks: resident_blocks(occ.blocks_per_sm, hw.sm_count(), k.grid),
        args: k.args.clone(),
        memory: k.memory.clone(),
    };
    let trace = walk(
        &program.program,
        program.instructions.clone(),
        &launch,
        DEFAULT_BUDGET,
    );
    let l1_bytes = occ.l1_bytes_per_sm / 128 * 128;
    let capacity = u32::try_from(l1_bytes).map_err(|_| "L1 too large".to_string())?;
    let mut config = match k.model {
        Model::Fermi => L1Config::line_fill(capacity),
        Model::Sectored => L1Config::sector_fill(capacity),
    };
    config.default_load_allocates = hw.global_loads == GlobalLoads::L1ByDefault;
    let verdicts = |p: usize| -> Vec<Option<bool>> {
        let by_entry: HashMap<usize, Decision> =
            k.loads.iter().map(|(l, d)| (l.entry, d[p])).collect();
        (program.entries.iter())
            .map(|e| match e.and_then(|e| by_entry.get(&e)) {
                Some(Decision::Cache) => Some(true),
                Some(Decision::Bypass) => Some(false),
                _ => None,
            })
            .collect()
    };
    let usable = occ.l1_serves_global_loads && hw.global_loads != GlobalLoads::L2Only;
    let m = model(&trace, config, &verdicts(0), &verdicts(1), usable).map_err(|e| e.to_string())?;
    let occupancy_text = format!(
        "{} blocks/SM ({}-limited; {} registers/thread{}), shared carveout {}, L1 {} B per SM",
        occ.blocks_per_sm,
        occ.limit,
        occ.registers_per_thread,
        if occ.registers_estimated {
            " estimated"
        } else {
            ""
        },
        occ.carveout.map_or("fixed".into(), |c| format!("{c} B")),
        l1_bytes
    );
    Ok(SmResult {
        loads: load_models(&program, &trace, &m, k.loads),
        simulated: Simulated {
            scope: "sm".into(),
            blocks: trace.blocks,
            l1_bytes,
            traffic_bytes: PolicyTraffic {
                auto: m.bytes.auto,
                cache_all: m.bytes.cache_all,
                cache_none: m.bytes.cache_none,
                conservative: m.bytes.conservative,
                aggressive: m.bytes.aggressive,
            },
            occupancy: occupancy_text,
            thread_accesses: trace.thread_accesses(),
            truncated: trace.truncated.clone(),
        },
        trace,
    })
}

fn load_models(
    program: &KernelProgram,
    trace: &Trace,
    m: &KernelModel,
    loads: &[(TracedLoad, [Decision; 2])],
) -> HashMap<usize, (LoadModel, bool)> {
    let paper: HashMap<usize, [Decision; 2]> = loads.iter().map(|(l, d)| (l.entry, *d)).collect();
    let mut out = HashMap::new();
    for (i, entry) in program.entries.iter().enumerate() {
        let Some(entry) = *entry else { continue };
        let r = &m.instructions[i];
        if r.counts.sectors == 0 {
            continue;
        }
        let cache = m.auto[i];
        let p = paper.get(&entry).copied().unwrap_or([Decision::Default; 2]);
        out.insert(
            entry,
            (
                LoadModel {
                    paper: p.map(|d| d.name().to_string()),
                    model: if cache { "cache" } else { "bypass" }.into(),
                    sectors: r.counts.sectors,
                    hits: r.counts.hits,
                    l2_bytes: r.counts.l2_bytes,
                    hits_from: hit_sources(&r.from, trace),
                },
                cache,
            ),
        );
    }
    out
}

/// Where a load's hits come from, in words, most first.
fn hit_sources(from: &Provenance, trace: &Trace) -> Vec<String> {
    let mut v: Vec<(u64, String)> = Vec::new();
    if from.same_warp > 0 {
        v.push((
            from.same_warp,
            format!("{} across loop iterations (same warp)", from.same_warp),
        ));
    }
    if from.same_block > 0 {
        v.push((
            from.same_block,
            format!(
                "{} from other warps of the block (same load)",
                from.same_block
            ),
        ));
    }
    if from.other_block > 0 {
        v.push((
            from.other_block,
            format!("{} from other blocks (same load)", from.other_block),
        ));
    }
    for o in &from.other_inst {
        let site = trace
            .instructions
            .get(o.inst as usize)
            .map_or("?", |i| i.site.as_str());
        let blocks = if o.other_block > 0 {
            format!(" ({} of them filled by other blocks)", o.other_block)
        } else {
            String::new()
        };
        v.push((o.hits, format!("{} reuse lines of {site}{blocks}", o.hits)));
    }
    v.sort_by_key(|x| std::cmp::Reverse(x.0));
    v.into_iter().map(|x| x.1).collect()
}
