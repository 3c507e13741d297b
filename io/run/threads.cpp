#include "io/run/threads.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "core/error.hpp"

namespace chainsaw {

namespace {
constexpr int kThreadsPerProcessor = 8;
}

int max_thread_count() {
  const int processors = std::max(1, omp_get_num_procs());
  return std::min(kThreadsPerProcessor * processors, std::max(1, omp_get_thread_limit()));
}

void check_thread_count(const std::string& flag, int threads) {
  const int limit = max_thread_count();
  if (threads > limit)
    throw UserError(fmt::format("{} = {}: at most {} on this machine ({} per processor, {} "
                                "processors)",
                                flag, threads, limit, kThreadsPerProcessor,
                                std::max(1, omp_get_num_procs())));
}

int use_threads(const std::string& flag, int threads) {
  check_thread_count(flag, threads);
  if (threads > 0) omp_set_num_threads(threads);
  return omp_get_max_threads();
}

void start_with_passive_wait_policy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr)
    return;
  ::setenv("OMP_WAIT_POLICY", "passive", 1);
  ::execv("/proc/self/exe", argv);
  // No /proc (or no exec): run on with libgomp's default.
}

}  // namespace chainsaw
