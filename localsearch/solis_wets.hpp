// Solis-Wets (Lastra et al. 2014 §4.2) in the form of the LS-chains authors' reference code
// (algorithm.md 2c): per-gene moves and bias updates, and the scalar step-size adaptation.
// Written once; both backends call these.
#pragma once

#include "core/types.hpp"

namespace chainsaw {

struct SolisWetsParams {
  double rho0 = 0.2;
  int max_successes = 5;  // consecutive successes before rho doubles
  int max_failures = 3;   // consecutive failures before rho halves
  double expand = 2.0;
  double contract = 0.5;
};

// The scalar part of a chain's state; the bias vector lives with the slot in the engine.
struct SolisWetsState {
  double rho = 0.2;
  int successes = 0;
  int failures = 0;
};

// The per-gene moves are computed in the genes' precision (real_t), in which they are stored:
// float64 for float genes cost the GPU's Solis-Wets step five quarter-rate conversions per gene
// on its critical path (bench/results/2026-11-27-h100-gene-precision). Products go through
// mul_rn (core/types.hpp).

// A candidate clipped to the bounds. kMinMax, on the GPU: as a max and a min, two instructions
// where clamp_to takes two compares and two selects, four times per gene in the Solis-Wets pass;
// the same value for every candidate but NaN, which the moves of finite genes never make
// (kSwClipsByMinMax says which kernels take it).
template <bool kMinMax = false>
CHAINSAW_HD real_t sw_clip(real_t v, double lower, double upper) {
#if defined(__CUDA_ARCH__)
  if constexpr (kMinMax)
    return fmin(fmax(v, static_cast<real_t>(lower)), static_cast<real_t>(upper));
#endif
  return clamp_to<real_t>(v, static_cast<real_t>(lower), static_cast<real_t>(upper));
}
// Forward candidate x' = clip(x + bias + dif).
template <bool kMinMax = false>
CHAINSAW_HD real_t sw_forward_gene(real_t x, real_t bias, real_t dif, double lower, double upper) {
  return sw_clip<kMinMax>(x + bias + dif, lower, upper);
}
// Backward candidate x'' = clip(x - bias - dif).
template <bool kMinMax = false>
CHAINSAW_HD real_t sw_backward_gene(real_t x, real_t bias, real_t dif, double lower,
                                    double upper) {
  return sw_clip<kMinMax>(x - bias - dif, lower, upper);
}
CHAINSAW_HD real_t sw_bias_after_forward_success(real_t bias, real_t dif) {
  return mul_rn(real_t(0.2), bias) + mul_rn(real_t(0.4), dif + bias);
}
CHAINSAW_HD real_t sw_bias_after_backward_success(real_t bias, real_t dif) {
  return bias - mul_rn(real_t(0.4), dif + bias);
}
CHAINSAW_HD real_t sw_bias_after_failure(real_t bias) {
  return static_cast<real_t>(0.5 * bias);
}

enum class SwOutcome { kForwardSuccess, kBackwardSuccess, kFailure, kNoDecision };

// Counters and rho after one step. kNoDecision: the forward move failed with no evaluation left
// for the backward move in this application, so nothing is recorded.
CHAINSAW_HD void sw_adapt(SolisWetsState& s, SwOutcome outcome, const SolisWetsParams& p) {
  if (outcome == SwOutcome::kForwardSuccess || outcome == SwOutcome::kBackwardSuccess) {
    ++s.successes;
    s.failures = 0;
  } else if (outcome == SwOutcome::kFailure) {
    ++s.failures;
    s.successes = 0;
  }
  if (s.successes >= p.max_successes) {
    s.rho *= p.expand;
    s.successes = 0;
  } else if (s.failures >= p.max_failures) {
    s.rho *= p.contract;
    s.failures = 0;
  }
}

// The bias of n genes after a decided step (the outcome is not kNoDecision).
CHAINSAW_HD void sw_update_bias(SwOutcome outcome, const real_t* dif, real_t* bias, Dim n) {
  if (outcome == SwOutcome::kForwardSuccess)
    for (Dim j = 0; j < n; ++j) bias[j] = sw_bias_after_forward_success(bias[j], dif[j]);
  else if (outcome == SwOutcome::kBackwardSuccess)
    for (Dim j = 0; j < n; ++j) bias[j] = sw_bias_after_backward_success(bias[j], dif[j]);
  else
    for (Dim j = 0; j < n; ++j) bias[j] = sw_bias_after_failure(bias[j]);
}

// One step on the host, the decision both host callers share: the forward move, the backward
// move after its failure when `backward_allowed` (the application has an evaluation left), the
// improving candidate taken, then the bias and rho adapted. evaluate(forward) makes that move's
// candidate and returns its f; accept() makes the candidate the current point; update_bias
// (outcome) runs after a decision only. Returns the evaluations spent (1 or 2). The GPU takes the
// same decision split over its launches (localsearch/device_sw_state.cuh).
template <class Evaluate, class Accept, class UpdateBias>
int sw_step(double& f_current, bool backward_allowed, SolisWetsState& state,
            const SolisWetsParams& params, Evaluate&& evaluate, Accept&& accept,
            UpdateBias&& update_bias) {
  SwOutcome outcome = SwOutcome::kNoDecision;
  int spent = 1;
  const double f_forward = evaluate(true);
  if (f_forward < f_current) {
    outcome = SwOutcome::kForwardSuccess;
    f_current = f_forward;
  } else if (backward_allowed) {
    const double f_backward = evaluate(false);
    ++spent;
    if (f_backward < f_current) {
      outcome = SwOutcome::kBackwardSuccess;
      f_current = f_backward;
    } else {
      outcome = SwOutcome::kFailure;
    }
  }
  if (outcome == SwOutcome::kForwardSuccess || outcome == SwOutcome::kBackwardSuccess) accept();
  if (outcome != SwOutcome::kNoDecision) update_bias(outcome);
  sw_adapt(state, outcome, params);
  return spent;
}

}  // namespace chainsaw
