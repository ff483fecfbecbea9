; Vector loads of half (<2 x half>, <4 x half>, <8 x half>): .v2/.v4.b16 per lane, and <8 x half> read as .v4.b32 words and bitcast back.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @ld_v2f16(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds <2 x half>, ptr addrspace(1) %in, i64 %i
  %v = load <2 x half>, ptr addrspace(1) %a, align 4
  %o = getelementptr inbounds <2 x half>, ptr addrspace(1) %out, i64 %i
  store <2 x half> %v, ptr addrspace(1) %o, align 4
  ret void
}

define void @ld_v4f16(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds <4 x half>, ptr addrspace(1) %in, i64 %i
  %v = load <4 x half>, ptr addrspace(1) %a, align 8
  %o = getelementptr inbounds <4 x half>, ptr addrspace(1) %out, i64 %i
  store <4 x half> %v, ptr addrspace(1) %o, align 8
  ret void
}

define void @ld_v8f16(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds <8 x half>, ptr addrspace(1) %in, i64 %i
  %v = load <8 x half>, ptr addrspace(1) %a, align 16
  %o = getelementptr inbounds <8 x half>, ptr addrspace(1) %out, i64 %i
  store <8 x half> %v, ptr addrspace(1) %o, align 16
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @ld_v2f16, !"kernel", i32 1}
!1 = !{ptr @ld_v4f16, !"kernel", i32 1}
!2 = !{ptr @ld_v8f16, !"kernel", i32 1}
