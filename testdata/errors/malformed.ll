; Not valid IR: the load names a value that is never defined.
target triple = "nvptx64-nvidia-cuda"

define void @k(ptr %p) {
  %v = load float, ptr %q, align 4
  ret void
}
