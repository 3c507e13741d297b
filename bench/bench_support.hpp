// What the benchmarks share: the copy bandwidth they are measured against, measured in the same
// process (a device-to-device cudaMemcpy on the GPU, an OpenMP memcpy on the CPU; bytes read +
// written), and the counters every benchmark reports.
#pragma once

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#if defined(CHAINSAW_CUDA)
#include <cuda_runtime.h>

#include "core/engines/cuda/cuda_check.hpp"
#include "core/engines/cuda/device_buffer.hpp"
#endif

namespace chainsaw::bench {

#if defined(CHAINSAW_CUDA)
inline double device_copy_bandwidth() {
  static const double bandwidth = [] {
    const std::size_t bytes = std::size_t{1} << 30;
    DeviceBuffer<unsigned char> a(bytes), b(bytes);
    CHAINSAW_CUDA_TRY(cudaMemset(a.data(), 1, bytes));
    CHAINSAW_CUDA_TRY(cudaMemcpy(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice));
    const int reps = 20;
    const double seconds = stream_seconds(nullptr, [&] {  // the default stream, as cudaMemcpy
      for (int r = 0; r < reps; ++r)
        CHAINSAW_CUDA_TRY(cudaMemcpy(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice));
    });
    return 2.0 * bytes * reps / seconds;
  }();
  return bandwidth;
}
#endif

// All threads copy their share of 256 MiB, best of five (the first touches the pages).
inline double host_copy_bandwidth() {
  static const double bandwidth = [] {
    const std::size_t bytes = std::size_t{1} << 28;
    std::vector<unsigned char> a(bytes, 1), b(bytes, 0);
    double best = 0.0;
    for (int rep = 0; rep < 5; ++rep) {
      const auto start = std::chrono::steady_clock::now();
#pragma omp parallel
      {
        const std::size_t n = static_cast<std::size_t>(omp_get_num_threads());
        const std::size_t t = static_cast<std::size_t>(omp_get_thread_num());
        const std::size_t first = bytes / n * t, last = t + 1 == n ? bytes : bytes / n * (t + 1);
        std::memcpy(b.data() + first, a.data() + first, last - first);
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      best = std::max(best, 2.0 * static_cast<double>(bytes) / s);
    }
    benchmark::DoNotOptimize(b.data());
    return best;
  }();
  return bandwidth;
}

// GB/s of the bytes an operation reads and writes, and their share of the copy bandwidth.
inline void report_bandwidth(benchmark::State& state, double bytes_per_iteration, double seconds,
                             double copy_bandwidth) {
  if (seconds <= 0.0 || state.iterations() == 0) return;
  const double rate = bytes_per_iteration * static_cast<double>(state.iterations()) / seconds;
  state.counters["GB/s"] = rate / 1e9;
  state.counters["copy_bw_GB/s"] = copy_bandwidth / 1e9;
  state.counters["pct_of_copy"] = 100.0 * rate / copy_bandwidth;
  state.counters["us_per_op"] = 1e6 * seconds / static_cast<double>(state.iterations());
}

// main() of a benchmark program whose benchmarks are registered at run time (their arguments
// depend on the build: CUDA or not).
inline int run_registered_benchmarks(int argc, char** argv, void (*register_all)()) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace chainsaw::bench
