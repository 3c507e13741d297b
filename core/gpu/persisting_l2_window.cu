#include "core/gpu/persisting_l2_window.hpp"

#include <algorithm>

#include "core/gpu/cuda_check.hpp"

namespace chainsaw {

PersistingL2Window::PersistingL2Window(const void* base, std::size_t bytes) {
  int device = 0, max_set_aside = 0, max_window = 0;
  CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
  CHAINSAW_CUDA_TRY(
      cudaDeviceGetAttribute(&max_set_aside, cudaDevAttrMaxPersistingL2CacheSize, device));
  CHAINSAW_CUDA_TRY(
      cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device));
  const std::size_t span = std::min(bytes, static_cast<std::size_t>(max_window));
  const std::size_t wanted = std::min(span, static_cast<std::size_t>(max_set_aside));
  if (wanted == 0) return;
  CHAINSAW_CUDA_TRY(cudaDeviceGetLimit(&previous_set_aside_, cudaLimitPersistingL2CacheSize));
  const std::size_t set_aside = std::max(previous_set_aside_, wanted);
  if (set_aside != previous_set_aside_ &&
      cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside) != cudaSuccess) {
    (void)cudaGetLastError();  // not allowed here (MIG, MPS): run without the window
    return;
  }
  raised_ = set_aside != previous_set_aside_;
  window_.base_ptr = const_cast<void*>(base);
  window_.num_bytes = span;
  window_.hitRatio = static_cast<float>(static_cast<double>(wanted) / static_cast<double>(span));
  window_.hitProp = cudaAccessPropertyPersisting;
  window_.missProp = cudaAccessPropertyStreaming;
}

PersistingL2Window& PersistingL2Window::operator=(PersistingL2Window&& other) noexcept {
  std::swap(window_, other.window_);
  std::swap(previous_set_aside_, other.previous_set_aside_);
  std::swap(raised_, other.raised_);
  return *this;
}

PersistingL2Window::~PersistingL2Window() {
  if (window_.num_bytes == 0) return;
  // Best effort, as in every destructor here: the lines and the set-aside go back.
  (void)cudaCtxResetPersistingL2Cache();
  if (raised_) (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, previous_set_aside_);
}

}  // namespace chainsaw
