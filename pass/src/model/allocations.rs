//! The allocations a launch gives pointer parameters (issue 19,
//! `walk::Launch::extents`): which instructions' addresses lie within one,
//! and an unknown address's interval clipped to it.

use crate::facts::address::{Base, BinOp, Expr};
use crate::facts::bounds::Interval;
use crate::model::program::Program;

/// Per instruction: the bytes of the allocation its addresses lie within,
/// where every address of it is based on one parameter alone whose
/// allocation `extents` gives (`Launch::extents`).
pub(super) fn extents(
    program: &Program,
    instructions: usize,
    extents: &[(u32, u64, u64)],
) -> Vec<Option<Interval>> {
    if extents.is_empty() {
        return vec![None; instructions];
    }
    program.per_instruction(instructions, |op| {
        let index = param_of(&op.address)?;
        let &(_, before, bytes) = extents.iter().find(|e| e.0 == index)?;
        let base = i128::from(Base::param_address(index));
        Some(Interval {
            lo: base - i128::from(before),
            hi: base + i128::from(bytes) - 1,
        })
    })
}

/// The kernel parameter an address of the walked program is based on: its
/// one constant addend at a parameter's place (`Base::param_address`,
/// folded into a constant by specialisation), to the nearest base (an
/// offset below it, `p[j - 1]`, counts); `None` when it has none or more.
fn param_of(address: &Expr) -> Option<u32> {
    fn addends(e: &Expr, out: &mut Vec<i64>) {
        match e {
            Expr::Bin {
                op: BinOp::Add,
                lhs,
                rhs,
                ..
            } => {
                addends(lhs, out);
                addends(rhs, out);
            }
            Expr::Const(c) => out.push(*c),
            _ => {}
        }
    }
    let mut constants = Vec::new();
    addends(address, &mut constants);
    let slot = Base::param_address(0);
    let mut bases = constants.iter().filter(|&&c| c >= slot / 2);
    let (Some(&c), None) = (bases.next(), bases.next()) else {
        return None;
    };
    u32::try_from((c + slot / 2) / slot - 1).ok()
}

/// `address` (an interval of start addresses of `bytes`-wide accesses)
/// within `extent`, where it has one and they meet; else `address`.
pub(super) fn within(address: Interval, extent: Option<Interval>, bytes: u32) -> Interval {
    let Some(e) = extent else {
        return address;
    };
    let (lo, hi) = (
        address.lo.max(e.lo),
        address.hi.min(e.hi - i128::from(bytes) + 1),
    );
    if lo > hi {
        return address;
    }
    Interval { lo, hi }
}
