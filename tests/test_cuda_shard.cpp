// Sharded runs on the GPU (docs/distributed.md, "On GPUs"). A run whose genes are laid out in P
// slices (config.gpu_slices) is the same run whether one GPU holds every slice or P ranks hold one
// each and exchange their partials: here P ranks are P threads sharing one GPU, exchanging
// through host memory (the NCCL exchange needs a GPU per rank: test_cuda_shard_cli.cpp). The
// ranks must give the one-GPU P-slice run bit for bit, on every rank, for the paper's six
// functions, and checkpoints must cross between the two.
#if defined(CHAINSAW_CUDA)
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint_support.hpp"
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/distributed/device_collective.hpp"
#include "core/engines/engine_factory.hpp"
#include "core/error.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "fitness/host_fitness.hpp"
#include "gpu_test_support.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "temp_dir_test.hpp"
#include "test_support.hpp"
#include "thread_communicator.hpp"

namespace chainsaw {
namespace {

// Ragged (not a multiple of the 256-gene tiles), long enough for several chains.
Config sliced_config(const std::string& function, Dim dim, int slices, std::uint64_t seed = 5) {
  Config c = test::small_config(function, dim, seed, 8, 4);
  c.max_evaluations = 1200;
  c.ls_intensity = 100;
  c.gpu_slices = slices;
  c.validate();
  return c;
}

std::unique_ptr<Engine> sharded_engine(const Config& c, const Problem& p, Communicator& comm) {
  return std::make_unique<CudaEngine>(c, p, &comm, make_host_staged_collective(comm));
}

struct Outcome {
  RunResult result;
  test::FinalState state;
  std::vector<real_t> best_genes;  // read_genes: whole on every rank
};

Outcome outcome_of(MaSwChains& algorithm) {
  Outcome o;
  o.result = algorithm.result();
  o.state = test::final_state(algorithm);
  o.best_genes.resize(static_cast<std::size_t>(algorithm.config().dim));
  algorithm.engine().read_genes(o.result.best_slot, o.best_genes.data());
  return o;
}

Outcome run_one_gpu(const Config& c) {
  const Problem problem = test::problem_of(c);
  CudaEngine engine(c, problem);
  MaSwChains algorithm(c, problem, engine);
  algorithm.run();
  return outcome_of(algorithm);
}

std::vector<Outcome> run_sharded(const Config& c) {
  const Problem problem = test::problem_of(c);
  std::vector<Outcome> outcomes(static_cast<std::size_t>(c.gpu_slices));
  test::run_ranks(c.gpu_slices, [&](Communicator& comm) {
    const auto engine = sharded_engine(c, problem, comm);
    MaSwChains algorithm(c, problem, *engine);
    algorithm.run();
    outcomes[static_cast<std::size_t>(comm.rank())] = outcome_of(algorithm);
  });
  return outcomes;
}

void expect_same_run(const Outcome& one, const Outcome& rank, bool with_slot_arrays) {
  EXPECT_EQ(one.result.best_fitness, rank.result.best_fitness);
  EXPECT_EQ(one.result.distance_to_optimum, rank.result.distance_to_optimum);
  EXPECT_EQ(one.result.best_slot, rank.result.best_slot);
  EXPECT_EQ(one.result.counters.ls_applications, rank.result.counters.ls_applications);
  EXPECT_EQ(one.state.fitness, rank.state.fitness);  // every slot's, exactly
  EXPECT_EQ(one.state.order, rank.state.order);
  EXPECT_EQ(0, std::memcmp(one.best_genes.data(), rank.best_genes.data(),
                           one.best_genes.size() * sizeof(real_t)));
  if (with_slot_arrays) test::expect_identical(one.state, rank.state);
}

class CudaShardedRun : public ::testing::TestWithParam<const char*> {};

TEST_P(CudaShardedRun, TwoRanksGiveTheTwoSliceRunOfOneGpuBitForBit) {
  REQUIRE_GPU();
  const Config c = sliced_config(GetParam(), 100003, 2);
  const Outcome one = run_one_gpu(c);
  EXPECT_GT(one.result.counters.ls_applications, 2);
  const std::vector<Outcome> sharded = run_sharded(c);
  for (int r = 0; r < c.gpu_slices; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    expect_same_run(one, sharded[static_cast<std::size_t>(r)], r == 0);
  }
}

INSTANTIATE_TEST_SUITE_P(PaperFunctions, CudaShardedRun, ::testing::ValuesIn(test::kAllFunctions));

// Three ranks, the last slice short (50,000 genes, float32: slices of 16,896, 16,896 and
// 16,208).
TEST(CudaShardedRunLayouts, ThreeRanksWithAShortLastSliceGiveTheThreeSliceRun) {
  REQUIRE_GPU();
  const Config c = sliced_config("schwefel12", 50000, 3, 7);
  const Outcome one = run_one_gpu(c);
  const std::vector<Outcome> sharded = run_sharded(c);
  for (int r = 0; r < 3; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    expect_same_run(one, sharded[static_cast<std::size_t>(r)], r == 0);
  }
}

// The slices change the random streams and the reduction tree, not the function: the best
// fitness is f of the best genes, recomputed on the host in float64.
TEST(CudaShardedRunLayouts, ASlicedRunsFitnessIsTheFloat64ValueOfItsGenes) {
  REQUIRE_GPU();
  for (const char* function : test::kAllFunctions) {
    SCOPED_TRACE(function);
    const Config c = sliced_config(function, 30011, 3);
    const Outcome o = run_one_gpu(c);
    const double reference = evaluate_host(test::problem_of(c), o.best_genes.data());
    EXPECT_NEAR(o.result.best_fitness, reference, 1e-6 * std::fabs(reference));
  }
}

TEST(CudaShardedRunLayouts, SlicesNeedGenesForEveryOne) {
  EXPECT_EQ(gpu_slice_genes(1000, 1), 1000);
  EXPECT_EQ(gpu_slice_genes(50000, 3) % kGpuSliceTile, 0);
  EXPECT_GE(gpu_slice_genes(50000, 3) * 3, 50000);
  EXPECT_LT(gpu_slice_genes(50000, 3) * 2, 50000);
  // One tile: nothing for the second slice.
  EXPECT_THROW(gpu_slice_genes(kGpuSliceTile, 2), UserError);
}

TEST(CudaShardedRunLayouts, SlicesAreRefusedOnTheCpuAndForWholeVectorFunctions) {
  Config c = sliced_config("rastrigin", 10000, 2);
  const Problem problem = test::problem_of(c);
  EXPECT_THROW(make_engine(c, problem, Backend::kCpu), UserError);
  REQUIRE_GPU();
  Config cec = test::small_config("cec2010-f1", 1000);
  cec.gpu_slices = 2;
  EXPECT_THROW(make_engine(cec, Problem::make(cec.function, cec.dim, 1), Backend::kCuda),
               UserError);
}

// ---- Checkpoints: a sharded GPU run's file is the one-GPU file of the same slices ----

class CudaShardCheckpoint : public test::TempDirTest {};

// A stop the ranks can share: it keeps no state (test::stop_inside_ga_phase does, and ranks
// are threads here), so every rank stops at the same unit.
std::function<bool(const MaSwChains&)> first_ga_unit_after(std::int64_t evaluations) {
  return [evaluations](const MaSwChains& a) {
    const LoopState s = a.loop_state();
    return s.stage == LoopStage::kGeneticAlgorithm && s.counters.ls_applications >= 1 &&
           s.counters.evaluations >= evaluations;
  };
}

// Runs `config` on its slices' ranks (sharded) or one GPU to where `stop_here` says, and writes
// a checkpoint to `path` there.
void checkpoint_at(const Config& config, bool sharded, const std::string& path,
                   const std::function<bool(const MaSwChains&)>& stop_here) {
  const Problem problem = test::problem_of(config);
  auto body = [&](Engine& engine) {
    MaSwChains algorithm(config, problem, engine);
    algorithm.run({}, [&](Algorithm& any) {
      auto& a = static_cast<MaSwChains&>(any);
      if (!stop_here(a)) return true;
      write_checkpoint("--checkpoint", path, a, Backend::kCuda, "test");
      return false;
    });
  };
  if (!sharded) {
    CudaEngine engine(config, problem);
    return body(engine);
  }
  test::run_ranks(config.gpu_slices, [&](Communicator& comm) {
    const auto engine = sharded_engine(config, problem, comm);
    body(*engine);
  });
}

// Resumes `path` sharded or on one GPU; rank 0's final state.
test::FinalState resume(const std::string& path, bool sharded) {
  const CheckpointHeader header = read_checkpoint_header(path);
  const Problem problem = checkpoint_problem(header);
  test::FinalState state;
  auto body = [&](Engine& engine, bool root) {
    MaSwChains algorithm(header.config, problem, engine);
    load_checkpoint(path, algorithm);
    algorithm.run();
    const test::FinalState s = test::final_state(algorithm);
    if (root) state = s;
  };
  if (!sharded) {
    CudaEngine engine(header.config, problem);
    body(engine, true);
    return state;
  }
  test::run_ranks(header.config.gpu_slices, [&](Communicator& comm) {
    const auto engine = sharded_engine(header.config, problem, comm);
    body(*engine, comm.is_root());
  });
  return state;
}

test::FinalState one_gpu_to_the_end(const Config& config) {
  return test::run_uninterrupted(config, [](const Config& c, const Problem& p) {
    return std::make_unique<CudaEngine>(c, p);
  });
}

TEST_F(CudaShardCheckpoint, ATwoRankCheckpointResumesExactlyOnOneGpu) {
  REQUIRE_GPU();
  const Config c = sliced_config("griewank", 40000, 2, 9);
  const test::FinalState whole = one_gpu_to_the_end(c);
  checkpoint_at(c, true, path_in_dir("run.h5"), first_ga_unit_after(700));
  ASSERT_TRUE(std::filesystem::exists(path_in_dir("run.h5"))) << "the run never stopped";
  EXPECT_EQ(read_checkpoint_header(path_in_dir("run.h5")).config.gpu_slices, 2);
  test::expect_identical(whole, resume(path_in_dir("run.h5"), false));
}

TEST_F(CudaShardCheckpoint, AOneGpuCheckpointResumesExactlyOnItsSlicesRanks) {
  REQUIRE_GPU();
  const Config c = sliced_config("rastrigin", 40000, 2, 9);
  const test::FinalState whole = one_gpu_to_the_end(c);
  checkpoint_at(c, false, path_in_dir("run.h5"), test::stop_inside_ga_phase(500));
  ASSERT_TRUE(std::filesystem::exists(path_in_dir("run.h5"))) << "the run never stopped";
  test::expect_identical(whole, resume(path_in_dir("run.h5"), true));
}

}  // namespace
}  // namespace chainsaw
#endif  // CHAINSAW_CUDA
