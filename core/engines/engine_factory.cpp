#include "core/engines/engine_factory.hpp"

#include "core/algorithms/initial_population.hpp"
#include "core/algorithms/population_algorithm.hpp"
#include "core/gpu/device_info.hpp"
#include "core/error.hpp"
#include "core/engines/host/host_engine.hpp"
#if defined(CHAINSAW_CUDA)
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/distributed/device_collective.hpp"
#endif

namespace chainsaw {

Backend resolve_backend(Backend requested) {
  if (requested == Backend::kCpu) return Backend::kCpu;
  const DeviceInfo device = query_cuda_device();
  if (requested == Backend::kCuda && !device.available)
    throw UserError("--backend cuda: no usable GPU (" + device.reason + ")");
  return device.available ? Backend::kCuda : Backend::kCpu;
}

Backend backend_after_auto_fallback(const Config& config, Backend resolved,
                                    const std::function<Problem()>& problem) {
  if (config.algorithm == AlgorithmKind::kMaSwChains || config.backend != Backend::kAuto ||
      resolved != Backend::kCuda)
    return resolved;
  const bool gpu_runs_it = !runs_on_cpu_only(config.algorithm) && initial_rows(config) == 0 &&
                           population_runs_on_cuda(config, problem(), nullptr);
  return gpu_runs_it ? Backend::kCuda : Backend::kCpu;
}

std::unique_ptr<Engine> make_engine(const Config& config, const Problem& problem,
                                    Backend resolved, Communicator* comm) {
  if (config.gpu_slices > 1 && resolved != Backend::kCuda)
    throw UserError("--gpu-slices lays the genes out on the GPU: it needs the cuda backend (a "
                    "sharded CPU run equals the one-process run whatever the ranks)");
#if defined(CHAINSAW_CUDA)
  if (resolved == Backend::kCuda) {
    if (comm == nullptr && config.gpu_slices > 1 && (problem.is_cec2010() || problem.is_external()))
      throw UserError("--gpu-slices: only the built-in functions are laid out in slices (CEC "
                      "2010, janssen-* and user objectives are evaluated on whole vectors)");
    if (comm == nullptr) return std::make_unique<CudaEngine>(config, problem);
    check_shardable(problem);
    CHAINSAW_EXPECTS(config.gpu_slices == comm->size(), "a sharded GPU run has a slice per rank");
    // NCCL where the build has it; otherwise the exchange goes through host memory and MPI.
    std::unique_ptr<DeviceCollective> collective =
        nccl_compiled() ? make_nccl_collective(*comm) : make_host_staged_collective(*comm);
    return std::make_unique<CudaEngine>(config, problem, comm, std::move(collective));
  }
#endif
  CHAINSAW_EXPECTS(resolved == Backend::kCpu, "backend not resolved or not built");
  return std::make_unique<HostEngine>(config, problem, comm);
}

}  // namespace chainsaw
