; A host-side module (x86_64 triple) is not for gpucc-cache: the pass returns WrongTarget and leaves the module unchanged.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define float @host_load(ptr addrspace(1) %in, i64 %i) {
  %a = getelementptr inbounds float, ptr addrspace(1) %in, i64 %i
  %v = load float, ptr addrspace(1) %a, align 4
  ret float %v
}
