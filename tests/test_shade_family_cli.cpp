// The command line of the SHADE family (docs/algorithms.md): bad values, the result's
// parameters, --runs against separate runs, checkpoint and resume, --backend cuda refused.
#include <string>

#include "cli_support.hpp"

namespace chainsaw::test {
namespace {

class ShadeFamilyCli : public CliTest {
 protected:
  nlohmann::json run_json(const std::string& args) {
    const Outcome o = chainsaw("run -q --backend cpu --function rastrigin --dim 20 " + args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return nlohmann::json::parse(o.out);
  }
};

TEST_F(ShadeFamilyCli, BadValuesGiveOneErrorLine) {
  const std::string base = "run --backend cpu --dim 10 --evals 5000 ";
  expect_one_line_error(chainsaw(base + "--algorithm shade --shade-np 3"), "--shade-np = 3");
  expect_one_line_error(chainsaw(base + "--algorithm shade --shade-h 0"), "--shade-h = 0");
  expect_one_line_error(chainsaw(base + "--algorithm shade --shade-p-max 0.01"),
                        "--shade-p-max = 0.01");
  expect_one_line_error(chainsaw(base + "--algorithm lshade --lshade-np-min 2"),
                        "--lshade-np-min = 2");
  expect_one_line_error(chainsaw(base + "--algorithm lshade --lshade-p 0"), "--lshade-p = 0");
  expect_one_line_error(chainsaw(base + "--algorithm mts-ls1 --mts-sr -1"), "--mts-sr = -1");
  expect_one_line_error(chainsaw(base + "--algorithm shade-ils --shade-ils-global-evals -2"),
                        "--shade-ils-global-evals = -2");
  expect_one_line_error(chainsaw(base + "--algorithm shadeils"), "--algorithm = shadeils");
}

TEST_F(ShadeFamilyCli, ResultNamesTheAlgorithmAndItsParameters) {
  const nlohmann::json j = run_json("--algorithm lshade --lshade-np-max 100 --evals 4000");
  EXPECT_EQ(j["algorithm"], "lshade");
  EXPECT_EQ(j["config"]["lshade_np_max"], 100);
  EXPECT_EQ(j["config"]["lshade_archive_rate"], 2.6);
  EXPECT_EQ(j["evaluations"]["total"], 4000);
  const nlohmann::json ils = run_json("--algorithm shade-ils --evals 6000");
  EXPECT_EQ(ils["algorithm"], "shade-ils");
  EXPECT_EQ(ils["evaluations"]["total"], 6000);
  EXPECT_GT(ils["evaluations"]["ls"].get<int>(), 0);
}

// --runs: run k is the separate run of seed 11 + k on the first run's instance.
TEST_F(ShadeFamilyCli, RunsEqualSeparateRunsBitForBit) {
  for (const std::string algorithm : {"shade", "mts-ls1", "shade-ils"}) {
    const std::string args = "--algorithm " + algorithm + " --evals 4000";
    const nlohmann::json all = run_json(args + " --seed 11 --runs 2 --threads 2");
    ASSERT_EQ(all["results"].size(), 2u);
    for (int k = 0; k < 2; ++k)
      expect_same_run_result(all["results"][k],
                             run_json(args + " --threads 1 --seed " + std::to_string(11 + k) +
                                      " --problem-seed 11"));
  }
}

TEST_F(ShadeFamilyCli, ResumeContinuesBitForBit) {
  for (const std::string algorithm : {"shade", "shade-ils"}) {
    const std::string file = out_path(algorithm + ".h5");
    const std::string args = "--algorithm " + algorithm + " --seed 3";
    run_json(args + " --evals 3000 --checkpoint '" + file + "'");
    const Outcome resumed = chainsaw("resume -q '" + file + "' --evals 7000");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    expect_same_run_result(nlohmann::json::parse(resumed.out), run_json(args + " --evals 7000"));
  }
}

TEST_F(ShadeFamilyCli, CudaBackendIsRefusedInOneLine) {
  for (const std::string algorithm : {"shade", "lshade", "mts-ls1", "shade-ils"})
    expect_one_line_error(chainsaw("run --backend cuda --dim 10 --evals 5000 --algorithm " +
                                   algorithm),
                          "--algorithm " + algorithm +
                              " --backend cuda: it runs on the CPU backend only");
}

}  // namespace
}  // namespace chainsaw::test
