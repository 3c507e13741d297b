// DE, jDE, PSO and Scatter Search (docs/algorithms.md): each operator against hand-computed
// cases, convergence on the 30-D shifted sum of squares (the suite's sphere), determinism over
// thread counts, and bit-exact checkpoint/resume for every algorithm.

#include <cmath>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "core/algorithms/de.hpp"
#include "core/algorithms/population_ops.hpp"
#include "core/algorithms/pso.hpp"
#include "core/algorithms/scatter_search.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/run/many_runs.hpp"
#include "io/instance_file.hpp"
#include "api_objectives.hpp"
#include "population_run.hpp"
#include "temp_dir_test.hpp"

namespace chainsaw {
namespace {

using test::run_with_threads;

// --- DE -----------------------------------------------------------------------------------

TEST(DeOperators, IndicesAreDistinctFromEachOtherAndFromTheTarget) {
  for (int np : {4, 5, 7, 50}) {
    for (int i = 0; i < np; ++i) {
      for (std::uint64_t k = 0; k < 200; ++k) {
        int r[3];
        de_pick_indices(derive_key(np, i, k), np, i, r);
        const std::set<int> distinct{r[0], r[1], r[2], i};
        ASSERT_EQ(distinct.size(), 4u) << "np " << np << " i " << i;
        for (int m : r) ASSERT_TRUE(m >= 0 && m < np);
      }
    }
  }
}

// np = 4, i = 0: (r1, r2, r3) is a permutation of {1, 2, 3}, each of the 6 with probability
// 1/6; counts within 5 sigma.
TEST(DeOperators, IndicesAreUniformOverThePermutations) {
  constexpr int kDraws = 60000;
  std::map<int, int> counts;
  for (int k = 0; k < kDraws; ++k) {
    int r[3];
    de_pick_indices(derive_key(99, static_cast<std::uint64_t>(k)), 4, 0, r);
    ++counts[r[0] * 100 + r[1] * 10 + r[2]];
  }
  ASSERT_EQ(counts.size(), 6u);
  const double p = 1.0 / 6.0, sigma = std::sqrt(kDraws * p * (1 - p));
  for (const auto& [perm, n] : counts) EXPECT_NEAR(n, kDraws * p, 5 * sigma) << perm;
}

TEST(DeOperators, MutantGeneBouncesBackInsideTheDomain) {
  // v = 1 + 0.5 (4 - 2) = 2: inside.
  EXPECT_FLOAT_EQ(de_mutant_gene(1, 4, 2, 0.5, 7, -10, 10), 2.0f);
  // v = 9 + 0.5 (5 - 0) = 11.5 > 10: midpoint of the parent 8 and the bound 10.
  EXPECT_FLOAT_EQ(de_mutant_gene(9, 5, 0, 0.5, 8, -10, 10), 9.0f);
  // v = -9 - 1 (4 - 0) = -13 < -10: midpoint of -6 and -10.
  EXPECT_FLOAT_EQ(de_mutant_gene(-9, 0, 4, 1.0, -6, -10, 10), -8.0f);
}

TEST(DeOperators, ExponentialCrossoverTakesACyclicRun) {
  EXPECT_TRUE(de_exponential_takes(3, 3, 2, 5));
  EXPECT_TRUE(de_exponential_takes(4, 3, 2, 5));
  EXPECT_FALSE(de_exponential_takes(0, 3, 2, 5));
  EXPECT_TRUE(de_exponential_takes(0, 4, 2, 5));  // wraps: genes 4, 0
  EXPECT_FALSE(de_exponential_takes(1, 4, 2, 5));
}

// A 4 x 3 population: with CR = 1 every trial gene is the mutant a + F (b - c); with CR = 0
// binomial takes only jrand and exponential only one gene; the rest is the target's.
TEST(DeOperators, TrialVectorsAgreeWithHandComputedOnes) {
  const std::vector<real_t> pop = {0, 0, 0,  1, 2, 3,  -1, 1, 0.5f,  2, -2, 1};
  const double f = 0.5;
  for (DeCrossover crossover : {DeCrossover::kBinomial, DeCrossover::kExponential}) {
    for (std::uint64_t key = 1; key < 40; ++key) {
      real_t trial[3];
      int r[3];
      de_make_trial(pop.data(), 4, 3, 0, f, 1.0, crossover, -10, 10, key, trial, r);
      for (int j = 0; j < 3; ++j)
        EXPECT_FLOAT_EQ(trial[j], pop[r[0] * 3 + j] + 0.5f * (pop[r[1] * 3 + j] - pop[r[2] * 3 + j]));
      de_make_trial(pop.data(), 4, 3, 1, f, 0.0, crossover, -10, 10, key, trial, r);
      int from_mutant = 0;
      for (int j = 0; j < 3; ++j) {
        const real_t mutant = pop[r[0] * 3 + j] + 0.5f * (pop[r[1] * 3 + j] - pop[r[2] * 3 + j]);
        if (trial[j] != pop[3 + j]) {
          EXPECT_FLOAT_EQ(trial[j], mutant);
          ++from_mutant;
        }
      }
      EXPECT_LE(from_mutant, 1);  // one gene, unless the mutant equals the target there
      // The gene that comes from the mutant is the stream's start draw.
      const Dim start = below_from(u64_at(key, kDeStartDraw), 3);
      const real_t mutant = pop[r[0] * 3 + start] +
                            0.5f * (pop[r[1] * 3 + start] - pop[r[2] * 3 + start]);
      EXPECT_FLOAT_EQ(trial[start], mutant);
    }
  }
}

// Exponential crossover's run length L: P(L >= k) = CR^(k-1) (for k <= D).
TEST(DeOperators, ExponentialLengthHasGeometricTail) {
  constexpr int kDraws = 40000;
  const double cr = 0.6;
  int at_least_3 = 0;
  for (int k = 0; k < kDraws; ++k)
    if (de_exponential_length(derive_key(7, static_cast<std::uint64_t>(k)), cr, 50) >= 3) ++at_least_3;
  const double p = cr * cr, sigma = std::sqrt(kDraws * p * (1 - p));
  EXPECT_NEAR(at_least_3, kDraws * p, 5 * sigma);
}

// --- jDE ----------------------------------------------------------------------------------

// F is redrawn with probability tau1 = 0.1, uniform in [0.1, 1]; CR with tau2 = 0.1, uniform in
// [0, 1]: counts and means within 5 sigma.
TEST(JdeOperators, ParametersAreResampledWithTheirProbabilities) {
  constexpr int kDraws = 200000;
  int new_f = 0, new_cr = 0;
  double sum_f = 0.0, sum_cr = 0.0;
  for (int k = 0; k < kDraws; ++k) {
    const JdeParameters p =
        jde_adapt(derive_key(3, static_cast<std::uint64_t>(k)), {2.0, 2.0}, 0.1, 0.1);
    if (p.f != 2.0) {
      ++new_f;
      sum_f += p.f;
      ASSERT_GE(p.f, 0.1);
      ASSERT_LE(p.f, 1.0);
    }
    if (p.cr != 2.0) {
      ++new_cr;
      sum_cr += p.cr;
      ASSERT_GE(p.cr, 0.0);
      ASSERT_LT(p.cr, 1.0);
    }
  }
  const double sigma = std::sqrt(kDraws * 0.1 * 0.9);
  EXPECT_NEAR(new_f, 0.1 * kDraws, 5 * sigma);
  EXPECT_NEAR(new_cr, 0.1 * kDraws, 5 * sigma);
  // Uniform means: 0.55 (sd 0.9 / sqrt 12), 0.5 (sd 1 / sqrt 12).
  EXPECT_NEAR(sum_f / new_f, 0.55, 5 * 0.9 / std::sqrt(12.0 * new_f));
  EXPECT_NEAR(sum_cr / new_cr, 0.5, 5 / std::sqrt(12.0 * new_cr));
  // The draws are independent: both at once with probability 0.01.
}

// --- PSO ----------------------------------------------------------------------------------

TEST(PsoOperators, VelocityAndPositionUpdateAsHandComputed) {
  // 0.5 * 1 + 1 * 0.5 * (3 - 2) + 2 * 0.25 * (5 - 2) = 0.5 + 0.5 + 1.5 = 2.5
  EXPECT_DOUBLE_EQ(pso_velocity_gene(1, 2, 3, 5, 0.5, 1, 2, 0.5, 0.25, 10), 2.5);
  EXPECT_DOUBLE_EQ(pso_velocity_gene(1, 2, 3, 5, 0.5, 1, 2, 0.5, 0.25, 2), 2.0);     // clamp
  EXPECT_DOUBLE_EQ(pso_velocity_gene(-1, 2, -9, -9, 1, 1, 1, 1, 1, 3), -3.0);       // clamp
  const PsoGene inside = pso_move_gene(1.0, 2.5, -10, 10);
  EXPECT_FLOAT_EQ(inside.x, 3.5f);
  EXPECT_FLOAT_EQ(inside.v, 2.5f);
  const PsoGene stopped = pso_move_gene(9.0, 2.0, -10, 10);
  EXPECT_FLOAT_EQ(stopped.x, 10.0f);
  EXPECT_FLOAT_EQ(stopped.v, 0.0f);
}

TEST(PsoOperators, ParticleMoveUsesDrawsTwoJAndTwoJPlusOne) {
  real_t x[2] = {1, -1}, v[2] = {0.5f, 0};
  const real_t pbest[2] = {2, -2}, gbest[2] = {0, 0};
  const std::uint64_t key = 12345;
  pso_move_particle(x, v, pbest, gbest, 2, 0.5, 1.5, 2.0, 100, -10, 10, key);
  for (int j = 0; j < 2; ++j) {
    const double x0 = j == 0 ? 1 : -1, v0 = j == 0 ? 0.5 : 0;
    const double expect_v = 0.5 * v0 + 1.5 * uniform_at(key, 2 * j) * (pbest[j] - x0) +
                            2.0 * uniform_at(key, 2 * j + 1) * (gbest[j] - x0);
    EXPECT_FLOAT_EQ(v[j], static_cast<real_t>(expect_v));
    EXPECT_FLOAT_EQ(x[j], static_cast<real_t>(x0 + expect_v));
  }
}

// --- Scatter Search -----------------------------------------------------------------------

// Six points in 2-D. R1 = the 2 best (rows 1 and 4, at (0,0) and (1,0)); R2 then adds the row
// farthest from its nearest member: row 0 at (10,10) (13.45 from (1,0)), then row 3 at (5,0)
// (4 from (1,0); row 5 at (-3,0) is 3 from (0,0), row 2 at (0,1) is 1).
TEST(ScatterSearchOperators, ReferenceSetIsTheBestThenTheFarthest) {
  const std::vector<double> f = {5, 1, 3, 4, 2, 6};
  const std::vector<real_t> x = {10, 10, 0, 0, 0, 1, 5, 0, 1, 0, -3, 0};
  EXPECT_EQ(ss_build_reference_set(f.data(), x.data(), 6, 2, 2, 0), (std::vector<int>{1, 4}));
  EXPECT_EQ(ss_build_reference_set(f.data(), x.data(), 6, 2, 2, 1), (std::vector<int>{1, 4, 0}));
  EXPECT_EQ(ss_build_reference_set(f.data(), x.data(), 6, 2, 2, 2),
            (std::vector<int>{1, 4, 0, 3}));
  EXPECT_EQ(ss_build_reference_set(f.data(), x.data(), 6, 2, 1, 3),
            (std::vector<int>{1, 0, 3, 5}));
}

// The update keeps the |R| best of R and the pool by (fitness, index): R comes first, so a
// pool member that only ties a member of R does not displace it.
TEST(ScatterSearchOperators, UpdateKeepsTheBestOfReferenceSetAndPool) {
  const std::vector<double> merged = {3, 1, 2, 1, 0.5};  // R = rows 0-2, pool = rows 3-4
  EXPECT_EQ(ss_best_indices(merged.data(), 5, 3), (std::vector<int>{4, 1, 3}));
  EXPECT_EQ(ss_best_indices(merged.data(), 5, 5), (std::vector<int>{4, 1, 3, 2, 0}));
}

TEST(ScatterSearchOperators, ChildrenUseAlphaHalfPlusAndMinusLambda) {
  EXPECT_DOUBLE_EQ(ss_child_alpha(0, 0.22), 0.72);
  EXPECT_DOUBLE_EQ(ss_child_alpha(1, 0.22), 0.28);
}

// Solis-Wets improvement on f(x) = sum x^2 from (1, 1): never worse, within its budget.
TEST(ScatterSearchOperators, ImprovementNeverWorsensAndKeepsItsBudget) {
  std::vector<real_t> x = {1, 1};
  double fx = 2.0;
  int calls = 0;
  auto sphere = [&calls](const real_t* y) {
    ++calls;
    return double(y[0]) * y[0] + double(y[1]) * y[1];
  };
  const std::int64_t spent =
      ss_improve(x.data(), fx, 2, 0.1, 85, 1000, SolisWetsParams{}, -10, 10, 42, sphere);
  EXPECT_EQ(spent, calls);
  EXPECT_LE(spent, 170);
  EXPECT_GE(spent, 85);
  EXPECT_LT(fx, 2.0);
  EXPECT_DOUBLE_EQ(fx, sphere(x.data()));
  x = {1, 1};
  fx = 2.0;
  EXPECT_EQ(ss_improve(x.data(), fx, 2, 0.1, 85, 7, SolisWetsParams{}, -10, 10, 42, sphere), 7);
}

// --- Whole runs ---------------------------------------------------------------------------

Config sphere_config(AlgorithmKind algorithm, std::int64_t evals) {
  Config c;
  c.algorithm = algorithm;
  c.function = "sumsquares";
  c.dim = 30;
  c.max_evaluations = evals;
  c.seed = 5;
  return c;
}

// Each algorithm reaches f - f* <= 1e-8 on the 30-D shifted sum of squares within its budget,
// with its default parameters, and records when.
class Convergence : public ::testing::TestWithParam<AlgorithmKind> {};

TEST_P(Convergence, ReachesTheTargetOnTheSphere) {
  Config c = sphere_config(GetParam(), 400000);
  c.target_error = 1e-8;
  c.validate();
  const Problem problem = make_problem(c.function, c.dim, c.effective_problem_seed(), "");
  const auto algorithm = make_population_algorithm(c, problem, Backend::kCpu);
  const RunResult r = algorithm->run();
  EXPECT_LE(r.best_fitness - problem.optimum_value, 1e-8) << algorithm_name(c.algorithm);
  EXPECT_TRUE(r.stop.target_reached);
  EXPECT_EQ(r.stop.reason, StopReason::kTargetError);
  EXPECT_EQ(r.stop.target_evaluations, r.counters.evaluations);
  EXPECT_LT(r.counters.evaluations, c.max_evaluations);
  std::printf("%s: 1e-8 after %lld evaluations\n", algorithm_name(c.algorithm),
              static_cast<long long>(r.counters.evaluations));
}

INSTANTIATE_TEST_SUITE_P(Algorithms, Convergence,
                         ::testing::Values(AlgorithmKind::kDe, AlgorithmKind::kJde, AlgorithmKind::kPso,
                                           AlgorithmKind::kScatterSearch),
                         [](const auto& info) {
                           return std::string(info.param == AlgorithmKind::kScatterSearch
                                                  ? "ss"
                                                  : algorithm_name(info.param));
                         });

class EveryAlgorithm : public test::TempDirTest, public ::testing::WithParamInterface<AlgorithmKind> {};

TEST_P(EveryAlgorithm, ResultDoesNotDependOnTheThreadCount) {
  Config c = sphere_config(GetParam(), 6000);
  c.function = "rastrigin";
  std::vector<real_t> one, three;
  const RunResult a = run_with_threads(c, 1, &one);
  const RunResult b = run_with_threads(c, 3, &three);
  EXPECT_EQ(a.best_fitness, b.best_fitness);
  EXPECT_EQ(one, three);
  EXPECT_EQ(a.counters.evaluations, 6000);
}

// A run checkpointed (as the command line does: before a unit the budget cuts short, or at
// the end) and resumed with a larger budget equals a run that had the larger budget from the
// start, bit for bit: best, genes and counters.
TEST_P(EveryAlgorithm, CheckpointResumeIsBitExact) {
  const std::string path = (dir_ / "run.h5").string();
  Config shorter = sphere_config(GetParam(), 3777);  // cuts a unit of every algorithm
  shorter.function = "rastrigin";
  const Problem problem = make_problem(shorter.function, shorter.dim, shorter.seed, "");
  {
    const auto algorithm = make_population_algorithm(shorter, problem, Backend::kCpu);
    CheckpointSchedule schedule("--checkpoint", path, {}, Backend::kCpu);
    algorithm->run({}, [&](Algorithm& a) { return schedule.at_safe_point(a); });
    schedule.at_end(*algorithm);
  }
  Config longer = shorter;
  longer.max_evaluations = 8000;
  const CheckpointHeader header = read_checkpoint_header(path);
  EXPECT_EQ(header.config.algorithm, GetParam());
  EXPECT_EQ(inspect_checkpoint(path).algorithm, algorithm_name(GetParam()));
  const auto resumed = make_population_algorithm(longer, problem, Backend::kCpu);
  load_checkpoint(path, *resumed);
  EXPECT_LE(resumed->counters().evaluations, 3777);
  const RunResult r = resumed->run();
  std::vector<real_t> fresh_best;
  const RunResult fresh = run_with_threads(longer, 2, &fresh_best);
  EXPECT_EQ(r.best_fitness, fresh.best_fitness);
  EXPECT_EQ(resumed->best_genes(), fresh_best);
  EXPECT_EQ(r.counters.evaluations, fresh.counters.evaluations);
  EXPECT_EQ(r.counters.ls_evaluations, fresh.counters.ls_evaluations);
  EXPECT_EQ(r.counters.restarts, fresh.counters.restarts);
}

TEST_P(EveryAlgorithm, StopsAtTheTimeLimit) {
  Config c = sphere_config(GetParam(), 1000000000);
  c.function = "rastrigin";
  c.time_limit_seconds = 0.2;
  const RunResult r = run_with_threads(c, 2);
  EXPECT_EQ(r.stop.reason, StopReason::kTimeLimit);
  EXPECT_GE(r.wall_seconds, 0.2);
  EXPECT_LT(r.wall_seconds, 5.0);
}

// --milestones: the best of the first m evaluations, which is the best of the same run given
// the budget m (its last unit cut there evaluates the same first rows).
TEST_P(EveryAlgorithm, MilestonesAreTheBestOfTheRunWithThatBudget) {
  Config c = sphere_config(GetParam(), 6000);
  c.function = "rastrigin";
  c.milestones = {1, 37, 1000, 3777, 5999, 6000};
  if (GetParam() == AlgorithmKind::kScatterSearch) {  // its improvements have no order to cut
    EXPECT_THROW(c.validate(), UserError);
    return;
  }
  c.validate();
  const RunResult r = run_with_threads(c, 2);
  ASSERT_EQ(r.milestones.size(), c.milestones.size());
  for (std::size_t i = 0; i < c.milestones.size(); ++i) {
    EXPECT_EQ(r.milestones[i].evaluations, c.milestones[i]);
    Config shorter = sphere_config(GetParam(), c.milestones[i]);
    shorter.function = "rastrigin";
    if (c.milestones[i] < 100) continue;  // below the initial population: no run that short
    EXPECT_EQ(r.milestones[i].best_fitness, run_with_threads(shorter, 2).best_fitness)
        << c.milestones[i];
  }
  for (std::size_t i = 1; i < r.milestones.size(); ++i)
    EXPECT_LE(r.milestones[i].best_fitness, r.milestones[i - 1].best_fitness);
  EXPECT_EQ(r.milestones.back().best_fitness, r.best_fitness);
}

// A resumed run records the marks of its own segment, as the uninterrupted run does.
TEST_P(EveryAlgorithm, MilestonesAfterAResumeAreTheUninterruptedRuns) {
  const std::string path = (dir_ / "marks.h5").string();
  Config shorter = sphere_config(GetParam(), 3777);
  shorter.function = "rastrigin";
  shorter.milestones = {500, 3777};
  if (GetParam() == AlgorithmKind::kScatterSearch) GTEST_SKIP() << "ss records no milestones";
  const Problem problem = make_problem(shorter.function, shorter.dim, shorter.seed, "");
  {
    const auto algorithm = make_population_algorithm(shorter, problem, Backend::kCpu);
    CheckpointSchedule schedule("--checkpoint", path, {}, Backend::kCpu);
    algorithm->run({}, [&](Algorithm& a) { return schedule.at_safe_point(a); });
    schedule.at_end(*algorithm);
  }
  Config longer = shorter;
  longer.max_evaluations = 8000;
  longer.milestones = {500, 3777, 5000, 8000};
  const auto resumed = make_population_algorithm(longer, problem, Backend::kCpu);
  load_checkpoint(path, *resumed);
  const std::int64_t resumed_at = resumed->counters().evaluations;
  const RunResult r = resumed->run();
  const RunResult fresh = run_with_threads(longer, 2);
  std::vector<MilestonePoint> expected;
  for (const MilestonePoint& m : fresh.milestones)
    if (m.evaluations > resumed_at) expected.push_back(m);
  ASSERT_GE(expected.size(), 2u);
  ASSERT_EQ(r.milestones.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.milestones[i].evaluations, expected[i].evaluations);
    EXPECT_EQ(r.milestones[i].best_fitness, expected[i].best_fitness);
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, EveryAlgorithm,
                         ::testing::Values(AlgorithmKind::kDe, AlgorithmKind::kJde, AlgorithmKind::kPso,
                                           AlgorithmKind::kScatterSearch),
                         [](const auto& info) {
                           return std::string(info.param == AlgorithmKind::kScatterSearch
                                                  ? "ss"
                                                  : algorithm_name(info.param));
                         });

// The library: Options::algorithm on a user objective (evaluated through its batch callback)
// is the built-in function's run bit for bit, and resumes from its checkpoint.
TEST_P(EveryAlgorithm, LibraryRunOnAUserObjectiveIsTheBuiltInRun) {
  Options o;
  o.algorithm = GetParam();
  o.dim = 20;
  o.max_evaluations = 5000;
  o.seed = 3;
  o.backend = Backend::kCpu;
  o.checkpoint = (dir_ / "api.h5").string();
  const test::UserRastrigin objective{benchmark_shift(-5.12, 5.12, 3)};
  const Result user = optimize(objective, o);
  Config c = o;
  c.function = "rastrigin";
  std::vector<real_t> best;
  const RunResult builtin = run_with_threads(c, 2, &best);
  EXPECT_EQ(user.best_fitness, builtin.best_fitness);
  EXPECT_EQ(user.best_genes, best);
  EXPECT_EQ(user.evaluations.evaluations, 5000);

  Options more = o;
  more.max_evaluations = 9000;
  more.checkpoint.clear();
  const Result straight = optimize(objective, more);
  more.resume_from = o.checkpoint;
  const Result resumed = optimize(objective, more);
  EXPECT_EQ(resumed.best_fitness, straight.best_fitness);
  EXPECT_EQ(resumed.best_genes, straight.best_genes);
  EXPECT_GT(resumed.resumed_at_evaluations, 0);
  EXPECT_LE(resumed.resumed_at_evaluations, 5000);
}

TEST(RunSummary, MeanSdAndMedianOfEachMeasure) {
  std::vector<nlohmann::ordered_json> runs;
  for (double e : {1.0, 2.0, 6.0}) {
    nlohmann::ordered_json r;
    r["best_fitness"] = e - 330;
    r["best_error"] = e;
    r["distance_to_optimum"] = 2 * e;
    r["evaluations"] = {{"total", 100}};
    r["wall_seconds"] = 1.0;
    r["target_reached"] = e < 5 ? nlohmann::ordered_json({{"evaluations", 10 * e}, {"seconds", e}})
                                : nlohmann::ordered_json();
    runs.push_back(r);
  }
  const nlohmann::ordered_json s = summarize_runs(runs);
  EXPECT_DOUBLE_EQ(s["best_error"]["mean"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(s["best_error"]["sd"].get<double>(), std::sqrt((4.0 + 1.0 + 9.0) / 2.0));
  EXPECT_DOUBLE_EQ(s["best_error"]["median"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(s["distance_to_optimum"]["median"].get<double>(), 4.0);
  EXPECT_EQ(s["target_reached_runs"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(s["target_evaluations"]["mean"].get<double>(), 15.0);
  EXPECT_DOUBLE_EQ(s["target_evaluations"]["median"].get<double>(), 15.0);
}

}  // namespace
}  // namespace chainsaw
