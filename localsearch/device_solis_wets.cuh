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
    *state = s;
    slot_fitness[slot] = s.f_current;
  }
};

}  // namespace chainsaw::device
