//! The per-load report: what was decided for each global load, with the
//! evidence. Rendered as a text table (one per kernel) or JSON; the same data
//! goes into `!gpucc.cache` metadata and optimization remarks.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    pub arch: String,
    pub model: String,
    pub policy: String,
    pub l1_bytes: u64,
    pub kernels: Vec<KernelReport>,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct KernelReport {
    /// Demangled where possible.
    pub name: String,
    pub symbol: String,
    /// "kernel" or "device function" (a callee that was not inlined).
    pub kind: String,
    pub block_dim: [u32; 3],
    pub block_dim_source: String,
    pub sampled_blocks: u32,
    pub loads: Vec<LoadReport>,
    /// Loads left alone, and why (shared, volatile, ...).
    pub skipped: Vec<SkippedLoad>,
    /// The function's `ld.global` instructions in the final PTX, when the
    /// driver wrote it: every one is a decided or a left-alone load above,
    /// or counted in `unaccounted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx: Option<PtxCount>,
}

/// Global loads of one function in the final PTX.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct PtxCount {
    pub global_loads: u32,
    /// Of those, generic-address `ld` that a key proves global.
    pub generic: u32,
    /// `ld.global` with no key: made by the backend from nothing the analysis saw.
    pub unaccounted: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LoadReport {
    pub line: u32,
    pub column: u32,
    #[serde(rename = "type")]
    pub ty: String,
    pub bytes: u64,
    pub pattern: String,
    pub guards: Vec<String>,
    pub analyzable: bool,
    pub active_threads: u64,
    pub locality: Vec<String>,
    pub traffic_on_bytes: u64,
    pub traffic_off_bytes: u64,
    pub decision: String,
    pub operator: String,
    pub reason: String,
    /// Rewritten into inline `ld.global.<op>` by the lowering.
    pub lowered: bool,
    pub notes: Vec<String>,
    /// Its key in the debug locations (`keys`), when keys are written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<u32>,
    /// How many `ld.global` of the final PTX it became (the driver counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx_loads: Option<u32>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SkippedLoad {
    pub line: u32,
    pub column: u32,
    pub why: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<u32>,
    /// How many `ld.global` of the final PTX it became (the driver counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx_loads: Option<u32>,
}

fn loc(line: u32, column: u32) -> String {
    if line == 0 {
        "-".into()
    } else {
        format!("{line}:{column}")
    }
}

impl Report {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes") + "\n"
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "gpucc-cache: arch {}, model {}, policy {}, L1 {} B per block",
            self.arch, self.model, self.policy, self.l1_bytes
        );
        for w in &self.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        for k in &self.kernels {
            let [x, y, z] = k.block_dim;
            let _ = writeln!(
                s,
                "\n{} {} (block {x}x{y}x{z}, {}{})",
                k.kind,
                k.name,
                k.block_dim_source,
                if k.sampled_blocks > 1 {
                    format!(", mean of {} blocks", k.sampled_blocks)
                } else {
                    String::new()
                }
            );
            if k.loads.is_empty() {
                let _ = writeln!(s, "  no global loads");
            } else {
                let rows: Vec<[String; 7]> = k
                    .loads
                    .iter()
                    .map(|l| {
                        [
                            loc(l.line, l.column),
                            l.pattern.clone(),
                            if l.locality.is_empty() {
                                if l.analyzable { "none" } else { "unknown" }.to_string()
                            } else {
                                l.locality.join("+")
                            },
                            l.traffic_on_bytes.to_string(),
                            l.traffic_off_bytes.to_string(),
                            l.decision.clone(),
                            l.operator.clone(),
                        ]
                    })
                    .collect();
                let header = [
                    "line", "pattern", "locality", "on B", "off B", "decision", "operator",
                ];
                let mut w = header.map(str::len);
                for r in &rows {
                    for (i, c) in r.iter().enumerate() {
                        w[i] = w[i].max(c.chars().count());
                    }
                }
                let line = |cells: &[String]| {
                    let mut out = String::from(" ");
                    for (i, c) in cells.iter().enumerate() {
                        let pad = w[i] - c.chars().count();
                        if i == 3 || i == 4 {
                            out.push_str(&format!(" {}{}", " ".repeat(pad), c));
                        } else {
                            out.push_str(&format!(" {}{}", c, " ".repeat(pad)));
                        }
                    }
                    out.trim_end().to_string()
                };
                let _ = writeln!(s, "{}", line(&header.map(String::from)));
                for (r, l) in rows.iter().zip(&k.loads) {
                    let _ = writeln!(s, "{}", line(r));
                    let _ = writeln!(s, "      why: {}", l.reason);
                    for n in &l.notes {
                        let _ = writeln!(s, "      note: {n}");
                    }
                }
            }
            for sk in &k.skipped {
                let _ = writeln!(s, "  left alone at {}: {}", loc(sk.line, sk.column), sk.why);
            }
        }
        s
    }
}
