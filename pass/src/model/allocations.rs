//! The allocations a launch gives pointer parameters (issue 19,
//! `walk::Launch::extents`): which instructions' addresses lie within one,
//! and an unknown address's interval clipped to it.

use crate::facts::address::{Base, BinOp, Expr};
use crate::facts::bounds::Interval;
use crate::model::packed_starts::PACKED_REGION;
use crate::model::program::Program;
use crate::model::trace::Trace;
use crate::model::unknowns::{splitmix, BASED_REGION, BASED_SPACING};

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

/// `trace` with the runs of unknown starts moved into the allocation of
/// their instruction (`extents`, per instruction), where it has one. A
/// start's run lies within the array its parameter is given (an access
/// outside its allocation is undefined behaviour). A start nothing else
/// places (not packed, `packed_starts`) is put at a place drawn within the
/// allocation, one draw per start, so that the arrays a start indexes, and
/// a struct's fields, keep their offsets from each other; packed runs keep
/// their places. Either wraps at the allocation's end: runs packed one
/// after another, or guessed longer than the array holds, cannot reach
/// past it. `None` when nothing moves.
pub fn starts_in_allocations(trace: &Trace, extents: &[Option<Interval>]) -> Option<Trace> {
    let mut out: Option<Trace> = None;
    for e in &trace.events {
        let Some(Some(x)) = extents.get(e.inst as usize) else {
            continue;
        };
        let size = (x.hi - x.lo + 1).max(1) as u64;
        let (s, n) = (e.start as usize, e.lanes as usize);
        for p in s..s + n {
            let a = trace.addresses[p];
            let (known, start) = if (BASED_REGION..PACKED_REGION).contains(&a) {
                let region = (a - BASED_REGION) / BASED_SPACING;
                (
                    (a - BASED_REGION) % BASED_SPACING,
                    (splitmix(region) % size) & !3,
                )
            } else if (PACKED_REGION..PACKED_REGION + BASED_SPACING).contains(&a) {
                (a - PACKED_REGION, 0)
            } else {
                continue;
            };
            let rel = (i128::from(known) - x.lo).rem_euclid(i128::from(size)) as u64;
            let placed = x.lo as u64 + (start + rel) % size;
            out.get_or_insert_with(|| trace.clone()).addresses[p] = placed;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::unknowns::based_address;

    #[test]
    fn starts_move_into_their_allocation_and_packed_runs_wrap() {
        // Parameter 1's allocation: 256 bytes from its base B = 2 << 36
        // (`Base::param_address(1)`). Instruction 0 reads through it;
        // instruction 1 has no allocation.
        let b = Base::param_address(1);
        let extents = [
            Some(Interval {
                lo: i128::from(b),
                hi: i128::from(b) + 255,
            }),
            None,
        ];
        // Start 3 (region 2): words 0 and 1 of its run at B + 0, B + 4,
        // then a packed run's byte 300 past B. Instruction 1 reads the
        // same start: it has no allocation and stays where it was.
        let s0 = based_address(b, 3);
        let packed = PACKED_REGION + b as u64 + 300;
        let t = Trace::one_lane(
            &["1:0", "1:1"],
            &[(0, s0), (0, s0 + 4), (0, packed), (1, s0)],
        );
        let placed = starts_in_allocations(&t, &extents).unwrap();
        let a = &placed.addresses;
        let base = b as u64;
        // The start's two words: somewhere in the 256 bytes, 4 apart (the
        // draw is 4-byte aligned, so the second word cannot wrap away).
        assert!(
            (base..base + 256).contains(&a[0]) && a[0].is_multiple_of(4),
            "{:#x}",
            a[0]
        );
        assert_eq!(a[1], base + (a[0] - base + 4) % 256);
        // The packed run keeps its place, wrapped: 300 mod 256 = 44.
        assert_eq!(a[2], base + 44);
        assert_eq!(a[3], s0);
        // Nothing with an allocation: nothing moves.
        assert!(starts_in_allocations(&t, &[None, None]).is_none());
    }
}
