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

}  // namespace chainsaw
