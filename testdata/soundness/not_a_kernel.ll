; A ptx_kernel-convention function annotated "kernel", i32 0: LLVM 19's NVPTX
; backend emits it as a .func (the annotation decides), so its pointer
; parameter may point to shared memory: the load is not provably global.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @f(ptr %in, ptr %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds float, ptr %in, i64 %i
  %v = load float, ptr %a, align 4
  %o = getelementptr inbounds float, ptr %out, i64 %i
  store float %v, ptr %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @f, !"kernel", i32 0}
