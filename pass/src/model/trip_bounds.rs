//! Loop trips that clamps bound though the walk cannot compute the loop's
//! test (issue 19, the held-out `particles_aos`): in
//! `for (ny = max(cy - 1, 0); ny <= min(cy + 1, ncy - 1); ny++)` with `cy`
//! read from a particle's position, the walk knows no lane's `ny` or end,
//! so it ran the guessed `walk::Budget::unknown_trip` (8) iterations. Yet
//! `end - start <= (cy + 1) - (cy - 1) = 2` whatever `cy` is: at most 3
//! iterations, 9 cells of a neighbour walk where the guess made 64.
//!
//! Read from the IR, where one SSA value names one unknown (the folded
//! expressions cannot tell two unknown conversions apart): a loop test
//! `icmp pred X, E` with `X` an induction phi `P` (`P = phi [S, outside],
//! [P + step, latch]`) or `P + o`, and the difference `E - S` bounded by a
//! constant through the linear forms `leaf + offset` that `smin` bounds
//! from above and `smax` from below (`forms`). What it gives is a
//! [`IrTestBound`] (the program keeps it as
//! `program::TestBound`): how many times from the loop's entry the test can come
//! out the way that stays in the loop. With constant edges clang writes the
//! clamps unsigned (`umin`, `umax`: the clamped value is proven
//! non-negative) and folds `min(c + 1, 15)` into `umin(max(x, 0), 14) + 1`,
//! so the start and the end share no leaf; a clamp's value is always one of
//! its operands, and a bound read in each case (`Facts::by_cases`) holds.
//! An upper bound, exact for the
//! clamps of a stencil or a neighbour walk away from the edges; where no
//! form cancels (`j < row_ptr[r + 1]` from `j = row_ptr[r]`: two loads)
//! there is no bound and the walk keeps its guess.
//!
//! Facts from the branches that dominate the test ([`Facts`]): on the
//! side of `if (start > end)` that runs the loop, `start <= end`, so the
//! trip count `end + 1 - start` clang computes for an unrolled loop is at
//! least 0. Where a sign matters it must be proven so, from the clamps
//! and those facts: an unsigned comparison is read only between values
//! proven non-negative (`seq - 4u > seq + 4u` is true for `seq < 4`, so it
//! is not read as `-4 > 4`), and `x & 7` is at most `x` only for `x`
//! proven non-negative (`(c + 1) & 63` with `c` unknown is not).
//!
//! Assumed, as the source's `int` arithmetic lets clang assume: no signed
//! overflow in the induction, the clamps and the trip count clang derives
//! from them. A loop whose test holds from a start past its end (an `==`
//! test entered with `S > E`) would wrap; clang guards such loops, and the
//! bound is taken as the count of the loop that runs.
//!
//! Pure over IR values: no program, no walk. (An adversarial review found
//! the unsigned and mask cases; each is a test below.)
//!
//! Length (about 820 lines): the forms, the cases they are read in and the
//! facts they draw on are one piece of reasoning whose rules refer to each
//! other; the dominator tree at the end serves only the facts.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use crate::llvm::ir::{Block, IntPredicate, Opcode, Value};

/// A loop test's bound, in IR terms: after `count` evaluations that came
/// out `holds` since the loop headed by `header` (the phi's block) was
/// entered, the next one does not come out `holds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IrTestBound {
    pub header: Block,
    pub holds: bool,
    pub count: u32,
}

/// `leaf + offset`; a constant has no leaf.
type Form = (Option<Value>, i64);

/// How deep `forms` follows operands, and how many forms it keeps: clamps
/// are a few instructions deep.
const DEPTH: u32 = 6;
const MAX_FORMS: usize = 24;

/// The bound of the loop test `cond` (an `icmp`), if its operands allow
/// one (see the module comment).
pub fn test_bound(cond: Value, facts: &Facts) -> Option<IrTestBound> {
    if cond.opcode() != Some(Opcode::LLVMICmp) {
        return None;
    }
    let (lhs, rhs) = (cond.operand(0), cond.operand(1));
    let pred = cond.icmp_predicate();
    let (iv, end, pred) = match (induction(lhs), induction(rhs)) {
        (Some(iv), _) => (iv, rhs, pred),
        (None, Some(iv)) => (iv, lhs, swapped(pred)),
        _ => return None,
    };
    let Induction {
        phi,
        start,
        step,
        offset,
    } = iv;
    let iv_at_start = (start, offset);
    // While the test's `P + o` has not reached the end, from the start:
    // `reach` bounds the distance still to go at t = 0, in steps of
    // `|step|`.
    if unsigned(pred) && !(facts.non_negative(start) && facts.non_negative(end)) {
        return None;
    }
    let (rising, reach) = if step > 0 {
        (
            true,
            facts.difference_bound(end, start)?.checked_sub(offset)?,
        )
    } else {
        (
            false,
            facts.difference_bound(start, end)?.checked_add(offset)?,
        )
    };
    let m = step.checked_abs()?;
    // Iterations t >= 0 with t * m < reach, and with t * m <= reach.
    let below = if reach > 0 { (reach + m - 1) / m } else { 0 };
    let up_to = if reach >= 0 { reach / m + 1 } else { 0 };
    use IntPredicate::*;
    let (holds, count) = match (pred, rising) {
        (LLVMIntSLT | LLVMIntULT, true) | (LLVMIntSGT | LLVMIntUGT, false) => (true, below),
        (LLVMIntSLE | LLVMIntULE, true) | (LLVMIntSGE | LLVMIntUGE, false) => (true, up_to),
        (LLVMIntSGE | LLVMIntUGE, true) | (LLVMIntSLE | LLVMIntULE, false) => (false, below),
        (LLVMIntSGT | LLVMIntUGT, true) | (LLVMIntSLT | LLVMIntULT, false) => (false, up_to),
        // Equality reaches the end only one step at a time, and only from
        // a start the facts put on its side of the end (else the counter
        // wraps: `for (unsigned k = s; k != e; k++)` with `e < s`).
        (LLVMIntNE | LLVMIntEQ, _) if m == 1 && reaches(facts, &iv_at_start, end, rising) => {
            (pred == LLVMIntNE, reach.max(0))
        }
        _ => return None,
    };
    Some(IrTestBound {
        header: phi.parent_block(),
        holds,
        count: u32::try_from(count).ok()?,
    })
}

/// Whether the comparison `cond` comes out the same for every value its
/// operands may take, by the bounds of their difference (`forms`): `i <
/// e` where `e - i <= 2` and the other side `< 7`, clang's test whether a
/// clamped loop runs its unrolled body (`icmp ult (end + 1 - start), 7`).
/// An unsigned comparison is read only between values `facts` prove
/// non-negative.
pub fn decided(cond: Value, facts: &Facts) -> Option<bool> {
    if cond.opcode() != Some(Opcode::LLVMICmp) {
        return None;
    }
    let (a, b) = (cond.operand(0), cond.operand(1));
    if a.const_int().is_some() && b.const_int().is_some() {
        return None;
    }
    let pred = cond.icmp_predicate();
    if unsigned(pred) && !(facts.non_negative(a) && facts.non_negative(b)) {
        return None;
    }
    // lo <= a - b <= hi.
    let hi = facts.difference_bound(a, b);
    let lo = facts.difference_bound(b, a).and_then(|d| d.checked_neg());
    use IntPredicate::*;
    let (below, at_most) = match pred {
        LLVMIntSLT | LLVMIntULT => (true, false),
        LLVMIntSLE | LLVMIntULE => (true, true),
        LLVMIntSGT | LLVMIntUGT => (false, true),
        LLVMIntSGE | LLVMIntUGE => (false, false),
        LLVMIntEQ => {
            return match (lo, hi) {
                (Some(0), Some(0)) => Some(true),
                (Some(l), _) if l > 0 => Some(false),
                (_, Some(h)) if h < 0 => Some(false),
                _ => None,
            };
        }
        LLVMIntNE => return decided_ne(lo, hi),
    };
    // a < b (below, strict), a <= b (below, at_most); a > b is
    // !(a <= b), a >= b is !(a < b).
    let holds = |strict: bool| -> Option<bool> {
        let limit = if strict { -1 } else { 0 };
        match (lo, hi) {
            (_, Some(h)) if h <= limit => Some(true),
            (Some(l), _) if l > limit => Some(false),
            _ => None,
        }
    };
    if below {
        holds(!at_most)
    } else {
        holds(!at_most).map(|h| !h)
    }
}

fn decided_ne(lo: Option<i64>, hi: Option<i64>) -> Option<bool> {
    match (lo, hi) {
        (Some(0), Some(0)) => Some(false),
        (Some(l), _) if l > 0 => Some(true),
        (_, Some(h)) if h < 0 => Some(true),
        _ => None,
    }
}

/// Whether `start + offset` lies on the side of `end` that the counter
/// moves towards (at or below it when `rising`), by the facts.
fn reaches(facts: &Facts, &(start, offset): &(Value, i64), end: Value, rising: bool) -> bool {
    if rising {
        // start - end <= d: start + offset - end <= d + offset.
        (facts.difference_bound(start, end)).is_some_and(|d| d.saturating_add(offset) <= 0)
    } else {
        // end - start <= d: end - (start + offset) <= d - offset.
        (facts.difference_bound(end, start)).is_some_and(|d| d.saturating_sub(offset) <= 0)
    }
}

/// `P + offset`, `P` an induction phi.
struct Induction {
    phi: Value,
    start: Value,
    step: i64,
    offset: i64,
}

/// `x` as an induction phi plus a constant (the phi itself, or its
/// increment as a rotated loop tests it).
fn induction(x: Value) -> Option<Induction> {
    if let Some((phi, step, start)) = phi_step(x) {
        return Some(Induction {
            phi,
            start,
            step,
            offset: 0,
        });
    }
    let (inner, offset) = plus_constant(x)?;
    let (phi, step, start) = phi_step(inner)?;
    Some(Induction {
        phi,
        start,
        step,
        offset,
    })
}

/// A phi of two incoming values, one of them the phi plus a nonzero
/// constant (the step): (phi, step, the other incoming value).
fn phi_step(phi: Value) -> Option<(Value, i64, Value)> {
    if phi.opcode() != Some(Opcode::LLVMPHI) || !phi.ty().is_int() {
        return None;
    }
    let incoming = phi.incoming();
    let [(a, _), (b, _)] = incoming.as_slice() else {
        return None;
    };
    let step_of = |v: Value| plus_constant(v).filter(|&(p, c)| p == phi && c != 0);
    match (step_of(*a), step_of(*b)) {
        (Some((_, c)), None) => Some((phi, c, *b)),
        (None, Some((_, c))) => Some((phi, c, *a)),
        _ => None,
    }
}

/// `v` as `x + c` (`add x, c`, `add c, x`, `sub x, c`).
fn plus_constant(v: Value) -> Option<(Value, i64)> {
    match v.opcode()? {
        Opcode::LLVMAdd => {
            let (a, b) = (v.operand(0), v.operand(1));
            match (a.const_int(), b.const_int()) {
                (_, Some(c)) => Some((a, c)),
                (Some(c), None) => Some((b, c)),
                _ => None,
            }
        }
        Opcode::LLVMSub => Some((v.operand(0), v.operand(1).const_int()?.checked_neg()?)),
        _ => None,
    }
}

/// `v` as `x + c` where the operation cannot wrap as a signed one (`nsw`),
/// for the facts: `v <= y + k` says `x <= y + k - c` only then.
fn signed_plus_constant(v: Value) -> Option<(Value, i64)> {
    plus_constant(v).filter(|_| v.has_nsw())
}

/// Drops the constant forms from `out[from..]`: those of an `add` or `sub`
/// that may wrap as a signed operation (no `nsw`). `(h & 0x7fffffff) +
/// 0x40000000` (an `unsigned` sum, `add nuw`) is at least 2^30 as a
/// number but exceeds `INT_MAX` for half the `h`, so as an `int` it may
/// be negative (an adversarial review, sixteenth session). A form that
/// keeps a leaf stays: it is used only where the leaf cancels against the
/// other side's (the trip count `(end + 2) - start` clang computes without
/// flags), and the cancelled difference is what the wrapping arithmetic
/// computes too, modulo 2^32; that it is in range is the module comment's
/// assumption on trip counts.
fn keep_leaves(out: &mut Vec<Form>, from: usize) {
    let mut k = from;
    for i in from..out.len() {
        if out[i].0.is_some() {
            out[k] = out[i];
            k += 1;
        }
    }
    out.truncate(k);
}

/// What the branches that dominate a block say of its values: each fact
/// `x <= y + k`, with the ways to write `x` and `y` as another value plus
/// a constant (`exact`), so that a fact on `start = m - 1` also bounds `m`.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    le: Vec<Fact>,
    /// `v != c`: where `v >= c` (or `<= c`) is known, `v >= c + 1` (a
    /// remainder loop entered only where `n & 7` is not 0).
    ne: Vec<(Value, i64)>,
    /// `forms` calls left in this query (`MAX_STEPS` each): facts make the
    /// forms of a value branch, and a block under many guards has many.
    steps: Cell<u32>,
    /// In the case under way, clamps read as one of their operands:
    /// (the clamp, whether the second).
    choices: RefCell<Vec<(Value, bool)>>,
    /// The clamps a query met whose bound in its direction is one operand
    /// or the other (`min` for a lower bound, `max` for an upper one), to
    /// read case by case; `None` outside the first pass of a query.
    splits: RefCell<Option<Vec<Value>>>,
}

/// The most `forms` calls one query makes, per case.
const MAX_STEPS: u32 = 4096;

/// The most clamps one query reads case by case (2^3 cases).
const MAX_SPLITS: usize = 3;

#[derive(Clone, Debug)]
struct Fact {
    x: Vec<Form>,
    y: Vec<Form>,
    k: i64,
}

impl Facts {
    /// `x <= y + k`.
    fn push(&mut self, x: Value, y: Value, k: i64) {
        self.le.push(Fact {
            x: exact(x),
            y: exact(y),
            k,
        });
    }

    /// What the comparison `cond` coming out `holds` says (signed
    /// comparisons and equality; unsigned ones say nothing here).
    fn learn(&mut self, cond: Value, holds: bool) {
        if cond.opcode() != Some(Opcode::LLVMICmp) {
            return;
        }
        let (a, b) = (cond.operand(0), cond.operand(1));
        use IntPredicate::*;
        match (cond.icmp_predicate(), holds) {
            (LLVMIntSLT, true) | (LLVMIntSGE, false) => self.push(a, b, -1),
            (LLVMIntSLE, true) | (LLVMIntSGT, false) => self.push(a, b, 0),
            (LLVMIntSGT, true) | (LLVMIntSLE, false) => self.push(b, a, -1),
            (LLVMIntSGE, true) | (LLVMIntSLT, false) => self.push(b, a, 0),
            (LLVMIntEQ, true) | (LLVMIntNE, false) => {
                self.push(a, b, 0);
                self.push(b, a, 0);
            }
            (LLVMIntEQ, false) | (LLVMIntNE, true) => match (a.const_int(), b.const_int()) {
                (None, Some(c)) => self.ne.push((a, c)),
                (Some(c), None) => self.ne.push((b, c)),
                _ => {}
            },
            _ => {}
        }
    }

    /// A constant `d` with `hi - lo <= d`, from forms of the two that
    /// share a leaf; the least such.
    fn difference_bound(&self, hi: Value, lo: Value) -> Option<i64> {
        self.by_cases(true, &|| {
            let mut above = Vec::new();
            let mut below = Vec::new();
            self.forms(hi, true, DEPTH, &mut above);
            self.forms(lo, false, DEPTH, &mut below);
            (above.iter())
                .flat_map(|u| {
                    below
                        .iter()
                        .filter(move |l| l.0 == u.0)
                        .map(move |l| (u, l))
                })
                .filter_map(|(u, l)| u.1.checked_sub(l.1))
                .min()
        })
    }

    /// Whether `v >= 0` follows from its lower forms.
    fn non_negative(&self, v: Value) -> bool {
        let lowest = self.by_cases(false, &|| {
            let mut below = Vec::new();
            self.forms(v, false, DEPTH, &mut below);
            below.iter().filter(|f| f.0.is_none()).map(|f| f.1).max()
        });
        lowest.is_some_and(|l| l >= 0)
    }

    /// A bound `query` computes (an upper one when `upper`), also read
    /// case by case over the clamps it meets whose bound in its direction
    /// is one operand or the other: a clamp's value is always one of its
    /// operands (`min(x, 15)` is `x` or `15`), so a bound that holds in
    /// every case holds, and so does the bound read without cases. In
    /// `max(min(x, 15), 1) - 1 .. min(x, 14) + 1`, clang's form of a
    /// clamped window with constant edges, no form of the start shares a
    /// leaf with the end's `x`; with `min(x, 15)` read as `x` the width is
    /// at most 2, read as `15` at most `15 - 14 = 1`.
    fn by_cases(&self, upper: bool, query: &dyn Fn() -> Option<i64>) -> Option<i64> {
        self.choices.borrow_mut().clear();
        *self.splits.borrow_mut() = Some(Vec::new());
        self.steps.set(MAX_STEPS);
        let plain = query();
        let splits = self.splits.borrow_mut().take().unwrap_or_default();
        if splits.is_empty() {
            return plain;
        }
        let mut worst: Option<i64> = None;
        for case in 0..1u32 << splits.len() {
            *self.choices.borrow_mut() = (splits.iter().enumerate())
                .map(|(i, &c)| (c, case >> i & 1 == 1))
                .collect();
            self.steps.set(MAX_STEPS);
            let Some(b) = query() else {
                worst = None;
                break;
            };
            worst = Some(match worst {
                None => b,
                Some(w) if upper => w.max(b),
                Some(w) => w.min(b),
            });
        }
        self.choices.borrow_mut().clear();
        match (plain, worst) {
            (Some(p), Some(w)) => Some(if upper { p.min(w) } else { p.max(w) }),
            (p, w) => p.or(w),
        }
    }

    /// `non_negative` within the query under way (its steps).
    fn at_least_zero(&self, v: Value, depth: u32) -> bool {
        let mut below = Vec::new();
        self.forms(v, false, depth, &mut below);
        below.iter().any(|f| f.0.is_none() && f.1 >= 0)
    }

    /// Forms `leaf + c` with `v <= leaf + c` (`upper`) or `v >= leaf + c`:
    /// `v` itself, a constant, through `+ c`, sign extension, `a - b`,
    /// `x & mask`, `smin` (upper) or `smax` (lower) of either operand, and
    /// the facts.
    fn forms(&self, v: Value, upper: bool, depth: u32, out: &mut Vec<Form>) {
        let left = self.steps.get();
        if out.len() >= MAX_FORMS || left == 0 {
            return;
        }
        self.steps.set(left - 1);
        if let Some(c) = v.const_int() {
            out.push((None, c));
            return;
        }
        let from = out.len();
        out.push((Some(v), 0));
        if depth == 0 {
            return;
        }
        self.facts_on(v, upper, depth, out);
        self.derived(v, upper, depth, out);
        // v != c where its bound is c: one past it.
        for &(_, c) in self.ne.iter().filter(|n| n.0 == v) {
            if out[from..].contains(&(None, c)) && out.len() < MAX_FORMS {
                out.push((None, if upper { c - 1 } else { c + 1 }));
            }
        }
    }

    /// The forms `v`'s own operation gives (see `forms`).
    fn derived(&self, v: Value, upper: bool, depth: u32, out: &mut Vec<Form>) {
        if let Some((x, c)) = plus_constant(v) {
            let from = out.len();
            self.forms(x, upper, depth - 1, out);
            shift(&mut out[from..], c);
            if !v.has_nsw() {
                keep_leaves(out, from);
            }
            return;
        }
        match v.opcode() {
            Some(Opcode::LLVMSExt) => self.forms(v.operand(0), upper, depth - 1, out),
            // a - b: a's bound less b's opposite one, where their leaves
            // cancel or b's is a constant (without `nsw`, only where a
            // leaf cancels or stays: see `keep_leaves`).
            Some(Opcode::LLVMSub) => {
                let (mut first, mut second) = (Vec::new(), Vec::new());
                self.forms(v.operand(0), upper, depth - 1, &mut first);
                self.forms(v.operand(1), !upper, depth - 1, &mut second);
                let nsw = v.has_nsw();
                for a in &first {
                    for b in &second {
                        let leaf = match (a.0, b.0) {
                            (None, None) if !nsw => continue,
                            (x, y) if x == y => None,
                            (x, None) => x,
                            _ => continue,
                        };
                        if out.len() < MAX_FORMS {
                            out.push((leaf, a.1.saturating_sub(b.1)));
                        }
                    }
                }
            }
            // x & mask, mask >= 0: between 0 and the mask, and at most x
            // where x is proven non-negative (a trip count's remainder,
            // `n & 7`; `(c + 1) & 63` with `c` unknown may exceed `c + 1`).
            Some(Opcode::LLVMAnd) => {
                let (a, b) = (v.operand(0), v.operand(1));
                let (mask, other) = match (a.const_int(), b.const_int()) {
                    (_, Some(m)) => (m, a),
                    (Some(m), None) => (m, b),
                    _ => return,
                };
                if mask < 0 {
                    return;
                }
                if !upper {
                    out.push((None, 0));
                } else {
                    out.push((None, mask));
                    if self.at_least_zero(other, depth - 1) {
                        self.forms(other, true, depth - 1, out);
                    }
                }
            }
            Some(Opcode::LLVMCall) => self.clamp(v, upper, depth, out),
            // A zero extension is the value itself where that is proven
            // non-negative (clang's `zext nneg` of an index), and at least
            // 0 in any case.
            Some(Opcode::LLVMZExt) => {
                let x = v.operand(0);
                if self.at_least_zero(x, depth - 1) {
                    self.forms(x, upper, depth - 1, out);
                } else if !upper {
                    out.push((None, 0));
                }
            }
            _ => {}
        }
    }

    /// The forms of a clamp `v` (`smin`, `smax`, `umin`, `umax`): those of
    /// the operand the case under way reads it as (`by_cases`), and where
    /// every operand bounds it in this direction (`smin` from above,
    /// `smax` from below; the unsigned ones so between operands proven
    /// non-negative, and `umin` below a non-negative operand and at least
    /// 0 whatever the other), both operands' forms; else a note that cases
    /// could read it.
    fn clamp(&self, v: Value, upper: bool, depth: u32, out: &mut Vec<Form>) {
        let name = v.called_value().intrinsic_name().unwrap_or_default();
        let (min, signed) = match () {
            _ if name.starts_with("llvm.smin.") => (true, true),
            _ if name.starts_with("llvm.smax.") => (false, true),
            _ if name.starts_with("llvm.umin.") => (true, false),
            _ if name.starts_with("llvm.umax.") => (false, false),
            _ => return,
        };
        let (a, b) = (v.operand(0), v.operand(1));
        let chosen = (self.choices.borrow().iter())
            .find(|c| c.0 == v)
            .map(|c| c.1);
        if let Some(second) = chosen {
            let x = if second { b } else { a };
            self.forms(x, upper, depth - 1, out);
        }
        let bounding = min == upper;
        if signed && bounding {
            self.forms(a, upper, depth - 1, out);
            self.forms(b, upper, depth - 1, out);
            return;
        }
        if !signed {
            let (na, nb) = (
                self.at_least_zero(a, depth - 1),
                self.at_least_zero(b, depth - 1),
            );
            if bounding && na && nb {
                self.forms(a, upper, depth - 1, out);
                self.forms(b, upper, depth - 1, out);
                return;
            }
            // umin(a, b) <=u b: between 0 and b where b >= 0.
            if min && (na || nb) {
                if upper {
                    for (x, n) in [(a, na), (b, nb)] {
                        if n {
                            self.forms(x, true, depth - 1, out);
                        }
                    }
                    return;
                }
                out.push((None, 0));
            }
        }
        let mut splits = self.splits.borrow_mut();
        if let Some(s) = splits.as_mut() {
            if s.len() < MAX_SPLITS && !s.contains(&v) {
                s.push(v);
            }
        }
    }

    /// The forms the facts give `v`: from `x <= y + k` with `x = v + c`,
    /// `v <= y + k - c` (upper); from `y = v + c`, `v >= x - k - c`.
    fn facts_on(&self, v: Value, upper: bool, depth: u32, out: &mut Vec<Form>) {
        for f in &self.le {
            let (mine, other, k) = if upper {
                (&f.x, &f.y, f.k)
            } else {
                (&f.y, &f.x, -f.k)
            };
            for &(leaf, c) in mine {
                if leaf != Some(v) {
                    continue;
                }
                // `forms` follows the other side's own `+ c` chain.
                let Some((Some(o), _)) = other.first() else {
                    continue;
                };
                let from = out.len();
                self.forms(*o, upper, depth - 1, out);
                shift(&mut out[from..], k.saturating_sub(c));
            }
        }
    }
}

fn shift(forms: &mut [Form], by: i64) {
    for f in forms {
        f.1 = f.1.saturating_add(by);
    }
}

/// `x` as `leaf + c`, every way its chain of `+ c` gives (`x` itself
/// first).
fn exact(x: Value) -> Vec<Form> {
    let mut out = vec![(Some(x), 0)];
    let (mut v, mut c) = (x, 0i64);
    for _ in 0..DEPTH {
        let Some((inner, k)) = signed_plus_constant(v) else {
            break;
        };
        c = c.saturating_add(k);
        v = inner;
        // x = inner + c.
        out.push((Some(v), c));
    }
    out
}

/// The blocks that dominate each block of a function (Cooper, Harvey and
/// Kennedy, "A Simple, Fast Dominance Algorithm", 2001), for the facts
/// that hold where a test is.
pub struct Dominators {
    blocks: Vec<Block>,
    index: HashMap<Block, usize>,
    preds: Vec<Vec<usize>>,
    idom: Vec<Option<usize>>,
}

impl Dominators {
    pub fn of(f: Value) -> Dominators {
        let blocks = f.blocks();
        let index: HashMap<Block, usize> =
            blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let succs: Vec<Vec<usize>> = (blocks.iter())
            .map(|b| {
                b.successors()
                    .iter()
                    .filter_map(|s| index.get(s).copied())
                    .collect()
            })
            .collect();
        let mut preds = vec![Vec::new(); blocks.len()];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                if !preds[s].contains(&b) {
                    preds[s].push(b);
                }
            }
        }
        // Post-order numbers from the entry.
        let mut post = vec![usize::MAX; blocks.len()];
        let mut order = Vec::new();
        let mut seen = vec![false; blocks.len()];
        let mut stack: Vec<(usize, usize)> = Vec::new();
        if !blocks.is_empty() {
            seen[0] = true;
            stack.push((0, 0));
        }
        while let Some((b, next)) = stack.pop() {
            if let Some(&s) = succs[b].get(next) {
                stack.push((b, next + 1));
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post[b] = order.len();
                order.push(b);
            }
        }
        let mut idom: Vec<Option<usize>> = vec![None; blocks.len()];
        if !blocks.is_empty() {
            idom[0] = Some(0);
        }
        let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| -> usize {
            while a != b {
                while post[a] < post[b] {
                    a = idom[a].unwrap_or(0);
                }
                while post[b] < post[a] {
                    b = idom[b].unwrap_or(0);
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().rev().filter(|&&b| b != 0) {
                let mut new: Option<usize> = None;
                for &p in &preds[b] {
                    if idom[p].is_none() || post[p] == usize::MAX {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(n) => intersect(&idom, p, n),
                    });
                }
                if new.is_some() && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Dominators {
            blocks,
            index,
            preds,
            idom,
        }
    }

    /// Whether block `a` dominates block `b` (indices).
    fn dominates(&self, a: usize, mut b: usize) -> bool {
        for _ in 0..self.blocks.len() {
            if a == b {
                return true;
            }
            match self.idom[b] {
                Some(d) if d != b => b = d,
                _ => return false,
            }
        }
        false
    }

    /// What holds in `b`: for `b` and each block that dominates it, the
    /// branch into it where it is entered from one block (its other
    /// predecessors, if any, being blocks it dominates: a loop header's
    /// latches), which branches to it on one side only. SSA values keep
    /// their values, so what held on that edge holds in every block it
    /// dominates.
    pub fn facts_at(&self, b: Block) -> Facts {
        let mut facts = Facts::default();
        let Some(mut at) = self.index.get(&b).copied() else {
            return facts;
        };
        for _ in 0..self.blocks.len() {
            let entries: Vec<usize> = (self.preds[at].iter().copied())
                .filter(|&p| !self.dominates(at, p))
                .collect();
            if let [p] = entries.as_slice() {
                if let Some((cond, then, otherwise)) = self.blocks[*p].conditional_branch() {
                    let here = self.blocks[at];
                    if then != otherwise && (then == here || otherwise == here) {
                        facts.learn(cond, then == here);
                    }
                }
            }
            match self.idom[at] {
                Some(d) if d != at => at = d,
                _ => break,
            }
        }
        facts
    }
}

fn unsigned(pred: IntPredicate) -> bool {
    use IntPredicate::*;
    matches!(pred, LLVMIntULT | LLVMIntULE | LLVMIntUGT | LLVMIntUGE)
}

/// The predicate with its operands swapped (`a < b` is `b > a`).
fn swapped(pred: IntPredicate) -> IntPredicate {
    use IntPredicate::*;
    match pred {
        LLVMIntEQ => LLVMIntEQ,
        LLVMIntNE => LLVMIntNE,
        LLVMIntSLT => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULT,
        LLVMIntULE => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULE,
    }
}
