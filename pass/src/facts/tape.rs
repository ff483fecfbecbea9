//! Expressions compiled into tapes (`Tape`, `CondTape`) and evaluated
//! for a group of lanes at once, step by step over rows (`Rows`): the
//! kernel-level walk's hot path. The values are `evaluate::eval`'s and
//! `evaluate::eval_cond`'s, lane by lane.

use std::collections::HashMap;
use std::rc::Rc;

use crate::facts::address::{Cond, Expr, Sreg, E};
use crate::facts::bounds::{self, Interval};
use crate::facts::evaluate::{absorbs, bin_value, eval, Env};
use crate::facts::int::{apply_bin, apply_cast, compare, ring_lanes, BinOp};
use crate::llvm::ir::IntPredicate;

/// An expression compiled once into a list of steps, one per distinct node
/// (`Rc` identity), children before parents: evaluating it costs the
/// expression's DAG size, not its tree size. A hash chain shares each
/// state between the terms of the next (`x ^= x << 13` uses `x` twice), so
/// its tree doubles with every step while its DAG grows by one node: the
/// walk of an xorshift loop unrolled four times visited 4,096 tree nodes
/// per address where the DAG has 40 (issue 16 item 4).
///
/// The values are those of [`eval`]: arithmetic, casts,
/// thread ids and phi variables are steps of their own; every other node
/// (a `select`, a stand-in, bound data) is one step that calls `eval` per
/// lane.
///
/// A tape runs for a group of lanes at once, step by step ([`Rows`]): an
/// operation is chosen once per step, not per lane, and a step whose
/// operands are the same for every lane of the group (constants, the
/// block's ids, a loop counter the lanes share) is computed once.
#[derive(Clone, Debug)]
pub struct Tape {
    steps: Vec<Step>,
    /// Each step's IR width (its user's operand width; 64, an address's,
    /// at the root), for [`Tape::interval`].
    widths: Vec<u32>,
    /// The step whose value is the expression's.
    root: u32,
    /// Some step reads more of an environment than ids and variables
    /// (see [`Tape::reads_env`]).
    reads_env: bool,
    /// The steps that compute the addresses of the expression's per-thread
    /// loads (`Expr::Loaded`), where every one of them is made of ids,
    /// variables, constants and bases only (no stand-in, no other unknown):
    /// then two lanes whose rows agree at these steps load the same values
    /// ([`Tape::loads`]). Empty otherwise.
    loads: Vec<u32>,
}

#[derive(Clone, Debug)]
enum Step {
    Const(i64),
    Sreg(Sreg),
    Rec(u32),
    Bin {
        op: BinOp,
        bits: u32,
        lhs: u32,
        rhs: u32,
    },
    Cast {
        op: crate::facts::int::CastOp,
        from: u32,
        to: u32,
        value: u32,
    },
    /// Evaluated per lane by `eval`.
    Lane(E),
    /// A per-thread unknown (`Expr::Unknown`): no lane knows it, which is
    /// what `eval` gives, without a call per lane (by cachegrind, 9 % of
    /// the instructions of the `model` bench's gather walk went to that
    /// call for `x[col[j]]`).
    Unknown,
    /// A per-thread load (`Expr::Loaded`), its address a step of its own
    /// (listed in `Tape::loads`): unknown, as `Unknown`, unless
    /// [`Tape::run_loaded_as`] gives it a value.
    Loaded,
}

impl Step {
    /// Whether the step reads lanes' environments, as [`Tape::reads_env`]
    /// counts them: an unknown too, as when it was a `Lane` step, so that
    /// the walk refreshes environments where it did (`Warp::prepare`)
    /// though nothing reads them for it.
    fn was_lane(&self) -> bool {
        matches!(self, Step::Lane(_) | Step::Unknown | Step::Loaded)
    }
}

/// The most lanes one run of a [`Tape`] takes (a bit each in [`Rows`]'
/// masks): a warp's 32 fit.
pub const MAX_LANES: usize = 64;

/// Every step's values for a group of lanes, the buffer a [`Tape`] runs
/// in: one row of lane values per step, with a mask of the lanes that
/// know theirs (the others hold junk).
#[derive(Clone, Debug, Default)]
pub struct Rows {
    lanes: usize,
    values: Vec<i64>,
    known: Vec<u64>,
    /// Per step: every lane has the same value, or every lane none.
    uniform: Vec<bool>,
    /// Per step: [`Tape::interval`] gives every lane the same interval.
    same_interval: Vec<bool>,
    /// Per step of a [`CondTape`]: (known, holds) masks.
    logic: Vec<(u64, u64)>,
    /// Per step: the one value its row was last filled with (a constant, a
    /// uniform result, an unknown's 0), if it was: a run that fills it with
    /// the same again leaves it as it is. Tapes that take turns in one
    /// buffer share their first steps (`val[j]` and `col[j]` differ in their
    /// base only), so many of their constant rows are found filled.
    filled: Vec<Option<i64>>,
}

/// The threads one run of a [`Tape`] is for, as it reads them: each one's
/// environment, and the leaves that every step reads (thread ids, phi
/// variables) a whole row at a time, which a caller that keeps them in
/// rows of its own (the walk) gives without going lane by lane.
pub trait Lanes {
    /// How many (at most [`MAX_LANES`]).
    fn count(&self) -> usize;
    /// Lane `lane`'s environment.
    fn env(&self, lane: usize) -> &Env;
    /// Every lane's special register `s`, into `row`: the mask of the
    /// lanes that know it, and whether it is uniform.
    fn sreg(&self, s: Sreg, row: &mut [i64]) -> (u64, bool) {
        per_lane(row, |l| self.env(l).sreg(s))
    }
    /// Every lane's phi variable `var` (`Expr::Rec`), as [`Lanes::sreg`].
    fn var(&self, var: u32, row: &mut [i64]) -> (u64, bool) {
        per_lane(row, |l| {
            self.env(l).vars.get(var as usize).copied().flatten()
        })
    }
}

/// One thread.
impl Lanes for &Env {
    fn count(&self) -> usize {
        1
    }
    fn env(&self, _: usize) -> &Env {
        self
    }
}

/// The mask of `lanes` lanes.
pub fn all_lanes(lanes: usize) -> u64 {
    if lanes >= 64 {
        !0
    } else {
        (1 << lanes) - 1
    }
}

impl Rows {
    fn reset(&mut self, steps: usize, lanes: usize) {
        assert!(
            lanes <= MAX_LANES,
            "a tape runs for at most {MAX_LANES} lanes"
        );
        if self.lanes != lanes {
            // The rows move: none is known filled.
            self.filled.clear();
        }
        self.lanes = lanes;
        self.values.resize(steps * lanes, 0);
        self.filled.resize(steps, None);
        self.known.resize(steps, 0);
        self.uniform.resize(steps, false);
        self.same_interval.resize(steps, false);
    }

    /// Lane `lane`'s value at step `step`.
    fn get(&self, step: u32, lane: usize) -> Option<i64> {
        let i = step as usize;
        (self.known[i] >> lane & 1 != 0).then(|| self.values[i * self.lanes + lane])
    }
}

/// Fills `row` with `f` per lane: its known mask, and whether it is
/// uniform.
#[inline(always)]
pub fn per_lane(row: &mut [i64], f: impl Fn(usize) -> Option<i64>) -> (u64, bool) {
    let mut known = 0;
    for (l, v) in row.iter_mut().enumerate() {
        *v = match f(l) {
            Some(x) => {
                known |= 1 << l;
                x
            }
            None => 0,
        };
    }
    (known, uniform(row, known))
}

/// Whether a row whose known lanes are `known` is uniform (see [`Rows`]).
pub fn uniform(row: &[i64], known: u64) -> bool {
    known == 0 || (known == all_lanes(row.len()) && row.iter().all(|&v| v == row[0]))
}

/// The lanes of `known` whose value in `row` is 0.
fn zeros(known: u64, row: &[i64]) -> u64 {
    let mut z = 0;
    for (l, &v) in row.iter().enumerate() {
        z |= u64::from(v == 0) << l;
    }
    z & known
}

/// `ring_lanes` for 64-bit adds, subtractions and products, whose wrap at
/// their width is the machine's own: without `wrap_i64`'s width test per
/// lane, the loop runs branch-free (by cachegrind, `ring_lanes` took 5
/// instructions a lane on the gather walk's addresses, 8 % of the walk).
/// `false`, and `out` untouched, for other operations.
fn ring_lanes_64(op: BinOp, xs: &[i64], ys: &[i64], out: &mut [i64]) -> bool {
    #[inline(always)]
    fn lanes(out: &mut [i64], xs: &[i64], ys: &[i64], f: impl Fn(i64, i64) -> i64) {
        for ((o, &x), &y) in out.iter_mut().zip(xs).zip(ys) {
            *o = f(x, y);
        }
    }
    match op {
        BinOp::Add => lanes(out, xs, ys, i64::wrapping_add),
        BinOp::Sub => lanes(out, xs, ys, i64::wrapping_sub),
        BinOp::Mul => lanes(out, xs, ys, i64::wrapping_mul),
        _ => return false,
    }
    true
}

/// Whether `e` is made of thread and block ids, loop variables, constants
/// and bases only: what two lanes can compare as it is.
fn is_plain(e: &Expr) -> bool {
    match e {
        Expr::Const(_) | Expr::Sreg(_) | Expr::Rec(_) | Expr::Base(_) => true,
        Expr::Bin { lhs, rhs, .. } => is_plain(lhs) && is_plain(rhs),
        Expr::Cast { value, .. } => is_plain(value),
        Expr::AddRec { start, .. } => is_plain(start),
        _ => false,
    }
}

impl Tape {
    pub fn of(e: &E) -> Tape {
        let mut tape = Tape::empty();
        tape.root = tape.push(e, &mut HashMap::new());
        tape.reads_env = tape.steps.iter().any(Step::was_lane);
        let mut plain = true;
        e.visit(&mut |x| {
            if let Expr::Loaded { from, .. } = x {
                plain &= is_plain(from);
            }
        });
        if !plain {
            tape.loads.clear();
        }
        tape
    }

    fn empty() -> Tape {
        Tape {
            steps: Vec::new(),
            widths: Vec::new(),
            root: 0,
            reads_env: false,
            loads: Vec::new(),
        }
    }

    /// Steps per lane: what one evaluation costs.
    pub fn cost(&self) -> u64 {
        self.steps.len() as u64
    }

    fn push(&mut self, e: &E, index: &mut HashMap<*const Expr, u32>) -> u32 {
        if let Some(&i) = index.get(&Rc::as_ptr(e)) {
            return i;
        }
        let step = match &**e {
            Expr::Const(c) => Step::Const(*c),
            Expr::Sreg(s) => Step::Sreg(*s),
            Expr::Rec(n) => Step::Rec(*n),
            Expr::Base(b) => Step::Const(b.address()),
            Expr::Bin { op, lhs, rhs, bits } => {
                let lhs = self.push(lhs, index);
                let rhs = self.push(rhs, index);
                self.widths[lhs as usize] = *bits;
                self.widths[rhs as usize] = *bits;
                Step::Bin {
                    op: *op,
                    bits: *bits,
                    lhs,
                    rhs,
                }
            }
            Expr::Cast {
                op,
                value,
                from,
                to,
            } => {
                let value = self.push(value, index);
                self.widths[value as usize] = *from;
                Step::Cast {
                    op: *op,
                    from: *from,
                    to: *to,
                    value,
                }
            }
            Expr::AddRec { start, .. } => {
                let i = self.push(start, index);
                index.insert(Rc::as_ptr(e), i);
                return i;
            }
            Expr::Unknown(_) => Step::Unknown,
            Expr::Loaded { from, .. } => {
                let from = self.push(from, index);
                self.loads.push(from);
                Step::Loaded
            }
            _ => Step::Lane(e.clone()),
        };
        self.steps.push(step);
        self.widths.push(64);
        let i = self.steps.len() as u32 - 1;
        index.insert(Rc::as_ptr(e), i);
        i
    }

    /// The values for a group of threads, into `out` (one entry per
    /// lane); `rows` keeps every step's, for [`Tape::interval`].
    pub fn eval_lanes(&self, lanes: &impl Lanes, out: &mut Vec<Option<i64>>, rows: &mut Rows) {
        self.run(lanes, rows);
        self.values(rows, out);
    }

    /// The values of the group [`Tape::run`] filled `rows` for, into
    /// `out` (one entry per lane).
    pub fn values(&self, rows: &Rows, out: &mut Vec<Option<i64>>) {
        out.clear();
        out.extend((0..rows.lanes).map(|l| rows.get(self.root, l)));
    }

    /// The group's values when every lane knows its own, after
    /// [`Tape::run`] filled `rows`.
    pub fn known_row<'r>(&self, rows: &'r Rows) -> Option<&'r [i64]> {
        let (root, n) = (self.root as usize, rows.lanes);
        (n > 0 && rows.known.get(root) == Some(&all_lanes(n)))
            .then(|| &rows.values[root * n..(root + 1) * n])
    }

    /// The value every lane of the group knows and shares, if they do,
    /// after [`Tape::run`] filled `rows` (what [`Tape::values`] would give
    /// each lane).
    pub fn known_uniform(&self, rows: &Rows) -> Option<i64> {
        let (root, n) = (self.root as usize, rows.lanes);
        (n > 0 && rows.uniform[root] && rows.known[root] == all_lanes(n))
            .then(|| rows.values[root * n])
    }

    /// Whether no lane of the group knows its value, after [`Tape::run`]
    /// filled `rows` for a group of at least one lane.
    pub fn none_known(&self, rows: &Rows) -> bool {
        rows.lanes > 0 && rows.known.get(self.root as usize) == Some(&0)
    }

    /// The value for one thread.
    pub fn eval(&self, env: &Env, rows: &mut Rows) -> Option<i64> {
        self.run(&env, rows);
        rows.get(self.root, 0)
    }

    /// The interval (`bounds`) of lane `lane`'s value, after
    /// [`Tape::eval_lanes`] filled `rows`, `env` being that lane's: the
    /// steps the lane knows are points, the others are bounded by their
    /// operands. `scratch` is a buffer.
    pub fn interval(
        &self,
        env: &Env,
        lane: usize,
        rows: &Rows,
        scratch: &mut Vec<Interval>,
    ) -> Interval {
        scratch.clear();
        for (i, step) in self.steps.iter().enumerate() {
            let bits = self.widths[i];
            let at = |j: u32| scratch[j as usize];
            let v = match rows.get(i as u32, lane) {
                Some(v) => Interval::point(v, bits),
                None => match step {
                    Step::Bin { op, bits, lhs, rhs } => bounds::bin(*op, at(*lhs), at(*rhs), *bits),
                    Step::Cast {
                        op,
                        from,
                        to,
                        value,
                    } => bounds::cast(*op, at(*value), *from, *to),
                    Step::Lane(e) => bounds::interval(e, bits, &|x| eval(x, env)),
                    // `bounds::interval` of an unknown: its type's range.
                    Step::Const(_)
                    | Step::Sreg(_)
                    | Step::Rec(_)
                    | Step::Unknown
                    | Step::Loaded => Interval::full(bits),
                },
            };
            scratch.push(v);
        }
        scratch[self.root as usize]
    }

    /// Whether [`Tape::interval`] is the same for every lane of the group
    /// `rows` was filled for: what it reads is uniform.
    pub fn same_interval(&self, rows: &Rows) -> bool {
        rows.same_interval.get(self.root as usize) == Some(&true)
    }

    /// Whether the tape reads the threads' environments beyond their ids
    /// and variables (a stand-in, bound data, a `select`): then what they
    /// say of stand-ins ([`Env::standin`]) matters.
    pub fn reads_env(&self) -> bool {
        self.reads_env
    }

    /// Runs the tape for a group of threads, every step's values into
    /// `rows`.
    pub fn run(&self, group: &impl Lanes, rows: &mut Rows) {
        self.run_loaded_as(group, rows, None);
    }

    /// The addresses of the tape's per-thread loads that decide which lanes
    /// load the same values: for each, its step (rows hold lane values
    /// there after a run); empty where the tape has none, or where one of
    /// them reads something other than ids, variables, constants and bases.
    pub fn loads(&self) -> &[u32] {
        &self.loads
    }

    /// Lane `lane`'s value at step `step` after a run, if it knows it.
    pub fn value_at(rows: &Rows, step: u32, lane: usize) -> Option<i64> {
        rows.get(step, lane)
    }

    /// [`Tape::run`], with every per-thread load (`Expr::Loaded`) reading
    /// `loaded` in every lane where it is given: two runs with different
    /// values tell how an address moves with them.
    pub fn run_loaded_as(&self, group: &impl Lanes, rows: &mut Rows, loaded: Option<i64>) {
        let lanes = group.count();
        let env = |l: usize| group.env(l);
        rows.reset(self.steps.len(), lanes);
        if lanes == 0 {
            return;
        }
        let all = all_lanes(lanes);
        let Rows {
            values,
            known,
            uniform,
            same_interval,
            filled,
            ..
        } = rows;
        for (i, step) in self.steps.iter().enumerate() {
            let (done, rest) = values.split_at_mut(i * lanes);
            let row = &mut rest[..lanes];
            let at = |j: u32| &done[j as usize * lanes..(j as usize + 1) * lanes];
            // A uniform row's value: its first lane's.
            let first = |j: u32| (known[j as usize] & 1 != 0).then(|| done[j as usize * lanes]);
            // The value a row of one value is filled with, after the match.
            let mut fill = None;
            let mut once = |v: Option<i64>| {
                fill = Some(v.unwrap_or(0));
                (if v.is_some() { all } else { 0 }, true)
            };
            let (k, u) = match step {
                Step::Const(c) => once(Some(*c)),
                Step::Sreg(s) => group.sreg(*s, row),
                Step::Rec(r) => group.var(*r, row),
                Step::Lane(e) => per_lane(row, |l| eval(e, env(l))),
                // `per_lane` of a value no lane knows.
                Step::Unknown => once(None),
                Step::Loaded => once(loaded),
                Step::Bin { op, bits, lhs, rhs } => {
                    let (l, r) = (*lhs as usize, *rhs as usize);
                    if uniform[l] && uniform[r] {
                        once(bin_value(*op, first(*lhs), first(*rhs), *bits))
                    } else {
                        let (xs, ys) = (at(*lhs), at(*rhs));
                        let (ka, kb) = (known[l], known[r]);
                        let both = ka & kb;
                        let mut k = both;
                        let ring = (*bits >= 64 && ring_lanes_64(*op, xs, ys, row))
                            || ring_lanes(*op, *bits, xs, ys, row);
                        if !ring {
                            k = 0;
                            for lane in 0..lanes {
                                if both >> lane & 1 != 0 {
                                    if let Some(v) = apply_bin(*op, xs[lane], ys[lane], *bits) {
                                        row[lane] = v;
                                        k |= 1 << lane;
                                    }
                                }
                            }
                        }
                        if both != all && absorbs(*op) {
                            let absorbed = (zeros(ka, xs) | zeros(kb, ys)) & !both;
                            for (lane, v) in row.iter_mut().enumerate() {
                                if absorbed >> lane & 1 != 0 {
                                    *v = 0;
                                }
                            }
                            k |= absorbed;
                        }
                        (k, false)
                    }
                }
                Step::Cast {
                    op,
                    from,
                    to,
                    value,
                } => {
                    if uniform[*value as usize] {
                        once(first(*value).map(|x| apply_cast(*op, x, *from, *to)))
                    } else {
                        for (v, &x) in row.iter_mut().zip(at(*value)) {
                            *v = apply_cast(*op, x, *from, *to);
                        }
                        (known[*value as usize], false)
                    }
                }
            };
            if fill.is_some() && filled[i] != fill {
                row.fill(fill.unwrap_or(0));
            }
            filled[i] = fill;
            known[i] = k;
            uniform[i] = u;
            // A lane's interval at this step: a point where it knows the
            // value, else what the operands' intervals give (`interval`).
            same_interval[i] = u
                && (k == all
                    || match step {
                        Step::Bin { lhs, rhs, .. } => {
                            same_interval[*lhs as usize] && same_interval[*rhs as usize]
                        }
                        Step::Cast { value, .. } => same_interval[*value as usize],
                        // `bounds::interval` reads a lane's values below a select.
                        Step::Lane(e) => !matches!(**e, Expr::Select { .. }),
                        Step::Const(_)
                        | Step::Sreg(_)
                        | Step::Rec(_)
                        | Step::Unknown
                        | Step::Loaded => true,
                    });
        }
    }
}

/// A condition compiled for groups of lanes: the operands of its
/// comparisons are one [`Tape`] (a node they share is computed once), and
/// its logic runs on masks, a bit per lane. The values are those of
/// [`eval_cond`].
#[derive(Clone, Debug)]
pub struct CondTape {
    operands: Tape,
    steps: Vec<CondStep>,
    root: u32,
}

#[derive(Clone, Debug)]
enum CondStep {
    Const(bool),
    /// Operands: steps of the tape.
    Cmp {
        pred: IntPredicate,
        bits: u32,
        lhs: u32,
        rhs: u32,
    },
    And(u32, u32),
    Or(u32, u32),
    Not(u32),
    Unknown,
}

impl CondTape {
    pub fn of(c: &Rc<Cond>) -> CondTape {
        let mut out = CondTape {
            operands: Tape::empty(),
            steps: Vec::new(),
            root: 0,
        };
        out.root = out.push(c, &mut HashMap::new(), &mut HashMap::new());
        out.operands.reads_env = out.operands.steps.iter().any(Step::was_lane);
        out
    }

    fn push(
        &mut self,
        c: &Rc<Cond>,
        exprs: &mut HashMap<*const Expr, u32>,
        conds: &mut HashMap<*const Cond, u32>,
    ) -> u32 {
        if let Some(&i) = conds.get(&Rc::as_ptr(c)) {
            return i;
        }
        let step = match &**c {
            Cond::Const(b) => CondStep::Const(*b),
            Cond::Cmp {
                pred,
                lhs,
                rhs,
                bits,
            } => CondStep::Cmp {
                pred: *pred,
                bits: *bits,
                lhs: self.operands.push(lhs, exprs),
                rhs: self.operands.push(rhs, exprs),
            },
            Cond::And(a, b) => {
                CondStep::And(self.push(a, exprs, conds), self.push(b, exprs, conds))
            }
            Cond::Or(a, b) => CondStep::Or(self.push(a, exprs, conds), self.push(b, exprs, conds)),
            Cond::Not(a) => CondStep::Not(self.push(a, exprs, conds)),
            Cond::Unknown(_) => CondStep::Unknown,
        };
        self.steps.push(step);
        let i = self.steps.len() as u32 - 1;
        conds.insert(Rc::as_ptr(c), i);
        i
    }

    /// Whether the condition reads the threads' environments beyond their
    /// ids and variables (see [`Tape::reads_env`]).
    pub fn reads_env(&self) -> bool {
        self.operands.reads_env()
    }

    /// For a group of threads: the lanes whose condition is known, and
    /// those of them where it holds, as masks.
    pub fn run(&self, group: &impl Lanes, rows: &mut Rows) -> (u64, u64) {
        let lanes = group.count();
        self.operands.run(group, rows);
        let all = all_lanes(lanes);
        let mut logic = std::mem::take(&mut rows.logic);
        logic.clear();
        for step in &self.steps {
            let at = |j: u32| logic[j as usize];
            let v = match *step {
                CondStep::Const(b) => (all, if b { all } else { 0 }),
                CondStep::Unknown => (0, 0),
                CondStep::Cmp {
                    pred,
                    bits,
                    lhs,
                    rhs,
                } => {
                    let (l, r) = (lhs as usize, rhs as usize);
                    if lanes > 0 && rows.uniform[l] && rows.uniform[r] {
                        match (rows.get(lhs, 0), rows.get(rhs, 0)) {
                            (Some(a), Some(b)) => {
                                (all, if compare(pred, a, b, bits) { all } else { 0 })
                            }
                            _ => (0, 0),
                        }
                    } else {
                        let both = rows.known[l] & rows.known[r];
                        let (xs, ys) = (
                            &rows.values[l * lanes..(l + 1) * lanes],
                            &rows.values[r * lanes..(r + 1) * lanes],
                        );
                        let mut holds = 0;
                        for (lane, (&a, &b)) in xs.iter().zip(ys).enumerate() {
                            holds |= u64::from(compare(pred, a, b, bits)) << lane;
                        }
                        (both, holds & both)
                    }
                }
                // Short-circuit: a known false side decides an `and` even
                // if the other is unknown (as `eval_cond`).
                CondStep::And(a, b) => {
                    let ((ka, ta), (kb, tb)) = (at(a), at(b));
                    let fails = (ka & !ta) | (kb & !tb);
                    let holds = ta & tb;
                    (fails | holds, holds)
                }
                CondStep::Or(a, b) => {
                    let ((ka, ta), (kb, tb)) = (at(a), at(b));
                    let holds = ta | tb;
                    let fails = (ka & !ta) & (kb & !tb);
                    (fails | holds, holds)
                }
                CondStep::Not(a) => {
                    let (k, t) = at(a);
                    (k, k & !t)
                }
            };
            logic.push(v);
        }
        let out = logic[self.root as usize];
        rows.logic = logic;
        out
    }
}
