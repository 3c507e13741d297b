// Solis-Wets on the GPU with the success/failure decision taken on the device. A step is three
// launches that read and update a small device-resident state; the host enqueues steps without
// waiting and reads the state back only to learn how many evaluations are left (at most
// log2(I_str) times per application, see CudaEngine::solis_wets).
//
//   forward  : x' = clip(x + bias + dif), evaluated; decides success or asks for the backward move
//   backward : only if asked: x'' = clip(x - bias - dif), evaluated; decides success/failure
//   apply    : moves x and updates bias as decided, then adapts rho and the counters
//
// dif is never stored: every launch of a step restores the same per-thread XORWOW states and
// draws the same normals. `forward` stores the advanced states into the other of two buffers
// (the host alternates them per step; the device counts the flips in rng_parity), so `apply`
// needs no normals after a failure. A candidate is never stored either: `apply` recomputes the
// accepted move from x, bias and dif (clipping is deterministic), so a step moves 2 vectors per
// evaluation plus the update instead of 4-5.
#pragma once

#include "localsearch/solis_wets.hpp"
#include "ssga/device_ops.cuh"

namespace chainsaw::device {

enum SwPhase : int {
  kSwIdle = 0,
  kSwForwardSuccess,
  kSwBackwardSuccess,
  kSwFailure,
  kSwNeedBackward,
  kSwNoDecision,
};

struct SwDeviceState {
  double f_current;
  double rho;
  long long evaluations;
  long long budget;
  int successes;
  int failures;
  int phase;
  int rng_parity;  // how many forward moves ran, mod 2: which RNG buffer is current
  // The stored bias times this is the chain's bias. A failure halves the bias: with both moves
  // in one pass (SwBothMovesOp) that is this power of two, exact, instead of a pass over the
  // vector; a success's apply writes the whole bias and resets it to 1, and an application
  // that ends below 1 scales the vector once (SwScaleBiasOp).
  double bias_scale;
};

// Whether the forward (backward) move of a step runs: read by every launch of that move.
__device__ inline bool sw_move_active(bool forward, const SwDeviceState* state) {
  return forward ? state->evaluations < state->budget && state->phase == kSwIdle
                 : state->phase == kSwNeedBackward;
}

// The decision after a move's evaluation f.
__device__ inline void sw_decide(bool forward, SwDeviceState* state, double f) {
  SwDeviceState s = *state;
  ++s.evaluations;
  if (forward) s.rng_parity ^= 1;
  if (f < s.f_current) {
    s.f_current = f;
    s.phase = forward ? kSwForwardSuccess : kSwBackwardSuccess;
  } else if (forward) {
    s.phase = s.evaluations < s.budget ? kSwNeedBackward : kSwNoDecision;
  } else {
    s.phase = kSwFailure;
  }
  *state = s;
}

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
      const real_t dif = rho * normal01(rng);
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
// keep the separate moves.
struct SwBothMovesOp {
  static constexpr bool kUsesRng = true;
  using Values = double[2][kVec];
  __device__ bool stores_rng() const { return true; }
  SwDeviceState* state;
  const real_t* x;
  const real_t* bias;
  double lower, upper;
  Dim dim;
  SolisWetsParams params;
  unsigned long long* invalid = nullptr;  // the count of NaN and -inf values (MayBeInvalid terms)
  __device__ bool active() const { return sw_move_active(true, state); }
  __device__ void produce(int, Dim j0, int n, double (&v)[2][kVec], curandState& rng) const {
    real_t xs[kVec], bs[kVec];
    load_genes(x + j0, n, xs);
    load_genes(bias + j0, n, bs);
    const real_t rho = static_cast<real_t>(state->rho);
    const double scale = state->bias_scale;
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) {
      const real_t b = static_cast<real_t>(scale * bs[k]);
      const real_t dif = rho * normal01(rng);
      v[0][k] = sw_forward_gene(xs[k], b, dif, lower, upper);
      v[1][k] = sw_backward_gene(xs[k], b, dif, lower, upper);
    }
  }
  template <class Term>
  __device__ void finish(int, const PairTerm<Term>& pair,
                         const typename PairTerm<Term>::Partial& p) const {
    SwDeviceState s = *state;
    s.rng_parity ^= 1;
    ++s.evaluations;
    const double f_forward = ranked_value(pair.term, p.first, dim, invalid);
    SwOutcome outcome = SwOutcome::kNoDecision;
    if (f_forward < s.f_current) {
      s.f_current = f_forward;
      s.phase = kSwForwardSuccess;
      *state = s;
      return;  // SwApplyOp moves x and the bias, then adapts
    }
    if (s.evaluations < s.budget) {
      ++s.evaluations;
      const double f_backward = ranked_value(pair.term, p.second, dim, invalid);
      if (f_backward < s.f_current) {
        s.f_current = f_backward;
        s.phase = kSwBackwardSuccess;
        *state = s;
        return;
      }
      outcome = SwOutcome::kFailure;
      s.bias_scale *= 0.5;  // sw_bias_after_failure, exact for a power of two
    }
    SolisWetsState scalar{s.rho, s.successes, s.failures};
    sw_adapt(scalar, outcome, params);
    s.rho = scalar.rho;
    s.successes = scalar.successes;
    s.failures = scalar.failures;
    s.phase = kSwIdle;
    *state = s;
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
    real_t bs[kVec];
    load_genes(bias + j0, n, bs);
    const double scale = state->bias_scale;
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) bs[k] = static_cast<real_t>(scale * bs[k]);
    store_genes(bias + j0, n, bs);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    state->bias_scale = 1.0;
  }
};

struct SwApplyOp {
  static constexpr bool kUsesRng = true;
  __device__ bool stores_rng() const { return false; }
  SwDeviceState* state;
  real_t* x;
  real_t* bias;
  double lower, upper;
  SolisWetsParams params;
  double* slot_fitness;
  int slot;
  __device__ bool active() const { return state->phase != kSwIdle; }
  __device__ void produce(int, Dim j0, int n, double (&)[kVec], curandState& rng) const {
    const int phase = state->phase;
    if (phase == kSwNoDecision) return;
    real_t xs[kVec], bs[kVec], dif[kVec];
    load_genes(bias + j0, n, bs);
    const double scale = state->bias_scale;  // below 1 only after SwBothMovesOp's failures
    if (scale != 1.0) {
      #pragma unroll
      for (int k = 0; k < kVec; ++k)
        if (k < n) bs[k] = static_cast<real_t>(scale * bs[k]);
    }
    if (phase == kSwFailure) {
      #pragma unroll
      for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
        if (k < n) bs[k] = sw_bias_after_failure(bs[k]);
    } else {
      const real_t rho = static_cast<real_t>(state->rho);
      #pragma unroll
      for (int k = 0; k < kVec; ++k)  // the forward move's normals, drawn again
        if (k < n) dif[k] = rho * normal01(rng);
      load_genes(x + j0, n, xs);
      const bool fwd = phase == kSwForwardSuccess;
      #pragma unroll
      for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
        if (k < n) {
        xs[k] = fwd ? sw_forward_gene(xs[k], bs[k], dif[k], lower, upper)
                    : sw_backward_gene(xs[k], bs[k], dif[k], lower, upper);
        bs[k] = fwd ? sw_bias_after_forward_success(bs[k], dif[k])
                    : sw_bias_after_backward_success(bs[k], dif[k]);
      }
      store_genes(x + j0, n, xs);
    }
    store_genes(bias + j0, n, bs);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    SwDeviceState s = *state;
    SolisWetsState scalar{s.rho, s.successes, s.failures};
    const SwOutcome outcome = s.phase == kSwForwardSuccess    ? SwOutcome::kForwardSuccess
                              : s.phase == kSwBackwardSuccess ? SwOutcome::kBackwardSuccess
                              : s.phase == kSwFailure         ? SwOutcome::kFailure
                                                              : SwOutcome::kNoDecision;
    sw_adapt(scalar, outcome, params);
    s.rho = scalar.rho;
    s.successes = scalar.successes;
    s.failures = scalar.failures;
    s.phase = kSwIdle;
    s.bias_scale = 1.0;  // the whole bias was written at its scale
    *state = s;
    slot_fitness[slot] = s.f_current;
  }
};

}  // namespace chainsaw::device
