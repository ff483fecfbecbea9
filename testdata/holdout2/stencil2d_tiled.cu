// stencil2d_tiled: 3x3 Gaussian blur (1 2 1 / 2 4 2 / 1 2 1, /16) of a W x H float image,
// ITERS times (ping-pong between two buffers, one launch per iteration), with 32x8 blocks and a
// shared-memory tile of (32+2) x (8+2). Every thread loads its own pixel into the tile (a warp =
// one 128-B image row segment, coalesced); threads on the tile's edges also load the halo: the
// left/right columns (one 4-B load per row by lane 0 / lane 31, lines shared with the
// neighbouring block), the top/bottom rows (warps 0 / 7, rows that the blocks above and below
// also read) and the 4 corners. Borders are clamped to the edge. After __syncthreads every output
// is computed from shared memory only and written once, coalesced. Each input pixel is read from
// global memory by one thread of its own block plus the halo loads of up to 3 neighbouring blocks.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cuda_runtime.h>

#define W 128
#define H 128
#define BX 32
#define BY 8
#define ITERS 4

static uint32_t lcg_state = 424242u;
static uint32_t lcg() { lcg_state = lcg_state * 1664525u + 1013904223u; return lcg_state; }

__global__ void blur3x3_tiled(const float *in, float *out, int w, int h) {
  __shared__ float tile[BY + 2][BX + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int gx = blockIdx.x * BX + tx, gy = blockIdx.y * BY + ty;
  bool inside = gx < w && gy < h;
  int cx = min(gx, w - 1), cy = min(gy, h - 1);
  int xl = max(cx - 1, 0), xr = min(cx + 1, w - 1);
  int yu = max(cy - 1, 0), yd = min(cy + 1, h - 1);

  tile[ty + 1][tx + 1] = in[cy * w + cx];
  if (tx == 0) tile[ty + 1][0] = in[cy * w + xl];
  if (tx == BX - 1) tile[ty + 1][BX + 1] = in[cy * w + xr];
  if (ty == 0) {
    tile[0][tx + 1] = in[yu * w + cx];
    if (tx == 0) tile[0][0] = in[yu * w + xl];
    if (tx == BX - 1) tile[0][BX + 1] = in[yu * w + xr];
  }
  if (ty == BY - 1) {
    tile[BY + 1][tx + 1] = in[yd * w + cx];
    if (tx == 0) tile[BY + 1][0] = in[yd * w + xl];
    if (tx == BX - 1) tile[BY + 1][BX + 1] = in[yd * w + xr];
  }
  __syncthreads();
  if (!inside) return;

  int sx = tx + 1, sy = ty + 1;
  float c = tile[sy][sx];
  float edges = tile[sy - 1][sx] + tile[sy + 1][sx] + tile[sy][sx - 1] + tile[sy][sx + 1];
  float corners = tile[sy - 1][sx - 1] + tile[sy - 1][sx + 1] + tile[sy + 1][sx - 1] + tile[sy + 1][sx + 1];
  out[gy * w + gx] = (4.0f * c + 2.0f * edges + corners) * (1.0f / 16.0f);
}

static void blur_host(const float *in, float *out, int w, int h) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int xl = x > 0 ? x - 1 : 0, xr = x < w - 1 ? x + 1 : w - 1;
      int yu = y > 0 ? y - 1 : 0, yd = y < h - 1 ? y + 1 : h - 1;
      double c = in[y * w + x];
      double e = (double)in[yu * w + x] + in[yd * w + x] + in[y * w + xl] + in[y * w + xr];
      double k = (double)in[yu * w + xl] + in[yu * w + xr] + in[yd * w + xl] + in[yd * w + xr];
      out[y * w + x] = (float)((4.0 * c + 2.0 * e + k) / 16.0);
    }
}

int main() {
  const int w = W, h = H;
  size_t n = (size_t)w * h;
  float *img = (float *)malloc(n * sizeof(float));
  // a few bright squares on a noisy background
  for (size_t i = 0; i < n; i++) img[i] = (float)((lcg() >> 16) % 64) / 256.0f;
  for (int s = 0; s < 12; s++) {
    int x0 = (int)((lcg() >> 8) % (w - 16)), y0 = (int)((lcg() >> 8) % (h - 16));
    for (int y = y0; y < y0 + 12; y++)
      for (int x = x0; x < x0 + 12; x++) img[y * w + x] = 0.75f + (float)((lcg() >> 16) % 64) / 256.0f;
  }
  float *da, *db;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMemcpy(da, img, n * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(BX, BY), grid((w + BX - 1) / BX, (h + BY - 1) / BY);
  for (int it = 0; it < ITERS; it++) {
    blur3x3_tiled<<<grid, block>>>(da, db, w, h);
    float *t = da; da = db; db = t;
  }
  float *out = (float *)malloc(n * sizeof(float));
  cudaMemcpy(out, da, n * sizeof(float), cudaMemcpyDeviceToHost);

  float *ra = (float *)malloc(n * sizeof(float)), *rb = (float *)malloc(n * sizeof(float));
  memcpy(ra, img, n * sizeof(float));
  for (int it = 0; it < ITERS; it++) { blur_host(ra, rb, w, h); float *t = ra; ra = rb; rb = t; }
  int bad = 0; double sum = 0; uint32_t check = 0;
  for (size_t i = 0; i < n; i++) {
    float v = out[i];
    if (fabs((double)v - ra[i]) > 1e-5) bad++;
    sum += v;
    uint32_t bits; memcpy(&bits, &v, 4); check = check * 31u + bits;
  }
  printf("RESULT stencil2d_tiled w=%d h=%d iters=%d block=%dx%d grid=%dx%d\n", w, h, ITERS, BX, BY,
         grid.x, grid.y);
  printf("RESULT checksum=%08x sum=%.4f host_mismatches=%d\n", check, sum, bad);
  cudaFree(da); cudaFree(db); free(img); free(out); free(ra); free(rb);
  return bad ? 1 : 0;
}
