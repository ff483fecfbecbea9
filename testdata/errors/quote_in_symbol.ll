; A global whose name holds a double quote: valid IR, but PTX has no way to
; spell the name, and LLVM 19's NVPTX backend stops with a fatal error.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@"a\22b" = addrspace(1) global i32 0, align 4

define void @k(ptr addrspace(1) %out) #0 {
  %v = load i32, ptr addrspace(1) @"a\22b", align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}

attributes #0 = { "target-cpu"="sm_52" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
