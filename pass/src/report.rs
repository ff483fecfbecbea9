//! The per-load report: what was decided for each global load, with the
//! evidence. Rendered as a text table (one per kernel) or JSON; the same data
//! goes into `!gpucc.cache` metadata and optimization remarks.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    pub arch: String,
    pub model: String,
    pub policy: String,
    pub l1_bytes: u64,
    /// The main input, from the debug info (the compile unit's file,
    /// spelled as the loads' `file`): the text report writes the file of a
    /// load only when it is another one (a header). `None` without debug
    /// info.
    #[serde(default)]
    pub source: Option<String>,
    /// The machine description the model used (`--machine`); absent: the
    /// arch's table entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineReport>,
    pub kernels: Vec<KernelReport>,
    pub warnings: Vec<String>,
}

/// The machine description a report's model used.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MachineReport {
    pub name: String,
    /// The file as the user named it.
    pub file: String,
    /// SMs: the file's `sms`, else the base part's.
    pub sms: u32,
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
    /// The grid the analysis assumed (kernels whose grid is known), and
    /// where it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_dim: Option<[u32; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_dim_source: Option<String>,
    pub sampled_blocks: u32,
    pub loads: Vec<LoadReport>,
    /// Loads left alone, and why (shared, volatile, ...).
    pub skipped: Vec<SkippedLoad>,
    /// The function's `ld.global` instructions in the final PTX, when the
    /// driver wrote it: every one is a decided or a left-alone load above,
    /// or counted in `unaccounted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx: Option<PtxCount>,
    /// The kernel-level model of one SM (kernels only; issue 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated: Option<Simulated>,
    /// The model's budgets this kernel reached, each with what its decisions
    /// rest on instead (issue 16); empty when none was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub budget: Vec<BudgetHit>,
}

/// One budget of the kernel-level model that a kernel reached.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct BudgetHit {
    /// Which budget: `kernel evaluation steps`, `kernel search`, `module
    /// thread-accesses`, `module evaluation steps`, `module search`, `wall
    /// time`.
    pub budget: String,
    /// Its value (steps, accesses; milliseconds for the wall time).
    pub limit: u64,
    /// What the kernel's decisions rest on instead, in words.
    pub fallback: String,
    /// `paper` when the paper's per-load rules (conservative) decided every
    /// load, `model` when the kernel-level model still did, on less.
    pub decided_by: String,
    /// False only for the wall-time guard: whether it is reached depends on
    /// the machine.
    pub deterministic: bool,
}

/// The kernel-level model's figures for one kernel: bytes from L2 into one
/// SM's L1 over the simulated part of the kernel, per policy.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct Simulated {
    /// Always "sm": one SM with its co-resident blocks.
    pub scope: String,
    pub blocks: u32,
    pub l1_bytes: u64,
    pub traffic_bytes: PolicyTraffic,
    /// Occupancy, carveout and what was estimated.
    pub occupancy: String,
    /// Thread-level accesses simulated; `truncated` says what cut them.
    pub thread_accesses: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
    /// What the model's run cost, in the units of its budgets.
    #[serde(default)]
    pub cost: ModelCost,
    /// How `auto`'s choice fares under each scenario of what the hardware
    /// may do (issue 19); absent unless `auto` chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robust: Option<Robustness>,
    /// The device functions the trace follows into at their call sites
    /// (issue 19), as the report names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub followed_calls: Vec<String>,
    /// The whole launch's L2->L1 bytes per policy, from the first wave of
    /// blocks of several SMs (`model::launch_estimate`); absent where the grid is
    /// not known, the machine has one SM, or the trace or a budget was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<LaunchTraffic>,
    /// The host launches whose arguments or grid differ from the first's,
    /// each walked as a scenario under `auto`: its L2->L1 bytes per policy
    /// on one SM's blocks of its own grid (`analysis::launch`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_launches: Vec<OtherLaunch>,
}

/// Another host launch of the kernel, as the model walked it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct OtherLaunch {
    /// The launch's source line.
    pub line: u32,
    /// Its grid, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_dim: Option<[u32; 3]>,
    /// Its block, where it differs from the kernel's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_dim: Option<[u32; 3]>,
    /// Blocks of the walk (SM 0's co-resident blocks of that grid).
    pub blocks: u32,
    pub traffic_bytes: PolicyTraffic,
}

/// The launch estimate: the traffic of the blocks every SM holds at once,
/// scaled to the grid by blocks.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct LaunchTraffic {
    /// SMs whose blocks were simulated: every SM that gets blocks.
    pub sms: u32,
    /// Blocks simulated over those SMs, and blocks in the grid.
    pub blocks: u64,
    pub grid_blocks: u64,
    pub traffic_bytes: PolicyTraffic,
}

/// `auto`'s choice weighed over the scenarios (`decide::robust`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct Robustness {
    /// Which candidate was chosen (`search (nominal)`, `cache-all`, ...).
    pub chosen: String,
    /// Its largest ratio to the best candidate of a scenario, and where.
    pub worst_ratio: f64,
    pub worst_scenario: String,
    /// Scenarios under which another candidate would be better by more
    /// than the tie margin: the assumptions the decision hinges on.
    pub hinges_on: Vec<String>,
    pub scenarios: Vec<ScenarioFigure>,
    /// Open questions a probe on the real part answered, so no scenario
    /// asks them: the part first, then each answer (`Hardware::measured`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured: Vec<String>,
    /// Row-offset parameters no `--kernel-data` bound, read as rows of
    /// `facts::memory::ROW_GUESS` elements: the choice hinges on that
    /// guess as well (issue 19 fact 12).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guessed_rows: Vec<String>,
    /// Kernel parameters read as tables (`model::gathers::gathers_in_tables`),
    /// with the bytes every warp reads: unknown indices into them were
    /// taken to stay within those bytes, an assumption the choice rests on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<String>,
}

/// One scenario's figures.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct ScenarioFigure {
    pub name: String,
    /// The chosen assignment's L2->L1 bytes in it.
    pub l2_bytes: u64,
    /// The fewest bytes any candidate reaches in it, and which one.
    pub best_bytes: u64,
    pub best: String,
    pub ratio: f64,
}

/// The work of one kernel's model, in the units its budgets count.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct ModelCost {
    /// Expression nodes evaluated for one lane each, in the walk.
    pub evaluation_steps: u64,
    /// L1 simulations of `auto`'s search (each replays the whole trace).
    pub simulations: u32,
    /// Thread-accesses replayed over all of them.
    pub simulated_accesses: u64,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct PolicyTraffic {
    pub auto: u64,
    pub cache_all: u64,
    pub cache_none: u64,
    pub conservative: u64,
    pub aggressive: u64,
    /// The decisions this build emits (the policy's, `auto`'s, forced
    /// ones; plain loads as the machine treats them by default).
    #[serde(default)]
    pub decided: u64,
}

/// A load in the kernel-level model.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
pub struct LoadModel {
    /// The paper's verdicts (conservative, aggressive) and the model's.
    pub paper: [String; 2],
    pub model: String,
    /// Under the model's choices: sectors requested, sector hits, bytes
    /// from L2.
    pub sectors: u64,
    pub hits: u64,
    pub l2_bytes: u64,
    /// Where its hits come from, most first.
    pub hits_from: Vec<String>,
    /// Bytes of the range its data-dependent addresses were spread over,
    /// when every one was bounded (`Trace::bounded`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unknown_within: Option<u64>,
    /// That range is the allocation the host launch gives the load's
    /// pointer parameter (`Launch::extents`): an access outside it would be
    /// undefined.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_allocation: bool,
    /// Scenarios under which the best assignment found decides this load
    /// the other way (`auto` only; issue 19).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hinges_on: Vec<String>,
    /// `auto` bypassed it because no other access of the trace reads its
    /// lines (`model::read_once`): caching it could not hit in any scenario.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_once: bool,
    /// The site of the load whose vector access the backend merges this one
    /// into (`model::vector_loads`): its figures are counted there, and it
    /// takes that load's decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_into: Option<String>,
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
    /// Its figures in the kernel-level model (absent: no model ran, or no
    /// warp executed it in the simulated part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_kernel: Option<LoadModel>,
    pub line: u32,
    pub column: u32,
    /// The file of its debug location's scope: its directory and name as
    /// the debug info gives them, joined (`None`: no debug location). `line`
    /// 0 with a file: the debug info gives no line (LLVM merged instructions
    /// from several lines).
    #[serde(default)]
    pub file: Option<String>,
    /// The call sites it was inlined through, innermost first; the last is
    /// in the function this entry belongs to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inlined_at: Vec<Position>,
    /// Its source site in this function: entries (in `loads` and `skipped`)
    /// with the same file, line, column and inlining chain share it, as the
    /// unroller's copies of one source load or the fields of one struct or
    /// vector read do. Numbered from 0 in order of first appearance; an
    /// entry without a line has a site of its own.
    #[serde(default)]
    pub site: u32,
    /// How many entries of this function (in `loads` and `skipped`) share
    /// its site, itself included.
    #[serde(default = "one")]
    pub copies: u32,
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
    /// The file of its debug location's scope: its directory and name as
    /// the debug info gives them, joined (`None`: no debug location). `line`
    /// 0 with a file: the debug info gives no line (LLVM merged instructions
    /// from several lines).
    #[serde(default)]
    pub file: Option<String>,
    /// The call sites it was inlined through, innermost first; the last is
    /// in the function this entry belongs to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inlined_at: Vec<Position>,
    /// Its source site in this function: entries (in `loads` and `skipped`)
    /// with the same file, line, column and inlining chain share it, as the
    /// unroller's copies of one source load or the fields of one struct or
    /// vector read do. Numbered from 0 in order of first appearance; an
    /// entry without a line has a site of its own.
    #[serde(default)]
    pub site: u32,
    /// How many entries of this function (in `loads` and `skipped`) share
    /// its site, itself included.
    #[serde(default = "one")]
    pub copies: u32,
    pub why: String,
    /// A copy the backend expands into a byte loop: its `ld.global.u8` lose
    /// the key, and the PTX accounting gives them back to this entry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub byte_loop: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<u32>,
    /// How many `ld.global` of the final PTX it became (the driver counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx_loads: Option<u32>,
}

/// A position in the source, as the debug info names it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct Position {
    pub file: Option<String>,
    pub line: u32,
    pub column: u32,
}

impl From<crate::llvm::ir::SourcePosition> for Position {
    fn from(p: crate::llvm::ir::SourcePosition) -> Position {
        Position {
            file: p.file,
            line: p.line,
            column: p.column,
        }
    }
}

fn one() -> u32 {
    1
}

/// Where an entry is: (file, line, column, inlining chain).
type SiteKey<'a> = (Option<&'a str>, u32, u32, &'a [Position]);

/// Where a load or a left-alone load comes from, for grouping and printing.
trait Located {
    fn key(&self) -> SiteKey<'_>;
    fn site(&self) -> u32;
    fn set_site(&mut self, site: u32, copies: u32);
}

macro_rules! located {
    ($t:ty) => {
        impl Located for $t {
            fn key(&self) -> SiteKey<'_> {
                (
                    self.file.as_deref(),
                    self.line,
                    self.column,
                    &self.inlined_at,
                )
            }
            fn site(&self) -> u32 {
                self.site
            }
            fn set_site(&mut self, site: u32, copies: u32) {
                self.site = site;
                self.copies = copies;
            }
        }
    };
}
located!(LoadReport);
located!(SkippedLoad);

impl LoadReport {
    /// Its locality as the metadata, the report and the remarks spell it.
    pub fn locality_text(&self) -> String {
        crate::spelling::locality(self.analyzable, &self.locality)
    }
}

impl KernelReport {
    /// Numbers the source sites of the function's entries (`site`,
    /// `copies`): entries with the same file, line, column and inlining
    /// chain share one; an entry without a line has one of its own.
    pub fn number_sites(&mut self) {
        let mut sites: HashMap<(Option<String>, u32, u32, Vec<Position>), u32> = HashMap::new();
        let mut assigned: Vec<u32> = Vec::new();
        let mut next = 0u32;
        let keys = self
            .loads
            .iter()
            .map(Located::key)
            .chain(self.skipped.iter().map(Located::key));
        for (file, line, column, inlined) in keys {
            let site = if line == 0 {
                next += 1;
                next - 1
            } else {
                let key = (file.map(String::from), line, column, inlined.to_vec());
                *sites.entry(key).or_insert_with(|| {
                    next += 1;
                    next - 1
                })
            };
            assigned.push(site);
        }
        let mut copies: HashMap<u32, u32> = HashMap::new();
        for s in &assigned {
            *copies.entry(*s).or_default() += 1;
        }
        let entries = self
            .loads
            .iter_mut()
            .map(|l| l as &mut dyn Located)
            .chain(self.skipped.iter_mut().map(|l| l as &mut dyn Located));
        for (e, s) in entries.zip(assigned) {
            e.set_site(s, copies[&s]);
        }
    }
}

mod text;
