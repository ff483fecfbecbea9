//! Tests of where `control` ends a warp's burst (issue 19): scoreboard
//! waits (`MemOp::waits`) and block barriers (`Node::barriers`) read from
//! small hand-written NVPTX IR. The only test of `control` that needs
//! LLVM: the IR is parsed in-process (inkwell), no clang.

use std::collections::HashMap;

use crate::facts::address::{Context, Folder};
use crate::facts::evaluate::{eval, Env};
use crate::llvm::ir::{Opcode, Value};
use crate::model::control::{program, Access, Calls};
use crate::model::program::Exit;
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

; Device functions the trace follows (issue 19): `get` returns a load,
; `triple` an integer, `down` calls itself.
define internal float @get(ptr addrspace(1) %p, i32 %i) {
entry:
  %q = getelementptr inbounds float, ptr addrspace(1) %p, i32 %i
  %v = load float, ptr addrspace(1) %q, align 4
  ret float %v
}

define internal i32 @triple(i32 %k) {
entry:
  %r = mul i32 %k, 3
  ret i32 %r
}

; out = get(a, triple(1)) + get(a, 2): `get` spliced in at two call sites.
define void @calls(ptr addrspace(1) %a, ptr addrspace(1) %out) {
entry:
  %k = call i32 @triple(i32 1)
  %x = call float @get(ptr addrspace(1) %a, i32 %k)
  %y = call float @get(ptr addrspace(1) %a, i32 2)
  %s = fadd float %x, %y
  store float %s, ptr addrspace(1) %out, align 4
  ret void
}

define internal float @down(ptr addrspace(1) %p, i32 %n) {
entry:
  %v = load float, ptr addrspace(1) %p, align 4
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %more, label %done
more:
  %n1 = sub i32 %n, 1
  %w = call float @down(ptr addrspace(1) %p, i32 %n1)
  %s = fadd float %v, %w
  ret float %s
done:
  ret float %v
}

define void @recursive(ptr addrspace(1) %a, ptr addrspace(1) %out) {
entry:
  %x = call float @down(ptr addrspace(1) %a, i32 3)
  store float %x, ptr addrspace(1) %out, align 4
  ret void
}

declare void @llvm.nvvm.barrier0()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
"#;

/// Each function's program, every global load and store in the trace.
fn programs() -> HashMap<String, Program> {
    with_calls().into_iter().map(|(k, v)| (k, v.0)).collect()
}

/// Each function's program with the calls it follows, every global load
/// and store in the trace: one index per instruction, as the kernel's
/// instruction table gives (`kernel_trace`).
fn with_calls() -> HashMap<String, (Program, Calls)> {
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
            let mut index: HashMap<Value, u32> = HashMap::new();
            let mut memory = |inst: Value| {
                let (kind, ptr) = match inst.opcode()? {
                    Opcode::LLVMLoad => (Kind::Load, inst.operand(0)),
                    Opcode::LLVMStore => (Kind::Store, inst.operand(1)),
                    _ => return None,
                };
                let next = index.len() as u32;
                Some(Access {
                    inst: *index.entry(inst).or_insert(next),
                    kind,
                    ptr,
                    bytes: 4,
                    merge: None,
                })
            };
            let (p, _, calls) = program(f, &mut folder, &mut memory);
            out.insert(f.name(), (p, calls));
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

#[test]
fn a_call_is_followed_into_its_callee_at_each_call_site() {
    // `calls`: the entry block splits at its three calls. Node 0 (before
    // `triple`) jumps to triple's body (node 1), which returns to node 2;
    // node 2 calls `get` (node 3, back to node 4), node 4 calls `get` again
    // (node 5, back to node 6), and node 6 stores and returns.
    let all = with_calls();
    let (p, calls) = &all["calls"];
    let exits: Vec<Option<u32>> = (p.nodes.iter())
        .map(|n| match n.exit {
            Exit::Jump(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(
        exits,
        [Some(1), Some(2), Some(3), Some(4), Some(5), Some(6), None]
    );
    assert!(matches!(p.nodes[6].exit, Exit::Return));
    // triple's result is a variable that its return (node 1) sets to 3.
    let phi = &p.nodes[2].phis;
    assert_eq!(phi.len(), 1);
    assert_eq!(phi[0].incoming.len(), 1);
    assert_eq!(phi[0].incoming[0].0, 1);
    let env = Env::new(
        crate::options::Dim3 { x: 32, y: 1, z: 1 },
        None,
        HashMap::new(),
    );
    assert_eq!(eval(&phi[0].incoming[0].1, &env), Some(3));
    // Both call sites of `get` issue its one load (instruction 0), at
    // a + 4 * k with k = 3 and at a + 8: 4 bytes apart.
    let (first, second) = (&p.nodes[3].ops, &p.nodes[5].ops);
    assert_eq!((first.len(), second.len()), (1, 1));
    assert_eq!((first[0].inst, second[0].inst), (0, 0));
    let mut env = env;
    env.vars = vec![None; p.vars as usize];
    env.vars[phi[0].var as usize] = Some(3);
    let at = |e| eval(e, &env);
    assert_eq!(
        at(&first[0].address)
            .zip(at(&second[0].address))
            .map(|(x, y)| x - y),
        Some(4)
    );
    // `get` returns its load's value: the warp waits for it at the
    // return; the store (instruction 1) waits for nothing.
    assert!(first[0].waits && second[0].waits);
    assert_eq!(p.nodes[6].ops.len(), 1);
    assert_eq!(p.nodes[6].ops[0].inst, 1);
    assert!(calls.followed.len() == 2 && calls.not_followed.is_empty());
}

#[test]
fn recursion_is_followed_once_and_the_inner_call_is_not() {
    // `down` is spliced in once; its call to itself stays a call, so the
    // trace cannot claim it sees every access.
    let all = with_calls();
    let (p, calls) = &all["recursive"];
    assert_eq!(calls.followed.len(), 1);
    assert_eq!(calls.not_followed.len(), 1);
    let inner = *calls.not_followed.iter().next().unwrap();
    assert!(!calls.follows(inner));
    // Nodes: the kernel's entry before the call, down's three blocks, the
    // kernel's rest.
    assert_eq!(p.nodes.len(), 5);
    let loads: usize = p.nodes.iter().map(|n| n.ops.len()).sum();
    assert_eq!(loads, 2, "down's load and the kernel's store");
}
