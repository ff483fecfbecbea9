; Metadata from elsewhere is never trusted: a shared load carrying a stale
; !gpucc.cache, and a global load whose recorded operator is not one
; gpucc-cache writes (it must never reach the PTX).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [256 x float] undef, align 4

define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %s = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  %sv = load float, ptr addrspace(3) %s, align 4, !gpucc.cache !1
  %a = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i
  %v = load float, ptr addrspace(1) %a, align 4, !gpucc.cache !2
  %sum = fadd float %sv, %v
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %sum, ptr addrspace(1) %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{!"decision", !"bypass", !"operator", !"ld.global.L1::no_allocate"}
!2 = !{!"decision", !"bypass", !"operator", !"ld.global.bogus; trap;"}
