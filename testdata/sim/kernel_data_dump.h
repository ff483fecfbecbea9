// --dump-kernel-data DIR for the simulator programs: writes an array their kernels read to DIR/NAME, raw
// (little-endian, as the host is), for the driver's --kernel-data (bench/sim/run --with-data).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Whether the program was asked to write its kernels' data and stop (argv: --dump-kernel-data DIR).
static bool dump_kernel_data_asked(int argc, char **argv) {
  return argc == 3 && strcmp(argv[1], "--dump-kernel-data") == 0;
}

// Writes `bytes` of `p` to DIR/NAME, or exits 1 saying which file failed.
static void dump(const char *dir, const char *name, const void *p, size_t bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}
