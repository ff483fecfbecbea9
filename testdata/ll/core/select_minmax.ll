; A select and a min in the index: a[tid < 32 ? tid : 0] and
; b[min(tid, 40)] (llvm.smin), float, 64-thread block (2 warps).
;
; RUN-PARAMS: report=json;block=64
; RUN-PARAMS-FERMI: model=fermi;block=64
;
; a: warp 0 reads bytes 0..127 (sectors 0..3), warp 1 reads byte 0 only
; (sector 0 again): 4 sectors = 128 on; 4 + 1 segments = 160 off. on < off:
; rule 2, cache. Warp 1's 32 threads share a sector: within-warp.
; CHECK: "pattern": "a + 4*(tid.x < 32 ? tid.x : 0)",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp",
; CHECK-NEXT: "within-block"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 128,
; CHECK-NEXT: "traffic_off_bytes": 160,
; CHECK-NEXT: "decision": "cache",
; b: indices 0..40 (threads 41..63 all read 40): bytes 0..163 = sectors 0..5,
; 192 on; warp 0 segments 0..3, warp 1 (bytes 128..163) segments 4, 5: 6 x
; 32 = 192 off. Rule 1.
; CHECK: "pattern": "b + 4*(min(tid.x, 40))",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 192,
; CHECK-NEXT: "traffic_off_bytes": 192,
; CHECK-NEXT: "decision": "bypass",
;
; Fermi: a: line 0 = 128 on, 160 off: rule 2, cache. b: lines 0, 1 = 256
; on, 192 off: rule 3.
; FERMI: <no location> a + 4*(tid.x < 32 ? tid.x : 0) within-warp+within-block 128 160 cache ld.global
; FERMI: <no location> b + 4*(min(tid.x, 40)) within-warp 256 192 bypass ld.global.L1::no_allocate

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @select_minmax(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %low = icmp ult i32 %tid, 32
  %sel = select i1 %low, i32 %tid, i32 0
  %s64 = zext i32 %sel to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %s64
  %va = load float, ptr addrspace(1) %pa, align 4
  %m = call i32 @llvm.smin.i32(i32 %tid, i32 40)
  %m64 = zext i32 %m to i64
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %m64
  %vb = load float, ptr addrspace(1) %pb, align 4
  %r = fadd float %va, %vb
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %r, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
