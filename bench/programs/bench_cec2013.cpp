// The CEC 2013 functions' evaluation (docs/functions.md, "The CEC 2013 LSGO functions"). On the
// GPU (cec2013_gpu/F/D/rows): the objective's device callback on `rows` stored rows (20: a
// crossover batch; 2: a Solis-Wets step's candidates), timed with events over 20 calls; on the
// CPU (cec2013_cpu/F/D): one row by the host evaluation. `model_GB/s` counts the bytes the
// GPU pass must read from memory (docs/functions.md's 4 + 12 t/r bytes per variable) per second,
// `pct_of_copy` its share of the device's copy bandwidth.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "core/rng.hpp"
#include "fitness/cec2013/cec2013_instance.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"
#if defined(CHAINSAW_CUDA)
#include "core/gpu/device_buffer.hpp"
#include "core/gpu/device_info.hpp"
#endif

namespace {

using namespace chainsaw;

constexpr int kTileRows = 16;  // the GPU pass's rows per tile (fitness/cec2013/device_cec2013.cu)

// D of the structure nearest to `dim`: 900 k + 5 for F13, F14.
Dim dim_of(int number, Dim dim) {
  return cec2013_overlaps(cec2013_spec(number).layout) ? dim / 1000 * 900 + 5 : dim;
}

std::vector<real_t> random_rows(const Problem& p, int rows) {
  CounterRng rng(42);
  std::vector<real_t> x(static_cast<std::size_t>(rows * p.dim));
  for (real_t& g : x) g = static_cast<real_t>(p.lower + p.width() * rng.uniform());
  return x;  // never time on zeros
}

// Bytes the GPU pass reads from memory per evaluation: the genes, and o and P once per tile.
double model_bytes(const Problem& p, int rows) {
  const Cec2013Instance& inst = *p.cec2013;
  const double tiles = (rows + kTileRows - 1) / kTileRows;
  const double shared = static_cast<double>(inst.o.size()) * sizeof(double) +
                        static_cast<double>(inst.perm.size()) * sizeof(std::int32_t);
  return static_cast<double>(p.dim) * sizeof(real_t) + shared * tiles / rows;
}

void BM_Cec2013Host(benchmark::State& state, int number) {
  const Problem p = Problem::make("cec2013-f" + std::to_string(number),
                                  dim_of(number, state.range(0)), 1);
  const std::vector<real_t> x = random_rows(p, 1);
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(evaluate_host(p, x.data()));
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
}

#if defined(CHAINSAW_CUDA)
void BM_Cec2013Gpu(benchmark::State& state, int number) {
  if (!query_cuda_device().available) {
    state.SkipWithError("no CUDA GPU");
    return;
  }
  const Problem p = Problem::make("cec2013-f" + std::to_string(number),
                                  dim_of(number, state.range(0)), 1);
  const int rows = static_cast<int>(state.range(1));
  const std::vector<real_t> x = random_rows(p, rows);
  DeviceBuffer<real_t> genes(x.size());
  DeviceBuffer<double> fitness(static_cast<std::size_t>(rows));
  CHAINSAW_CUDA_TRY(cudaMemcpy(genes.data(), x.data(), genes.bytes(), cudaMemcpyHostToDevice));
  CudaEvent begin, end;
  constexpr int kCalls = 20;
  double seconds = 0.0;
  p.external->device(genes.data(), p.dim, rows, p.dim, fitness.data(), nullptr);  // warm
  for (auto _ : state) {
    CHAINSAW_CUDA_TRY(cudaEventRecord(begin.get(), nullptr));
    for (int c = 0; c < kCalls; ++c)
      p.external->device(genes.data(), p.dim, rows, p.dim, fitness.data(), nullptr);
    CHAINSAW_CUDA_TRY(cudaEventRecord(end.get(), nullptr));
    CHAINSAW_CUDA_TRY(cudaEventSynchronize(end.get()));
    const double s = elapsed_seconds(begin, end) / kCalls;
    state.SetIterationTime(s);
    seconds += s;
  }
  const double per_call = seconds / static_cast<double>(state.iterations());
  const double rate = model_bytes(p, rows) * rows / per_call;
  state.counters["us_per_call"] = 1e6 * per_call;
  state.counters["model_B_per_eval"] = model_bytes(p, rows);
  state.counters["model_GB/s"] = rate / 1e9;
  state.counters["pct_of_copy"] = 100.0 * rate / bench::device_copy_bandwidth();
}
#endif

void register_all() {
  for (int n = 1; n <= kCec2013Functions; ++n) {
    const std::string name = "cec2013-f" + std::to_string(n);
    benchmark::RegisterBenchmark(("cec2013_cpu/" + name).c_str(), BM_Cec2013Host, n)
        ->Arg(100000)
        ->Arg(1000000)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
#if defined(CHAINSAW_CUDA)
    benchmark::RegisterBenchmark(("cec2013_gpu/" + name).c_str(), BM_Cec2013Gpu, n)
        ->ArgsProduct({{1000, 100000, 1000000}, {2, 20}})
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
#endif
  }
}

}  // namespace

int main(int argc, char** argv) {
  return chainsaw::bench::run_registered_benchmarks(argc, argv, register_all);
}
