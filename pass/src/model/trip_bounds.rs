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
//! out the way that stays in the loop. An upper bound, exact for the
//! clamps of a stencil or a neighbour walk away from the edges; where no
//! form cancels (`j < row_ptr[r + 1]` from `j = row_ptr[r]`: two loads)
//! there is no bound and the walk keeps its guess.
//!
//! Assumed, as the source's `int` arithmetic lets clang assume: no signed
//! overflow in the induction or the clamps (`add nsw`), and an unsigned
//! test compares values the clamps keep non-negative. A loop whose test
//! holds from a start past its end (an `==` test entered with `S > E`)
//! would wrap; clang guards such loops, and the bound is taken as the
//! count of the loop that runs.
//!
//! Pure over IR values: no program, no walk.

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
pub fn test_bound(cond: Value) -> Option<IrTestBound> {
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
    // While the test's `P + o` has not reached the end, from the start:
    // `reach` bounds the distance still to go at t = 0, in steps of
    // `|step|`.
    let (rising, reach) = if step > 0 {
        (true, difference_bound(end, start)?.checked_sub(offset)?)
    } else {
        (false, difference_bound(start, end)?.checked_add(offset)?)
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
        // Equality reaches the end only one step at a time.
        (LLVMIntNE, _) if m == 1 => (true, reach.max(0)),
        (LLVMIntEQ, _) if m == 1 => (false, reach.max(0)),
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
/// Unsigned comparisons are taken on non-negative values, as above.
pub fn decided(cond: Value) -> Option<bool> {
    if cond.opcode() != Some(Opcode::LLVMICmp) {
        return None;
    }
    let (a, b) = (cond.operand(0), cond.operand(1));
    if a.const_int().is_some() && b.const_int().is_some() {
        return None;
    }
    // lo <= a - b <= hi.
    let hi = difference_bound(a, b);
    let lo = difference_bound(b, a).and_then(|d| d.checked_neg());
    use IntPredicate::*;
    let (below, at_most) = match cond.icmp_predicate() {
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

/// A constant `d` with `hi - lo <= d`, from forms of the two that share a
/// leaf; the least such.
fn difference_bound(hi: Value, lo: Value) -> Option<i64> {
    let mut above = Vec::new();
    let mut below = Vec::new();
    forms(hi, true, DEPTH, &mut above);
    forms(lo, false, DEPTH, &mut below);
    (above.iter())
        .flat_map(|u| {
            below
                .iter()
                .filter(move |l| l.0 == u.0)
                .map(move |l| (u, l))
        })
        .filter_map(|(u, l)| u.1.checked_sub(l.1))
        .min()
}

/// Forms `leaf + c` with `v <= leaf + c` (`upper`) or `v >= leaf + c`:
/// `v` itself, a constant, through `+ c`, sign extension, and `smin`
/// (upper) or `smax` (lower) of either operand.
fn forms(v: Value, upper: bool, depth: u32, out: &mut Vec<Form>) {
    if out.len() >= MAX_FORMS {
        return;
    }
    if let Some(c) = v.const_int() {
        out.push((None, c));
        return;
    }
    out.push((Some(v), 0));
    if depth == 0 {
        return;
    }
    if let Some((x, c)) = plus_constant(v) {
        let from = out.len();
        forms(x, upper, depth - 1, out);
        for f in &mut out[from..] {
            f.1 = f.1.saturating_add(c);
        }
        return;
    }
    match v.opcode() {
        Some(Opcode::LLVMSExt) => forms(v.operand(0), upper, depth - 1, out),
        // a - b: a's bound less b's opposite one, where their leaves
        // cancel or b's is a constant.
        Some(Opcode::LLVMSub) => {
            let (mut first, mut second) = (Vec::new(), Vec::new());
            forms(v.operand(0), upper, depth - 1, &mut first);
            forms(v.operand(1), !upper, depth - 1, &mut second);
            for a in &first {
                for b in &second {
                    let leaf = match (a.0, b.0) {
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
        // x & mask, mask >= 0: at most the mask, and at least 0; at most x
        // where x >= 0 (a trip count's remainder, `n & 7`: assumed).
        Some(Opcode::LLVMAnd) => {
            let mask = v.operand(1).const_int().or(v.operand(0).const_int());
            let other = if v.operand(1).const_int().is_some() {
                v.operand(0)
            } else {
                v.operand(1)
            };
            if let Some(mask) = mask.filter(|&m| m >= 0) {
                if upper {
                    out.push((None, mask));
                    forms(other, true, depth - 1, out);
                } else {
                    out.push((None, 0));
                }
            }
        }
        Some(Opcode::LLVMCall) => {
            let name = v.called_value().intrinsic_name().unwrap_or_default();
            let clamps = if upper {
                name.starts_with("llvm.smin.")
            } else {
                name.starts_with("llvm.smax.")
            };
            if clamps {
                forms(v.operand(0), upper, depth - 1, out);
                forms(v.operand(1), upper, depth - 1, out);
            }
        }
        _ => {}
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_ir::with_module;

    const IR: &str = r#"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; clang -O3's rotated neighbour loop: for (ny = max(c - 1, 0); ny <= min(c + 1, k); ny++),
; c = min(max((int)y, 0), k) with y loaded; the test is ny == end at the latch.
define void @neighbours(ptr addrspace(1) %pos, ptr addrspace(1) %a, i32 %k) {
entry:
  %y = load float, ptr addrspace(1) %pos, align 4
  %yi = fptosi float %y to i32
  %lo = call i32 @llvm.smax.i32(i32 %yi, i32 0)
  %c = call i32 @llvm.smin.i32(i32 %lo, i32 %k)
  %m = call i32 @llvm.smax.i32(i32 %c, i32 1)
  %start = add nsw i32 %m, -1
  %c1 = add nsw i32 %c, 1
  %end = call i32 @llvm.smin.i32(i32 %c1, i32 %k)
  %skip = icmp sgt i32 %start, %end
  br i1 %skip, label %done, label %loop
loop:
  %ny = phi i32 [ %start, %entry ], [ %ny1, %loop ]
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %ny
  %v = load float, ptr addrspace(1) %p, align 4
  %ny1 = add nuw i32 %ny, 1
  %last = icmp eq i32 %ny, %end
  br i1 %last, label %done, label %loop
done:
  ret void
}

; for (j = s; j < s + 4; j++), s loaded; tested at the header.
define void @window(ptr addrspace(1) %row, ptr addrspace(1) %a) {
entry:
  %s = load i32, ptr addrspace(1) %row, align 4
  %e = add nsw i32 %s, 4
  br label %head
head:
  %j = phi i32 [ %s, %entry ], [ %j1, %body ]
  %in = icmp slt i32 %j, %e
  br i1 %in, label %body, label %done
body:
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %v = load float, ptr addrspace(1) %p, align 4
  %j1 = add nsw i32 %j, 1
  br label %head
done:
  ret void
}

; Step 2, the increment tested: j + 2 <= s + 7 (swapped: s + 7 >= j + 2).
define void @strided(ptr addrspace(1) %row, ptr addrspace(1) %a) {
entry:
  %s = load i32, ptr addrspace(1) %row, align 4
  %e = add nsw i32 %s, 7
  br label %loop
loop:
  %j = phi i32 [ %s, %entry ], [ %j2, %loop ]
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %v = load float, ptr addrspace(1) %p, align 4
  %j2 = add nsw i32 %j, 2
  %more = icmp sge i32 %e, %j2
  br i1 %more, label %loop, label %done
done:
  ret void
}

; Downwards: for (j = min(c + 1, k); j >= max(c - 1, 0); j--).
define void @down(ptr addrspace(1) %row, ptr addrspace(1) %a, i32 %k) {
entry:
  %c = load i32, ptr addrspace(1) %row, align 4
  %c1 = add nsw i32 %c, 1
  %s = call i32 @llvm.smin.i32(i32 %c1, i32 %k)
  %cm = add nsw i32 %c, -1
  %e = call i32 @llvm.smax.i32(i32 %cm, i32 0)
  br label %head
head:
  %j = phi i32 [ %s, %entry ], [ %j1, %body ]
  %in = icmp sge i32 %j, %e
  br i1 %in, label %body, label %done
body:
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %v = load float, ptr addrspace(1) %p, align 4
  %j1 = add nsw i32 %j, -1
  br label %head
done:
  ret void
}

; CSR: from row[r] to row[r + 1], two loads: no bound.
define void @csr(ptr addrspace(1) %row, ptr addrspace(1) %a) {
entry:
  %s = load i32, ptr addrspace(1) %row, align 4
  %pe = getelementptr inbounds i32, ptr addrspace(1) %row, i32 1
  %e = load i32, ptr addrspace(1) %pe, align 4
  br label %head
head:
  %j = phi i32 [ %s, %entry ], [ %j1, %body ]
  %in = icmp slt i32 %j, %e
  br i1 %in, label %body, label %done
body:
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %v = load float, ptr addrspace(1) %p, align 4
  %j1 = add nsw i32 %j, 1
  br label %head
done:
  ret void
}

; Two different unknowns: from max(x - 1, 0) to min(y + 1, k): no bound.
define void @two_unknowns(ptr addrspace(1) %pos, ptr addrspace(1) %a, i32 %k) {
entry:
  %x = load i32, ptr addrspace(1) %pos, align 4
  %py = getelementptr inbounds i32, ptr addrspace(1) %pos, i32 1
  %y = load i32, ptr addrspace(1) %py, align 4
  %xm = add nsw i32 %x, -1
  %s = call i32 @llvm.smax.i32(i32 %xm, i32 0)
  %y1 = add nsw i32 %y, 1
  %e = call i32 @llvm.smin.i32(i32 %y1, i32 %k)
  br label %head
head:
  %j = phi i32 [ %s, %entry ], [ %j1, %body ]
  %in = icmp sle i32 %j, %e
  br i1 %in, label %body, label %done
body:
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %v = load float, ptr addrspace(1) %p, align 4
  %j1 = add nsw i32 %j, 1
  br label %head
done:
  ret void
}

; clang -O3's runtime unrolling of for (k = max(c - 1, 0); k <= min(c + 1, g - 1); k++)
; s += a[k] (by 8): a remainder loop of (trips & 7) iterations, then the unrolled body
; when trips - 1 >= 7. Blocks as clang numbers them, values renamed.
define void @unrolled(ptr addrspace(1) %pos, ptr addrspace(1) %a, i32 %g) {
entry:
  %y = load float, ptr addrspace(1) %pos, align 4
  %yi = fptosi float %y to i32
  %lo = call i32 @llvm.smax.i32(i32 %yi, i32 0)
  %g1 = add nsw i32 %g, -1
  %c = call i32 @llvm.smin.i32(i32 %lo, i32 %g1)
  %m = call i32 @llvm.smax.i32(i32 %c, i32 1)
  %start = add nsw i32 %m, -1
  %c1 = add nsw i32 %c, 1
  %end = call i32 @llvm.smin.i32(i32 %c1, i32 %g1)
  %skip = icmp sgt i32 %start, %end
  br i1 %skip, label %done, label %pre
pre:
  %e2 = add i32 %end, 2
  %trips = sub i32 %e2, %m
  %e1 = add i32 %end, 1
  %trips1 = sub i32 %e1, %m
  %rem = and i32 %trips, 7
  %none = icmp eq i32 %rem, 0
  br i1 %none, label %mid, label %tail
tail:
  %k = phi i32 [ %k1, %tail ], [ %start, %pre ]
  %r = phi i32 [ %r1, %tail ], [ 0, %pre ]
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %k
  %v = load float, ptr addrspace(1) %p, align 4
  %k1 = add nuw i32 %k, 1
  %r1 = add i32 %r, 1
  %tail_done = icmp eq i32 %r1, %rem
  br i1 %tail_done, label %mid, label %tail
mid:
  %few = icmp ult i32 %trips1, 7
  br i1 %few, label %done, label %body
body:
  %j = phi i32 [ %j8, %body ], [ %start, %mid ]
  %q = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %w = load float, ptr addrspace(1) %q, align 4
  %j7 = add nuw i32 %j, 7
  %j8 = add nuw i32 %j, 8
  %last = icmp eq i32 %j7, %end
  br i1 %last, label %done, label %body
done:
  ret void
}

declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
"#;

    /// A bound as (the test's block, the header's block, holds, count).
    type Found = (String, String, bool, u32);

    /// Per function: the bound of each conditional branch that has one.
    fn bounds() -> Vec<(String, Vec<Found>)> {
        with_module(IR, "trip_bounds", |m| {
            (m.functions().into_iter())
                .filter(|f| !f.is_declaration())
                .map(|f| {
                    let found = (f.blocks().into_iter())
                        .filter_map(|b| {
                            let (cond, ..) = b.conditional_branch()?;
                            let t = test_bound(cond)?;
                            Some((b.name(), t.header.name(), t.holds, t.count))
                        })
                        .collect();
                    (f.name(), found)
                })
                .collect()
        })
    }

    #[test]
    fn clamps_bound_the_tests_that_cancel_and_only_those() {
        let s = |x: &str| x.to_string();
        assert_eq!(
            bounds(),
            vec![
                // end - start <= (c + 1) - (c - 1) = 2: `ny == end` is
                // false at most twice (ny = start, start + 1), then the
                // third iteration leaves: 3 cells.
                (s("neighbours"), vec![(s("loop"), s("loop"), false, 2)]),
                // (s + 4) - s = 4: `j < e` holds for j = s .. s + 3.
                (s("window"), vec![(s("head"), s("head"), true, 4)]),
                // Reach (s + 7) - s - 2 = 5 in steps of 2: j + 2 <= s + 7
                // holds for t * 2 <= 5, t = 0, 1, 2: 3 times.
                (s("strided"), vec![(s("loop"), s("loop"), true, 3)]),
                // Down from min(c + 1, k) to max(c - 1, 0): (c + 1) -
                // (c - 1) = 2, `j >= e` holds for t <= 2: 3 times.
                (s("down"), vec![(s("head"), s("head"), true, 3)]),
                (s("csr"), vec![]),
                (s("two_unknowns"), vec![]),
                // The remainder loop: `r + 1 == rem`, r from 0, with rem =
                // trips & 7 <= trips = (end + 2) - max(c, 1) <= (c + 3) - c
                // = 3: reach 3 - 1 = 2, false at most twice (3 iterations).
                // The unrolled body's `j + 7 == end` from a start that is a
                // phi of the remainder's: no form, no bound.
                (s("unrolled"), vec![(s("tail"), s("tail"), false, 2)]),
            ]
        );
    }

    /// Per function: what `decided` says of each conditional branch's
    /// test, where it says something.
    fn decisions() -> Vec<(String, Vec<(String, bool)>)> {
        with_module(IR, "trip_bounds", |m| {
            (m.functions().into_iter())
                .filter(|f| !f.is_declaration())
                .map(|f| {
                    let found = (f.blocks().into_iter())
                        .filter_map(|b| {
                            let (cond, ..) = b.conditional_branch()?;
                            Some((b.name(), decided(cond)?))
                        })
                        .collect();
                    (f.name(), found)
                })
                .collect()
        })
    }

    #[test]
    fn clamps_decide_the_test_of_an_unrolled_body_and_nothing_else() {
        // `unrolled`'s `mid`: trips1 = (end + 1) - max(c, 1) <= (c + 2) - c
        // = 2 < 7: the unrolled body never runs (the walk's guard rule
        // would have entered it). `entry`'s skip test, `max(c, 1) - 1 >
        // min(c + 1, g - 1)`, depends on where c lies: undecided. The
        // remainder's `rem == 0`: rem in [0, 3]: undecided. No other
        // function's test is decided.
        let s = |x: &str| x.to_string();
        let found: Vec<(String, Vec<(String, bool)>)> = decisions()
            .into_iter()
            .filter(|(_, d)| !d.is_empty())
            .collect();
        assert_eq!(found, vec![(s("unrolled"), vec![(s("mid"), true)])]);
    }
}
