// Pointer-chase probe of a real GPU's L1 for the questions issue 19 leaves to
// hardware: do .L1::no_allocate loads hit lines other loads allocated (fact 5),
// does a store allocate (fact 7), does .cg / .nc / the default ld.global go
// through L1, is a fill a line or a sector (fact 1), how large is the L1 a
// kernel gets under each carveout (fact 6), and do power-of-two strides fall
// into few sets (fact 8).
//
// One thread of one block walks a chain of nodes (each holds the index of the
// next), so every load waits for the one before and the mean cycles per load
// is the latency of where the line was: an L1 hit (some 30-40 cycles) or L2
// (some 200-300). A launch first walks a "warm" chain with one operator,
// then times a walk with another; L1 starts empty at each launch (checked:
// the "none, then ca" row). Built with gpucc-cache --cache-policy=off, so
// the inline PTX below is exactly what runs.
//
//   l1probe [SECTION...]   prints the tables (text) and one JSON line per
//                          row: operators, capacity, carveout, sets (all
//                          when none is named)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CHECK(x)                                                                    \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      fprintf(stderr, "l1probe: %s: %s\n", #x, cudaGetErrorString(e_));             \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

enum Op { NONE, CA, CG, NA, NC, DEF, EL, EF, CS, ST };
static const char* op_name[] = {"none", "ca", "cg", "L1::no_allocate", "nc", "default",
                                "L1::evict_last", "L1::evict_first", "cs", "st"};

// One step of a walk: load the next index with operator OP. ST reads the next
// index from the mirror with .cg and stores it back into buf (same value), so
// the walk writes every node it passes.
template <int OP>
__device__ __forceinline__ unsigned step(unsigned* buf, const unsigned* mirror, unsigned i) {
  unsigned v;
  const unsigned* p = buf + i;
  if (OP == CA) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  if (OP == CG) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  if (OP == NA) asm volatile("ld.global.L1::no_allocate.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  if (OP == NC) asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  if (OP == DEF) asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  if (OP == EL) asm volatile("ld.global.L1::evict_last.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  if (OP == EF) asm volatile("ld.global.L1::evict_first.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  if (OP == CS) asm volatile("ld.global.cs.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  if (OP == ST) {
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(mirror + i) : "memory");
    asm volatile("st.global.u32 [%0], %1;" ::"l"(buf + i), "r"(v) : "memory");
  }
  return v;
}

template <int OP>
__device__ unsigned walk(unsigned* buf, const unsigned* mirror, unsigned i, int n) {
  for (int k = 0; k < n; ++k) i = step<OP>(buf, mirror, i);
  return i;
}

__device__ unsigned walk_any(int op, unsigned* buf, const unsigned* mirror, unsigned i, int n) {
  switch (op) {
    case CA: return walk<CA>(buf, mirror, i, n);
    case CG: return walk<CG>(buf, mirror, i, n);
    case NA: return walk<NA>(buf, mirror, i, n);
    case NC: return walk<NC>(buf, mirror, i, n);
    case DEF: return walk<DEF>(buf, mirror, i, n);
    case EL: return walk<EL>(buf, mirror, i, n);
    case EF: return walk<EF>(buf, mirror, i, n);
    case CS: return walk<CS>(buf, mirror, i, n);
    case ST: return walk<ST>(buf, mirror, i, n);
    default: return i;
  }
}

// Thread 0 walks the warm chain; after a barrier thread `timed_thread`
// (0, or 32: another warp of the block, on the same SM) walks the timed one.
// out[0] = cycles of the timed walk; sink keeps the walks alive.
__global__ void probe(unsigned* buf, const unsigned* mirror, int warm_op, unsigned warm_start,
                      int warm_n, int timed_op, unsigned timed_start, int timed_n,
                      int timed_thread, long long* out, unsigned* sink) {
  extern __shared__ unsigned dyn[];
  unsigned w = 0;
  if (threadIdx.x == 0) {
    w = walk_any(warm_op, buf, mirror, warm_start, warm_n);
    // A branch on the warm walk's last value: the walk has returned before
    // the barrier and the clock (in-order issue).
    if (w == 0xffffffffu) sink[1] = w;
  }
  __syncthreads();
  if (threadIdx.x != timed_thread) return;
  long long t0 = clock64();
  unsigned t = walk_any(timed_op, buf, mirror, timed_start, timed_n);
  if (t == 0xffffffffu) sink[2] = t;
  long long t1 = clock64();
  out[0] = t1 - t0;
  sink[0] = w + t + dyn[0] * 0;
}

// buf[nodes[k]] = nodes[k + 1] (cyclic), in buf and mirror.
__global__ void make_chain(unsigned* buf, unsigned* mirror, const unsigned* nodes, int n) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
    unsigned next = nodes[(k + 1) % n];
    buf[nodes[k]] = next;
    mirror[nodes[k]] = next;
  }
}

static const size_t WORDS = (size_t)80 << 18;  // 80 MB of 4-byte words
static unsigned *buf, *mirror, *d_nodes, *d_sink;
static long long* d_out;

static void chain(const std::vector<unsigned>& nodes) {
  CHECK(cudaMemcpy(d_nodes, nodes.data(), nodes.size() * 4, cudaMemcpyHostToDevice));
  make_chain<<<64, 256>>>(buf, mirror, d_nodes, (int)nodes.size());
  CHECK(cudaGetLastError());
}

// Median over three launches of the timed walk's cycles per load.
static double measure(int warm_op, const std::vector<unsigned>& warm, int timed_op,
                      const std::vector<unsigned>& timed, size_t smem = 0, int timed_thread = 0) {
  std::vector<double> r;
  for (int rep = 0; rep < 3; ++rep) {
    probe<<<1, timed_thread + 1, smem>>>(buf, mirror, warm_op, warm.empty() ? 0 : warm[0],
                                         warm_op == NONE ? 0 : (int)warm.size(), timed_op, timed[0],
                                         (int)timed.size(), timed_thread, d_out, d_sink);
    CHECK(cudaGetLastError());
    long long c;
    CHECK(cudaMemcpy(&c, d_out, sizeof c, cudaMemcpyDeviceToHost));
    r.push_back((double)c / timed.size());
  }
  std::sort(r.begin(), r.end());
  return r[1];
}

static unsigned long long lcg = 12345;
static unsigned rnd(unsigned n) {
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)((lcg >> 33) % n);
}

// n nodes, node k at word base + perm(k) * stride_words + offset_words, in a
// random cyclic order (random = false: in address order).
static std::vector<unsigned> nodes(unsigned n, size_t stride_words, unsigned offset_words,
                                   bool random, size_t base = 0) {
  std::vector<unsigned> order(n);
  for (unsigned k = 0; k < n; ++k) order[k] = k;
  if (random)
    for (unsigned k = n - 1; k > 0; --k) std::swap(order[k], order[rnd(k + 1)]);
  std::vector<unsigned> v(n);
  for (unsigned k = 0; k < n; ++k) v[k] = (unsigned)(base + order[k] * stride_words + offset_words);
  return v;
}

static void set_carveout(int percent) {
  CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
}

struct Pair { int warm, timed; const char* question; };

// Each pair's timed walk over `chain_nodes` after its warm walk; thread
// `timed_thread` times (0: the warming thread, 32: another warp).
static void ask(const Pair* pairs, size_t n, const std::vector<unsigned>& chain_nodes,
                int timed_thread, const char* table) {
  for (size_t k = 0; k < n; ++k) {
    const Pair& q = pairs[k];
    double c = measure(q.warm, chain_nodes, q.timed, chain_nodes, 0, timed_thread);
    if (timed_thread == 0)
      printf("%-16s then %-16s %7.1f  %s\n", op_name[q.warm], op_name[q.timed], c, q.question);
    else
      printf("warp 0 %-9s then warp 1 %-16s %7.1f  %s\n", op_name[q.warm], op_name[q.timed], c,
             q.question);
    printf("{\"table\":\"%s\",\"warm\":\"%s\",\"timed\":\"%s\",\"cycles\":%.1f}\n", table,
           op_name[q.warm], op_name[q.timed], c);
  }
}

static int n_sections;
static char** sections;
static bool want(const char* name) {
  if (n_sections == 0) return true;
  for (int k = 0; k < n_sections; ++k)
    if (strcmp(sections[k], name) == 0) return true;
  return false;
}

int main(int argc, char** argv) {
  n_sections = argc - 1;
  sections = argv + 1;
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  printf("device %s, sm_%d%d, %d SMs, L2 %d KB, shared/SM %zu KB, shared/block optin %zu KB\n",
         p.name, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize >> 10,
         p.sharedMemPerMultiprocessor >> 10, p.sharedMemPerBlockOptin >> 10);
  CHECK(cudaMalloc(&buf, WORDS * 4));
  CHECK(cudaMalloc(&mirror, WORDS * 4));
  CHECK(cudaMalloc(&d_nodes, 1 << 20));
  CHECK(cudaMalloc(&d_sink, 16));
  CHECK(cudaMalloc(&d_out, 16));
  CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)p.sharedMemPerBlockOptin));

  const size_t LINE = 32;  // words per 128-byte line
  if (want("operators")) {
    // 1. Operators: 64 lines (8 KB, fits any L1), warm walk then timed walk.
    auto a = nodes(64, LINE, 0, true, 0);
    chain(a);
    auto s1 = nodes(64, LINE, 8, true, 0);    // same lines, second 32-byte sector
    auto s3 = nodes(64, LINE, 24, true, 0);   // same lines, fourth sector
    chain(s1);
    chain(s3);
    printf("\n# operators: 64 lines, cycles per load of the timed walk (warm walk first)\n");
    Pair pairs[] = {
        {NONE, CA, "cold L1: L2 latency (and L1 empty at launch)"},
        {CA, CA, "L1 hit latency"},
        {CA, CG, "does .cg hit a line .ca allocated"},
        {CA, NA, "does no_allocate hit a line .ca allocated (fact 5)"},
        {NA, CA, "does no_allocate allocate"},
        {NA, NA, "no_allocate re-reading its own lines"},
        {CG, CA, "does .cg allocate"},
        {NC, NC, "does .nc allocate (re-read)"},
        {CA, NC, "does .nc hit a line .ca allocated"},
        {NC, CA, "does .ca hit a line .nc allocated"},
        {DEF, DEF, "default ld.global cached"},
        {ST, CA, "does a store allocate (fact 7)"},
        {ST, NA, "store then no_allocate"},
        {EF, CA, "does evict_first allocate"},
        {EL, CA, "does evict_last allocate"},
        {CS, CA, "does .cs allocate"},
    };
    ask(pairs, sizeof pairs / sizeof pairs[0], a, 0, "operators");
    // The same questions across warps: thread 0 warms, thread 32 (warp 1) times.
    Pair across[] = {
        {CA, CA, "warp 1 hits what warp 0 allocated"},
        {CA, NA, "warp 1's no_allocate hits what warp 0 allocated (fact 5)"},
        {DEF, NA, "warp 1's no_allocate hits what warp 0's default load allocated"},
        {CA, CG, "warp 1's .cg and warp 0's lines"},
        {ST, CA, "warp 1 hits what warp 0 stored (fact 7)"},
    };
    ask(across, sizeof across / sizeof across[0], a, 32, "across_warps");
    double sec1 = measure(CA, a, CA, s1), sec3 = measure(CA, a, CA, s3);
    printf("ca sector 0     then ca sector 1     %7.1f  line or sector fill (fact 1)\n", sec1);
    printf("ca sector 0     then ca sector 3     %7.1f  line or sector fill (fact 1)\n", sec3);
    printf("{\"table\":\"fill\",\"sector1\":%.1f,\"sector3\":%.1f}\n", sec1, sec3);

  }

  if (want("capacity")) {
    // 2. Capacity: S KB of lines in random cyclic order, walked twice (.ca).
    printf("\n# capacity: cycles per load of a second walk over S KB (fact 6)\n");
    struct Setting { const char* name; int carveout; size_t smem; };
    Setting settings[] = {
        {"default", -1, 0}, {"carveout 0%", 0, 0}, {"carveout 50%", 50, 0},
        {"carveout 100%", 100, 0}, {"default + 100 KB dynamic shared", -1, 100 << 10},
    };
    printf("%-34s", "S KB:");
    for (int kb = 16; kb <= 272; kb += 16) printf(" %5d", kb);
    printf("\n");
    for (auto& s : settings) {
      set_carveout(s.carveout < 0 ? cudaSharedmemCarveoutDefault : s.carveout);
      printf("%-34s", s.name);
      std::vector<double> row;
      for (int kb = 16; kb <= 272; kb += 16) {
        auto v = nodes(kb * 8, LINE, 0, true, 1 << 20);
        chain(v);
        double c = measure(CA, v, CA, v, s.smem);
        row.push_back(c);
        printf(" %5.0f", c);
      }
      printf("\n{\"table\":\"capacity\",\"setting\":\"%s\",\"kb_from\":16,\"kb_step\":16,\"cycles\":[", s.name);
      for (size_t k = 0; k < row.size(); ++k) printf("%s%.1f", k ? "," : "", row[k]);
      printf("]}\n");
  }
  }

  if (want("carveout")) {
    // Which carveout the driver picks for a block's shared memory: the L1
    // left at each size, under no preference and under "prefer L1" (0 %).
    printf("\n# carveout picked for S KB of dynamic shared memory: cycles per load at L KB of lines\n");
    int lkb[] = {16, 24, 32, 48, 64, 96, 128, 160, 192, 208};
    printf("%-34s", "L KB:");
    for (int kb : lkb) printf(" %5d", kb);
    printf("\n");
    int smems[] = {1, 8, 32, 64, 100, 160};
    for (int pref : {-1, 0}) {
      for (int skb : smems) {
        set_carveout(pref < 0 ? cudaSharedmemCarveoutDefault : pref);
        char name[64];
        snprintf(name, sizeof name, "%s, %d KB shared", pref < 0 ? "default" : "carveout 0%", skb);
        printf("%-34s", name);
        std::vector<double> row;
        for (int kb : lkb) {
          auto v = nodes(kb * 8, LINE, 0, true, 1 << 20);
          chain(v);
          double c = measure(CA, v, CA, v, (size_t)skb << 10);
          row.push_back(c);
          printf(" %5.0f", c);
        }
        printf("\n{\"table\":\"carveout\",\"setting\":\"%s\",\"kb\":[16,24,32,48,64,96,128,160,192,208],\"cycles\":[", name);
        for (size_t k = 0; k < row.size(); ++k) printf("%s%.1f", k ? "," : "", row[k]);
        printf("]}\n");
      }
  }

  }

  if (want("capacity")) {
    // Finer steps around the default's knee, in 4 KB.
    set_carveout(cudaSharedmemCarveoutDefault);
    printf("default, 4 KB steps 176..256:");
    std::vector<double> fine;
    for (int kb = 176; kb <= 256; kb += 4) {
      auto v = nodes(kb * 8, LINE, 0, true, 1 << 20);
      chain(v);
      double c = measure(CA, v, CA, v);
      fine.push_back(c);
      printf(" %d:%.0f", kb, c);
  }
  printf("\n{\"table\":\"capacity_fine\",\"setting\":\"default\",\"kb_from\":176,\"kb_step\":4,\"cycles\":[");
  for (size_t k = 0; k < fine.size(); ++k) printf("%s%.1f", k ? "," : "", fine[k]);
  printf("]}\n");

  }

  if (want("sets")) {
    // 3. Sets: m lines at a power-of-two stride, in address order (fact 8).
    // A linear index over 4 sets (Accel-Sim's Volta model) puts every line at
    // a stride of 512 B or more into one set of capacity / 4 lines: about 448
    // at the default carveout's 224 KB, so 1,024 and 1,536 such lines would
    // miss, where a fully associative L1 holds them all (1,536 x 128 B = 192
    // KB). Strides stay small so that the walk spans at most 6 MB.
    printf("\n# sets: cycles per load of a second walk over m lines at a stride (fact 8)\n");
    set_carveout(cudaSharedmemCarveoutDefault);
    int ms[] = {256, 512, 1024, 1536};
    printf("%-12s", "stride\\m");
    for (int m : ms) printf(" %6d", m);
    printf("\n");
    size_t strides[] = {128, 256, 512, 1024, 2048, 4096};
    for (size_t st : strides) {
      printf("%-12zu", st);
      std::vector<double> row;
      for (int m : ms) {
        auto v = nodes(m, st / 4, 0, false, 1 << 20);
        chain(v);
        double c = measure(CA, v, CA, v);
        row.push_back(c);
        printf(" %6.0f", c);
      }
      printf("\n{\"table\":\"sets\",\"stride\":%zu,\"m\":[256,512,1024,1536],\"cycles\":[", st);
      for (size_t k = 0; k < row.size(); ++k) printf("%s%.1f", k ? "," : "", row[k]);
      printf("]}\n");
  }
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
