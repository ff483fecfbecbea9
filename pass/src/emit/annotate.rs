//! Writes the analysis into the IR as metadata, so that `opt -S` output,
//! snapshots and later passes see every decision:
//!
//! - `!gpucc.cache` on each decided load: decision, PTX operator, traffic
//!   on/off in bytes, locality and the address pattern;
//! - `!mem.cache_hint !{i32 0, !{!"nvvm.l1_eviction", !"no_allocate"}}`,
//!   the target-independent cache-hint form (design.md §5), on loads that
//!   bypass L1 on sm_70+, where an L1 eviction hint means something; LLVM 19
//!   ignores it, a backend that knows it honours it;
//! - a module record `!gpucc.cache.module` (arch, model, policy, L1 bytes)
//!   and `!gpucc.cache.kernels` (block size per kernel and its source).
//!
//! The only IR this changes is metadata.

use crate::analysis::Analysis;
use crate::decide::policy::Decision;
use crate::llvm::ir::{Metadata, Module};

pub const LOAD_KIND: &str = "gpucc.cache";
pub const HINT_KIND: &str = "mem.cache_hint";
pub const MODULE_RECORD: &str = "gpucc.cache.module";
pub const KERNEL_RECORD: &str = "gpucc.cache.kernels";
/// Named metadata saying that gpucc-cache already ran on the module.
pub const PROCESSED_RECORD: &str = "gpucc.cache.processed";

/// Records that gpucc-cache ran on the module; returns whether it was new.
pub fn mark_processed(module: Module) -> bool {
    if is_processed(module) {
        return false;
    }
    let node = module.md_node(&[module.md_string(env!("CARGO_PKG_VERSION"))]);
    module.add_named_metadata(PROCESSED_RECORD, node);
    true
}

/// Whether an earlier gpucc-cache run already decided this module.
pub fn is_processed(module: Module) -> bool {
    !module.named_metadata(PROCESSED_RECORD).is_empty()
}

fn pairs(m: Module, items: &[(&str, Metadata)]) -> Vec<Metadata> {
    items
        .iter()
        .flat_map(|(k, v)| [m.md_string(k), *v])
        .collect()
}

/// Attaches the metadata; returns whether anything was attached.
pub fn annotate(module: Module, analysis: &Analysis) -> bool {
    let m = module;
    let report = &analysis.report;
    let load_kind = m.md_kind(LOAD_KIND);
    let hint_kind = m.md_kind(HINT_KIND);
    for d in &analysis.decided {
        let l = &report.kernels[d.kernel].loads[d.entry];
        let node = m.md_node(&pairs(
            m,
            &[
                ("decision", m.md_string(&l.decision)),
                ("operator", m.md_string(&l.operator)),
                ("traffic_on", m.md_i64(l.traffic_on_bytes as i64)),
                ("traffic_off", m.md_i64(l.traffic_off_bytes as i64)),
                ("locality", m.md_string(&l.locality_text())),
                ("pattern", m.md_string(&l.pattern)),
            ],
        ));
        d.load.set_metadata(load_kind, node);
        if l.decision == Decision::Bypass.name() && analysis.arch.is_sectored() {
            let hint = m.md_node(&[m.md_string("nvvm.l1_eviction"), m.md_string("no_allocate")]);
            d.load
                .set_metadata(hint_kind, m.md_node(&[m.md_i32(0), hint]));
        }
    }
    if analysis.decided.is_empty() {
        return false;
    }
    let record = m.md_node(&pairs(
        m,
        &[
            ("arch", m.md_string(&report.arch)),
            ("model", m.md_string(&report.model)),
            ("policy", m.md_string(&report.policy)),
            ("l1_bytes", m.md_i64(report.l1_bytes as i64)),
        ],
    ));
    m.add_named_metadata(MODULE_RECORD, record);
    for (k, f) in report.kernels.iter().zip(analysis.kernel_functions.iter()) {
        let [x, y, z] = k.block_dim;
        let node = m.md_node(&[
            m.md_value(*f),
            m.md_string("block"),
            m.md_i32(x as i32),
            m.md_i32(y as i32),
            m.md_i32(z as i32),
            m.md_string("source"),
            m.md_string(&k.block_dim_source),
        ]);
        m.add_named_metadata(KERNEL_RECORD, node);
    }
    true
}
