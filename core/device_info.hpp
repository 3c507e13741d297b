// What the host needs to know about GPUs without including CUDA headers: is there one, and
// how much memory does it have. Works (answering "no GPU") in builds without CUDA.
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
DeviceInfo query_cuda_device();

}  // namespace chainsaw
