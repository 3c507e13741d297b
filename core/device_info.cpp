#include "core/device_info.hpp"

#if defined(CHAINSAW_CUDA)
#include <cuda_runtime.h>
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
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
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

}  // namespace chainsaw
