// What sep-CMA-ES's sampling pass may cost on this GPU: rows x D genes m + sigma sqrt(C) z
// written as floats, z from the keyed streams of core/algorithms/population_ops.hpp, drawn in
// double precision (normal_at: two draws, FP64 log and cos per gene) or in single precision
// (normal_pair_at: one draw, its portable float log, cos and sin per pair of genes), beside the
// same pass with z = 0 (only the bytes). Each thread reads m_j and C_jj once and writes gene j
// of every row, as core/engines/cuda/sep_cma_kernels.cuh does; the rows' keys are made
// beforehand. Shares are of the device's copy bandwidth (bench_support.hpp); bytes: 16 a gene
// read, 4 a gene and row written.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench_support.hpp"
#include "core/algorithms/population_ops.hpp"
#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"

namespace {

using chainsaw::Dim;
enum Draw { kNoDraw, kDouble, kSinglePair };

template <int kDraw>
__global__ void sample_kernel(const double* mean, const double* c, float* rows, Dim n, int count,
                              double sigma, const std::uint64_t* keys) {
  for (Dim p = blockIdx.x * static_cast<Dim>(blockDim.x) + threadIdx.x; 2 * p < n;
       p += static_cast<Dim>(gridDim.x) * blockDim.x) {
    const Dim j = 2 * p;
    const double m0 = mean[j], m1 = mean[j + 1], s0 = sigma * sqrt(c[j]), s1 = sigma * sqrt(c[j + 1]);
    for (int k = 0; k < count; ++k) {
      const std::uint64_t key = keys[k];
      float z0 = 0.0f, z1 = 0.0f;
      if constexpr (kDraw == kDouble) {
        z0 = static_cast<float>(chainsaw::normal_at(key, static_cast<std::uint64_t>(j)));
        z1 = static_cast<float>(chainsaw::normal_at(key, static_cast<std::uint64_t>(j + 1)));
      } else if constexpr (kDraw == kSinglePair) {
        const chainsaw::NormalPair z = chainsaw::normal_pair_at(key, static_cast<std::uint64_t>(p));
        z0 = z.first;
        z1 = z.second;
      }
      rows[static_cast<Dim>(k) * n + j] = static_cast<float>(m0 + s0 * z0);
      rows[static_cast<Dim>(k) * n + j + 1] = static_cast<float>(m1 + s1 * z1);
    }
  }
}

template <int kDraw>
void BM_Sample(benchmark::State& state) {
  const Dim n = state.range(0);
  const int rows = static_cast<int>(state.range(1));
  chainsaw::DeviceBuffer<double> mean(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n));
  chainsaw::DeviceBuffer<float> out(static_cast<std::size_t>(n) * rows);
  CHAINSAW_CUDA_TRY(cudaMemset(mean.data(), 0, mean.bytes()));
  CHAINSAW_CUDA_TRY(cudaMemset(c.data(), 0, c.bytes()));  // sqrt(0): the values do not matter
  std::vector<std::uint64_t> host_keys(static_cast<std::size_t>(rows));
  for (int k = 0; k < rows; ++k) host_keys[k] = chainsaw::derive_key(7, 202, 0, static_cast<std::uint64_t>(k));
  chainsaw::DeviceBuffer<std::uint64_t> keys(host_keys.size());
  CHAINSAW_CUDA_TRY(cudaMemcpy(keys.data(), host_keys.data(), keys.bytes(), cudaMemcpyHostToDevice));
  const int blocks = static_cast<int>(std::min<Dim>((n / 2 + 255) / 256, 4096));
  const double copy = chainsaw::bench::device_copy_bandwidth();
  chainsaw::CudaEvent start, stop;
  double seconds = 0.0;
  for (auto _ : state) {
    CHAINSAW_CUDA_TRY(cudaEventRecord(start.get(), nullptr));
    sample_kernel<kDraw><<<blocks, 256>>>(mean.data(), c.data(), out.data(), n, rows, 0.3, keys.data());
    CHAINSAW_CUDA_CHECK_LAUNCH();
    CHAINSAW_CUDA_TRY(cudaEventRecord(stop.get(), nullptr));
    CHAINSAW_CUDA_TRY(cudaEventSynchronize(stop.get()));
    const double s = chainsaw::elapsed_seconds(start, stop);
    state.SetIterationTime(s);
    seconds += s;
  }
  chainsaw::bench::report_bandwidth(state, static_cast<double>(n) * (16.0 + 4.0 * rows), seconds,
                                    copy);
}

void register_all() {
  for (auto* bm : {benchmark::RegisterBenchmark("sample/bytes_only", BM_Sample<kNoDraw>),
                   benchmark::RegisterBenchmark("sample/double_normal_at", BM_Sample<kDouble>),
                   benchmark::RegisterBenchmark("sample/single_normal_pair", BM_Sample<kSinglePair>)})
    bm->Args({1000000, 45})->Args({10000000, 52})->UseManualTime()->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
  return chainsaw::bench::run_registered_benchmarks(argc, argv, register_all);
}
