// The Janssen benchmark functions on the GPU: a thread per row, each running the host's code
// (janssen_value). At D <= 100 a row's z = M (x - o) is at most 10^4 FMAs per component; the
// threads of a warp read M at the same address at the same time (a broadcast from L1), so the
// simple form is enough for a benchmark whose rows are few hundred per batch.
#include <cuda_runtime.h>

#include <map>
#include <mutex>

#include "core/engines/cuda/cuda_check.hpp"
#include "fitness/janssen/device_janssen.cuh"

namespace chainsaw {

namespace {

constexpr int kJanssenThreads = 64;

__global__ void janssen_kernel(JanssenView view, const real_t* genes, Dim pitch, int rows,
                               double* fitness) {
  const int r = static_cast<int>(blockIdx.x) * kJanssenThreads + static_cast<int>(threadIdx.x);
  if (r < rows) fitness[r] = janssen_value(view, genes + static_cast<Dim>(r) * pitch);
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
    const unsigned blocks = static_cast<unsigned>((rows + kJanssenThreads - 1) / kJanssenThreads);
    janssen_kernel<<<blocks, kJanssenThreads, 0, stream>>>(view, genes, pitch, rows, fitness);
    CHAINSAW_CUDA_CHECK_LAUNCH();
  };
}

}  // namespace chainsaw
