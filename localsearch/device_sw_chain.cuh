// A whole Solis-Wets application in one cooperative launch: sw_chain_kernel and the bounds and
// forms it is compiled in.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstddef>
#include <type_traits>

#include "core/types.hpp"
#include "fitness/device_ordered_reduce.cuh"
#include "fitness/device_reduce.cuh"
#include "fitness/device_terms.cuh"
#include "fitness/reduce_shape.hpp"
#include "localsearch/device_sw_chain_exchange.cuh"
#include "localsearch/device_sw_chain_rows.cuh"
#include "localsearch/device_sw_moves.cuh"
#include "localsearch/device_sw_ops.cuh"
#include "localsearch/device_sw_state.cuh"

namespace chainsaw::device {

// The chain kernel in whole lanes is bounded to two blocks per SM (128 registers; declared as
// one block of 2 x kThreads, the same bound, so that it may run in paired blocks), the
// residency that holds its grid at 10^6-D and 3*10^6-D. Unbounded, the fold of the apply into
// the pass and the staged genes took Griewank's and Salomon's kernels past it, and each fell back
// to a slower form (bench/results/2026-11-28-h100-nam-rows-sw-fold). Not for ordered partials
// (Schwefel 1.2): bounded, its kernel spilled and ran slower than its fallback. Where not
// bounded, no minimum at all:
// `__launch_bounds__(kThreads, 1)` is not the same as none (docs/what-we-tried.md).
template <class Term, int L>
inline constexpr bool kChainTwoBlocksPerSm = L == kVec && !Term::Partial::kOrdered;

// A whole Solis-Wets application in one launch (the chain kernel): each step is SwBothMovesOp's
// pass; every block publishes its partial, a grid-wide barrier, then every block combines all
// the partials in order and settles the step for itself (the same decision everywhere: no block
// waits on another's reduction, and no state goes through memory); every thread applies an
// accepted move to its own genes: kKeepsDif, in the next step's pass (SwChainStepOp), with the
// dif it stored in step_dif (one row) as it made the candidates; otherwise right after the
// decision, drawing dif again from its state at the step's start. No
// host launch, copy or decision per step. The stored dif pays where the row stays in L2 (beside
// x and the bias where they are not staged), and costs where it pushes them out
// (bench/results/2026-11-27-h100-kept-dif); two variants, for a branch between the two applies
// took more registers, which halved the co-resident grid.
//
// The grid must be co-resident (a cooperative launch). Genes map to threads, XORWOW states to
// genes, and partials to trees exactly as in produce_reduce_kernel's one-row launch of the same
// shape: the steps take the same decisions, to the bit, as SwBothMovesOp and SwApplyOp launched
// per step. *op.state holds the application's state before and after; each block keeps one
// copy in shared memory in between. The partials alternate between two halves of
// block_partials (2 x grid pairs), so a block's next step never overwrites a partial that a
// slower block still reads.
// A grid of one block needs no barrier beyond the block's. A block of 2 x kThreads threads
// holds two of the shape's blocks (where the launch's policy pairs them: chain_pairs_blocks):
// its genes, states and warps are theirs, in order, and it publishes the combination of their
// two partials.
//
// staged (not kNone): the launch gave each block dynamic shared memory for its genes of x and
// the bias, and with kGenesAndDif of the dif (sw_chain_staged_bytes). x and the bias are read
// once, the steps move them there, and they are written back at the end: a step's pass then
// reads no row from L2, where the whole grid asked for the same 8-12 bytes per gene at once
// after each barrier. Otherwise the steps move x and the bias in memory; step_dif holds the dif
// unless it is staged (kKeepsDif and kGenes: x and the bias staged, the dif row in memory, where
// the three rows would leave one block per SM: 3*10^6-D on the H100).
// kShift, how a built-in function's kernel takes o (the same z, to the bit, every way): kRow
// (with kGenesAndDif) computes each block's o once, as doubles in a row after the staged ones
// (sw_chain_staged_bytes), and the steps read it there (RowShiftTerm); kStored reads the
// engine's device copy of o, floats in 16-byte loads beside each run (StoredShiftTerm, from L2,
// where the row does not fit: 3*10^6-D); kHashed hashes o for every gene of every step, a dozen
// integer instructions per gene that the other two save
// (bench/results/2026-11-28-h200-sw-shift-row).
enum class SwShift : int { kHashed, kRow, kStored };

// The rows the steps address: in memory, or the block's staged rows in shared memory at
// staged_row (x, the bias, then the dif where it is staged too), the block's genes from gene
// `first` on. kSharedRows: all three staged.
template <class Rows, bool kSharedRows>
__device__ __forceinline__ Rows sw_chain_rows(SwStaged staged, real_t* staged_row,
                                              Dim block_genes, Dim first, real_t* x, real_t* bias,
                                              real_t* step_dif) {
  if constexpr (kSharedRows) {
    return {staged_row, block_genes, first};
  } else {
    if (staged == SwStaged::kNone) return {x, bias, 0, step_dif, 0};
    if (staged == SwStaged::kGenesAndDif)
      return {staged_row, staged_row + block_genes, first, staged_row + 2 * block_genes, first};
    return {staged_row, staged_row + block_genes, first, step_dif, 0};
  }
}

// The term the steps reduce with: kRow writes each thread's o of its own genes (its warp's tiles
// [first_tile, end_tile)), which only it reads, into the row after the staged ones (staged is
// kGenesAndDif: the launch checked); kStored reads the engine's copy; kHashed is the function's
// term itself.
template <class StepTerm, SwShift kShift, int L, class Term>
__device__ __forceinline__ StepTerm sw_chain_step_term(const Term& term, SwStaged staged,
                                                       real_t* staged_row, Dim block_genes,
                                                       Dim first, Dim first_tile, Dim end_tile,
                                                       Dim dim, const real_t* stored_o) {
  if constexpr (kShift == SwShift::kRow) {
    double* const o_row =
        reinterpret_cast<double*>(staged_row + static_cast<int>(staged) * block_genes);
    for_lane_runs<L>(first_tile, end_tile, dim, [&](Dim j0, int n) {
      for (int k = 0; k < n; ++k)
        o_row[StepTerm::template at<L>(j0 - first + k)] = term.shift.value(j0 + k);
    });
    return {o_row, first};
  } else if constexpr (kShift == SwShift::kStored) {
    return {stored_o};
  } else {
    return term;
  }
}

// The block's partial of a step, in thread 0, from its warps' (in warp_results), published to
// step_partials; then the grid barrier, after which every block reads them all. kMayPair: warp 0
// alone combines the block's and thread 0 alone arrives at the barrier (the block's threads wait
// for it at the __syncthreads after this), four __syncthreads a step (one block: two).
template <bool kMayPair, class Partial>
__device__ __forceinline__ void sw_chain_publish_step(Partial& total, Partial* warp_results,
                                                      Partial* scratch, Partial* step_partials,
                                                      int warp, int halves, bool one_block) {
  if constexpr (kMayPair) {
    if (warp == 0) {
      total = warp0_block_total(warp_results, halves);
      if (!one_block && threadIdx.x == 0) {
        step_partials[blockIdx.x] = total;
        grid_barrier_one_thread();
      }
    }
  } else {
    total = block_reduce_ordered(ContiguousItems<Partial>{warp_results}, kWarps, scratch);
    if (!one_block) {
      if (threadIdx.x == 0) step_partials[blockIdx.x] = total;
      cooperative_groups::this_grid().sync();  // every partial is published
    }
  }
}

template <class Term, bool kKeepsDif, int L, SwShift kShift = SwShift::kHashed>
__global__ void __launch_bounds__(kChainTwoBlocksPerSm<Term, L> ? 2 * kThreads : kThreads,
                                  kChainTwoBlocksPerSm<Term, L> ? 1 : 0)
    sw_chain_kernel(SwBothMovesOp<L> op, Term term, ReduceShape shape, curandState* rng_states,
                    PairPartial<typename Term::Partial>* block_partials, real_t* step_dif,
                    SwStaged staged, const real_t* stored_o, double* slot_fitness, int slot) {
  constexpr bool kStagesShift = kShift == SwShift::kRow;
  using StepTerm = std::conditional_t<
      kStagesShift, typename ShiftForms<Term>::Row,
      std::conditional_t<kShift == SwShift::kStored, typename ShiftForms<Term>::Stored, Term>>;
  using Pair = PairTerm<StepTerm>;
  using Partial = typename Pair::Partial;
  static_assert(std::is_same_v<Partial, PairPartial<typename Term::Partial>>);
  // The shape's blocks that this block holds: 2 in a paired block, which only a kernel bounded
  // to two blocks per SM may run as (the others keep their code as it is without pairs).
  constexpr bool kMayPair = kChainTwoBlocksPerSm<Term, L>;
  const int halves = kMayPair ? static_cast<int>(blockDim.x) / kThreads : 1;
  const int warp = threadIdx.x / 32;
  const int block_warps = kWarps * halves;
  const std::size_t thread_id =
      static_cast<std::size_t>(blockIdx.x) * (halves * kThreads) + threadIdx.x;
  curandState rng = rng_states[thread_id];
  const Dim tiles = (shape.dim + 32 * L - 1) / (32 * L);
  const Dim first_tile =
      (static_cast<Dim>(blockIdx.x) * block_warps + warp) * shape.tiles_per_warp;
  // The block's genes, staged: [first, first + block_genes).
  const Dim block_genes = sw_chain_block_genes<L>(shape) * halves;
  const Dim first = static_cast<Dim>(blockIdx.x) * block_genes;
  const Dim end_tile = first_tile + shape.tiles_per_warp < tiles
                           ? first_tile + shape.tiles_per_warp : tiles;
  const bool one_block = gridDim.x == 1;
  real_t* const x = const_cast<real_t*>(op.x);
  real_t* const bias = const_cast<real_t*>(op.bias);
  extern __shared__ uint4 staged_words[];  // 16-byte aligned, as the runs' loads need
  real_t* const staged_row = reinterpret_cast<real_t*>(staged_words);
  // kStagesShift: staged is kGenesAndDif (the launch checked). In whole lanes only: the
  // short-lane kernel ran slower so (docs/what-we-tried.md).
  constexpr bool kSharedRows = kStagesShift && L == kVec;
  using Rows = std::conditional_t<kSharedRows, SwSharedRows, SwRows>;
  const Rows rows = sw_chain_rows<Rows, kSharedRows>(staged, staged_row, block_genes, first, x,
                                                     bias, step_dif);
  if (staged != SwStaged::kNone)
    sw_copy_staged_runs<true, L>(x, bias, rows, first_tile, end_tile, shape.dim);
  const StepTerm step_term = sw_chain_step_term<StepTerm, kShift, L>(
      term, staged, staged_row, block_genes, first, first_tile, end_tile, shape.dim, stored_o);
  const Pair pair{step_term};

  __shared__ Partial warp_results[(kMayPair ? 2 : 1) * kWarps];  // a paired block's two halves'
  __shared__ Partial scratch[(kMayPair ? 2 : 1) * kWarps];
  // The application's state, one copy per block: thread 0 settles each step in it, and the
  // other threads read the fields they need (a per-thread copy held more registers:
  // bench/results/2026-11-27-h100-chain-settle).
  __shared__ SwDeviceState state;
  __shared__ int step_phase;  // how the last step ended
  if (threadIdx.x == 0) state = load_from_l2(op.state);
  __syncthreads();
  int half = 0;  // which half of block_partials this step's partials go to
  int pending = kSwIdle;  // kKeepsDif: the last step's success, applied by the next pass
  double pending_scale = 1.0;
  while (state.evaluations < state.budget) {
    const double rho = state.rho, scale = state.bias_scale;  // the step's
    const curandState step_start = rng;
    const Partial warp_partial = reduce_warp_tiles(
        SwChainStepOp<L, kKeepsDif, Rows>{op, rows, rho, scale, pending, pending_scale},
        pair, 0, first_tile, end_tile, 0, shape.dim, 0, rng);
    if ((threadIdx.x & 31) == 0) warp_results[warp] = warp_partial;
    __syncthreads();  // also: every thread has read the step's state
    Partial* const step_partials = block_partials + half * gridDim.x;
    Partial total{};  // the step's, in thread 0
    sw_chain_publish_step<kMayPair>(total, warp_results, scratch, step_partials, warp, halves,
                                    one_block);
    if constexpr (kMayPair) {
      if (!one_block) __syncthreads();  // thread 0 has seen every block's partial published
    }
    if (!one_block) {
      // Read from L2: this SM's L1 may hold the same addresses from two steps ago. The first
      // kThreads of a paired block combine them.
      total = block_reduce_ordered<kMayPair>(
          L2Items<Partial>{step_partials},
          !kMayPair || threadIdx.x < kThreads ? static_cast<int>(gridDim.x) : 0, scratch);
      half ^= 1;
    }
    if (threadIdx.x == 0) {
      SwDeviceState next = state;
      op.settle(next, pair, total);
      step_phase = next.phase;
      if (next.phase != kSwIdle) sw_adapt_after_apply(next, op.params);  // the move follows
      state = next;
    }
    __syncthreads();
    const int phase = step_phase;
    const bool success = phase == kSwForwardSuccess || phase == kSwBackwardSuccess;
    if constexpr (kKeepsDif) {  // the next pass moves each run first (the thread's own dif)
      pending = success ? phase : kSwIdle;
      pending_scale = scale;
    } else if (success) {
      curandState replay = step_start;
      for_lane_runs<L>(first_tile, end_tile, shape.dim, [&](Dim j0, int n) {
        sw_apply_run<L>(phase, rho, scale, rows.x_at(j0), rows.bias_at(j0), n, replay, op.lower,
                        op.upper);
      });
    }
  }
  if constexpr (kKeepsDif) {  // the last step's success, with no pass after it
    if (pending != kSwIdle)
      for_lane_runs<L>(first_tile, end_tile, shape.dim, [&](Dim j0, int n) {
        real_t xs[L], bs[L];
        sw_apply_kept_dif(pending, pending_scale, rows.x_at(j0), rows.bias_at(j0),
                          rows.dif_at(j0), n, op.lower, op.upper, xs, bs);
      });
  }
  const double final_scale = state.bias_scale;
  if (final_scale != 1.0)
    for_lane_runs<L>(first_tile, end_tile, shape.dim, [&](Dim j0, int n) {
      sw_scale_bias_run<L>(final_scale, rows.bias_at(j0), n);
    });
  if (staged != SwStaged::kNone)
    sw_copy_staged_runs<false, L>(x, bias, rows, first_tile, end_tile, shape.dim);
  rng_states[thread_id] = rng;
  // Every block has read the application's state (an application with no step left reads it
  // only at the start) before block 0 overwrites it with the final one.
  if (!one_block) cooperative_groups::this_grid().sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    SwDeviceState s = state;
    s.bias_scale = 1.0;
    s.rng_parity = 0;  // the states went back where they came from
    s.phase = kSwIdle;
    *op.state = s;
    slot_fitness[slot] = s.f_current;
  }
}

}  // namespace chainsaw::device
