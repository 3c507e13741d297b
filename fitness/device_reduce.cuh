// The GPU's bucketed, coalesced reduction (Lastra et al. 2014 §5.1), generic over what is reduced.
//
// Layout: a 2-D grid, y = row of the batch (a child, a distance pair...), x = blocks over the
// genes. Genes are cut into warp tiles of 32 x kVec genes; each lane takes kVec consecutive genes
// of a tile (one 16-byte access, consecutive across the warp: fully coalesced). Each warp owns a
// contiguous run of tiles and blocks own contiguous runs of warps, so every level of the tree
// combines neighbouring gene ranges in index order: exact for non-commutative partials
// (Schwefel 1.2's prefix) and, with no floating-point atomics, bit-reproducible run after run.
// The last block of a row to finish (an atomic ticket) combines the block partials in order
// and hands the row's result to the operation: no second kernel launch.
//
// An operation (Op) supplies:  bool active() const  (false: the launch is a no-op, read by all
// blocks before any of them changes state), kUsesRng and stores_rng() (each thread loads its
// cuRAND state from rng_in and, if asked, stores the advanced one to rng_out),
// produce(row, j0, n, v, rng) filling v[0..n) with
// the values to reduce for genes j0..j0+n (and writing whatever genes it makes), and
// finish(row, term, partial) run by one thread once the row is reduced. It may also have
// prepare_row(row), run on a copy of it before the previous grid is awaited: it may read only
// what no kernel writes (inputs the host staged before the launch).
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <type_traits>

#include "core/types.hpp"
#include "fitness/device_genes.cuh"
#include "fitness/device_ordered_reduce.cuh"
#include "fitness/device_terms.cuh"
#include "fitness/reduce_shape.hpp"

namespace chainsaw::device {

// Programmatic dependent launch (Hopper; core/engines/cuda/reduce_launch.cuh launches with it,
// as ReducePolicy asks): a launch may be scheduled onto the SMs while the stream's previous
// kernel drains. It must wait for that kernel to finish, and its writes to show, before it reads
// or writes anything; then it lets the stream's next launch be scheduled in turn. Without the
// launch attribute, or before sm_90, both are no-ops.
__device__ inline void await_previous_grid_and_release_next() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Operations whose lanes' chains are long say kSplitsWholeRuns: reduce_warp_tiles takes a whole
// run (n == L, every run but the row's last) with n a constant, so that the guards of the
// unrolled per-gene loops fold away instead of costing a branch per gene and loop. Only where a
// lane's partial is one double per candidate: the second copy of the loops takes registers, and
// Griewank's kernel (a sum and a product per candidate) then spilled and ran slower.
// Measured: bench/results/2026-11-28-h100-sw-staged-genes.
template <class Op, class = void>
struct SplitsWholeRuns : std::false_type {};
template <class Op>
struct SplitsWholeRuns<Op, std::void_t<decltype(Op::kSplitsWholeRuns)>>
    : std::bool_constant<Op::kSplitsWholeRuns> {};

template <class Op, class = void>
struct PreparesRow : std::false_type {};
template <class Op>
struct PreparesRow<Op, std::void_t<decltype(&Op::prepare_row)>> : std::true_type {};

// A warp's run of tiles [first_tile, end_tile) of row `row`: each lane produces its L values
// of a tile (L = LaneGenes<Op>) and they enter the partial in gene order. The result is the warp's partial, in lane
// 0. Genes [mem_first, mem_end) of the engine's rows are the problem's from gene_base on.
template <class Term, class Op>
__device__ __forceinline__ typename Term::Partial reduce_warp_tiles(
    const Op& op, const Term& term, int row, Dim first_tile, Dim end_tile, Dim mem_first,
    Dim mem_end, Dim gene_base, curandState& rng) {
  using Partial = typename Term::Partial;
  constexpr int L = LaneGenes<Op>::value;
  const int lane = threadIdx.x & 31;
  Partial lane_partial{};  // unordered: this lane's own sum
  // Whole runs apart where the partial is at most one double per value a gene gives.
  constexpr std::size_t kValuesPerGene =
      sizeof(typename OpValues<Op>::type) / (sizeof(double) * L);
  constexpr bool kSplit =
      SplitsWholeRuns<Op>::value && sizeof(Partial) <= kValuesPerGene * sizeof(double);
  if constexpr (kSplit) {
    static_assert(!Partial::kOrdered, "an ordered partial is more than a double a value");
    // The runs the loop below visits, in the same order, counted in ints: the lane's runs are
    // whole up to `whole`, the next one (the row's end) may hold fewer genes, and the run's
    // place advances a tile at a time, without the 64-bit index and length of the loop below
    // (bench/results/2026-11-29-h200-sw-pass-instructions).
    const int runs = end_tile > first_tile ? static_cast<int>(end_tile - first_tile) : 0;
    Dim jm = mem_first + first_tile * (32 * L) + static_cast<Dim>(lane) * L;  // in the rows
    const Dim left = mem_end - jm;  // genes from the lane's first run on
    const Dim whole_runs = left < L ? 0 : (left - L) / (32 * L) + 1;
    const int whole = static_cast<int>(whole_runs < runs ? whole_runs : runs);
    const Dim tail_left = left - static_cast<Dim>(whole) * (32 * L);
    const int tail = whole < runs && tail_left > 0 ? static_cast<int>(tail_left) : 0;  // < L
    // Counted down: a counter up to `whole` held one more register, and the kernel spilled.
    for (int k = whole; k > 0; --k, jm += 32 * L) {
      typename OpValues<Op>::type v;
      op.produce(row, jm, L, v, rng);
      accumulate_lane(term, lane_partial, v, jm + gene_base, L, row);
    }
    if (tail > 0) {
      typename OpValues<Op>::type v;
      op.produce(row, jm, tail, v, rng);
      accumulate_lane(term, lane_partial, v, jm + gene_base, tail, row);
    }
    return warp_reduce_ordered(lane_partial);
  } else {
    Partial warp_partial{};  // ordered: the running combination of this warp's tiles (lane 0)
    for (Dim tile = first_tile; tile < end_tile; ++tile) {
      const Dim jm = mem_first + tile * (32 * L) + static_cast<Dim>(lane) * L;  // in the rows
      const Dim j0 = jm + gene_base;  // the problem's gene index: the term's
      typename OpValues<Op>::type v;
      const Dim left = mem_end - jm;
      const int n = left >= L ? L : (left > 0 ? static_cast<int>(left) : 0);
      if (n > 0) op.produce(row, jm, n, v, rng);
      if constexpr (Partial::kOrdered) {
        Partial tile_partial{};
        accumulate_lane(term, tile_partial, v, j0, n, row);
        tile_partial = warp_reduce_ordered(tile_partial);
        if (lane == 0)
          warp_partial =
              tile == first_tile ? tile_partial : Partial::combine(warp_partial, tile_partial);
      } else {
        accumulate_lane(term, lane_partial, v, j0, n, row);
      }
    }
    if constexpr (!Partial::kOrdered) warp_partial = warp_reduce_ordered(lane_partial);
    return warp_partial;
  }
}

// The lane's runs of L genes of a warp's tiles, as reduce_warp_tiles visits them (one row,
// genes [0, dim)): visit(j0, n) for each run that holds genes.
template <int L, class Visit>
__device__ __forceinline__ void for_lane_runs(Dim first_tile, Dim end_tile, Dim dim,
                                              const Visit& visit) {
  const int lane = threadIdx.x & 31;
  for (Dim tile = first_tile; tile < end_tile; ++tile) {
    const Dim j0 = tile * (32 * L) + static_cast<Dim>(lane) * L;
    const Dim left = dim - j0;
    if (left > 0) visit(j0, left >= L ? L : static_cast<int>(left));
  }
}

// Op::prepare_block(first_state) runs in every thread of a block, after the previous grid and
// before the block's runs; first_state indexes the block's first XORWOW state.
template <class Op, class = void>
struct PreparesBlock : std::false_type {};
template <class Op>
struct PreparesBlock<Op, std::void_t<decltype(&Op::prepare_block)>> : std::true_type {};
// Operations whose rows read the same vectors (NAM's distance pairs) say kInterleavesRows: the
// grid holds every row's block of a gene range next to each other, so the blocks that read a
// range of the same vector run in the same wave and share its lines in L2. Only the order in
// which blocks start changes: each row is reduced in the same tree, to the same bits.
template <class Op, class = void>
struct InterleavesRows : std::false_type {};
template <class Op>
struct InterleavesRows<Op, std::void_t<decltype(Op::kInterleavesRows)>>
    : std::bool_constant<Op::kInterleavesRows> {};
// Operations whose launches are short and hold few genes per thread say kStagesRng: the block's
// XORWOW states pass through shared memory, read and written as whole contiguous lines, where a
// thread's own 48-byte state would take a partial sector per field.
template <class Op, class = void>
struct StagesRng : std::false_type {};
template <class Op>
struct StagesRng<Op, std::void_t<decltype(Op::kStagesRng)>> : std::bool_constant<Op::kStagesRng> {};
static_assert(sizeof(curandState) % sizeof(uint4) == 0, "states copy as 16-byte words");
// A block's array of staged states: array `kArray` of operation Op's kernels (only kernels that
// stage states declare one).
template <class Op, int kArray = 0>
__device__ curandState* staged_states() {
  __shared__ curandState states[kThreads];
  return states;
}
// Copies a block's kThreads states, contiguous at `from`, to `to`.
__device__ inline void copy_block_states(const curandState* from, curandState* to) {
  constexpr int kWords = kThreads * static_cast<int>(sizeof(curandState) / sizeof(uint4));
  const uint4* src = reinterpret_cast<const uint4*>(from);
  uint4* dst = reinterpret_cast<uint4*>(to);
  for (int i = threadIdx.x; i < kWords; i += kThreads) dst[i] = src[i];
}

// The advanced state to rng_out, where the operation asks for it.
template <class Op>
__device__ __forceinline__ void store_thread_rng(const Op& op, curandState* staged_rng,
                                                 const curandState& rng, curandState* rng_out,
                                                 std::size_t thread_id) {
  constexpr bool kStaged = Op::kUsesRng && StagesRng<Op>::value;
  if constexpr (kStaged) {
    if (op.stores_rng()) {
      __syncthreads();  // every thread is done with its runs and its state
      staged_rng[threadIdx.x] = rng;
      __syncthreads();
      copy_block_states(staged_rng, rng_out + (thread_id - threadIdx.x));
    }
  } else if (Op::kUsesRng && op.stores_rng()) {
    rng_out[thread_id] = rng;
  }
}

// Element-wise operations: no partials, only the last block's hook, once the others are done.
template <class Term, class Op>
__device__ __forceinline__ void finish_element_wise(const Op& op, const Term& term,
                                                    unsigned* tickets, int row,
                                                    unsigned row_blocks) {
  using Partial = typename Term::Partial;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&tickets[row], 1u) == row_blocks - 1) {
      __threadfence();
      tickets[row] = 0;  // ready for the next launch
      op.finish(row, term, Partial{});
    }
  }
}

template <class Term, class Op, int kLayout = kWholeRows>
__global__ void __launch_bounds__(kThreads)
    produce_reduce_kernel(Op op, Term term, ReduceShape shape, const curandState* rng_in,
                          curandState* rng_out, typename Term::Partial* block_partials,
                          unsigned* tickets) {
  using Partial = typename Term::Partial;
  // The grid: y = row, x = the row's blocks; or, where the operation interleaves its rows and
  // the launch asks for it, x = block * rows + row and y = 1 (launch_reduce).
  constexpr bool kInterleaved = InterleavesRows<Op>::value && kLayout == kWholeRows;
  const unsigned row_blocks = kInterleaved ? static_cast<unsigned>(shape.blocks_x) : gridDim.x;
  const unsigned x_rows = kInterleaved ? gridDim.x / row_blocks : 1;  // rows interleaved in x
  const int row = static_cast<int>(blockIdx.y + (kInterleaved ? blockIdx.x % x_rows : 0));
  const unsigned row_block = kInterleaved ? blockIdx.x / x_rows : blockIdx.x;
  Op row_op = op;  // the operation; with its row's inputs, where it prepares them early
  if constexpr (PreparesRow<Op>::value) row_op.prepare_row(row);
  await_previous_grid_and_release_next();
  if (!op.active()) return;

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  constexpr bool kSliced = kLayout != kWholeRows;
  constexpr bool kSeveral = kLayout == kSeveralSlices;
  // The grid holds the blocks of its slices one after the other.
  const int local_slice = kSeveral ? static_cast<int>(row_block) / shape.blocks_x : 0;
  const int block = static_cast<int>(row_block) - local_slice * shape.blocks_x;
  // The slice's genes sit at [mem_first, mem_end) of the engine's rows; the problem's gene j
  // at j - gene_base (a sharded rank holds one slice, a single engine all from gene 0).
  const Dim slice_first =
      kSliced ? static_cast<Dim>(shape.first_slice + local_slice) * shape.slice_genes : 0;
  const Dim gene_base = kSliced ? shape.gene_base : 0;
  const Dim mem_first = kSeveral ? slice_first - gene_base : 0;
  const Dim mem_end = !kSliced ? shape.dim
                      : shape.dim - slice_first < shape.slice_genes ? shape.dim - gene_base
                                                                    : mem_first + shape.slice_genes;
  const std::size_t thread_id =
      kSeveral ? local_slice * shape.rng_stride +
                    (static_cast<std::size_t>(row) * shape.blocks_x + block) * kThreads + threadIdx.x
              : (static_cast<std::size_t>(row) * row_blocks + row_block) * kThreads + threadIdx.x;
  curandState rng;
  constexpr bool kStaged = Op::kUsesRng && StagesRng<Op>::value;
  curandState* staged_rng = nullptr;
  if constexpr (kStaged) {
    staged_rng = staged_states<Op>();  // a block's states are contiguous in every layout
    copy_block_states(rng_in + (thread_id - threadIdx.x), staged_rng);
    __syncthreads();
    rng = staged_rng[threadIdx.x];
  } else if (Op::kUsesRng) {
    rng = rng_in[thread_id];
  }
  if constexpr (PreparesBlock<Op>::value) row_op.prepare_block(thread_id - threadIdx.x);

  constexpr Dim kTile = 32 * LaneGenes<Op>::value;
  const Dim tiles = (mem_end - mem_first + kTile - 1) / kTile;
  const Dim first_tile = (static_cast<Dim>(block) * kWarps + warp) * shape.tiles_per_warp;
  Dim end_tile = first_tile + shape.tiles_per_warp;
  if (end_tile > tiles) end_tile = tiles;

  Partial warp_partial = reduce_warp_tiles(row_op, term, row, first_tile, end_tile, mem_first,
                                           mem_end, gene_base, rng);
  store_thread_rng(op, staged_rng, rng, rng_out, thread_id);
  if constexpr (std::is_same_v<Term, NoTerm>) {
    finish_element_wise(op, term, tickets, row, row_blocks);
    return;
  }
  // The block's partial, published; the last block of the row (a ticket) combines them all in
  // order and hands the row's total to the operation. Deferred rows are finished after an
  // exchange.
  __shared__ Partial warp_results[kWarps];
  __shared__ Partial scratch[kWarps];
  __shared__ bool is_last;
  if (lane == 0) warp_results[warp] = warp_partial;
  __syncthreads();
  Partial block_partial =
      block_reduce_ordered(ContiguousItems<Partial>{warp_results}, kWarps, scratch);
  Partial* row_partials = block_partials + static_cast<std::size_t>(row) * row_blocks;
  if constexpr (kSliced) {
    if (shape.deferred) {  // the rows are finished once every rank's partials are here
      if (threadIdx.x == 0) row_partials[row_block] = block_partial;
      return;
    }
  }
  if (threadIdx.x == 0) {
    row_partials[row_block] = block_partial;
    __threadfence();  // publish the partial before taking a ticket
    is_last = atomicAdd(&tickets[row], 1u) == row_blocks - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();  // see every other block's partial
  __syncthreads();
  const Partial total = block_reduce_ordered(ContiguousItems<Partial>{row_partials},
                                             static_cast<int>(row_blocks), scratch);
  if (threadIdx.x == 0) {
    tickets[row] = 0;  // ready for the next launch
    op.finish(row, term, total);
  }
}

// A sharded launch's second half: `gathered` holds every rank's rows x blocks_x partials, rank
// after rank (an all-gather of the deferred launches' partials). Each block combines one row's
// partials in slice order, as the last block of a one-GPU launch over all slices does.
template <class Term, class Op>
__global__ void __launch_bounds__(kThreads)
    finish_rows_kernel(Op op, Term term, int ranks, int rows, int blocks_x,
                       const typename Term::Partial* gathered) {
  using Partial = typename Term::Partial;
  if (!op.active()) return;
  const int row = blockIdx.x;
  const GatheredItems<Partial> items{gathered, rows, row, blocks_x};
  __shared__ Partial scratch[kWarps];
  const Partial total = block_reduce_ordered(items, ranks * blocks_x, scratch);
  if (threadIdx.x == 0) op.finish(row, term, total);
}

}  // namespace chainsaw::device
