// `mpirun -np P chainsaw run --distribute shard --backend cuda`: one GPU per rank, the partials
// exchanged by NCCL. The job must give exactly the result of one GPU running the same P slices
// (--gpu-slices P), and its checkpoint must resume exactly on one GPU. P = 2, and every GPU of
// the machine where it has more. Skipped without MPI or without two GPUs (NCCL takes one GPU
// per rank).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/gpu/device_info.hpp"
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
  // `ranks` GPUs against one GPU holding their `ranks` slices, the six paper functions.
  void expect_ranks_equal_their_slices_on_one_gpu(int ranks) {
    const std::string slices = std::to_string(ranks);
    for (const char* function : test::kAllFunctions) {
      SCOPED_TRACE(function);
      const std::string args =
          std::string(kGpuShardRun) + " --evals 2000 --function " + function + " --output ";
      const test::Outcome one = chainsaw("run --gpu-slices " + slices + " " + args +
                                         out_path("one.json"));
      ASSERT_EQ(one.exit_code, 0) << one.err;
      const test::Outcome sharded = on_ranks(ranks, "run --distribute shard " + args +
                                                        out_path("sharded.json"));
      ASSERT_EQ(sharded.exit_code, 0) << sharded.err;
      const nlohmann::json result_sharded = result("sharded.json");
      test::expect_same_run_result(result("one.json"), result_sharded);
      EXPECT_EQ(result_sharded.at("config").at("gpu_slices"), ranks);
    }
  }
  // A checkpoint of `ranks` GPUs (s.h5, Schwefel 1.2 at 1,500 evaluations) resumed on one GPU to
  // 3,000 ends exactly as one GPU holding the `ranks` slices all along.
  void expect_checkpoint_of_ranks_resumes_on_one_gpu(int ranks) {
    const std::string args = std::string(kGpuShardRun) + " --function schwefel12";
    ASSERT_EQ(chainsaw("run --gpu-slices " + std::to_string(ranks) + " " + args +
                       " --evals 3000 --output " + out_path("whole.json")).exit_code,
              0);
    const test::Outcome first = on_ranks(ranks, "run --distribute shard " + args +
                                                    " --evals 1500 --checkpoint " +
                                                    out_path("s.h5"));
    ASSERT_EQ(first.exit_code, 0) << first.err;
    const test::Outcome one = chainsaw("resume " + out_path("s.h5") +
                                       " --evals 3000 --quiet --output " + out_path("one.json"));
    ASSERT_EQ(one.exit_code, 0) << one.err;
    test::expect_same_run_result(result("whole.json"), result("one.json"));
  }
};

TEST_F(CudaShardCli, TwoGpusGiveExactlyTheTwoSliceRunOfOneGpu) {
  expect_ranks_equal_their_slices_on_one_gpu(2);
}

TEST_F(CudaShardCli, ATwoGpuCheckpointResumesExactlyOnOneGpu) {
  expect_checkpoint_of_ranks_resumes_on_one_gpu(2);
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
  expect_ranks_equal_their_slices_on_one_gpu(gpus);
  expect_checkpoint_of_ranks_resumes_on_one_gpu(gpus);
}

}  // namespace
}  // namespace chainsaw
