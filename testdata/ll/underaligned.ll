; An under-aligned vector load (<4 x float> with align 4) cannot be one ld.global.v4.f32: it is annotated but must stay a plain load.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @ld_v4f32_align4(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds <4 x float>, ptr addrspace(1) %in, i64 %i
  %v = load <4 x float>, ptr addrspace(1) %a, align 4
  %o = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 %i
  store <4 x float> %v, ptr addrspace(1) %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @ld_v4f32_align4, !"kernel", i32 1}
