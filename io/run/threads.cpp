#include "io/run/threads.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

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

bool oversubscribed(int others_running, int threads, int processors) {
  return others_running + threads > processors;
}

int requested_threads(char** argv) {
  for (char** a = argv + 1; *a != nullptr; ++a) {
    const std::string arg = *a;
    if (arg == "--threads" && a[1] != nullptr) return std::max(0, std::atoi(a[1]));
    if (arg.rfind("--threads=", 0) == 0) return std::max(0, std::atoi(arg.c_str() + 10));
  }
  const char* env = std::getenv("OMP_NUM_THREADS");
  return env != nullptr ? std::max(0, std::atoi(env)) : 0;
}

namespace {
// Tasks runnable now besides this one: the least `procs_running` of /proc/stat over a few reads
// (one read can catch a short-lived task); 0 where /proc is not there.
int others_running() {
  int least = -1;
  for (int read = 0; read < 3; ++read) {
    std::ifstream stat("/proc/stat");
    std::string key;
    int running = -1;
    while (stat >> key) {
      if (key == "procs_running") {
        stat >> running;
        break;
      }
      stat.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    if (running < 0) return 0;
    least = least < 0 ? running : std::min(least, running);
  }
  return std::max(0, least - 1);
}
}  // namespace

void choose_wait_policy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr)
    return;
  const int processors = std::max(1, omp_get_num_procs());
  const int wanted = requested_threads(argv);
  const int threads = wanted > 0 ? wanted : processors;
  if (!oversubscribed(others_running(), threads, processors)) return;
  ::setenv("OMP_WAIT_POLICY", "passive", 1);
  ::execv("/proc/self/exe", argv);
  // No /proc (or no exec): run on with libgomp's default.
}

}  // namespace chainsaw
