// `chainsaw run --distribute shard` under mpiexec (docs/distributed.md): the real binary on 2
// and 3 ranks gives exactly the one-process result on the paper's six functions, its
// checkpoint resumes exactly on one process and on another number of ranks, and what cannot be
// sharded is refused in one line. Skipped in builds without MPI.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace chainsaw {
namespace {

// Several chunks per rank (10,000 genes: 3 chunks, the last partial), a few local searches.
constexpr const char* kShardRun =
    "--backend cpu --dim 10000 --population 10 --batch 5 --ls-intensity 100 --seed 3 --quiet";

// Exactly, not to 1e-9: every chunk partial is the one-process run's, folded in its order.
class ShardCli : public test::MpiCliTest {};
using test::expect_same_run_result;

TEST_F(ShardCli, TwoRanksGiveExactlyTheOneProcessResultOnThePaperFunctions) {
  for (const char* function : test::kAllFunctions) {
    SCOPED_TRACE(function);
    const std::string args =
        std::string(kShardRun) + " --evals 1500 --function " + function + " --output ";
    const test::Outcome one = chainsaw("run " + args + out_path("one.json"));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const test::Outcome two =
        on_ranks(2, "run --distribute shard " + args + out_path("two.json"));
    ASSERT_EQ(two.exit_code, 0) << two.err;
    const nlohmann::json sharded = result("two.json");
    expect_same_run_result(result("one.json"), sharded);
    EXPECT_EQ(sharded.at("distribute").at("mode"), "shard");
    EXPECT_EQ(sharded.at("distribute").at("ranks"), 2);
  }
}

// run N checkpointed, then resume to 2N: on one process, and on 3 ranks, both end where an
// uninterrupted one-process run of 2N ends.
TEST_F(ShardCli, AShardedCheckpointResumesExactlyOnOneProcessAndOnThreeRanks) {
  const std::string args = std::string(kShardRun) + " --function schwefel12";
  ASSERT_EQ(chainsaw("run " + args + " --evals 2000 --output " + out_path("whole.json"))
                .exit_code,
            0);
  const test::Outcome first = on_ranks(2, "run --distribute shard " + args +
                                              " --evals 1000 --checkpoint " + out_path("s.h5") +
                                              " --output " + out_path("first.json"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const test::Outcome one = chainsaw("resume " + out_path("s.h5") + " --evals 2000 --quiet" +
                                     " --checkpoint " + out_path("one.h5") + " --output " +
                                     out_path("one.json"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  expect_same_run_result(result("whole.json"), result("one.json"));
  const test::Outcome three = on_ranks(3, "resume " + out_path("s.h5") +
                                              " --distribute shard --evals 2000 --quiet" +
                                              " --checkpoint " + out_path("three.h5") +
                                              " --output " + out_path("three.json"));
  ASSERT_EQ(three.exit_code, 0) << three.err;
  expect_same_run_result(result("whole.json"), result("three.json"));
}

// Every rank parses the command line before MPI starts: rank 0 alone says what is wrong.
TEST_F(ShardCli, ABadFlagValueIsOneLineFromTheWholeJob) {
  const test::Outcome o = on_ranks(2, "run --distribute shard --backend cpu --dim abc --quiet");
  test::expect_one_line_error(o, "--dim = abc", /*from_job=*/true);
}

TEST_F(ShardCli, Cec2010FunctionsAreRefusedInOneLineOnce) {
  const test::Outcome o =
      on_ranks(2, "run --distribute shard --backend cpu --function cec2010-f5 --dim 1000 "
                  "--evals 100 --quiet");
  test::expect_one_line_error(o, "--distribute shard: cec2010-f5", /*from_job=*/true);
}

}  // namespace
}  // namespace chainsaw
