; A load no evaluated thread executes: `if (blockIdx.x == 1) out[i] =
; a[i];`, i = blockIdx.x * blockDim.x + threadIdx.x, float, 64-thread block.
; With block 0 alone evaluated (the paper's choice) there is no evidence and
; no verdict: the load keeps the target's default. Sampling the 4 blocks of
; a 4-block grid finds block 1 running it.
;
; RUN-PARAMS: report=json;block=64
; RUN-PARAMS-SAMPLED: report=json;block=64;grid=4;sample-blocks=4
; RUN-PARAMS-TEXT: block=64
;
; CHECK: "sampled_blocks": 1,
; CHECK: "pattern": "a + 4*tid.x + 256*ctaid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "ctaid.x == 1"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 0,
; CHECK-NEXT: "locality": [],
; CHECK-NEXT: "traffic_on_bytes": 0,
; CHECK-NEXT: "traffic_off_bytes": 0,
; CHECK-NEXT: "decision": "default",
; CHECK-NEXT: "operator": "ld.global",
; CHECK-NEXT: "reason": "no evaluated thread executes it (in 1 sampled block); left at the default",
;
; Blocks 0..3 evaluated; block 1 reads bytes 256..511 relative to a: 8
; sectors = 256 on, 2 warps x 4 segments = 256 off; the other three read
; nothing. Mean over 4 blocks: 64 on, 64 off, 16 threads. Rule 1.
; SAMPLED: "sampled_blocks": 4,
; SAMPLED: "pattern": "a + 4*tid.x + 256*ctaid.x",
; SAMPLED-NEXT: "guards": [
; SAMPLED-NEXT: "ctaid.x == 1"
; SAMPLED-NEXT: ],
; SAMPLED-NEXT: "analyzable": true,
; SAMPLED-NEXT: "active_threads": 16,
; SAMPLED-NEXT: "locality": [
; SAMPLED-NEXT: "within-warp"
; SAMPLED-NEXT: ],
; SAMPLED-NEXT: "traffic_on_bytes": 64,
; SAMPLED-NEXT: "traffic_off_bytes": 64,
; SAMPLED-NEXT: "decision": "bypass",
; SAMPLED-NEXT: "operator": "ld.global.L1::no_allocate",
; SAMPLED-NEXT: "reason": "rule 1: on = off = 64 B; no gain from L1, conservative bypasses",
;
; TEXT: <no location> a + 4*tid.x + 256*ctaid.x none 0 0 default ld.global
; TEXT-NEXT: why: no evaluated thread executes it (in 1 sampled block); left at the default

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @no_thread(ptr addrspace(1) %a, ptr addrspace(1) %out) #0 {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %one = icmp eq i32 %bid, 1
  br i1 %one, label %then, label %exit

then:
  %base = mul i32 %bid, %bdim
  %i = add i32 %base, %tid
  %i64 = sext i32 %i to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %v = load float, ptr addrspace(1) %pa, align 4
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i64
  store float %v, ptr addrspace(1) %po, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
