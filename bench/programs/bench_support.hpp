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

#include "core/gpu/copy_bandwidth.hpp"
#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"
#endif
#include "core/engines/host/copy_bandwidth.hpp"

namespace chainsaw::bench {

#if defined(CHAINSAW_CUDA)
inline double device_copy_bandwidth() {
  static const double bandwidth = measure_device_copy_bandwidth(std::size_t{1} << 30, 20);
  return bandwidth;
}
#endif

// All threads copy their share of 256 MiB, best of five.
inline double host_copy_bandwidth() {
  static const double bandwidth = measure_host_copy_bandwidth(std::size_t{1} << 28, 5);
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
