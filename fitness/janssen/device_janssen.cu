// The Janssen benchmark functions on the GPU for the batch-objective path: a block per row
// (janssen_block_value: its threads make the components of z = M (x - o), at most 10^4 FMAs per
// component at D <= 100, in parallel).
#include <cuda_runtime.h>

#include <memory>
#include <utility>

#include "core/gpu/cuda_check.hpp"
#include "fitness/janssen/device_janssen.cuh"

namespace chainsaw {

namespace {

constexpr int kJanssenThreads = 128;  // a thread per component of z up to kJanssenMaxDim
static_assert(kJanssenThreads >= kJanssenMaxDim);

__global__ void janssen_kernel(JanssenView view, const real_t* genes, Dim pitch,
                               double* fitness) {
  const double f = janssen_block_value(view, genes + static_cast<Dim>(blockIdx.x) * pitch);
  if (threadIdx.x == 0) fitness[blockIdx.x] = f;
}

DeviceJanssen copy_to_device(const JanssenInstance& inst) { return DeviceJanssen(inst); }

}  // namespace

// The instance is copied to each device the first time it evaluates there (a CPU run of a CUDA
// build allocates nothing; islands on several GPUs share the objective).
DeviceBatchFn janssen_device_batch(std::shared_ptr<const JanssenInstance> instance) {
  return device_batch_with_copies(
      std::move(instance), copy_to_device,
      [](const DeviceJanssen& d, const real_t* genes, Dim pitch, int rows, double* fitness,
         DeviceStream stream) {
        janssen_kernel<<<static_cast<unsigned>(rows), kJanssenThreads, 0, stream>>>(
            d.view, genes, pitch, fitness);
        CHAINSAW_CUDA_CHECK_LAUNCH();
      });
}

}  // namespace chainsaw
