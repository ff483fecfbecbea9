; Add-recurrences of three shapes, each evaluated at its first iteration:
; - rec_ptr: a pointer induction variable, p = a + tid, p += 64 floats each
;   trip: {a + 4*tid.x,+,256} over its loop;
; - rec_nested: a[(i*8 + j)*64 + tid] in two nested counted loops, one
;   recurrence per loop, each labelled with its header;
; - rec_down: a[k*16 + tid] with k counting down from 1 by `sub 1`: the step
;   is -1 and the first iteration is k = 1.
; float, 64-thread block (2 warps).
;
; RUN-PARAMS: report=json;block=64
; RUN-PARAMS-FERMI: model=fermi;block=64
;
; rec_ptr and rec_nested at the first iteration read a[tid]: bytes 0..255 =
; 8 sectors = 256 on; 2 warps x 4 segments = 256 off. Rule 1.
; CHECK: "name": "rec_ptr",
; CHECK: "pattern": "({a + 4*tid.x,+,256}<loop>)",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 256,
; CHECK-NEXT: "traffic_off_bytes": 256,
; CHECK: "name": "rec_nested",
; CHECK: "pattern": "a + 4*tid.x + 256*{0,+,1}<inner> + 2048*{0,+,1}<outer>",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 256,
; CHECK-NEXT: "traffic_off_bytes": 256,
; rec_down at k = 1: a[16 + tid], bytes 64..319 = sectors 2..9 = 256 on;
; warp 0 bytes 64..191 and warp 1 bytes 192..319, 4 segments each = 256
; off. Rule 1.
; CHECK: "name": "rec_down",
; CHECK: "pattern": "a + 4*tid.x + 64*{1,+,-1}<down>",
; CHECK-NEXT: "guards": [],
; CHECK-NEXT: "analyzable": true,
; CHECK-NEXT: "active_threads": 64,
; CHECK-NEXT: "locality": [
; CHECK-NEXT: "within-warp"
; CHECK-NEXT: ],
; CHECK-NEXT: "traffic_on_bytes": 256,
; CHECK-NEXT: "traffic_off_bytes": 256,
;
; Fermi: rec_ptr and rec_nested read bytes 0..255 = lines 0, 1: 256 on, 256
; off, rule 1. rec_down reads bytes 64..319 = lines 0, 1, 2: 384 on, 256
; off, rule 3 (at k = 0 it would have been 256 on).
; FERMI: kernel rec_ptr (block 64x1x1, user)
; FERMI: <no location> ({a + 4*tid.x,+,256}<loop>) within-warp 256 256 bypass
; FERMI: kernel rec_nested (block 64x1x1, user)
; FERMI: <no location> a + 4*tid.x + 256*{0,+,1}<inner> + 2048*{0,+,1}<outer> within-warp 256 256 bypass
; FERMI: kernel rec_down (block 64x1x1, user)
; FERMI: <no location> a + 4*tid.x + 64*{1,+,-1}<down> within-warp 384 256 bypass
; FERMI-NEXT: why: rule 3: on 384 B > off 256 B (scattered)

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @rec_ptr(ptr addrspace(1) %a, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %start = getelementptr inbounds float, ptr addrspace(1) %a, i64 %t64
  br label %loop

loop:
  %p = phi ptr addrspace(1) [ %start, %entry ], [ %p.next, %loop ]
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %sum = phi float [ 0.0, %entry ], [ %sum.next, %loop ]
  %v = load float, ptr addrspace(1) %p, align 4
  %sum.next = fadd float %sum, %v
  %p.next = getelementptr inbounds float, ptr addrspace(1) %p, i64 64
  %k.next = add nuw nsw i32 %k, 1
  %more = icmp ult i32 %k.next, 8
  br i1 %more, label %loop, label %exit

exit:
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %sum.next, ptr addrspace(1) %po, align 4
  ret void
}

define ptx_kernel void @rec_nested(ptr addrspace(1) %a, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %outer

outer:
  %i = phi i32 [ 0, %entry ], [ %i.next, %outer.latch ]
  %sum.o = phi float [ 0.0, %entry ], [ %sum.next, %outer.latch ]
  %row = mul nuw nsw i32 %i, 8
  br label %inner

inner:
  %j = phi i32 [ 0, %outer ], [ %j.next, %inner ]
  %sum = phi float [ %sum.o, %outer ], [ %sum.next, %inner ]
  %k = add nuw nsw i32 %row, %j
  %k64 = mul nuw nsw i32 %k, 64
  %idx = add nuw nsw i32 %k64, %tid
  %i64 = zext i32 %idx to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %v = load float, ptr addrspace(1) %p, align 4
  %sum.next = fadd float %sum, %v
  %j.next = add nuw nsw i32 %j, 1
  %jmore = icmp ult i32 %j.next, 8
  br i1 %jmore, label %inner, label %outer.latch

outer.latch:
  %i.next = add nuw nsw i32 %i, 1
  %imore = icmp ult i32 %i.next, 4
  br i1 %imore, label %outer, label %exit

exit:
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %sum.next, ptr addrspace(1) %po, align 4
  ret void
}

define ptx_kernel void @rec_down(ptr addrspace(1) %a, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %down

down:
  %k = phi i32 [ 1, %entry ], [ %k.next, %down ]
  %sum = phi float [ 0.0, %entry ], [ %sum.next, %down ]
  %row = mul nsw i32 %k, 16
  %idx = add nsw i32 %row, %tid
  %i64 = sext i32 %idx to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i64
  %v = load float, ptr addrspace(1) %p, align 4
  %sum.next = fadd float %sum, %v
  %k.next = sub nsw i32 %k, 1
  %more = icmp sgt i32 %k, 0
  br i1 %more, label %down, label %exit

exit:
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %sum.next, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }
