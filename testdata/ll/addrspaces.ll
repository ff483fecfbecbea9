; Only global memory is touched: loads from shared (3), constant (4), local (5), param (101) and an alloca stay plain, unannotated loads; the addrspace(1) load is the only one decided.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.S = type { i32, i32 }

@sh = internal addrspace(3) global [256 x i32] undef, align 4
@cst = internal addrspace(4) constant [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 4

define void @spaces(ptr addrspace(1) %g, ptr byval(%struct.S) align 4 %s, i32 %n, ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pg = getelementptr inbounds i32, ptr addrspace(1) %g, i64 %i
  %vg = load i32, ptr addrspace(1) %pg, align 4
  %ps = getelementptr inbounds [256 x i32], ptr addrspace(3) @sh, i64 0, i64 %i
  %vs = load i32, ptr addrspace(3) %ps, align 4
  %ci = and i64 %i, 3
  %pc = getelementptr inbounds [4 x i32], ptr addrspace(4) @cst, i64 0, i64 %ci
  %vc = load i32, ptr addrspace(4) %pc, align 4
  %buf = alloca [4 x i32], align 4
  %bi = getelementptr inbounds [4 x i32], ptr %buf, i64 0, i64 %ci
  store i32 %n, ptr %bi, align 4
  %pl = addrspacecast ptr %bi to ptr addrspace(5)
  %vl = load i32, ptr addrspace(5) %pl, align 4
  %va = load i32, ptr %buf, align 4
  %pp = addrspacecast ptr %s to ptr addrspace(101)
  %vp = load i32, ptr addrspace(101) %pp, align 4
  %s1 = add i32 %vg, %vs
  %s2 = add i32 %s1, %vc
  %s3 = add i32 %s2, %vl
  %s4 = add i32 %s3, %va
  %s5 = add i32 %s4, %vp
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %s5, ptr addrspace(1) %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!nvvm.annotations = !{!0}
!0 = !{ptr @spaces, !"kernel", i32 1}
