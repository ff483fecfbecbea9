; Vector loads of 32/64-bit elements (<2 x float>, <4 x float>, <4 x i32>, <2 x double>): one ld.global.<op>.v2/.v4 each.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @ld_v2f32(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds <2 x float>, ptr addrspace(1) %in, i64 %i
  %v = load <2 x float>, ptr addrspace(1) %a, align 8
  %o = getelementptr inbounds <2 x float>, ptr addrspace(1) %out, i64 %i
  store <2 x float> %v, ptr addrspace(1) %o, align 8
  ret void
}

define void @ld_v4f32(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds <4 x float>, ptr addrspace(1) %in, i64 %i
  %v = load <4 x float>, ptr addrspace(1) %a, align 16
  %o = getelementptr inbounds <4 x float>, ptr addrspace(1) %out, i64 %i
  store <4 x float> %v, ptr addrspace(1) %o, align 16
  ret void
}

define void @ld_v4i32(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds <4 x i32>, ptr addrspace(1) %in, i64 %i
  %v = load <4 x i32>, ptr addrspace(1) %a, align 16
  %o = getelementptr inbounds <4 x i32>, ptr addrspace(1) %out, i64 %i
  store <4 x i32> %v, ptr addrspace(1) %o, align 16
  ret void
}

define void @ld_v2f64(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds <2 x double>, ptr addrspace(1) %in, i64 %i
  %v = load <2 x double>, ptr addrspace(1) %a, align 16
  %o = getelementptr inbounds <2 x double>, ptr addrspace(1) %out, i64 %i
  store <2 x double> %v, ptr addrspace(1) %o, align 16
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @ld_v2f32, !"kernel", i32 1}
!1 = !{ptr @ld_v4f32, !"kernel", i32 1}
!2 = !{ptr @ld_v4i32, !"kernel", i32 1}
!3 = !{ptr @ld_v2f64, !"kernel", i32 1}
