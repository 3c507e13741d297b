// The read floor under the fitness kernels: how fast can any reduction over rows x D floats go
// on this GPU, and what does a launch cost on top of its bytes? The kernels here keep
// fitness/device_reduce.cuh's layout (a lane reads 32 contiguous bytes as two 16-byte loads, a
// warp owns a contiguous run of tiles, one wave of blocks, the row's last block combines the
// partials) and reduce a plain sum of squares, so that they show what the layout itself allows.
// They turn the knobs the engine could turn:
//   bps       blocks resident per SM (the engine's are set by its kernels' registers), forced
//             here by dynamic shared memory;
//   unroll    tiles whose loads a lane issues before it uses them;
//   pdl       programmatic dependent launch: the next launch is scheduled while this one drains.
// cub::DeviceReduce::Sum over the same bytes is the library's figure for comparison. Times are
// of 50 back-to-back launches between two events, as bench_fitness_kernel's; shares are of the
// device's measured copy bandwidth (bench_support.hpp).
// An L2 prefetch ahead of the loads only slowed the batches, so it is no longer a knob
// (bench/results/2026-11-23-h100-fitness-kernels).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cub/device/device_reduce.cuh>
#include <string>

#include "bench_support.hpp"
#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"
#include "fitness/device_reduce.cuh"

namespace {

using namespace chainsaw;

constexpr int kThreads = device::kThreads;
constexpr int kWarps = device::kWarps;
constexpr int kLaneFloats = 8;  // 32 bytes: two float4 loads
constexpr int kTile = 32 * kLaneFloats;
constexpr int kLaunches = 50;

struct Shape {
  long long pitch = 0;  // floats per row, a multiple of kTile (the padding holds zeros)
  long long tiles = 0;
  long long tiles_per_warp = 0;
};

__device__ double tile_squares(const float* tile_start, int lane) {
  const float4* p = reinterpret_cast<const float4*>(tile_start + lane * kLaneFloats);
  const float4 a = p[0], b = p[1];
  const float v[kLaneFloats] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  double s = 0.0;
#pragma unroll
  for (int k = 0; k < kLaneFloats; ++k) s += static_cast<double>(v[k]) * v[k];
  return s;
}

template <int kUnroll>
__global__ void __launch_bounds__(kThreads)
    tile_sum_kernel(const float* rows, Shape s, double* partials, unsigned* tickets,
                    double* out) {
  device::await_previous_grid_and_release_next();  // the engine's kernels' first step
  extern __shared__ unsigned char occupancy_ballast[];  // only its size matters
  (void)occupancy_ballast;
  const float* row = rows + blockIdx.y * s.pitch;
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const long long first = (static_cast<long long>(blockIdx.x) * kWarps + warp) * s.tiles_per_warp;
  const long long end = min(first + s.tiles_per_warp, s.tiles);
  double acc = 0.0;
  long long t = first;
  for (; t + kUnroll <= end; t += kUnroll) {
    double part[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) part[u] = tile_squares(row + (t + u) * kTile, lane);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc += part[u];
  }
  for (; t < end; ++t) acc += tile_squares(row + t * kTile, lane);
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);

  __shared__ double warp_sums[kWarps];
  __shared__ bool is_last;
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    double b = 0.0;
    for (int w = 0; w < kWarps; ++w) b += warp_sums[w];
    partials[blockIdx.y * gridDim.x + blockIdx.x] = b;
    __threadfence();
    is_last = atomicAdd(&tickets[blockIdx.y], 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  // The last block adds the row's partials with all its threads, as the engine's does.
  double total = 0.0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += kThreads)
    total += partials[blockIdx.y * gridDim.x + b];
  for (int o = 16; o > 0; o /= 2) total += __shfl_down_sync(0xffffffffu, total, o);
  __syncthreads();
  if (lane == 0) warp_sums[warp] = total;
  __syncthreads();
  if (threadIdx.x != 0) return;
  total = 0.0;
  for (int w = 0; w < kWarps; ++w) total += warp_sums[w];
  out[blockIdx.y] = total;
  tickets[blockIdx.y] = 0;
}

struct Rows {
  long long dim, pitch;
  int count;
  DeviceBuffer<float> genes;
  DeviceBuffer<double> partials;
  DeviceBuffer<unsigned> tickets;
  DeviceBuffer<double> out;
  Rows(long long d, int n, int max_blocks)
      : dim(d),
        pitch((d + kTile - 1) / kTile * kTile),
        count(n),
        genes(static_cast<std::size_t>(pitch * n)),
        partials(static_cast<std::size_t>(max_blocks) * n),
        tickets(static_cast<std::size_t>(n)),
        out(static_cast<std::size_t>(n)) {
    // Non-zero values (never time on zeros): a byte pattern that reads as small floats.
    CHAINSAW_CUDA_TRY(cudaMemset(genes.data(), 0x3c, genes.size() * sizeof(float)));
    for (int r = 0; r < n; ++r)  // the padding past dim is zero
      CHAINSAW_CUDA_TRY(cudaMemset(genes.data() + r * pitch + d, 0,
                                   static_cast<std::size_t>(pitch - d) * sizeof(float)));
    CHAINSAW_CUDA_TRY(cudaMemset(tickets.data(), 0, tickets.size() * sizeof(unsigned)));
  }
  double bytes() const { return static_cast<double>(dim) * count * sizeof(float); }
};

// Seconds of kLaunches back-to-back launches on `stream` (after one to warm up).
template <class Launch>
double seconds_of_launches(cudaStream_t stream, Launch&& launch) {
  launch();
  return stream_seconds(stream, [&] {
    for (int i = 0; i < kLaunches; ++i) launch();
  });
}

// An iteration is kLaunches launches (its manual time is theirs, so that --benchmark_min_time
// bounds the wall time); the counters are per launch.
void report(benchmark::State& state, double bytes, double seconds) {
  const double launches = static_cast<double>(state.iterations()) * kLaunches;
  const double rate = bytes * launches / seconds;
  state.counters["GB/s"] = rate / 1e9;
  state.counters["pct_of_copy"] = 100.0 * rate / bench::device_copy_bandwidth();
  state.counters["us_per_launch"] = 1e6 * seconds / launches;
}

bool has_gpu(benchmark::State& state) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    state.SkipWithError("no CUDA GPU");
    return false;
  }
  return true;
}

// args: dim, rows, blocks per SM, programmatic launch (0/1)
template <int kUnroll>
void BM_TileSum(benchmark::State& state) {
  if (!has_gpu(state)) return;
  const long long dim = state.range(0);
  const int rows = static_cast<int>(state.range(1));
  const int bps = static_cast<int>(state.range(2));
  const bool pdl = state.range(3) != 0;
  cudaDeviceProp prop{};
  CHAINSAW_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
  auto kernel = tile_sum_kernel<kUnroll>;
  // Shared memory that leaves room for bps blocks and no more (0: as many as registers allow).
  const std::size_t smem =
      bps >= 2048 / kThreads ? 0
                             : prop.sharedMemPerMultiprocessor / bps - prop.reservedSharedMemPerBlock -
                                   kWarps * sizeof(double) - 64;
  CHAINSAW_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
  CHAINSAW_CUDA_TRY(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  int resident = 0;
  CHAINSAW_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, smem));
  // One wave, spread over the rows, as the engine's launch_shape does.
  const int blocks_x = std::max(1, prop.multiProcessorCount * resident / rows);
  Rows data(dim, rows, blocks_x);
  Shape s;
  s.pitch = data.pitch;
  s.tiles = data.pitch / kTile;
  s.tiles_per_warp = (s.tiles + static_cast<long long>(blocks_x) * kWarps - 1) /
                     (static_cast<long long>(blocks_x) * kWarps);
  CudaStream stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = pdl ? 1 : 0;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks_x), static_cast<unsigned>(rows));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = smem;
  config.stream = stream.get();
  config.attrs = &attribute;
  config.numAttrs = 1;
  double seconds = 0.0;
  for (auto _ : state) {
    const double t = seconds_of_launches(stream.get(), [&] {
      CHAINSAW_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, static_cast<const float*>(data.genes.data()),
                                           s, data.partials.data(), data.tickets.data(),
                                           data.out.data()));
    });
    state.SetIterationTime(t);
    seconds += t;
  }
  report(state, data.bytes(), seconds);
  state.counters["blocks_per_sm"] = resident;
  double first = 0.0;
  CHAINSAW_CUDA_TRY(cudaMemcpy(&first, data.out.data(), sizeof(double), cudaMemcpyDeviceToHost));
  // Every float is the same: the row's sum says every tile was read exactly once.
  float v = 0.0f;
  CHAINSAW_CUDA_TRY(cudaMemcpy(&v, data.genes.data(), sizeof(float), cudaMemcpyDeviceToHost));
  const double expected = static_cast<double>(v) * v * static_cast<double>(dim);
  if (std::abs(first - expected) > 1e-9 * expected) state.SkipWithError("wrong sum");
}

// args: dim, rows (reduced as one run of rows x dim floats)
void BM_CubSum(benchmark::State& state) {
  if (!has_gpu(state)) return;
  const long long dim = state.range(0);
  const int rows = static_cast<int>(state.range(1));
  const long long n = dim * rows;
  DeviceBuffer<float> in(static_cast<std::size_t>(n));
  DeviceBuffer<float> out(1);
  CHAINSAW_CUDA_TRY(cudaMemset(in.data(), 0x3c, in.size() * sizeof(float)));
  std::size_t temp_bytes = 0;
  CHAINSAW_CUDA_TRY(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.data(), out.data(), n));
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
  CudaStream stream;
  double seconds = 0.0;
  for (auto _ : state) {
    const double t = seconds_of_launches(stream.get(), [&] {
      CHAINSAW_CUDA_TRY(cub::DeviceReduce::Sum(temp.data(), temp_bytes, in.data(), out.data(), n,
                                               stream.get()));
    });
    state.SetIterationTime(t);
    seconds += t;
  }
  report(state, static_cast<double>(n) * sizeof(float), seconds);
}

// The shapes of the fitness benchmark (a batch of 20) and of a Solis-Wets move (one row).
const long long kShapes[][2] = {{100000, 20}, {1000000, 20}, {3000000, 20}, {1000000, 1},
                                {3000000, 1}, {10000000, 1}};

template <int kUnroll>
void register_tile_sum(const std::string& name) {
  auto* b = benchmark::RegisterBenchmark(("read_floor/" + name).c_str(),
                                         BM_TileSum<kUnroll>);
  b->ArgNames({"dim", "rows", "bps", "pdl"})->UseManualTime()->Unit(benchmark::kMicrosecond);
  for (const auto& shape : kShapes)
    for (int bps : {2, 3, 4, 8})
      for (int pdl : {0, 1}) b->Args({shape[0], shape[1], bps, pdl});
}

void register_all() {
  register_tile_sum<1>("unroll1");
  register_tile_sum<2>("unroll2");
  auto* cub = benchmark::RegisterBenchmark("read_floor/cub_sum", BM_CubSum);
  cub->ArgNames({"dim", "rows"})->UseManualTime()->Unit(benchmark::kMicrosecond);
  for (const auto& shape : kShapes) cub->Args({shape[0], shape[1]});
}

}  // namespace

int main(int argc, char** argv) {
  return chainsaw::bench::run_registered_benchmarks(argc, argv, register_all);
}
