// The Janssen benchmark functions on the GPU for the batch-objective path: a block per row
// (janssen_block_value: its threads make the components of z = M (x - o), at most 10^4 FMAs per
// component at D <= 100, in parallel).
#include <cuda_runtime.h>

#include <map>
#include <mutex>

#include "core/engines/cuda/cuda_check.hpp"
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

// The copies of one instance, made on each device the first time it evaluates there (a CPU run
// of a CUDA build allocates nothing; islands on several GPUs share the objective).
class DeviceCopies {
 public:
  explicit DeviceCopies(std::shared_ptr<const JanssenInstance> instance)
      : instance_(std::move(instance)) {}
  const JanssenView& view() {
    int device = 0;
    CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = copies_.find(device);
    if (it == copies_.end())
      it = copies_.emplace(device, std::make_unique<DeviceJanssen>(*instance_)).first;
    return it->second->view;
  }

 private:
  std::shared_ptr<const JanssenInstance> instance_;
  std::mutex mutex_;
  std::map<int, std::unique_ptr<DeviceJanssen>> copies_;
};

}  // namespace

DeviceBatchFn janssen_device_batch(std::shared_ptr<const JanssenInstance> instance) {
  auto copies = std::make_shared<DeviceCopies>(std::move(instance));
  return [copies](const real_t* genes, Dim pitch, int rows, Dim /*dim*/, double* fitness,
                  DeviceStream stream) {
    if (rows <= 0) return;
    const JanssenView& view = copies->view();
    janssen_kernel<<<static_cast<unsigned>(rows), kJanssenThreads, 0, stream>>>(view, genes, pitch,
                                                                               fitness);
    CHAINSAW_CUDA_CHECK_LAUNCH();
  };
}

}  // namespace chainsaw
