; A loop whose step is read inside the loop: `do { s += a[i]; i +=
; step[tid]; } while (i < n);` from i = tid. The phi is no add-recurrence (its
; step comes from memory), so it takes its first-iteration value, i = tid.
; 256-thread block (8 warps).
;
; RUN-PARAMS: report=json;block=256
; RUN-PARAMS-FERMI: model=fermi;block=256
;
; a[tid], float: 1024 B = 32 sectors = 1024 on; 8 warps x 4 segments = 1024
; off. Rule 1.
; CHECK: "pattern": "a + 4*tid.x",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 256,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 1024,
; CHECK-NEXT: "traffic_off_bytes": 1024,
; CHECK-NEXT: "decision": "bypass",
; CHECK-NEXT: "operator": "ld.global.L1::no_allocate",
; CHECK-NEXT: "reason": "rule 1: on = off = 1024 B; no gain from L1, conservative bypasses",
; step[tid], int: the same 1024 B, 1024 on, 1024 off. Rule 1.
; CHECK: "pattern": "step + 4*tid.x",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 256,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 1024,
; CHECK-NEXT: "traffic_off_bytes": 1024,
;
; Fermi: 8 lines = 1024 on, 1024 off, rule 1, for both.
; FERMI: <no location> a + 4*tid.x within-warp 1024 1024 bypass ld.global.L1::no_allocate
; FERMI: <no location> step + 4*tid.x within-warp 1024 1024 bypass ld.global.L1::no_allocate

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @loop_loaded_step(ptr addrspace(1) %a, ptr addrspace(1) %step, ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %ps = getelementptr inbounds i32, ptr addrspace(1) %step, i64 %t64
  br label %loop

loop:
  %i = phi i32 [ %tid, %entry ], [ %i.next, %loop ]
  %sum = phi float [ 0.0, %entry ], [ %sum.next, %loop ]
  %i64 = sext i32 %i to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %va = load float, ptr addrspace(1) %pa, align 4
  %sum.next = fadd float %sum, %va
  %st = load i32, ptr addrspace(1) %ps, align 4
  %i.next = add nsw i32 %i, %st
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit

exit:
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %sum.next, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
