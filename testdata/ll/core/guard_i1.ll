; Guards through i1 conversions: `freeze` of a compare (a[tid] when
; tid < 20) and `trunc ... to i1`, the low bit (b[tid] when bit 4 of tid is
; set: tid in 16..31 and 48..63). float, 64-thread block (2 warps).
;
; RUN-PARAMS: report=json;block=64
; RUN-PARAMS-FERMI: model=fermi;block=64
;
; a, sectored: bytes 0..79 = sectors 0..2, 96 on; warp 0 3 segments = 96 off.
; Rule 1.
; CHECK: "pattern": "a + 4*tid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "tid.x < 20"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 20,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 96,
; CHECK-NEXT: "traffic_off_bytes": 96,
; CHECK-NEXT: "decision": "bypass",
; b, sectored: bytes 64..127 and 192..255 = sectors 2, 3, 6, 7, 128 on; warp
; 0 segments 2, 3 and warp 1 segments 6, 7: 128 off. Rule 1. The block of b
; is reached from a block with two predecessors: only its own branch guards
; it, not a's.
; CHECK: "pattern": "b + 4*tid.x",
; CHECK-NEXT: "guards": [
; CHECK-NEXT: "((tid.x >> 4) & 1) != 0"
; CHECK-NEXT: ],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 32,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 128,
; CHECK-NEXT: "traffic_off_bytes": 128,
; CHECK-NEXT: "decision": "bypass",
;
; Fermi: a touches line 0 = 128 on, 96 off: rule 3. b touches lines 0 and 1
; = 256 on, 128 off: rule 3.
; FERMI: <no location> a + 4*tid.x within-warp 128 96 bypass ld.global.L1::no_allocate
; FERMI-NEXT: why: rule 3: on 128 B > off 96 B (scattered)
; FERMI-NEXT: <no location> b + 4*tid.x within-warp 256 128 bypass ld.global.L1::no_allocate
; FERMI-NEXT: why: rule 3: on 256 B > off 128 B (scattered)

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @guard_i1(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i64
  %lt = icmp ult i32 %tid, 20
  %fr = freeze i1 %lt
  br i1 %fr, label %low, label %mid

low:
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %va = load float, ptr addrspace(1) %pa, align 4
  store float %va, ptr addrspace(1) %po, align 4
  br label %mid

mid:
  %hi = lshr i32 %tid, 4
  %bit = trunc i32 %hi to i1
  br i1 %bit, label %odd_half, label %exit

odd_half:
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %i64
  %vb = load float, ptr addrspace(1) %pb, align 4
  store float %vb, ptr addrspace(1) %po, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
