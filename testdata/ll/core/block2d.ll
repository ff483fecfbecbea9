; 2-D thread ids in a 16x16 block: linear id = x + 16*y, warp w = rows
; y in {2w, 2w+1}, 8 warps. float loads:
;   a[y*blockDim.x + x] (row-major), b[y] (one per row), c[x*16 + y]
;   (column-major).
;
; RUN-PARAMS: report=json;block=16x16
; RUN-PARAMS-FERMI: model=fermi;block=16x16
;
; a: bytes 4*linear id = 0..1023: 32 sectors = 1024 on; 8 warps x 4
; segments = 1024 off. Rule 1.
; CHECK: "block_dim": [
; CHECK-NEXT: 16,
; CHECK-NEXT: 16,
; CHECK-NEXT: 1
; CHECK: "pattern": "a + 4*tid.x + 64*tid.y",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 256,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 1024,
; CHECK-NEXT: "traffic_off_bytes": 1024,
; CHECK-NEXT: "decision": "bypass",
; b: bytes 4y = 0..63, 2 sectors = 64 on; warp w reads bytes 8w..8w+7, one
; segment: 8 x 32 = 256 off. on < off: rule 2, cache.
; CHECK: "pattern": "b + 4*tid.y",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 256,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp",
; CHECK-NEXT: "within-block"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 64,
; CHECK-NEXT: "traffic_off_bytes": 256,
; CHECK-NEXT: "decision": "cache",
; CHECK-NEXT: "operator": "ld.global",
; c: bytes 64x + 4y cover 0..1023: 32 sectors = 1024 on. Warp w reads
; bytes 64x + 8w .. 64x + 8w + 7 for x = 0..15: one segment per x, 16 per
; warp, 8 x 16 x 32 = 4096 off; rows 2w and 2w+1 share a sector:
; within-warp. Rule 2, cache.
; CHECK: "pattern": "c + 64*tid.x + 4*tid.y",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 256,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp",
; CHECK-NEXT: "within-block"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 1024,
; CHECK-NEXT: "traffic_off_bytes": 4096,
; CHECK-NEXT: "decision": "cache",
;
; Fermi: a 8 lines = 1024 on, 1024 off, rule 1; b one line = 128 on, 256
; off, rule 2; c 8 lines = 1024 on, 4096 off, rule 2.
; FERMI: kernel block2d (block 16x16x1, user)
; FERMI: <no location> a + 4*tid.x + 64*tid.y within-warp 1024 1024 bypass ld.global.L1::no_allocate
; FERMI: <no location> b + 4*tid.y within-warp+within-block 128 256 cache ld.global
; FERMI: <no location> c + 64*tid.x + 4*tid.y within-warp+within-block 1024 4096 cache ld.global

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @block2d(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, ptr addrspace(1) %out) #0 {
entry:
  %x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %row = mul i32 %y, %nx
  %lin = add i32 %row, %x
  %lin64 = zext i32 %lin to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %lin64
  %va = load float, ptr addrspace(1) %pa, align 4
  %y64 = zext i32 %y to i64
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %y64
  %vb = load float, ptr addrspace(1) %pb, align 4
  %col = shl i32 %x, 4
  %tr = add i32 %col, %y
  %tr64 = zext i32 %tr to i64
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %tr64
  %vc = load float, ptr addrspace(1) %pc, align 4
  %s1 = fadd float %va, %vb
  %s2 = fadd float %s1, %vc
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %lin64
  store float %s2, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
