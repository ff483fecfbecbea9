; Vectors of pointers cannot be bitcast from words: they stay plain loads,
; and the module stays valid.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @ptrvec(ptr addrspace(1) %q, ptr addrspace(1) %out) "target-cpu"="sm_90" "target-features"="+ptx85" {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds <2 x ptr>, ptr addrspace(1) %q, i32 %tid
  %v = load <2 x ptr>, ptr addrspace(1) %p, align 16
  %o = getelementptr inbounds <2 x ptr>, ptr addrspace(1) %out, i32 %tid
  store <2 x ptr> %v, ptr addrspace(1) %o, align 16
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @ptrvec, !"kernel", i32 1}
