; Loads at every kind of debug location, for the report's spelling of where
; a load is (tests/report.rs), on sm_90:
; - a[34*t] at k.cu:5:7: scattered (locality none), bypasses, lowered;
; - b[t] at line 0 (LLVM's "no line": merged code): within-warp, bypasses;
; - c[t] without a debug location: within-warp, bypasses;
; - v[t], a <4 x float> with align 4 at k.cu:6:9: decided bypass, but too
;   under-aligned for ld.global.v4.f32, so the lowering leaves it plain;
; - a shared-memory load without a debug location: left alone.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [256 x float] undef, align 4

define void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, ptr addrspace(1) %v, ptr addrspace(1) %out) #0 !dbg !5 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !10
  %i = zext i32 %t to i64
  %s = mul i64 %i, 34
  %pa = getelementptr inbounds float, ptr addrspace(1) %a, i64 %s
  %x = load float, ptr addrspace(1) %pa, align 4, !dbg !10
  %pb = getelementptr inbounds float, ptr addrspace(1) %b, i64 %i
  %y = load float, ptr addrspace(1) %pb, align 4, !dbg !11
  %pc = getelementptr inbounds float, ptr addrspace(1) %c, i64 %i
  %z = load float, ptr addrspace(1) %pc, align 4
  %pv = getelementptr inbounds <4 x float>, ptr addrspace(1) %v, i64 %i
  %w = load <4 x float>, ptr addrspace(1) %pv, align 4, !dbg !12
  %ps = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %i
  %u = load float, ptr addrspace(3) %ps, align 4
  %w0 = extractelement <4 x float> %w, i64 0
  %s1 = fadd float %x, %y
  %s2 = fadd float %s1, %z
  %s3 = fadd float %s2, %w0
  %s4 = fadd float %s3, %u
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %s4, ptr addrspace(1) %po, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "target-cpu"="sm_90" "target-features"="+ptx85" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!nvvm.annotations = !{!3}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, isOptimized: true, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "k.cu", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{ptr @k, !"kernel", i32 1}
!5 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!10 = !DILocation(line: 5, column: 7, scope: !5)
!11 = !DILocation(line: 0, scope: !5)
!12 = !DILocation(line: 6, column: 9, scope: !5)
