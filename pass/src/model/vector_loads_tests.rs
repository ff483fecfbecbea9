//! Tests of the vector merge (`vector_loads`) through the kernel program
//! (`kernel_trace`, `control`) built from small hand-written NVPTX IR, and
//! of the trace and L1 bytes that follow. The IR is parsed in-process
//! (inkwell), no clang. Every expected figure is worked out in the comments.

use std::collections::HashMap;
use std::rc::Rc;

use crate::facts::address::{bin, Base, BinOp, Expr, Sreg};
use crate::facts::geometry::Dim3;
use crate::llvm::ir::Opcode;
use crate::model::kernel_trace::{kernel_program, KernelProgram, Scope, TracedLoad};
use crate::model::l1sim::{simulate, L1Config};
use crate::model::schedule::WarpOrder;
use crate::model::test_ir::with_module;
use crate::model::trace::{Kind, Trace};
use crate::model::vector_loads::{roles, Mergeable, Merged, Piece, Role};
use crate::model::walk::{walk, Budget, Launch};

const IR: &str = r#"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.float4 = type { float, float, float, float }

; float4 q = pos[tid]; out[tid] = q.x + q.y + q.z + q.w (clang's split, align 16).
define void @float4_read(ptr addrspace(1) %pos, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds %struct.float4, ptr addrspace(1) %pos, i64 %i
  %x = load float, ptr addrspace(1) %a, align 16
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %y = load float, ptr addrspace(1) %ay, align 4
  %az = getelementptr inbounds i8, ptr addrspace(1) %a, i64 8
  %z = load float, ptr addrspace(1) %az, align 8
  %aw = getelementptr inbounds i8, ptr addrspace(1) %a, i64 12
  %w = load float, ptr addrspace(1) %aw, align 4
  %s1 = fadd float %x, %y
  %s2 = fadd float %s1, %z
  %s3 = fadd float %s2, %w
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s3, ptr addrspace(1) %o, align 4
  ret void
}

; x, y, z of a float4 at align 16 (nbody's `integrate`).
define void @float3_read(ptr addrspace(1) %pos, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds %struct.float4, ptr addrspace(1) %pos, i64 %i
  %x = load float, ptr addrspace(1) %a, align 16
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %y = load float, ptr addrspace(1) %ay, align 4
  %az = getelementptr inbounds i8, ptr addrspace(1) %a, i64 8
  %z = load float, ptr addrspace(1) %az, align 8
  %s1 = fadd float %x, %y
  %s2 = fadd float %s1, %z
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s2, ptr addrspace(1) %o, align 4
  ret void
}

; Four floats of a 16-byte struct aligned to 4 only (struct_fields.cu's case).
define void @aligned_4(ptr addrspace(1) %pos, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds %struct.float4, ptr addrspace(1) %pos, i64 %i
  %x = load float, ptr addrspace(1) %a, align 4
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %y = load float, ptr addrspace(1) %ay, align 4
  %az = getelementptr inbounds i8, ptr addrspace(1) %a, i64 8
  %z = load float, ptr addrspace(1) %az, align 4
  %aw = getelementptr inbounds i8, ptr addrspace(1) %a, i64 12
  %w = load float, ptr addrspace(1) %aw, align 4
  %s1 = fadd float %x, %y
  %s2 = fadd float %s1, %z
  %s3 = fadd float %s2, %w
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s3, ptr addrspace(1) %o, align 4
  ret void
}

; x in the entry block, y in the next: two blocks, no merge.
define void @two_blocks(ptr addrspace(1) %pos, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds %struct.float4, ptr addrspace(1) %pos, i64 %i
  %x = load float, ptr addrspace(1) %a, align 16
  br label %next
next:
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %y = load float, ptr addrspace(1) %ay, align 4
  %s = fadd float %x, %y
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s, ptr addrspace(1) %o, align 4
  ret void
}

; x, a store, y: the store may write what y reads; no merge.
define void @store_between(ptr addrspace(1) %pos, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds %struct.float4, ptr addrspace(1) %pos, i64 %i
  %x = load float, ptr addrspace(1) %a, align 16
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %x, ptr addrspace(1) %o, align 4
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %y = load float, ptr addrspace(1) %ay, align 4
  store float %y, ptr addrspace(1) %o, align 4
  ret void
}

; x, __syncthreads, y: no merge across the barrier.
define void @barrier_between(ptr addrspace(1) %pos, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds %struct.float4, ptr addrspace(1) %pos, i64 %i
  %x = load float, ptr addrspace(1) %a, align 16
  call void @llvm.nvvm.barrier0()
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %y = load float, ptr addrspace(1) %ay, align 4
  %s = fadd float %x, %y
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s, ptr addrspace(1) %o, align 4
  ret void
}

; float4 q = pos[idx[tid]]: the address is unknown, the pointer is one IR
; value plus 0, 4, 8, 12; and y is read before x.
define void @gather(ptr addrspace(1) %pos, ptr addrspace(1) %idx, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pj = getelementptr inbounds i32, ptr addrspace(1) %idx, i64 %i
  %j = load i32, ptr addrspace(1) %pj, align 4
  %jj = sext i32 %j to i64
  %a = getelementptr inbounds %struct.float4, ptr addrspace(1) %pos, i64 %jj
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %y = load float, ptr addrspace(1) %ay, align 4
  %x = load float, ptr addrspace(1) %a, align 16
  %az = getelementptr inbounds i8, ptr addrspace(1) %a, i64 8
  %z = load float, ptr addrspace(1) %az, align 8
  %aw = getelementptr inbounds i8, ptr addrspace(1) %a, i64 12
  %w = load float, ptr addrspace(1) %aw, align 4
  %s1 = fadd float %x, %y
  %s2 = fadd float %s1, %z
  %s3 = fadd float %s2, %w
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s3, ptr addrspace(1) %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; uchar4 p = img[tid]; out[tid] = p.x + p.y + p.z + p.w (clang: four i8
; loads at align 4, 1, 2, 1; the backend writes one ld.global.u32).
define void @uchar4_read(ptr addrspace(1) %img, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds [4 x i8], ptr addrspace(1) %img, i64 %i
  %x = load i8, ptr addrspace(1) %a, align 4
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 1
  %y = load i8, ptr addrspace(1) %ay, align 1
  %az = getelementptr inbounds i8, ptr addrspace(1) %a, i64 2
  %z = load i8, ptr addrspace(1) %az, align 2
  %aw = getelementptr inbounds i8, ptr addrspace(1) %a, i64 3
  %w = load i8, ptr addrspace(1) %aw, align 1
  %x32 = zext i8 %x to i32
  %y32 = zext i8 %y to i32
  %z32 = zext i8 %z to i32
  %w32 = zext i8 %w to i32
  %s1 = add i32 %x32, %y32
  %s2 = add i32 %s1, %z32
  %s3 = add i32 %s2, %w32
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %s3, ptr addrspace(1) %o, align 4
  ret void
}

; Eight bytes at align 8 (b[0..8] of an 8-byte aligned row): the backend
; writes two ld.global.u32 (no register holds <8 x i8>).
define void @eight_bytes(ptr addrspace(1) %img, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds [8 x i8], ptr addrspace(1) %img, i64 %i
  %b0 = load i8, ptr addrspace(1) %a, align 8
  %a1 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 1
  %b1 = load i8, ptr addrspace(1) %a1, align 1
  %a2 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 2
  %b2 = load i8, ptr addrspace(1) %a2, align 2
  %a3 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 3
  %b3 = load i8, ptr addrspace(1) %a3, align 1
  %a4 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %b4 = load i8, ptr addrspace(1) %a4, align 4
  %a5 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 5
  %b5 = load i8, ptr addrspace(1) %a5, align 1
  %a6 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 6
  %b6 = load i8, ptr addrspace(1) %a6, align 2
  %a7 = getelementptr inbounds i8, ptr addrspace(1) %a, i64 7
  %b7 = load i8, ptr addrspace(1) %a7, align 1
  %s1 = add i8 %b0, %b1
  %s2 = add i8 %s1, %b2
  %s3 = add i8 %s2, %b3
  %s4 = add i8 %s3, %b4
  %s5 = add i8 %s4, %b5
  %s6 = add i8 %s5, %b6
  %s7 = add i8 %s6, %b7
  %o = getelementptr inbounds i8, ptr addrspace(1) %out, i64 %i
  store i8 %s7, ptr addrspace(1) %o, align 1
  ret void
}

@tile = internal addrspace(3) global [256 x float] undef

; x, a store into the shared tile, y: the shared store stops nothing (the
; backend's alias analysis tells address spaces 3 and 1 apart).
define void @shared_store_between(ptr addrspace(1) %pos, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds [2 x float], ptr addrspace(1) %pos, i64 %i
  %x = load float, ptr addrspace(1) %a, align 8
  %s = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  %g = addrspacecast ptr addrspace(3) %s to ptr
  store float %x, ptr %g, align 4
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %y = load float, ptr addrspace(1) %ay, align 4
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %y, ptr addrspace(1) %o, align 4
  ret void
}

; x, __ldg of another array, y: the backend splits the chain there.
define void @ldg_between(ptr addrspace(1) %pos, ptr %other, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds [2 x float], ptr addrspace(1) %pos, i64 %i
  %x = load float, ptr addrspace(1) %a, align 8
  %l = call float @llvm.nvvm.ldg.global.f.f32.p0(ptr %other, i32 4)
  %ay = getelementptr inbounds i8, ptr addrspace(1) %a, i64 4
  %y = load float, ptr addrspace(1) %ay, align 4
  %s1 = fadd float %x, %y
  %s2 = fadd float %s1, %l
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s2, ptr addrspace(1) %o, align 4
  ret void
}

declare float @llvm.nvvm.ldg.global.f.f32.p0(ptr, i32)

declare void @llvm.nvvm.barrier0()
"#;

/// Each function's kernel program, every load of it decided (report entry
/// = its ordinal among the function's loads).
fn programs() -> HashMap<String, KernelProgram> {
    with_module(IR, "vector_loads", |m| {
        let layout = m.data_layout();
        let globals = HashMap::new();
        let functions: Vec<_> = (m.functions().into_iter())
            .filter(|f| !f.is_declaration())
            .collect();
        let mut out = HashMap::new();
        for &f in &functions {
            let loads: Vec<TracedLoad> = (f.blocks().into_iter())
                .flat_map(|b| b.instructions())
                .filter(|i| i.opcode() == Some(Opcode::LLVMLoad))
                .enumerate()
                .map(|(entry, load)| TracedLoad { load, entry })
                .collect();
            let scope = Scope {
                layout: &layout,
                globals: &globals,
                kernels: &functions,
                whole_program: false,
            };
            out.insert(f.name(), kernel_program(f, &loads, &scope, Vec::new()));
        }
        out
    })
}

/// Per node: each op's (instruction, bytes per lane, waits).
fn ops(p: &KernelProgram) -> Vec<Vec<(u32, u32, bool)>> {
    (p.program.nodes.iter())
        .map(|n| n.ops.iter().map(|m| (m.inst, m.bytes, m.waits)).collect())
        .collect()
}

/// One block of 32 threads (one warp) runs `p`.
fn trace(p: &KernelProgram) -> Trace {
    let launch = Launch {
        block: Dim3 { x: 32, y: 1, z: 1 },
        grid: Some(Dim3 { x: 1, y: 1, z: 1 }),
        blocks: vec![[0, 0, 0]],
        args: HashMap::new(),
        memory: None,
        order: WarpOrder::default(),
        extents: Vec::new(),
    };
    let budget = Budget {
        iterations: 64,
        unknown_trip: 8,
        accesses: u64::MAX,
        steps: u64::MAX,
    };
    walk(&p.program, p.instructions.clone(), &launch, budget)
}

fn merged(pairs: &[(u32, u32)]) -> Vec<Merged> {
    (pairs.iter())
        .map(|&(member, leader)| Merged { member, leader })
        .collect()
}

#[test]
fn a_float4_read_at_align_16_is_one_16_byte_access() {
    // Instructions: 0-3 the loads x, y, z, w; 4 the store. x (align 16)
    // leads a 16-byte access; y, z, w join it. The fadd reads them after
    // the access: it waits.
    let p = &programs()["float4_read"];
    assert_eq!(ops(p), vec![vec![(0, 16, true), (4, 4, false)]]);
    assert_eq!(p.merged, merged(&[(1, 0), (2, 0), (3, 0)]));
    assert_eq!(p.instructions[1].kind, Kind::Load);
    // One warp: one event of the access, 32 lanes of 16 bytes at
    // pos + 16*lane, and the store's.
    let t = trace(p);
    let loads: Vec<_> = t.events.iter().filter(|e| e.inst == 0).collect();
    assert_eq!(loads.len(), 1);
    assert_eq!((loads[0].bytes, loads[0].lanes), (16, 32));
    let lanes = t.lanes(loads[0]);
    assert_eq!(lanes[1] - lanes[0], 16);
    assert!(t.events.iter().all(|e| matches!(e.inst, 0 | 4)));
    // Bypassed on a sectored L1: 32 lanes x 16 B = 512 contiguous bytes
    // from a 256-byte aligned base = 16 sectors of 32 B = 512 B from L2.
    // The four scalar reads would each touch those 16 sectors: 2048 B.
    let config = L1Config::sector_fill(32 * 1024);
    let sim = simulate(&t, &config, &[false; 5]).unwrap();
    assert_eq!(sim.loads.l2_bytes, 512);
}

#[test]
fn twelve_bytes_at_align_16_are_eight_and_four() {
    // x (align 16) and y: 8 bytes (16 % 8 = 0; 12 bytes would not divide
    // 16); z (align 8) alone, 4 bytes. The store is instruction 3.
    let p = &programs()["float3_read"];
    assert_eq!(
        ops(p),
        vec![vec![(0, 8, false), (2, 4, true), (3, 4, false)]]
    );
    assert_eq!(p.merged, merged(&[(1, 0)]));
}

#[test]
fn align_4_merges_nothing() {
    // Every piece of 8 or 16 bytes would need an alignment of 8 or 16.
    let p = &programs()["aligned_4"];
    assert_eq!(
        ops(p),
        vec![vec![
            (0, 4, false),
            (1, 4, false),
            (2, 4, false),
            (3, 4, true),
            (4, 4, false)
        ]]
    );
    assert!(p.merged.is_empty());
}

#[test]
fn loads_in_two_blocks_are_not_merged() {
    // x ends the entry block (its use is in `next`: it waits there).
    let p = &programs()["two_blocks"];
    assert_eq!(
        ops(p),
        vec![vec![(0, 4, true)], vec![(1, 4, true), (2, 4, false)]]
    );
    assert!(p.merged.is_empty());
}

#[test]
fn a_store_or_a_barrier_between_stops_the_merge() {
    // store_between: x (0), store (1), y (2), store (3).
    let p = &programs()["store_between"];
    assert_eq!(
        ops(p)[0].iter().map(|o| o.1).collect::<Vec<_>>(),
        [4, 4, 4, 4]
    );
    assert!(p.merged.is_empty());
    // barrier_between: x (0), barrier, y (1), store (2).
    let p = &programs()["barrier_between"];
    assert_eq!(ops(p)[0].iter().map(|o| o.1).collect::<Vec<_>>(), [4, 4, 4]);
    assert!(p.merged.is_empty());
}

#[test]
fn an_unknown_address_merges_on_its_ir_pointer() {
    // Loads: idx[tid] (0), then y (1), x (2), z (3), w (4); store (5).
    // pos[idx[tid]] is unknown to the model, but the four pointers are %a
    // plus 4, 0, 8, 12. y comes first in program order: it leads (the
    // vector load issues there, with its key); the access starts at x's
    // address. idx's value is used by the address: idx waits.
    let p = &programs()["gather"];
    assert_eq!(
        ops(p),
        vec![vec![(0, 4, true), (1, 16, true), (5, 4, false)]]
    );
    assert_eq!(p.merged, merged(&[(2, 1), (3, 1), (4, 1)]));
    let op = &p.program.nodes[0].ops[1];
    assert!(op.address.has_unknown());
}

/// A piece that leads one access of `bytes` from piece `from`.
fn leads(bytes: u32, from: usize) -> Role {
    Role::Leads {
        bytes,
        from,
        second: None,
    }
}

/// A piece at `base + offset` of `bytes`, aligned to `align`.
fn piece(offset: i64, bytes: u32, align: u32) -> Piece {
    let base = Rc::new(Expr::Base(Base::Param {
        index: 0,
        name: "p".into(),
    }));
    let tid = Rc::new(Expr::Sreg(Sreg::Tid(0)));
    let row = bin(BinOp::Mul, tid, Rc::new(Expr::Const(64)), 64);
    let address = bin(
        BinOp::Add,
        bin(BinOp::Add, base, row, 64),
        Rc::new(Expr::Const(offset)),
        64,
    );
    Piece {
        kind: Kind::Load,
        address,
        bytes,
        segment: 0,
        mergeable: Some(Mergeable { align, base: None }),
    }
}

#[test]
fn an_unrolled_float4_loop_is_two_16_byte_accesses() {
    // pos[j] and pos[j + 1] in one block: 32 contiguous bytes, align 16 at
    // offsets 0 and 16. From offset 0 the longest piece within 16 bytes is
    // 0..16 (16 % 16 = 0); from 16, 16..32. Program order = offset order:
    // pieces 0 and 4 lead.
    let aligns = [16, 4, 8, 4, 16, 4, 8, 4];
    let pieces: Vec<Piece> = (0..8)
        .map(|k| piece(4 * k, 4, aligns[k as usize]))
        .collect();
    let r = roles(&pieces);
    assert_eq!(r[0], leads(16, 0));
    assert_eq!(r[4], leads(16, 4));
    assert!((1..4).all(|k| r[k] == Role::Joins { leader: 0 }));
    assert!((5..8).all(|k| r[k] == Role::Joins { leader: 4 }));
}

#[test]
fn doubles_merge_in_pairs_at_align_16_only() {
    // Two doubles at 0 and 8: 16 bytes, align 16 → one access; at align 8,
    // 16 % 8 != 0 → alone. A repeated offset starts a new run: the second
    // load at 0 pairs with nothing after it (8 was taken).
    let r = roles(&[piece(0, 8, 16), piece(8, 8, 8)]);
    assert_eq!(r, [leads(16, 0), Role::Joins { leader: 0 }]);
    let r = roles(&[piece(0, 8, 8), piece(8, 8, 8)]);
    assert_eq!(r, [Role::Alone, Role::Alone]);
    // Sorted: (0, a), (0, b), (8, c): runs [a] and [b, c]; b leads.
    let r = roles(&[piece(0, 8, 16), piece(0, 8, 16), piece(8, 8, 8)]);
    assert_eq!(r, [Role::Alone, leads(16, 1), Role::Joins { leader: 1 }]);
}

#[test]
fn different_terms_or_segments_do_not_merge() {
    // Same offsets from another row (tid*64 against tid*32): no constant
    // distance. Another segment (a store between): no merge either.
    let mut other = piece(4, 4, 4);
    let tid = Rc::new(Expr::Sreg(Sreg::Tid(0)));
    other.address = bin(BinOp::Mul, tid, Rc::new(Expr::Const(32)), 64);
    assert_eq!(roles(&[piece(0, 4, 16), other]), [Role::Alone, Role::Alone]);
    let mut later = piece(4, 4, 4);
    later.segment = 1;
    assert_eq!(roles(&[piece(0, 4, 16), later]), [Role::Alone, Role::Alone]);
}

#[test]
fn a_uchar4_read_is_one_4_byte_access() {
    // Instructions: 0-3 the i8 loads x (align 4), y, z, w; 4 the store.
    // 4 contiguous bytes from x, 4 % 4 = 0: one access of 4 bytes per lane,
    // as the backend's ld.global.u32 (clang 19, sm_52 to sm_90).
    let p = &programs()["uchar4_read"];
    assert_eq!(ops(p), vec![vec![(0, 4, true), (4, 4, false)]]);
    assert_eq!(p.merged, merged(&[(1, 0), (2, 0), (3, 0)]));
    // Bypassed on a sectored L1: 32 lanes x 4 B = 128 contiguous bytes =
    // 4 sectors = 128 B from L2. The four byte reads would each touch the
    // same 4 sectors: 512 B (what the model counted before, 4x the
    // simulator's bytes on `histeq`'s hist_shared).
    let t = trace(p);
    let config = L1Config::sector_fill(32 * 1024);
    let sim = simulate(&t, &config, &[false; 5]).unwrap();
    assert_eq!(sim.loads.l2_bytes, 128);
}

#[test]
fn eight_bytes_are_two_4_byte_accesses_of_one_load() {
    // Instructions: 0-7 the i8 loads b0..b7, 8 the store. One piece of 8
    // bytes (8 % 8 = 0) led by b0, issued as two 4-byte accesses of
    // instruction 0: from b0's address and from b4's (the backend's two
    // ld.global.u32, both with b0's debug location, hence its key). The
    // adds read b0 after both: the second waits.
    let p = &programs()["eight_bytes"];
    assert_eq!(
        ops(p),
        vec![vec![(0, 4, false), (0, 4, true), (8, 1, false)]]
    );
    assert_eq!(
        p.merged,
        merged(&[(1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), (7, 0)])
    );
    // Bypassed on a sectored L1: lane l reads 4 bytes at 8l and 4 at
    // 8l + 4; each access spans 32 x 8 = 256 bytes = 8 sectors: 2 x 8 x
    // 32 = 512 B. One 8-byte access would have counted 256 B.
    let t = trace(p);
    let lanes: Vec<_> = (t.events.iter().filter(|e| e.inst == 0))
        .map(|e| t.lanes(e)[0])
        .collect();
    assert_eq!(lanes.len(), 2);
    assert_eq!(lanes[1] - lanes[0], 4);
    let config = L1Config::sector_fill(32 * 1024);
    let sim = simulate(&t, &config, &[false; 9]).unwrap();
    assert_eq!(sim.loads.l2_bytes, 512);
}

#[test]
fn bytes_and_shorts_merge_as_the_backend_writes_them() {
    // clang 19's PTX (sm_52, sm_70, sm_90) for contiguous runs at the
    // first element's alignment:
    // uchar4's x, y, z at align 4: 3 does not divide 4 → x, y (v2.u8) and z.
    let r = roles(&[piece(0, 1, 4), piece(1, 1, 1), piece(2, 1, 2)]);
    assert_eq!(r, [leads(2, 0), Role::Joins { leader: 0 }, Role::Alone]);
    // y, z, w: y (align 1) alone, z and w (align 2) one v2.u8.
    let r = roles(&[piece(1, 1, 1), piece(2, 1, 2), piece(3, 1, 1)]);
    assert_eq!(r, [Role::Alone, leads(2, 1), Role::Joins { leader: 1 }]);
    // Bytes at align 1 (a plain `unsigned char *`): nothing merges.
    let r = roles(&(0..4).map(|k| piece(k, 1, 1)).collect::<Vec<_>>());
    assert!(r.iter().all(|x| *x == Role::Alone));
    // Sixteen bytes at align 16: one ld.global.v4.u32, not split.
    let r = roles(
        &(0..16)
            .map(|k| piece(k, 1, if k == 0 { 16 } else { 1 }))
            .collect::<Vec<_>>(),
    );
    assert_eq!(r[0], leads(16, 0));
    // Four shorts at align 8: one ld.global.v4.u16 of 8 bytes, not split.
    let r = roles(
        &(0..4)
            .map(|k| piece(2 * k, 2, if k == 0 { 8 } else { 2 }))
            .collect::<Vec<_>>(),
    );
    assert_eq!(r[0], leads(8, 0));
}

#[test]
fn a_shared_store_between_stops_nothing_and_ldg_does() {
    // shared_store_between: x (0), y (1), the global store (2); the shared
    // store is no trace instruction. x (align 8) and y: one 8-byte access
    // (clang 19 writes one ld.global.v2 for a tile's `s[t] = in[i].x; s[t
    // + 256] = in[i].y`).
    let p = &programs()["shared_store_between"];
    assert_eq!(ops(p)[0].iter().map(|o| o.1).collect::<Vec<_>>(), [8, 4]);
    assert_eq!(p.merged, merged(&[(1, 0)]));
    // ldg_between: the __ldg call splits the chain (clang 19 writes a
    // uchar4 read around `__ldg` as two ld.global.v2.u8): x and y alone.
    let p = &programs()["ldg_between"];
    assert!(p.merged.is_empty(), "{:?}", p.merged);
}
