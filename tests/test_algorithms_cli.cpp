// The command line of --algorithm, --runs, --time-limit and --target-error
// (docs/algorithms.md): bad values, K runs against K separate runs, checkpoint and resume.
#include <string>

#include "cli_support.hpp"
#if defined(CHAINSAW_CUDA)
#include "core/gpu/device_info.hpp"
#endif

namespace chainsaw::test {
namespace {

class AlgorithmsCli : public CliTest {
 protected:
  nlohmann::json run_json(const std::string& args) {
    const Outcome o = chainsaw("run -q --backend cpu --function rastrigin --dim 20 " + args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return nlohmann::json::parse(o.out);
  }
};

TEST_F(AlgorithmsCli, BadValuesGiveOneErrorLine) {
  const std::string base = "run --backend cpu --dim 10 --evals 1000 ";
  expect_one_line_error(chainsaw(base + "--algorithm de --de-f 0"), "--de-f = 0");
  expect_one_line_error(chainsaw(base + "--algorithm de --de-f -0.5"), "--de-f");
  expect_one_line_error(chainsaw(base + "--algorithm de --de-cr 1.5"), "--de-cr = 1.5");
  expect_one_line_error(chainsaw(base + "--algorithm de --de-cr -0.1"), "--de-cr");
  expect_one_line_error(chainsaw(base + "--algorithm jde --de-np 3"), "--de-np = 3");
  expect_one_line_error(chainsaw(base + "--runs 0"), "--runs = 0");
  expect_one_line_error(chainsaw(base + "--time-limit -5s"), "--time-limit = -5s");
  expect_one_line_error(chainsaw(base + "--time-limit -1"), "--time-limit");
  expect_one_line_error(chainsaw(base + "--target-error -1e-8"), "--target-error");
  expect_one_line_error(chainsaw(base + "--algorithm sa"), "--algorithm = sa");
  expect_one_line_error(chainsaw(base + "--algorithm de --de-crossover two"), "--de-crossover");
  expect_one_line_error(chainsaw(base + "--algorithm pso --pso-particles 1"), "--pso-particles");
  expect_one_line_error(chainsaw(base + "--algorithm ss --ss-lambda 0.7"), "--ss-lambda");
  expect_one_line_error(chainsaw(base + "--runs 2 --checkpoint " + out_path("c.h5")),
                        "--checkpoint");
}

TEST_F(AlgorithmsCli, ResultNamesTheAlgorithmAndItsParameters) {
  const nlohmann::json j = run_json("--algorithm de --de-np 48 --de-f 0.52 --de-cr 0.879 "
                                    "--de-crossover exp --evals 2000");
  EXPECT_EQ(j["algorithm"], "de");
  EXPECT_EQ(j["config"]["algorithm"], "de");
  EXPECT_EQ(j["config"]["de_np"], 48);
  EXPECT_EQ(j["config"]["de_crossover"], "exp");
  EXPECT_EQ(j["evaluations"]["total"], 2000);
  EXPECT_EQ(j["stopped_by"], "budget");
  EXPECT_TRUE(j["target_reached"].is_null());
  EXPECT_LT(j["best_error"].get<double>(), j["trace"][0][2].get<double>() + 330.0);
}

// --runs K: one file with every run, each equal bit for bit to a run with its seed alone on the
// first run's instance (--problem-seed of the first seed).
TEST_F(AlgorithmsCli, RunsEqualSeparateRunsBitForBit) {
  for (const std::string algorithm : {"ma-sw-chains", "jde", "ss"}) {
    const std::string args = "--algorithm " + algorithm + " --evals 3000 --seed 11";
    const nlohmann::json all = run_json(args + " --runs 3 --threads 2");
    ASSERT_EQ(all["results"].size(), 3u);
    EXPECT_EQ(all["runs"], 3);
    EXPECT_EQ(all["seeds"], nlohmann::json({11, 12, 13}));
    for (int k = 0; k < 3; ++k) {
      const nlohmann::json alone =
          run_json("--algorithm " + algorithm + " --evals 3000 --threads 1 --seed " +
                   std::to_string(11 + k) + " --problem-seed 11");
      expect_same_run_result(all["results"][k], alone);
      EXPECT_EQ(all["results"][k]["config"]["seed"], 11 + k);
      EXPECT_EQ(all["results"][k]["config"]["problem_seed"], 11);
    }
    double sum = 0;
    for (const auto& r : all["results"]) sum += r["best_error"].get<double>();
    EXPECT_DOUBLE_EQ(all["summary"]["best_error"]["mean"].get<double>(), sum / 3);
  }
}

// --vary-instance: run k poses the instance of its own seed, as `run --seed s+k` alone does;
// without it the runs share one optimum, so their distances differ from these.
TEST_F(AlgorithmsCli, RunsVaryTheInstanceOnlyWhenAsked) {
  const std::string args = "--algorithm de --evals 3000 --seed 4";
  const nlohmann::json varied = run_json(args + " --runs 2 --vary-instance");
  const nlohmann::json fixed = run_json(args + " --runs 2");
  EXPECT_EQ(varied["vary_instance"], true);
  EXPECT_EQ(fixed["vary_instance"], false);
  const nlohmann::json alone = run_json("--algorithm de --evals 3000 --seed 5");
  expect_same_run_result(varied["results"][1], alone);
  EXPECT_EQ(varied["results"][1]["config"]["problem_seed"], 5);
  EXPECT_EQ(fixed["results"][1]["config"]["problem_seed"], 4);
  EXPECT_NE(fixed["results"][1]["distance_to_optimum"], alone["distance_to_optimum"]);
  expect_same_run_result(varied["results"][0], fixed["results"][0]);
}

#if defined(CHAINSAW_CUDA)
// On the GPU the runs share the device, each with its own engine and stream, concurrently: each
// must still equal its run alone.
TEST_F(AlgorithmsCli, ConcurrentGpuRunsEqualSeparateRunsBitForBit) {
  if (cuda_device_count() < 1) GTEST_SKIP() << "no GPU";
  for (const std::string algorithm : {"ma-sw-chains", "de"}) {
    const std::string args = "run -q --backend cuda --function rastrigin --dim 1000 --algorithm " +
                             algorithm + " --evals 20000 --seed 5";
    const test::Outcome all = chainsaw(args + " --runs 4 --threads 4");
    ASSERT_EQ(all.exit_code, 0) << all.err;
    const nlohmann::json runs = nlohmann::json::parse(all.out);
    ASSERT_EQ(runs["results"].size(), 4u);
    for (int k = 0; k < 4; ++k) {
      const test::Outcome alone = chainsaw(
          "run -q --backend cuda --function rastrigin --dim 1000 --algorithm " + algorithm +
          " --evals 20000 --seed " + std::to_string(5 + k) + " --problem-seed 5");
      ASSERT_EQ(alone.exit_code, 0) << alone.err;
      expect_same_run_result(runs["results"][k], nlohmann::json::parse(alone.out));
    }
  }
}
#endif

TEST_F(AlgorithmsCli, TargetErrorStopsEveryAlgorithmAndRecordsWhen) {
  for (const std::string algorithm : {"ma-sw-chains", "de", "pso"}) {
    const nlohmann::json j = run_json("--algorithm " + algorithm +
                                      " --function sumsquares --evals 2000000 --target-error 1e3");
    EXPECT_EQ(j["stopped_by"], "target_error") << algorithm;
    EXPECT_LE(j["best_error"].get<double>(), 1e3);
    EXPECT_EQ(j["target_reached"]["evaluations"], j["evaluations"]["total"]);
    EXPECT_LT(j["evaluations"]["total"].get<int>(), 2000000);
  }
}

TEST_F(AlgorithmsCli, TimeLimitStopsMaSwChains) {
  const nlohmann::json j = run_json("--evals 1000000000 --time-limit 0.3s");
  EXPECT_EQ(j["stopped_by"], "time_limit");
  EXPECT_GE(j["wall_seconds"].get<double>(), 0.3);
  EXPECT_LT(j["wall_seconds"].get<double>(), 10.0);
}

// A DE run checkpointed at its end and resumed with a larger budget equals the longer run.
TEST_F(AlgorithmsCli, ResumeContinuesBitForBit) {
  for (const std::string algorithm : {"de", "pso"}) {
    const std::string file = out_path(algorithm + ".h5");
    const std::string args = "--algorithm " + algorithm + " --seed 3";
    run_json(args + " --evals 3333 --checkpoint " + file);
    const Outcome inspect = chainsaw("inspect " + file);
    EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
    const Outcome resumed = chainsaw("resume -q " + file + " --evals 8000");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    const nlohmann::json continued = nlohmann::json::parse(resumed.out);
    const nlohmann::json longer = run_json(args + " --evals 8000");
    expect_same_run_result(continued, longer);
    EXPECT_EQ(continued["algorithm"], algorithm);
    EXPECT_FALSE(continued["resumed_from"].is_null());
  }
}

}  // namespace
}  // namespace chainsaw::test
