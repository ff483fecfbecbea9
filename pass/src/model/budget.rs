//! The kernel-level model's budgets (issue 16), what one module's kernels
//! may spend in turn.
//!
//! The model's work is bounded per kernel and per
//! module ([`ModelBudget`]), in deterministic units: thread-accesses walked,
//! evaluation steps (one expression node for one lane) and thread-accesses
//! replayed by `auto`'s simulations; and, as a last resort far above the
//! normal cost, by wall time per module. What happens at each, in order:
//! 1. the walk's own budgets (`walk::DEFAULT_BUDGET`: iterations per loop
//!    entry, thread-accesses, block entries) cut the trace: the model decides
//!    on the simulated part (`simulated.truncated`, as before);
//! 2. the kernel's evaluation-step budget, or what is left of the module's
//!    thread-accesses or evaluation steps, cuts the trace earlier: the model
//!    decides on fewer sampled threads;
//! 3. the kernel's or module's search budget stops `auto`'s search: it keeps
//!    the best choice found so far (never above cache-all, cache-none or
//!    conservative, which always run);
//! 4. a module budget spent below [`MIN_GRANT`] thread-accesses, or the wall
//!    time: the model does not run, and the paper's per-load rules
//!    (conservative) decide every load of the kernel.
//!
//! Each is reported per kernel (`KernelReport::budget`), with what the
//! decisions rest on; only the wall-time guard depends on the machine.

use std::time::{Duration, Instant};

use crate::model::walk::DEFAULT_BUDGET;
use crate::report::BudgetHit;

/// The model's work in the units its budgets count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Spend {
    /// Thread-accesses walked into the trace.
    pub thread_accesses: u64,
    /// Expression nodes evaluated for one lane each, in the walk.
    pub evaluation_steps: u64,
    /// Thread-accesses replayed by `auto`'s simulations.
    pub simulated_accesses: u64,
}

/// What the model may spend per kernel and per module, and the wall-time
/// guard per module.
#[derive(Clone, Copy, Debug)]
pub struct ModelBudget {
    pub kernel: Spend,
    pub module: Spend,
    pub wall: Duration,
}

/// The default budgets. The largest costs of the 61 testdata `.cu` files
/// (sm_52 and sm_90, before the budgets existed): per kernel 2^19
/// thread-accesses (the walk's own cut), 22.8 M evaluation steps
/// (`matmul_global_tiles.cu`), 5.3 M simulated accesses (`btree_search.cu`);
/// per module 0.86 M thread-accesses, 34.2 M evaluation steps, 5.7 M
/// simulated accesses. Each budget is at least 2.4 times those, so no
/// figure of them changes (the search budgets were raised fourfold when
/// `auto` began weighing scenarios, issue 19: each scenario's search costs
/// about what the nominal one does); the module's bound a file of many heavy kernels
/// (`testdata/stress/hash_loops.cu`) to a fraction of a second.
pub const DEFAULT_MODEL_BUDGET: ModelBudget = ModelBudget {
    kernel: Spend {
        thread_accesses: DEFAULT_BUDGET.accesses,
        evaluation_steps: 1 << 26,
        simulated_accesses: 1 << 26,
    },
    module: Spend {
        thread_accesses: 1 << 21,
        evaluation_steps: 1 << 27,
        simulated_accesses: 1 << 27,
    },
    // A last resort, far above the normal cost (the slowest testdata file's
    // whole model takes well under a second).
    wall: Duration::from_secs(20),
};

/// The fewest thread-accesses worth a model: when less is left of the
/// module's budget, the paper's rules decide the kernel.
pub const MIN_GRANT: u64 = 1 << 12;

/// A module's model budget as its kernels spend it, in analysis order (so
/// that what each kernel gets is the same on every run).
pub struct ModuleBudget {
    budget: ModelBudget,
    spent: Spend,
    deadline: Instant,
}

/// What one kernel may spend: per unit, the smaller of the kernel's budget
/// and what is left of the module's.
#[derive(Clone, Copy, Debug)]
pub struct Grant {
    pub(crate) spend: Spend,
    /// Per unit (accesses, steps, simulated): whether the module's remainder
    /// is the smaller.
    pub(crate) by_module: [bool; 3],
    pub(crate) deadline: Instant,
    pub(crate) budget: ModelBudget,
}

impl ModuleBudget {
    pub fn new(budget: ModelBudget) -> ModuleBudget {
        ModuleBudget {
            budget,
            spent: Spend::default(),
            deadline: Instant::now() + budget.wall,
        }
    }

    /// The next kernel's grant, or why it gets no model.
    pub fn grant(&self) -> Result<Grant, BudgetHit> {
        let (k, m, s) = (self.budget.kernel, self.budget.module, self.spent);
        let left = |limit: u64, spent: u64| limit.saturating_sub(spent);
        let units = [
            (
                k.thread_accesses,
                left(m.thread_accesses, s.thread_accesses),
            ),
            (
                k.evaluation_steps,
                left(m.evaluation_steps, s.evaluation_steps),
            ),
            (
                k.simulated_accesses,
                left(m.simulated_accesses, s.simulated_accesses),
            ),
        ];
        let names = [
            "module thread-accesses",
            "module evaluation steps",
            "module search",
        ];
        let limits = [m.thread_accesses, m.evaluation_steps, m.simulated_accesses];
        for (i, (_, left)) in units.iter().enumerate() {
            if *left < MIN_GRANT {
                return Err(paper_rules(names[i], limits[i], true));
            }
        }
        if Instant::now() >= self.deadline {
            return Err(wall_time(self.budget.wall));
        }
        let [a, e, x] = units.map(|(kernel, left)| kernel.min(left));
        Ok(Grant {
            spend: Spend {
                thread_accesses: a,
                evaluation_steps: e,
                simulated_accesses: x,
            },
            by_module: units.map(|(kernel, left)| left < kernel),
            deadline: self.deadline,
            budget: self.budget,
        })
    }

    pub fn charge(&mut self, cost: Spend) {
        self.spent.thread_accesses += cost.thread_accesses;
        self.spent.evaluation_steps += cost.evaluation_steps;
        self.spent.simulated_accesses += cost.simulated_accesses;
    }
}

/// The hit that sends a kernel to the paper's rules.
pub(crate) fn paper_rules(budget: &str, limit: u64, deterministic: bool) -> BudgetHit {
    BudgetHit {
        budget: budget.into(),
        limit,
        fallback: "the paper's per-load rules (conservative; a tie or an unknown address on an \
                   L1-by-default sector-fill part is left at the default); no kernel-level model"
            .into(),
        decided_by: "paper".into(),
        deterministic,
    }
}

pub(crate) fn wall_time(wall: Duration) -> BudgetHit {
    paper_rules("wall time", wall.as_millis() as u64, false)
}
