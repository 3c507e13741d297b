// ss_improve's body (a template: the evaluation is the caller's).
#pragma once

#include <vector>

#include "core/algorithms/population_ops.hpp"

namespace chainsaw {

template <class Evaluate>
std::int64_t ss_improve(real_t* x, double& fx, Dim dim, double rho, int iterations,
                        std::int64_t max_evaluations, const SolisWetsParams& params, double lower,
                        double upper, std::uint64_t key, Evaluate&& evaluate) {
  const auto n = static_cast<std::size_t>(dim);
  std::vector<real_t> bias(n, real_t{0}), dif(n), candidate(n);
  SolisWetsState state;
  state.rho = rho;
  std::int64_t spent = 0;
  for (int step = 0; step < iterations && spent < max_evaluations; ++step) {
    const std::uint64_t step_key = derive_key(key, static_cast<std::uint64_t>(step));
    for (Dim j = 0; j < dim; ++j) {
      dif[j] = static_cast<real_t>(state.rho * normal_at(step_key, static_cast<std::uint64_t>(j)));
      candidate[j] = sw_forward_gene(x[j], bias[j], dif[j], lower, upper);
    }
    SwOutcome outcome = SwOutcome::kNoDecision;
    const double forward = evaluate(candidate.data());
    ++spent;
    if (forward < fx) {
      outcome = SwOutcome::kForwardSuccess;
      fx = forward;
      for (Dim j = 0; j < dim; ++j) {
        x[j] = candidate[j];
        bias[j] = sw_bias_after_forward_success(bias[j], dif[j]);
      }
    } else if (spent < max_evaluations) {
      for (Dim j = 0; j < dim; ++j) candidate[j] = sw_backward_gene(x[j], bias[j], dif[j], lower, upper);
      const double backward = evaluate(candidate.data());
      ++spent;
      if (backward < fx) {
        outcome = SwOutcome::kBackwardSuccess;
        fx = backward;
        for (Dim j = 0; j < dim; ++j) {
          x[j] = candidate[j];
          bias[j] = sw_bias_after_backward_success(bias[j], dif[j]);
        }
      } else {
        outcome = SwOutcome::kFailure;
        for (Dim j = 0; j < dim; ++j) bias[j] = sw_bias_after_failure(bias[j]);
      }
    }
    sw_adapt(state, outcome, params);
  }
  return spent;
}

}  // namespace chainsaw
