; Scalar integer loads (i8, i16, i32, i64) from global memory: one kernel per width, each lowered to ld.global.<op>.u8/u16/u32/u64.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @ld_i8(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds i8, ptr addrspace(1) %in, i64 %i
  %v = load i8, ptr addrspace(1) %a, align 1
  %o = getelementptr inbounds i8, ptr addrspace(1) %out, i64 %i
  store i8 %v, ptr addrspace(1) %o, align 1
  ret void
}

define void @ld_i16(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds i16, ptr addrspace(1) %in, i64 %i
  %v = load i16, ptr addrspace(1) %a, align 2
  %o = getelementptr inbounds i16, ptr addrspace(1) %out, i64 %i
  store i16 %v, ptr addrspace(1) %o, align 2
  ret void
}

define void @ld_i32(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i
  %v = load i32, ptr addrspace(1) %a, align 4
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %v, ptr addrspace(1) %o, align 4
  ret void
}

define void @ld_i64(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %a = getelementptr inbounds i64, ptr addrspace(1) %in, i64 %i
  %v = load i64, ptr addrspace(1) %a, align 8
  %o = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %i
  store i64 %v, ptr addrspace(1) %o, align 8
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @ld_i8, !"kernel", i32 1}
!1 = !{ptr @ld_i16, !"kernel", i32 1}
!2 = !{ptr @ld_i32, !"kernel", i32 1}
!3 = !{ptr @ld_i64, !"kernel", i32 1}
