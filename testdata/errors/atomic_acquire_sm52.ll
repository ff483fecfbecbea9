; An acquire atomic load: LLVM 19's NVPTX backend cannot select it on any
; arch (sm_60, sm_70 and sm_90 measured with clang++-19 alone) and calls its
; fatal error handler.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k(ptr addrspace(1) %p, ptr addrspace(1) %out) #0 {
  %v = load atomic i32, ptr addrspace(1) %p acquire, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}

attributes #0 = { "target-cpu"="sm_52" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
