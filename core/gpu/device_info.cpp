#include "core/gpu/device_info.hpp"

#include <string>

#include "core/error.hpp"

#if defined(CHAINSAW_CUDA)
#include <cuda_runtime.h>

#include "core/gpu/cuda_check.hpp"
#endif

namespace chainsaw {

bool cuda_compiled() {
#if defined(CHAINSAW_CUDA)
  return true;
#else
  return false;
#endif
}

DeviceInfo query_cuda_device() {
  DeviceInfo info;
#if defined(CHAINSAW_CUDA)
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    info.reason = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device";
    cudaGetLastError();  // clear the sticky "no device" error
    return info;
  }
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess ||
      cudaMemGetInfo(&info.free_memory, &info.total_memory) != cudaSuccess) {
    info.reason = "the CUDA device could not be queried";
    cudaGetLastError();
    return info;
  }
  info.available = true;
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
#else
  info.reason = "this build has no CUDA backend (configure with -DCHAINSAW_CUDA=ON)";
#endif
  return info;
}

DeviceProperties current_device_properties() {
#if defined(CHAINSAW_CUDA)
  int device = 0, sm_count = 0, l2_bytes = 0;
  CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
  CHAINSAW_CUDA_TRY(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  CHAINSAW_CUDA_TRY(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return {sm_count, static_cast<std::size_t>(l2_bytes)};
#else
  throw InternalError("this build has no CUDA backend", __FILE__, __LINE__);
#endif
}

int cuda_device_count() {
  int count = 0;
#if defined(CHAINSAW_CUDA)
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
#endif
  return count;
}

void select_cuda_device([[maybe_unused]] int node_rank) {
#if defined(CHAINSAW_CUDA)
  const int count = cuda_device_count();
  if (count == 0) return;
  const cudaError_t status = cudaSetDevice(node_rank % count);
  if (status != cudaSuccess)
    throw UserError(std::string("cannot select GPU ") + std::to_string(node_rank % count) + ": " +
                    cudaGetErrorString(status));
#endif
}

void set_cuda_host_wait(const std::string& policy) {
#if defined(CHAINSAW_CUDA)
  unsigned flags = 0;
  if (policy == "auto") flags = cudaDeviceScheduleAuto;
  else if (policy == "spin") flags = cudaDeviceScheduleSpin;
  else if (policy == "yield") flags = cudaDeviceScheduleYield;
  else if (policy == "blocking") flags = cudaDeviceScheduleBlockingSync;
  else throw UserError("unknown host wait policy '" + policy + "' (auto, spin, yield, blocking)");
  if (cuda_device_count() == 0) return;
  const cudaError_t status = cudaSetDeviceFlags(flags);  // also on an initialised device
  if (status != cudaSuccess)
    throw UserError(std::string("cannot set the GPU's host wait policy: ") +
                    cudaGetErrorString(status));
#else
  (void)policy;
#endif
}

}  // namespace chainsaw
