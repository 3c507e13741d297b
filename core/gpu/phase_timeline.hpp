// --profile on the GPU. The engine's work comes in windows: what it enqueues between two host
// syncs. A window is timed by the host clock, from its first mark to the return of the sync that
// waits for it: the GPU idles at both ends (the host was waiting before, and decides after), so
// that is the window's device time plus its launch and wait latency. Most windows hold a single
// bucket (a crossover batch, a distance pass, a sort) and cost no CUDA event at all (events per
// window cost the run more than profiling may: bench/results/2026-11-23-h100-profiling). A
// window whose bucket changes (a CEC 2010 or user objective's separate evaluations, a copy then
// an evaluation) records an event at each change and one at its end; the buckets after the
// first take their event intervals, the first the rest of the window. Off, mark() returns at
// its first line; no sync is ever added.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"
#include "core/profiling.hpp"

namespace chainsaw {

class PhaseTimeline {
 public:
  static constexpr int kPool = 2048;
  using Clock = std::chrono::steady_clock;

  void enable(cudaStream_t stream, KernelProfile* profile) {
    stream_ = stream;
    profile_ = profile;
    if (profile_ && events_.empty()) {
      events_.reserve(kPool);
      for (int i = 0; i < kPool; ++i) events_.emplace_back();
      buckets_.resize(kPool);
    }
    open_ = false;
    used_ = 0;
  }
  // Work of `bucket` is enqueued next.
  void mark(Bucket bucket) {
    if (!profile_) return;
    if (!open_) {
      open_ = true;
      window_start_ = Clock::now();
      first_ = current_ = bucket;
      begin_range(bucket);
      return;
    }
    if (bucket == current_) return;
    if (used_ == kPool - 1) {  // keep one event for the window's end: close this window
      host_sync();
      return mark(bucket);
    }
    record(bucket);
    current_ = bucket;
    begin_range(bucket);
  }
  // The host is about to wait for the stream: the window's work is all enqueued.
  void stop() {
    if (!profile_ || !open_) return;
    if (used_ > 0) record(kEnd);
    end_range();
  }
  // The bucket work is being enqueued for (kCount: none, or not profiling).
  Bucket current() const { return profile_ && open_ ? current_ : kEnd; }
  // After the host's sync: the window is complete.
  void collect() {
    if (!profile_ || !open_) return;
    const double window = std::chrono::duration<double>(Clock::now() - window_start_).count();
    double later = 0.0;  // the buckets after the first
    for (int i = 0; i + 1 < used_; ++i) {
      const double seconds = elapsed_seconds(events_[i], events_[i + 1]);
      profile_->add(buckets_[i], seconds);
      later += seconds;
    }
    profile_->add(first_, std::max(0.0, window - later));
    open_ = false;
    used_ = 0;
  }

 private:
  static constexpr Bucket kEnd = Bucket::kCount;

  void host_sync() {
    stop();
    CHAINSAW_CUDA_TRY(cudaStreamSynchronize(stream_));
    collect();
  }
  void record(Bucket bucket) {
    CHAINSAW_CUDA_TRY(cudaEventRecord(events_[used_].get(), stream_));
    buckets_[used_] = bucket;
    ++used_;
  }
  // The same phases as NVTX ranges on the host's timeline (start/end: they do not nest).
  void begin_range(Bucket bucket) {
    end_range();
    range_ = nvtxRangeStartA(bucket_info(bucket).key);
    range_open_ = true;
  }
  void end_range() {
    if (range_open_) nvtxRangeEnd(range_);
    range_open_ = false;
  }

  cudaStream_t stream_ = nullptr;
  KernelProfile* profile_ = nullptr;
  bool open_ = false;  // work was marked since the last collect()
  Clock::time_point window_start_{};
  Bucket first_ = kEnd, current_ = kEnd;
  std::vector<CudaEvent> events_;  // events_[i] starts buckets_[i]; kEnd ends the window
  std::vector<Bucket> buckets_;
  int used_ = 0;
  nvtxRangeId_t range_ = 0;
  bool range_open_ = false;
};

}  // namespace chainsaw
