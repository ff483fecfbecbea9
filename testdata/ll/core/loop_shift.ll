; A loop-header phi that is no add-recurrence: `for (s = 16; s > 0; s >>= 1)
; v += a[tid + s];` (a tree reduction's step). It takes its first-iteration
; value, s = 16, as Algorithm 1 does when it deletes back edges. float,
; one warp (32 threads).
;
; RUN-PARAMS: report=json;block=32
; RUN-PARAMS-FERMI: model=fermi;block=32
;
; Sectored: a[tid + 16] = bytes 64..191 = sectors 2..5, 128 on; one warp,
; 4 segments = 128 off. Rule 1.
; CHECK: "pattern": "a + 4*tid.x + 64",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 32,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 128,
; CHECK-NEXT: "traffic_off_bytes": 128,
; CHECK-NEXT: "decision": "bypass",
;
; Fermi: bytes 64..191 straddle lines 0 and 1, 256 on; 128 off: rule 3. (At
; s = 0 it would be line 0 alone, 128 on.)
; FERMI: <no location> a + 4*tid.x + 64 within-warp 256 128 bypass ld.global.L1::no_allocate
; FERMI-NEXT: why: rule 3: on 256 B > off 128 B (scattered)

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @loop_shift(ptr addrspace(1) %a, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop

loop:
  %s = phi i32 [ 16, %entry ], [ %s.next, %loop ]
  %sum = phi float [ 0.0, %entry ], [ %sum.next, %loop ]
  %idx = add nuw nsw i32 %tid, %s
  %i64 = zext i32 %idx to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %v = load float, ptr addrspace(1) %p, align 4
  %sum.next = fadd float %sum, %v
  %s.next = lshr i32 %s, 1
  %more = icmp ugt i32 %s, 1
  br i1 %more, label %loop, label %exit

exit:
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %sum.next, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
