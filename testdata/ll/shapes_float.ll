; Scalar floating-point loads (half, bfloat, float, double) from global memory: b16 + bitcast for half/bfloat, f32, f64.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @ld_half(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds half, ptr addrspace(1) %in, i64 %i
  %v = load half, ptr addrspace(1) %a, align 2
  %o = getelementptr inbounds half, ptr addrspace(1) %out, i64 %i
  store half %v, ptr addrspace(1) %o, align 2
  ret void
}

define void @ld_bfloat(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds bfloat, ptr addrspace(1) %in, i64 %i
  %v = load bfloat, ptr addrspace(1) %a, align 2
  %o = getelementptr inbounds bfloat, ptr addrspace(1) %out, i64 %i
  store bfloat %v, ptr addrspace(1) %o, align 2
  ret void
}

define void @ld_float(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i
  %v = load float, ptr addrspace(1) %a, align 4
  %o = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %v, ptr addrspace(1) %o, align 4
  ret void
}

define void @ld_double(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds double, ptr addrspace(1) %in, i64 %i
  %v = load double, ptr addrspace(1) %a, align 8
  %o = getelementptr inbounds double, ptr addrspace(1) %out, i64 %i
  store double %v, ptr addrspace(1) %o, align 8
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @ld_half, !"kernel", i32 1}
!1 = !{ptr @ld_bfloat, !"kernel", i32 1}
!2 = !{ptr @ld_float, !"kernel", i32 1}
!3 = !{ptr @ld_double, !"kernel", i32 1}
