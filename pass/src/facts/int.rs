//! Integer semantics of LLVM IR, at a given bit width: the operations an
//! address or condition is built from, and how each one computes (two's
//! complement, wrapping at the width; poison cases are `None`). Pure; the
//! ground floor that folding, evaluation and printing stand on.

use crate::llvm::ir::IntPredicate;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    SMin,
    SMax,
    UMin,
    UMax,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    /// `fptosi` of an IEEE float `from` bits wide (32 or 64) whose bits
    /// the operand holds: a coordinate read from bound kernel data.
    FpToSi,
    /// `fptoui`, likewise.
    FpToUi,
}

pub fn wrap(v: i128, bits: u32) -> i64 {
    wrap_i64(v as i64, bits)
}

/// [`wrap`] of a value already in an `i64` (the low 64 bits are all that
/// wrapping keeps).
#[inline]
pub fn wrap_i64(v: i64, bits: u32) -> i64 {
    if bits >= 64 {
        return v;
    }
    let shift = 64 - bits;
    (v << shift) >> shift
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
    // The ring operations in i64: the result modulo 2^bits is the same as in
    // i128 (wrap keeps only the low bits), and this is the walk's hot path.
    let ring = match op {
        BinOp::Add => Some(a.wrapping_add(b)),
        BinOp::Sub => Some(a.wrapping_sub(b)),
        BinOp::Mul => Some(a.wrapping_mul(b)),
        BinOp::And => Some(a & b),
        BinOp::Or => Some(a | b),
        BinOp::Xor => Some(a ^ b),
        _ => None,
    };
    if let Some(r) = ring {
        return Some(wrap_i64(r, bits));
    }
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

/// [`apply_bin`] lane by lane, `out[l] = xs[l] op ys[l]`, for the ring
/// operations (add, sub, mul, and, or, xor), which are defined for every
/// pair of operands; `false`, and `out` untouched, for the others. The
/// operation is chosen once for the row (the walk's hot loop).
pub fn ring_lanes(op: BinOp, bits: u32, xs: &[i64], ys: &[i64], out: &mut [i64]) -> bool {
    #[inline(always)]
    fn lanes(out: &mut [i64], xs: &[i64], ys: &[i64], f: impl Fn(i64, i64) -> i64) {
        for ((o, &x), &y) in out.iter_mut().zip(xs).zip(ys) {
            *o = f(x, y);
        }
    }
    match op {
        BinOp::Add => lanes(out, xs, ys, |x, y| wrap_i64(x.wrapping_add(y), bits)),
        BinOp::Sub => lanes(out, xs, ys, |x, y| wrap_i64(x.wrapping_sub(y), bits)),
        BinOp::Mul => lanes(out, xs, ys, |x, y| wrap_i64(x.wrapping_mul(y), bits)),
        BinOp::And => lanes(out, xs, ys, |x, y| wrap_i64(x & y, bits)),
        BinOp::Or => lanes(out, xs, ys, |x, y| wrap_i64(x | y, bits)),
        BinOp::Xor => lanes(out, xs, ys, |x, y| wrap_i64(x ^ y, bits)),
        _ => return false,
    }
    true
}

pub fn apply_cast(op: CastOp, v: i64, from: u32, to: u32) -> i64 {
    match op {
        CastOp::Trunc => wrap(v as i128, to),
        CastOp::ZExt => wrap(unsigned(v, from) as i128, to),
        CastOp::SExt => wrap(wrap(v as i128, from) as i128, to),
        CastOp::FpToSi | CastOp::FpToUi => float_to_int(op == CastOp::FpToSi, v, from, to),
    }
}

/// The integer a float converts to, as the GPU converts it: LLVM leaves an
/// out-of-range `fptosi`/`fptoui` poison, but NVPTX writes them as
/// `cvt.rzi`, which rounds toward zero and clamps to the destination's
/// range, NaN to 0 (PTX ISA, `cvt`: "For float-to-integer conversions, the
/// result is clamped to the destination range by default").
fn float_to_int(signed: bool, bits: i64, from: u32, to: u32) -> i64 {
    let x = if from == 64 {
        f64::from_bits(bits as u64)
    } else {
        f64::from(f32::from_bits(bits as u32))
    };
    if x.is_nan() {
        return 0;
    }
    let to = to.clamp(1, 64);
    let (lo, hi) = if signed {
        (-(2f64.powi(to as i32 - 1)), 2f64.powi(to as i32 - 1))
    } else {
        (0.0, 2f64.powi(to as i32))
    };
    // `hi` itself is out of range: clamp to the largest value below it.
    let t = x.trunc();
    if t >= hi {
        return if signed {
            wrap((1i128 << (to - 1)) - 1, to)
        } else {
            wrap((1i128 << to) - 1, to)
        };
    }
    wrap(t.max(lo) as i128, to)
}

pub fn compare(pred: IntPredicate, a: i64, b: i64, bits: u32) -> bool {
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
        // Floats toward zero, clamped: 2.75 -> 2, -2.75 -> -2, 3e9 -> i32::MAX,
        // -1.5 unsigned -> 0, NaN -> 0; a double -7.9 -> -7.
        let f = |x: f32| i64::from(x.to_bits());
        assert_eq!(apply_cast(CastOp::FpToSi, f(2.75), 32, 32), 2);
        assert_eq!(apply_cast(CastOp::FpToSi, f(-2.75), 32, 32), -2);
        assert_eq!(
            apply_cast(CastOp::FpToSi, f(3e9), 32, 32),
            i64::from(i32::MAX)
        );
        assert_eq!(
            apply_cast(CastOp::FpToSi, f(-3e9), 32, 32),
            i64::from(i32::MIN)
        );
        assert_eq!(apply_cast(CastOp::FpToUi, f(-1.5), 32, 32), 0);
        assert_eq!(apply_cast(CastOp::FpToSi, f(f32::NAN), 32, 32), 0);
        assert_eq!(
            apply_cast(CastOp::FpToSi, (-7.9f64).to_bits() as i64, 64, 64),
            -7
        );
        assert!(compare(IntPredicate::LLVMIntULT, 3, -1, 32));
        assert!(!compare(IntPredicate::LLVMIntSLT, 3, -1, 32));
    }

    #[test]
    fn ring_lanes_agree_with_apply_bin() {
        let xs = [0, 1, -1, i64::MAX, 0x1_0000_0003, -7];
        let ys = [5, -1, -1, 1, 0xffff_ffff, 3];
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
        ] {
            for bits in [1, 8, 32, 64] {
                let mut out = [0; 6];
                assert!(ring_lanes(op, bits, &xs, &ys, &mut out));
                for l in 0..6 {
                    assert_eq!(
                        Some(out[l]),
                        apply_bin(op, xs[l], ys[l], bits),
                        "{op:?} {bits}"
                    );
                }
            }
        }
        assert!(!ring_lanes(BinOp::UDiv, 32, &xs, &ys, &mut [0; 6]));
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
}
