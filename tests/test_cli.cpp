// The `chainsaw` command line as a user meets it: the real binary, run through the shell, with
// its exit code, stdout, stderr and the files it leaves behind.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "core/profiling.hpp"
#include "io/results/result_json.hpp"

#include "cli_support.hpp"

namespace fs = std::filesystem;

namespace {

using chainsaw::test::CliTest;
using chainsaw::test::expect_one_line_error;
using chainsaw::test::lines_of;
using chainsaw::test::Outcome;
using chainsaw::test::read_file;

constexpr const char* kSmallRun = "run --function rastrigin --dim 50 --evals 2000 --backend cpu";
// Hours on a CPU: an output error reported within the timeout was found before the run.
constexpr const char* kLongRun =
    "run --function rastrigin --dim 1000000 --evals 500000 --backend cpu";

struct BadInput {
  const char* name;
  const char* args;          // appended to kSmallRun --quiet --output <dir>/r.json
  const char* must_contain;  // the offending value, as the error line must show it
};

const BadInput kBadInputs[] = {
    {"DimZero", "--dim 0", "--dim = 0"},
    {"DimNegative", "--dim -5", "--dim = -5"},
    {"DimNotANumber", "--dim abc", "--dim = abc"},
    {"DimFraction", "--dim 2.5", "--dim = 2.5"},
    {"DimOverflow", "--dim 99999999999999999999999", "99999999999999999999999"},
    {"DimMissingValue", "--dim", "--dim"},
    {"EvalsNegative", "--evals -1", "--evals = -1"},
    {"EvalsBelowPopulation", "--evals 10", "--evals = 10"},
    {"EvalsBelowGivenPopulation", "--population 80 --evals 79", "--evals = 79"},
    {"SeedNegative", "--seed -1", "--seed = -1"},
    {"ProblemSeedNegative", "--problem-seed -3", "--problem-seed = -3"},
    {"ThreadsNegative", "--threads -2", "--threads = -2"},
    {"PopulationNotANumber", "--population many", "--population = many"},
    {"BlxAlphaNotFinite", "--blx-alpha nan", "--blx-alpha = nan"},
    {"MutationProbabilityAboveOne", "--mutation-probability 1.5", "--mutation-probability = 1.5"},
    {"LsRatioOne", "--ls-ratio 1", "--ls-ratio = 1"},
    {"UnknownFunction", "--function rosenbrockk", "rosenbrockk"},
    {"EtcWithoutMachines", "--function etc --etc-machines 0", "--etc-machines = 0"},
    {"EtcUnknownClass", "--function etc --etc-class u_c_hihu", "--etc-class = u_c_hihu"},
    {"UnknownBackend", "--backend gpu", "--backend = gpu"},
    {"UnknownRhoInit", "--rho-init nearest", "--rho-init = nearest"},
    {"UnknownFlag", "--frobnicate 3", "--frobnicate"},
    {"UnexpectedPositional", "extra", "extra"},
    {"CheckpointEveryZero", "--checkpoint-every 0", "--checkpoint-every = 0"},
    {"CheckpointEveryNegativeDuration", "--checkpoint-every -3m", "--checkpoint-every = -3m"},
    {"CheckpointEveryUnknownUnit", "--checkpoint-every 5d", "--checkpoint-every = 5d"},
    {"CheckpointInMissingDirectory", "--checkpoint /nonexistent/dir/run.h5", "--checkpoint"},
    {"GpuSlicesZero", "--gpu-slices 0", "--gpu-slices = 0"},
    {"GpuSlicesOnTheCpu", "--gpu-slices 2", "--gpu-slices lays the genes out on the GPU"},
};

// ctest lists the case by its arguments rather than by gtest's byte dump.
void PrintTo(const BadInput& bad, std::ostream* os) { *os << bad.args; }

class CliBadInput : public CliTest, public ::testing::WithParamInterface<BadInput> {};

TEST_P(CliBadInput, FailsWithOneLineAndWritesNothing) {
  const BadInput& bad = GetParam();
  const Outcome o = chainsaw(std::string(kSmallRun) + " --quiet --output '" + out_path() + "' " +
                             bad.args);
  expect_one_line_error(o, bad.must_contain);
  EXPECT_TRUE(files_in_dir().empty());
}

INSTANTIATE_TEST_SUITE_P(Cli, CliBadInput, ::testing::ValuesIn(kBadInputs),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(CliTest, OutputInMissingDirectoryFailsBeforeRunning) {
  const Outcome o = chainsaw(std::string(kLongRun) + " --output /nonexistent/dir/r.json");
  expect_one_line_error(o, "/nonexistent/dir");
  EXPECT_FALSE(fs::exists("/nonexistent/dir/r.json"));
}

TEST_F(CliTest, OutputUnderARegularFileFails) {
  std::ofstream(dir_ / "plain") << "x";
  const std::string path = (dir_ / "plain" / "r.json").string();
  const Outcome o = chainsaw(std::string(kLongRun) + " --output '" + path + "'");
  expect_one_line_error(o, path);
  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"plain"});
}

TEST_F(CliTest, OutputThatIsADirectoryFails) {
  fs::create_directory(dir_ / "sub");
  const Outcome o = chainsaw(std::string(kLongRun) + " --output '" + (dir_ / "sub").string() + "'");
  expect_one_line_error(o, (dir_ / "sub").string());
  EXPECT_TRUE(fs::is_empty(dir_ / "sub"));
}

TEST_F(CliTest, OutputInReadOnlyDirectoryFails) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  fs::create_directory(dir_ / "ro");
  fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  const std::string path = (dir_ / "ro" / "r.json").string();
  const Outcome o = chainsaw(std::string(kLongRun) + " --output '" + path + "'");
  expect_one_line_error(o, path);
  EXPECT_TRUE(fs::is_empty(dir_ / "ro"));
}

TEST_F(CliTest, OutputInProcFailsEvenForRoot) {
  const Outcome o = chainsaw(std::string(kLongRun) + " --output /proc/chainsaw-r.json");
  expect_one_line_error(o, "/proc/chainsaw-r.json");
}

TEST_F(CliTest, NoSubcommandIsAnError) {
  expect_one_line_error(chainsaw(""), "subcommand");
}

TEST_F(CliTest, HelpPrintsUsageAndSucceeds) {
  const Outcome top = chainsaw("--help");
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_NE(top.out.find("functions"), std::string::npos) << top.out;
  const Outcome run = chainsaw("run --help");
  EXPECT_EQ(run.exit_code, 0);
  for (const char* flag : {"--function", "--dim", "--evals", "--seed", "--backend", "--threads",
                           "--output", "--quiet", "--population", "--batch", "--blx-alpha",
                           "--nam-candidates", "--mutation-probability", "--ls-intensity",
                           "--ls-ratio", "--ls-threshold", "--rho0", "--sw-successes",
                           "--sw-failures", "--rho-init", "--restart", "--problem-seed"})
    EXPECT_NE(run.out.find(flag), std::string::npos) << flag << " missing from run --help";
}

TEST_F(CliTest, HelpWinsOverABadValue) {
  const Outcome o = chainsaw("run --dim abc --help");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("--dim"), std::string::npos) << o.out;
}

TEST_F(CliTest, VersionPrintsTheProjectVersion) {
  const Outcome o = chainsaw("--version");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.out, std::string("chainsaw ") + CHAINSAW_VERSION + "\n");
}

TEST_F(CliTest, FunctionsListsTheSixFunctionsWithDomains) {
  const Outcome o = chainsaw("functions");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_TRUE(o.err.empty()) << o.err;
  for (const char* name :
       {"rastrigin", "griewank", "salomon", "discus", "sumsquares", "schwefel12"})
    EXPECT_NE(o.out.find(name), std::string::npos) << name;
  EXPECT_NE(o.out.find("[-5.12, 5.12]"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("[-600, 600]"), std::string::npos) << o.out;
}

TEST_F(CliTest, FunctionsListsTheClassicFunctionsWithTheirAliasesAndRunsThemByEither) {
  const Outcome o = chainsaw("functions");
  EXPECT_EQ(o.exit_code, 0);
  for (const char* text : {"rosenbrock (nashed-f13)", "zakharov ", "levy (nashed-f19)",
                           "nashed-f5 ", "cec2010-f1 (nashed-f1)", "[-500, 500]"})
    EXPECT_NE(o.out.find(text), std::string::npos) << text << " in\n" << o.out;
  for (const char* name : {"rosenbrock", "nashed-f13"}) {
    const Outcome run = chainsaw(std::string("run --function ") + name +
                                 " --dim 50 --evals 500 --backend cpu --quiet --output '" +
                                 out_path() + "'");
    EXPECT_EQ(run.exit_code, 0) << run.err;
  }
}

TEST_F(CliTest, FunctionsListsTheTwentyCec2010FunctionsWithDomainsAndSeparability) {
  const Outcome o = chainsaw("functions");
  EXPECT_EQ(o.exit_code, 0);
  for (int n = 1; n <= 20; ++n) {
    const std::string name = "cec2010-f" + std::to_string(n) + " ";
    EXPECT_NE(o.out.find(name), std::string::npos) << name;
  }
  for (const char* text : {"[-32, 32]", "[-5, 5]", "single-group", "D/2m-group", "D/m-group",
                           "non-separable", "f(o) = 0"})
    EXPECT_NE(o.out.find(text), std::string::npos) << text << " in\n" << o.out;
}

TEST_F(CliTest, Cec2010DimensionTheGroupsDoNotAllowIsOneLineError) {
  expect_one_line_error(
      chainsaw("run --function cec2010-f9 --dim 1050 --evals 2000 --backend cpu --output " +
               out_path()),
      "--dim = 1050: cec2010-f9 needs a multiple of 2m = 100");
  expect_one_line_error(chainsaw("run --function cec2010-f6 --dim 20 --backend cpu"),
                        "cec2010-f6 needs at least m = 50");
  EXPECT_FALSE(fs::exists(out_path()));
}

TEST_F(CliTest, InstanceFileErrorsAreOneLine) {
  const fs::path instance = dir_ / "inst.txt";
  std::ofstream(instance) << "shift 1 2\n";
  expect_one_line_error(chainsaw("run --function cec2010-f1 --dim 100 --backend cpu --instance " +
                                 instance.string()),
                        "shift ends after 2 values");
  expect_one_line_error(chainsaw("run --function rastrigin --dim 100 --backend cpu --instance " +
                                 instance.string()),
                        "only the cec2010-*, cec2013-* and janssen-* functions");
}

TEST_F(CliTest, Cec2010RunReportsTheErrorAgainstOptimumZero) {
  const fs::path instance = dir_ / "inst.txt";
  std::ofstream(instance) << "dim 200\nshift";
  for (int j = 0; j < 200; ++j) std::ofstream(instance, std::ios::app) << " 0.25";
  const Outcome o = chainsaw("run --function cec2010-f10 --dim 200 --evals 1500 --seed 3 "
                             "--backend cpu --quiet --output " + out_path() + " --instance " +
                             instance.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(read_file(out_path()));
  EXPECT_EQ(j["config"]["function"], "cec2010-f10");
  EXPECT_EQ(j["config"]["instance"], instance.string());
  const double best = j["best_fitness"];
  EXPECT_GT(best, 0.0);
  EXPECT_DOUBLE_EQ(j["best_error"].get<double>(), best);
  EXPECT_GT(j["distance_to_optimum"].get<double>(), 0.0);
}

// The checkpoint embeds the instance: with the file deleted before the resume, resumed to the
// full budget, a CEC run equals the uninterrupted one, which differs from the run on the
// generated instance.
TEST_F(CliTest, Cec2010RunWithAnInstanceFileResumesExactly) {
  const fs::path instance = dir_ / "inst.txt";
  {
    std::ofstream f(instance);
    f << "shift";
    for (int j = 0; j < 1000; ++j) f << ' ' << (j % 7) - 3;
  }
  const std::string run =
      "run --function cec2010-f12 --dim 1000 --seed 2 --backend cpu -q --instance " +
      instance.string();
  auto best = [this](const std::string& name) {
    return nlohmann::json::parse(read_file(dir_ / name)).at("best_fitness").get<double>();
  };
  auto path = [this](const std::string& name) { return (dir_ / name).string(); };
  ASSERT_EQ(chainsaw(run + " --evals 3000 -o " + path("whole.json")).exit_code, 0);
  ASSERT_EQ(chainsaw(run + " --evals 1300 --checkpoint " + path("part.h5") + " -o " +
                     path("part.json"))
                .exit_code,
            0);
  fs::remove(instance);
  const Outcome resumed = chainsaw("resume " + path("part.h5") + " --evals 3000 -q --checkpoint " +
                                   path("longer.h5") + " -o " + path("longer.json"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(best("whole.json"), best("longer.json"));
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ / "longer.json"))["config"]["instance"],
            instance.string());
  ASSERT_EQ(chainsaw("run --function cec2010-f12 --dim 1000 --seed 2 --backend cpu -q --evals "
                     "3000 -o " + path("generated.json"))
                .exit_code,
            0);
  EXPECT_NE(best("whole.json"), best("generated.json"));
}

// `chainsaw instance export` writes the instance a run generates: a run reading it back, as HDF5
// or as text, is the seed-generated run bit for bit; a converted file (text -> HDF5) too.
TEST_F(CliTest, ExportedInstancesRoundTripToBitIdenticalRuns) {
  auto result = [this](const std::string& name) {
    const auto j = nlohmann::json::parse(read_file(dir_ / name));
    return std::make_pair(j.at("best_fitness").get<double>(),
                          j.at("distance_to_optimum").get<double>());
  };
  auto path = [this](const std::string& name) { return (dir_ / name).string(); };
  for (const char* function : {"cec2010-f3", "cec2010-f9", "cec2010-f16"}) {
    SCOPED_TRACE(function);
    const std::string run = std::string("run --function ") + function +
                            " --dim 1000 --evals 1500 --seed 4 --problem-seed 9 --backend cpu -q";
    ASSERT_EQ(chainsaw(run + " -o " + path("seed.json")).exit_code, 0);
    for (const char* file : {"i.h5", "i.txt"}) {
      const Outcome exported = chainsaw(std::string("instance export --function ") + function +
                                        " --dim 1000 --problem-seed 9 -o " + path(file));
      ASSERT_EQ(exported.exit_code, 0) << exported.err;
      EXPECT_NE(exported.err.find("generated from problem seed 9"), std::string::npos);
      ASSERT_EQ(chainsaw(run + " --instance " + path(file) + " -o " + path("file.json")).exit_code, 0);
      EXPECT_EQ(result("seed.json"), result("file.json")) << file;
    }
    ASSERT_EQ(chainsaw(std::string("instance export --function ") + function +
                       " --dim 1000 --problem-seed 1 --instance " + path("i.txt") + " -o " +
                       path("converted.h5"))
                  .exit_code,
              0);
    ASSERT_EQ(chainsaw(run + " --instance " + path("converted.h5") + " -o " + path("conv.json"))
                  .exit_code,
              0);
    EXPECT_EQ(result("seed.json"), result("conv.json"));
    // Another problem seed is another instance: the comparisons above can fail.
    ASSERT_EQ(chainsaw(run + " --problem-seed 8 -o " + path("other.json")).exit_code, 0);
    EXPECT_NE(result("seed.json"), result("other.json"));
  }
}

TEST_F(CliTest, InstanceExportRefusesBadInputWithOneLine) {
  const std::string out = out_path("i.h5");
  expect_one_line_error(chainsaw("instance export --function rastrigin --dim 100 -o " + out),
                        "only the cec2010-* and cec2013-* functions have an instance");
  expect_one_line_error(chainsaw("instance export --function cec2010-f12 --dim 150 -o " + out),
                        "needs a multiple of 2m = 100");
  expect_one_line_error(chainsaw("instance export --function cec2010-f1 --dim 0 -o " + out),
                        "--dim = 0");
  expect_one_line_error(chainsaw("instance export --function cec2010-f1 --dim 100"),
                        "--output is required");
  expect_one_line_error(chainsaw("instance export --function cec2010-f1 --dim 100 -o " +
                                 (dir_ / "missing" / "i.h5").string()),
                        "--output");
  expect_one_line_error(chainsaw("instance"), "a subcommand is required: export");
  EXPECT_TRUE(files_in_dir().empty());
}

TEST_F(CliTest, DryRunPrintsTheMemoryPlanAndRunsNothing) {
  const fs::path out = dir_ / "r.json";
  const Outcome fits =
      chainsaw("run --dim 1000 --backend cpu --dry-run --output " + out.string());
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  for (const char* part : {"genes", "bias vectors", "RNG states", "scratch", "fits"})
    EXPECT_NE(fits.out.find(part), std::string::npos) << part << " in " << fits.out;
  EXPECT_FALSE(fs::exists(out));
  // 2^36 genes x 70 slots x 2 vectors: more memory than any machine this runs on.
  const Outcome too_big = chainsaw("run --dim 68719476736 --population 2 --batch 1 "
                                   "--nam-candidates 1 --backend cpu --dry-run");
  EXPECT_EQ(too_big.exit_code, 2);
  EXPECT_NE(too_big.out.find("DOES NOT FIT"), std::string::npos) << too_big.out;
}

// The result file of a small real run: exact budget, every field, consistent times.
TEST_F(CliTest, SmallRunWritesCompleteResultJson) {
  const Outcome o = chainsaw(std::string(kSmallRun) + " --seed 7 --quiet --output '" +
                             out_path() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(o.err.empty()) << o.err;  // --quiet
  EXPECT_TRUE(o.out.empty()) << o.out;
  EXPECT_EQ(files_in_dir(), std::vector<std::string>{"r.json"});  // no temporary left behind

  const auto j = nlohmann::json::parse(read_file(out_path()));
  for (const char* key : {"chainsaw_version", "genes", "config", "backend", "device", "threads",
                          "best_fitness", "best_error", "distance_to_optimum", "evaluations",
                          "ls_share", "wall_seconds", "setup_seconds", "phases", "other_seconds"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"function", "dim", "evals", "seed", "problem_seed", "population", "batch",
                          "blx_alpha", "nam_candidates", "mutation_probability", "ls_intensity",
                          "ls_ratio", "ls_threshold", "rho0", "sw_successes", "sw_failures",
                          "sw_expand", "sw_contract", "rho_init", "restart", "backend", "threads"})
    EXPECT_TRUE(j["config"].contains(key)) << "config." << key;

  EXPECT_EQ(j["config"]["function"], "rastrigin");
  EXPECT_EQ(j["config"]["dim"], 50);
  EXPECT_EQ(j["config"]["seed"], 7);
  EXPECT_EQ(j["config"]["problem_seed"], 7);  // defaults to the run's seed
  EXPECT_EQ(j["config"]["population"], 50);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_TRUE(j["device"].is_null());

  const auto& n = j["evaluations"];
  EXPECT_EQ(n["total"], 2000);
  EXPECT_EQ(n["ga"].get<long>() + n["ls"].get<long>(), 2000);
  EXPECT_GT(n["ls_applications"].get<long>(), 0);
  for (const char* key : {"ls_random_choices", "restarts"}) EXPECT_TRUE(n.contains(key)) << key;

  const double best = j["best_fitness"];
  EXPECT_GE(best, -330.0);
  EXPECT_DOUBLE_EQ(j["best_error"].get<double>(), best + 330.0);
  EXPECT_GT(j["distance_to_optimum"].get<double>(), 0.0);

  const double wall = j["wall_seconds"];
  EXPECT_GT(wall, 0.0);
  double phase_sum = 0.0;
  for (const char* phase :
       {"initialization", "distances", "crossover", "local_search", "sort", "selection"}) {
    ASSERT_TRUE(j["phases"].contains(phase)) << phase;
    const double s = j["phases"][phase]["seconds"];
    EXPECT_GE(s, 0.0) << phase;
    EXPECT_NEAR(j["phases"][phase]["share"].get<double>(), s / wall, 1e-12) << phase;
    phase_sum += s;
  }
  EXPECT_GT(j["phases"]["crossover"]["seconds"].get<double>(), 0.0);
  EXPECT_GT(j["phases"]["local_search"]["seconds"].get<double>(), 0.0);
  EXPECT_LE(phase_sum, wall);
}

TEST_F(CliTest, WithoutQuietOffATerminalPrintsOneSummaryLine) {
  const Outcome o = chainsaw(std::string(kSmallRun) + " --output '" + out_path() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto lines = lines_of(o.err);
  ASSERT_EQ(lines.size(), 1u) << o.err;
  EXPECT_NE(lines[0].find("2000 evaluations"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(out_path()), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find('\r'), std::string::npos) << "progress line drawn off a terminal";
}

// On a terminal (a pseudo-terminal from util-linux `script`) the progress line is drawn with
// \r and erased before the summary; --quiet draws nothing.
TEST_F(CliTest, OnATerminalDrawsAProgressLineUnlessQuiet) {
  if (std::system("script -qec true /dev/null >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no pseudo-terminal here (util-linux `script` missing or no /dev/ptmx)";
  const std::string run = std::string(CHAINSAW_BINARY) + " " + kSmallRun + " --output " + out_path();
  const Outcome loud = chainsaw_on_terminal(run);
  ASSERT_EQ(loud.exit_code, 0) << loud.out;
  EXPECT_NE(loud.out.find("\r2000/2000 evals (100.0%)"), std::string::npos) << loud.out;
  for (const char* part : {"best ", "evals/s", "ETA "})
    EXPECT_NE(loud.out.find(part), std::string::npos) << part << " missing: " << loud.out;
  EXPECT_NE(loud.out.find("chainsaw: rastrigin D=50"), std::string::npos) << loud.out;

  const Outcome quiet = chainsaw_on_terminal(run + " --quiet");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.out;
  EXPECT_TRUE(quiet.out.empty()) << quiet.out;
}

TEST_F(CliTest, WithoutOutputTheJsonGoesToStdout) {
  const Outcome o = chainsaw(std::string(kSmallRun) + " --quiet");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["evaluations"]["total"], 2000);
  EXPECT_TRUE(files_in_dir().empty());
}

TEST_F(CliTest, EveryConfigFlagReachesTheResult) {
  const Outcome o = chainsaw(
      "run --function griewank --dim 40 --evals 1e3 --seed 3 --problem-seed 11 --backend cpu "
      "--threads 1 --population 30 --batch 10 --blx-alpha 0.25 --nam-candidates 5 "
      "--mutation-probability 0.5 --ls-intensity 100 --ls-ratio 0.25 --ls-threshold 1e-6 "
      "--rho0 0.5 --sw-successes 4 --sw-failures 2 --rho-init reference --restart --quiet "
      "--output '" + out_path() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto j = nlohmann::json::parse(read_file(out_path()));
  const nlohmann::json expected = {
      {"function", "griewank"}, {"dim", 40},          {"evals", 1000},
      {"seed", 3},              {"problem_seed", 11}, {"population", 30},
      {"batch", 10},            {"blx_alpha", 0.25},  {"nam_candidates", 5},
      {"mutation_probability", 0.5}, {"ls_intensity", 100}, {"ls_ratio", 0.25},
      {"ls_threshold", 1e-6},   {"rho0", 0.5},        {"sw_successes", 4},
      {"sw_failures", 2},       {"rho_init", "reference"}, {"restart", true},
      {"backend", "cpu"},       {"threads", 1}};
  for (const auto& [key, value] : expected.items())
    EXPECT_EQ(j["config"][key], value) << "config." << key;
  EXPECT_EQ(j["threads"], 1);
  EXPECT_EQ(j["evaluations"]["total"], 1000);
}

// The rule's former name still runs, as nearest-rms (the name says what it computes), with a
// note that it is not the reference code's rule; the note is not an error, the run goes on.
TEST_F(CliTest, DeprecatedRhoInitNeighbourMeansNearestRms) {
  const std::string common =
      "run --function rastrigin --dim 64 --evals 1200 --seed 4 --backend cpu --ls-intensity 100 "
      "--quiet --rho-init ";
  const Outcome old_name = chainsaw(common + "neighbour");
  const Outcome new_name = chainsaw(common + "nearest-rms");
  ASSERT_EQ(old_name.exit_code, 0) << old_name.err;
  ASSERT_EQ(new_name.exit_code, 0) << new_name.err;
  EXPECT_NE(old_name.err.find("deprecated"), std::string::npos) << old_name.err;
  EXPECT_EQ(new_name.err.find("deprecated"), std::string::npos) << new_name.err;
  const auto a = nlohmann::json::parse(old_name.out);
  const auto b = nlohmann::json::parse(new_name.out);
  EXPECT_EQ(a["config"]["rho_init"], "nearest-rms");
  EXPECT_EQ(a["best_fitness"], b["best_fitness"]);
}

// The counter-based RNG is keyed by chunk, not by thread: the CLI must not disturb that.
TEST_F(CliTest, ThreadCountDoesNotChangeTheResult) {
  const std::string common =
      "run --function sumsquares --dim 10000 --evals 1500 --seed 5 --backend cpu --quiet";
  const Outcome one = chainsaw(common + " --threads 1");
  const Outcome two = chainsaw(common + " --threads 2");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const auto a = nlohmann::json::parse(one.out);
  const auto b = nlohmann::json::parse(two.out);
  EXPECT_EQ(a["threads"], 1);
  EXPECT_EQ(b["threads"], 2);
  EXPECT_EQ(a["best_fitness"], b["best_fitness"]);
  EXPECT_EQ(a["distance_to_optimum"], b["distance_to_optimum"]);
  EXPECT_EQ(a["evaluations"], b["evaluations"]);
}

// result_to_json on its own: counters, shares and the "other" remainder computed as documented.
TEST(ResultJson, ReportsCountersSharesAndRemainder) {
  chainsaw::Config config;
  config.function = "discus";
  config.dim = 10;
  config.seed = 4;
  chainsaw::RunResult r;
  r.best_fitness = -320.0;
  r.distance_to_optimum = 2.5;
  r.counters.evaluations = 1000;
  r.counters.ga_evaluations = 600;
  r.counters.ls_evaluations = 400;
  r.counters.ls_applications = 2;
  r.counters.ls_random_choices = 1;
  r.counters.restarts = 0;
  r.wall_seconds = 4.0;
  r.phases.add(chainsaw::Phase::kCrossover, 1.0);
  r.phases.add(chainsaw::Phase::kLocalSearch, 2.0);
  chainsaw::RunEnvironment env;
  env.backend = chainsaw::Backend::kCpu;
  env.threads = 2;

  const auto j = chainsaw::result_to_json(config, env, r);
  EXPECT_EQ(j["config"]["function"], "discus");
  EXPECT_EQ(j["config"]["problem_seed"], 4);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_DOUBLE_EQ(j["best_error"].get<double>(), 10.0);
  EXPECT_EQ(j["evaluations"]["ls_random_choices"], 1);
  EXPECT_DOUBLE_EQ(j["ls_share"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(j["phases"]["crossover"]["share"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["phases"]["local_search"]["seconds"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["other_seconds"].get<double>(), 1.0);
  EXPECT_EQ(j["genes"], sizeof(chainsaw::real_t) == 8 ? "float64" : "float32");
}

}  // namespace
