// The CEC 2013 functions on the GPU for the batch-objective path: two launches per call.
//  1. The item pass, a block per item and tile of up to kTileRows rows: a group's block gathers
//     its variables of every row of the tile into shared memory and makes w = R z for all of
//     them at once, each thread one w_i of several rows (R, float64 and transposed, read once
//     per tile and shared by its rows: the tile's products are a small dense matrix product
//     in float64, register-tiled), then a warp per row transforms and reduces w. A rest chunk's
//     block reduces its kCec2013RestChunk values row after row (o and P read once per tile).
//  2. The finish pass, a block per row: the row's group values and rest partials in a fixed
//     tree, then f.
// Every sum is the host's (fitness/cec2013/cec2013.hpp) in another order: equal to round-off.
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"
#include "fitness/cec2013/cec2013_instance.hpp"
#include "fitness/device_block_reduce.cuh"
#include "fitness/device_instance_copy.cuh"
#include "fitness/device_reduce.cuh"

namespace chainsaw {

namespace {

constexpr int kItemThreads = 128;   // >= the largest group: a thread per w_i
constexpr int kTileRows = 16;       // rows that share one read of a group's R
constexpr int kFinishThreads = 256;
static_assert(kItemThreads >= kCec2013MaxGroup && kItemThreads % 32 == 0);

// The per-(device, stream) scratch of the item pass's results: concurrent --runs share the
// objective, each on its own stream. It grows to the largest batch a stream evaluates (the
// initial population, first), so that later calls allocate nothing.
class StreamScratch {
 public:
  void* get(DeviceStream stream, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    DeviceBuffer<unsigned char>& buffer = buffers_[stream];
    if (buffer.bytes() < bytes) buffer = DeviceBuffer<unsigned char>(bytes);
    return buffer.data();
  }

 private:
  std::mutex mutex_;
  std::map<DeviceStream, DeviceBuffer<unsigned char>> buffers_;
};

// An instance on one device: o, P, the groups and the rotations transposed (the threads making
// w_i, w_i+1, ... read consecutive elements of a column).
struct DeviceCec2013 {
  DeviceBuffer<double> o;
  DeviceBuffer<std::int32_t> perm;
  DeviceBuffer<Cec2013Group> groups;
  DeviceBuffer<double> rotation[kCec2013Rotations];
  Cec2013View view;
  std::unique_ptr<StreamScratch> scratch = std::make_unique<StreamScratch>();

  explicit DeviceCec2013(const Cec2013Instance& inst)
      : o(upload(inst.o)), perm(upload(inst.perm)), groups(upload(inst.groups)) {
    view = inst.view();
    view.o = o.data();
    view.perm = inst.perm.empty() ? nullptr : perm.data();
    view.groups = groups.data();
    view.transposed = true;
    for (int r = 0; r < kCec2013Rotations; ++r) {
      const int n = cec2013_rotation_size(r);
      std::vector<double> t(inst.rotation[r].size());
      for (std::size_t k = 0; k < t.size(); ++k) t[(k % n) * n + k / n] = inst.rotation[r][k];
      rotation[r] = upload(t);
      view.rotation[r] = inst.rotation[r].empty() ? nullptr : rotation[r].data();
    }
  }
};

DeviceCec2013 copy_to_device(const Cec2013Instance& inst) { return DeviceCec2013(inst); }

// w = R z of the tile's rows for one group of kSize variables, z (gathered) and then w in
// `tile` (row r at tile[r]). Thread t makes w_i, i = t % kSize, of the rows t / kSize,
// t / kSize + kLanes, ...: kRows of them, each R_ij loaded once for all of them, and z_j, z_j+1
// of a row in one 16-byte shared load (a broadcast: the warp's threads share the rows), so that
// the float64 multiply-adds, not the shared loads, set the pace.
template <int kSize>
__device__ void rotate_tile(const Cec2013View& v, const Cec2013Group& g, int rows,
                            double (*tile)[kCec2013MaxGroup]) {
  constexpr int kLanes = kItemThreads / kSize;  // threads that share a w_i
  constexpr int kRows = (kTileRows + kLanes - 1) / kLanes;
  const int t = static_cast<int>(threadIdx.x);
  const int i = t % kSize, first = t / kSize;
  const bool active = first < kLanes;
  double w[kRows];
  CHAINSAW_UNROLL
  for (int q = 0; q < kRows; ++q) w[q] = 0.0;
  if (active) {
    int j = 0;
    for (; j + 1 < kSize; j += 2) {
      const double r0 = v.r(g.rotation, kSize, i, j), r1 = v.r(g.rotation, kSize, i, j + 1);
      CHAINSAW_UNROLL
      for (int q = 0; q < kRows; ++q) {
        const int row = first + q * kLanes;
        if (row < rows) {
          const double2 z = *reinterpret_cast<const double2*>(&tile[row][j]);
          w[q] += r0 * z.x;
          w[q] += r1 * z.y;
        }
      }
    }
    if (kSize % 2 == 1) {  // R25's last column
      const double r0 = v.r(g.rotation, kSize, i, j);
      CHAINSAW_UNROLL
      for (int q = 0; q < kRows; ++q) {
        const int row = first + q * kLanes;
        if (row < rows) w[q] += r0 * tile[row][j];
      }
    }
  }
  __syncthreads();  // every product has read z
  if (active) {
    CHAINSAW_UNROLL
    for (int q = 0; q < kRows; ++q) {
      const int row = first + q * kLanes;
      if (row < rows) tile[row][i] = w[q];
    }
  }
  __syncthreads();
}

// Group `index`'s weighted value for rows [row0, row0 + rows) into values[row * groups + index].
template <class Fn>
__device__ void group_item(const Cec2013View& v, const real_t* genes, Dim pitch, int row0,
                           int rows, int index, double* values) {
  // Rows of kCec2013MaxGroup doubles (800 bytes) keep every even j 16-byte aligned.
  __shared__ alignas(16) double tile[kTileRows][kCec2013MaxGroup];
  const Cec2013Group g = v.groups[index];
  for (int e = threadIdx.x; e < rows * g.size; e += blockDim.x) {
    const int r = e / g.size, k = e % g.size;
    tile[r][k] = Fn::group_z(v, genes + static_cast<Dim>(row0 + r) * pitch, g, k);
  }
  __syncthreads();
  if (g.size == 25) rotate_tile<25>(v, g, rows, tile);
  else if (g.size == 50) rotate_tile<50>(v, g, rows, tile);
  else rotate_tile<100>(v, g, rows, tile);
  // A warp per row: each lane a contiguous run of w, in an ordered shuffle tree.
  using Partial = typename Fn::GroupBase::Partial;
  const int lane = threadIdx.x % 32, warps = blockDim.x / 32;
  const int per = (g.size + 31) / 32;
  const detail::Cec2013Rates rates(g.size);
  for (int r = static_cast<int>(threadIdx.x / 32); r < rows; r += warps) {
    Partial p{};
    for (int i = lane * per; i < lane * per + per && i < g.size; ++i)
      Fn::GroupBase::add(p, tile[r][i], i, rates);
    p = device::warp_reduce_ordered(p);
    if (lane == 0)
      values[static_cast<Dim>(row0 + r) * v.group_count + index] = Fn::group_finish(p, g);
  }
}

// Rest chunk `chunk`'s partial for rows [row0, row0 + rows) into partials[row * chunks + chunk].
template <class Fn>
__device__ void rest_item(const Cec2013View& v, const real_t* genes, Dim pitch, int row0,
                          int rows, Dim chunk, typename Fn::RestPartial* partials) {
  using Partial = typename Fn::RestPartial;
  __shared__ alignas(16) unsigned char storage[kItemThreads * sizeof(Partial)];
  Partial* parts = reinterpret_cast<Partial*>(storage);  // no constructor runs in shared memory
  const Dim begin = chunk * kCec2013RestChunk;
  const Dim end = begin + kCec2013RestChunk < v.rest_length ? begin + kCec2013RestChunk
                                                            : v.rest_length;
  const Dim per = (end - begin + blockDim.x - 1) / blockDim.x;
  const Dim mine = begin + static_cast<Dim>(threadIdx.x) * per;
  const Dim mine_end = mine + per < end ? mine + per : end;
  for (int r = 0; r < rows; ++r) {
    const real_t* x = genes + static_cast<Dim>(row0 + r) * pitch;
    const Partial p = mine < mine_end ? Fn::rest_partial(v, x, mine, mine_end) : Partial{};
    const Partial all = device::block_combine(p, parts);
    if (threadIdx.x == 0) partials[static_cast<Dim>(row0 + r) * v.rest_chunks() + chunk] = all;
  }
}

template <class Fn>
__global__ void __launch_bounds__(kItemThreads)
    cec2013_item_kernel(Cec2013View v, const real_t* genes, Dim pitch, int rows, double* values,
                        typename Fn::RestPartial* partials) {
  const int row0 = static_cast<int>(blockIdx.y) * kTileRows;
  const int tile_rows = rows - row0 < kTileRows ? rows - row0 : kTileRows;
  const auto item = static_cast<Dim>(blockIdx.x);
  if (item < v.group_count)
    group_item<Fn>(v, genes, pitch, row0, tile_rows, static_cast<int>(item), values);
  else
    rest_item<Fn>(v, genes, pitch, row0, tile_rows, item - v.group_count, partials);
}

template <class Fn>
__global__ void __launch_bounds__(kFinishThreads)
    cec2013_finish_kernel(Cec2013View v, const double* values,
                          const typename Fn::RestPartial* partials, double* fitness) {
  using Partial = typename Fn::RestPartial;
  __shared__ alignas(16)
      unsigned char storage[kFinishThreads * (sizeof(SumPartial) + sizeof(Partial))];
  auto* sums = reinterpret_cast<SumPartial*>(storage);  // no constructor runs in shared memory
  auto* parts = reinterpret_cast<Partial*>(storage + kFinishThreads * sizeof(SumPartial));
  const auto row = static_cast<Dim>(blockIdx.x);
  const Dim groups = v.group_count, chunks = v.rest_chunks();
  SumPartial group_sum;
  const device::GeneRange g = device::thread_genes(groups);
  for (Dim k = g.begin; k < g.end; ++k) group_sum.sum += values[row * groups + k];
  Partial rest{};
  const device::GeneRange c = device::thread_genes(chunks);
  for (Dim k = c.begin; k < c.end; ++k) rest = Partial::combine(rest, partials[row * chunks + k]);
  const double total = device::block_combine(group_sum, sums).sum;
  const Partial all = device::block_combine(rest, parts);
  if (threadIdx.x == 0) fitness[row] = Fn::finish(total, all, v.rest_length);
}

void launch(const DeviceCec2013& d, int number, const real_t* genes, Dim pitch, int rows,
            double* fitness, DeviceStream stream) {
  const Cec2013View& v = d.view;
  visit_cec2013(number, [&](auto fn) {
    using Fn = decltype(fn);
    using Partial = typename Fn::RestPartial;
    const std::size_t values = static_cast<std::size_t>(rows) * v.group_count;
    const std::size_t partials = static_cast<std::size_t>(rows) * v.rest_chunks();
    // The group values first, then the rest partials, each aligned for its type.
    const std::size_t offset = (values * sizeof(double) + 255) / 256 * 256;
    auto* scratch = static_cast<unsigned char*>(
        d.scratch->get(stream, offset + partials * sizeof(Partial) + 1));
    auto* group_values = reinterpret_cast<double*>(scratch);
    auto* rest_partials = reinterpret_cast<Partial*>(scratch + offset);
    const dim3 grid(static_cast<unsigned>(v.items()),
                    static_cast<unsigned>((rows + kTileRows - 1) / kTileRows));
    cec2013_item_kernel<Fn><<<grid, kItemThreads, 0, stream>>>(v, genes, pitch, rows,
                                                               group_values, rest_partials);
    CHAINSAW_CUDA_CHECK_LAUNCH();
    cec2013_finish_kernel<Fn><<<static_cast<unsigned>(rows), kFinishThreads, 0, stream>>>(
        v, group_values, rest_partials, fitness);
    CHAINSAW_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

// The instance is copied to each device the first time it evaluates there (a CPU run of a CUDA
// build allocates nothing).
DeviceBatchFn cec2013_device_batch(std::shared_ptr<const Cec2013Instance> instance) {
  const int number = instance->number;
  return device_batch_with_copies(
      std::move(instance), copy_to_device,
      [number](const DeviceCec2013& d, const real_t* genes, Dim pitch, int rows, double* fitness,
               DeviceStream stream) { launch(d, number, genes, pitch, rows, fitness, stream); });
}

}  // namespace chainsaw
