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
}

pub fn wrap(v: i128, bits: u32) -> i64 {
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
        return Some(wrap(r as i128, bits));
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

pub fn apply_cast(op: CastOp, v: i64, from: u32, to: u32) -> i64 {
    match op {
        CastOp::Trunc => wrap(v as i128, to),
        CastOp::ZExt => wrap(unsigned(v, from) as i128, to),
        CastOp::SExt => wrap(wrap(v as i128, from) as i128, to),
    }
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
}
