// The Solis-Wets operations launched per step (producers for fitness/device_reduce.cuh): a move
// evaluated as it is made or stored for a launch of its own (SwMoveOp, SwDecideOp), both moves in
// one pass (SwBothMovesOp), the apply step after a success (SwApplyOp), the bias brought back
// to scale 1 (SwScaleBiasOp).
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include "core/gpu/device_random.cuh"
#include "core/types.hpp"
#include "fitness/device_fitness.cuh"
#include "fitness/device_genes.cuh"
#include "fitness/device_terms.cuh"
#include "localsearch/device_sw_moves.cuh"
#include "localsearch/device_sw_state.cuh"
#include "localsearch/solis_wets.hpp"

namespace chainsaw::device {

// candidate == nullptr: the candidate is evaluated as it is made and the move decides.
// Otherwise (CEC 2010, whose groups gather from the whole vector) the candidate is stored there
// and SwDecideOp evaluates it and decides, in the next launch.
struct SwMoveOp {
  static constexpr bool kUsesRng = true;
  __device__ bool stores_rng() const { return forward; }
  bool forward;
  SwDeviceState* state;
  const real_t* x;
  const real_t* bias;
  double lower, upper;
  Dim dim;
  real_t* candidate = nullptr;
  unsigned long long* invalid = nullptr;  // the count of NaN and -inf values (MayBeInvalid terms)
  __device__ bool active() const { return sw_move_active(forward, state); }
  __device__ void produce(int, Dim j0, int n, double (&v)[kVec], curandState& rng) const {
    real_t xs[kVec], bs[kVec], c[kVec];
    load_genes(x + j0, n, xs);
    load_genes(bias + j0, n, bs);
    const real_t rho = static_cast<real_t>(state->rho);
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) {
      const real_t dif = mul_rn(rho, normal01(rng));
      c[k] = forward ? sw_forward_gene(xs[k], bs[k], dif, lower, upper)
                     : sw_backward_gene(xs[k], bs[k], dif, lower, upper);
      v[k] = c[k];
    }
    if (candidate != nullptr) store_genes(candidate + j0, n, c);
  }
  template <class Term>
  __device__ void finish(int, const Term& term, const typename Term::Partial& p) const {
    if (candidate == nullptr) sw_decide(forward, state, ranked_value(term, p, dim, invalid));
  }
};

// Evaluates a stored candidate (pair with a CecTerm on it) and decides, as SwMoveOp would.
struct SwDecideOp {
  static constexpr bool kUsesRng = false;
  __device__ bool stores_rng() const { return false; }
  bool forward;
  SwDeviceState* state;
  const real_t* candidate;
  Dim dim;
  __device__ bool active() const { return sw_move_active(forward, state); }
  __device__ void produce(int, Dim j0, int n, double (&v)[kVec], curandState&) const {
    real_t c[kVec];
    load_genes(candidate + j0, n, c);
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) v[k] = c[k];
  }
  template <class Term>
  __device__ void finish(int, const Term& term, const typename Term::Partial& p) const {
    sw_decide(forward, state, term.value(p, dim));
  }
};

// Both moves of a step in one pass: the forward candidate x' and the backward one x'' share the
// loads of x and bias and the normals of dif, each reduced in the tree it would have alone. The
// backward value counts as an evaluation only when the forward move fails and the application
// has one left. A failure is settled here (bias_scale halves, rho and the counters adapt), so
// SwApplyOp runs only after a success. Functions whose candidate is evaluated apart (stored)
// keep the separate moves. L genes per lane's run: kVec, or kShortLane where the step's grid
// would otherwise leave SMs idle (sw_lane_genes); SwApplyOp<L> maps genes to threads alike.
template <int L = kVec>
struct SwBothMovesOp {
  static constexpr bool kUsesRng = true;
  static constexpr int kLaneGenes = L;
  using Values = double[2][L];
  __device__ bool stores_rng() const { return true; }
  SwDeviceState* state;
  const real_t* x;
  const real_t* bias;
  double lower, upper;
  Dim dim;
  SolisWetsParams params;
  unsigned long long* invalid = nullptr;  // the count of NaN and -inf values (MayBeInvalid terms)
  __device__ bool active() const { return sw_move_active(true, state); }
  // The chain kernel's step makes the same candidates with its rho and scale from registers
  // (SwChainStepOp).
  __device__ void produce(int, Dim j0, int n, Values& v, curandState& rng) const {
    sw_both_candidates_run(state->rho, state->bias_scale, x + j0, bias + j0, n, rng, lower,
                           upper, v[0], v[1]);
  }
  // Settles the step in s from its two partials: the forward value counts as an evaluation,
  // the backward one only when the forward move failed and the application has one left. A
  // success sets the phase (the caller moves x and the bias, then adapts); a failure halves
  // bias_scale and adapts.
  template <class Term>
  __device__ void settle(SwDeviceState& s, const PairTerm<Term>& pair,
                         const typename PairTerm<Term>::Partial& p) const {
    sw_settle_both(s, params, [&](bool forward) {
      return ranked_value(pair.term, forward ? p.part[0] : p.part[1], dim, invalid);
    });
  }
  template <class Term>
  __device__ void finish(int, const PairTerm<Term>& pair,
                         const typename PairTerm<Term>::Partial& p) const {
    SwDeviceState s = *state;
    settle(s, pair, p);
    *state = s;  // after a success SwApplyOp moves x and the bias, then adapts
  }
};

// Brings a bias left at bias_scale != 1 by SwBothMovesOp's failures back to scale 1.
struct SwScaleBiasOp {
  static constexpr bool kUsesRng = false;
  __device__ bool stores_rng() const { return false; }
  SwDeviceState* state;
  real_t* bias;
  __device__ bool active() const { return state->bias_scale != 1.0; }
  __device__ void produce(int, Dim j0, int n, double (&)[kVec], curandState&) const {
    sw_scale_bias_run(state->bias_scale, bias + j0, n);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    state->bias_scale = 1.0;
  }
};

template <int L = kVec>
struct SwApplyOp {
  static constexpr bool kUsesRng = true;
  static constexpr int kLaneGenes = L;
  __device__ bool stores_rng() const { return false; }
  SwDeviceState* state;
  real_t* x;
  real_t* bias;
  double lower, upper;
  SolisWetsParams params;
  double* slot_fitness;
  int slot;
  __device__ bool active() const { return state->phase != kSwIdle; }
  __device__ void produce(int, Dim j0, int n, double (&)[L], curandState& rng) const {
    sw_apply_run<L>(state->phase, state->rho, state->bias_scale, x + j0, bias + j0, n, rng,
                    lower, upper);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    SwDeviceState s = *state;
    sw_adapt_after_apply(s, params);
    *state = s;
    slot_fitness[slot] = s.f_current;
  }
};

}  // namespace chainsaw::device
