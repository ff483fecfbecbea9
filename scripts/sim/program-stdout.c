/* Preloaded into a program run on GPGPU-Sim (scripts/sim-validate): copies
 * what the program's own code writes to stdout into the file descriptor named
 * by GPUCC_PROGRAM_STDOUT_FD.
 *
 * Why: the simulator is the program's libcudart and prints its log to the
 * same stdout, interleaved with the program's lines. A write belongs to the
 * program when the function that called printf/puts/... lies in the main
 * executable (its PT_LOAD segments, found with dl_iterate_phdr); the
 * simulator's calls come from its shared library. Seen: printf, vprintf,
 * fprintf/vfprintf, puts, putchar, putc/_IO_putc (what an optimised putchar
 * becomes), fputs, fputc, fwrite. Not seen: C++ iostreams (libstdc++ makes
 * those calls), the *_unlocked variants, write(1, ...) and dprintf; the
 * suite's programs use printf.
 *
 * Everything still goes to the real stdout too, so the log is unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uintptr_t main_lo[16], main_hi[16];
static int main_segments = -1;
static int copy_fd = -1;

static int first_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  main_segments = 0;
  for (int i = 0; i < info->dlpi_phnum && main_segments < 16; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    main_lo[main_segments] = info->dlpi_addr + ph->p_vaddr;
    main_hi[main_segments] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    main_segments++;
  }
  return 1; /* the first object dl_iterate_phdr reports is the executable */
}

__attribute__((constructor)) static void setup(void) {
  const char *fd = getenv("GPUCC_PROGRAM_STDOUT_FD");
  if (fd) copy_fd = atoi(fd);
  /* The simulator runs cuobjdump, ptxas and shells: they must neither load
   * this library nor inherit the descriptor. */
  unsetenv("GPUCC_PROGRAM_STDOUT_FD");
  unsetenv("LD_PRELOAD");
  if (copy_fd >= 0) fcntl(copy_fd, F_SETFD, FD_CLOEXEC);
  dl_iterate_phdr(first_object, NULL);
}

static int from_program(void *caller) {
  uintptr_t a = (uintptr_t)caller;
  for (int i = 0; i < main_segments; i++)
    if (a >= main_lo[i] && a < main_hi[i]) return 1;
  return 0;
}

static void copy(const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(copy_fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

static void copy_formatted(const char *fmt, va_list ap) {
  char *text = NULL;
  int n = vasprintf(&text, fmt, ap);
  if (n < 0) return; /* text is undefined then */
  copy(text, (size_t)n);
  free(text);
}

#define CALLER __builtin_return_address(0)
#define WANTED(stream) (copy_fd >= 0 && (stream) == stdout && from_program(CALLER))

int vfprintf(FILE *stream, const char *fmt, va_list ap) {
  static int (*real)(FILE *, const char *, va_list);
  if (!real) real = dlsym(RTLD_NEXT, "vfprintf");
  if (WANTED(stream)) {
    fflush(stream);
    va_list aq;
    va_copy(aq, ap);
    copy_formatted(fmt, aq);
    va_end(aq);
  }
  return real(stream, fmt, ap);
}

int vprintf(const char *fmt, va_list ap) {
  static int (*real)(FILE *, const char *, va_list);
  if (!real) real = dlsym(RTLD_NEXT, "vfprintf");
  if (WANTED(stdout)) {
    va_list aq;
    va_copy(aq, ap);
    copy_formatted(fmt, aq);
    va_end(aq);
  }
  return real(stdout, fmt, ap);
}

int printf(const char *fmt, ...) {
  static int (*real)(FILE *, const char *, va_list);
  if (!real) real = dlsym(RTLD_NEXT, "vfprintf");
  va_list ap;
  va_start(ap, fmt);
  if (WANTED(stdout)) {
    va_list aq;
    va_copy(aq, ap);
    copy_formatted(fmt, aq);
    va_end(aq);
  }
  int r = real(stdout, fmt, ap);
  va_end(ap);
  return r;
}

int fprintf(FILE *stream, const char *fmt, ...) {
  static int (*real)(FILE *, const char *, va_list);
  if (!real) real = dlsym(RTLD_NEXT, "vfprintf");
  va_list ap;
  va_start(ap, fmt);
  if (WANTED(stream)) {
    va_list aq;
    va_copy(aq, ap);
    copy_formatted(fmt, aq);
    va_end(aq);
  }
  int r = real(stream, fmt, ap);
  va_end(ap);
  return r;
}

int puts(const char *s) {
  static int (*real)(const char *);
  if (!real) real = dlsym(RTLD_NEXT, "puts");
  if (WANTED(stdout)) {
    copy(s, strlen(s));
    copy("\n", 1);
  }
  return real(s);
}

int putchar(int c) {
  static int (*real)(int);
  if (!real) real = dlsym(RTLD_NEXT, "putchar");
  if (WANTED(stdout)) {
    char ch = (char)c;
    copy(&ch, 1);
  }
  return real(c);
}

int fputs(const char *s, FILE *stream) {
  static int (*real)(const char *, FILE *);
  if (!real) real = dlsym(RTLD_NEXT, "fputs");
  if (WANTED(stream)) copy(s, strlen(s));
  return real(s, stream);
}

int fputc(int c, FILE *stream) {
  static int (*real)(int, FILE *);
  if (!real) real = dlsym(RTLD_NEXT, "fputc");
  if (WANTED(stream)) {
    char ch = (char)c;
    copy(&ch, 1);
  }
  return real(c, stream);
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *stream) {
  static size_t (*real)(const void *, size_t, size_t, FILE *);
  if (!real) real = dlsym(RTLD_NEXT, "fwrite");
  if (WANTED(stream)) copy(p, size * n);
  return real(p, size, n, stream);
}

int putc(int c, FILE *stream) {
  static int (*real)(int, FILE *);
  if (!real) real = dlsym(RTLD_NEXT, "putc");
  if (WANTED(stream)) {
    char ch = (char)c;
    copy(&ch, 1);
  }
  return real(c, stream);
}

int _IO_putc(int c, FILE *stream) {
  static int (*real)(int, FILE *);
  if (!real) real = dlsym(RTLD_NEXT, "_IO_putc");
  if (WANTED(stream)) {
    char ch = (char)c;
    copy(&ch, 1);
  }
  return real(c, stream);
}
