//! Tests of where `control` ends a warp's burst (issue 19): scoreboard
//! waits (`MemOp::waits`) and block barriers (`Node::barriers`) read from
//! small hand-written NVPTX IR. The only test of `control` that needs
//! LLVM: the IR is parsed in-process (inkwell), no clang.

use std::collections::HashMap;

use crate::facts::address::{Context, Folder};
use crate::llvm::ir::{Opcode, Value};
use crate::model::control::{program, Access};
use crate::model::program::Program;
use crate::model::test_ir::with_module;
use crate::model::trace::Kind;

const IR: &str = r#"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; for (k < 16) s += a[k]: the add uses each load.
define void @rolled(ptr addrspace(1) %a, ptr addrspace(1) %out) {
entry:
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %s = phi float [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i32 %k
  %v = load float, ptr addrspace(1) %p, align 4
  %s1 = fadd float %s, %v
  %k1 = add i32 %k, 1
  %c = icmp slt i32 %k1, 16
  br i1 %c, label %loop, label %done
done:
  store float %s1, ptr addrspace(1) %out, align 4
  ret void
}

; Four loads, then four adds.
define void @unrolled(ptr addrspace(1) %a, ptr addrspace(1) %out) {
entry:
  %p1 = getelementptr inbounds float, ptr addrspace(1) %a, i32 1
  %p2 = getelementptr inbounds float, ptr addrspace(1) %a, i32 2
  %p3 = getelementptr inbounds float, ptr addrspace(1) %a, i32 3
  %v0 = load float, ptr addrspace(1) %a, align 4
  %v1 = load float, ptr addrspace(1) %p1, align 4
  %v2 = load float, ptr addrspace(1) %p2, align 4
  %v3 = load float, ptr addrspace(1) %p3, align 4
  %s1 = fadd float %v0, %v1
  %s2 = fadd float %s1, %v2
  %s3 = fadd float %s2, %v3
  store float %s3, ptr addrspace(1) %out, align 4
  ret void
}

; Phase 1 loads a, __syncthreads, phase 2 loads b and adds both.
define void @phases(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out) {
entry:
  %v = load float, ptr addrspace(1) %a, align 4
  call void @llvm.nvvm.barrier0()
  %w = load float, ptr addrspace(1) %b, align 4
  %s = fadd float %v, %w
  store float %s, ptr addrspace(1) %out, align 4
  call void @llvm.nvvm.barrier0()
  ret void
}

; Two loads whose only use is in the next block.
define void @crossing(ptr addrspace(1) %a, ptr addrspace(1) %out) {
entry:
  %p1 = getelementptr inbounds i32, ptr addrspace(1) %a, i32 1
  %n = load i32, ptr addrspace(1) %a, align 4
  %m = load i32, ptr addrspace(1) %p1, align 4
  br label %next
next:
  %t = add i32 %n, %m
  store i32 %t, ptr addrspace(1) %out, align 4
  ret void
}

; CSR: thread r sums a[row[r]] .. a[row[r + 1] - 1] (clang -O3's shape:
; the bounds loaded before the guard, the counter widened to i64).
define void @csr(ptr addrspace(1) %row, ptr addrspace(1) %a, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %n = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bn = mul i32 %b, %n
  %r = add i32 %bn, %t
  %r64 = sext i32 %r to i64
  %ps = getelementptr inbounds i32, ptr addrspace(1) %row, i64 %r64
  %start = load i32, ptr addrspace(1) %ps, align 4
  %pe = getelementptr inbounds i32, ptr addrspace(1) %ps, i64 1
  %end = load i32, ptr addrspace(1) %pe, align 4
  %any = icmp slt i32 %start, %end
  br i1 %any, label %pre, label %done
pre:
  %s64 = sext i32 %start to i64
  %e64 = sext i32 %end to i64
  br label %loop
loop:
  %j = phi i64 [ %s64, %pre ], [ %j1, %loop ]
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %j
  %v = load float, ptr addrspace(1) %pa, align 4
  store float %v, ptr addrspace(1) %out, align 4
  %j1 = add nsw i64 %j, 1
  %c = icmp slt i64 %j1, %e64
  br i1 %c, label %loop, label %done
done:
  ret void
}

; The same loop with each thread's start at row[2r] and its end at
; row[2r + 1] (segments of a list of pairs): consecutive threads' runs
; are not adjacent.
define void @pairs(ptr addrspace(1) %row, ptr addrspace(1) %a, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %r = shl i32 %t, 1
  %r64 = sext i32 %r to i64
  %ps = getelementptr inbounds i32, ptr addrspace(1) %row, i64 %r64
  %start = load i32, ptr addrspace(1) %ps, align 4
  %pe = getelementptr inbounds i32, ptr addrspace(1) %ps, i64 1
  %end = load i32, ptr addrspace(1) %pe, align 4
  br label %loop
loop:
  %j = phi i32 [ %start, %entry ], [ %j1, %loop ]
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %v = load float, ptr addrspace(1) %pa, align 4
  store float %v, ptr addrspace(1) %out, align 4
  %j1 = add nsw i32 %j, 1
  %c = icmp slt i32 %j1, %end
  br i1 %c, label %loop, label %done
done:
  ret void
}

; A start loaded from row[r] with a bound that is no load (a count).
define void @counted_from_loaded(ptr addrspace(1) %row, ptr addrspace(1) %a, ptr addrspace(1) %out, i32 %len) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ps = getelementptr inbounds i32, ptr addrspace(1) %row, i32 %t
  %start = load i32, ptr addrspace(1) %ps, align 4
  %end = add i32 %start, %len
  br label %loop
loop:
  %j = phi i32 [ %start, %entry ], [ %j1, %loop ]
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %v = load float, ptr addrspace(1) %pa, align 4
  store float %v, ptr addrspace(1) %out, align 4
  %j1 = add nsw i32 %j, 1
  %c = icmp slt i32 %j1, %end
  br i1 %c, label %loop, label %done
done:
  ret void
}

; A fixed window of `len` from off[r], with off[r + 1] only a weight.
define void @window(ptr addrspace(1) %off, ptr addrspace(1) %a, ptr addrspace(1) %out, i32 %len) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ps = getelementptr inbounds i32, ptr addrspace(1) %off, i32 %t
  %start = load i32, ptr addrspace(1) %ps, align 4
  %pe = getelementptr inbounds i32, ptr addrspace(1) %ps, i32 1
  %w = load i32, ptr addrspace(1) %pe, align 4
  %wf = sitofp i32 %w to float
  %end = add i32 %start, %len
  br label %loop
loop:
  %j = phi i32 [ %start, %entry ], [ %j1, %loop ]
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i32 %j
  %v = load float, ptr addrspace(1) %pa, align 4
  %vw = fmul float %v, %wf
  store float %vw, ptr addrspace(1) %out, align 4
  %j1 = add nsw i32 %j, 1
  %c = icmp slt i32 %j1, %end
  br i1 %c, label %loop, label %done
done:
  ret void
}

declare void @llvm.nvvm.barrier0()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
"#;

/// Each function's program, every global load and store in the trace.
fn programs() -> HashMap<String, Program> {
    with_module(IR, "control", |m| {
        let layout = m.data_layout();
        let globals = HashMap::new();
        let mut out = HashMap::new();
        for f in m.functions().into_iter().filter(|f| !f.is_declaration()) {
            let mut folder = Folder::with_phi_variables(Context {
                layout: &layout,
                is_kernel: true,
                globals: &globals,
                bound: Vec::new(),
            });
            let mut next = 0;
            let mut memory = |inst: Value| {
                let (kind, ptr) = match inst.opcode()? {
                    Opcode::LLVMLoad => (Kind::Load, inst.operand(0)),
                    Opcode::LLVMStore => (Kind::Store, inst.operand(1)),
                    _ => return None,
                };
                next += 1;
                Some(Access {
                    inst: next - 1,
                    kind,
                    ptr,
                    bytes: 4,
                    merge: None,
                })
            };
            out.insert(f.name(), program(f, &mut folder, &mut memory).0);
        }
        out
    })
}

/// Per node: its ops' `waits`, and its barriers.
fn points(p: &Program) -> Vec<(Vec<bool>, Vec<u32>)> {
    (p.nodes.iter())
        .map(|n| (n.ops.iter().map(|m| m.waits).collect(), n.barriers.clone()))
        .collect()
}

#[test]
fn a_rolled_loop_waits_after_every_load() {
    // Node 1 (loop): the load, then the fadd reads it. Node 2: the store
    // waits for nothing.
    let p = &programs()["rolled"];
    assert_eq!(
        points(p),
        vec![
            (vec![], vec![]),
            (vec![true], vec![]),
            (vec![false], vec![])
        ]
    );
}

#[test]
fn four_independent_loads_issue_as_one_burst() {
    // The first fadd comes after the fourth load: only it waits.
    let p = &programs()["unrolled"];
    assert_eq!(
        points(p),
        vec![(vec![false, false, false, true, false], vec![])]
    );
}

#[test]
fn a_barrier_is_a_program_point_and_ends_the_burst() {
    // The barrier before op 1 (`b`) and one after op 2 (the store): [1, 3].
    // The fadd reads `v` and `w`; `v` counts as returned at the barrier,
    // `w` is in flight: op 1 waits.
    let p = &programs()["phases"];
    assert_eq!(points(p), vec![(vec![false, true, false], vec![1, 3])]);
}

#[test]
fn a_use_in_the_next_block_waits_at_the_end_of_the_block() {
    // Both loads are read only in `next`: the block's last op waits.
    let p = &programs()["crossing"];
    assert_eq!(
        points(p),
        vec![(vec![false, true], vec![]), (vec![false], vec![])]
    );
}

#[test]
fn runs_from_row_pointers_are_packed_starts() {
    // `csr`: its one phi (the counter j, variable 0) starts at row[r] for
    // r = blockIdx.x * blockDim.x + threadIdx.x, and the kernel loads
    // row[r + 1]: rows follow each other thread after thread.
    let vars = |name: &str| -> Vec<u32> {
        programs()[name]
            .packed_starts
            .iter()
            .map(|p| p.var)
            .collect()
    };
    assert_eq!(vars("csr"), vec![0]);
    // Starts at row[2r]: no thread dimension moves to the next row; thread
    // r + 1's run starts after another thread's end, not its own.
    assert!(vars("pairs").is_empty());
    // A run of `len` from a loaded start: nothing says where the next
    // thread's begins.
    assert!(vars("counted_from_loaded").is_empty());
    // off[r + 1] is loaded but only weighs the values, bounds nothing: a
    // fixed window from off[r] says nothing of the next thread's.
    assert!(vars("window").is_empty());
}
