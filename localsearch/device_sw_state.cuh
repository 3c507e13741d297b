// The state of a Solis-Wets application on the GPU (SwDeviceState), in device memory between
// the launches of its steps, and how a step's outcome changes it: the decision after a move,
// the settling of a step whose two candidates were evaluated, the adaptation of rho and the
// counters after the accepted move (the host's rules, localsearch/solis_wets.hpp).
#pragma once

#include <cuda_runtime.h>

#include "localsearch/solis_wets.hpp"

namespace chainsaw::device {

enum SwPhase : int {
  kSwIdle = 0,
  kSwForwardSuccess,
  kSwBackwardSuccess,
  kSwFailure,
  kSwNeedBackward,
  kSwNoDecision,
  kSwCandidatesMade,  // a user objective's step: both candidates wait for their values
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

// Settles in s a step whose two candidates were both evaluated; value(forward) gives a
// candidate's f. The forward value counts as an evaluation, the backward one (asked for only
// then) when the forward move failed and the application has one left. A success sets the phase
// (the caller moves x and the bias, then adapts: sw_adapt_after_apply); a failure halves
// bias_scale and adapts.
template <class Value>
__device__ void sw_settle_both(SwDeviceState& s, const SolisWetsParams& params,
                               const Value& value) {
  s.rng_parity ^= 1;
  ++s.evaluations;
  const double f_forward = value(true);
  SwOutcome outcome = SwOutcome::kNoDecision;
  if (f_forward < s.f_current) {
    s.f_current = f_forward;
    s.phase = kSwForwardSuccess;
    return;
  }
  if (s.evaluations < s.budget) {
    ++s.evaluations;
    const double f_backward = value(false);
    if (f_backward < s.f_current) {
      s.f_current = f_backward;
      s.phase = kSwBackwardSuccess;
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
}

// The scalar part after the step's move was applied: rho and the counters adapt to its outcome,
// and the bias was written at its scale.
__device__ inline void sw_adapt_after_apply(SwDeviceState& s, const SolisWetsParams& params) {
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
  s.bias_scale = 1.0;
}

}  // namespace chainsaw::device
