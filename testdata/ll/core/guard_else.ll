; An else-branch guard: `if (tid < n) v = a[tid]; else v = b[tid];`, float,
; 64-thread block (2 warps), n = 40. The else block runs when the condition
; is false, so b's guard is the negation.
;
; RUN-PARAMS: report=json;block=64;arg=n=40
; RUN-PARAMS-FERMI: model=fermi;block=64;arg=n=40
;
; a, sectored: threads 0..39, bytes 0..159 = 5 sectors = 160 on; warp 0
; 4 segments + warp 1 1 segment = 160 off. Rule 1, bypass.
; CHECK: "pattern": "a + 4*tid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "tid.x < 40"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 40,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 160,
; CHECK-NEXT: "traffic_off_bytes": 160,
; CHECK-NEXT: "decision": "bypass",
; b, sectored: threads 40..63 (all in warp 1), bytes 160..255 = sectors 5..7,
; 3 x 32 = 96 on; warp 1 touches segments 5..7: 96 off. Rule 1, bypass.
; CHECK: "pattern": "b + 4*tid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "tid.x >= 40"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 24,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 96,
; CHECK-NEXT: "traffic_off_bytes": 96,
; CHECK-NEXT: "decision": "bypass",
; CHECK-NEXT: "operator": "ld.global.L1::no_allocate",
; CHECK-NEXT: "reason": "rule 1: on = off = 96 B; no gain from L1, conservative bypasses",
;
; Fermi: a touches lines 0 and 1 = 256 on, 160 off: rule 3. b (bytes
; 160..255) touches line 1 only = 128 on, 96 off: rule 3.
; FERMI: kernel guard_else (block 64x1x1, user)
; FERMI: <no location> a + 4*tid.x within-warp 256 160 bypass ld.global.L1::no_allocate
; FERMI-NEXT: why: rule 3: on 256 B > off 160 B (scattered)
; FERMI-NEXT: <no location> b + 4*tid.x within-warp 128 96 bypass ld.global.L1::no_allocate
; FERMI-NEXT: why: rule 3: on 128 B > off 96 B (scattered)

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @guard_else(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i64 = zext i32 %tid to i64
  %in = icmp slt i32 %tid, %n
  br i1 %in, label %then, label %else

then:
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %va = load float, ptr addrspace(1) %pa, align 4
  br label %join

else:
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %i64
  %vb = load float, ptr addrspace(1) %pb, align 4
  br label %join

join:
  %v = phi float [ %va, %then ], [ %vb, %else ]
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i64
  store float %v, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @guard_else, !"kernel", i32 1}
