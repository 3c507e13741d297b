// The host memory's copy bandwidth, bytes read + written per second: every OpenMP thread copies
// its share of a buffer, best of `repetitions` (the first touches the pages). What --profile's
// roofline column and the CPU benchmarks measure the engine's passes against.
#pragma once

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <vector>

namespace chainsaw {

inline double measure_host_copy_bandwidth(std::size_t bytes, int repetitions) {
  std::vector<unsigned char> a(bytes, 1), b(bytes, 0);
  double best = 0.0;
  for (int rep = 0; rep < repetitions; ++rep) {
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
  // The copies must happen: read what they wrote.
  volatile unsigned char sink = b[bytes / 2];
  (void)sink;
  return best;
}

}  // namespace chainsaw
