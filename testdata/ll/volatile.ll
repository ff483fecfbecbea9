; A volatile global load is never annotated nor lowered; the plain global load next to it (the control) is.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k(ptr addrspace(1) %flag, ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %f = load volatile i32, ptr addrspace(1) %flag, align 4
  %a = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i
  %v = load i32, ptr addrspace(1) %a, align 4
  %s = add i32 %f, %v
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %s, ptr addrspace(1) %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
