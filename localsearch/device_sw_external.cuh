// Solis-Wets steps on a user objective given as a batch callback: the candidates of a step
// written for one call of the objective (SwCandidatesOp), and the launch that settles the step
// on its values, applies it and writes the next step's candidates (SwSettleStepOp).
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstddef>

#include "core/types.hpp"
#include "fitness/device_genes.cuh"
#include "fitness/device_reduce.cuh"
#include "fitness/external_objective.hpp"
#include "localsearch/device_sw_moves.cuh"
#include "localsearch/device_sw_state.cuh"
#include "localsearch/solis_wets.hpp"

namespace chainsaw::device {

// Solis-Wets on a user objective (a batch callback, fitness/external_objective.hpp). Both
// candidates of a step are evaluated, as SwBothMovesOp evaluates both: one call of the objective
// on two rows instead of a call, a decision and a condition per move; the backward value counts
// only when the forward move failed. An application is SwCandidatesOp, then per step the
// objective's call and SwSettleStepOp, which settles the step, applies it and makes the next
// step's candidates: two launches per step.

// Writes both candidates of the step, x' to row 0 of `candidates` and x'' to row `pitch`, and
// sets the phase kSwCandidatesMade.
struct SwCandidatesOp {
  static constexpr bool kUsesRng = true;
  static constexpr bool kStagesRng = true;  // as SwSettleStepOp's, which draw the same dif
  __device__ bool stores_rng() const { return true; }
  SwDeviceState* state;
  const real_t* x;
  const real_t* bias;
  double lower, upper;
  real_t* candidates;
  Dim pitch;
  __device__ bool active() const { return sw_move_active(true, state); }
  __device__ void produce(int, Dim j0, int n, double (&)[kVec], curandState& rng) const {
    write_candidates(state->rho, state->bias_scale, j0, n, rng);
  }
  __device__ void write_candidates(double rho, double scale, Dim j0, int n,
                                   curandState& rng) const {
    real_t forward[kVec], backward[kVec];
    sw_both_candidates_run(rho, scale, x + j0, bias + j0, n, rng, lower, upper, forward,
                           backward);
    store_genes(candidates + j0, n, forward);
    store_genes(candidates + pitch + j0, n, backward);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    state->phase = kSwCandidatesMade;
  }
};

// The step's decision on the objective's values (values[0] of x', values[1] of x''), its
// accepted move, and the next step's candidates while evaluations are left. Every thread
// settles the step for itself (the same decision everywhere); after a success it moves its
// genes with the step's dif, drawn again from the states the step drew from (step_states: this
// launch's rng_out, read before the launch overwrites them). The last block writes the state.
// In a graph, `loop` (non-zero) is the while node's condition: candidates made.
struct SwSettleStepOp {
  static constexpr bool kUsesRng = true;
  static constexpr bool kStagesRng = true;  // a short launch of few genes per thread
  __device__ bool stores_rng() const { return true; }
  SwCandidatesOp next;  // its state, x, bias (which this step moves), domain and candidates
  SolisWetsParams params;
  const double* values;
  unsigned long long* invalid;  // NaN and -inf values that count as evaluations
  const curandState* step_states;
  double* slot_fitness;
  int slot;
  cudaGraphConditionalHandle loop = 0;
  // After a success: the block's states of step_states in shared memory, each thread's advanced
  // over its runs (prepare_block).
  curandState* replay = nullptr;

  __device__ bool active() const { return next.state->phase == kSwCandidatesMade; }
  // The state after the step, adapted; step_phase: how the step ended (kSwIdle: no success).
  // Counts invalid values where count_invalid is given.
  __device__ SwDeviceState settled(const SwDeviceState& before, unsigned long long* count_invalid,
                                   int& step_phase) const {
    SwDeviceState s = before;
    sw_settle_both(s, params, [&](bool forward) {
      const double f = values[forward ? 0 : 1];
      if (count_invalid != nullptr && is_invalid_fitness(f)) atomicAdd(count_invalid, 1ull);
      return rankable_fitness(f);
    });
    step_phase = s.phase;
    if (s.phase != kSwIdle) sw_adapt_after_apply(s, params);
    return s;
  }
  // Every thread of the block, before its runs: after a success, the block's states that the
  // step drew from are staged, read as whole lines (the kernel stages rng alike).
  __device__ void prepare_block(std::size_t first_state) {
    int phase = kSwIdle;
    settled(*next.state, nullptr, phase);
    if (phase == kSwIdle) return;  // the same decision in every thread
    replay = staged_states<SwSettleStepOp, 1>();
    copy_block_states(step_states + first_state, replay);
    __syncthreads();
  }
  __device__ void produce(int, Dim j0, int n, double (&)[kVec], curandState& rng) const {
    const SwDeviceState before = *next.state;
    int phase = kSwIdle;
    const SwDeviceState s = settled(before, nullptr, phase);
    if (phase != kSwIdle) {  // a success: x and the bias move
      curandState r = replay[threadIdx.x];
      sw_apply_run(phase, before.rho, before.bias_scale, const_cast<real_t*>(next.x) + j0,
                   const_cast<real_t*>(next.bias) + j0, n, r, next.lower, next.upper);
      replay[threadIdx.x] = r;  // the thread's next run draws on
    }
    if (s.evaluations < s.budget) next.write_candidates(s.rho, s.bias_scale, j0, n, rng);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    int phase = kSwIdle;
    SwDeviceState s = settled(*next.state, invalid, phase);
    const bool more = s.evaluations < s.budget;
    if (more) s.phase = kSwCandidatesMade;
    *next.state = s;
    slot_fitness[slot] = s.f_current;
    if (loop != 0) cudaGraphSetConditional(loop, more);
  }
};

}  // namespace chainsaw::device
