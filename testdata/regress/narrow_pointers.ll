; Shared pointers are 32-bit in this data layout: loading one reads 4 bytes, not 8.
target datalayout = "e-p3:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @narrow(ptr addrspace(1) %q, ptr addrspace(1) %out) "target-cpu"="sm_90" "target-features"="+ptx85" {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds ptr addrspace(3), ptr addrspace(1) %q, i32 %tid
  %s = load ptr addrspace(3), ptr addrspace(1) %p, align 4
  %o = getelementptr inbounds ptr addrspace(3), ptr addrspace(1) %out, i32 %tid
  store ptr addrspace(3) %s, ptr addrspace(1) %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @narrow, !"kernel", i32 1}
