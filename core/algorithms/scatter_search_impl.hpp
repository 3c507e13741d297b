// ss_improve's body (a template: the evaluation is the caller's).
#pragma once

#include <algorithm>
#include <vector>

#include "core/algorithms/population_ops.hpp"
#include "localsearch/solis_wets.hpp"

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
    auto move = [&](bool forward) {
      if (forward) {
        for (Dim j = 0; j < dim; ++j) {
          const double normal = normal_at(step_key, static_cast<std::uint64_t>(j));
          dif[j] = static_cast<real_t>(state.rho * normal);
          candidate[j] = sw_forward_gene(x[j], bias[j], dif[j], lower, upper);
        }
      } else {
        for (Dim j = 0; j < dim; ++j)
          candidate[j] = sw_backward_gene(x[j], bias[j], dif[j], lower, upper);
      }
      return evaluate(candidate.data());
    };
    auto accept = [&] { std::copy(candidate.begin(), candidate.end(), x); };
    auto update_bias = [&](SwOutcome outcome) {
      sw_update_bias(outcome, dif.data(), bias.data(), dim);
    };
    spent += sw_step(fx, max_evaluations - spent > 1, state, params, move, accept, update_bias);
  }
  return spent;
}

}  // namespace chainsaw
