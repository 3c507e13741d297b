// The GPU passes that make individuals and evaluate them in the same sweep (Lastra et al. 2014 §5),
// for one fitness function: random initial genes, a crossover batch, a stored individual's
// evaluation and the Solis-Wets moves. CudaEngine holds them behind FusedPasses, so that the passes
// of a user's per-gene objective, instantiated in the user's nvcc translation unit
// (include/chainsaw/device_objective.cuh), run in the engine exactly as the built-in functions' do:
// the same kernels, launch shapes and reduction trees. A user objective identical to a built-in
// function therefore gives bit-identical runs on the GPU too.
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <optional>
#include <type_traits>

#include "core/engines/cuda/pass_context.cuh"
#include "core/engines/cuda/reduce_launch.cuh"
#include "core/engines/cuda/sw_chain_launch.cuh"
#include "core/engines/engine.hpp"
#include "fitness/device_reduce.cuh"
#include "localsearch/device_solis_wets.cuh"
#include "ssga/device_ops.cuh"

namespace chainsaw::device {

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
  // Both moves of a step in one pass (SwBothMovesOp<c.solis_wets.lane_genes>), for functions
  // evaluated as they are made.
  virtual ReduceShape solis_wets_both_moves(const PassContext& c, const real_t* x,
                                            const real_t* bias, const SolisWetsParams& params,
                                            curandState* rng_in, curandState* rng_out,
                                            int blocks_cap) const = 0;
  virtual int solis_wets_both_moves_blocks_per_sm(const PassContext& c) const = 0;
  // A whole application to slot genes x with bias `bias` in one cooperative launch
  // (sw_chain_kernel), its state in c.sw_state before and after, each step's dif kept in the
  // row step_dif (null: drawn again), in the one-row shape of at most blocks_cap blocks per SM;
  // each block's genes, and its dif, staged in shared memory where they fit beside that grid
  // (c.solis_wets.stages_genes, stages_dif), in paired blocks where they may be
  // (c.solis_wets.pairs_blocks, chain_pairs_blocks). Whole rows only (not sliced). Returns the
  // launch's threads per block, or 0, launching nothing, where that shape has more blocks than
  // the chain kernel can hold resident (a smaller grid would cut the genes otherwise than the
  // launch per step, and it was slower: docs/what-we-tried.md), or where it
  // would keep dif beside x and the bias in memory and the three rows overfill L2
  // (c.solis_wets.dif_beside_genes_in_l2).
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
  // only reads genes (a built-in function's with o in device memory: builtin_passes.cuh).
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
        if (step_dif != nullptr && c.solis_wets.stages_shift)
          threads = launch_chain<true, lane.value, SwShift::kRow>(c, x, bias, step_dif, params,
                                                                  slot, blocks_cap);
        if (threads == 0 && step_dif != nullptr && c.solis_wets.reads_stored_shift)
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
    const real_t* stored_o = nullptr;  // the evaluation's copy of o, for kStored
    if constexpr (kShift == SwShift::kStored && !std::is_same_v<EvaluationTerm, Term>) {
      if (evaluation_term_) stored_o = evaluation_term_->o;
    }
    return launch_sw_chain<Term, kKeepsDif, L, kShift>(c, term_, stored_o, x, bias, step_dif,
                                                       params, slot, blocks_cap);
  }

  static FitnessSink sink(const PassContext& c) {
    return {c.dim, c.slot_fitness, c.row_out, c.invalid};
  }

  Term term_;
  std::optional<EvaluationTerm> evaluation_term_;  // none: term_ evaluates
};

}  // namespace chainsaw::device
