// CUDA error handling: every runtime call goes through CHAINSAW_CUDA_TRY, which turns a failure
// into an exception with the call, file, line and CUDA's own message.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "core/error.hpp"

namespace chainsaw {

class CudaError : public InternalError {
 public:
  CudaError(cudaError_t code, const char* call, const char* file, int line)
      : InternalError(std::string("CUDA error in ") + call + ": " + cudaGetErrorString(code),
                      file, line),
        code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

}  // namespace chainsaw

#define CHAINSAW_CUDA_TRY(call)                                               \
  do {                                                                        \
    const cudaError_t chainsaw_status_ = (call);                              \
    if (chainsaw_status_ != cudaSuccess)                                      \
      throw ::chainsaw::CudaError(chainsaw_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: the launch error always; in debug builds, the kernel's own errors too.
#ifdef NDEBUG
#define CHAINSAW_CUDA_CHECK_LAUNCH() CHAINSAW_CUDA_TRY(cudaGetLastError())
#else
#define CHAINSAW_CUDA_CHECK_LAUNCH()          \
  do {                                        \
    CHAINSAW_CUDA_TRY(cudaGetLastError());    \
    CHAINSAW_CUDA_TRY(cudaDeviceSynchronize()); \
  } while (0)
#endif
