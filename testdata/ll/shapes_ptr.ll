; A pointer loaded from global memory (an array of pointers): read as u64 and turned back with inttoptr.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @ld_ptr(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds ptr, ptr addrspace(1) %in, i64 %i
  %v = load ptr, ptr addrspace(1) %a, align 8
  %o = getelementptr inbounds ptr, ptr addrspace(1) %out, i64 %i
  store ptr %v, ptr addrspace(1) %o, align 8
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @ld_ptr, !"kernel", i32 1}
