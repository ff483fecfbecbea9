; A global load already written as inline PTX asm (an __ldcs-style call) is left exactly as it is; only the plain global load (the control) is lowered.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %i
  %x = call float asm sideeffect "ld.global.cs.f32 $0, [$1];", "=f,l"(ptr addrspace(1) %pa)
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %i
  %y = load float, ptr addrspace(1) %pb, align 4
  %s = fadd float %x, %y
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s, ptr addrspace(1) %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
