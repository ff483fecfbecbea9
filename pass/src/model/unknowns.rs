//! What the walk does with addresses it cannot compute (issue 7, issue
//! 19 fact 12): which instructions read stand-ins (block-uniform unknowns)
//! and how ([`Standins`], [`standin_uses`]); the regions that keep
//! unrelated synthetic addresses apart ([`shift_region`]); the naturally
//! aligned range a bounded unknown is drawn from ([`Range`]); and loop
//! variables whose start is unknown per lane but whose step is known
//! ([`Based`]), which keep their recurrence.
//!
//! The walk (`walk`) decides when each applies; this file holds the rules
//! and their arithmetic, pure functions of expressions and numbers.

use crate::facts::address::{Cond, Expr, E};
use crate::facts::bounds::Interval;
use crate::model::program::Program;
use crate::model::trace::MAX_BOUNDED_SPAN;

/// How a memory instruction's address depends on stand-ins (integer
/// arguments nobody gave, values loaded from block-uniform addresses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Standins {
    None,
    /// Read directly: evaluated at two stand-ins, the address is used only
    /// if every thread's moves by the same amount (a shift of the whole
    /// footprint); otherwise it is unknown per thread.
    Direct,
    /// Read through a loop variable, whose value only one stand-in gave:
    /// unknown per thread.
    ThroughVariable,
}

/// What an expression reads, for the stand-in rules.
#[derive(Clone, Copy, Default)]
struct Reads {
    /// A stand-in (an `Arg` left after specialisation, a `Uniform`).
    standin: bool,
    /// Something that differs between threads or blocks.
    varying: bool,
    /// A loop variable a stand-in reached.
    tainted: bool,
    /// A stand-in combined with a varying value by an operation that is not
    /// linear in it (`t & n`, `t << sh`, `t % n`): two stand-in values say
    /// nothing about the addresses, so they are unknown per thread.
    nonlinear: bool,
}

impl Reads {
    fn or(self, o: Reads) -> Reads {
        Reads {
            standin: self.standin || o.standin,
            varying: self.varying || o.varying,
            tainted: self.tainted || o.tainted,
            nonlinear: self.nonlinear || o.nonlinear,
        }
    }
}

fn reads(e: &Expr, tainted: &[bool]) -> Reads {
    use crate::facts::address::{BinOp, Sreg};
    match e {
        Expr::Arg { .. } | Expr::Uniform { .. } => Reads {
            standin: true,
            ..Reads::default()
        },
        Expr::Sreg(Sreg::Tid(_) | Sreg::Ctaid(_) | Sreg::LaneId) => Reads {
            varying: true,
            ..Reads::default()
        },
        Expr::Rec(v) => Reads {
            varying: true,
            tainted: tainted.get(*v as usize).copied().unwrap_or(false),
            ..Reads::default()
        },
        Expr::Data { from, .. } => Reads {
            varying: true,
            ..reads(from, tainted)
        },
        Expr::Bin { op, lhs, rhs, .. } => {
            let (l, r) = (reads(lhs, tainted), reads(rhs, tainted));
            let all = l.or(r);
            let linear = match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul => true,
                BinOp::Shl => !r.standin,
                _ => false,
            };
            Reads {
                nonlinear: all.nonlinear || (!linear && all.standin && all.varying),
                ..all
            }
        }
        Expr::Cast { value, .. } => reads(value, tainted),
        Expr::Select {
            then, otherwise, ..
        } => reads(then, tainted).or(reads(otherwise, tainted)),
        Expr::AddRec { start, step, .. } => Reads {
            varying: true,
            ..reads(start, tainted).or(reads(step, tainted))
        },
        _ => Reads::default(),
    }
}

/// The naturally aligned start addresses a bounded unknown may take:
/// `first`, `first + align`, ..., `count` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Range {
    first: u64,
    align: u64,
    count: u64,
}

impl Range {
    /// The aligned addresses in `address` (an interval of start addresses)
    /// for a `bytes`-wide access, if they cover at most
    /// [`MAX_BOUNDED_SPAN`] bytes; `None` for an unbounded one.
    pub(crate) fn within(address: Interval, bytes: u32) -> Option<Range> {
        // The largest power of two dividing the access size (a 12-byte
        // struct read is 4-byte aligned).
        let align = 1i128 << bytes.max(1).trailing_zeros();
        if address.lo < 0 || address.width() >= u128::from(MAX_BOUNDED_SPAN) {
            return None;
        }
        let first = (address.lo + align - 1) / align * align;
        let last = address.hi / align * align;
        if last < first || (last - first) as u64 + u64::from(bytes) > MAX_BOUNDED_SPAN {
            return None;
        }
        Some(Range {
            first: first as u64,
            align: align as u64,
            count: ((last - first) / align) as u64 + 1,
        })
    }

    /// The bytes the range's accesses cover.
    pub(crate) fn span(self, bytes: u32) -> u64 {
        (self.count - 1) * self.align + u64::from(bytes)
    }

    /// The first byte the range's accesses may touch, and the byte past
    /// the last.
    pub(crate) fn reach(self, bytes: u32) -> (u64, u64) {
        (self.first, self.first + self.span(bytes))
    }

    /// One of the addresses, uniformly, by a hash of `key` (instruction,
    /// block, warp, lane, execution): deterministic, and independent
    /// between lanes and executions.
    pub(crate) fn draw(self, key: [u32; 5]) -> u64 {
        let mut h = 0u64;
        for k in key {
            h = splitmix(h ^ u64::from(k));
        }
        self.first + (h % self.count) * self.align
    }
}

/// SplitMix64's finaliser (Steele et al., OOPSLA 2014): a well-mixed
/// 64-bit hash of its input.
pub(crate) fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A stand-in shift's own region of the address space: accesses whose
/// addresses moved by different amounts between the two stand-ins (`a[j*n]`
/// for different j, `a[blockIdx.x*n]` for different blocks) have no known
/// distance, so they must not meet; equal shifts share a region. Regions
/// start at 2^60, past every base and below [`UNKNOWN_REGION`], 2^48 apart.
pub(crate) fn shift_region(shift: i64) -> i64 {
    let h = (shift as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    (1i64 << 60) + (((h % 4095) + 1) as i64) * (1i64 << 48)
}

/// Per instruction, how its address depends on stand-ins. After
/// specialisation every `Arg` left is one nobody gave. A loop variable is
/// tainted when some incoming value reads a stand-in or a tainted variable.
pub(crate) fn standin_uses(program: &Program, instructions: usize) -> Vec<Standins> {
    let mut tainted = vec![false; program.vars as usize];
    let mut changed = true;
    while changed {
        changed = false;
        for p in program.nodes.iter().flat_map(|n| n.phis.iter()) {
            if tainted[p.var as usize] {
                continue;
            }
            if p.incoming.iter().any(|(_, e)| {
                let r = reads(e, &tainted);
                r.standin || r.tainted
            }) {
                tainted[p.var as usize] = true;
                changed = true;
            }
        }
    }
    let mut uses = vec![Standins::None; instructions];
    for m in program.nodes.iter().flat_map(|n| n.ops.iter()) {
        let r = reads(&m.address, &tainted);
        uses[m.inst as usize] = if r.tainted || r.nonlinear {
            Standins::ThroughVariable
        } else if r.standin {
            Standins::Direct
        } else {
            Standins::None
        };
    }
    uses
}

/// The coefficient of loop variable `var` in `e`, when `e` is affine in it
/// (`Rec(var)` reached through `+`, `-`, multiplication or a left shift by
/// a constant, and integer casts); `Some(0)` when `e` does not read it;
/// `None` when it reads it otherwise (`j & 7`, `j * n` with `n` unknown,
/// a select). A cast is taken as exact: offsets from a synthetic base stay
/// small, far from any wrap.
pub(crate) fn coefficient(e: &Expr, var: u32) -> Option<i64> {
    use crate::facts::address::BinOp;
    match e {
        Expr::Rec(v) => Some(i64::from(*v == var)),
        Expr::Bin { op, lhs, rhs, .. } => {
            let (l, r) = (coefficient(lhs, var), coefficient(rhs, var));
            let constant = |x: &Expr| match x {
                Expr::Const(c) => Some(*c),
                _ => None,
            };
            match op {
                BinOp::Add => l?.checked_add(r?),
                BinOp::Sub => l?.checked_sub(r?),
                BinOp::Mul => match (l?, r?) {
                    (0, 0) => Some(0),
                    (0, c) => c.checked_mul(constant(lhs)?),
                    (c, 0) => c.checked_mul(constant(rhs)?),
                    _ => None,
                },
                BinOp::Shl => match (l?, r?) {
                    (c, 0) => c.checked_mul(1i64.checked_shl(u32::try_from(constant(rhs)?).ok()?)?),
                    _ => None,
                },
                _ => (l? == 0 && r? == 0).then_some(0),
            }
        }
        Expr::Cast { value, .. } => coefficient(value, var),
        Expr::Select {
            then, otherwise, ..
        } => (coefficient(then, var)? == 0 && coefficient(otherwise, var)? == 0).then_some(0),
        Expr::AddRec { start, step, .. } => {
            (coefficient(start, var)? == 0 && coefficient(step, var)? == 0).then_some(0)
        }
        Expr::Data { from, .. } | Expr::Uniform { from, .. } | Expr::Loaded { from, .. } => {
            (coefficient(from, var)? == 0).then_some(0)
        }
        _ => Some(0),
    }
}

/// The loop variables `e` reads, each with its [`coefficient`].
pub(crate) fn variables(e: &Expr) -> Vec<(u32, Option<i64>)> {
    let mut vars = Vec::new();
    collect_vars(e, &mut vars);
    vars.sort_unstable();
    vars.dedup();
    vars.into_iter().map(|v| (v, coefficient(e, v))).collect()
}

fn collect_vars(e: &Expr, out: &mut Vec<u32>) {
    match e {
        Expr::Rec(v) => out.push(*v),
        Expr::Bin { lhs, rhs, .. } => {
            collect_vars(lhs, out);
            collect_vars(rhs, out);
        }
        Expr::Cast { value, .. } => collect_vars(value, out),
        Expr::Select {
            cond,
            then,
            otherwise,
        } => {
            collect_cond_vars(cond, out);
            collect_vars(then, out);
            collect_vars(otherwise, out);
        }
        Expr::AddRec { start, step, .. } => {
            collect_vars(start, out);
            collect_vars(step, out);
        }
        // A per-thread load's address: the walk reads it to tell which
        // lanes load one value (`Expr::Loaded`).
        Expr::Data { from, .. } | Expr::Uniform { from, .. } | Expr::Loaded { from, .. } => {
            collect_vars(from, out)
        }
        _ => {}
    }
}

/// The loop variables a condition reads.
pub(crate) fn cond_variables(c: &Cond) -> Vec<u32> {
    let mut vars = Vec::new();
    collect_cond_vars(c, &mut vars);
    vars.sort_unstable();
    vars.dedup();
    vars
}

fn collect_cond_vars(c: &Cond, out: &mut Vec<u32>) {
    match c {
        Cond::Cmp { lhs, rhs, .. } => {
            collect_vars(lhs, out);
            collect_vars(rhs, out);
        }
        Cond::And(a, b) | Cond::Or(a, b) => {
            collect_cond_vars(a, out);
            collect_cond_vars(b, out);
        }
        Cond::Not(a) => collect_cond_vars(a, out),
        _ => {}
    }
}

/// Whether `e` reads a value loaded from memory per thread (`x[col[j]]`):
/// when its address is unknown, the access is a data-dependent gather.
pub(crate) fn reads_loaded(e: &Expr) -> bool {
    match e {
        Expr::Data { .. }
        | Expr::Loaded { .. }
        | Expr::Unknown(crate::facts::address::Why::Memory) => true,
        Expr::Bin { lhs, rhs, .. } => reads_loaded(lhs) || reads_loaded(rhs),
        Expr::Cast { value, .. } => reads_loaded(value),
        Expr::Select {
            then, otherwise, ..
        } => reads_loaded(then) || reads_loaded(otherwise),
        Expr::AddRec { start, step, .. } => reads_loaded(start) || reads_loaded(step),
        _ => false,
    }
}

/// Per instruction (`instructions` of them): the first instruction whose
/// address is its own but for a constant addend, and that addend. The
/// fields of one struct read through one unknown index (`p[s].x`,
/// `p[s].y`, `p[s].z`, `s` loaded) are one element: their drawn addresses
/// keep their offsets from each other (one draw for the group, the
/// addend added), rather than a draw each that would put each field in a
/// line of its own.
pub(crate) fn draw_groups(program: &Program, instructions: usize) -> Vec<(u32, i64)> {
    fn split(e: &E) -> (&E, i64) {
        match &**e {
            Expr::Bin {
                op: crate::facts::int::BinOp::Add,
                lhs,
                rhs,
                ..
            } => match &**rhs {
                Expr::Const(c) => {
                    let (inner, k) = split(lhs);
                    (inner, k.wrapping_add(*c))
                }
                _ => (e, 0),
            },
            _ => (e, 0),
        }
    }
    let mut out: Vec<(u32, i64)> = (0..instructions as u32).map(|i| (i, 0)).collect();
    // By the shared node (the expression DAG keeps one node for `p + 28*s`
    // that the fields' addresses add their offsets to): first instruction,
    // its addend.
    let mut seen: std::collections::HashMap<*const Expr, (u32, i64)> = Default::default();
    let mut done = vec![false; instructions];
    for m in program.nodes.iter().flat_map(|n| n.ops.iter()) {
        let i = m.inst as usize;
        if done[i] {
            continue;
        }
        done[i] = true;
        let (inner, k) = split(&m.address);
        match seen.get(&std::rc::Rc::as_ptr(inner)) {
            Some(&(leader, base)) => out[i] = (leader, k.wrapping_sub(base)),
            None => {
                seen.insert(std::rc::Rc::as_ptr(inner), (m.inst, k));
            }
        }
    }
    out
}

/// What a value is relative to, for one lane (issue 19 fact 12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Based {
    /// Its value is what it is.
    Absolute,
    /// It is `coefficient × S + value` for the lane's unknown start `S`
    /// numbered `base` (from 1): a loop variable whose start is unknown per
    /// lane (`j = rowptr[r]`) keeps its known step (`++j`) this way.
    On { base: u32, coefficient: i64 },
    /// It mixes two unknown starts, or reads one non-linearly: unknown.
    Unknown,
}

impl Based {
    /// What `vars` (an expression's [`variables`]) make of it, given what
    /// each variable of the lane is relative to (`bases[v]`: 0 absolute,
    /// else the base number).
    pub(crate) fn of(vars: &[(u32, Option<i64>)], bases: &[u32]) -> Based {
        let mut found = Based::Absolute;
        for &(v, coefficient) in vars {
            let base = bases[v as usize];
            if base == 0 {
                continue;
            }
            let Some(c) = coefficient else {
                return Based::Unknown;
            };
            found = match found {
                Based::Absolute => Based::On {
                    base,
                    coefficient: c,
                },
                Based::On {
                    base: b,
                    coefficient: total,
                } if b == base => Based::On {
                    base,
                    coefficient: total + c,
                },
                _ => return Based::Unknown,
            };
        }
        match found {
            // `end - start` of one base: the unknown cancels.
            Based::On { coefficient: 0, .. } => Based::Absolute,
            other => other,
        }
    }
}

/// A new unknown start's value, relative to itself: its number modulo
/// this. Lanes' starts spread evenly over the eight 4-byte words of a
/// 32-byte sector, so a lane's run of consecutive words splits across
/// sectors as often, on average, as from a uniformly random start: 8 words
/// touch 1 + 7/8 sectors on average (for 8-byte elements the offsets cover
/// the four positions of a sector twice: 2 + 3/4 sectors for 8). A start
/// at a sector boundary for every lane would undercount.
pub const START_OFFSETS: u32 = 8;

/// Synthetic regions of addresses relative to an unknown per-lane start
/// begin here: above the stand-in shift regions (2^60 to 2^61) and every
/// real base (stand-in bases are below 2^48, `Base::address`), below
/// [`crate::model::trace::UNKNOWN_REGION`] (15 × 2^60).
pub const BASED_REGION: u64 = 1 << 62;

/// Each unknown start's region: 2^48 bytes, more than the distance between
/// any two stand-in bases, so that `val[j]` of one lane never meets
/// `col[j]` of another: lanes whose starts are unknown share nothing.
pub const BASED_SPACING: u64 = 1 << 48;

/// Regions between [`BASED_REGION`] and `UNKNOWN_REGION`: 11 × 2^12. Base
/// numbers past that reuse regions, the earliest first; a trace of at
/// most 2^19 thread-accesses enters that many loops with unknown starts
/// only when most entries make a single access.
pub const BASED_REGIONS: u64 = 11 << 12;

/// The address an access relative to unknown start `base` lands at: its
/// known part `address` (the real bases and offsets, below 2^48) moved
/// into the start's own region.
pub(crate) fn based_address(address: i64, base: u32) -> u64 {
    let region = u64::from(base.saturating_sub(1)) % BASED_REGIONS;
    (address as u64 & (BASED_SPACING - 1)) + BASED_REGION + region * BASED_SPACING
}

/// Per instruction: whether its address reads a value loaded per thread.
pub(crate) fn loaded_addresses(program: &Program, instructions: usize) -> Vec<bool> {
    let mut loaded = vec![false; instructions];
    for m in program.nodes.iter().flat_map(|n| n.ops.iter()) {
        loaded[m.inst as usize] |= reads_loaded(&m.address);
    }
    loaded
}
