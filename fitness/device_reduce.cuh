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

#include <cstring>
#include <type_traits>

#include "core/types.hpp"
#include "fitness/problem.hpp"
#include "fitness/reduction.hpp"

namespace chainsaw::device {

inline constexpr int kThreads = 256;
inline constexpr int kWarps = kThreads / 32;
// Each lane takes 32 consecutive bytes of a tile as two independent 16-byte loads.
inline constexpr int kLaneBytes = 32;
inline constexpr int kVec = kLaneBytes / static_cast<int>(sizeof(real_t));
inline constexpr int kWarpTile = 32 * kVec;
// An operation may take runs of half as many genes per lane (16 bytes: one load), tiles of
// 32 x kShortLane genes: the Solis-Wets step where a tile per warp leaves SMs idle
// (sw_lane_genes, core/engines/cuda/device_passes.cuh). Its lanes' chains are half as long.
inline constexpr int kShortLane = kVec / 2;

// Row pitch in genes: rows start 128-byte aligned, so 16-byte accesses are always aligned.
inline Dim row_pitch(Dim dim) { return (dim + 31) / 32 * 32; }

// Genes may be laid out in `slices` equal runs of slice_genes (the last one shorter), the
// layout of a sharded run (docs/distributed.md, "On GPUs"): every slice has the same launch
// shape, its own blocks, RNG states and partials, and the partials of all slices are combined
// in slice order.
// One slice is the plain layout. A launch covers the slices [first_slice, first_slice + slices
// in the grid); gene j of the problem sits at j - gene_base in the engine's rows.
struct ReduceShape {
  Dim dim = 0;               // the problem's dimension
  Dim slice_genes = 0;       // genes per slice (a multiple of kWarpTile when there are several)
  int blocks_x = 1;          // blocks per slice and row
  Dim tiles_per_warp = 1;
  int first_slice = 0;       // the launch's first slice (a sharded rank's own)
  Dim gene_base = 0;         // the engine's first gene
  std::size_t rng_stride = 0;  // RNG states from one slice's to the next
  bool deferred = false;     // the rows' results come from finish_rows_kernel, after an exchange

  // Tiles of 32 x lane_genes genes.
  static ReduceShape make(Dim slice_genes, int max_blocks_x, int lane_genes = kVec) {
    ReduceShape s;
    s.dim = s.slice_genes = slice_genes;
    const Dim tile = 32 * static_cast<Dim>(lane_genes);
    const Dim tiles = (slice_genes + tile - 1) / tile;
    const Dim useful_blocks = (tiles + kWarps - 1) / kWarps;
    s.blocks_x = static_cast<int>(useful_blocks < max_blocks_x ? useful_blocks : max_blocks_x);
    if (s.blocks_x < 1) s.blocks_x = 1;
    const Dim warps = static_cast<Dim>(s.blocks_x) * kWarps;
    s.tiles_per_warp = (tiles + warps - 1) / warps;
    return s;
  }
};

// Loads/stores a lane's L genes as 16-byte accesses when the run is whole (always aligned:
// rows have a 32-gene pitch and runs start at multiples of L).
template <int L>
inline constexpr int kAccesses = L * static_cast<int>(sizeof(real_t)) / 16;
template <int L>
__device__ inline void load_genes(const real_t* p, int n, real_t (&out)[L]) {
  static_assert(L * sizeof(real_t) % 16 == 0, "a run is whole 16-byte words");
  if (n == L) {
    uint4 raw[kAccesses<L>];
#pragma unroll
    for (int q = 0; q < kAccesses<L>; ++q) raw[q] = reinterpret_cast<const uint4*>(p)[q];
    memcpy(out, raw, sizeof(raw));
  } else {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) out[k] = p[k];
  }
}
template <int L>
__device__ inline void store_genes(real_t* p, int n, const real_t (&in)[L]) {
  if (n == L) {
    uint4 raw[kAccesses<L>];
    memcpy(raw, in, sizeof(raw));
#pragma unroll
    for (int q = 0; q < kAccesses<L>; ++q) reinterpret_cast<uint4*>(p)[q] = raw[q];
  } else {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) p[k] = in[k];
  }
}

// A built-in function's f from its reduced partial. Every fitness term has a value(p, dim), and
// the kernel hands the term to the operation's finish(): the passes that make and evaluate
// individuals (ssga/device_ops.cuh) are then the same for every function, a user's per-gene
// objective included.
template <class Fn>
__device__ double function_value(const typename Fn::Partial& p, Dim dim) {
  return Fn::finish(p, dim) + Fn::kBias;
}

// Terms: how a produced value (for gene j of the launch's row) enters the partial.
template <class Fn>
struct FitnessTerm {  // the value is a gene; the term is the function's, on z = x - o
  using Partial = typename Fn::Partial;
  static constexpr bool kSliceable = !std::is_same_v<Fn, GenesOnly>;  // not CEC 2010's genes
  Shift shift;
  __device__ double value(const Partial& p, Dim dim) const { return function_value<Fn>(p, dim); }
  // The value is a gene, widened (every operation that pairs with a FitnessTerm produces one).
  __device__ void accumulate(Partial& p, double value, Dim j, int) const {
    if constexpr (!std::is_same_v<Fn, GenesOnly>)  // GenesOnly: the genes are only made
      Fn::accumulate(p, shifted_gene(value, shift, j), j + 1);
  }
};
// A built-in function's term with o read from a device copy of its values (the hash's floats)
// instead of hashed per gene: the evaluation pass of an engine that holds whole individuals
// (core/engines/cuda/cuda_engine.cu). A lane's o comes in 16-byte loads beside its genes' (the copy starts at
// gene 0 and is aligned like a row); z is FitnessTerm's, to the bit. One layout only.
template <class Fn>
struct StoredShiftTerm {
  using Partial = typename Fn::Partial;
  static constexpr bool kSliceable = false;
  const real_t* o = nullptr;
  __device__ double value(const Partial& p, Dim dim) const { return function_value<Fn>(p, dim); }
  template <int L>
  __device__ void accumulate_tile(Partial& p, const double (&v)[L], Dim j0, int n) const {
    real_t o_run[L];
    load_genes(o + j0, n, o_run);
    // A numeric index (Fn::Index double) is converted once per run, i0 + k exactly, not per gene.
    const typename Fn::Index i0 = static_cast<typename Fn::Index>(j0 + 1);
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) Fn::accumulate(p, v[k] - static_cast<double>(o_run[k]), i0 + k);
  }
};
// A built-in function's term with o read from a row of doubles (the Solis-Wets chain kernel's,
// staged in shared memory for a whole application), so that z is FitnessTerm's, to the bit,
// without the hash and its integer chain per gene. The row is laid out lane-interleaved, tile by
// tile of 32 runs of L genes: gene k of a lane's run sits 32 doubles after gene k - 1, so a
// warp's 32 loads of one k are consecutive (a run's genes side by side put 16 lanes on one pair
// of banks). o points at the row's start, gene `first`, a multiple of 32 L: `at` of a gene
// relative to it is the same as in a row from gene 0. A pointer into the row itself, so that the
// compiler addresses it as shared memory.
template <class Fn>
struct RowShiftTerm {
  using Partial = typename Fn::Partial;
  static constexpr bool kSliceable = false;
  const double* o = nullptr;
  Dim first = 0;
  template <int L>
  __host__ __device__ static Dim at(Dim j) {
    constexpr Dim kTile = 32 * L;
    return j / kTile * kTile + j % kTile / L + j % L * 32;
  }
  __device__ double value(const Partial& p, Dim dim) const { return function_value<Fn>(p, dim); }
  template <int L>
  __device__ void accumulate_tile(Partial& p, const double (&v)[L], Dim j0, int n) const {
    const double* const run = o + at<L>(j0 - first);  // j0 starts a run: gene k at run[32 k]
    const typename Fn::Index i0 = static_cast<typename Fn::Index>(j0 + 1);
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) Fn::accumulate(p, v[k] - run[32 * k], i0 + k);
  }
};
// The forms of a fitness term that read o instead of hashing it, where it has them (a built-in
// function's, which makes z): from a row of doubles (Row) or from the engine's device copy
// (Stored). Else both are the term itself.
template <class T>
struct ShiftForms {
  static constexpr bool kAvailable = false;
  using Row = T;
  using Stored = T;
};
template <class Fn>
struct ShiftForms<FitnessTerm<Fn>> {
  static constexpr bool kAvailable = !std::is_same_v<Fn, GenesOnly>;
  using Row = RowShiftTerm<Fn>;
  using Stored = StoredShiftTerm<Fn>;
};
struct SquareTerm {  // the value is a difference; the partial is the sum of squares
  using Partial = SumPartial;
  static constexpr bool kSliceable = true;
  __device__ void accumulate(Partial& p, double value, Dim, int) const { p.sum += value * value; }
};
struct NoTerm {  // element-wise operations that only need the "last block" hook
  using Partial = SumPartial;
  static constexpr bool kSliceable = true;
  __device__ void accumulate(Partial&, double, Dim, int) const {}
};
// Terms that may be laid out in slices say so (kSliceable): the built-in functions' and the
// element-wise ones. The kernels of the others (CEC 2010 groups, users' objectives) are never
// instantiated for slices.
template <class Term, class = void>
struct Sliceable : std::false_type {};
template <class Term>
struct Sliceable<Term, std::void_t<decltype(Term::kSliceable)>>
    : std::bool_constant<Term::kSliceable> {};

// A lane's n values v (genes j0..) into its partial, in gene order: by the term's
// accumulate_tile when it has one (a lane's run at once), else value by value.
template <class Term, class = void>
struct TakesTiles : std::false_type {};
template <class Term>
struct TakesTiles<Term, std::void_t<decltype(&Term::template accumulate_tile<kVec>)>>
    : std::true_type {};
template <class Term, class Partial, int L>
__device__ void accumulate_lane(const Term& term, Partial& p, const double (&v)[L], Dim j0,
                                int n, int row) {
  if constexpr (TakesTiles<Term>::value) {
    term.accumulate_tile(p, v, j0, n);
  } else {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) term.accumulate(p, v[k], j0 + k, row);
  }
}

// K rows reduced in one sweep, each keeping its own partial, combined in the same tree as
// alone: the Solis-Wets step's forward and backward candidates (a pair: they share their loads
// and normals), NAM's distances of a child's mother to its candidates (the mother read once).
template <class P, int K>
struct PartialSet {
  static constexpr bool kOrdered = P::kOrdered;
  P part[K]{};
  __device__ static PartialSet combine(const PartialSet& a, const PartialSet& b) {
    PartialSet r;
    #pragma unroll
    for (int k = 0; k < K; ++k) r.part[k] = P::combine(a.part[k], b.part[k]);
    return r;
  }
};
template <class Term, int K>
struct TermSet {
  using Partial = PartialSet<typename Term::Partial, K>;
  static constexpr bool kSliceable = Sliceable<Term>::value;
  Term term;
};
template <class P>
using PairPartial = PartialSet<P, 2>;
template <class Term>
using PairTerm = TermSet<Term, 2>;
// The genes of a lane's run of an operation's: kVec unless it declares kLaneGenes (kShortLane).
template <class Op, class = void>
struct LaneGenes : std::integral_constant<int, kVec> {};
template <class Op>
struct LaneGenes<Op, std::void_t<decltype(Op::kLaneGenes)>>
    : std::integral_constant<int, Op::kLaneGenes> {};
// The values an operation produces per lane: one candidate's (double[L]) unless it declares
// Values (TermSet's operations: double[K][L]). Holding them as stored genes (real_t) instead
// took registers off the one-pass Solis-Wets kernel but made the 10^6-D Rastrigin run slower
// (bench/results/2026-11-24-h100-solis-wets).
template <class Op, class = void>
struct OpValues {
  using type = double[LaneGenes<Op>::value];
};
template <class Op>
struct OpValues<Op, std::void_t<typename Op::Values>> {
  using type = typename Op::Values;
};
template <class Term, class Partial, int K, int L>
__device__ void accumulate_lane(const TermSet<Term, K>& set, PartialSet<Partial, K>& p,
                                const double (&v)[K][L], Dim j0, int n, int row) {
  #pragma unroll
  for (int k = 0; k < K; ++k) accumulate_lane(set.term, p.part[k], v[k], j0, n, row);
}

template <class Partial>
__device__ Partial shuffle_down(const Partial& p, int offset) {
  static_assert(sizeof(Partial) % sizeof(double) == 0, "partials are made of doubles");
  constexpr int n = sizeof(Partial) / sizeof(double);
  Partial r;
  const double* src = reinterpret_cast<const double*>(&p);
  double* dst = reinterpret_cast<double*>(&r);
#pragma unroll
  for (int i = 0; i < n; ++i) dst[i] = __shfl_down_sync(0xffffffffu, src[i], offset);
  return r;
}

// Ordered warp reduction: after the step of width w, lane i (i % 2w == 0) holds lanes
// [i, i + 2w) combined left to right. Lane 0 ends with the whole warp; with kLanes < 32, each
// lane that is a multiple of kLanes with its kLanes lanes (the first steps of the same tree).
template <int kLanes = 32, class Partial>
__device__ Partial warp_reduce_ordered(Partial p) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int w = 1; w < kLanes; w *= 2) {
    const Partial other = shuffle_down(p, w);
    if ((lane & (2 * w - 1)) == 0) p = Partial::combine(p, other);
  }
  return p;
}

// Combines items(0..count) in order with the whole block; the result is valid in thread 0.
// kPaired: a block of kThreads or twice as many (the Solis-Wets chain kernel's paired blocks)
// reduces in each kThreads apart, as blocks of their own would, each its own `items` and
// `count`, the result valid in each one's first thread; warp_scratch then holds a slot per warp
// of the block. Only there: the other kernels keep the registers, and so the launch shapes and
// bits, that they have without it.
template <bool kPaired = false, class Partial, class Items>
__device__ Partial block_reduce_ordered(const Items& items, int count, Partial* warp_scratch) {
  const int thread = kPaired ? static_cast<int>(threadIdx.x % kThreads) : threadIdx.x;
  const int per_thread = (count + kThreads - 1) / kThreads;
  const int begin = thread * per_thread;
  Partial p{};
  for (int i = begin; i < begin + per_thread && i < count; ++i)
    p = i == begin ? items(i) : Partial::combine(p, items(i));
  p = warp_reduce_ordered(p);
  if ((threadIdx.x & 31) == 0) warp_scratch[threadIdx.x / 32] = p;
  __syncthreads();
  if (thread == 0) {
    const Partial* const own = kPaired ? warp_scratch + threadIdx.x / 32 : warp_scratch;
    p = own[0];
    for (int w = 1; w < kWarps; ++w) p = Partial::combine(p, own[w]);
  }
  return p;
}
template <class Partial>
struct ContiguousItems {
  const Partial* items;
  __device__ Partial operator()(int i) const { return items[i]; }
};
// Row `row`'s partials in an all-gather of every rank's rows x blocks_x partials: rank-major,
// so item i is block i % blocks_x of rank i / blocks_x, the order of the slices.
template <class Partial>
struct GatheredItems {
  const Partial* gathered;
  int rows, row, blocks_x;
  __device__ Partial operator()(int i) const {
    const int rank = i / blocks_x;
    return gathered[(static_cast<std::size_t>(rank) * rows + row) * blocks_x + (i - rank * blocks_x)];
  }
};


// What a launch's blocks hold, compiled into the kernel: the plain layout (one slice, the
// least registers, so a run of one slice keeps its launch shapes and speed), one slice of
// several (a sharded rank: no more than a start gene and a deferred finish on top), or several
// slices (one GPU running a sharded run's layout). The two sliced kinds take their launch
// shapes from the one-slice kernel (core/engines/cuda/device_passes.cuh), so that they reduce alike.
enum RowsLayout : int { kWholeRows = 0, kOneSlice = 1, kSeveralSlices = 2 };

// Programmatic dependent launch (Hopper; core/engines/cuda/device_passes.cuh launches with it): a launch may
// be scheduled onto the SMs while the stream's previous kernel drains. It must wait for that
// kernel to finish, and its writes to show, before it reads or writes anything; then it lets
// the stream's next launch be scheduled in turn. Without the launch attribute, or before sm_90,
// both are no-ops.
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

  if constexpr (std::is_same_v<Term, NoTerm>) {  // element-wise: no partials, only the last
                                                 // block's hook, once the others are done
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      if (atomicAdd(&tickets[row], 1u) == row_blocks - 1) {
        __threadfence();
        tickets[row] = 0;  // ready for the next launch
        op.finish(row, term, Partial{});
      }
    }
    return;
  }
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
