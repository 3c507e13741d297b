// Checkpoint I/O of a large population: write and read time of the HDF5 file and the host memory
// the checkpoint code needs beyond what the process already held (target: a 3e6-D population of
// 120 slots, genes + bias ~ 2.9 GB in float32, overhead <= 256 MB). On the GPU backend when there
// is one, so the genes stream from device memory.
//   bench_checkpoint [--benchmark_*]   env: CHAINSAW_BENCH_DIM (3000000), CHAINSAW_BENCH_DIR (/tmp)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/gpu/device_info.hpp"
#include "core/engines/engine_factory.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "fitness/problem.hpp"
#include "io/checkpoint/checkpoint.hpp"

namespace chainsaw {
namespace {

// kB from /proc/self/status.
long status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::strtol(line.c_str() + key.size(), nullptr, 10);
  return -1;
}

// Resets VmHWM to the current RSS (Linux >= 4.0), so the next peak is the operation's own.
void reset_peak() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

struct Fixture {
  Config config;
  Problem problem;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<MaSwChains> algorithm;
  std::string path;
  Backend backend;

  Fixture() : problem(Problem::make("rastrigin", dim(), 1)) {
    config.function = "rastrigin";
    config.dim = dim();
    config.population_size = 100;  // + 20 padding slots: 120 individuals
    config.batch = 20;
    config.max_evaluations = 1000000;
    config.validate();
    backend = query_cuda_device().available ? Backend::kCuda : Backend::kCpu;
    engine = make_engine(config, problem, backend);
    algorithm = std::make_unique<MaSwChains>(config, problem, *engine);
    algorithm->initialize();
    algorithm->step();  // children in the padding slots, a chain with a bias vector
    const char* dir = std::getenv("CHAINSAW_BENCH_DIR");
    path = std::string(dir ? dir : "/tmp") + "/chainsaw_bench_checkpoint.h5";
  }
  ~Fixture() { std::remove(path.c_str()); }

  static Dim dim() {
    const char* d = std::getenv("CHAINSAW_BENCH_DIM");
    return d ? std::atoll(d) : 3000000;
  }
  double bytes() const {
    return 2.0 * config.capacity() * static_cast<double>(config.dim) * sizeof(real_t);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void report(benchmark::State& state, double overhead_kb, double seconds) {
  Fixture& f = fixture();
  state.counters["GB_per_s"] = f.bytes() / seconds / 1e9;
  state.counters["population_GB"] = f.bytes() / 1e9;
  state.counters["host_overhead_MB"] = overhead_kb / 1024.0;
  state.counters["file_GB"] = static_cast<double>(std::filesystem::file_size(f.path)) / 1e9;
  state.SetLabel(backend_name(f.backend));
}

// Times `operation` per iteration; reports the largest host-memory peak above the RSS it
// started from.
template <class Operation>
void measure(benchmark::State& state, Operation operation) {
  double worst_overhead_kb = 0.0, seconds = 0.0;
  for (auto _ : state) {
    reset_peak();
    const double baseline = static_cast<double>(status_kb("VmRSS"));
    const auto start = std::chrono::steady_clock::now();
    operation();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double peak = static_cast<double>(status_kb("VmHWM"));
    if (peak - baseline > worst_overhead_kb) worst_overhead_kb = peak - baseline;
    state.SetIterationTime(seconds);
  }
  report(state, worst_overhead_kb, seconds);
}

void BM_CheckpointWrite(benchmark::State& state) {
  Fixture& f = fixture();
  measure(state, [&] { write_checkpoint("--checkpoint", f.path, *f.algorithm, f.backend, "benchmark"); });
}

void BM_CheckpointRead(benchmark::State& state) {
  Fixture& f = fixture();
  if (!std::filesystem::exists(f.path))
    write_checkpoint("--checkpoint", f.path, *f.algorithm, f.backend, "benchmark");
  measure(state, [&] { load_checkpoint(f.path, *f.algorithm); });
}

BENCHMARK(BM_CheckpointWrite)->UseManualTime()->Iterations(3)->Unit(benchmark::kSecond);
BENCHMARK(BM_CheckpointRead)->UseManualTime()->Iterations(3)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace chainsaw

BENCHMARK_MAIN();
