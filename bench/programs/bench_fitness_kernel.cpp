// Fitness throughput. On the GPU: a batch of 20 individuals (the paper's crossover batch)
// evaluated per launch, for every paper function at 1e5, 1e6 and 3e6 dimensions and every CEC
// 2010 function at 1e6. On the CPU (fitness_cpu/...): one individual evaluated by the host
// reduction (all OpenMP threads), every function at 1e5 and 1e6. Reports the bytes of genes read
// per second and their share of the device's measured copy bandwidth (a device-to-device
// cudaMemcpy, counting bytes read + written). CEC 2010 evaluations also read o, P's inverse and,
// for the grouped variables, gather x, o and P again: `logical_GB/s` counts those bytes too.
#include <benchmark/benchmark.h>

#include <numeric>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "core/rng.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"
#if defined(CHAINSAW_CUDA)
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/gpu/device_info.hpp"
#endif

namespace {

using namespace chainsaw;

void BM_FitnessHost(benchmark::State& state, const char* function) {
  const Problem problem = Problem::make(function, state.range(0), 1);
  CounterRng rng(42);
  std::vector<real_t> x(static_cast<std::size_t>(problem.dim));
  for (real_t& g : x) g = static_cast<real_t>(problem.lower + problem.width() * rng.uniform());
  double seconds = 0.0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(evaluate_host(problem, x.data()));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(s);
    seconds += s;
  }
  bench::report_bandwidth(state, static_cast<double>(problem.dim) * sizeof(real_t), seconds,
                          bench::host_copy_bandwidth());
}

#if defined(CHAINSAW_CUDA)
void BM_FitnessKernel(benchmark::State& state, const char* function) {
  if (!query_cuda_device().available) {
    state.SkipWithError("no CUDA GPU");
    return;
  }
  Config config;
  config.function = function;
  config.dim = state.range(0);
  const Problem problem = Problem::make(function, config.dim, 1);
  CudaEngine engine(config, problem);
  std::vector<int> slots(static_cast<size_t>(config.batch));
  std::iota(slots.begin(), slots.end(), 0);
  std::vector<double> f(slots.size());
  engine.initialize(slots, f.data());  // random genes: never time on zeros
  double seconds = 0.0;
  for (auto _ : state) {
    const double s = engine.time_evaluation(slots, 50);
    state.SetIterationTime(s);
    seconds += s;
  }
  const double bytes = static_cast<double>(config.batch) * config.dim * sizeof(real_t);
  const double rate = bytes * state.iterations() / seconds;
  state.counters["GB/s"] = rate / 1e9;
  state.counters["copy_bw_GB/s"] = bench::device_copy_bandwidth() / 1e9;
  state.counters["pct_of_copy"] = 100.0 * rate / bench::device_copy_bandwidth();
  state.counters["us_per_launch"] = 1e6 * seconds / state.iterations();
  if (problem.is_cec2010()) {
    const CecView v = problem.cec->view();
    const double per_gene = 2.0 * sizeof(real_t) + (v.inverse ? sizeof(std::int32_t) : 0.0);
    const double gathered = static_cast<double>(v.groups * kCecGroup) *
                            (2.0 * sizeof(real_t) + sizeof(std::int32_t));
    const double logical = static_cast<double>(config.batch) *
                           (per_gene * static_cast<double>(config.dim) + gathered);
    state.counters["logical_GB/s"] = logical * state.iterations() / seconds / 1e9;
  }
}

#endif  // CHAINSAW_CUDA

void register_all() {
  std::vector<std::string> names;
  for (const auto* table : {&all_functions(), &classic_functions(), &cec2010_functions()})
    for (const FunctionInfo& info : *table) names.push_back(info.name);
  for (const std::string& name : names)
    benchmark::RegisterBenchmark(("fitness_cpu/" + name).c_str(), BM_FitnessHost,
                                 function_info(name).name)
        ->Arg(100000)
        ->Arg(1000000)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
#if defined(CHAINSAW_CUDA)
  for (const char* fn :
       {"rastrigin", "griewank", "salomon", "discus", "sumsquares", "schwefel12"}) {
    benchmark::RegisterBenchmark((std::string("fitness/") + fn).c_str(), BM_FitnessKernel, fn)
        ->Arg(100000)
        ->Arg(1000000)
        ->Arg(3000000)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  for (const auto* table : {&classic_functions(), &cec2010_functions()}) {
    for (const FunctionInfo& info : *table) {
      benchmark::RegisterBenchmark((std::string("fitness/") + info.name).c_str(),
                                   BM_FitnessKernel, info.name)
          ->Arg(1000000)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
#endif
}

}  // namespace

int main(int argc, char** argv) {
  return chainsaw::bench::run_registered_benchmarks(argc, argv, register_all);
}
