// Schwefel 2.6 and 2.13 on the GPU: a block per individual, a warp per matrix row (rows
// warp, warp + 8, ... of the block's 8 warps), each lane taking every 32nd variable of the row
// with the host's row math (schwefel_matrix.hpp). A warp's lanes combine by a fixed shuffle
// tree, a warp's rows in row order, the block's warps in warp order: no atomics, the same bits
// run after run. 2.13 first computes sin x_j and cos x_j of the individual once into shared
// memory (16 D bytes), so the D^2 inner products read only the matrices (int8, coalesced) and
// shared memory. Cost: D^2 matrix entries per individual (2 bytes each for 2.6, 2 x 1 for 2.13),
// from L2 while the matrices fit there (D <~ 4000); one block per individual leaves a GPU
// mostly idle for the single evaluations of a Solis-Wets chain, not for a DE/PSO generation.
#include <cuda_runtime.h>

#include <string>

#include "core/gpu/cuda_check.hpp"
#include "core/error.hpp"
#include "fitness/device_instance_copy.cuh"
#include "fitness/matrix_functions/schwefel_matrix.hpp"

namespace chainsaw {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__device__ double warp_combine(SchwefelMatrixKind kind, double v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = schwefel_matrix_combine(kind, v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__global__ void __launch_bounds__(kThreads)
    schwefel_matrix_kernel(SchwefelMatrixView v, const real_t* genes, Dim pitch, double* fitness) {
  extern __shared__ double sincos_x[];  // 2.13: sin x in [0, D), cos x in [D, 2D)
  __shared__ double warp_values[kWarps];
  const real_t* x = genes + static_cast<Dim>(blockIdx.x) * pitch;
  if (v.kind == SchwefelMatrixKind::k213) {
    for (Dim j = threadIdx.x; j < v.dim; j += kThreads)
      sincos(static_cast<double>(x[j]), &sincos_x[j], &sincos_x[v.dim + j]);
    __syncthreads();
  }
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  double value = 0.0;  // the neutral element of both max over |.| and a sum of squares
  for (Dim i = warp; i < v.dim; i += kWarps) {
    const double row = v.kind == SchwefelMatrixKind::k26
                           ? schwefel26_row_dot(v, i, x, lane, 32)
                           : schwefel213_row_sum(v, i, sincos_x, sincos_x + v.dim, lane, 32);
    const double total = warp_combine(SchwefelMatrixKind::k213, row);  // the row's sum
    value = schwefel_matrix_combine(v.kind, value, schwefel_matrix_term(v.kind, total, v.target[i]));
  }
  if (lane == 0) warp_values[warp] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    double f = 0.0;
    for (int w = 0; w < kWarps; ++w) f = schwefel_matrix_combine(v.kind, f, warp_values[w]);
    fitness[blockIdx.x] = f;
  }
}

struct DeviceSchwefelMatrix {
  DeviceBuffer<std::int16_t> a26;
  DeviceBuffer<std::int8_t> a213, b213;
  DeviceBuffer<double> target;
  SchwefelMatrixView view;
  std::size_t shared_bytes = 0;
};

DeviceSchwefelMatrix copy_to_device(const SchwefelMatrixInstance& inst) {
  DeviceSchwefelMatrix d;
  d.a26 = upload(inst.a26);
  d.a213 = upload(inst.a213);
  d.b213 = upload(inst.b213);
  d.target = upload(inst.target);
  d.view = inst.view();
  d.view.a26 = d.a26.data();
  d.view.a213 = d.a213.data();
  d.view.b213 = d.b213.data();
  d.view.target = d.target.data();
  if (inst.kind == SchwefelMatrixKind::k213) {
    d.shared_bytes = 2 * sizeof(double) * static_cast<std::size_t>(inst.dim);
    int device = 0, optin = 0;
    CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
    CHAINSAW_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (d.shared_bytes + kWarps * sizeof(double) > static_cast<std::size_t>(optin))
      throw UserError("schwefel213 with D = " + std::to_string(inst.dim) + " needs " +
                      std::to_string(d.shared_bytes) + " bytes of shared memory a block; this GPU "
                      "offers " + std::to_string(optin));
    CHAINSAW_CUDA_TRY(cudaFuncSetAttribute(schwefel_matrix_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(d.shared_bytes)));
  }
  return d;
}

}  // namespace

DeviceBatchFn schwefel_matrix_device_batch(std::shared_ptr<const SchwefelMatrixInstance> instance) {
  return device_batch_with_copies(
      std::move(instance), copy_to_device,
      [](const DeviceSchwefelMatrix& d, const real_t* genes, Dim pitch, int rows, double* fitness,
         DeviceStream stream) {
        schwefel_matrix_kernel<<<rows, kThreads, d.shared_bytes, stream>>>(d.view, genes, pitch,
                                                                            fitness);
        CHAINSAW_CUDA_CHECK_LAUNCH();
      });
}

}  // namespace chainsaw
