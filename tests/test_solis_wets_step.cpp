// sw_step, one Solis-Wets step's decision as HostEngine::solis_wets and ss_improve take it (their
// results are in test_solis_wets.cpp and test_algorithms.cpp), and sw_update_bias.
#include <gtest/gtest.h>

#include <vector>

#include "localsearch/solis_wets.hpp"

namespace chainsaw {
namespace {

const SolisWetsParams kParams{0.2, 5, 3, 2.0, 0.5};

// What a step did with its callbacks, given the f of its forward and backward candidates.
struct StepRecord {
  std::vector<bool> evaluated;  // the moves asked for, in order (true: forward)
  int accepted = 0;
  std::vector<SwOutcome> bias_updates;
  int spent = 0;
  double f_current = 0.0;
  SolisWetsState state;
};

StepRecord one_step(double f_current, double f_forward, double f_backward, bool backward_allowed,
                    SolisWetsState state = {}) {
  StepRecord r;
  r.f_current = f_current;
  r.state = state;
  auto evaluate = [&](bool forward) {
    r.evaluated.push_back(forward);
    return forward ? f_forward : f_backward;
  };
  auto accept = [&] { ++r.accepted; };
  auto update_bias = [&](SwOutcome outcome) { r.bias_updates.push_back(outcome); };
  r.spent = sw_step(r.f_current, backward_allowed, r.state, kParams, evaluate, accept,
                    update_bias);
  return r;
}

TEST(SwStep, ABetterForwardCandidateIsTakenWithoutTheBackwardMove) {
  const StepRecord r = one_step(5.0, 4.0, 1.0, true);
  EXPECT_EQ(r.evaluated, std::vector<bool>{true});
  EXPECT_EQ(r.spent, 1);
  EXPECT_EQ(r.f_current, 4.0);
  EXPECT_EQ(r.accepted, 1);
  EXPECT_EQ(r.bias_updates, std::vector<SwOutcome>{SwOutcome::kForwardSuccess});
  EXPECT_EQ(r.state.successes, 1);
}

TEST(SwStep, AfterAFailedForwardMoveABetterBackwardCandidateIsTaken) {
  const StepRecord r = one_step(5.0, 5.0, 4.5, true);
  EXPECT_EQ(r.evaluated, (std::vector<bool>{true, false}));
  EXPECT_EQ(r.spent, 2);
  EXPECT_EQ(r.f_current, 4.5);
  EXPECT_EQ(r.accepted, 1);
  EXPECT_EQ(r.bias_updates, std::vector<SwOutcome>{SwOutcome::kBackwardSuccess});
  EXPECT_EQ(r.state.successes, 1);
}

TEST(SwStep, TwoCandidatesNoBetterAreAFailureThatKeepsThePoint) {
  SolisWetsState before;
  before.rho = 0.4;
  before.failures = 2;  // the third failure halves rho
  const StepRecord r = one_step(5.0, 6.0, 5.0, true, before);
  EXPECT_EQ(r.spent, 2);
  EXPECT_EQ(r.f_current, 5.0);
  EXPECT_EQ(r.accepted, 0);
  EXPECT_EQ(r.bias_updates, std::vector<SwOutcome>{SwOutcome::kFailure});
  EXPECT_EQ(r.state.rho, 0.2);
  EXPECT_EQ(r.state.failures, 0);
}

TEST(SwStep, AFailedForwardMoveWithNoEvaluationLeftDecidesNothing) {
  SolisWetsState before;
  before.successes = 3;
  const StepRecord r = one_step(5.0, 6.0, 1.0, false, before);
  EXPECT_EQ(r.evaluated, std::vector<bool>{true});
  EXPECT_EQ(r.spent, 1);
  EXPECT_EQ(r.f_current, 5.0);
  EXPECT_EQ(r.accepted, 0);
  EXPECT_TRUE(r.bias_updates.empty());
  EXPECT_EQ(r.state.successes, 3);
  EXPECT_EQ(r.state.failures, 0);
}

TEST(SwUpdateBias, EachOutcomeAppliesItsGeneFormula) {
  const std::vector<real_t> dif = {real_t(0.5), real_t(-1.25), real_t(2)};
  const std::vector<real_t> bias = {real_t(1), real_t(0.25), real_t(-3)};
  for (SwOutcome outcome :
       {SwOutcome::kForwardSuccess, SwOutcome::kBackwardSuccess, SwOutcome::kFailure}) {
    std::vector<real_t> updated = bias;
    sw_update_bias(outcome, dif.data(), updated.data(), 3);
    for (std::size_t j = 0; j < bias.size(); ++j) {
      const real_t expected =
          outcome == SwOutcome::kForwardSuccess    ? sw_bias_after_forward_success(bias[j], dif[j])
          : outcome == SwOutcome::kBackwardSuccess ? sw_bias_after_backward_success(bias[j], dif[j])
                                                   : sw_bias_after_failure(bias[j]);
      EXPECT_EQ(updated[j], expected) << "gene " << j;
    }
  }
}

}  // namespace
}  // namespace chainsaw
