; Guard `if (i < n)`, i = blockIdx.x * blockDim.x + threadIdx.x, on a[i]
; (float); 64-thread block = 2 warps, block 0 evaluated, so i = tid.x.
; n is parameter 2: given by name, given by index, or not given.
;
; RUN-PARAMS: report=json;block=64;arg=n=40
; RUN-PARAMS-INDEX: report=json;block=64;arg=2=40
; RUN-PARAMS-MISSING: report=json;block=64
; RUN-PARAMS-FERMI: model=fermi;block=64;arg=n=40
;
; n = 40, sectored: threads 0..39 read bytes 0..159 = sectors 0..4, 5 x 32 =
; 160 on. Warp 0 reads bytes 0..127 = 4 segments, warp 1 (threads 32..39)
; bytes 128..159 = 1 segment: 5 x 32 = 160 off. 8 threads per sector:
; within-warp. on == off <= 28672: rule 1, conservative bypasses.
; CHECK: "name": "guard_lt",
; CHECK: "block_dim_source": "user",
; CHECK: "type": "float",
; CHECK-NEXT: "bytes": 4,
; CHECK-NEXT: "pattern": "a + 4*tid.x + 256*ctaid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "tid.x + 64*ctaid.x < 40"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 40,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 160,
; CHECK-NEXT: "traffic_off_bytes": 160,
; CHECK-NEXT: "decision": "bypass",
; CHECK-NEXT: "operator": "ld.global.L1::no_allocate",
; CHECK-NEXT: "reason": "rule 1: on = off = 160 B; no gain from L1, conservative bypasses",
; CHECK-NEXT: "lowered": false,
; CHECK-NEXT: "notes": []
; CHECK: "warnings": []
;
; By index: the same 40 threads.
; INDEX: "tid.x + 64*ctaid.x < 40"
; INDEX: "active_threads": 40,
; INDEX-NEXT: "locality": [
; INDEX: "traffic_on_bytes": 160,
; INDEX-NEXT: "traffic_off_bytes": 160,
;
; n unknown: the guard cannot be computed, all 64 threads are assumed to run
; (the paper's assumption): bytes 0..255 = 8 sectors = 256 on; 2 warps x 4
; segments = 256 off. Rule 1. The report names the missing argument.
; MISSING: "guards": [
; MISSING-NEXT: "tid.x + 64*ctaid.x < n"
; MISSING-NEXT: ],
; MISSING-NEXT: "analyzable": true,
; MISSING-NEXT: "active_threads": 64,
; MISSING: "traffic_on_bytes": 256,
; MISSING-NEXT: "traffic_off_bytes": 256,
; MISSING-NEXT: "decision": "bypass",
; MISSING: "notes": [
; MISSING-NEXT: "guard needs kernel argument n; all threads assumed to execute"
; MISSING-NEXT: ]
;
; n = 40, fermi: bytes 0..159 touch lines 0 and 1, 2 x 128 = 256 on; off 160
; as above. Line 0 is read by 32 threads of warp 0: within-warp. on > off:
; rule 3, bypass.
; FERMI: gpucc-cache: arch sm_90, model fermi, policy conservative, L1 16384 B per block
; FERMI: kernel guard_lt (block 64x1x1, user)
; FERMI: <no location> a + 4*tid.x + 256*ctaid.x within-warp 256 160 bypass ld.global.L1::no_allocate
; FERMI-NEXT: why: rule 3: on 256 B > off 160 B (scattered)

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @guard_lt(ptr addrspace(1) %a, ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %bdim
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %then, label %exit

then:
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
