#include "core/engine_factory.hpp"

#include "core/device_info.hpp"
#include "core/error.hpp"
#include "core/host_engine.hpp"
#if defined(CHAINSAW_CUDA)
#include "core/cuda_engine.hpp"
#endif

namespace chainsaw {

Backend resolve_backend(Backend requested) {
  if (requested == Backend::kCpu) return Backend::kCpu;
  const DeviceInfo device = query_cuda_device();
  if (requested == Backend::kCuda && !device.available)
    throw UserError("--backend cuda: no usable GPU (" + device.reason + ")");
  return device.available ? Backend::kCuda : Backend::kCpu;
}

void check_distributable(Backend resolved) {
  if (resolved == Backend::kCuda)
    throw UserError("--distribute needs --backend cpu for now (the NCCL engine is not built)");
}

std::unique_ptr<Engine> make_engine(const Config& config, const Problem& problem,
                                    Backend resolved, Communicator* comm) {
  if (comm) check_distributable(resolved);
#if defined(CHAINSAW_CUDA)
  if (resolved == Backend::kCuda) return std::make_unique<CudaEngine>(config, problem);
#endif
  CHAINSAW_EXPECTS(resolved == Backend::kCpu, "backend not resolved or not built");
  return std::make_unique<HostEngine>(config, problem, comm);
}

}  // namespace chainsaw
