// The GPU passes that make individuals and evaluate them in the same sweep (seed 003 §5), for one
// fitness function: random initial genes, a crossover batch, a stored individual's evaluation and
// the Solis-Wets moves. CudaEngine holds them behind FusedPasses, so that the passes of a user's
// per-gene objective, instantiated in the user's nvcc translation unit
// (include/chainsaw/device_objective.cuh), run in the engine exactly as the built-in functions'
// do: the same kernels, launch shapes and reduction trees. A user objective identical to a
// built-in function therefore gives bit-identical runs on the GPU too.
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>

#include "core/gpu/cuda_check.hpp"
#include "core/distributed/device_collective.hpp"
#include "core/engines/engine.hpp"
#include "core/error.hpp"
#include "fitness/device_reduce.cuh"
#include "localsearch/device_solis_wets.cuh"
#include "ssga/device_ops.cuh"

namespace chainsaw::device {

// How many rows of a launch share the GPU: a single row takes every SM, a batch spreads its
// `batch` rows over them (more rows run as further waves).
enum class Spread { kOneRow, kBatch };

// What a pass needs of the engine: the device, its buffers and the problem's shape.
struct PassContext {
  cudaStream_t stream = nullptr;
  int sm_count = 1;
  int batch = 1;     // the rows a batched launch spreads over
  int max_rows = 1;  // the most rows any launch may have (partials and tickets are sized for it)
  Dim dim = 0;    // the problem's
  Dim pitch = 0;  // of the engine's rows
  // The slices of the genes' layout (fitness/device_reduce.cuh, ReduceShape): the engine holds
  // `slices` of them from first_slice on, its rows starting at gene gene_base. A sharded rank
  // holds one; collective (null unless sharded) brings every rank's partials into `gathered`.
  Dim slice_genes = 0;
  int slices = 1;
  int first_slice = 0;
  Dim gene_base = 0;
  std::size_t rng_stride = 0;
  DeviceCollective* collective = nullptr;
  void* gathered = nullptr;
  // The run has several slices or ranks: launches take the sliced kernels.
  bool sliced() const { return slices > 1 || collective != nullptr; }
  double lower = 0.0, upper = 0.0;
  double blx_alpha = 0.0;
  real_t* genes = nullptr;        // capacity x pitch
  double* slot_fitness = nullptr;  // per slot
  double* row_out = nullptr;       // per row of the last launch, read back by the host
  curandState* rng = nullptr;      // one XORWOW state per thread of the largest launch
  void* partials = nullptr;        // block partials: max_rows x blocks of the largest partial
  unsigned* tickets = nullptr;     // per row, zero between launches
  SwDeviceState* sw_state = nullptr;
  // Genes per lane's run of a Solis-Wets step (SwBothMovesOp, SwApplyOp, the chain kernel):
  // kVec or kShortLane (sw_lane_genes).
  int sw_lane_genes = kVec;
  // The Solis-Wets chain kernel stages each block's genes in shared memory where they fit beside
  // its grid (sw_chain_kernel); false: the steps move x and the bias in memory (the same bits).
  bool sw_stages_genes = true;
  // Where it keeps dif, it stages the dif too where that fits; false: the dif stays in its row
  // in memory (the same bits).
  bool sw_stages_dif = true;
  // Where it stages the genes and the dif, a built-in function's chain kernel stages o too, as
  // doubles, where that still fits beside its grid (up to 1,081,344 float genes on 132 SMs);
  // else, where it keeps dif, it reads o from the engine's device copy
  // (sw_reads_stored_shift, StoredShiftTerm); else it hashes o per gene, as every other pass
  // does. The same bits every way.
  bool sw_stages_shift = true;
  bool sw_reads_stored_shift = true;
  // Its launch pairs blocks where the shape allows it (sw_chain_pairs_blocks); false: blocks
  // of kThreads (the same bits).
  bool sw_pairs_blocks = true;
  // Where it keeps dif and x and the bias stay in memory, the three rows take at most a quarter
  // of L2; else it draws dif again, for the row would push x and the bias out of L2
  // (keeps_sw_dif in core/engines/cuda/cuda_engine.cu).
  bool sw_dif_beside_genes_in_l2 = true;
  // Launches whose operation interleaves its rows (kInterleavesRows) start them gene range by
  // gene range; false: row after row (the same bits).
  bool interleave_rows = true;
  unsigned long long* invalid = nullptr;  // user objectives: NaN and -inf values are counted
  // The evaluation pass's o in a persisting L2 window (core/engines/cuda/cuda_engine.cu); num_bytes 0: none.
  cudaAccessPolicyWindow shift_window{};
};

// Blocks of this kernel that fit on one SM (registers, shared memory), asked of the driver once
// per kernel.
template <class Term, class Op, int kLayout = kWholeRows>
int blocks_per_sm() {
  static const int blocks = [] {
    int n = 0;
    CHAINSAW_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &n, produce_reduce_kernel<Term, Op, kLayout>, kThreads, 0));
    return std::max(1, n);
  }();
  return blocks;
}
// The blocks per SM that shape a launch in context `c`: a sliced layout's are those of the
// one-slice kernel (a sharded rank's), also when one GPU runs several slices, so that both
// cut the genes alike and give the same run.
template <class Term, class Op>
int blocks_per_sm(const PassContext& c) {
  if constexpr (Sliceable<Term>::value) {
    if (c.sliced()) return blocks_per_sm<Term, Op, kOneSlice>();
  }
  return blocks_per_sm<Term, Op, kWholeRows>();
}

// Genes per lane's run of the Solis-Wets step of a problem of `dim` genes: kShortLane where
// one tile per warp of runs that short needs no more than two blocks per SM (the chain kernel's
// co-resident grid), else kVec. A step is bound by the latency of one lane's run; at kVec a
// 10^5-D step fills 49 of the H100's 132 SMs, at kShortLane 98 with half as long a chain per
// lane (local search 1.06 -> 0.74 s for Rastrigin). Where the grid is full anyway a warp takes
// several tiles, and the longer runs keep more independent work per lane (at 10^6-D short runs
// took 2.46 -> 3.37 s). Measured: docs/performance.md.
inline int sw_lane_genes(Dim dim, int sm_count) {
  const Dim short_tiles_per_block = static_cast<Dim>(kWarps) * 32 * kShortLane;
  const Dim blocks = (dim + short_tiles_per_block - 1) / short_tiles_per_block;
  return blocks <= 2 * static_cast<Dim>(sm_count) ? kShortLane : kVec;
}
// f(std::integral_constant<int, L>) for the context's Solis-Wets lane width L: the operations of
// a step are instantiated for both widths and picked here.
template <class F>
auto with_sw_lane(const PassContext& c, const F& f) {
  if (c.sw_lane_genes == kShortLane) return f(std::integral_constant<int, kShortLane>{});
  CHAINSAW_EXPECTS(c.sw_lane_genes == kVec, "a Solis-Wets lane takes kVec or kShortLane genes");
  return f(std::integral_constant<int, kVec>{});
}

// Whether the environment variable `name` holds `value`: the switches below, which turn an
// optimisation off to measure what it saves, each read once.
inline bool environment_says(const char* name, const char* value) {
  const char* env = std::getenv(name);
  return env != nullptr && std::string(env) == value;
}

// Programmatic dependent launch: each reduction is scheduled onto the SMs while the stream's
// previous kernel drains, and waits on the device for it to finish (fitness/device_reduce.cuh),
// which hides most of a launch's fixed cost; the bits of a run do not change. CHAINSAW_PDL=0 in
// the environment launches plainly, to measure what it saves.
inline bool programmatic_launch_wanted() {
  static const bool wanted = !environment_says("CHAINSAW_PDL", "0");
  return wanted;
}

// A Solis-Wets step evaluates both moves in one pass (SwBothMovesOp) unless CHAINSAW_SW_MOVES=
// separate in the environment asks for a launch per move and a bias pass per failure, the form
// that functions evaluated apart keep: to measure what the one pass saves. The separate moves
// take whole lanes (kVec), so where the one pass takes short ones the run's bits differ.
inline bool sw_both_moves_wanted() {
  static const bool wanted = !environment_says("CHAINSAW_SW_MOVES", "separate");
  return wanted;
}

// A Solis-Wets application of a function evaluated as it is made runs in one cooperative
// launch (sw_chain_kernel), and one on a user objective given as a CUDA graph as one graph
// launch, unless CHAINSAW_SW_LAUNCH=steps in the environment asks for launches per step: to
// measure what the one launch saves.
inline bool sw_chain_wanted() {
  static const bool wanted = !environment_says("CHAINSAW_SW_LAUNCH", "steps");
  return wanted;
}

// The Solis-Wets chain kernel stages its blocks' genes in shared memory where they fit
// (PassContext::sw_stages_genes) unless CHAINSAW_SW_STAGE=off in the environment asks for the
// steps to move x and the bias in memory, its kept dif beside them
// (PassContext::sw_stages_dif) unless CHAINSAW_SW_STAGE=genes asks for the dif row in memory,
// and o beside those (PassContext::sw_stages_shift) unless CHAINSAW_SW_SHIFT=stored asks for
// o from the engine's device copy (PassContext::sw_reads_stored_shift) or =hash for o hashed
// per gene: the same bits, to measure what the staging saves.
inline bool sw_staged_genes_wanted() {
  static const bool wanted = !environment_says("CHAINSAW_SW_STAGE", "off");
  return wanted;
}
inline bool sw_staged_shift_wanted() {
  static const bool wanted = sw_staged_genes_wanted() &&
                             !environment_says("CHAINSAW_SW_SHIFT", "hash") &&
                             !environment_says("CHAINSAW_SW_SHIFT", "stored");
  return wanted;
}
inline bool sw_stored_shift_wanted() {
  static const bool wanted = !environment_says("CHAINSAW_SW_SHIFT", "hash");
  return wanted;
}
inline bool sw_staged_dif_wanted() {
  static const bool wanted = sw_staged_genes_wanted() &&
                             !environment_says("CHAINSAW_SW_STAGE", "genes");
  return wanted;
}

// The Solis-Wets chain kernel pairs its blocks where it may (PassContext::sw_pairs_blocks)
// unless CHAINSAW_SW_BLOCKS=single in the environment asks for blocks of kThreads: the same
// bits, to measure what the pairs save.
inline bool sw_paired_blocks_wanted() {
  static const bool wanted = !environment_says("CHAINSAW_SW_BLOCKS", "single");
  return wanted;
}

// The rows of a launch whose operation interleaves them (kInterleavesRows: NAM's distance pairs)
// start gene range by gene range unless CHAINSAW_INTERLEAVE=0 in the environment asks for row
// after row (PassContext::interleave_rows): the same bits either way, to measure what the
// shared L2 lines save.
inline bool rows_interleaved_wanted() {
  static const bool wanted = !environment_says("CHAINSAW_INTERLEAVE", "0");
  return wanted;
}

// NAM's distances of a fused batch take a row per child, the mother read once for her
// candidates (NamDistancesOp, up to kNamRowCandidates of them), unless
// CHAINSAW_NAM_DISTANCES=pairs in the environment asks for a row per pair (DistanceOp): the
// same fathers, to measure what the rows per child save.
inline constexpr int kNamRowCandidates = 4;
inline bool nam_child_rows_wanted() {
  static const bool wanted = !environment_says("CHAINSAW_NAM_DISTANCES", "pairs");
  return wanted;
}

// A NAM batch of a plain run is one CUDA graph unless CHAINSAW_BATCH_GRAPHS=off in the
// environment asks for its copies and kernels one by one: to measure what the graph saves.
inline bool batch_graphs_wanted() {
  static const bool wanted = !environment_says("CHAINSAW_BATCH_GRAPHS", "off");
  return wanted;
}

template <class Term, class Op>
struct ReduceKernel {
  void (*function)(Op, Term, ReduceShape, const curandState*, curandState*,
                   typename Term::Partial*, unsigned*);
  bool programmatic;  // the kernel awaits the previous grid: it may be launched programmatically
};

template <class Term, class Op, int kLayout>
ReduceKernel<Term, Op> reduce_kernel_of() {
  // Only code compiled for sm_90 or later holds the wait that makes an early start safe.
  static const bool awaits = [] {
    cudaFuncAttributes a{};
    CHAINSAW_CUDA_TRY(cudaFuncGetAttributes(&a, produce_reduce_kernel<Term, Op, kLayout>));
    return std::min(a.ptxVersion, a.binaryVersion) >= 90;
  }();
  return {produce_reduce_kernel<Term, Op, kLayout>, awaits && programmatic_launch_wanted()};
}

// The kernel of a launch in context `c`: the layout of its rows, compiled in.
template <class Term, class Op>
auto reduce_kernel(const PassContext& c) {
  if constexpr (Sliceable<Term>::value) {
    if (c.slices > 1) return reduce_kernel_of<Term, Op, kSeveralSlices>();
    if (c.sliced()) return reduce_kernel_of<Term, Op, kOneSlice>();
  }
  CHAINSAW_EXPECTS(!c.sliced(), "this function cannot be laid out in slices");
  return reduce_kernel_of<Term, Op, kWholeRows>();
}

// One wave of blocks exactly: a partial second wave would run on a few SMs while the rest idle
// (measured: 1.58 waves cost the 3e6-D evaluation 40% of its time).
inline ReduceShape launch_shape(const PassContext& c, Spread spread, int blocks_per_sm,
                                int lane_genes = kVec) {
  const int wave = c.sm_count * std::min(blocks_per_sm, 2048 / kThreads);
  ReduceShape s = ReduceShape::make(c.slice_genes,
                                    spread == Spread::kOneRow ? wave : std::max(1, wave / c.batch),
                                    lane_genes);
  s.dim = c.dim;
  s.first_slice = c.first_slice;
  s.gene_base = c.gene_base;
  s.rng_stride = c.rng_stride;
  return s;
}

// `blocks_cap` (> 0) lowers the blocks per SM, so that kernels which must map genes to threads
// alike (the Solis-Wets moves and their apply step regenerate the same dif) share one shape.
// `l2_window` (num_bytes > 0): the launch's accesses to it persist in L2.
template <class Term, class Op>
ReduceShape launch_reduce(const PassContext& c, const Op& op, const Term& term, Spread spread,
                          int rows, curandState* rng_in = nullptr, curandState* rng_out = nullptr,
                          int blocks_cap = 0, const cudaAccessPolicyWindow* l2_window = nullptr) {
  CHAINSAW_EXPECTS(rows >= 1 && rows <= c.max_rows, "batched launch exceeds its rows");
  int blocks = blocks_per_sm<Term, Op>(c);
  if (blocks_cap > 0) blocks = std::min(blocks, blocks_cap);
  ReduceShape s = launch_shape(c, spread, blocks, LaneGenes<Op>::value);
  // Sharded: every rank reduces its slice, the partials are exchanged, and each rank finishes
  // the rows alike. Element-wise passes (NoTerm) reduce nothing and finish on their own.
  using Partial = typename Term::Partial;
  s.deferred = c.collective != nullptr && !std::is_same_v<Term, NoTerm>;
  const bool interleaved = InterleavesRows<Op>::value && !c.sliced() && c.interleave_rows;
  const dim3 grid = interleaved ? dim3(static_cast<unsigned>(s.blocks_x * rows))
                                : dim3(static_cast<unsigned>(s.blocks_x * c.slices),
                                       static_cast<unsigned>(rows));
  const auto kernel = reduce_kernel<Term, Op>(c);
  cudaLaunchAttribute attrs[2]{};
  unsigned attr_count = 0;
  if (kernel.programmatic) {
    attrs[attr_count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[attr_count++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (l2_window != nullptr && l2_window->num_bytes > 0) {
    attrs[attr_count].id = cudaLaunchAttributeAccessPolicyWindow;
    attrs[attr_count++].val.accessPolicyWindow = *l2_window;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(kThreads);
  config.stream = c.stream;
  config.attrs = attrs;
  config.numAttrs = attr_count;
  CHAINSAW_CUDA_TRY(cudaLaunchKernelEx(&config, kernel.function, op, term, s,
                                       rng_in ? rng_in : c.rng, rng_out ? rng_out : c.rng,
                                       static_cast<Partial*>(c.partials), c.tickets));
  CHAINSAW_CUDA_CHECK_LAUNCH();
  if (s.deferred) {
    c.collective->allgather(c.partials, c.gathered,
                            sizeof(Partial) * static_cast<std::size_t>(rows) * s.blocks_x, c.stream);
    finish_rows_kernel<Term, Op><<<rows, kThreads, 0, c.stream>>>(
        op, term, c.collective->size(), rows, s.blocks_x, static_cast<const Partial*>(c.gathered));
    CHAINSAW_CUDA_CHECK_LAUNCH();
  }
  return s;
}

class FusedPasses {
 public:
  virtual ~FusedPasses() = default;
  // Random genes in the domain for the slots slots[0..rows) (device memory), and their f.
  virtual void initialize(const PassContext& c, const int* slots, int rows) const = 0;
  // BLX-alpha children (+ BGA) of specs[0..rows) (device memory) into their slots, and their f.
  virtual void make_children(const PassContext& c, const ChildSpec* specs, int rows) const = 0;
  // f of the stored slots slots[0..rows).
  virtual void evaluate(const PassContext& c, const int* slots, int rows) const = 0;
  // A Solis-Wets move of slot genes x with bias `bias` (one row); candidate != nullptr stores the
  // candidate there instead of deciding (functions evaluated by a launch of their own).
  virtual ReduceShape solis_wets_move(const PassContext& c, bool forward, const real_t* x,
                                      const real_t* bias, real_t* candidate, curandState* rng_in,
                                      curandState* rng_out, int blocks_cap) const = 0;
  // Blocks per SM of the move kernel (of context c's layout): the engine caps the step's
  // launches at the lowest.
  virtual int solis_wets_move_blocks_per_sm(const PassContext& c) const = 0;
  // Both moves of a step in one pass (SwBothMovesOp<c.sw_lane_genes>), for functions evaluated
  // as they are made.
  virtual ReduceShape solis_wets_both_moves(const PassContext& c, const real_t* x,
                                            const real_t* bias, const SolisWetsParams& params,
                                            curandState* rng_in, curandState* rng_out,
                                            int blocks_cap) const = 0;
  virtual int solis_wets_both_moves_blocks_per_sm(const PassContext& c) const = 0;
  // A whole application to slot genes x with bias `bias` in one cooperative launch
  // (sw_chain_kernel), its state in c.sw_state before and after, each step's dif kept in the
  // row step_dif (null: drawn again), in the one-row shape of at most blocks_cap blocks per SM;
  // each block's genes, and its dif, staged in shared memory where they fit beside that grid
  // (c.sw_stages_genes, c.sw_stages_dif), in paired blocks where they may be
  // (c.sw_pairs_blocks, sw_chain_pairs_blocks). Whole rows only (not sliced). Returns the
  // launch's threads per block, or 0, launching nothing, where that shape has more blocks than
  // the chain kernel can hold resident (a smaller grid would cut the genes otherwise than the
  // launch per step, and it was slower: docs/performance.md, "What we tried"), or where it
  // would keep dif beside x and the bias in memory and the three rows overfill L2
  // (c.sw_dif_beside_genes_in_l2).
  virtual int solis_wets_chain(const PassContext& c, real_t* x, real_t* bias, real_t* step_dif,
                               const SolisWetsParams& params, int slot, int blocks_cap) const = 0;
};

// The passes of the function whose fitness term is Term (FitnessTerm<Fn> for a built-in
// function, the user's term for a per-gene objective): Term has a Partial, accumulate() and
// value() (fitness/device_reduce.cuh).
template <class Term, class EvaluationTerm = Term>
class FusedPassesFor final : public FusedPasses {
 public:
  explicit FusedPassesFor(const Term& term) : term_(term) {}
  // evaluation_term: the same function's term in another form for the evaluation pass, which
  // only reads genes (a built-in function's with o in device memory: core/engines/cuda/cuda_engine.cu).
  FusedPassesFor(const Term& term, const EvaluationTerm& evaluation_term)
      : term_(term), evaluation_term_(evaluation_term) {}

  void initialize(const PassContext& c, const int* slots, int rows) const override {
    const InitializeOp op{c.genes, c.pitch, slots, c.lower, c.upper, sink(c)};
    launch_reduce(c, op, term_, Spread::kBatch, rows);
  }
  void make_children(const PassContext& c, const ChildSpec* specs, int rows) const override {
    const CrossoverOp op{c.genes, c.pitch, specs, c.blx_alpha, c.lower, c.upper, sink(c)};
    launch_reduce(c, op, term_, Spread::kBatch, rows);
  }
  void evaluate(const PassContext& c, const int* slots, int rows) const override {
    const EvaluateOp op{c.genes, c.pitch, slots, sink(c)};
    if constexpr (!std::is_same_v<EvaluationTerm, Term>) {
      // In its own launch shape, o persisting in L2, the slot read before the previous grid is
      // awaited except for ordered partials, which that made slower: measured on the H100
      // (bench/results/2026-11-23-h100-fitness-kernels). Its rows reduce in its own tree, which is
      // term_'s where both kernels have the same occupancy (Rastrigin, Griewank, Schwefel 1.2).
      if (evaluation_term_ && !c.sliced()) {
        if constexpr (EvaluationTerm::Partial::kOrdered)
          launch_reduce(c, op, *evaluation_term_, Spread::kBatch, rows, nullptr, nullptr, 0,
                        &c.shift_window);
        else
          launch_reduce(c, EarlySlotEvaluateOp{op}, *evaluation_term_, Spread::kBatch, rows,
                        nullptr, nullptr, 0, &c.shift_window);
        return;
      }
    }
    launch_reduce(c, op, term_, Spread::kBatch, rows);
  }
  ReduceShape solis_wets_move(const PassContext& c, bool forward, const real_t* x,
                              const real_t* bias, real_t* candidate, curandState* rng_in,
                              curandState* rng_out, int blocks_cap) const override {
    const SwMoveOp op{forward, c.sw_state, x,         bias,     c.lower,
                      c.upper, c.dim,      candidate, c.invalid};
    return launch_reduce(c, op, term_, Spread::kOneRow, 1, rng_in, rng_out, blocks_cap);
  }
  int solis_wets_move_blocks_per_sm(const PassContext& c) const override {
    return blocks_per_sm<Term, SwMoveOp>(c);
  }
  ReduceShape solis_wets_both_moves(const PassContext& c, const real_t* x, const real_t* bias,
                                    const SolisWetsParams& params, curandState* rng_in,
                                    curandState* rng_out, int blocks_cap) const override {
    return with_sw_lane(c, [&](auto lane) {
      const SwBothMovesOp<lane.value> op{c.sw_state, x,     bias,  c.lower, c.upper,
                                         c.dim,      params, c.invalid};
      return launch_reduce(c, op, PairTerm<Term>{term_}, Spread::kOneRow, 1, rng_in, rng_out,
                           blocks_cap);
    });
  }
  int solis_wets_both_moves_blocks_per_sm(const PassContext& c) const override {
    return with_sw_lane(c, [&](auto lane) {
      return blocks_per_sm<PairTerm<Term>, SwBothMovesOp<lane.value>>(c);
    });
  }
  int solis_wets_chain(const PassContext& c, real_t* x, real_t* bias, real_t* step_dif,
                       const SolisWetsParams& params, int slot, int blocks_cap) const override {
    // Every variant takes the same decisions to the bit; the one that draws dif again may hold
    // a grid that the others cannot, and the one that stages o needs the most shared memory.
    return with_sw_lane(c, [&](auto lane) {
      int threads = 0;
      if constexpr (ShiftForms<Term>::kAvailable) {
        if (step_dif != nullptr && c.sw_stages_shift)
          threads = launch_chain<true, lane.value, SwShift::kRow>(c, x, bias, step_dif, params,
                                                                  slot, blocks_cap);
        if (threads == 0 && step_dif != nullptr && c.sw_reads_stored_shift)
          threads = launch_chain<true, lane.value, SwShift::kStored>(c, x, bias, step_dif,
                                                                     params, slot, blocks_cap);
      }
      if (threads == 0 && step_dif != nullptr)
        threads = launch_chain<true, lane.value>(c, x, bias, step_dif, params, slot, blocks_cap);
      if (threads == 0)
        threads = launch_chain<false, lane.value>(c, x, bias, nullptr, params, slot, blocks_cap);
      return threads;
    });
  }

 private:
  template <bool kKeepsDif, int L, SwShift kShift = SwShift::kHashed>
  int launch_chain(const PassContext& c, real_t* x, real_t* bias, real_t* step_dif,
                   const SolisWetsParams& params, int slot, int blocks_cap) const {
    CHAINSAW_EXPECTS(!c.sliced(), "the Solis-Wets chain kernel takes whole rows");
    constexpr bool kStagesShift = kShift == SwShift::kRow;
    const real_t* stored_o = nullptr;
    if constexpr (kShift == SwShift::kStored) {
      if constexpr (!std::is_same_v<EvaluationTerm, Term>)
        if (evaluation_term_) stored_o = evaluation_term_->o;
      if (stored_o == nullptr) return 0;
    }
    const auto kernel = sw_chain_kernel<Term, kKeepsDif, L, kShift>;
    const ReduceShape s = launch_shape(c, Spread::kOneRow, blocks_cap, L);
    // Paired blocks hold two of the shape's blocks each, to the same bits.
    const int halves = c.sw_pairs_blocks && sw_chain_pairs_blocks<Term, L>(s) ? 2 : 1;
    const int block_threads = halves * kThreads;
    const int grid = s.blocks_x / halves;
    // The grid must be co-resident: at most this many blocks per SM with `bytes` of dynamic
    // shared memory each (the staged genes).
    const auto resident = [kernel, block_threads](std::size_t bytes) {
      int n = 0;
      CHAINSAW_CUDA_TRY(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, block_threads, bytes));
      return n;
    };
    // Staged where the rows fit beside the same grid: x and the bias with the dif, else without
    // it (its row in memory); else nothing staged, if that grid fits.
    SwStaged staged = SwStaged::kNone;
    std::size_t staged_bytes = 0;
    if (c.sw_stages_genes) {
      // Above 48 KB a kernel takes dynamic shared memory only as far as it opts in, on the
      // current device: up to the device's limit, less the kernel's static shared memory.
      int device = 0, optin = 0;
      CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
      CHAINSAW_CUDA_TRY(
          cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      cudaFuncAttributes attributes{};
      CHAINSAW_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
      const std::size_t most = static_cast<std::size_t>(optin) - attributes.sharedSizeBytes;
      for (const SwStaged rows : {SwStaged::kGenesAndDif, SwStaged::kGenes}) {
        if (rows == SwStaged::kGenesAndDif && !(kKeepsDif && c.sw_stages_dif)) continue;
        if (kStagesShift && rows != SwStaged::kGenesAndDif) continue;  // the form measured
        const std::size_t bytes = sw_chain_staged_bytes<L>(s, rows, kStagesShift, halves);
        if (bytes > most) continue;
        CHAINSAW_CUDA_TRY(cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
        if (grid <= resident(bytes) * c.sm_count) {
          staged = rows;
          staged_bytes = bytes;
          break;
        }
      }
    }
    if (kStagesShift && staged == SwStaged::kNone) return 0;
    if (staged == SwStaged::kNone &&
        ((kKeepsDif && !c.sw_dif_beside_genes_in_l2) || grid > resident(0) * c.sm_count))
      return 0;
    const SwBothMovesOp<L> op{c.sw_state, x, bias, c.lower, c.upper, c.dim, params, c.invalid};
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(grid));
    config.blockDim = dim3(static_cast<unsigned>(block_threads));
    config.dynamicSmemBytes = staged_bytes;
    config.stream = c.stream;
    config.attrs = &cooperative;
    config.numAttrs = grid > 1 ? 1 : 0;  // one block needs no grid barrier
    using Partial = typename PairTerm<Term>::Partial;
    CHAINSAW_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, op, term_, s, c.rng,
                                         static_cast<Partial*>(c.partials), step_dif, staged,
                                         stored_o, c.slot_fitness, slot));
    CHAINSAW_CUDA_CHECK_LAUNCH();
    return block_threads;
  }

  static FitnessSink sink(const PassContext& c) {
    return {c.dim, c.slot_fitness, c.row_out, c.invalid};
  }

  Term term_;
  std::optional<EvaluationTerm> evaluation_term_;  // none: term_ evaluates
};

}  // namespace chainsaw::device
