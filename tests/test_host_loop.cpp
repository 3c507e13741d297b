// The MA-SW-Chains host loop on the CPU (Lastra et al. 2014 Fig. 2-3, algorithm.md "The loop"): the
// exact evaluation budget, the LS share r_L/G, bit-reproducibility across thread counts, and that
// the search actually searches.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/engines/host/host_engine.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "core/error.hpp"
#include "test_support.hpp"

namespace chainsaw {
namespace {

Config loop_config(const std::string& function, Dim dim, std::int64_t budget,
                   std::uint64_t seed = 1) {
  Config c;
  c.function = function;
  c.dim = dim;
  c.max_evaluations = budget;
  c.seed = seed;
  c.backend = Backend::kCpu;
  c.validate();
  return c;
}


// ---------------------------------------------------------------------------------------------
// Budget

struct CountedRun {
  RunResult result;
  std::int64_t engine_evaluations = 0;  // as the engine calls add up
};

CountedRun counted_run(const Config& c) {
  const Problem p = test::problem_of(c);
  HostEngine host(c, p);
  test::RecordingEngine engine(host, c.dim);
  MaSwChains algorithm(c, p, engine);
  CountedRun r;
  r.result = algorithm.run();
  r.engine_evaluations = engine.evaluations;
  return r;
}

TEST(HostLoopBudget, StopsAtExactlyTheEvaluationBudget) {
  const test::OneThread one_thread;
  // The minimum (the initial population), one more, around a batch (20) and I_str (500), and
  // budgets that are multiples of neither.
  for (std::int64_t budget : {50, 51, 69, 70, 71, 499, 500, 501, 999, 1000, 1001, 1499, 2047,
                              5003}) {
    const CountedRun r = counted_run(loop_config("rastrigin", 13, budget, 3));
    EXPECT_EQ(r.result.counters.evaluations, budget);
    EXPECT_EQ(r.engine_evaluations, budget);
    EXPECT_EQ(r.result.counters.ga_evaluations + r.result.counters.ls_evaluations, budget);
  }
}

TEST(HostLoopBudget, AtTheMinimumBudgetOnlyTheInitialPopulationIsEvaluated) {
  const test::OneThread one_thread;
  const CountedRun r = counted_run(loop_config("sumsquares", 7, 50, 4));
  EXPECT_EQ(r.result.counters.evaluations, 50);
  EXPECT_EQ(r.result.counters.ls_evaluations, 0);
  EXPECT_EQ(r.result.counters.ls_applications, 0);
}

// Batch 7, I_str 33, r 0.3, the neighbour rho and the restart option (whose n - 1 new members
// must also fit in the budget).
TEST(HostLoopBudget, StopsAtExactlyTheBudgetWithOtherSizesAndOptions) {
  const test::OneThread one_thread;
  std::int64_t restarts = 0;
  for (std::int64_t budget : {10, 11, 16, 17, 18, 99, 100, 1237, 4001, 20000}) {
    Config c = loop_config("griewank", 5, 50, 5);
    c.max_evaluations = budget;
    c.population_size = 10;
    c.batch = 7;
    c.ls_intensity = 33;
    c.ls_ratio = 0.3;
    c.restart = true;
    c.rho_init = RhoInit::kNearestRms;
    c.validate();
    const CountedRun r = counted_run(c);
    EXPECT_EQ(r.result.counters.evaluations, budget);
    EXPECT_EQ(r.engine_evaluations, budget);
    EXPECT_EQ(r.result.counters.ga_evaluations + r.result.counters.ls_evaluations, budget);
    restarts += r.result.counters.restarts;
  }
  EXPECT_GT(restarts, 0) << "the restart path was never exercised";
}

// ---------------------------------------------------------------------------------------------
// The LS share

// n_frec keeps the LS share at r once the round's I_str LS evaluations are spent: simulate the
// accounting of the loop round by round.
TEST(SsgaEvaluationsForRatio, KeepsTheLsShareAtTheRatioAfterEveryRound) {
  for (double r : {0.1, 0.25, 0.5, 0.75, 0.9}) {
    for (std::int64_t intensity : {500, 33}) {
      std::int64_t ga = 50, ls = 0;
      for (int round = 0; round < 30; ++round) {
        const std::int64_t n = ssga_evaluations_for_ratio(ga, ls, intensity, r);
        ga += std::max<std::int64_t>(n, 0);
        ls += intensity;
        const double deviation = static_cast<double>(ls) - r * static_cast<double>(ga + ls);
        if (n >= 0) {
          // floor() may leave the GA one evaluation short of the exact share.
          EXPECT_LE(std::fabs(deviation), 1.0)
              << "r " << r << ", I_str " << intensity << ", round " << round;
        } else {
          // No GA this round is right only while the LS is still behind its share (early on,
          // when the initial population alone outweighs I_str).
          EXPECT_LT(deviation, 0.0) << "r " << r << ", I_str " << intensity << ", round " << round;
        }
      }
    }
  }
}

TEST(SsgaEvaluationsForRatio, IsAboutFiveHundredWithTheDefaults) {
  const Config defaults;
  std::int64_t ga = defaults.population_size, ls = 0;
  for (int round = 0; round < 20; ++round) {
    const std::int64_t n =
        ssga_evaluations_for_ratio(ga, ls, defaults.ls_intensity, defaults.ls_ratio);
    if (round >= 1) {
      EXPECT_NEAR(static_cast<double>(n), 500.0, 1.0) << "round " << round;
    }
    ga += n;
    ls += defaults.ls_intensity;
  }
}

class LsShare : public ::testing::TestWithParam<double> {};

TEST_P(LsShare, StaysWithinOneIntensityOfTheRatioThroughoutTheRun) {
  const test::OneThread one_thread;
  const double r = GetParam();
  Config c = loop_config("sumsquares", 10, 20000, 6);
  c.ls_ratio = r;
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  MaSwChains algorithm(c, p, engine);
  algorithm.initialize();
  int rounds = 0;
  while (!algorithm.done()) {
    algorithm.step();
    ++rounds;
    const RunCounters& k = algorithm.counters();
    ASSERT_LE(std::fabs(static_cast<double>(k.ls_evaluations) -
                        r * static_cast<double>(k.evaluations)),
              static_cast<double>(c.ls_intensity))
        << "r " << r << ", round " << rounds << ": " << k.ls_evaluations << " LS of "
        << k.evaluations;
  }
  EXPECT_EQ(algorithm.counters().evaluations, c.max_evaluations);
  EXPECT_GE(algorithm.counters().ls_applications, 3);  // r = 0.1: 4 applications of 500
}

INSTANTIATE_TEST_SUITE_P(Ratios, LsShare, ::testing::Values(0.5, 0.25, 0.75, 0.1, 0.9),
                         [](const ::testing::TestParamInfo<double>& info) {
                           return "r" + std::to_string(static_cast<int>(info.param * 100));
                         });

TEST(HostLoop, LsRatioZeroMeansNoLocalSearch) {
  const test::OneThread one_thread;
  Config c = loop_config("rastrigin", 10, 3001, 7);
  c.ls_ratio = 0.0;
  const Problem p = test::problem_of(c);
  HostEngine host(c, p);
  test::RecordingEngine engine(host, c.dim);
  MaSwChains algorithm(c, p, engine);
  const RunResult r = algorithm.run();
  EXPECT_EQ(r.counters.ls_evaluations, 0);
  EXPECT_EQ(r.counters.ls_applications, 0);
  EXPECT_TRUE(engine.ls_calls.empty());
  EXPECT_EQ(r.counters.evaluations, 3001);
}

// ---------------------------------------------------------------------------------------------
// The result

TEST(HostLoop, ResultIsTheBestMemberWithItsFitnessAndDistanceToTheOptimum) {
  const test::OneThread one_thread;
  const Config c = loop_config("griewank", 333, 4000, 8);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  MaSwChains algorithm(c, p, engine);
  const RunResult r = algorithm.run();
  const Population& pop = algorithm.population();
  EXPECT_EQ(r.best_slot, pop.member(0));
  for (int rank = 0; rank < c.population_size; ++rank)
    EXPECT_LE(r.best_fitness, pop.fitness(pop.member(rank)));
  std::vector<real_t> best(static_cast<size_t>(c.dim));
  engine.read_genes(r.best_slot, best.data());
  EXPECT_TRUE(test::matches_reference(p, best.data(), r.best_fitness));
  const auto o = test::optimum_point(p);
  const double distance = test::reference_distance(best.data(), o.data(), c.dim);
  EXPECT_NEAR(r.distance_to_optimum, distance, 1e-12 * distance);
}

// ---------------------------------------------------------------------------------------------
// Determinism

struct RunFingerprint {
  double best_fitness = 0.0;
  std::vector<real_t> best_genes;
  RunCounters counters;
};

RunFingerprint fingerprint(const Config& c) {
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  MaSwChains algorithm(c, p, engine);
  const RunResult r = algorithm.run();
  RunFingerprint f;
  f.best_fitness = r.best_fitness;
  f.best_genes.resize(static_cast<size_t>(c.dim));
  engine.read_genes(r.best_slot, f.best_genes.data());
  f.counters = r.counters;
  return f;
}

bool bit_identical(const RunFingerprint& a, const RunFingerprint& b) {
  return std::memcmp(&a.best_fitness, &b.best_fitness, sizeof(double)) == 0 &&
         a.best_genes.size() == b.best_genes.size() &&
         std::memcmp(a.best_genes.data(), b.best_genes.data(),
                     a.best_genes.size() * sizeof(real_t)) == 0;
}

class Determinism : public ::testing::TestWithParam<const char*> {};

// 10,000 genes are three 4096-gene chunks (the last one partial), so the threads really split
// every individual. The budget, 50 + 450 GA + 500 LS + 500 GA + 200 LS, covers SSGA phases, a
// full LS application and one cut at the budget.
TEST_P(Determinism, SameSeedGivesBitIdenticalResultsForOneTwoAndThreeThreads) {
  test::ThreadCountGuard guard;
  const Config c = loop_config(GetParam(), 10000, 1700, 9);
  omp_set_num_threads(1);
  const RunFingerprint one = fingerprint(c);
  ASSERT_EQ(one.counters.ls_applications, 2);
  ASSERT_EQ(one.counters.ls_evaluations, 700);
  for (int threads : {2, 3}) {
    omp_set_num_threads(threads);
    const RunFingerprint many = fingerprint(c);
    EXPECT_TRUE(bit_identical(one, many))
        << threads << " threads: " << many.best_fitness << " vs " << one.best_fitness;
    EXPECT_EQ(many.counters.ls_applications, one.counters.ls_applications);
  }
}

INSTANTIATE_TEST_SUITE_P(Functions, Determinism, ::testing::Values("rastrigin", "schwefel12"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

TEST(HostLoop, DifferentSeedsGiveDifferentResults) {
  const test::OneThread one_thread;
  Config a = loop_config("rastrigin", 100, 3000, 1);
  Config b = a;
  b.seed = 2;
  b.problem_seed = 1;  // same problem, different run
  const RunFingerprint fa = fingerprint(a), fb = fingerprint(b);
  EXPECT_NE(fa.best_fitness, fb.best_fitness);
  EXPECT_NE(fa.best_genes, fb.best_genes);
}

// ---------------------------------------------------------------------------------------------
// The search works: 1,000-D, 100,000 evaluations, against the initial best.

struct SearchOutcome {
  double initial_best = 0.0;
  double final_best = 0.0;
  double seconds = 0.0;
};

SearchOutcome search(const std::string& function, std::uint64_t seed) {
  const Config c = loop_config(function, 1000, 100000, seed);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  MaSwChains algorithm(c, p, engine);
  const auto start = std::chrono::steady_clock::now();
  algorithm.initialize();
  SearchOutcome s;
  s.initial_best = algorithm.population().best_fitness();
  while (!algorithm.done()) algorithm.step();
  s.final_best = algorithm.result().best_fitness;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(algorithm.counters().evaluations, c.max_evaluations);
  return s;
}

// Measured with DISABLED_MeasureSearchOverTenSeeds below (seeds 1..10, defaults: N = 50,
// batch 20, I_str 500, r = 0.5); both precisions start from the same initial population:
//   initial best (best of the 50 random members) 20339 .. 20842
//   float32 genes: final best min 4910.1, mean 5633.4, max 6489.8
//   float64 genes: final best min 2378.6, mean 4072.9, max 5311.9 (bimodal: ~2.5e3 or ~5e3)
// The threshold keeps a margin of ~39% above the worst seed of either precision and is still a
// 2.3x cut of the initial best. The test runs seeds 1 and 2 only (~5 s each on an idle 2-core
// machine); all ten take ~50 s.
TEST(HostLoopSearch, Rastrigin1000DWith100000EvaluationsEndsFarBelowTheInitialBest) {
  const test::OneThread one_thread;
  for (std::uint64_t seed : {1, 2}) {
    const SearchOutcome s = search("rastrigin", seed);
    EXPECT_GT(s.initial_best, 19000.0) << "seed " << seed;  // a random start, as measured
    EXPECT_LT(s.final_best, 9000.0) << "seed " << seed;
    EXPECT_LT(s.final_best, 0.45 * s.initial_best) << "seed " << seed;
  }
}

// Measured as above:
//   initial best 2.018e7 .. 2.132e7
//   float32 genes: final best min 799.4, mean 1201.1, max 2468.1
//   float64 genes: final best min 575.0, mean 1262.3, max 2257.6
// The threshold is ~4x the worst seed and still three orders of magnitude below the start.
// The test runs seeds 1..3 (~2 s each).
TEST(HostLoopSearch, SumSquares1000DWith100000EvaluationsEndsFarBelowTheInitialBest) {
  const test::OneThread one_thread;
  for (std::uint64_t seed : {1, 2, 3}) {
    const SearchOutcome s = search("sumsquares", seed);
    EXPECT_GT(s.initial_best, 1.0e7) << "seed " << seed;
    EXPECT_LT(s.final_best, 10000.0) << "seed " << seed;
    EXPECT_LT(s.final_best, 1e-3 * s.initial_best) << "seed " << seed;
  }
}

// Re-run to re-measure the thresholds above:
//   chainsaw_tests --gtest_also_run_disabled_tests --gtest_filter='*MeasureSearch*'
TEST(HostLoopSearch, DISABLED_MeasureSearchOverTenSeeds) {
  const test::OneThread one_thread;
  for (const char* function : {"rastrigin", "sumsquares"}) {
    double lo = 1e300, hi = -1e300, sum = 0.0, init_lo = 1e300, init_hi = -1e300;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      const SearchOutcome s = search(function, seed);
      std::printf("%s seed %2llu: initial best %.6g, final best %.6g (%.1f s)\n", function,
                  static_cast<unsigned long long>(seed), s.initial_best, s.final_best, s.seconds);
      lo = std::min(lo, s.final_best);
      hi = std::max(hi, s.final_best);
      sum += s.final_best;
      init_lo = std::min(init_lo, s.initial_best);
      init_hi = std::max(init_hi, s.initial_best);
    }
    std::printf("%s: final best min %.6g mean %.6g max %.6g; initial best %.6g..%.6g\n",
                function, lo, sum / 10.0, hi, init_lo, init_hi);
  }
}

}  // namespace
}  // namespace chainsaw

// ---------------------------------------------------------------------------------------------
// --milestones: the best after exactly that many evaluations (the CEC 2013 protocol's records)

namespace chainsaw {
namespace {

Config milestone_config(std::int64_t budget, std::vector<std::int64_t> marks, bool restart) {
  Config c = loop_config("rastrigin", 13, budget, 5);
  c.milestones = std::move(marks);
  c.restart = restart;
  c.validate();
  return c;
}

// The units are cut at a milestone as the budget cuts them at the end: up to a mark the run is
// the run with that budget (and the marks before it).
TEST(HostLoopMilestones, EachIsTheBestOfTheRunWithThatBudget) {
  const test::OneThread one_thread;
  const std::vector<std::int64_t> marks = {50, 70, 501, 1999, 3000};
  const CountedRun r = counted_run(milestone_config(3000, marks, false));
  EXPECT_EQ(r.engine_evaluations, 3000);
  ASSERT_EQ(r.result.milestones.size(), marks.size());
  for (size_t i = 0; i < marks.size(); ++i) {
    EXPECT_EQ(r.result.milestones[i].evaluations, marks[i]);
    const std::vector<std::int64_t> before(marks.begin(), marks.begin() + static_cast<long>(i));
    const CountedRun shorter = counted_run(milestone_config(marks[i], before, false));
    EXPECT_EQ(r.result.milestones[i].best_fitness, shorter.result.best_fitness) << marks[i];
  }
  // Without the cuts the run is another one after the first cut unit.
  const CountedRun plain = counted_run(loop_config("rastrigin", 13, 3000, 5));
  EXPECT_NE(plain.result.best_fitness, r.result.best_fitness);
  EXPECT_EQ(r.result.milestones.back().best_fitness, r.result.best_fitness);
}

// A mark inside a restart (its N - 1 new members, which are not cut) is recorded from their
// fitness: every mark is there, and the records never rise.
TEST(HostLoopMilestones, EveryMarkIsRecordedAcrossRestarts) {
  const test::OneThread one_thread;
  std::vector<std::int64_t> marks;
  for (std::int64_t m = 50; m <= 6000; m += 7) marks.push_back(m);
  const CountedRun r = counted_run(milestone_config(6000, marks, true));
  ASSERT_GT(r.result.counters.restarts, 0) << "no restart: the case is not exercised";
  ASSERT_EQ(r.result.milestones.size(), marks.size());
  for (size_t i = 0; i < marks.size(); ++i) {
    EXPECT_EQ(r.result.milestones[i].evaluations, marks[i]);
    if (i > 0) {
      EXPECT_LE(r.result.milestones[i].best_fitness, r.result.milestones[i - 1].best_fitness);
    }
  }
  EXPECT_GE(r.result.milestones.back().best_fitness, r.result.best_fitness);
}

TEST(HostLoopMilestones, BadListsAreRefusedWithOneLine) {
  for (const std::vector<std::int64_t>& marks :
       {std::vector<std::int64_t>{49}, {100, 100}, {3001}, {200, 100}}) {
    Config c = loop_config("rastrigin", 13, 3000, 5);
    c.milestones = marks;
    EXPECT_THROW(c.validate(), UserError);
  }
  // The population algorithms record from the first evaluation on; the bounds still hold.
  Config de = loop_config("rastrigin", 13, 3000, 5);
  de.algorithm = Algorithm::kDe;
  de.milestones = {1, 100};
  EXPECT_NO_THROW(de.validate());
  de.milestones = {0};
  EXPECT_THROW(de.validate(), UserError);
  de.milestones = {3001};
  EXPECT_THROW(de.validate(), UserError);
}

}  // namespace
}  // namespace chainsaw
