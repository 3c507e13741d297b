// Fitness kernel throughput on the GPU: a batch of 20 individuals (the paper's crossover batch)
// evaluated per launch, for every paper function at 1e5, 1e6 and 3e6 dimensions and every CEC
// 2010 function at 1e6. Reports the bytes of genes read per second and their share of the
// device's measured copy bandwidth (a device-to-device cudaMemcpy, counting bytes read +
// written). CEC 2010 evaluations also read o, P's inverse and, for the grouped variables, gather
// x, o and P again: `logical_GB/s` counts those bytes too.
#include <benchmark/benchmark.h>

#if defined(CHAINSAW_CUDA)
#include <cuda_runtime.h>

#include <numeric>
#include <vector>

#include "core/cuda_check.hpp"
#include "core/cuda_engine.hpp"
#include "core/device_buffer.hpp"
#include "core/device_info.hpp"
#include "fitness/cec2010_instance.hpp"

namespace {

using namespace chainsaw;

double measured_copy_bandwidth() {
  static const double bandwidth = [] {
    const std::size_t bytes = std::size_t{1} << 30;
    DeviceBuffer<unsigned char> a(bytes), b(bytes);
    CHAINSAW_CUDA_TRY(cudaMemset(a.data(), 1, bytes));
    cudaEvent_t start, stop;
    CHAINSAW_CUDA_TRY(cudaEventCreate(&start));
    CHAINSAW_CUDA_TRY(cudaEventCreate(&stop));
    CHAINSAW_CUDA_TRY(cudaMemcpy(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice));
    const int reps = 20;
    CHAINSAW_CUDA_TRY(cudaEventRecord(start));
    for (int r = 0; r < reps; ++r)
      CHAINSAW_CUDA_TRY(cudaMemcpy(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice));
    CHAINSAW_CUDA_TRY(cudaEventRecord(stop));
    CHAINSAW_CUDA_TRY(cudaEventSynchronize(stop));
    float ms = 0;
    CHAINSAW_CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return 2.0 * bytes * reps / (ms * 1e-3);
  }();
  return bandwidth;
}

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
  state.counters["copy_bw_GB/s"] = measured_copy_bandwidth() / 1e9;
  state.counters["pct_of_copy"] = 100.0 * rate / measured_copy_bandwidth();
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

void register_all() {
  for (const char* fn :
       {"rastrigin", "griewank", "salomon", "discus", "sumsquares", "schwefel12"}) {
    benchmark::RegisterBenchmark((std::string("fitness/") + fn).c_str(), BM_FitnessKernel, fn)
        ->Arg(100000)
        ->Arg(1000000)
        ->Arg(3000000)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  for (const FunctionInfo& info : cec2010_functions()) {
    benchmark::RegisterBenchmark((std::string("fitness/") + info.name).c_str(), BM_FitnessKernel,
                                 info.name)
        ->Arg(1000000)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
#else
int main() { return 0; }  // CPU-only build: nothing to measure
#endif
