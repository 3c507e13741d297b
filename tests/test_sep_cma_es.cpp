// sep-CMA-ES (docs/algorithms.md): one generation's update against an independent float64 NumPy
// reference (tests/sep_cma_reference.py), convergence on separable quadratics, Rastrigin, IPOP's
// doubling lambda, thread-count independence, bit-exact resume, the CPU-only refusal and the
// command line.
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "api_objectives.hpp"
#include "cli_support.hpp"
#include "core/algorithms/sep_cma_es.hpp"
#include "core/error.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/instance_file.hpp"
#include "population_run.hpp"
#include "temp_dir_test.hpp"

namespace chainsaw {
namespace {

// --- One generation against the reference ---------------------------------------------------

struct UpdateCase {
  Dim n;
  int lambda;
  std::int64_t generation;
  double path_scale;  // large p_sigma: h_sigma = 0
};

class SepCmaUpdate : public test::TempDirTest, public ::testing::WithParamInterface<UpdateCase> {
 protected:
  // Runs the reference on the state and points; its result, or empty when NumPy is missing.
  std::vector<double> reference(const SepCmaDistribution& d, int lambda,
                                const std::vector<real_t>& x, const std::vector<double>& f) {
    const std::string in = (dir_ / "in.txt").string(), out = (dir_ / "out.txt").string();
    {
      std::ofstream s(in);
      s.precision(17);
      s << d.mean.size() << ' ' << lambda << ' ' << d.generation << ' ' << d.sigma << '\n';
      for (const auto* v : {&d.mean, &d.c, &d.path_c, &d.path_sigma}) {
        for (double e : *v) s << e << ' ';
        s << '\n';
      }
      for (real_t e : x) s << static_cast<double>(e) << ' ';
      s << '\n';
      for (double e : f) s << e << ' ';
      s << '\n';
    }
    const std::string script = std::string(CHAINSAW_TEST_DATA) + "/../sep_cma_reference.py";
    const std::string python = std::ifstream("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    const std::string command = python + " '" + script + "' '" + in + "' '" + out + "'";
    const int status = std::system(command.c_str());
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) return {};
    EXPECT_EQ(status, 0);
    std::ifstream s(out);
    std::vector<double> values;
    for (double v; s >> v;) values.push_back(v);
    return values;
  }
};

TEST_P(SepCmaUpdate, OneGenerationMatchesTheFloat64Reference) {
  const UpdateCase u = GetParam();
  const SepCmaParameters p = sep_cma_parameters(u.n, u.lambda);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  SepCmaDistribution d;
  for (Dim j = 0; j < u.n; ++j) {
    d.mean.push_back(3.0 * uniform(rng));
    d.c.push_back(0.2 + std::fabs(uniform(rng)));
    d.path_c.push_back(0.5 * uniform(rng));
    d.path_sigma.push_back(u.path_scale * uniform(rng));
  }
  d.sigma = 0.7;
  d.generation = u.generation;
  std::vector<real_t> x(static_cast<std::size_t>(u.lambda * u.n));
  for (real_t& e : x) e = static_cast<real_t>(3.0 * uniform(rng));
  std::vector<double> f;
  for (int k = 0; k < u.lambda; ++k) f.push_back(uniform(rng));
  std::vector<int> order(static_cast<std::size_t>(u.lambda));
  for (int k = 0; k < u.lambda; ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&f](int a, int b) { return f[a] < f[b]; });

  const std::vector<double> want = reference(d, u.lambda, x, f);
  if (want.empty()) GTEST_SKIP() << "NumPy is not installed";
  ASSERT_EQ(want.size(), 4 * static_cast<std::size_t>(u.n) + 2);
  std::vector<double> scratch;
  sep_cma_update(p, x.data(), order, d, scratch);
  auto near = [](double got, double expected) {
    return std::fabs(got - expected) <= 1e-12 * std::max(1.0, std::fabs(expected));
  };
  std::size_t at = 0;
  for (const auto* v : {&d.mean, &d.c, &d.path_c, &d.path_sigma})
    for (Dim j = 0; j < u.n; ++j, ++at)
      EXPECT_PRED2(near, (*v)[j], want[at]) << "vector " << at / u.n << " gene " << j;
  EXPECT_PRED2(near, d.sigma, want[at]);
  EXPECT_EQ(d.generation, static_cast<std::int64_t>(want[at + 1]));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SepCmaUpdate,
    ::testing::Values(UpdateCase{7, 10, 3, 0.3}, UpdateCase{7, 10, 0, 6.0},
                      UpdateCase{50, 15, 20, 0.5}, UpdateCase{300, 21, 1, 40.0}),
    [](const auto& info) {
      return "n" + std::to_string(info.param.n) + "_lambda" + std::to_string(info.param.lambda) +
             (info.param.path_scale > 5 ? "_h0" : "_h1");
    });

TEST(SepCmaParameters, DefaultLambdaAndLearningRatesStayInRange) {
  Config c;
  c.algorithm = AlgorithmKind::kSepCmaEs;
  for (Dim n : {Dim{1}, Dim{2}, Dim{10}, Dim{1000}, Dim{1000000}}) {
    c.dim = n;
    const int lambda = c.cma_initial_lambda();
    EXPECT_EQ(lambda, 4 + static_cast<int>(std::floor(3 * std::log(static_cast<double>(n)))));
    const SepCmaParameters p = sep_cma_parameters(n, lambda);
    EXPECT_EQ(p.mu, lambda / 2);
    double sum = 0;
    for (int i = 0; i < p.mu; ++i) {
      sum += p.weights[i];
      if (i > 0) {
        EXPECT_LT(p.weights[i], p.weights[i - 1]);
      }
    }
    EXPECT_NEAR(sum, 1.0, 1e-15);
    EXPECT_GT(p.c_1, 0.0);
    EXPECT_GT(p.c_mu, 0.0);
    EXPECT_LE(p.c_1 + p.c_mu, 1.0);
    EXPECT_LT(p.c_sigma, 1.0);
  }
  c.dim = 10;
  EXPECT_EQ(c.cma_initial_lambda(), 10);  // Hansen 2016, Table 1: 4 + floor(3 ln 10)
  c.cma_lambda = 40;
  EXPECT_EQ(c.cma_initial_lambda(), 40);
}

// --- Whole runs ---------------------------------------------------------------------------

Config cma_config(const std::string& function, Dim dim, std::int64_t evals) {
  return test::algorithm_config(AlgorithmKind::kSepCmaEs, function, dim, evals, 5, Backend::kCpu);
}

struct Target {
  const char* function;
  Dim dim;
  std::int64_t budget;
};

class SepCmaConvergence : public ::testing::TestWithParam<Target> {};

// f - f* <= 1e-8 within the budget, default parameters, three seeds.
TEST_P(SepCmaConvergence, ReachesOneEMinusEight) {
  const Target t = GetParam();
  for (std::uint64_t seed : {1, 2, 3}) {
    Config c = cma_config(t.function, t.dim, t.budget);
    c.seed = seed;
    c.target_error = 1e-8;
    const test::PopulationRun r = test::run_population(c, 2);
    EXPECT_TRUE(r.result.stop.target_reached) << t.function << " seed " << seed << ": "
                                              << r.result.best_fitness;
    std::printf("%s %lld-D seed %llu: 1e-8 after %lld evaluations\n", t.function,
                static_cast<long long>(t.dim), static_cast<unsigned long long>(seed),
                static_cast<long long>(r.result.counters.evaluations));
  }
}

INSTANTIATE_TEST_SUITE_P(Separable, SepCmaConvergence,
                         ::testing::Values(Target{"sphere", 30, 10000},
                                           Target{"sphere", 100, 30000},
                                           Target{"hyperellipsoid", 30, 10000},
                                           Target{"hyperellipsoid", 100, 40000},
                                           Target{"discus", 30, 15000}),
                         [](const auto& info) {
                           return std::string(info.param.function) + "_" +
                                  std::to_string(info.param.dim);
                         });

TEST(SepCmaEs, ImprovesOnRastrigin) {
  const Config first = cma_config("rastrigin", 30, 17);  // the first generation only
  const Config longer = cma_config("rastrigin", 30, 30000);
  const double start = test::run_population(first, 2).result.best_fitness + 330.0;
  const double end = test::run_population(longer, 2).result.best_fitness + 330.0;
  std::printf("rastrigin 30-D: %.3f after one generation, %.3f after 30000 evaluations\n", start,
              end);
  EXPECT_LT(end, 0.2 * start);
}

TEST(SepCmaEs, IpopRestartsDoubleLambda) {
  Config c = cma_config("rastrigin", 10, 60000);
  c.cma_ipop = true;
  const test::PopulationRun ipop = test::run_population(c, 2);
  EXPECT_GE(ipop.result.counters.restarts, 3);
  EXPECT_EQ(ipop.population_size, c.cma_initial_lambda() << ipop.result.counters.restarts);
  c.cma_ipop_factor = 1.5;
  const test::PopulationRun slower = test::run_population(c, 2);
  EXPECT_GE(slower.result.counters.restarts, 1);
  int lambda = c.cma_initial_lambda();
  for (int r = 0; r < slower.result.counters.restarts; ++r)
    lambda = static_cast<int>(std::ceil(lambda * 1.5));
  EXPECT_EQ(slower.population_size, lambda);
  c.cma_ipop = false;
  const test::PopulationRun plain = test::run_population(c, 2);
  EXPECT_EQ(plain.result.counters.restarts, 0);
  EXPECT_EQ(plain.population_size, c.cma_initial_lambda());
  std::printf("rastrigin 10-D, 60000 evaluations: %.3f with IPOP (%lld restarts, lambda %d), "
              "%.3f without\n",
              ipop.result.best_fitness + 330.0,
              static_cast<long long>(ipop.result.counters.restarts), ipop.population_size,
              plain.result.best_fitness + 330.0);
  EXPECT_LT(ipop.result.best_fitness, plain.result.best_fitness);
}

TEST(SepCmaEs, ResultDoesNotDependOnTheThreadCount) {
  Config c = cma_config("rastrigin", 10, 20000);
  c.cma_ipop = true;
  const test::PopulationRun one = test::run_population(c, 1), two = test::run_population(c, 2);
  EXPECT_GE(one.result.counters.restarts, 1);
  EXPECT_EQ(one.result.best_fitness, two.result.best_fitness);
  EXPECT_EQ(one.best, two.best);
  EXPECT_EQ(one.result.counters.evaluations, 20000);
  EXPECT_EQ(one.result.counters.restarts, two.result.counters.restarts);
}

// --milestones: the best of the first m evaluations is the best of the same run with budget m
// (its last generation, cut there, evaluates the same first offspring).
TEST(SepCmaEs, MilestonesAreTheBestOfTheRunWithThatBudget) {
  Config c = cma_config("rastrigin", 10, 6000);
  c.cma_ipop = true;
  c.milestones = {1, 37, 1000, 3777, 5999, 6000};
  c.validate();
  const test::PopulationRun r = test::run_population(c, 2);
  ASSERT_EQ(r.result.milestones.size(), c.milestones.size());
  for (std::size_t i = 0; i < c.milestones.size(); ++i) {
    EXPECT_EQ(r.result.milestones[i].evaluations, c.milestones[i]);
    if (c.milestones[i] < c.cma_initial_lambda()) continue;  // no run that short
    Config shorter = c;
    shorter.max_evaluations = c.milestones[i];
    shorter.milestones.clear();
    EXPECT_EQ(r.result.milestones[i].best_fitness, test::run_population(shorter, 2).result.best_fitness)
        << c.milestones[i];
  }
  EXPECT_EQ(r.result.milestones.back().best_fitness, r.result.best_fitness);
}

class SepCmaCheckpoint : public test::TempDirTest {};

// Checkpointed after an IPOP restart (a lambda other than the first) and before the unit the
// budget cuts, resumed with a larger budget: the longer run, bit for bit.
TEST_F(SepCmaCheckpoint, ResumeAfterARestartIsBitExact) {
  const std::string path = (dir_ / "run.h5").string();
  Config shorter = cma_config("rastrigin", 10, 9001);
  shorter.cma_ipop = true;
  Config longer = shorter;
  longer.max_evaluations = 20000;
  const test::ResumeBesideFresh c = test::resume_beside_fresh(shorter, longer, path, Backend::kCpu);
  ASSERT_GE(c.shorter.counters.restarts, 1);
  EXPECT_EQ(inspect_checkpoint(path).algorithm, "sep-cma-es");
  EXPECT_LE(c.evaluations_at_load, 9001);
  EXPECT_GT(c.population_at_load, shorter.cma_initial_lambda());
  test::expect_resume_is_the_fresh_run(c);
}

// 10^5 variables, two generations: the arrays are O(lambda D) (no D x D matrix).
TEST(SepCmaEs, RunsAtOneHundredThousandVariables) {
  const Config c = cma_config("rastrigin", 100000, 2 * 38);
  const test::PopulationRun r = test::run_population(c, 2);
  EXPECT_EQ(r.population_size, 38);  // 4 + floor(3 ln 10^5)
  EXPECT_EQ(r.result.counters.evaluations, 76);
  EXPECT_TRUE(std::isfinite(r.result.best_fitness));
  EXPECT_EQ(r.best.size(), 100000u);
}

// The GPU has its own sep-CMA-ES (tests/test_cuda_sep_cma_es.cpp): --backend cuda is valid.
TEST(SepCmaEs, AcceptsTheCudaBackend) {
  Config c = cma_config("sphere", 10, 1000);
  c.backend = Backend::kCuda;
  EXPECT_NO_THROW(c.validate());
  EXPECT_FALSE(runs_on_cpu_only(c.algorithm));
}

class SepCmaLibrary : public test::TempDirTest {};

// A user objective, through its batch callback, is the built-in function's run bit for bit, and
// resumes from its checkpoint like the straight run.
TEST_F(SepCmaLibrary, UserObjectiveRunIsTheBuiltInRunAndResumes) {
  Options o;
  o.algorithm = AlgorithmKind::kSepCmaEs;
  o.cma_ipop = true;
  o.dim = 10;
  o.max_evaluations = 5000;
  o.seed = 3;
  o.backend = Backend::kCpu;
  o.checkpoint = (dir_ / "api.h5").string();
  const test::UserRastrigin objective{benchmark_shift(-5.12, 5.12, 3)};
  const Result user = optimize(objective, o);
  Config c = o;
  c.function = "rastrigin";
  const test::PopulationRun builtin = test::run_population(c, 2);
  EXPECT_EQ(user.best_fitness, builtin.result.best_fitness);
  EXPECT_EQ(user.best_genes, builtin.best);
  EXPECT_EQ(user.evaluations.evaluations, 5000);

  Options more = o;
  more.max_evaluations = 12000;
  more.checkpoint.clear();
  const Result straight = optimize(objective, more);
  more.resume_from = o.checkpoint;
  const Result resumed = optimize(objective, more);
  EXPECT_GE(straight.evaluations.restarts, 1);
  EXPECT_EQ(resumed.best_fitness, straight.best_fitness);
  EXPECT_EQ(resumed.best_genes, straight.best_genes);
  EXPECT_GT(resumed.resumed_at_evaluations, 0);
}

// --- The command line -----------------------------------------------------------------------

class SepCmaEsCli : public test::CliTest {
 protected:
  nlohmann::json run_json(const std::string& args) {
    const test::Outcome o = chainsaw("run -q --backend cpu --function rastrigin --dim 10 " + args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return nlohmann::json::parse(o.out);
  }
};

TEST_F(SepCmaEsCli, FlagsReachTheResultAndBadValuesGiveOneErrorLine) {
  const nlohmann::json j = run_json("--algorithm sep-cma-es --cma-lambda 12 --cma-sigma0 0.2 "
                                    "--cma-ipop --cma-ipop-factor 3 --evals 20000");
  EXPECT_EQ(j["algorithm"], "sep-cma-es");
  EXPECT_EQ(j["config"]["cma_lambda"], 12);
  EXPECT_EQ(j["config"]["cma_sigma0"], 0.2);
  EXPECT_EQ(j["config"]["cma_ipop"], true);
  EXPECT_EQ(j["config"]["cma_ipop_factor"], 3.0);
  EXPECT_EQ(j["evaluations"]["total"], 20000);
  EXPECT_GE(j["evaluations"]["restarts"].get<int>(), 1);
  const std::string base = "run --backend cpu --dim 10 --evals 1000 --algorithm sep-cma-es ";
  test::expect_one_line_error(chainsaw(base + "--cma-lambda 1"), "--cma-lambda = 1");
  test::expect_one_line_error(chainsaw(base + "--cma-sigma0 0"), "--cma-sigma0 = 0");
  test::expect_one_line_error(chainsaw(base + "--cma-ipop-factor 0.5"), "--cma-ipop-factor");
}

// --runs: run k is the separate run of seed 11 + k on the first run's instance.
TEST_F(SepCmaEsCli, RunsAndResumeEqualSeparateRunsBitForBit) {
  const std::string args = "--algorithm sep-cma-es --cma-ipop --evals 6000 --seed 11";
  const nlohmann::json all = run_json(args + " --runs 2 --threads 2");
  ASSERT_EQ(all["results"].size(), 2u);
  for (int k = 0; k < 2; ++k)
    test::expect_same_run_result(
        all["results"][k], run_json("--algorithm sep-cma-es --cma-ipop --evals 6000 --threads 1 "
                                    "--seed " + std::to_string(11 + k) + " --problem-seed 11"));
  const std::string file = out_path("cma.h5");
  run_json(args + " --checkpoint " + file);
  const test::Outcome inspect = chainsaw("inspect " + file);
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
  const test::Outcome resumed = chainsaw("resume -q " + file + " --evals 15000");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const nlohmann::json continued = nlohmann::json::parse(resumed.out);
  const nlohmann::json longer =
      run_json("--algorithm sep-cma-es --cma-ipop --evals 15000 --seed 11");
  test::expect_same_run_result(continued, longer);
  EXPECT_EQ(continued["algorithm"], "sep-cma-es");
}

}  // namespace
}  // namespace chainsaw
