; Integer casts evaluated at their widths, 512-thread block (16 warps),
; float loads, t8 = (i8) tid:
;   a[(u8) t8]                 = a[tid & 255]: threads 256..511 repeat 0..255;
;   b[(u32)(i32)(i8) t8 >> 24] = b[0] for tid & 255 < 128, b[255] above
;                                (sign extension fills the high byte);
;   c[(u32)(u8) t8 >> 24]      = c[0] for every thread (zero extension).
;
; RUN-PARAMS: report=json;block=512
; RUN-PARAMS-FERMI: model=fermi;block=512
;
; a: bytes 0..1023 = 32 sectors = 1024 on; each warp reads 128 B = 4
; segments, 16 x 4 x 32 = 2048 off. on < off: rule 2, cache (warps 8..15
; re-read what warps 0..7 read).
; CHECK: "pattern": "a + 4*tid.x",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 512,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp",
; CHECK-NEXT: "within-block"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 1024,
; CHECK-NEXT: "traffic_off_bytes": 2048,
; CHECK-NEXT: "decision": "cache",
; b: bytes 0 and 1020, sectors 0 and 31 = 64 on; each warp reads one of the
; two: 16 x 1 x 32 = 512 off. Rule 2, cache.
; CHECK: "pattern": "b + 4*(tid.x >> 24)",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 512,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp",
; CHECK-NEXT: "within-block"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 64,
; CHECK-NEXT: "traffic_off_bytes": 512,
; CHECK-NEXT: "decision": "cache",
; c: byte 0 only: 32 on, 512 off. Rule 2, cache.
; CHECK: "pattern": "c + 4*(tid.x >> 24)",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 512,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp",
; CHECK-NEXT: "within-block"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 32,
; CHECK-NEXT: "traffic_off_bytes": 512,
; CHECK-NEXT: "decision": "cache",
;
; Fermi: a 8 lines = 1024 on, 2048 off; b lines 0 and 7 = 256 on, 512 off;
; c line 0 = 128 on, 512 off. All rule 2, cache.
; FERMI: <no location> a + 4*tid.x within-warp+within-block 1024 2048 cache ld.global
; FERMI: <no location> b + 4*(tid.x >> 24) within-warp+within-block 256 512 cache ld.global
; FERMI: <no location> c + 4*(tid.x >> 24) within-warp+within-block 128 512 cache ld.global

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @casts(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t8 = trunc i32 %tid to i8
  %z = zext i8 %t8 to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %z
  %va = load float, ptr addrspace(1) %pa, align 4
  %s32 = sext i8 %t8 to i32
  %hs = lshr i32 %s32, 24
  %hs64 = zext i32 %hs to i64
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %hs64
  %vb = load float, ptr addrspace(1) %pb, align 4
  %z32 = zext i8 %t8 to i32
  %hz = lshr i32 %z32, 24
  %hz64 = zext i32 %hz to i64
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %hz64
  %vc = load float, ptr addrspace(1) %pc, align 4
  %s1 = fadd float %va, %vb
  %s2 = fadd float %s1, %vc
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %s2, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
