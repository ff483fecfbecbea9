; Phis outside loops: one that merges the same index from both sides of a
; branch (2*tid, computed twice) is that index; one that merges different
; indices (tid on one side, tid + 64 on the other) is unknown (the paper's
; infinity). float, 64-thread block (2 warps).
;
; RUN-PARAMS: report=json;block=64
; RUN-PARAMS-FERMI: model=fermi;block=64
;
; a[2*tid]: bytes 8*tid = 0..507, sectors 0..15 = 512 on; each warp spans
; 256 B = 8 segments: 16 x 32 = 512 off; 4 threads per sector. Rule 1.
; CHECK: "pattern": "a + 8*tid.x",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 512,
; CHECK-NEXT: "traffic_off_bytes": 512,
; CHECK-NEXT: "decision": "bypass",
; b[merged]: unknown, one sector per thread on (64 x 32 = 2048) and one
; segment per thread off (2048); rule 4.
; CHECK: "pattern": "b + 4*?",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": false,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [],
; CHECK-NEXT: "traffic_on_bytes": 2048,
; CHECK-NEXT: "traffic_off_bytes": 2048,
; CHECK-NEXT: "decision": "bypass",
; CHECK-NEXT: "operator": "ld.global.L1::no_allocate",
; CHECK-NEXT: "reason": "rule 4: address not analyzable",
; CHECK-NEXT: "lowered": false,
; CHECK-NEXT: "notes": [
; CHECK-NEXT: "address unknown: phi of different values"
;
; Fermi: a: 4 lines = 512 on, 512 off, rule 1. b: one 128 B line per thread,
; 64 x 128 = 8192 on, 2048 off, rule 4.
; FERMI: <no location> a + 8*tid.x within-warp 512 512 bypass ld.global.L1::no_allocate
; FERMI: <no location> b + 4*? unknown 8192 2048 bypass ld.global.L1::no_allocate
; FERMI-NEXT: why: rule 4: address not analyzable

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @phi_merge(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %low = icmp ult i32 %tid, 32
  br i1 %low, label %left, label %right

left:
  %x1 = mul nuw nsw i32 %tid, 2
  br label %join

right:
  %x2 = mul nuw nsw i32 %tid, 2
  %y2 = add nuw nsw i32 %tid, 64
  br label %join

join:
  %x = phi i32 [ %x1, %left ], [ %x2, %right ]
  %y = phi i32 [ %tid, %left ], [ %y2, %right ]
  %x64 = zext i32 %x to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %x64
  %va = load float, ptr addrspace(1) %pa, align 4
  %y64 = zext i32 %y to i64
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %y64
  %vb = load float, ptr addrspace(1) %pb, align 4
  %r = fadd float %va, %vb
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %r, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
