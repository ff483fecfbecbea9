; Guards from a `switch (threadIdx.x / 32)` (the warp index): case 0 reads
; a[tid], cases 1 and 2 (one block, as clang writes `case 1: case 2:`) read
; b[tid], the default (3) reads c[tid]. float, 128-thread block (4 warps).
;
; RUN-PARAMS: report=json;block=128
; RUN-PARAMS-FERMI: model=fermi;block=128
;
; a: warp 0 (threads 0..31), bytes 0..127 = 4 sectors = 128 on; 4 segments =
; 128 off. Rule 1.
; CHECK: "pattern": "a + 4*tid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "(tid.x >> 5) == 0"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 32,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 128,
; CHECK-NEXT: "traffic_off_bytes": 128,
; CHECK-NEXT: "decision": "bypass",
; b: warps 1 and 2 (threads 32..95), bytes 128..383 = 8 sectors = 256 on;
; 2 warps x 4 segments = 256 off. Rule 1. (Without the guard all 4 warps
; would count: 512 on, 512 off.)
; CHECK: "pattern": "b + 4*tid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "(tid.x >> 5) == 1 || (tid.x >> 5) == 2"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 256,
; CHECK-NEXT: "traffic_off_bytes": 256,
; CHECK-NEXT: "decision": "bypass",
; c: the default, warp 3 (threads 96..127), bytes 384..511 = 4 sectors =
; 128 on; 128 off. Rule 1.
; CHECK: "pattern": "c + 4*tid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "(tid.x >> 5) != 0 && (tid.x >> 5) != 1 && (tid.x >> 5) != 2"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 32,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 128,
; CHECK-NEXT: "traffic_off_bytes": 128,
; CHECK-NEXT: "decision": "bypass",
;
; Fermi: a reads line 0, b lines 1 and 2, c line 3: 128, 256, 128 on; off as
; above. Rule 1 each.
; FERMI: <no location> a + 4*tid.x within-warp 128 128 bypass ld.global.L1::no_allocate
; FERMI: <no location> b + 4*tid.x within-warp 256 256 bypass ld.global.L1::no_allocate
; FERMI: <no location> c + 4*tid.x within-warp 128 128 bypass ld.global.L1::no_allocate

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @guard_switch(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i64 = zext i32 %tid to i64
  %sel = lshr i32 %tid, 5
  switch i32 %sel, label %other [
    i32 0, label %zero
    i32 1, label %one_or_two
    i32 2, label %one_or_two
  ]

zero:
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %va = load float, ptr addrspace(1) %pa, align 4
  br label %join

one_or_two:
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %i64
  %vb = load float, ptr addrspace(1) %pb, align 4
  br label %join

other:
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %i64
  %vc = load float, ptr addrspace(1) %pc, align 4
  br label %join

join:
  %v = phi float [ %va, %zero ], [ %vb, %one_or_two ], [ %vc, %other ]
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i64
  store float %v, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
