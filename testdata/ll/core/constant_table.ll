; Tables: a __constant__ table (address space 4), read directly and through
; a generic pointer cast from it, is constant memory and left alone; a
; `const __device__` table (a constant global in address space 1), read as
; lut[tid & 15], is a read-only table every thread shares: analysed, but
; kept on the cached read-only path (ld.global.nc) without a verdict.
; float, 64-thread block (2 warps). The table is 64 B aligned to 64 B, so
; wherever the linker puts it, it lies in two 32 B sectors of one 128 B line.
;
; RUN-PARAMS: report=json;block=64
; RUN-PARAMS-FERMI: model=fermi;block=64
;
; lut: bytes 4*(tid & 15) = 0..63, 2 sectors = 64 on; each warp reads 64 B =
; 2 segments: 2 x 2 x 32 = 128 off; within-warp and within-block.
; CHECK: "pattern": "@lut + 4*(tid.x & 15)",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp",
; CHECK-NEXT: "within-block"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 64,
; CHECK-NEXT: "traffic_off_bytes": 128,
; CHECK-NEXT: "decision": "default",
; CHECK-NEXT: "operator": "ld.global.nc",
; CHECK-NEXT: "reason": "read-only table in constant global memory, shared by all threads: kept on the cached read-only path",
; CHECK: "skipped": [
; CHECK: "why": "constant memory",
; CHECK: "why": "constant memory",
; CHECK-NOT: "why"
; CHECK: "warnings"
;
; Fermi: one line = 128 on; 128 off; within-warp only (on = off).
; FERMI: <no location> @lut + 4*(tid.x & 15) within-warp 128 128 default ld.global.nc
; FERMI-NEXT: why: read-only table in constant global memory, shared by all threads: kept on the cached read-only path
; FERMI: left alone at <no location>: constant memory
; FERMI-NEXT: left alone at <no location>: constant memory

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@ctab = addrspace(4) externally_initialized global [16 x float] zeroinitializer, align 4
@lut = internal addrspace(1) constant [16 x float] [float 0.0, float 1.0, float 2.0, float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float 8.0, float 9.0, float 10.0, float 11.0, float 12.0, float 13.0, float 14.0, float 15.0], align 64

define ptx_kernel void @tables(ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %m = and i32 %tid, 15
  %m64 = zext i32 %m to i64
  %pl = getelementptr inbounds [16 x float], ptr addrspace(1) @lut, i64 0, i64 %m64
  %vl = load float, ptr addrspace(1) %pl, align 4
  %pc = getelementptr inbounds [16 x float], ptr addrspace(4) @ctab, i64 0, i64 %m64
  %vc = load float, ptr addrspace(4) %pc, align 4
  %pg = getelementptr inbounds [16 x float], ptr addrspacecast (ptr addrspace(4) @ctab to ptr), i64 0, i64 %m64
  %vg = load float, ptr %pg, align 4
  %s1 = fadd float %vl, %vc
  %s2 = fadd float %s1, %vg
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %s2, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
