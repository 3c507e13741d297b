// Solis-Wets (Lastra et al. 2014 §4.2, algorithm.md 2c) and the local-search chains (§4.3-4.4, 2b):
// the step-size adaptation, the bias updates, one HostEngine application, and what the host keeps
// of a chain between applications.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "core/engines/host/host_engine.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "core/profiling.hpp"
#include "core/population.hpp"
#include "core/rng.hpp"
#include "localsearch/ls_chain.hpp"
#include "localsearch/solis_wets.hpp"
#include "test_support.hpp"

namespace chainsaw {
namespace {

// ---------------------------------------------------------------------------------------------
// sw_adapt: rho and the consecutive success / failure counters.

SolisWetsParams params(int successes, int failures) {
  SolisWetsParams p;
  p.max_successes = successes;
  p.max_failures = failures;
  return p;
}

TEST(SwAdapt, RhoDoublesAfterMaxSuccessesConsecutiveSuccesses) {
  for (int max_successes : {5, 1, 3}) {
    const SolisWetsParams p = params(max_successes, 3);
    SolisWetsState s;
    s.rho = 0.3;
    for (int k = 1; k < max_successes; ++k) {
      // Forward and backward successes count alike.
      sw_adapt(s, k % 2 ? SwOutcome::kForwardSuccess : SwOutcome::kBackwardSuccess, p);
      EXPECT_EQ(s.rho, 0.3) << "after " << k << " successes";
      EXPECT_EQ(s.successes, k);
    }
    sw_adapt(s, SwOutcome::kBackwardSuccess, p);
    EXPECT_EQ(s.rho, 0.6);
    EXPECT_EQ(s.successes, 0) << "the success count restarts after an expansion";
    EXPECT_EQ(s.failures, 0);
  }
}

TEST(SwAdapt, RhoHalvesAfterMaxFailuresConsecutiveFailures) {
  for (int max_failures : {3, 1, 4}) {
    const SolisWetsParams p = params(5, max_failures);
    SolisWetsState s;
    s.rho = 0.3;
    for (int k = 1; k < max_failures; ++k) {
      sw_adapt(s, SwOutcome::kFailure, p);
      EXPECT_EQ(s.rho, 0.3) << "after " << k << " failures";
      EXPECT_EQ(s.failures, k);
    }
    sw_adapt(s, SwOutcome::kFailure, p);
    EXPECT_EQ(s.rho, 0.15);
    EXPECT_EQ(s.failures, 0) << "the failure count restarts after a contraction";
    EXPECT_EQ(s.successes, 0);
  }
}

TEST(SwAdapt, RepeatedRunsExpandAndContractRepeatedly) {
  const SolisWetsParams p = params(5, 3);
  SolisWetsState s;
  s.rho = 1.0;
  for (int k = 0; k < 15; ++k) sw_adapt(s, SwOutcome::kForwardSuccess, p);
  EXPECT_EQ(s.rho, 8.0);
  for (int k = 0; k < 9; ++k) sw_adapt(s, SwOutcome::kFailure, p);
  EXPECT_EQ(s.rho, 1.0);
}

TEST(SwAdapt, AFailureBreaksARunOfSuccessesAndASuccessBreaksARunOfFailures) {
  const SolisWetsParams p = params(5, 3);
  SolisWetsState s;
  s.rho = 0.2;
  for (int k = 0; k < 4; ++k) sw_adapt(s, SwOutcome::kForwardSuccess, p);
  sw_adapt(s, SwOutcome::kFailure, p);
  EXPECT_EQ(s.successes, 0);
  EXPECT_EQ(s.failures, 1);
  sw_adapt(s, SwOutcome::kFailure, p);
  sw_adapt(s, SwOutcome::kBackwardSuccess, p);
  EXPECT_EQ(s.successes, 1);
  EXPECT_EQ(s.failures, 0);
  // Neither run reached its threshold, so rho never moved.
  for (int k = 0; k < 4; ++k) {
    sw_adapt(s, SwOutcome::kFailure, p);
    sw_adapt(s, SwOutcome::kForwardSuccess, p);
  }
  EXPECT_EQ(s.rho, 0.2);
}

TEST(SwAdapt, NoDecisionChangesNothing) {
  const SolisWetsParams p = params(5, 3);
  for (int successes = 0; successes < 5; ++successes) {
    for (int failures = 0; failures < 3; ++failures) {
      SolisWetsState s;
      s.rho = 0.7;
      s.successes = successes;
      s.failures = failures;
      sw_adapt(s, SwOutcome::kNoDecision, p);
      EXPECT_EQ(s.rho, 0.7);
      EXPECT_EQ(s.successes, successes);
      EXPECT_EQ(s.failures, failures);
    }
  }
}

TEST(SwAdapt, UsesTheConfiguredExpansionAndContractionFactors) {
  SolisWetsParams p = params(2, 2);
  p.expand = 3.0;
  p.contract = 0.25;
  SolisWetsState s;
  s.rho = 1.0;
  sw_adapt(s, SwOutcome::kForwardSuccess, p);
  sw_adapt(s, SwOutcome::kForwardSuccess, p);
  EXPECT_EQ(s.rho, 3.0);
  sw_adapt(s, SwOutcome::kFailure, p);
  sw_adapt(s, SwOutcome::kFailure, p);
  EXPECT_EQ(s.rho, 0.75);
}

// ---------------------------------------------------------------------------------------------
// Per-gene moves and bias updates, on random values against the spec's formulas in double.

class SwGeneFormulas : public ::testing::Test {
 protected:
  // The formulas run in real_t, each operation rounded (and 0.2, 0.4 rounded to real_t): k
  // roundings of half an epsilon each are bounded by k/2 epsilons of the terms' magnitude, the
  // sum of their absolute values (not of the result, which may cancel).
  static double tolerance(double roundings, double magnitude) {
    return roundings * 0.5 * test::kGeneEps * magnitude + 1e-300;
  }
  template <class F>
  void for_random_pairs(F&& check) {
    std::mt19937_64 gen(61);
    for (int i = 0; i < 20000; ++i) {
      const double scale = std::pow(10.0, test::uniform(gen, -4.0, 2.0));
      const auto bias = static_cast<real_t>(test::uniform(gen, -scale, scale));
      const auto dif = static_cast<real_t>(test::uniform(gen, -scale, scale));
      check(bias, dif);
    }
  }
};

TEST_F(SwGeneFormulas, BiasAfterForwardSuccessIsPointTwoBiasPlusPointFourDifPlusBias) {
  for_random_pairs([](real_t bias, real_t dif) {
    const double expected = 0.2 * double(bias) + 0.4 * (double(dif) + double(bias));
    const double magnitude = 0.6 * std::fabs(bias) + 0.4 * std::fabs(dif);
    ASSERT_NEAR(sw_bias_after_forward_success(bias, dif), expected, tolerance(6, magnitude));
  });
}

TEST_F(SwGeneFormulas, BiasAfterBackwardSuccessIsBiasMinusPointFourDifPlusBias) {
  for_random_pairs([](real_t bias, real_t dif) {
    const double expected = double(bias) - 0.4 * (double(dif) + double(bias));
    const double magnitude = 1.4 * std::fabs(bias) + 0.4 * std::fabs(dif);
    ASSERT_NEAR(sw_bias_after_backward_success(bias, dif), expected, tolerance(5, magnitude));
  });
}

TEST_F(SwGeneFormulas, BiasAfterFailureIsHalved) {
  for_random_pairs([](real_t bias, real_t) {
    ASSERT_EQ(sw_bias_after_failure(bias), static_cast<real_t>(0.5 * double(bias)));
  });
}

TEST_F(SwGeneFormulas, ForwardAndBackwardCandidatesAreTheClippedMoves) {
  const double lower = -5.12, upper = 5.12;
  std::mt19937_64 gen(62);
  for (int i = 0; i < 20000; ++i) {
    const auto x = static_cast<real_t>(test::uniform(gen, lower, upper));
    const auto bias = static_cast<real_t>(test::uniform(gen, -1.0, 1.0));
    const auto dif = static_cast<real_t>(test::uniform(gen, -1.0, 1.0));
    const double fwd = std::clamp(double(x) + double(bias) + double(dif), lower, upper);
    const double bwd = std::clamp(double(x) - double(bias) - double(dif), lower, upper);
    const double magnitude = std::fabs(x) + std::fabs(bias) + std::fabs(dif);
    ASSERT_NEAR(sw_forward_gene(x, bias, dif, lower, upper), fwd, tolerance(2, magnitude));
    ASSERT_NEAR(sw_backward_gene(x, bias, dif, lower, upper), bwd, tolerance(2, magnitude));
    ASSERT_GE(double(sw_forward_gene(x, bias, dif, lower, upper)), lower);
    ASSERT_LE(double(sw_backward_gene(x, bias, dif, lower, upper)), upper);
  }
}

// ---------------------------------------------------------------------------------------------
// One application on the HostEngine.

struct SwApplication {
  LocalSearchRequest request;
  LocalSearchResult result;
  std::vector<real_t> before, after;  // the slot's genes
  double stored_fitness = 0.0;        // engine.fitness(slot) afterwards
};

SwApplication apply_sw(HostEngine& engine, const Problem& p, int slot, std::int64_t evaluations,
                       double rho, bool continue_chain = false) {
  SwApplication a;
  a.request.slot = slot;
  a.request.fitness = engine.fitness(slot);
  a.request.state.rho = rho;
  a.request.continue_chain = continue_chain;
  a.request.evaluations = evaluations;
  a.before.resize(static_cast<size_t>(p.dim));
  a.after.resize(static_cast<size_t>(p.dim));
  engine.read_genes(slot, a.before.data());
  a.result = engine.solis_wets(a.request);
  engine.read_genes(slot, a.after.data());
  a.stored_fitness = engine.fitness(slot);
  return a;
}

bool same_genes(const std::vector<real_t>& a, const std::vector<real_t>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(real_t)) == 0;
}

bool all_zero(const real_t* v, Dim n) {
  return std::all_of(v, v + n, [](real_t x) { return x == real_t{0}; });
}

TEST(HostSolisWets, FitnessNeverIncreasesAndMatchesTheKeptGenes) {
  const test::OneThread one_thread;  // small dims: see test_support.hpp
  for (const char* function : test::kAllFunctions) {
    const Config c = test::small_config(function, 301, 63);
    const Problem p = test::problem_of(c);
    HostEngine engine(c, p);
    std::mt19937_64 gen(63);
    for (int trial = 0; trial < 6; ++trial) {
      const auto x = test::random_point(p, gen, trial % 3 == 2 ? test::PointKind::kNearOptimum
                                                               : test::PointKind::kUniform);
      engine.write_genes(trial, x.data());
      double previous = engine.fitness(trial);
      // A chain of applications, continuing the state, with large and small steps.
      SolisWetsState state;
      state.rho = (trial % 2 ? 0.2 : 0.001) * p.width();
      for (int app = 0; app < 4; ++app) {
        LocalSearchRequest request;
        request.slot = trial;
        request.fitness = previous;
        request.state = state;
        request.continue_chain = app > 0;
        request.evaluations = 1 + 17 * app;
        const LocalSearchResult result = engine.solis_wets(request);
        ASSERT_LE(result.fitness, previous) << function << ", trial " << trial;
        ASSERT_EQ(result.fitness, engine.fitness(trial));
        std::vector<real_t> kept(static_cast<size_t>(p.dim));
        engine.read_genes(trial, kept.data());
        ASSERT_TRUE(test::matches_reference(p, kept.data(), result.fitness));
        previous = result.fitness;
        state = result.state;
      }
    }
  }
}

TEST(HostSolisWets, UsesExactlyTheRequestedNumberOfEvaluations) {
  const test::OneThread one_thread;  // small dims: see test_support.hpp
  const Config c = test::small_config("rastrigin", 50, 64);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  std::mt19937_64 gen(64);
  for (std::int64_t evals : {1, 2, 3, 7, 8, 100, 501}) {
    for (double rho : {0.2, 1e-4}) {  // mostly failures (2 per step) / mostly successes (1)
      const auto x = test::random_point(p, gen);
      engine.write_genes(0, x.data());
      const SwApplication a = apply_sw(engine, p, 0, evals, rho);
      EXPECT_EQ(a.result.evaluations, evals) << "rho " << rho;
    }
  }
}

TEST(HostSolisWets, GenesChangeOnlyWhenTheFitnessImproved) {
  const test::OneThread one_thread;  // small dims: see test_support.hpp
  const Config c = test::small_config("sumsquares", 40, 65);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  std::mt19937_64 gen(65);
  int improved = 0, not_improved = 0;
  for (int trial = 0; trial < 60; ++trial) {
    // At the optimum no move can improve; elsewhere one evaluation often fails.
    const auto x = trial % 4 == 0 ? test::optimum_point(p) : test::random_point(p, gen);
    engine.write_genes(1, x.data());
    const double rho = (trial % 2 ? 0.5 : 0.01) * p.width();  // big steps fail, small ones win
    const SwApplication a = apply_sw(engine, p, 1, 1 + trial % 3, rho);
    if (a.result.fitness < a.request.fitness) {
      ++improved;
      EXPECT_FALSE(same_genes(a.before, a.after));
    } else {
      ++not_improved;
      EXPECT_EQ(a.result.fitness, a.request.fitness);
      EXPECT_TRUE(same_genes(a.before, a.after)) << "trial " << trial;
      EXPECT_EQ(a.stored_fitness, a.request.fitness);
    }
  }
  EXPECT_GT(improved, 0);  // both branches were exercised
  EXPECT_GT(not_improved, 15);
}

// From the optimum every move fails, so the state follows the failure branch exactly: each step
// of two evaluations is a failure; rho halves every max_failures steps; a last lone forward
// evaluation decides nothing; a zero bias stays zero.
TEST(HostSolisWets, AtTheOptimumEveryStepIsAFailureAndRhoHalvesEveryMaxFailuresSteps) {
  Config c = test::small_config("schwefel12", 4100, 66);
  c.solis_wets.max_failures = 3;
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  const auto o = test::optimum_point(p);
  for (std::int64_t evals : {1, 2, 5, 6, 7, 8, 13}) {
    engine.write_genes(2, o.data());
    const SwApplication a = apply_sw(engine, p, 2, evals, 0.25);
    const std::int64_t failures = evals / 2;
    EXPECT_EQ(a.result.state.rho, 0.25 * std::pow(0.5, double(failures / 3))) << evals;
    EXPECT_EQ(a.result.state.failures, failures % 3) << evals;
    EXPECT_EQ(a.result.state.successes, 0) << evals;
    EXPECT_EQ(a.result.fitness, -330.0);
    EXPECT_TRUE(same_genes(a.before, a.after));
    EXPECT_TRUE(all_zero(engine.bias(2), p.dim));
  }
}

// A bias left over from an earlier chain in the slot: build it, then check it is non-zero.
std::vector<real_t> leave_a_bias(HostEngine& engine, const Problem& p, int slot) {
  std::mt19937_64 gen(67);
  const auto x = test::random_point(p, gen);
  engine.write_genes(slot, x.data());
  apply_sw(engine, p, slot, 60, 0.01 * p.width());
  std::vector<real_t> bias(engine.bias(slot), engine.bias(slot) + p.dim);
  EXPECT_FALSE(all_zero(bias.data(), p.dim)) << "precondition: the first chain left a bias";
  return bias;
}

TEST(HostSolisWets, ANewChainStartsFromAZeroBias) {
  const Config c = test::small_config("sumsquares", 4097, 68);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  leave_a_bias(engine, p, 3);
  // From the optimum one step of two evaluations fails: bias = 0.5 * (starting bias) = 0.
  const auto o = test::optimum_point(p);
  engine.write_genes(3, o.data());
  apply_sw(engine, p, 3, 2, 0.2, /*continue_chain=*/false);
  EXPECT_TRUE(all_zero(engine.bias(3), p.dim));
}

TEST(HostSolisWets, AContinuedChainKeepsItsBias) {
  const Config c = test::small_config("sumsquares", 4097, 68);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  const std::vector<real_t> old_bias = leave_a_bias(engine, p, 3);
  const auto o = test::optimum_point(p);
  engine.write_genes(3, o.data());
  apply_sw(engine, p, 3, 2, 0.2, /*continue_chain=*/true);
  // One failure halves the bias that was kept.
  for (Dim j = 0; j < p.dim; ++j)
    ASSERT_EQ(engine.bias(3)[j], sw_bias_after_failure(old_bias[j])) << "gene " << j;
}

TEST(HostSolisWets, AnotherSlotsChainDoesNotTouchThisSlotsBias) {
  const Config c = test::small_config("rastrigin", 1000, 69);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  const std::vector<real_t> bias_of_3 = leave_a_bias(engine, p, 3);
  leave_a_bias(engine, p, 4);
  EXPECT_EQ(0, std::memcmp(bias_of_3.data(), engine.bias(3), bias_of_3.size() * sizeof(real_t)));
}

// ---------------------------------------------------------------------------------------------
// Chains across applications (ls_chain.hpp) through a RecordingEngine around a HostEngine.

struct ChainFixture {
  explicit ChainFixture(Config config)
      : c(std::move(config)),
        p(test::problem_of(c)),
        host(c, p),
        engine(host, c.dim),
        pop(c.population_size, c.batch) {
    test::initialize_population(engine, pop);
  }
  LsApplication apply(int slot, std::int64_t evaluations) {
    LsContext ctx{c, p, pop, engine, timers};
    return apply_local_search(ctx, slot, evaluations);
  }
  // Puts the member in `slot` at the optimum, where no application can improve it.
  void move_to_optimum(int slot) {
    const auto o = test::optimum_point(p);
    engine.write_genes(slot, o.data());
    pop.fitness(slot) = engine.fitness(slot);
    engine.sort_slots(pop.order().data());
  }
  const test::OneThread one_thread;  // small dims: see test_support.hpp
  Config c;
  Problem p;
  HostEngine host;
  test::RecordingEngine engine;
  Population pop;
  PhaseTimers timers;
};

TEST(LsChain, TheNextApplicationStartsFromTheStateTheLastOneReturned) {
  ChainFixture f(test::small_config("sumsquares", 500, 71));
  const int slot = f.pop.member(3);
  const LsApplication first = f.apply(slot, 500);
  ASSERT_TRUE(first.chain_continues) << "precondition: 500 evaluations improve a random point";
  const LsApplication second = f.apply(slot, 500);
  ASSERT_EQ(f.engine.ls_calls.size(), 2u);
  const auto& one = f.engine.ls_calls[0];
  const auto& two = f.engine.ls_calls[1];
  EXPECT_FALSE(one.request.continue_chain);
  EXPECT_EQ(one.request.state.rho, f.c.solis_wets.rho0);
  EXPECT_TRUE(two.request.continue_chain);
  EXPECT_EQ(two.request.slot, slot);
  EXPECT_EQ(two.request.state.rho, one.result.state.rho);
  EXPECT_EQ(two.request.state.successes, one.result.state.successes);
  EXPECT_EQ(two.request.state.failures, one.result.state.failures);
  EXPECT_EQ(two.request.fitness, one.result.fitness);
  EXPECT_TRUE(same_genes(two.bias_before, one.bias_after)) << "bias vector not carried over";
  EXPECT_TRUE(same_genes(two.genes_before, one.genes_after));
  EXPECT_FALSE(all_zero(two.bias_before.data(), f.c.dim));
  // And the host remembers what the second application returned.
  if (second.chain_continues) {
    EXPECT_EQ(f.pop.chain(slot).state.rho, two.result.state.rho);
    EXPECT_EQ(f.pop.chain(slot).state.successes, two.result.state.successes);
    EXPECT_EQ(f.pop.chain(slot).state.failures, two.result.state.failures);
  }
}

// Through the whole host loop: whenever an application continues a chain, it starts from exactly
// what the last application to that slot returned (rho, counters, bias vector, genes); a new
// chain starts from the default state.
TEST(LsChain, InAFullRunEveryContinuedChainResumesWhereItsLastApplicationEnded) {
  const test::OneThread one_thread;  // small dims: see test_support.hpp
  // 100-D with the default population: the LS'd member often stays the best, so chains continue
  // (with 10 members in 200-D the GA beats the LS result every round and no chain ever would).
  Config c = test::small_config("sumsquares", 100, 78, 50, 20);
  c.max_evaluations = 20000;
  c.ls_intensity = 100;
  const Problem p = test::problem_of(c);
  HostEngine host(c, p);
  test::RecordingEngine engine(host, c.dim);
  MaSwChains algorithm(c, p, engine);
  algorithm.run();
  std::map<int, size_t> last_call;  // slot -> index into ls_calls
  int continued = 0, fresh = 0;
  for (size_t i = 0; i < engine.ls_calls.size(); ++i) {
    const auto& call = engine.ls_calls[i];
    const int slot = call.request.slot;
    if (call.request.continue_chain) {
      ++continued;
      ASSERT_TRUE(last_call.count(slot)) << "call " << i << " continues a chain never started";
      const auto& prev = engine.ls_calls[last_call[slot]];
      ASSERT_EQ(call.request.state.rho, prev.result.state.rho) << "call " << i;
      ASSERT_EQ(call.request.state.successes, prev.result.state.successes) << "call " << i;
      ASSERT_EQ(call.request.state.failures, prev.result.state.failures) << "call " << i;
      ASSERT_TRUE(same_genes(call.bias_before, prev.bias_after)) << "call " << i;
      ASSERT_TRUE(same_genes(call.genes_before, prev.genes_after)) << "call " << i;
      ASSERT_EQ(call.request.fitness, prev.result.fitness) << "call " << i;
    } else {
      ++fresh;
      ASSERT_EQ(call.request.state.rho, c.solis_wets.rho0) << "call " << i;
      ASSERT_EQ(call.request.state.successes, 0) << "call " << i;
      ASSERT_EQ(call.request.state.failures, 0) << "call " << i;
    }
    last_call[slot] = i;
  }
  EXPECT_GT(continued, 20);  // 84 of 100 with this seed
  EXPECT_GT(fresh, 2);       // 16
}

TEST(LsChain, TheChainOfOneMemberSurvivesApplicationsToOthers) {
  ChainFixture f(test::small_config("griewank", 300, 72));
  const int a = f.pop.member(0), b = f.pop.member(1);
  ASSERT_TRUE(f.apply(a, 200).chain_continues);
  const auto after_a = f.engine.ls_calls.back();
  f.apply(b, 200);
  f.apply(a, 200);
  const auto& again = f.engine.ls_calls.back();
  EXPECT_TRUE(again.request.continue_chain);
  EXPECT_EQ(again.request.state.rho, after_a.result.state.rho);
  EXPECT_EQ(again.request.state.successes, after_a.result.state.successes);
  EXPECT_EQ(again.request.state.failures, after_a.result.state.failures);
  EXPECT_TRUE(same_genes(again.bias_before, after_a.bias_after));
}

TEST(LsChain, AnApplicationWithoutImprovementMarksTheMemberFailedAndDropsItsChain) {
  ChainFixture f(test::small_config("sumsquares", 100, 73));
  const int slot = f.pop.member(2);
  ASSERT_TRUE(f.apply(slot, 100).chain_continues);
  ASSERT_TRUE(f.pop.chain(slot).has_chain);
  f.move_to_optimum(slot);
  const LsApplication app = f.apply(slot, 50);
  EXPECT_FALSE(app.chain_continues);
  EXPECT_TRUE(f.pop.chain(slot).ls_failed);
  EXPECT_FALSE(f.pop.chain(slot).has_chain);
  EXPECT_EQ(app.fitness_after, -330.0);
}

// delta is relative, |f_old - f_new| / |f_new| >= delta: with delta = 10^6 no real improvement is
// enough, so an improving application still counts as a failure of the chain.
TEST(LsChain, AnImprovementBelowDeltaMarksTheMemberFailedButKeepsTheBetterGenes) {
  Config c = test::small_config("sumsquares", 100, 74);
  c.ls_improvement_threshold = 1e6;
  ChainFixture f(c);
  const int slot = f.pop.member(1);
  const LsApplication app = f.apply(slot, 200);
  ASSERT_LT(app.fitness_after, app.fitness_before) << "precondition: the application improved";
  EXPECT_FALSE(app.chain_continues);
  EXPECT_TRUE(f.pop.chain(slot).ls_failed);
  EXPECT_FALSE(f.pop.chain(slot).has_chain);
  EXPECT_EQ(f.pop.fitness(slot), app.fitness_after);
  EXPECT_EQ(f.engine.fitness(slot), app.fitness_after);
  // The next application starts a new chain from the default state.
  f.apply(slot, 20);
  const auto& next = f.engine.ls_calls.back().request;
  EXPECT_FALSE(next.continue_chain);
  EXPECT_EQ(next.state.rho, c.solis_wets.rho0);
  EXPECT_EQ(next.state.successes, 0);
  EXPECT_EQ(next.state.failures, 0);
}

// The first rho of a new chain under the two nearest-member rules, recomputed here from the
// stored genes: d is the Euclidean distance to the nearest other (distinct) member.
double nearest_distance(ChainFixture& f, int slot) {
  std::vector<real_t> a(static_cast<size_t>(f.c.dim)), b(a.size());
  f.engine.read_genes(slot, a.data());
  double nearest = std::numeric_limits<double>::infinity();
  for (int rank = 0; rank < f.pop.size(); ++rank) {
    const int other = f.pop.member(rank);
    if (other == slot) continue;
    f.engine.read_genes(other, b.data());
    const double d = test::reference_distance(a.data(), b.data(), f.c.dim);
    if (d > 0.0) nearest = std::min(nearest, d);
  }
  return nearest;
}

// Rmalschains' getInitOptions: half the distance to the nearest member, its distance being the
// norm divided by D, at most setDelta(0.2) (here rho0). 500-D Rastrigin: d / (2D) ~ 0.09.
TEST(LsChain, ReferenceRhoInitIsHalfTheNearestDistanceOverDAtMostRho0) {
  Config c = test::small_config("rastrigin", 500, 76);
  c.rho_init = RhoInit::kReference;
  ChainFixture f(c);
  const int slot = f.pop.member(4);
  const double expected = 0.5 * nearest_distance(f, slot) / 500.0;
  ASSERT_LT(expected, c.solis_wets.rho0) << "precondition: below the cap";
  f.apply(slot, 10);
  EXPECT_NEAR(f.engine.ls_calls.back().request.state.rho, expected, 1e-12 * expected);

  Config capped = c;
  capped.solis_wets.rho0 = 0.5 * expected;
  ChainFixture g(capped);
  g.apply(g.pop.member(4), 10);
  EXPECT_EQ(g.engine.ls_calls.back().request.state.rho, capped.solis_wets.rho0);
}

// chainsaw's rule: per gene, half the RMS distance d / sqrt(D), at most a tenth of the width.
// A random population is farther apart than that (the RMS of a uniform difference is 0.41 of
// the width): a member put next to another one shows the uncapped rule.
TEST(LsChain, NearestRmsRhoInitIsHalfTheRmsDistanceAtMostATenthOfTheWidth) {
  Config c = test::small_config("sumsquares", 400, 77);
  c.rho_init = RhoInit::kNearestRms;
  ChainFixture f(c);
  const int slot = f.pop.member(2);
  f.apply(slot, 10);
  EXPECT_EQ(f.engine.ls_calls.back().request.state.rho, 0.1 * f.p.width());

  const int near = f.pop.member(5);
  std::vector<real_t> genes(static_cast<size_t>(c.dim));
  f.engine.read_genes(slot, genes.data());
  for (Dim j = 0; j < c.dim; j += 2) genes[j] += real_t{0.25};
  f.engine.write_genes(near, genes.data());
  f.pop.fitness(near) = f.engine.fitness(near);
  f.pop.chain(near) = ChainRecord{};
  f.engine.sort_slots(f.pop.order().data());
  const double expected = 0.5 * nearest_distance(f, near) / std::sqrt(400.0);
  ASSERT_LT(expected, 0.1 * f.p.width());
  f.apply(near, 10);
  EXPECT_NEAR(f.engine.ls_calls.back().request.state.rho, expected, 1e-12 * expected);
}

TEST(LsChain, HostKeepsTheSortedOrderAfterAnApplication) {
  ChainFixture f(test::small_config("rastrigin", 30, 75, 8, 4));
  for (int k = 0; k < 5; ++k) {
    f.apply(f.pop.member(k), 100);
    for (int i = 0; i + 1 < f.c.capacity(); ++i)
      ASSERT_LE(f.pop.fitness(f.pop.order()[i]), f.pop.fitness(f.pop.order()[i + 1]));
    for (int s = 0; s < f.c.capacity(); ++s) ASSERT_EQ(f.pop.fitness(s), f.engine.fitness(s));
  }
}

TEST(ImprovedByThreshold, IsRelativeToTheNewFitness) {
  EXPECT_TRUE(improved_by_threshold(100.0, 99.0, 0.01));    // 1 >= 0.99
  EXPECT_FALSE(improved_by_threshold(100.0, 99.0, 0.011));  // 1 <  1.089
  EXPECT_TRUE(improved_by_threshold(-329.0, -330.0, 1e-3));  // 1 >= 0.33
  EXPECT_FALSE(improved_by_threshold(-329.9999, -330.0, 1e-6));  // 1e-4 < 3.3e-4
  EXPECT_FALSE(improved_by_threshold(-330.0, -330.0, 0.0));  // no improvement at all
  EXPECT_FALSE(improved_by_threshold(5.0, 6.0, 0.0));        // worse
  EXPECT_TRUE(improved_by_threshold(1.0, 0.0, 1e-8));        // down to zero
}

// ---------------------------------------------------------------------------------------------
// choose_ls_individual: the best member of S_LS, or a random member when S_LS is empty.

Population population_with_fitness(const std::vector<double>& fitness, int batch) {
  Population pop(static_cast<int>(fitness.size()), batch);
  for (size_t s = 0; s < fitness.size(); ++s) pop.fitness(static_cast<int>(s)) = fitness[s];
  // Members sorted by fitness, padding slots (fitness +inf) after them.
  auto& order = pop.order();
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return pop.fitness(a) < pop.fitness(b) || (pop.fitness(a) == pop.fitness(b) && a < b);
  });
  return pop;
}

TEST(LsChoice, TakesTheBestMemberNotMarkedFailed) {
  std::mt19937_64 gen(76);
  std::vector<double> fitness(20);
  for (double& f : fitness) f = test::uniform(gen, -330.0, 1000.0);
  Population pop = population_with_fitness(fitness, 5);
  CounterRng rng(derive_key(76, 1));
  for (int failed_best = 0; failed_best < 20; ++failed_best) {
    // The best `failed_best` members have failed; the padding slots never count.
    for (int rank = 0; rank < 20; ++rank)
      pop.chain(pop.member(rank)).ls_failed = rank < failed_best;
    const LsChoice choice = choose_ls_individual(pop, rng);
    EXPECT_TRUE(choice.from_s_ls);
    EXPECT_EQ(choice.slot, pop.member(failed_best));
  }
  // Failures scattered: the best of the rest.
  for (int rank = 0; rank < 20; ++rank) pop.chain(pop.member(rank)).ls_failed = rank % 3 != 2;
  EXPECT_EQ(choose_ls_individual(pop, rng).slot, pop.member(2));
}

TEST(LsChoice, TakesAUniformlyRandomMemberWhenAllHaveFailed) {
  constexpr int kN = 10, kDraws = 20000;
  std::vector<double> fitness(kN);
  for (int s = 0; s < kN; ++s) fitness[s] = 100.0 - s;
  Population pop = population_with_fitness(fitness, 4);
  for (int s = 0; s < pop.capacity(); ++s) pop.chain(s).ls_failed = true;
  CounterRng rng(derive_key(77, 1));
  std::map<int, double> counts;
  for (int d = 0; d < kDraws; ++d) {
    const LsChoice choice = choose_ls_individual(pop, rng);
    ASSERT_FALSE(choice.from_s_ls);
    counts[choice.slot] += 1.0;
  }
  ASSERT_EQ(static_cast<int>(counts.size()), kN) << "not every member was drawn";
  for (const auto& [slot, count] : counts) {
    EXPECT_LT(slot, kN) << "a padding slot was chosen";
    EXPECT_NEAR(count, kDraws / double(kN), 5.0 * std::sqrt(kDraws * 0.1 * 0.9)) << slot;
  }
}

}  // namespace
}  // namespace chainsaw
