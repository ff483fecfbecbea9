; A block-stride loop, `for (i = tid; i < n; i += blockDim.x) s += a[i];`
; then `out[tid] = s + b[tid]` after the loop. The loop-header phi is the
; add-recurrence {tid.x,+,ntid.x}, evaluated at its first iteration (i = tid).
; The test on entry (`tid < n`, into the preheader) guards both loads; the
; loop's exit test is no guard of b. float, 64-thread block (2 warps).
;
; RUN-PARAMS: report=json;block=64;arg=n=100
; RUN-PARAMS-N40: report=json;block=64;arg=n=40
; RUN-PARAMS-FERMI: model=fermi;block=64;arg=n=100
;
; n = 100: every thread enters. a at the first iteration = a[tid]: bytes
; 0..255 = 8 sectors = 256 on; 2 warps x 4 segments = 256 off. Rule 1.
; Had the exit test (tid + 64 < 100: stay for tid < 36) been taken as a guard
; of b, only 28 threads would read b; all 64 do: 256 on, 256 off.
; CHECK: "pattern": "a + 4*{tid.x,+,64}<for.body>",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "tid.x < 100"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 256,
; CHECK-NEXT: "traffic_off_bytes": 256,
; CHECK-NEXT: "decision": "bypass",
; CHECK: "pattern": "b + 4*tid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "tid.x < 100"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 256,
; CHECK-NEXT: "traffic_off_bytes": 256,
;
; n = 40: threads 0..39 enter, for both loads: bytes 0..159 = 5 sectors =
; 160 on; 4 + 1 segments = 160 off.
; N40: "pattern": "a + 4*{tid.x,+,64}<for.body>",
; N40-NEXT: "guards": [
; N40-NEXT: "tid.x < 40"
; N40-NEXT: ],
; N40-NEXT: "analyzable": true,
; N40-NEXT: "active_threads": 40,
; N40: "traffic_on_bytes": 160,
; N40-NEXT: "traffic_off_bytes": 160,
; N40: "pattern": "b + 4*tid.x",
; N40-NEXT: "guards": [
; N40-NEXT: "tid.x < 40"
; N40-NEXT: ],
; N40-NEXT: "analyzable": true,
; N40-NEXT: "active_threads": 40,
; N40: "traffic_on_bytes": 160,
; N40-NEXT: "traffic_off_bytes": 160,
;
; Fermi, n = 100: both read bytes 0..255 = lines 0, 1 = 256 on; 256 off.
; FERMI: <no location> a + 4*{tid.x,+,64}<for.body> within-warp 256 256 bypass ld.global.L1::no_allocate
; FERMI: <no location> b + 4*tid.x within-warp 256 256 bypass ld.global.L1::no_allocate

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @loop_stride(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %nt = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %enter = icmp slt i32 %tid, %n
  br i1 %enter, label %for.body.lr.ph, label %exit

for.body.lr.ph:
  br label %for.body

for.body:
  %i = phi i32 [ %tid, %for.body.lr.ph ], [ %i.next, %for.body ]
  %sum = phi float [ 0.0, %for.body.lr.ph ], [ %sum.next, %for.body ]
  %i64 = sext i32 %i to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %va = load float, ptr addrspace(1) %pa, align 4
  %sum.next = fadd float %sum, %va
  %i.next = add nsw i32 %i, %nt
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %for.body, label %for.end

for.end:
  %t64 = zext i32 %tid to i64
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %t64
  %vb = load float, ptr addrspace(1) %pb, align 4
  %r = fadd float %sum.next, %vb
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %r, ptr addrspace(1) %po, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
