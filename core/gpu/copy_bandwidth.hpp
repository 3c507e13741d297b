// The device memory's copy bandwidth, bytes read + written per second: `repetitions`
// device-to-device cudaMemcpy of a buffer on the default stream, timed by events. What --profile's
// roofline column and the GPU benchmarks measure the engine's passes against.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"

namespace chainsaw {

inline double measure_device_copy_bandwidth(std::size_t bytes, int repetitions) {
  DeviceBuffer<unsigned char> a(bytes), b(bytes);
  CHAINSAW_CUDA_TRY(cudaMemset(a.data(), 1, bytes));
  CHAINSAW_CUDA_TRY(cudaMemcpy(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice));  // warm-up
  const double seconds = stream_seconds(nullptr, [&] {
    for (int r = 0; r < repetitions; ++r)
      CHAINSAW_CUDA_TRY(cudaMemcpy(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice));
  });
  return 2.0 * static_cast<double>(bytes) * repetitions / seconds;
}

}  // namespace chainsaw
