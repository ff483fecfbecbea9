//! Tests of `trip_bounds` on small hand-written NVPTX IR (parsed
//! in-process, no clang): the bounds and decisions clamps give, and the
//! cases an adversarial review found where a sign or a wrap matters. Every
//! expected figure is worked out in the comments.

use crate::model::test_ir::with_module;
use crate::model::trip_bounds::{decided, test_bound, Dominators};

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

; Found by an adversarial review. `seq - 4u > seq + 4u` is true for seq < 4 (the
; unsigned subtraction wraps): not decided, though the difference is -8.
define void @seq_wrap(ptr addrspace(1) %row, ptr addrspace(1) %a) {
entry:
  %seq = load i32, ptr addrspace(1) %row, align 4
  %lo = add i32 %seq, -4
  %hi = add i32 %seq, 4
  %wrapped = icmp ugt i32 %lo, %hi
  br i1 %wrapped, label %slow, label %done
slow:
  %v = load float, ptr addrspace(1) %a, align 4
  br label %done
done:
  ret void
}

; for (k = max(c - 1, 0); k <= ((c + 1) & 63); k++): c + 1 may be negative, so
; (c + 1) & 63 is bounded by the mask only: end - start <= 63 - 0, 64 iterations.
define void @masked_end(ptr addrspace(1) %row, ptr addrspace(1) %a) {
entry:
  %c = load i32, ptr addrspace(1) %row, align 4
  %cm = add nsw i32 %c, -1
  %s = call i32 @llvm.smax.i32(i32 %cm, i32 0)
  %c1 = add nsw i32 %c, 1
  %e = and i32 %c1, 63
  br label %head
head:
  %k = phi i32 [ %s, %entry ], [ %k1, %body ]
  %in = icmp sle i32 %k, %e
  br i1 %in, label %body, label %done
body:
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %k
  %v = load float, ptr addrspace(1) %p, align 4
  %k1 = add nsw i32 %k, 1
  br label %head
done:
  ret void
}

; for (unsigned k = max(c - 1, 0); k < (unsigned)min(c + 2, n); k++): for c < -2 the
; end is a huge unsigned number. The test is unsigned and the end not proven
; non-negative: no bound.
define void @unsigned_counter(ptr addrspace(1) %row, ptr addrspace(1) %a, i32 %n) {
entry:
  %c = load i32, ptr addrspace(1) %row, align 4
  %cm = add nsw i32 %c, -1
  %s = call i32 @llvm.smax.i32(i32 %cm, i32 0)
  %c2 = add nsw i32 %c, 2
  %e = call i32 @llvm.smin.i32(i32 %c2, i32 %n)
  br label %head
head:
  %k = phi i32 [ %s, %entry ], [ %k1, %body ]
  %in = icmp ult i32 %k, %e
  br i1 %in, label %body, label %done
body:
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %k
  %v = load float, ptr addrspace(1) %p, align 4
  %k1 = add i32 %k, 1
  br label %head
done:
  ret void
}

; clang -O3's form of the neighbour loop with constant edges (`#define NC 16`):
; c = min(max((int)x, 0), 15), for (q = max(c - 1, 0); q <= min(c + 1, 15); q++).
; The non-negative c turned `smin` into `umin`, and clang folded min(c + 1, 15)
; into umin(max(x, 0), 14) + 1, so the start's leaf (umin(.., 15)) and the end's
; (max(x, 0)) differ; the remainder of the loop unrolled by 8 runs trips & 7 times,
; and `ult trips - 1, 7` guards the unrolled body.
define void @constant_edges(ptr addrspace(1) %pos, ptr addrspace(1) %a) {
entry:
  %x = load float, ptr addrspace(1) %pos, align 4
  %xi = fptosi float %x to i32
  %m = call i32 @llvm.smax.i32(i32 %xi, i32 0)
  %c = call i32 @llvm.umin.i32(i32 %m, i32 15)
  %lo = call i32 @llvm.umax.i32(i32 %c, i32 1)
  %start = add nsw i32 %lo, -1
  %e14 = call i32 @llvm.umin.i32(i32 %m, i32 14)
  %end = add nuw nsw i32 %e14, 1
  %skip = icmp ugt i32 %start, %end
  br i1 %skip, label %done, label %pre
pre:
  %e3 = add nuw nsw i32 %e14, 3
  %trips = sub nsw i32 %e3, %lo
  %e2 = add nuw nsw i32 %e14, 2
  %trips1 = sub nsw i32 %e2, %lo
  %rem = and i32 %trips, 7
  %none = icmp eq i32 %rem, 0
  br i1 %none, label %mid, label %tail
tail:
  %q = phi i32 [ %q1, %tail ], [ %start, %pre ]
  %r = phi i32 [ %r1, %tail ], [ 0, %pre ]
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %q
  %v = load float, ptr addrspace(1) %p, align 4
  %q1 = add nuw nsw i32 %q, 1
  %r1 = add i32 %r, 1
  %fin = icmp eq i32 %r1, %rem
  br i1 %fin, label %mid, label %tail
mid:
  %big = icmp ult i32 %trips1, 7
  br i1 %big, label %done, label %body
body:
  %j = phi i32 [ %start, %mid ], [ %j8, %body ]
  %pj = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %vj = load float, ptr addrspace(1) %pj, align 4
  %j8 = add nsw i32 %j, 8
  %out = icmp sgt i32 %j8, %end
  br i1 %out, label %done, label %body
done:
  ret void
}

; An unsigned sum that may pass INT_MAX (an adversarial review): key = (h & 0x7fffffff)
; + 0x40000000 is at least 2^30 as a number, but as an `int` it is negative for half the h;
; m = min(key, lim) (umin). `if ((int)m < 0)` can go either way, and a loop from (int)m to 4
; may run 2^31 times. The add has `nuw` only: its constant forms are dropped.
define void @hash_key(ptr addrspace(1) %in, ptr addrspace(1) %lims, ptr addrspace(1) %a) {
entry:
  %h = load i32, ptr addrspace(1) %in, align 4
  %lo = and i32 %h, 2147483647
  %key = add nuw i32 %lo, 1073741824
  %lim = load i32, ptr addrspace(1) %lims, align 4
  %m = call i32 @llvm.umin.i32(i32 %key, i32 %lim)
  %neg = icmp slt i32 %m, 0
  br i1 %neg, label %take, label %head
take:
  %v = load float, ptr addrspace(1) %a, align 4
  br label %head
head:
  %j = phi i32 [ %m, %entry ], [ %m, %take ], [ %j1, %body ]
  %in4 = icmp slt i32 %j, 4
  br i1 %in4, label %body, label %done
body:
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %w = load float, ptr addrspace(1) %p, align 4
  %j1 = add nsw i32 %j, 1
  br label %head
done:
  ret void
}

declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
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
                        let t = test_bound(cond, &Dominators::of(f).facts_at(b))?;
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
            (s("seq_wrap"), vec![]),
            // (c + 1) & 63 - max(c - 1, 0) <= 63 - 0: `k <= e` holds
            // for t <= 63, 64 times (the guess of 8 would be below it).
            (s("masked_end"), vec![(s("head"), s("head"), true, 64)]),
            (s("unsigned_counter"), vec![]),
            // rem = trips & 7 <= trips (proven non-negative: the loop is
            // entered on start <= end), trips = (min(x', 14) + 3) -
            // max(c, 1), x' = max(x, 0), c = min(x', 15). Read with c as
            // x': <= (x' + 3) - x' = 3; with c as 15: <= (14 + 3) - 15 =
            // 2. So rem <= 3: `r + 1 == rem` false at most twice. The
            // unrolled body from start: j + 8 > end where end - start <=
            // 2 (the same two cases: (x' + 1) - (x' - 1), 15 - 14), so
            // it holds at once: it stays 0 times.
            (
                s("constant_edges"),
                vec![
                    (s("tail"), s("tail"), false, 2),
                    (s("body"), s("body"), false, 0)
                ]
            ),
            // (int)m may be anything below 4: no bound.
            (s("hash_key"), vec![]),
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
                        Some((b.name(), decided(cond, &Dominators::of(f).facts_at(b))?))
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
    // = 2 < 7, and trips1 >= 0 since the loop was entered on `start =
    // max(c, 1) - 1 <= end` (the skip test false, a fact of `pre`, which
    // dominates `mid`): the unsigned test holds, the unrolled body never
    // runs (the walk's guard rule would have entered it). `entry`'s skip
    // test depends on where c lies: undecided. The remainder's `rem ==
    // 0`: rem in [0, 3]: undecided. `seq_wrap`'s unsigned test on values
    // not proven non-negative: undecided. No other function's test is
    // decided. `constant_edges`: its edges are constants, so the window
    // is never empty: start - end <= -1 in every case (c as x': (x' - 1)
    // - (x' + 1) = -2 with max(c, 1) as c, end >= 1 with it as 1: 0 - 1;
    // c as 15, end read as 14 + 1: 14 - 15), both sides non-negative:
    // `start >u end` is false. Its `mid`: trips - 1 <= 2 < 7, true.
    // `hash_key`'s `m < 0` is not decided: the `add nuw` may pass
    // INT_MAX.
    let s = |x: &str| x.to_string();
    let found: Vec<(String, Vec<(String, bool)>)> = decisions()
        .into_iter()
        .filter(|(_, d)| !d.is_empty())
        .collect();
    assert_eq!(
        found,
        vec![
            (s("unrolled"), vec![(s("mid"), true)]),
            (
                s("constant_edges"),
                vec![(s("entry"), false), (s("mid"), true)]
            ),
        ]
    );
}
