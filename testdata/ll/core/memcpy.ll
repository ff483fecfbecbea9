; Aggregate copies read global memory like a load of their size: a float4
; assignment (llvm.memcpy of 16 B from src[tid]) and an 8-byte llvm.memmove
; from src2[tid]; a volatile copy and a copy of a runtime length are left
; alone. 64-thread block (2 warps).
;
; RUN-PARAMS: report=json;block=64
; RUN-PARAMS-FERMI: model=fermi;block=64
;
; memcpy, 16 B at byte 16*tid: bytes 0..1023 = 32 sectors = 1024 on; each
; warp reads 512 B = 16 segments: 2 x 16 x 32 = 1024 off; two threads per
; sector. Rule 1.
; CHECK: "type": "copy of 16 B",
; CHECK-NEXT: "bytes": 16,
; CHECK-NEXT: "pattern": "src + 16*tid.x",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 1024,
; CHECK-NEXT: "traffic_off_bytes": 1024,
; CHECK-NEXT: "decision": "bypass",
; CHECK-NEXT: "operator": "ld.global.L1::no_allocate",
; memmove, 8 B at byte 8*tid: bytes 0..511 = 16 sectors = 512 on; 2 x 8
; segments = 512 off. Rule 1.
; CHECK: "type": "copy of 8 B",
; CHECK-NEXT: "bytes": 8,
; CHECK-NEXT: "pattern": "src2 + 8*tid.x",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 512,
; CHECK-NEXT: "traffic_off_bytes": 512,
; CHECK: "skipped": [
; CHECK: "why": "volatile",
; CHECK: "why": "copy of a runtime length",
;
; Fermi: 8 lines = 1024 on and off; 4 lines = 512 on and off. Rule 1.
; FERMI: <no location> src + 16*tid.x within-warp 1024 1024 bypass ld.global.L1::no_allocate
; FERMI: <no location> src2 + 8*tid.x within-warp 512 512 bypass ld.global.L1::no_allocate
; FERMI: left alone at <no location>: volatile
; FERMI-NEXT: left alone at <no location>: copy of a runtime length

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.float4 = type { float, float, float, float }

define ptx_kernel void @copies(ptr addrspace(1) %dst, ptr addrspace(1) %src, ptr addrspace(1) %src2, i64 %len) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %s = getelementptr inbounds %struct.float4, ptr addrspace(1) %src, i64 %t64
  %d = getelementptr inbounds %struct.float4, ptr addrspace(1) %dst, i64 %t64
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) align 16 %d, ptr addrspace(1) align 16 %s, i64 16, i1 false)
  %s2 = getelementptr inbounds i64, ptr addrspace(1) %src2, i64 %t64
  call void @llvm.memmove.p1.p1.i64(ptr addrspace(1) align 8 %d, ptr addrspace(1) align 8 %s2, i64 8, i1 false)
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) align 16 %d, ptr addrspace(1) align 16 %s, i64 16, i1 true)
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) align 16 %d, ptr addrspace(1) align 16 %s, i64 %len, i1 false)
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) noalias nocapture writeonly, ptr addrspace(1) noalias nocapture readonly, i64, i1 immarg)
declare void @llvm.memmove.p1.p1.i64(ptr addrspace(1) nocapture writeonly, ptr addrspace(1) nocapture readonly, i64, i1 immarg)

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
