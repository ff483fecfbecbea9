//! Per-thread evaluation: turns a load's address expression and the
//! conditions that guard it into, for every thread of a block, either a
//! concrete byte address, "does not execute the load", or "unknown".
//!
//! Integer arithmetic wraps at the IR's bit width. A guard whose condition
//! can be computed for a thread decides whether that thread executes the
//! load; a guard that cannot be computed leaves the thread active (the
//! paper's assumption). Loop recurrences evaluate at their first iteration.
//!
//! Guards are found from the CFG: a block reached only through one edge of a
//! conditional branch, and dominating the load, runs only when that branch
//! went that way.

use std::collections::HashMap;
use std::rc::Rc;

use crate::address::{BinOp, CastOp, Cond, Expr, Folder, Sreg, E};
use crate::ir::{Block, IntPredicate, Value};
use crate::options::Dim3;

/// What one thread does at a load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// The thread does not execute the load.
    Inactive,
    /// The thread reads from this byte address.
    At(u64),
    /// The thread executes the load at an address the analysis cannot know.
    Unknown,
}

fn wrap(v: i128, bits: u32) -> i64 {
    if bits >= 64 {
        return v as i64;
    }
    let shift = 64 - bits;
    ((v as i64) << shift) >> shift
}

fn unsigned(v: i64, bits: u32) -> u64 {
    if bits >= 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << bits) - 1)
    }
}

/// One binary operation at `bits` width; `None` for division by zero or an
/// over-wide shift (poison in LLVM).
pub fn apply_bin(op: BinOp, a: i64, b: i64, bits: u32) -> Option<i64> {
    // Operands come in at any i64 value (a user's `n=4294967295` for an
    // i32 argument); signed operations read them at the IR width, as -1.
    let (ua, ub) = (unsigned(a, bits), unsigned(b, bits));
    let (a, b) = (wrap(a as i128, bits), wrap(b as i128, bits));
    let r: i128 = match op {
        BinOp::Add => a as i128 + b as i128,
        BinOp::Sub => a as i128 - b as i128,
        BinOp::Mul => (a as i128).wrapping_mul(b as i128),
        BinOp::UDiv => ua.checked_div(ub)? as i128,
        BinOp::URem => ua.checked_rem(ub)? as i128,
        BinOp::SDiv => a.checked_div(b)? as i128,
        BinOp::SRem => a.checked_rem(b)? as i128,
        BinOp::Shl => {
            if ub >= bits as u64 {
                return None;
            }
            (a as i128) << ub
        }
        BinOp::LShr => {
            if ub >= bits as u64 {
                return None;
            }
            (ua >> ub) as i128
        }
        BinOp::AShr => {
            if ub >= bits as u64 {
                return None;
            }
            (a >> ub) as i128
        }
        BinOp::And => (a & b) as i128,
        BinOp::Or => (a | b) as i128,
        BinOp::Xor => (a ^ b) as i128,
        BinOp::SMin => a.min(b) as i128,
        BinOp::SMax => a.max(b) as i128,
        BinOp::UMin => ua.min(ub) as i128,
        BinOp::UMax => ua.max(ub) as i128,
    };
    Some(wrap(r, bits))
}

pub fn apply_cast(op: CastOp, v: i64, from: u32, to: u32) -> i64 {
    match op {
        CastOp::Trunc => wrap(v as i128, to),
        CastOp::ZExt => wrap(unsigned(v, from) as i128, to),
        CastOp::SExt => wrap(wrap(v as i128, from) as i128, to),
    }
}

fn compare(pred: IntPredicate, a: i64, b: i64, bits: u32) -> bool {
    use IntPredicate::*;
    let (ua, ub) = (unsigned(a, bits), unsigned(b, bits));
    let (sa, sb) = (wrap(a as i128, bits), wrap(b as i128, bits));
    match pred {
        LLVMIntEQ => ua == ub,
        LLVMIntNE => ua != ub,
        LLVMIntUGT => ua > ub,
        LLVMIntUGE => ua >= ub,
        LLVMIntULT => ua < ub,
        LLVMIntULE => ua <= ub,
        LLVMIntSGT => sa > sb,
        LLVMIntSGE => sa >= sb,
        LLVMIntSLT => sa < sb,
        LLVMIntSLE => sa <= sb,
    }
}

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
        }
    }

    fn sreg(&self, s: Sreg) -> Option<i64> {
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
        Expr::Uniform { id, pointer, .. } => env.standin.value(0x200 + id, *pointer),
        Expr::Base(b) => Some(b.address()),
        Expr::Bin { op, lhs, rhs, bits } => match (eval(lhs, env), eval(rhs, env)) {
            (Some(a), Some(b)) => apply_bin(*op, a, b, *bits),
            // Zero times anything is zero: `k * gridDim.x * stride` at k = 0
            // needs no grid.
            (Some(0), None) | (None, Some(0)) if matches!(op, BinOp::Mul | BinOp::And) => Some(0),
            _ => None,
        },
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
        Expr::Rec(_) | Expr::Unknown(_) => None,
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

/// A condition that must hold (or not hold) for a load to execute.
#[derive(Clone, Debug)]
pub struct Guard {
    pub cond: Rc<Cond>,
    pub expect: bool,
}

/// Dominator tree of one function, for finding guards.
pub struct Dominators {
    idom: HashMap<Block, Block>,
    preds: HashMap<Block, Vec<Block>>,
}

impl Dominators {
    /// Cooper, Harvey, Kennedy, "A Simple, Fast Dominance Algorithm" (2001).
    pub fn of(function: Value) -> Dominators {
        let blocks = function.blocks();
        let mut preds: HashMap<Block, Vec<Block>> = HashMap::new();
        let Some(&entry) = blocks.first() else {
            return Dominators {
                idom: HashMap::new(),
                preds,
            };
        };
        // Reverse post-order from the entry.
        let mut order = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![(entry, 0usize)];
        seen.insert(entry);
        let mut succs: HashMap<Block, Vec<Block>> = HashMap::new();
        for &b in &blocks {
            let s = b.successors();
            for &t in &s {
                // Once per edge source: two cases of one switch that go to
                // the same block are one predecessor, whose guard is their
                // disjunction.
                let p = preds.entry(t).or_default();
                if !p.contains(&b) {
                    p.push(b);
                }
            }
            succs.insert(b, s);
        }
        while let Some((b, i)) = stack.pop() {
            let s = &succs[&b];
            if i < s.len() {
                stack.push((b, i + 1));
                let t = s[i];
                if seen.insert(t) {
                    stack.push((t, 0));
                }
            } else {
                order.push(b);
            }
        }
        order.reverse();
        let rpo: HashMap<Block, usize> = order.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let mut idom: HashMap<Block, Block> = HashMap::new();
        idom.insert(entry, entry);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().skip(1) {
                let mut new: Option<Block> = None;
                for p in preds.get(&b).into_iter().flatten() {
                    if !idom.contains_key(p) {
                        continue;
                    }
                    new = Some(match new {
                        None => *p,
                        Some(mut a) => {
                            let mut c = *p;
                            while a != c {
                                while rpo[&a] > rpo[&c] {
                                    a = idom[&a];
                                }
                                while rpo[&c] > rpo[&a] {
                                    c = idom[&c];
                                }
                            }
                            a
                        }
                    });
                }
                if let Some(n) = new {
                    if idom.get(&b) != Some(&n) {
                        idom.insert(b, n);
                        changed = true;
                    }
                }
            }
        }
        Dominators { idom, preds }
    }

    /// Conditions under which `block` runs, from the branches that lead to it.
    ///
    /// A branch on a loop recurrence whose edge leaves that loop (the exit
    /// test of a counted loop) is no guard: evaluated at the first iteration
    /// it would say nobody gets past the loop.
    pub fn guards(&self, block: Block, folder: &mut Folder) -> Vec<Guard> {
        let mut out = Vec::new();
        let mut b = block;
        loop {
            if let Some([p]) = self.preds.get(&b).map(Vec::as_slice) {
                let guard = if let Some((cond, t, f)) = p.conditional_branch() {
                    (t != f).then(|| (folder.cond(cond), t == b))
                } else if let Some((on, default, cases)) = p.switch() {
                    // The values that lead here, or, for the default, the
                    // values that all lead elsewhere.
                    let to_b: Vec<Value> = cases
                        .iter()
                        .filter(|(_, d)| *d == b)
                        .map(|(v, _)| *v)
                        .collect();
                    if default == b {
                        let others: Vec<Value> = cases
                            .iter()
                            .filter(|(_, d)| *d != b)
                            .map(|(v, _)| *v)
                            .collect();
                        Some((folder.switch_cond(on, &others, false), true))
                    } else {
                        Some((folder.switch_cond(on, &to_b, true), true))
                    }
                } else {
                    None
                };
                if let Some((cond, expect)) = guard {
                    let leaves_loop = cond.loop_headers().into_iter().any(|h| !self.in_loop(h, b));
                    if !leaves_loop {
                        out.push(Guard { cond, expect });
                    }
                }
            }
            match self.idom.get(&b) {
                Some(&d) if d != b => b = d,
                _ => break,
            }
        }
        out
    }
}

impl Dominators {
    fn dominates(&self, a: Block, mut b: Block) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom.get(&b) {
                Some(&d) if d != b => b = d,
                _ => return false,
            }
        }
    }

    /// Whether `b` is in the natural loop of `header`: it reaches a back
    /// edge into `header` without passing through `header`.
    fn in_loop(&self, header: Block, b: Block) -> bool {
        if b == header {
            return true;
        }
        let latches: Vec<Block> = self
            .preds
            .get(&header)
            .into_iter()
            .flatten()
            .copied()
            .filter(|p| self.dominates(header, *p))
            .collect();
        let mut seen = std::collections::HashSet::new();
        let mut work = latches;
        while let Some(x) = work.pop() {
            if x == b {
                return true;
            }
            if x == header || !seen.insert(x) {
                continue;
            }
            work.extend(self.preds.get(&x).into_iter().flatten().copied());
        }
        false
    }
}

/// Linear thread id of (x, y, z) in a block, as CUDA numbers threads into warps.
pub fn thread_coords(block: Dim3) -> impl Iterator<Item = [i64; 3]> {
    let (bx, by, bz) = (block.x as i64, block.y as i64, block.z as i64);
    (0..bz).flat_map(move |z| (0..by).flat_map(move |y| (0..bx).map(move |x| [x, y, z])))
}

/// How block-uniform unknowns entered one block's addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    /// There are none, or no thread executes the load.
    None,
    /// They move the whole footprint by one amount: traffic exact up to its
    /// alignment.
    Uniform,
    /// They change addresses differently per thread (a stride, a divisor):
    /// the addresses are unknown.
    PerThread,
}

/// What every thread of one block does at a load, in linear thread order.
/// An address with block-uniform unknowns (`symbolic`) is evaluated at two
/// stand-ins (see [`Standin`]).
pub fn block_accesses(
    address: &E,
    guards: &[Guard],
    block: Dim3,
    env: &mut Env,
    symbolic: bool,
) -> (Vec<Access>, Shift) {
    let mut out = Vec::with_capacity(block.count() as usize);
    let mut delta: Option<Option<i64>> = None;
    let mut per_thread = false;
    for t in thread_coords(block) {
        env.tid = t;
        env.standin = Standin::Absent;
        let runs = guards
            .iter()
            .all(|g| eval_cond(&g.cond, env).is_none_or(|v| v == g.expect));
        if !runs {
            out.push(Access::Inactive);
            continue;
        }
        env.standin = Standin::Low;
        let low = eval(address, env);
        if symbolic {
            env.standin = Standin::High;
            let high = eval(address, env);
            let d = low.zip(high).map(|(l, h)| h.wrapping_sub(l));
            per_thread |= d.is_none() || *delta.get_or_insert(d) != d;
        }
        out.push(match low {
            Some(a) => Access::At(a as u64),
            None => Access::Unknown,
        });
    }
    env.standin = Standin::Absent;
    if per_thread {
        for a in &mut out {
            if *a != Access::Inactive {
                *a = Access::Unknown;
            }
        }
        return (out, Shift::PerThread);
    }
    let shift = if symbolic && delta.is_some() {
        Shift::Uniform
    } else {
        Shift::None
    };
    (out, shift)
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

    #[test]
    fn arithmetic_wraps_at_width() {
        assert_eq!(
            apply_bin(BinOp::Add, i32::MAX as i64, 1, 32),
            Some(i32::MIN as i64)
        );
        assert_eq!(apply_bin(BinOp::UDiv, -1, 2, 32), Some(0x7fff_ffff));
        assert_eq!(apply_bin(BinOp::LShr, -1, 28, 32), Some(15));
        assert_eq!(apply_bin(BinOp::URem, 5, 0, 32), None);
        assert_eq!(apply_cast(CastOp::ZExt, -1, 32, 64), 0xffff_ffff);
        assert_eq!(apply_cast(CastOp::SExt, 0xffff_ffff, 32, 64), -1);
        assert!(compare(IntPredicate::LLVMIntULT, 3, -1, 32));
        assert!(!compare(IntPredicate::LLVMIntSLT, 3, -1, 32));
    }

    #[test]
    fn signed_operations_read_operands_at_width() {
        // A user's `n=4294967294` for an i32 argument is -2 to `sdiv`.
        assert_eq!(apply_bin(BinOp::SDiv, 0xffff_fffe, 2, 32), Some(-1));
        assert_eq!(apply_bin(BinOp::SRem, 0xffff_fffd, 2, 32), Some(-1));
        assert_eq!(apply_bin(BinOp::AShr, 0xffff_fff0, 4, 32), Some(-1));
        assert_eq!(apply_bin(BinOp::SMin, 0xffff_ffff, 0, 32), Some(-1));
        assert_eq!(apply_bin(BinOp::SMax, 0xffff_ffff, 0, 32), Some(0));
    }

    #[test]
    fn zero_absorbs_unknown() {
        let unknown = Rc::new(Expr::Unknown(crate::address::Why::Memory));
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
