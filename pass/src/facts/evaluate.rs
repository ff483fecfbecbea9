//! Per-thread evaluation: turns a load's address expression and the
//! conditions that guard it into, for every thread of a block, either a
//! concrete byte address, "does not execute the load", or "unknown".
//!
//! Integer arithmetic wraps at the IR's bit width (`int.rs`). A guard whose
//! condition can be computed for a thread decides whether that thread
//! executes the load; a guard that cannot be computed leaves the thread
//! active (the paper's assumption). Loop recurrences evaluate at their
//! first iteration.
//!
//! [`eval`] and [`eval_cond`] give one thread's values; `tape`'s `Tape`
//! and `CondTape` give the same values for a group of threads at once, step
//! by step over rows of lanes (the kernel-level walk's hot path), and
//! `specialise` folds what one launch fixes into an expression first.

use std::collections::HashMap;
use std::rc::Rc;

use crate::facts::address::{Cond, Expr, Sreg};
use crate::facts::geometry::Dim3;
use crate::facts::int::{apply_bin, apply_cast, compare, BinOp};
use crate::facts::memory::Memory;

/// The launch values one evaluation sees.
#[derive(Clone, Debug)]
pub struct Env {
    pub tid: [i64; 3],
    pub ctaid: [i64; 3],
    pub ntid: [i64; 3],
    /// `None` when no grid was given: an expression reading it is unknown.
    pub nctaid: Option<[i64; 3]>,
    pub args: HashMap<u32, i64>,
    /// What block-uniform unknowns read as (see [`Standin`]).
    pub standin: Standin,
    /// The trace's per-thread phi variables (`Expr::Rec(n)` reads entry
    /// n; `None`: unknown). Empty in the per-load analysis.
    pub vars: Vec<Option<i64>>,
    /// Kernel data the user bound (`Expr::Data` reads it).
    pub memory: Option<Rc<Memory>>,
}

/// Stand-in values for the block-uniform unknowns of an address (integer
/// arguments not given, values loaded from block-uniform addresses). An
/// address is evaluated twice, at `Low` and at `High`; when the two differ
/// by the same amount for every thread, the unknowns only shift the block's
/// footprint, and the `Low` addresses give its traffic exactly, up to the
/// alignment of that shift (`Low` puts it at a 256-byte boundary, as
/// cudaMalloc aligns). Otherwise the address is unknown per thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standin {
    /// They are unknown (guards: a guard that reads one is assumed true).
    Absent,
    Low,
    High,
}

impl Standin {
    fn value(self, slot: u32, pointer: bool) -> Option<i64> {
        // Pointers: a base far from the parameters' and globals' (Base::address).
        let low = if pointer {
            (0xC00 + i64::from(slot % 0x400)) << 36
        } else {
            0
        };
        match self {
            Standin::Absent => None,
            Standin::Low => Some(low),
            // Distinct per slot, so that two unknowns do not cancel.
            Standin::High => Some(low + ((1 + i64::from(slot % 0x400)) << 20)),
        }
    }
}

impl Env {
    pub fn new(block: Dim3, grid: Option<Dim3>, args: HashMap<u32, i64>) -> Env {
        let dims = |d: Dim3| [d.x as i64, d.y as i64, d.z as i64];
        Env {
            tid: [0; 3],
            ctaid: [0; 3],
            ntid: dims(block),
            nctaid: grid.map(dims),
            args,
            standin: Standin::Absent,
            vars: Vec::new(),
            memory: None,
        }
    }

    pub fn sreg(&self, s: Sreg) -> Option<i64> {
        Some(match s {
            Sreg::Tid(a) => self.tid[a as usize],
            Sreg::Ctaid(a) => self.ctaid[a as usize],
            Sreg::Ntid(a) => self.ntid[a as usize],
            Sreg::Nctaid(a) => self.nctaid?[a as usize],
            Sreg::LaneId => {
                let linear =
                    self.tid[0] + self.ntid[0] * (self.tid[1] + self.ntid[1] * self.tid[2]);
                linear % 32
            }
            Sreg::WarpSize => 32,
        })
    }
}

/// `eval`'s binary operation on possibly unknown operands: zero times
/// anything is zero (`k * gridDim.x * stride` at k = 0 needs no grid).
pub(crate) fn bin_value(op: BinOp, a: Option<i64>, b: Option<i64>, bits: u32) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => apply_bin(op, x, y, bits),
        (Some(0), None) | (None, Some(0)) if absorbs(op) => Some(0),
        _ => None,
    }
}

pub(crate) fn absorbs(op: BinOp) -> bool {
    matches!(op, BinOp::Mul | BinOp::And)
}

/// The value of an expression for one thread; `None` when it is unknown.
pub fn eval(e: &Expr, env: &Env) -> Option<i64> {
    match e {
        Expr::Const(c) => Some(*c),
        Expr::Sreg(s) => env.sreg(*s),
        Expr::Arg { index, .. } => match env.args.get(index) {
            Some(v) => Some(*v),
            None => env.standin.value(*index, false),
        },
        // Slots above the arguments' (at most 0x400 of those are told apart).
        // A value loaded from a block-uniform address: blocks that read it
        // at different addresses get different stand-ins, so that the walk
        // does not make their accesses coincide.
        Expr::Uniform { id, pointer, from } => {
            let at = match env.standin {
                Standin::Absent => 0,
                _ => eval(from, env).map_or(0, |a| (a as u64).wrapping_mul(0x9E37_79B9) >> 7),
            };
            env.standin
                .value(0x200 + ((id.wrapping_add(at as u32)) % 0x200), *pointer)
        }
        Expr::Base(b) => Some(b.address()),
        Expr::Bin { op, lhs, rhs, bits } => bin_value(*op, eval(lhs, env), eval(rhs, env), *bits),
        Expr::Cast {
            op,
            value,
            from,
            to,
        } => Some(apply_cast(*op, eval(value, env)?, *from, *to)),
        Expr::Select {
            cond,
            then,
            otherwise,
        } => {
            if eval_cond(cond, env)? {
                eval(then, env)
            } else {
                eval(otherwise, env)
            }
        }
        // The first iteration decides (ICS'12 §4).
        Expr::AddRec { start, .. } => eval(start, env),
        Expr::Rec(n) => env.vars.get(*n as usize).copied().flatten(),
        Expr::Data { from, bytes } => env.memory.as_ref()?.read(eval(from, env)?, *bytes),
        Expr::Loaded { .. } | Expr::Unknown(_) => None,
    }
}

pub fn eval_cond(c: &Cond, env: &Env) -> Option<bool> {
    match c {
        Cond::Const(b) => Some(*b),
        Cond::Cmp {
            pred,
            lhs,
            rhs,
            bits,
        } => Some(compare(*pred, eval(lhs, env)?, eval(rhs, env)?, *bits)),
        // Short-circuit: a known false side decides an `and` even if the other is unknown.
        Cond::And(a, b) => match (eval_cond(a, env), eval_cond(b, env)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Cond::Or(a, b) => match (eval_cond(a, env), eval_cond(b, env)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Cond::Not(a) => eval_cond(a, env).map(|b| !b),
        Cond::Unknown(_) => None,
    }
}

/// Linear thread id of (x, y, z) in a block, as CUDA numbers threads into warps.
pub fn thread_coords(block: Dim3) -> impl Iterator<Item = [i64; 3]> {
    let (bx, by, bz) = (block.x as i64, block.y as i64, block.z as i64);
    (0..bz).flat_map(move |z| (0..by).flat_map(move |y| (0..bx).map(move |x| [x, y, z])))
}

/// Block ids to evaluate: block 0 alone, or `n` spread evenly over the grid.
pub fn sample_blocks(grid: Option<Dim3>, n: u32) -> Vec<[i64; 3]> {
    let Some(g) = grid.filter(|_| n > 1) else {
        return vec![[0, 0, 0]];
    };
    let total = g.count();
    let n = (n as u64).min(total);
    (0..n)
        .map(|k| {
            let id = (k as u128 * total as u128 / n as u128) as i64;
            let (gx, gy) = (g.x as i64, g.y as i64);
            [id % gx, (id / gx) % gy, id / (gx * gy)]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::address::Why;
    use crate::facts::address::E;
    use crate::facts::tape::{CondTape, Lanes, Rows, Tape};
    use crate::llvm::ir::IntPredicate;

    /// Threads side by side, each with its own environment.
    struct Threads<'a>(&'a [Env]);

    impl Lanes for Threads<'_> {
        fn count(&self) -> usize {
            self.0.len()
        }
        fn env(&self, lane: usize) -> &Env {
            &self.0[lane]
        }
    }

    fn node(op: BinOp, lhs: &E, rhs: &E, bits: u32) -> E {
        Rc::new(Expr::Bin {
            op,
            lhs: lhs.clone(),
            rhs: rhs.clone(),
            bits,
        })
    }

    fn cmp(pred: IntPredicate, lhs: &E, rhs: &E) -> Rc<Cond> {
        Rc::new(Cond::Cmp {
            pred,
            lhs: lhs.clone(),
            rhs: rhs.clone(),
            bits: 32,
        })
    }

    /// Eight threads whose variable 0 is unknown for some and differs per
    /// thread, and whose variable 1 is the same for all (`uniform`) or
    /// not.
    fn threads(uniform: bool) -> Vec<Env> {
        let block = Dim3 { x: 8, y: 1, z: 1 };
        (0..8)
            .map(|t| {
                let mut env = Env::new(block, None, HashMap::new());
                env.tid = [t, 0, 0];
                env.ctaid = [3, 0, 0];
                let v1 = if uniform { 5 } else { t % 2 };
                env.vars = vec![(t % 3 != 0).then_some(t - 4), Some(v1)];
                env
            })
            .collect()
    }

    #[test]
    fn tapes_agree_with_eval_lane_by_lane() {
        let tid = Rc::new(Expr::Sreg(Sreg::Tid(0)));
        let ctaid = Rc::new(Expr::Sreg(Sreg::Ctaid(0)));
        let (v0, v1) = (Rc::new(Expr::Rec(0)), Rc::new(Expr::Rec(1)));
        let zero = Rc::new(Expr::Const(0));
        let two = Rc::new(Expr::Const(2));
        let unknown = Rc::new(Expr::Unknown(Why::Memory));
        let shared = node(BinOp::Add, &v1, &ctaid, 64);
        let exprs = [
            node(BinOp::Mul, &tid, &v0, 32),
            // Division by zero at tid 2: undefined for that lane only.
            node(BinOp::UDiv, &v1, &node(BinOp::Sub, &tid, &two, 32), 32),
            // Zero absorbs an unknown (`eval`'s rule), lane by lane.
            node(BinOp::Mul, &v0, &node(BinOp::Sub, &v1, &v1, 64), 64),
            node(BinOp::And, &zero, &unknown, 64),
            node(
                BinOp::Add,
                &shared,
                &node(BinOp::Shl, &shared, &tid, 64),
                64,
            ),
            Rc::new(Expr::Cast {
                op: crate::facts::int::CastOp::SExt,
                value: node(BinOp::Sub, &v0, &ctaid, 8),
                from: 8,
                to: 64,
            }),
            Rc::new(Expr::Select {
                cond: cmp(IntPredicate::LLVMIntSLT, &tid, &v1),
                then: v0.clone(),
                otherwise: tid.clone(),
            }),
        ];
        let less = cmp(IntPredicate::LLVMIntSLT, &tid, &v0);
        let five = cmp(IntPredicate::LLVMIntEQ, &v1, &Rc::new(Expr::Const(5)));
        let unknown_cond = Rc::new(Cond::Unknown(Why::Memory));
        let conds = [
            less.clone(),
            Rc::new(Cond::And(less.clone(), five.clone())),
            Rc::new(Cond::Or(less.clone(), unknown_cond.clone())),
            Rc::new(Cond::And(unknown_cond, Rc::new(Cond::Not(five.clone())))),
            Rc::new(Cond::Not(Rc::new(Cond::Or(less, five)))),
        ];
        let mut rows = Rows::default();
        let mut out = Vec::new();
        for uniform in [true, false] {
            let envs = threads(uniform);
            for e in &exprs {
                Tape::of(e).eval_lanes(&Threads(&envs), &mut out, &mut rows);
                let each: Vec<_> = envs.iter().map(|env| eval(e, env)).collect();
                assert_eq!(out, each, "{e:?}");
            }
            for c in &conds {
                let (known, holds) = CondTape::of(c).run(&Threads(&envs), &mut rows);
                for (l, env) in envs.iter().enumerate() {
                    let lane = (known >> l & 1 != 0).then_some(holds >> l & 1 != 0);
                    assert_eq!(lane, eval_cond(c, env), "lane {l}");
                }
            }
        }
    }

    #[test]
    fn zero_absorbs_unknown() {
        let unknown = Rc::new(Expr::Unknown(crate::facts::address::Why::Memory));
        let zero = Rc::new(Expr::Const(0));
        let env = Env::new(Dim3 { x: 32, y: 1, z: 1 }, None, HashMap::new());
        let mul = Expr::Bin {
            op: BinOp::Mul,
            lhs: unknown.clone(),
            rhs: zero,
            bits: 32,
        };
        assert_eq!(eval(&mul, &env), Some(0));
        let add = Expr::Bin {
            op: BinOp::Add,
            lhs: unknown,
            rhs: Rc::new(Expr::Const(0)),
            bits: 32,
        };
        assert_eq!(eval(&add, &env), None);
    }

    #[test]
    fn samples_spread_over_grid() {
        let g = Dim3 { x: 8, y: 2, z: 1 };
        assert_eq!(
            sample_blocks(Some(g), 4),
            vec![[0, 0, 0], [4, 0, 0], [0, 1, 0], [4, 1, 0]]
        );
        assert_eq!(sample_blocks(None, 4), vec![[0, 0, 0]]);
    }
}
