// A struct copy longer than 64 B: the NVPTX backend expands it into a byte
// loop whose loads carry no key, so no decision may be claimed for it.
struct Particle { float v[48]; };

__global__ void nudge(const Particle* in, Particle* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Particle t = in[i];
  t.v[0] += 1.0f;
  out[i] = t;
}
