// SHADE, L-SHADE, MTS-LS1 and SHADE-ILS (docs/algorithms.md): the memory update against hand
// computations, L-SHADE's linear reduction, MTS-LS1's per-variable rules, L-BFGS-B's budget,
// SHADE-ILS's method choice and restart rule, convergence, thread-count independence and
// bit-exact resume.

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/algorithms/mts_ls1.hpp"
#include "core/algorithms/shade.hpp"
#include "core/algorithms/shade_ils.hpp"
#include "core/error.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/instance_file.hpp"
#include "localsearch/lbfgsb.hpp"
#include "localsearch/mts_ls1.hpp"
#include "population_run.hpp"
#include "temp_dir_test.hpp"

namespace chainsaw {
namespace {

using test::run_with_threads;

// --- the memory update --------------------------------------------------------------------

// S_F = {0.5, 0.8}, S_CR = {0.2, 0.6}, improvements {1, 3}: weights 1/4, 3/4.
// Lehmer F = (0.25 0.25 + 0.75 0.64) / (0.25 0.5 + 0.75 0.8) = 0.5425 / 0.725;
// SHADE's CR = 0.25 0.2 + 0.75 0.6 = 0.5; L-SHADE's = (0.25 0.04 + 0.75 0.36) / 0.5 = 0.56.
TEST(ShadeMemory, UpdateIsTheWeightedLehmerAndArithmeticMeans) {
  const MemoryUpdate shade = shade_memory_update({0.5, 0.8}, {0.2, 0.6}, {1.0, 3.0}, false, 0.5);
  EXPECT_NEAR(shade.f, 0.5425 / 0.725, 1e-15);
  EXPECT_NEAR(shade.cr, 0.5, 1e-15);
  const MemoryUpdate lshade = shade_memory_update({0.5, 0.8}, {0.2, 0.6}, {1.0, 3.0}, true, 0.5);
  EXPECT_NEAR(lshade.f, 0.5425 / 0.725, 1e-15);
  EXPECT_NEAR(lshade.cr, 0.56, 1e-15);
}

TEST(ShadeMemory, LshadeCrTurnsTerminalAndStaysSo) {
  EXPECT_EQ(shade_memory_update({0.5, 0.7}, {0.0, 0.0}, {1.0, 1.0}, true, 0.5).cr, kTerminalCr);
  EXPECT_EQ(shade_memory_update({0.5}, {0.9}, {1.0}, true, kTerminalCr).cr, kTerminalCr);
  // SHADE (2013) has no terminal value: all-zero successes give M_CR = 0.
  EXPECT_EQ(shade_memory_update({0.5, 0.7}, {0.0, 0.0}, {1.0, 1.0}, false, 0.5).cr, 0.0);
}

// A generation on a 6 x 4 population: the memory slot 0 becomes the means of the successful
// trials' F and CR weighted by their improvements, computed here from the trials' own values;
// the replaced parents enter the archive; the slot index advances.
TEST(ShadeMemory, GenerationUpdatesMemoryFromItsSuccesses) {
  ShadeSettings settings;
  settings.memory_size = 3;
  ShadePopulation pop(settings, 6, 4);
  pop.randomize(11, 0, -5, 5);
  for (int i = 0; i < 6; ++i) pop.fitness()[i] = 10.0 + i;
  const std::vector<real_t> parents = pop.genes();
  pop.make_trials(6, 11, 0, -5, 5);
  // Trials 1, 3, 4 improve by 2, 1, 5; trial 5 ties (replaces, no success); 0 and 2 are worse.
  const std::vector<double> trial_fitness = {20.0, 9.0, 30.0, 12.0, 9.0, 15.0};
  pop.trial_fitness() = trial_fitness;
  const std::vector<double> f = pop.trial_f(), cr = pop.trial_cr();
  for (int i = 0; i < 6; ++i) {
    EXPECT_GT(f[i], 0.0);
    EXPECT_LE(f[i], 1.0);
    EXPECT_GE(cr[i], 0.0);
    EXPECT_LE(cr[i], 1.0);
  }
  pop.select(6, 11, 0);
  const double w1 = 2.0 / 8, w3 = 1.0 / 8, w4 = 5.0 / 8;
  const double lehmer = (w1 * f[1] * f[1] + w3 * f[3] * f[3] + w4 * f[4] * f[4]) /
                        (w1 * f[1] + w3 * f[3] + w4 * f[4]);
  EXPECT_NEAR(pop.memory_f()[0], lehmer, 1e-12);
  EXPECT_NEAR(pop.memory_cr()[0], w1 * cr[1] + w3 * cr[3] + w4 * cr[4], 1e-12);
  EXPECT_EQ(pop.memory_f()[1], 0.5);
  EXPECT_EQ(pop.memory_index(), 1);
  EXPECT_EQ(pop.archive_size(), 3);
  EXPECT_EQ(pop.fitness(), (std::vector<double>{10.0, 9.0, 12.0, 12.0, 9.0, 15.0}));
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(pop.row(0)[j], parents[j]);  // kept
    EXPECT_EQ(pop.row(5)[j], pop.trials()[5 * 4 + j]);  // replaced by the tie
  }
}

// With CR = 0 (L-SHADE's terminal value) a trial differs from its target in j_rand only, and
// stays inside the domain there.
TEST(ShadeTrials, TerminalCrChangesOneGeneInsideTheDomain) {
  ShadeSettings settings;
  settings.lshade = true;
  settings.fixed_p = true;
  settings.memory_size = 2;
  ShadePopulation pop(settings, 8, 5);
  pop.randomize(3, 0, -1, 1);
  for (int i = 0; i < 8; ++i) pop.fitness()[i] = i;
  pop.set_memories(0.5, kTerminalCr);
  pop.make_trials(8, 3, 0, -1, 1);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(pop.trial_cr()[i], 0.0);
    int changed = 0;
    for (int j = 0; j < 5; ++j) {
      const real_t u = pop.trials()[i * 5 + j];
      changed += u != pop.row(i)[j];
      EXPECT_GE(u, -1.0f);
      EXPECT_LE(u, 1.0f);
    }
    EXPECT_LE(changed, 1) << i;
  }
}

// --- L-SHADE ------------------------------------------------------------------------------

TEST(Lshade, PopulationShrinksLinearlyToTheMinimumAtTheBudget) {
  Config c;
  c.algorithm = AlgorithmKind::kLshade;
  c.function = "rastrigin";
  c.dim = 10;  // N_init = 180
  c.max_evaluations = 20000;
  c.seed = 4;
  c.validate();
  EXPECT_EQ(c.lshade_initial_np(), 180);
  const Problem problem = make_problem(c.function, c.dim, c.seed, "");
  const auto algorithm = make_population_algorithm(c, problem, Backend::kCpu);
  int checks = 0;
  algorithm->run({}, [&](Algorithm& a) {
    // N_init until the first generation; after each, the line at its evaluation count.
    const std::int64_t evaluations = a.counters().evaluations;
    EXPECT_EQ(a.population_size(),
              evaluations == 180 ? 180
                                 : lshade_population_size(180, 4, evaluations, c.max_evaluations))
        << evaluations;
    ++checks;
    return true;
  });
  EXPECT_GT(checks, 100);
  EXPECT_EQ(algorithm->counters().evaluations, 20000);
  EXPECT_EQ(algorithm->population_size(), 4);
  EXPECT_EQ(lshade_population_size(180, 4, 10000, 20000), 92);
}

TEST(Lshade, InitialPopulationIsCappedForLargeDimensions) {
  Config c;
  c.dim = 1000;
  EXPECT_EQ(c.lshade_initial_np(), 1800);
  c.dim = 50;
  EXPECT_EQ(c.lshade_initial_np(), 900);
}

// --- MTS-LS1 ------------------------------------------------------------------------------

double shifted_sphere(const real_t* x, Dim dim) {
  double s = 0.0;
  for (Dim j = 0; j < dim; ++j) {
    const double d = static_cast<double>(x[j]) - 0.3 * static_cast<double>(j + 1);
    s += d * d;
  }
  return s;
}

// At the optimum nothing improves: each variable spends its two tries and halves its SR.
TEST(MtsLs1Search, NoImprovementHalvesEverySearchRange) {
  std::vector<real_t> x = {0.25f, 0.5f, 0.75f};
  auto f = [](const real_t* y) {
    return std::abs(double(y[0]) - 0.25) + std::abs(double(y[1]) - 0.5) +
           std::abs(double(y[2]) - 0.75);
  };
  double fx = f(x.data());
  std::vector<double> sr(3, 0.4);
  const MtsLs1Outcome out = mts_ls1(f, x.data(), fx, 3, sr, 6, 9, -1, 1, 0.4);
  EXPECT_EQ(out.evaluations, 6);
  EXPECT_EQ(out.improvement, 0.0);
  EXPECT_EQ(sr, (std::vector<double>(3, 0.2)));
  EXPECT_EQ(x, (std::vector<real_t>{0.25f, 0.5f, 0.75f}));
}

// On a separable function every variable converges to its own optimum, within the budget.
TEST(MtsLs1Search, ConvergesPerCoordinateOnASeparableFunction) {
  const Dim dim = 8;
  std::vector<real_t> x(dim, -4.0f);
  int calls = 0;
  auto f = [&](const real_t* y) {
    ++calls;
    return shifted_sphere(y, dim);
  };
  double fx = f(x.data());
  calls = 0;
  std::vector<double> sr(dim, 2.0);
  const MtsLs1Outcome out = mts_ls1(f, x.data(), fx, dim, sr, 3000, 5, -5, 5, 2.0);
  EXPECT_EQ(out.evaluations, 3000);
  EXPECT_EQ(calls, 3000);
  EXPECT_DOUBLE_EQ(fx, shifted_sphere(x.data(), dim));
  for (Dim j = 0; j < dim; ++j) EXPECT_NEAR(x[j], 0.3 * (j + 1), 1e-5) << j;
}

// --- L-BFGS-B -----------------------------------------------------------------------------

TEST(Lbfgsb, MinimisesAQuadraticWithinItsBudget) {
  if (!lbfgsb_available()) GTEST_SKIP() << "built without L-BFGS-B";
  const Dim dim = 12;
  std::vector<real_t> x(dim, 3.0f);
  std::int64_t calls = 0;
  const EvaluateRows f = [&](const real_t* genes, int rows, double* out) {
    for (int r = 0; r < rows; ++r) out[r] = shifted_sphere(genes + r * dim, dim);
    calls += rows;
  };
  double fx = shifted_sphere(x.data(), dim);
  const double start = fx;
  const LbfgsbOutcome out = lbfgsb_minimize(f, x.data(), fx, dim, 40 * (dim + 1) + 5, -5, 5);
  EXPECT_EQ(out.evaluations, calls);
  EXPECT_LE(out.evaluations, 40 * (dim + 1) + 5);
  EXPECT_EQ(out.evaluations % (dim + 1), 0);
  EXPECT_LT(fx, 1e-4 * start);
  EXPECT_DOUBLE_EQ(fx, shifted_sphere(x.data(), dim));
  EXPECT_NEAR(out.improvement, start - fx, 1e-12);
}

TEST(Lbfgsb, DoesNothingWhenOneGradientDoesNotFit) {
  if (!lbfgsb_available()) GTEST_SKIP() << "built without L-BFGS-B";
  const Dim dim = 12;
  std::vector<real_t> x(dim, 3.0f);
  const EvaluateRows f = [&](const real_t*, int, double*) { FAIL() << "evaluated"; };
  double fx = 1.0;
  EXPECT_EQ(lbfgsb_minimize(f, x.data(), fx, dim, dim, -5, 5).evaluations, 0);
  EXPECT_EQ(fx, 1.0);
}

// Rosenbrock's valley: many L-BFGS-B iterations from x = 3.
double rosenbrock(const real_t* x, Dim dim) {
  double f = 0.0;
  for (Dim j = 0; j + 1 < dim; ++j) {
    const double a = static_cast<double>(x[j]), b = static_cast<double>(x[j + 1]);
    f += 100.0 * (b - a * a) * (b - a * a) + (1.0 - a) * (1.0 - a);
  }
  return f;
}

// Every evaluated row, in order, and its value.
struct RecordedRows {
  Dim dim;
  std::vector<std::vector<real_t>> rows;
  std::vector<double> values;
  EvaluateRows evaluator() {
    return [this](const real_t* genes, int count, double* out) {
      for (int r = 0; r < count; ++r) {
        out[r] = rosenbrock(genes + r * dim, dim);
        rows.emplace_back(genes + r * dim, genes + (r + 1) * dim);
        values.push_back(out[r]);
      }
    };
  }
};

// x ends at the best point evaluated, a difference point included; a cut application makes
// exactly the first `cut` evaluations of the uncut one (cut inside a gradient, right after
// one, and at the budget).
TEST(Lbfgsb, EndsAtTheBestPointEvaluatedAndACutIsAPrefix) {
  if (!lbfgsb_available()) GTEST_SKIP() << "built without L-BFGS-B";
  const Dim dim = 12;
  const std::int64_t budget = 20 * (dim + 1);
  const std::vector<real_t> start(dim, 3.0f);
  RecordedRows whole{dim, {}, {}};
  std::vector<real_t> x = start;
  double fx = rosenbrock(x.data(), dim);
  const std::int64_t used = lbfgsb_minimize(whole.evaluator(), x.data(), fx, dim, budget, -5, 5).evaluations;
  ASSERT_EQ(static_cast<std::int64_t>(whole.values.size()), used);
  ASSERT_GT(used, 4 * (dim + 1));
  EXPECT_EQ(fx, *std::min_element(whole.values.begin(), whole.values.end()));
  EXPECT_EQ(fx, rosenbrock(x.data(), dim));
  for (std::int64_t cut : {std::int64_t{1}, dim + 2, 2 * (dim + 1) + 7, 3 * (dim + 1),
                           3 * (dim + 1) + 13, used}) {
    RecordedRows part{dim, {}, {}};
    std::vector<real_t> y = start;
    double fy = rosenbrock(y.data(), dim);
    EXPECT_EQ(lbfgsb_minimize(part.evaluator(), y.data(), fy, dim, budget, -5, 5, cut).evaluations,
              cut);
    ASSERT_EQ(static_cast<std::int64_t>(part.rows.size()), cut);
    for (std::int64_t k = 0; k < cut; ++k) EXPECT_EQ(part.rows[k], whole.rows[k]) << cut << " " << k;
    EXPECT_EQ(fy, std::min(rosenbrock(start.data(), dim),
                           *std::min_element(part.values.begin(), part.values.end())));
    EXPECT_EQ(fy, rosenbrock(y.data(), dim));
  }
  // The first gradient alone: its only base point is the start, but the step in x_D lowers f
  // (df/dx_D = 200 (x_D - x_{D-1}^2) < 0 at x = 3), so x moves to that difference point.
  std::vector<real_t> y = start;
  double fy = rosenbrock(y.data(), dim);
  RecordedRows first{dim, {}, {}};
  lbfgsb_minimize(first.evaluator(), y.data(), fy, dim, budget, -5, 5, dim + 1);
  EXPECT_LT(fy, rosenbrock(start.data(), dim));
  EXPECT_EQ(y, first.rows[dim]);
}

// --- SHADE-ILS's rules --------------------------------------------------------------------

// Each method once in the pool's random order, then the better last improvement; the choice
// stays while its improvement does not fall, and is taken again (ties: L-BFGS-B) when it does.
TEST(ShadeIlsPool, PicksTheMethodWithTheBetterLastImprovement) {
  MethodPool pool;
  pool.reset(42);
  const LocalMethod first = pool.next();
  const LocalMethod second = pool.next();
  EXPECT_NE(first, second);
  pool.credit(first, 0.0);
  pool.credit(second, 0.0);
  const auto mts = LocalMethod::kMtsLs1, grad = LocalMethod::kLbfgsb;
  MethodPool p;
  p.reset(7);
  p.credit(p.next(), 0.0);
  p.improvement[0] = 0.3;  // as if MTS-LS1 had improved by 30 %, L-BFGS-B by 10 %
  p.improvement[1] = 0.0;
  p.next();
  p.credit(grad, 0.1);
  EXPECT_EQ(p.next(), mts);
  p.credit(mts, 0.4);  // better than its previous 0.3: kept
  EXPECT_EQ(p.next(), mts);
  p.credit(mts, 0.2);  // fell below 0.4, still above L-BFGS-B's 0.1: kept by the comparison
  EXPECT_EQ(p.next(), mts);
  p.credit(mts, 0.05);  // below L-BFGS-B's 0.1: switch
  EXPECT_EQ(p.next(), grad);
  p.credit(grad, 0.0);  // 0: back to the better, MTS-LS1's 0.05
  EXPECT_EQ(p.next(), mts);
  p.credit(mts, 0.0);  // both 0: the tie goes to L-BFGS-B
  EXPECT_EQ(p.next(), grad);
}

TEST(ShadeIlsPool, FirstOrderDependsOnTheKeyOnly) {
  int mts_first = 0;
  for (std::uint64_t key = 0; key < 2000; ++key) {
    MethodPool a, b;
    a.reset(key);
    b.reset(key);
    const LocalMethod m = a.next();
    EXPECT_EQ(m, b.next());
    mts_first += m == LocalMethod::kMtsLs1;
  }
  EXPECT_NEAR(mts_first, 1000, 5 * std::sqrt(500.0));
}

TEST(ShadeIlsPool, ImprovementRatioIsRelative) {
  EXPECT_DOUBLE_EQ(improvement_ratio(10.0, 7.5), 0.25);
  EXPECT_DOUBLE_EQ(improvement_ratio(-10.0, -12.5), 0.25);
  EXPECT_EQ(improvement_ratio(0.0, -1.0), 0.0);
}

Config ils_config(std::int64_t evals, double threshold) {
  Config c;
  c.algorithm = AlgorithmKind::kShadeIls;
  c.function = "rastrigin";
  c.dim = 10;  // phases: 500 global, 500 SHADE, 100 local
  c.max_evaluations = evals;
  c.seed = 9;
  c.shade_ils_threshold = threshold;
  c.validate();
  return c;
}

// An iteration (three units) that cannot improve by the ratio (threshold 2 > 1) fails; the
// third failure in a row restarts. With threshold 0 no iteration fails.
TEST(ShadeIlsRestart, FiresAfterThreeFailingIterations) {
  for (const double threshold : {2.0, 0.0}) {
    const Config c = ils_config(1000000, threshold);
    const Problem problem = make_problem(c.function, c.dim, c.seed, "");
    ShadeIls algorithm(c, problem);
    algorithm.initialize();
    for (int iteration = 1; iteration <= 9; ++iteration) {
      for (int unit = 0; unit < 3; ++unit) algorithm.advance();
      const bool fails = threshold > 1.0;
      EXPECT_EQ(algorithm.counters().restarts, fails ? iteration / 3 : 0) << iteration;
      EXPECT_EQ(algorithm.failures(), fails ? iteration % 3 : 0) << iteration;
    }
  }
}

// --- whole runs ---------------------------------------------------------------------------

Config run_config(AlgorithmKind algorithm, const std::string& function, Dim dim,
                  std::int64_t evals) {
  Config c;
  c.algorithm = algorithm;
  c.function = function;
  c.dim = dim;
  c.max_evaluations = evals;
  c.seed = 5;
  c.validate();
  return c;
}

// f - f* of a run (the built-in functions carry the CEC bias f*).
double run_error(const Config& c, int threads) {
  const Problem problem = make_problem(c.function, c.dim, c.effective_problem_seed(), "");
  return run_with_threads(c, threads).best_fitness - problem.optimum_value;
}

// --milestones: SHADE's mark m is the best of the same run given the budget m (its last
// generation, cut there, makes the same first trials); L-SHADE's schedule follows the budget,
// so its marks are checked to be the running best, never rising, ending at the result.
TEST(ShadeMilestones, AreTheBestOfTheRunWithThatBudget) {
  Config c = run_config(AlgorithmKind::kShade, "rastrigin", 20, 5000);
  c.milestones = {1, 99, 100, 1234, 4999, 5000};
  c.validate();
  const RunResult r = run_with_threads(c, 2);
  ASSERT_EQ(r.milestones.size(), c.milestones.size());
  for (std::size_t i = 0; i < c.milestones.size(); ++i) {
    EXPECT_EQ(r.milestones[i].evaluations, c.milestones[i]);
    if (c.milestones[i] < c.shade_np) continue;  // no run shorter than its population
    const RunResult shorter = run_with_threads(
        run_config(AlgorithmKind::kShade, "rastrigin", 20, c.milestones[i]), 2);
    EXPECT_EQ(r.milestones[i].best_fitness, shorter.best_fitness) << c.milestones[i];
  }
  Config l = run_config(AlgorithmKind::kLshade, "rastrigin", 20, 5000);
  l.milestones = {360, 2000, 5000};
  l.validate();
  const RunResult lr = run_with_threads(l, 2);
  ASSERT_EQ(lr.milestones.size(), 3u);
  EXPECT_LE(lr.milestones[1].best_fitness, lr.milestones[0].best_fitness);
  EXPECT_EQ(lr.milestones[2].best_fitness, lr.best_fitness);
}

// MTS-LS1 and SHADE-ILS: mark m is the best of the same run given the budget m, with a mark
// every 7 (MTS-LS1) or 17 (SHADE-ILS) evaluations, so that marks fall inside MTS-LS1's steps,
// L-BFGS-B's gradients, SHADE's generations and the restarts. Every mark against its shorter
// run on one thread; on two, the records are the one-thread records and every 16th mark is
// checked against its shorter run too (a parallel region costs milliseconds on a loaded machine).
TEST(LocalSearchMilestones, AreTheBestOfTheRunWithThatBudget) {
  for (AlgorithmKind a : {AlgorithmKind::kMtsLs1, AlgorithmKind::kShadeIls}) {
    const bool ils = a == AlgorithmKind::kShadeIls;
    if (ils && !lbfgsb_available()) continue;
    const std::int64_t budget = ils ? 9000 : 2000, step = ils ? 17 : 7;
    Config c = run_config(a, "rastrigin", 10, budget);
    c.shade_ils_threshold = 0.05;  // restarts within the budget
    for (std::int64_t m = c.algorithm_population(); m <= budget; m += step)
      c.milestones.push_back(m);
    c.validate();
    const RunResult one = run_with_threads(c, 1);
    if (ils) {
      EXPECT_GT(one.counters.restarts, 0);
    }
    ASSERT_EQ(one.milestones.size(), c.milestones.size());
    // The one-thread runs first: two-thread workers left spinning slow them down.
    for (int threads : {1, 2}) {
      if (threads == 2) {
        const RunResult two = run_with_threads(c, 2);
        ASSERT_EQ(two.milestones.size(), c.milestones.size());
        for (std::size_t i = 0; i < c.milestones.size(); ++i)
          EXPECT_EQ(two.milestones[i].best_fitness, one.milestones[i].best_fitness);
      }
      for (std::size_t i = 0; i < c.milestones.size(); ++i) {
        EXPECT_EQ(one.milestones[i].evaluations, c.milestones[i]);
        if (threads == 2 && i % 16 != 0) continue;
        Config shorter = c;
        shorter.max_evaluations = c.milestones[i];
        shorter.milestones.clear();
        const RunResult s = run_with_threads(shorter, threads);
        ASSERT_EQ(s.counters.evaluations, c.milestones[i]) << algorithm_name(a);
        EXPECT_EQ(one.milestones[i].best_fitness, s.best_fitness)
            << algorithm_name(a) << " at " << c.milestones[i] << ", " << threads << " threads";
      }
    }
    EXPECT_EQ(one.milestones.back().best_fitness, one.best_fitness);
  }
}

// SHADE at D = 30 with 10^4 D evaluations (Tanabe & Fukunaga 2013 report 0 error on the
// shifted sphere and on CEC 2013's unrotated Rastrigin F5 there).
TEST(ShadeQuality, SolvesSphereAndRastriginAtThirtyDimensions) {
  const double sphere = run_error(run_config(AlgorithmKind::kShade, "sphere", 30, 150000), 2);
  EXPECT_LT(sphere, 1e-8);
  const double rastrigin = run_error(run_config(AlgorithmKind::kShade, "rastrigin", 30, 300000), 2);
  EXPECT_LT(rastrigin, 1.0);
  std::printf("SHADE D=30: sphere error %.3g after 1.5e5, rastrigin %.3g after 3e5\n", sphere,
              rastrigin);
}

TEST(LshadeQuality, SolvesRastriginAtThirtyDimensions) {
  const double error = run_error(run_config(AlgorithmKind::kLshade, "rastrigin", 30, 300000), 2);
  EXPECT_LT(error, 1.0);
  std::printf("L-SHADE D=30: rastrigin error %.3g after 3e5\n", error);
}

// MTS-LS1 solves separable unimodal functions, ill-conditioned ones too (discus: 10^6 z_1^2 +
// the rest), to the float32 genes' resolution.
TEST(MtsLs1Quality, SolvesSeparableFunctions) {
  const double sumsquares = run_error(run_config(AlgorithmKind::kMtsLs1, "sumsquares", 50, 100000), 1);
  EXPECT_LT(sumsquares, 1e-8);
  const double discus = run_error(run_config(AlgorithmKind::kMtsLs1, "discus", 50, 100000), 1);
  EXPECT_LT(discus, 1e-3);
  std::printf("MTS-LS1 D=50: sumsquares error %.3g, discus %.3g after 1e5\n", sumsquares, discus);
}

TEST(ShadeIlsQuality, SolvesSphereAndAckleyAtHundredDimensions) {
  const double sphere = run_error(run_config(AlgorithmKind::kShadeIls, "sphere", 100, 100000), 2);
  EXPECT_LT(sphere, 1e-8);
  const double ackley = run_error(run_config(AlgorithmKind::kShadeIls, "ackley", 100, 100000), 2);
  EXPECT_LT(ackley, 1e-4);
  std::printf("SHADE-ILS D=100: sphere error %.3g, ackley %.3g after 1e5\n", sphere, ackley);
}

class ShadeFamily : public test::TempDirTest, public ::testing::WithParamInterface<AlgorithmKind> {};

TEST_P(ShadeFamily, ResultDoesNotDependOnTheThreadCount) {
  const Config c = run_config(GetParam(), "rastrigin", 20, 9000);
  std::vector<real_t> one, two;
  const RunResult a = run_with_threads(c, 1, &one);
  const RunResult b = run_with_threads(c, 2, &two);
  EXPECT_EQ(a.best_fitness, b.best_fitness);
  EXPECT_EQ(one, two);
  EXPECT_EQ(a.counters.evaluations, 9000);
  EXPECT_EQ(a.counters.ls_evaluations, b.counters.ls_evaluations);
}

// Stopped after 7 units with a checkpoint, resumed: the uninterrupted run's bits.
TEST_P(ShadeFamily, ResumeMidRunIsBitExact) {
  const std::string path = (dir_ / "mid.h5").string();
  const Config c = run_config(GetParam(), "rastrigin", 20, 9000);
  const Problem problem = make_problem(c.function, c.dim, c.seed, "");
  {
    const auto algorithm = make_population_algorithm(c, problem, Backend::kCpu);
    int units = 0;
    algorithm->run({}, [&](Algorithm& a) {
      if (++units < 8) return true;
      write_checkpoint("--checkpoint", path, dynamic_cast<PopulationAlgorithm&>(a),
                                 Backend::kCpu, "test");
      return false;
    });
    ASSERT_LT(algorithm->counters().evaluations, 9000);
  }
  const auto resumed = make_population_algorithm(c, problem, Backend::kCpu);
  load_checkpoint(path, *resumed);
  const RunResult r = resumed->run();
  std::vector<real_t> fresh_best;
  const RunResult fresh = run_with_threads(c, 2, &fresh_best);
  EXPECT_EQ(r.best_fitness, fresh.best_fitness);
  EXPECT_EQ(resumed->best_genes(), fresh_best);
  EXPECT_EQ(r.counters.evaluations, fresh.counters.evaluations);
  EXPECT_EQ(r.counters.ls_evaluations, fresh.counters.ls_evaluations);
  EXPECT_EQ(r.counters.restarts, fresh.counters.restarts);
}

// Checkpointed before the unit the budget cuts, resumed with a larger budget: the run that had
// the larger budget from the start (not L-SHADE, whose reduction follows its budget).
TEST_P(ShadeFamily, ResumeWithALargerBudgetIsBitExact) {
  if (GetParam() == AlgorithmKind::kLshade) GTEST_SKIP() << "the schedule follows the budget";
  const std::string path = (dir_ / "run.h5").string();
  const Config shorter = run_config(GetParam(), "rastrigin", 20, 3777);
  const Problem problem = make_problem(shorter.function, shorter.dim, shorter.seed, "");
  {
    const auto algorithm = make_population_algorithm(shorter, problem, Backend::kCpu);
    CheckpointSchedule schedule("--checkpoint", path, {}, Backend::kCpu);
    algorithm->run({}, [&](Algorithm& a) { return schedule.at_safe_point(a); });
    schedule.at_end(*algorithm);
  }
  Config longer = shorter;
  longer.max_evaluations = 8000;
  const auto resumed = make_population_algorithm(longer, problem, Backend::kCpu);
  load_checkpoint(path, *resumed);
  EXPECT_LE(resumed->counters().evaluations, 3777);
  const RunResult r = resumed->run();
  std::vector<real_t> fresh_best;
  const RunResult fresh = run_with_threads(longer, 2, &fresh_best);
  EXPECT_EQ(r.best_fitness, fresh.best_fitness);
  EXPECT_EQ(resumed->best_genes(), fresh_best);
  EXPECT_EQ(r.counters.evaluations, fresh.counters.evaluations);
}

// The one refusal, before a device is looked for.
TEST_P(ShadeFamily, CudaBackendIsRefusedNamingTheCpuBackend) {
  Config c = run_config(GetParam(), "rastrigin", 20, 9000);
  c.backend = Backend::kCuda;
  EXPECT_TRUE(runs_on_cpu_only(c.algorithm));
  try {
    c.validate();
    FAIL() << "accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("runs on the CPU backend only"), std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, ShadeFamily,
                         ::testing::Values(AlgorithmKind::kShade, AlgorithmKind::kLshade,
                                           AlgorithmKind::kMtsLs1, AlgorithmKind::kShadeIls),
                         [](const auto& info) {
                           std::string name = algorithm_name(info.param);
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace chainsaw
