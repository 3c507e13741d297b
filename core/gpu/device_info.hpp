// What the host needs to know about GPUs without including CUDA headers: is there one, how much
// memory does it have, and the properties launch shapes are chosen from. Works (answering "no
// GPU") in builds without CUDA.
#pragma once

#include <cstddef>
#include <string>

namespace chainsaw {

struct DeviceInfo {
  bool available = false;
  std::string name;
  int sm_count = 0;
  std::size_t total_memory = 0;
  std::size_t free_memory = 0;
  std::string reason;  // why none is available
};

bool cuda_compiled();
// The current device (the first, unless select_cuda_device chose another).
DeviceInfo query_cuda_device();
// One rank per GPU: the rank with node rank r of a distributed run takes the host's GPU
// r mod (GPUs on the host), before anything else touches CUDA. No GPU: nothing happens.
void select_cuda_device(int node_rank);
// GPUs on this host (0 without CUDA or without a device).
int cuda_device_count();
// What launch shapes and the GPU tuning policies (core/engines/cuda/tuning/) are chosen from.
struct DeviceProperties {
  int sm_count = 1;
  std::size_t l2_cache_bytes = 0;
};
// The current device's. Throws CudaError where it cannot be queried; InternalError without CUDA.
DeviceProperties current_device_properties();
// How host threads wait for the current GPU: "auto" (CUDA's default: spin while the process has
// fewer threads than cores waiting, else yield), "spin", "yield" or "blocking". Without CUDA:
// nothing. Throws UserError for another name.
void set_cuda_host_wait(const std::string& policy);

}  // namespace chainsaw
