// A persisting L2 window over a device range: launches given window() keep the range's lines in
// L2 against the other accesses' (CUDA's access policy window). The evaluation pass reads o in
// one, for the genes it streams would evict o between launches
// (bench/results/2026-11-23-h100-fitness-kernels). The device's set-aside for persisting
// lines is raised to the range, up to its maximum (the window then persists that share of it),
// and given back, with the lines, when the window goes. Devices without one get no window.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace chainsaw {

class PersistingL2Window {
 public:
  PersistingL2Window() = default;
  // Throws CudaError when the device cannot be queried; a set-aside the device refuses (MIG,
  // MPS) leaves no window.
  PersistingL2Window(const void* base, std::size_t bytes);
  PersistingL2Window(const PersistingL2Window&) = delete;
  PersistingL2Window& operator=(const PersistingL2Window&) = delete;
  PersistingL2Window(PersistingL2Window&& other) noexcept { *this = std::move(other); }
  PersistingL2Window& operator=(PersistingL2Window&& other) noexcept;
  ~PersistingL2Window();
  // num_bytes 0: none.
  const cudaAccessPolicyWindow& window() const { return window_; }

 private:
  cudaAccessPolicyWindow window_{};  // num_bytes 0: none
  std::size_t previous_set_aside_ = 0;
  bool raised_ = false;
};

}  // namespace chainsaw
