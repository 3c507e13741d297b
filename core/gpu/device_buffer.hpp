// RAII owners of CUDA memory, streams, events and graphs: every device or pinned allocation in chainsaw
// has one, so no cudaMalloc/cudaFree pair appears in algorithm code and nothing leaks on an
// exception.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "core/gpu/cuda_check.hpp"

namespace chainsaw {

// One owner for both kinds of CUDA allocation; Memory supplies the allocate/free pair.
template <class T, class Memory>
class CudaAllocation {
 public:
  CudaAllocation() = default;
  explicit CudaAllocation(std::size_t count) : count_(count) {
    if (count_ > 0) CHAINSAW_CUDA_TRY(Memory::allocate(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~CudaAllocation() {
    if (data_) Memory::release(data_);  // never throws from a destructor
  }
  CudaAllocation(CudaAllocation&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  CudaAllocation& operator=(CudaAllocation&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    return *this;
  }
  CudaAllocation(const CudaAllocation&) = delete;
  CudaAllocation& operator=(const CudaAllocation&) = delete;

  T* data() const { return data_; }
  T& operator[](std::size_t i) const { return data_[i]; }  // host memory only
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

struct DeviceMemory {
  static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
  static void release(void* p) { cudaFree(p); }
};
// Page-locked host memory, for asynchronous copies of the small per-batch arrays.
struct PinnedMemory {
  static cudaError_t allocate(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
  static void release(void* p) { cudaFreeHost(p); }
};

template <class T>
using DeviceBuffer = CudaAllocation<T, DeviceMemory>;
template <class T>
using PinnedBuffer = CudaAllocation<T, PinnedMemory>;

// A stream owned for the engine's lifetime.
class CudaStream {
 public:
  CudaStream() { CHAINSAW_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { CHAINSAW_CUDA_TRY(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

// An event owned by its creator; elapsed_seconds times the work between two of them.
class CudaEvent {
 public:
  CudaEvent() { CHAINSAW_CUDA_TRY(cudaEventCreate(&event_)); }
  ~CudaEvent() {
    if (event_) cudaEventDestroy(event_);
  }
  CudaEvent(CudaEvent&& other) noexcept : event_(other.event_) { other.event_ = nullptr; }
  CudaEvent& operator=(CudaEvent&&) = delete;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

inline double elapsed_seconds(const CudaEvent& start, const CudaEvent& stop) {
  float ms = 0.0f;
  CHAINSAW_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return 1e-3 * static_cast<double>(ms);
}

// A graph being built, owned until it is destroyed.
class CudaGraph {
 public:
  CudaGraph() { CHAINSAW_CUDA_TRY(cudaGraphCreate(&graph_, 0)); }
  ~CudaGraph() {
    if (graph_) cudaGraphDestroy(graph_);
  }
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  cudaGraph_t get() const { return graph_; }

 private:
  cudaGraph_t graph_ = nullptr;
};

// Records what `work` enqueues on `stream` into `graph` (a graph of ours or the body of one of
// its conditional nodes), in this thread's capture mode, so that other threads' engines go on
// unhindered. Ends the capture whatever happens.
template <class Work>
void capture_into(cudaStream_t stream, cudaGraph_t graph, Work&& work) {
  CHAINSAW_CUDA_TRY(cudaStreamBeginCaptureToGraph(stream, graph, nullptr, nullptr, 0,
                                                  cudaStreamCaptureModeThreadLocal));
  cudaGraph_t captured = nullptr;
  try {
    work();
  } catch (...) {
    cudaStreamEndCapture(stream, &captured);
    throw;
  }
  CHAINSAW_CUDA_TRY(cudaStreamEndCapture(stream, &captured));
}

// Adds a node after what `stream`'s capture enqueued last; the capture's next work follows it.
// For the nodes stream capture cannot make: a child graph, a conditional node.
inline void add_captured_node(cudaStream_t stream, cudaGraphNodeParams& params) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t graph = nullptr;
  const cudaGraphNode_t* tail = nullptr;
  std::size_t tail_count = 0;
  CHAINSAW_CUDA_TRY(
      cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph, &tail, nullptr, &tail_count));
  CHAINSAW_EXPECTS(status == cudaStreamCaptureStatusActive, "the stream is not capturing");
  cudaGraphNode_t node = nullptr;
  CHAINSAW_CUDA_TRY(cudaGraphAddNode(&node, graph, tail, nullptr, tail_count, &params));
  CHAINSAW_CUDA_TRY(
      cudaStreamUpdateCaptureDependencies(stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
}

// A CUDA graph instantiated to be replayed: one launch for a sequence of copies and kernels
// whose arguments do not change (their data may).
class CudaGraphExec {
 public:
  CudaGraphExec() = default;
  explicit CudaGraphExec(cudaGraph_t graph) {
    CHAINSAW_CUDA_TRY(cudaGraphInstantiate(&exec_, graph, 0));
  }
  // What `work` enqueues on `stream`, captured.
  template <class Work>
  static CudaGraphExec capture(cudaStream_t stream, Work&& work) {
    CudaGraph graph;
    capture_into(stream, graph.get(), work);
    return CudaGraphExec(graph.get());
  }
  ~CudaGraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  CudaGraphExec(CudaGraphExec&& other) noexcept : exec_(other.exec_) { other.exec_ = nullptr; }
  CudaGraphExec& operator=(CudaGraphExec&& other) noexcept {
    std::swap(exec_, other.exec_);
    return *this;
  }
  CudaGraphExec(const CudaGraphExec&) = delete;
  CudaGraphExec& operator=(const CudaGraphExec&) = delete;
  explicit operator bool() const { return exec_ != nullptr; }
  void launch(cudaStream_t stream) const { CHAINSAW_CUDA_TRY(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

// GPU seconds of what `work` enqueues on `stream`, between two events; waits for it to finish.
template <class Work>
double stream_seconds(cudaStream_t stream, Work&& work) {
  const CudaEvent start, stop;
  CHAINSAW_CUDA_TRY(cudaEventRecord(start.get(), stream));
  work();
  CHAINSAW_CUDA_TRY(cudaEventRecord(stop.get(), stream));
  CHAINSAW_CUDA_TRY(cudaEventSynchronize(stop.get()));
  return elapsed_seconds(start, stop);
}

}  // namespace chainsaw
