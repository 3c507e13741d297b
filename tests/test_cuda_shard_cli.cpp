// `mpirun -np P chainsaw run --distribute shard --backend cuda`: one GPU per rank, the partials
// exchanged by NCCL. The job must give exactly the result of one GPU running the same P slices
// (--gpu-slices P), and its checkpoint must resume exactly on one GPU. P = 2, and every GPU of
// the machine where it has more. Skipped without MPI or without two GPUs (NCCL takes one GPU
// per rank).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/engines/cuda/device_info.hpp"
#include "test_support.hpp"

namespace chainsaw {
namespace {

constexpr const char* kGpuShardRun =
    "--backend cuda --dim 1000003 --population 10 --batch 5 --ls-intensity 100 --seed 3 --quiet";

class CudaShardCli : public test::MpiCliTest {
 protected:
  void SetUp() override {
    test::MpiCliTest::SetUp();
    if (IsSkipped()) return;
    if (cuda_device_count() < 2) GTEST_SKIP() << "fewer than 2 GPUs";
  }
};
using test::expect_same_run_result;

TEST_F(CudaShardCli, TwoGpusGiveExactlyTheTwoSliceRunOfOneGpu) {
  for (const char* function : test::kAllFunctions) {
    SCOPED_TRACE(function);
    const std::string args =
        std::string(kGpuShardRun) + " --evals 2000 --function " + function + " --output ";
    const test::Outcome one = chainsaw("run --gpu-slices 2 " + args + out_path("one.json"));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const test::Outcome two = on_ranks(2, "run --distribute shard " + args + out_path("two.json"));
    ASSERT_EQ(two.exit_code, 0) << two.err;
    const nlohmann::json sharded = result("two.json");
    expect_same_run_result(result("one.json"), sharded);
    EXPECT_EQ(sharded.at("config").at("gpu_slices"), 2);
  }
}

TEST_F(CudaShardCli, ATwoGpuCheckpointResumesExactlyOnOneGpu) {
  const std::string args = std::string(kGpuShardRun) + " --function schwefel12";
  ASSERT_EQ(chainsaw("run --gpu-slices 2 " + args + " --evals 3000 --output " +
                     out_path("whole.json")).exit_code,
            0);
  const test::Outcome first = on_ranks(2, "run --distribute shard " + args +
                                              " --evals 1500 --checkpoint " + out_path("s.h5") +
                                              " --output " + out_path("first.json"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const test::Outcome one = chainsaw("resume " + out_path("s.h5") + " --evals 3000 --quiet" +
                                     " --output " + out_path("one.json"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  expect_same_run_result(result("whole.json"), result("one.json"));
  // On another number of ranks the slices would differ: one line, no run.
  const test::Outcome three = on_ranks(3, "resume " + out_path("s.h5") +
                                              " --distribute shard --evals 3000 --quiet");
  test::expect_one_line_error(three, "GPU slice", /*from_job=*/true);
}

// The same on every GPU of a machine of more than two: the slices' partials then travel
// through a ring of P ranks, and the last slice is the short one.
TEST_F(CudaShardCli, EveryGpuOfTheMachineGivesExactlyItsSliceRunOfOneGpu) {
  const int gpus = cuda_device_count();
  if (gpus < 3) GTEST_SKIP() << "2 GPUs: TwoGpusGiveExactlyTheTwoSliceRunOfOneGpu";
  const std::string slices = std::to_string(gpus);
  for (const char* function : test::kAllFunctions) {
    SCOPED_TRACE(function);
    const std::string args =
        std::string(kGpuShardRun) + " --evals 2000 --function " + function + " --output ";
    const test::Outcome one = chainsaw("run --gpu-slices " + slices + " " + args +
                                       out_path("one.json"));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const test::Outcome all = on_ranks(gpus, "run --distribute shard " + args +
                                                 out_path("all.json"));
    ASSERT_EQ(all.exit_code, 0) << all.err;
    const nlohmann::json sharded = result("all.json");
    expect_same_run_result(result("one.json"), sharded);
    EXPECT_EQ(sharded.at("config").at("gpu_slices"), gpus);
  }
  // Its checkpoint, resumed on one GPU, continues exactly.
  const std::string args = std::string(kGpuShardRun) + " --function schwefel12";
  ASSERT_EQ(chainsaw("run --gpu-slices " + slices + " " + args + " --evals 3000 --output " +
                     out_path("whole.json")).exit_code,
            0);
  const test::Outcome first = on_ranks(gpus, "run --distribute shard " + args +
                                                 " --evals 1500 --checkpoint " +
                                                 out_path("s.h5"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const test::Outcome resumed = chainsaw("resume " + out_path("s.h5") +
                                         " --evals 3000 --quiet --output " + out_path("r.json"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_same_run_result(result("whole.json"), result("r.json"));
}

}  // namespace
}  // namespace chainsaw
