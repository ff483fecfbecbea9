; An integer kernel argument in the address: a[tid * stride], float,
; stride = parameter 1, 64-thread block (2 warps). Given by name or by index
; it is a constant; missing, the address cannot be evaluated.
;
; RUN-PARAMS: report=json;block=64;arg=stride=2
; RUN-PARAMS-INDEX: report=json;block=64;arg=1=2
; RUN-PARAMS-MISSING: report=json;block=64
; RUN-PARAMS-FERMI: model=fermi;block=64;arg=stride=2
;
; stride = 2: bytes 8*tid = 0..507, 16 sectors = 512 on; 2 warps x 8
; segments = 512 off. Rule 1.
; CHECK: "pattern": "a + 8*tid.x",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 512,
; CHECK-NEXT: "traffic_off_bytes": 512,
; CHECK-NEXT: "decision": "bypass",
; CHECK-NEXT: "operator": "ld.global.L1::no_allocate",
; CHECK-NEXT: "reason": "rule 1: on = off = 512 B; no gain from L1, conservative bypasses",
; CHECK-NEXT: "lowered": false,
; CHECK-NEXT: "notes": []
; CHECK: "warnings": []
;
; INDEX: "pattern": "a + 8*tid.x",
; INDEX: "traffic_on_bytes": 512,
; INDEX-NEXT: "traffic_off_bytes": 512,
;
; Missing: every thread's address is unknown: 64 x 32 = 2048 on and off,
; rule 4; the report says which argument would make it computable.
; MISSING: "pattern": "a + 4*(tid.x * stride)",
; MISSING-NEXT: "guards": [],
; MISSING-NEXT: "analyzable": false,
; MISSING-NEXT: "active_threads": 64,
; MISSING-NEXT: "locality": [],
; MISSING-NEXT: "traffic_on_bytes": 2048,
; MISSING-NEXT: "traffic_off_bytes": 2048,
; MISSING-NEXT: "decision": "bypass",
; MISSING-NEXT: "operator": "ld.global.L1::no_allocate",
; MISSING-NEXT: "reason": "rule 4: address not analyzable",
; MISSING-NEXT: "lowered": false,
; MISSING-NEXT: "notes": [
; MISSING-NEXT: give --kernel-arg=stride=VALUE"
; MISSING-NEXT: ],
;
; Fermi, stride = 2: 4 lines = 512 on, 512 off. Rule 1.
; FERMI: <no location> a + 8*tid.x within-warp 512 512 bypass ld.global.L1::no_allocate

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @args(ptr addrspace(1) %a, i32 %stride, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %idx = mul nsw i32 %tid, %stride
  %i64 = sext i32 %idx to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %v = load float, ptr addrspace(1) %pa, align 4
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %v, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
