//! Interval evaluation of an address expression: the range a per-thread
//! unknown address must lie in, when the operations around the unknown
//! confine it (`table[v & 255]`, `lut[v % 16]`, `a[min(v, 127)]`).
//!
//! Each value is an [`Interval`] of the signed view of an integer at its IR
//! width, the representation `eval` uses (`int::wrap`). What the lane knows
//! is a point; an unknown leaf (a value loaded from memory, a phi the walk
//! lost) is the full range of its type; each operation maps its operands'
//! intervals to one that holds every result, and to the full range where
//! wrapping at the width could occur. Sound, not tight: a result wider than
//! the truth only weakens the bound, never invents one.
//!
//! Deliberately not done: conditions refining a value (a `select` on
//! `x < 256` takes the hull of its two sides), relations between two uses
//! of one unknown (`x - x` is not 0 here). Pure: no IR, no environment
//! beyond the `point` callback.

use crate::facts::address::{BinOp, CastOp, Expr};

/// A closed interval `[lo, hi]` of signed values at some width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: i128,
    pub hi: i128,
}

fn smin(bits: u32) -> i128 {
    -(1i128 << (bits.clamp(1, 64) - 1))
}

fn smax(bits: u32) -> i128 {
    (1i128 << (bits.clamp(1, 64) - 1)) - 1
}

fn umax(bits: u32) -> i128 {
    (1i128 << bits.clamp(1, 64)) - 1
}

impl Interval {
    /// A known value, read at `bits` as `eval` holds it.
    pub fn point(v: i64, bits: u32) -> Interval {
        let v = i128::from(crate::facts::int::wrap(i128::from(v), bits));
        Interval { lo: v, hi: v }
    }

    /// Every value of a `bits`-wide integer: an unknown.
    pub fn full(bits: u32) -> Interval {
        Interval {
            lo: smin(bits),
            hi: smax(bits),
        }
    }

    /// `[lo, hi]` if every value fits `bits` signed, else the full range
    /// (the operation may have wrapped).
    fn fit(lo: i128, hi: i128, bits: u32) -> Interval {
        if lo >= smin(bits) && hi <= smax(bits) {
            Interval { lo, hi }
        } else {
            Interval::full(bits)
        }
    }

    fn nonnegative(self) -> bool {
        self.lo >= 0
    }

    fn constant(self) -> Option<i128> {
        (self.lo == self.hi).then_some(self.lo)
    }

    fn hull(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// `hi - lo`: how far apart two values in it can be.
    pub fn width(self) -> u128 {
        (self.hi - self.lo) as u128
    }
}

/// The interval of `a op b` at `bits`, the operands' intervals given.
pub fn bin(op: BinOp, a: Interval, b: Interval, bits: u32) -> Interval {
    if let (Some(x), Some(y)) = (a.constant(), b.constant()) {
        if let Some(v) = crate::facts::int::apply_bin(op, x as i64, y as i64, bits) {
            return Interval::point(v, bits);
        }
    }
    let full = Interval::full(bits);
    // The four corners of a monotone operation, if it stays in range.
    let corners = |f: fn(i128, i128) -> Option<i128>| -> Interval {
        let c = [(a.lo, b.lo), (a.lo, b.hi), (a.hi, b.lo), (a.hi, b.hi)].map(|(x, y)| f(x, y));
        if c.iter().any(Option::is_none) {
            return full;
        }
        let c = c.map(Option::unwrap);
        let lo = c.iter().copied().min().unwrap_or(0);
        let hi = c.iter().copied().max().unwrap_or(0);
        Interval::fit(lo, hi, bits)
    };
    let shift = b.constant().filter(|&s| (0..bits as i128).contains(&s));
    match op {
        BinOp::Add => Interval::fit(a.lo + b.lo, a.hi + b.hi, bits),
        BinOp::Sub => Interval::fit(a.lo - b.hi, a.hi - b.lo, bits),
        // Corners of i64-range operands stay within i128.
        BinOp::Mul => corners(|x, y| Some(x * y)),
        BinOp::Shl => match shift {
            Some(s) => Interval::fit(a.lo << s, a.hi << s, bits),
            None => full,
        },
        BinOp::AShr => match shift {
            Some(s) => Interval {
                lo: a.lo >> s,
                hi: a.hi >> s,
            },
            None => full,
        },
        BinOp::LShr => match shift {
            Some(s) if a.nonnegative() => Interval {
                lo: a.lo >> s,
                hi: a.hi >> s,
            },
            // A negative operand reads as a large unsigned one.
            Some(s) if s > 0 => Interval {
                lo: 0,
                hi: umax(bits) >> s,
            },
            _ => full,
        },
        // `x & c` with c's sign bit clear is at most c, whatever x.
        BinOp::And => match (a.nonnegative(), b.nonnegative()) {
            (true, true) => Interval {
                lo: 0,
                hi: a.hi.min(b.hi),
            },
            (true, false) => Interval { lo: 0, hi: a.hi },
            (false, true) => Interval { lo: 0, hi: b.hi },
            (false, false) => full,
        },
        // Neither sets a bit above the highest either operand can have.
        BinOp::Or | BinOp::Xor if a.nonnegative() && b.nonnegative() => {
            let top = a.hi.max(b.hi);
            let bits_used = 128 - top.leading_zeros();
            Interval {
                lo: 0,
                hi: (1i128 << bits_used) - 1,
            }
        }
        BinOp::Or | BinOp::Xor => full,
        // A positive divisor bounds the remainder below it.
        BinOp::URem if b.lo > 0 => Interval {
            lo: 0,
            hi: b.hi - 1,
        },
        BinOp::URem => full,
        BinOp::SRem if b.lo > 0 || b.hi < 0 => {
            let m = b.lo.abs().max(b.hi.abs()) - 1;
            // The remainder takes the dividend's sign.
            let lo = if a.nonnegative() { 0 } else { -m };
            let hi = if a.hi <= 0 { 0 } else { m };
            Interval { lo, hi }
        }
        BinOp::SRem => full,
        BinOp::UDiv if a.nonnegative() && b.lo > 0 => Interval {
            lo: a.lo / b.hi,
            hi: a.hi / b.lo,
        },
        BinOp::UDiv => full,
        // Truncating division is monotone in each operand while the divisor
        // keeps its sign; `MIN / -1` wraps (caught by `fit`).
        BinOp::SDiv if b.lo > 0 || b.hi < 0 => corners(|x, y| Some(x / y)),
        BinOp::SDiv => full,
        BinOp::SMin => Interval {
            lo: a.lo.min(b.lo),
            hi: a.hi.min(b.hi),
        },
        BinOp::SMax => Interval {
            lo: a.lo.max(b.lo),
            hi: a.hi.max(b.hi),
        },
        // Unsigned min is at most a non-negative side, and not negative.
        BinOp::UMin => match (a.nonnegative(), b.nonnegative()) {
            (true, true) => Interval {
                lo: a.lo.min(b.lo),
                hi: a.hi.min(b.hi),
            },
            (true, false) => Interval { lo: 0, hi: a.hi },
            (false, true) => Interval { lo: 0, hi: b.hi },
            (false, false) => full,
        },
        BinOp::UMax if a.nonnegative() && b.nonnegative() => Interval {
            lo: a.lo.max(b.lo),
            hi: a.hi.max(b.hi),
        },
        BinOp::UMax => full,
    }
}

/// The interval of a cast from `from` bits to `to` bits.
pub fn cast(op: CastOp, a: Interval, from: u32, to: u32) -> Interval {
    match op {
        // A value that fits the narrow type is kept; otherwise the low bits
        // of an unknown are any value of the narrow type, not a small range.
        CastOp::Trunc => Interval::fit(a.lo, a.hi, to),
        CastOp::SExt => a,
        CastOp::ZExt if a.nonnegative() => a,
        // Wholly negative: each value moves up by 2^from, in order.
        CastOp::ZExt if a.hi < 0 => Interval {
            lo: a.lo + (1i128 << from),
            hi: a.hi + (1i128 << from),
        },
        CastOp::ZExt => Interval {
            lo: 0,
            hi: umax(from),
        },
        // The operand holds a float's bits, which order nothing: any value.
        CastOp::FpToSi | CastOp::FpToUi => Interval::full(to),
    }
}

/// The interval of `e`, a `bits`-wide value: `point(n)` is a node's value
/// when the lane knows it (then the node is that point), `None` otherwise.
/// A node the lane does not know is bounded by its operands' intervals;
/// a leaf it does not know is the full range.
pub fn interval(e: &Expr, bits: u32, point: &dyn Fn(&Expr) -> Option<i64>) -> Interval {
    if let Some(v) = point(e) {
        return Interval::point(v, bits);
    }
    match e {
        Expr::Bin { op, lhs, rhs, bits } => bin(
            *op,
            interval(lhs, *bits, point),
            interval(rhs, *bits, point),
            *bits,
        ),
        Expr::Cast {
            op,
            value,
            from,
            to,
        } => cast(*op, interval(value, *from, point), *from, *to),
        Expr::Select {
            then, otherwise, ..
        } => interval(then, bits, point).hull(interval(otherwise, bits, point)),
        Expr::AddRec { start, .. } => interval(start, bits, point),
        _ => Interval::full(bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::address::{Base, Sreg, Why, E};
    use std::rc::Rc;

    fn unknown() -> E {
        Rc::new(Expr::Unknown(Why::Memory))
    }

    fn k(v: i64) -> E {
        Rc::new(Expr::Const(v))
    }

    fn op(op: BinOp, lhs: E, rhs: E, bits: u32) -> E {
        Rc::new(Expr::Bin { op, lhs, rhs, bits })
    }

    fn cast_of(op: CastOp, value: E, from: u32, to: u32) -> E {
        Rc::new(Expr::Cast {
            op,
            value,
            from,
            to,
        })
    }

    /// Constants and `tid.x = 5` are known; loaded values are not.
    fn lane(e: &Expr) -> Option<i64> {
        match e {
            Expr::Const(c) => Some(*c),
            Expr::Sreg(Sreg::Tid(0)) => Some(5),
            Expr::Base(b) => Some(b.address()),
            _ => None,
        }
    }

    fn of(e: &E, bits: u32) -> (i128, i128) {
        let i = interval(e, bits, &lane);
        (i.lo, i.hi)
    }

    #[test]
    fn mask_bounds_whatever_the_other_side() {
        // x & 255: the mask's bits, 0..=255.
        let masked = op(BinOp::And, unknown(), k(255), 32);
        assert_eq!(of(&masked, 32), (0, 255));
        // A negative mask keeps the sign bit: unbounded.
        let signed = op(BinOp::And, unknown(), k(-16), 32);
        assert_eq!(of(&signed, 32), (-(1 << 31), (1 << 31) - 1));
    }

    #[test]
    fn remainder_of_non_negative_dividend() {
        // (x & 1023) % 16: the dividend is 0..=1023, so 0..=15.
        let x = op(BinOp::And, unknown(), k(1023), 32);
        assert_eq!(of(&op(BinOp::SRem, x, k(16), 32), 32), (0, 15));
        // x % 16 with x of either sign: -15..=15.
        assert_eq!(of(&op(BinOp::SRem, unknown(), k(16), 32), 32), (-15, 15));
        // x urem 16: 0..=15 whatever x.
        assert_eq!(of(&op(BinOp::URem, unknown(), k(16), 32), 32), (0, 15));
        // x % 0 is undefined: unbounded.
        let by_zero = op(BinOp::SRem, unknown(), k(0), 32);
        assert_eq!(of(&by_zero, 32), (-(1 << 31), (1 << 31) - 1));
    }

    #[test]
    fn table_lookup_address() {
        // base + 4 * sext(x & 255): the histogram's bin_of[v & 255].
        let base = Rc::new(Expr::Base(Base::Param {
            index: 1,
            name: "bin_of".into(),
        }));
        let b = Base::Param {
            index: 1,
            name: String::new(),
        }
        .address() as i128;
        let index = cast_of(CastOp::SExt, op(BinOp::And, unknown(), k(255), 32), 32, 64);
        let address = op(BinOp::Add, base, op(BinOp::Mul, index, k(4), 64), 64);
        // 4 * [0, 255] = [0, 1020] bytes past the base.
        assert_eq!(of(&address, 64), (b, b + 1020));
    }

    #[test]
    fn known_lane_values_are_points() {
        // (x & 255) * 4 + tid.x at tid.x = 5: [5, 1025].
        let e = op(
            BinOp::Add,
            op(BinOp::Mul, op(BinOp::And, unknown(), k(255), 32), k(4), 32),
            Rc::new(Expr::Sreg(Sreg::Tid(0))),
            32,
        );
        assert_eq!(of(&e, 32), (5, 1025));
    }

    #[test]
    fn min_bounds_one_side_only() {
        // min(x, 127) with x a signed unknown: [-2^31, 127], unbounded below.
        let e = op(BinOp::SMin, unknown(), k(127), 32);
        assert_eq!(of(&e, 32), (-(1 << 31), 127));
        // The clamp max(min(x, 127), 0): [0, 127].
        let clamp = op(BinOp::SMax, e, k(0), 32);
        assert_eq!(of(&clamp, 32), (0, 127));
        // umin(x, 127): unsigned, so [0, 127].
        assert_eq!(of(&op(BinOp::UMin, unknown(), k(127), 32), 32), (0, 127));
    }

    #[test]
    fn truncation() {
        // trunc i64 → i32 of an unknown: any i32, not a small range.
        let t = cast_of(CastOp::Trunc, unknown(), 64, 32);
        assert_eq!(of(&t, 32), (-(1 << 31), (1 << 31) - 1));
        // Its sign extension to 64 bits times 4: a 16 GiB span.
        let wide = op(BinOp::Mul, cast_of(CastOp::SExt, t, 32, 64), k(4), 64);
        assert_eq!(of(&wide, 64), (-(1 << 33), (1 << 33) - 4));
        // trunc of (x & 255) to i8: [0, 255] does not fit i8, so any i8.
        let narrow = cast_of(CastOp::Trunc, op(BinOp::And, unknown(), k(255), 32), 32, 8);
        assert_eq!(of(&narrow, 8), (-128, 127));
        // ... and zext of that to i32 (`(unsigned char)x`): [0, 255].
        let byte = cast_of(CastOp::ZExt, narrow, 8, 32);
        assert_eq!(of(&byte, 32), (0, 255));
        // trunc of (x & 127) to i8 fits: kept.
        let fits = cast_of(CastOp::Trunc, op(BinOp::And, unknown(), k(127), 32), 32, 8);
        assert_eq!(of(&fits, 8), (0, 127));
    }

    #[test]
    fn shifts_and_wrapping() {
        // x >> 24 (logical, i32): [0, 255].
        assert_eq!(of(&op(BinOp::LShr, unknown(), k(24), 32), 32), (0, 255));
        // (x & 255) << 2: [0, 1020]; an unknown shift amount: unbounded.
        let m = op(BinOp::And, unknown(), k(255), 32);
        assert_eq!(of(&op(BinOp::Shl, m.clone(), k(2), 32), 32), (0, 1020));
        assert_eq!(
            of(&op(BinOp::Shl, k(1), m.clone(), 32), 32),
            (-(1 << 31), (1 << 31) - 1)
        );
        // (x & 255) + 2^31 - 100 may wrap at i32: unbounded.
        let near = op(BinOp::Add, m, k((1 << 31) - 100), 32);
        assert_eq!(of(&near, 32), (-(1 << 31), (1 << 31) - 1));
    }

    #[test]
    fn zero_extension_of_a_negative_range() {
        // zext i8 of [-2, -1] is [254, 255].
        let i = cast(CastOp::ZExt, Interval { lo: -2, hi: -1 }, 8, 32);
        assert_eq!((i.lo, i.hi), (254, 255));
    }
}
