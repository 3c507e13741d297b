// A problem's data copied to each GPU that evaluates it, once, at the first evaluation there:
// a Problem is made before the backend is chosen (and on machines without a GPU), and one
// Problem may serve runs on several devices. The copies live as long as the objective's
// callback; access is serialised by a mutex (concurrent --runs share the Problem).
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/gpu/device_buffer.hpp"
#include "fitness/external_objective.hpp"

namespace chainsaw {

template <class Copy>
class PerDeviceCopy {
 public:
  // The current device's copy, made by make() the first time.
  template <class Make>
  const Copy& get(Make&& make) {
    int device = 0;
    CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = copies_.find(device);
    if (it == copies_.end()) it = copies_.emplace(device, std::make_unique<Copy>(make())).first;
    return *it->second;
  }

 private:
  std::mutex mutex_;
  std::map<int, std::unique_ptr<Copy>> copies_;
};

// A host vector in a new device buffer, complete on return: a cudaMemcpy from pageable memory
// may return before its DMA ends, and the engines' non-blocking streams do not wait for the
// legacy stream that carries it, so the legacy stream is awaited (no other run's work is).
template <class T>
DeviceBuffer<T> upload(const std::vector<T>& host) {
  DeviceBuffer<T> buffer(host.size());
  if (!host.empty()) {
    CHAINSAW_CUDA_TRY(cudaMemcpy(buffer.data(), host.data(), buffer.bytes(), cudaMemcpyHostToDevice));
    CHAINSAW_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
  }
  return buffer;
}

// The device callback of a problem with data: copy(instance) makes a device's copy at its first
// call there, launch(copy, genes, pitch, rows, fitness, stream) evaluates the rows. A call with
// rows = 0 only makes the copy: the GPU engines make it so while a run is set up, before its
// clock starts, since its cudaMalloc and synchronous copy wait for the other runs' work on a
// GPU that --runs keeps busy.
template <class Instance, class Copy, class Launch>
DeviceBatchFn device_batch_with_copies(std::shared_ptr<const Instance> instance,
                                       Copy (*copy)(const Instance&), Launch launch) {
  auto copies = std::make_shared<PerDeviceCopy<Copy>>();
  return [instance, copies, copy, launch](const real_t* genes, Dim pitch, int rows, Dim,
                                          double* fitness, DeviceStream stream) {
    const Copy& data = copies->get([&] { return copy(*instance); });
    if (rows > 0) launch(data, genes, pitch, rows, fitness, stream);
  };
}

}  // namespace chainsaw
