// k-means assignment step: each thread takes one point and finds its nearest
// centre.  Points are stored feature-major (transposed) so that consecutive
// threads read consecutive addresses; both loops have runtime bounds.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cfloat>

__global__ void kmeans_point(const float *features_t, const float *clusters, int *membership,
                             int *changed, int npoints, int nclusters, int nfeatures) {
  int point_id = blockIdx.x * blockDim.x + threadIdx.x;
  if (point_id >= npoints)
    return;
  int index = -1;
  float min_dist = FLT_MAX;
  for (int c = 0; c < nclusters; c++) {
    float dist = 0.0f;
    for (int f = 0; f < nfeatures; f++) {
      float diff = features_t[f * npoints + point_id] - clusters[c * nfeatures + f];
      dist += diff * diff;
    }
    if (dist < min_dist) {
      min_dist = dist;
      index = c;
    }
  }
  if (membership[point_id] != index) {
    atomicAdd(changed, 1);
    membership[point_id] = index;
  }
}

// Transpose features from point-major to feature-major.
__global__ void invert_mapping(const float *input, float *output, int npoints, int nfeatures) {
  int point_id = blockIdx.x * blockDim.x + threadIdx.x;
  if (point_id < npoints)
    for (int f = 0; f < nfeatures; f++)
      output[f * npoints + point_id] = input[point_id * nfeatures + f];
}

int main(int argc, char **argv) {
  int npoints = argc > 1 ? atoi(argv[1]) : 494020;
  int nfeatures = argc > 2 ? atoi(argv[2]) : 34;
  int nclusters = argc > 3 ? atoi(argv[3]) : 5;

  float *d_feat, *d_feat_t, *d_clusters;
  int *d_member, *d_changed;
  cudaMalloc(&d_feat, (size_t)npoints * nfeatures * sizeof(float));
  cudaMalloc(&d_feat_t, (size_t)npoints * nfeatures * sizeof(float));
  cudaMalloc(&d_clusters, nclusters * nfeatures * sizeof(float));
  cudaMalloc(&d_member, npoints * sizeof(int));
  cudaMalloc(&d_changed, sizeof(int));
  cudaMemset(d_feat, 0, (size_t)npoints * nfeatures * sizeof(float));
  cudaMemset(d_member, 0xff, npoints * sizeof(int));

  int num_threads = 256;
  int num_blocks = (npoints + num_threads - 1) / num_threads;
  invert_mapping<<<num_blocks, num_threads>>>(d_feat, d_feat_t, npoints, nfeatures);
  int h_changed = 1, iter = 0;
  while (h_changed > 0 && iter < 500) {
    cudaMemset(d_changed, 0, sizeof(int));
    kmeans_point<<<num_blocks, num_threads>>>(d_feat_t, d_clusters, d_member, d_changed,
                                              npoints, nclusters, nfeatures);
    cudaMemcpy(&h_changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost);
    iter++;
  }
  printf("kmeans converged after %d iterations\n", iter);
  cudaFree(d_feat); cudaFree(d_feat_t); cudaFree(d_clusters);
  cudaFree(d_member); cudaFree(d_changed);
  return 0;
}
