// HDF5 checkpoints on the CPU backend: a run stopped at a safe point, written to a file and
// resumed in a fresh engine ends bit-identical to the run that never stopped, inside an SSGA
// phase and inside a Solis-Wets chain; budgets extend; damaged files are refused.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include "checkpoint_support.hpp"
#include "temp_dir_test.hpp"
#include "core/error.hpp"
#include "core/engines/host/host_engine.hpp"
#include "io/instance_file.hpp"
#include "test_support.hpp"

namespace chainsaw {
namespace {


Config small_config(const std::string& function, std::int64_t budget, std::uint64_t seed) {
  Config c;
  c.function = function;
  c.dim = 3000;  // a block of 2^20 genes is bigger: one per slot; see BlocksAcrossGenes
  c.max_evaluations = budget;
  c.seed = seed;
  c.ls_intensity = 200;
  c.backend = Backend::kCpu;
  c.validate();
  return c;
}

std::unique_ptr<Engine> make_host(const Config& c, const Problem& p) {
  return std::make_unique<HostEngine>(c, p);
}

class CheckpointTest : public test::TempDirTest {
 protected:
  std::string path() const { return path_in_dir("run.h5"); }
};

TEST_F(CheckpointTest, ResumeInsideAnSsgaPhaseIsBitExact) {
  const test::OneThread one_thread;
  for (const char* function : {"rastrigin", "schwefel12", "griewank"}) {
    SCOPED_TRACE(function);
    const Config c = small_config(function, 4000, 11);
    const test::FinalState whole = test::run_uninterrupted(c, make_host);
    test::StopPoint stop;
    const test::FinalState resumed = test::run_interrupted(
        c, make_host, path(), test::stop_inside_ga_phase(1500), Backend::kCpu,
        c.max_evaluations, stop);
    ASSERT_TRUE(stop.stopped);
    EXPECT_EQ(stop.state.stage, LoopStage::kGeneticAlgorithm);
    EXPECT_GT(stop.state.ga_phase_left, 0);
    test::expect_identical(whole, resumed);
  }
}

TEST_F(CheckpointTest, ResumeInsideASolisWetsChainIsBitExact) {
  const test::OneThread one_thread;
  for (const char* function : {"rastrigin", "sumsquares", "griewank", "schwefel12"}) {
    SCOPED_TRACE(function);
    const Config c = small_config(function, 5000, 12);
    const test::FinalState whole = test::run_uninterrupted(c, make_host);
    test::StopPoint stop;
    const test::FinalState resumed = test::run_interrupted(
        c, make_host, path(), test::stop_inside_chain(1000), Backend::kCpu, c.max_evaluations,
        stop);
    ASSERT_TRUE(stop.stopped);
    EXPECT_EQ(stop.state.stage, LoopStage::kLocalSearch);
    EXPECT_TRUE(stop.next_ls_continues_a_chain);
    test::expect_identical(whole, resumed);
  }
}

// A CEC 2010 run on an instance file, stopped inside a Solis-Wets chain: the file is deleted
// before the resume, which takes the instance embedded in the checkpoint and ends bit-identical.
TEST_F(CheckpointTest, Cec2010ResumeWithTheInstanceFileDeletedIsBitExact) {
  const test::OneThread one_thread;
  for (const char* function : {"cec2010-f5", "cec2010-f13", "cec2010-f20"}) {
    SCOPED_TRACE(function);
    Config c = small_config(function, 5000, 13);
    // Another seed's instance: a resume that fell back to the generated one would differ.
    c.instance = path_in_dir("instance.h5");
    write_instance_file("-o", c.instance, *Problem::make(function, c.dim, 99).cec,
                        function_info(function), "test");
    const test::FinalState whole = test::run_uninterrupted(c, make_host);
    test::StopPoint stop;
    const auto stop_inside_chain = test::stop_inside_chain(1000);
    const test::FinalState resumed = test::run_interrupted(
        c, make_host, path(),
        [&](const MaSwChains& a) {
          if (!stop_inside_chain(a)) return false;
          std::filesystem::remove(c.instance);
          return true;
        },
        Backend::kCpu, c.max_evaluations, stop);
    ASSERT_TRUE(stop.stopped);
    EXPECT_FALSE(std::filesystem::exists(c.instance));
    EXPECT_TRUE(stop.next_ls_continues_a_chain);
    test::expect_identical(whole, resumed);
  }
}

// The run a checkpoint is loaded into must be on the instance the checkpoint embeds.
TEST_F(CheckpointTest, LoadingIntoARunOnAnotherInstanceIsRefused) {
  const Config c = small_config("cec2010-f9", 600, 2);
  {
    const Problem problem = test::problem_of(c);
    HostEngine engine(c, problem);
    MaSwChains algorithm(c, problem, engine);
    algorithm.run();
    write_checkpoint("--checkpoint", path(), algorithm, Backend::kCpu, "test");
  }
  const Problem other = Problem::make(c.function, c.dim, 77);
  HostEngine engine(c, other);
  MaSwChains algorithm(c, other, engine);
  try {
    load_checkpoint(path(), algorithm);
    FAIL() << "loaded into a run on another instance";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("is not the one the checkpoint embeds"),
              std::string::npos)
        << e.what();
  }
}

// Restarts draw from the host generator and the neighbour rho uses distances: the paths a
// plain run does not take.
TEST_F(CheckpointTest, ResumeWithRestartsAndNeighbourRhoIsBitExact) {
  const test::OneThread one_thread;
  Config c = small_config("rastrigin", 6000, 13);
  c.restart = true;
  c.rho_init = RhoInit::kNearestRms;
  c.ls_improvement_threshold = 0.5;  // chains fail often: S_LS empties, restarts happen
  c.ls_intensity = 2;
  const test::FinalState whole = test::run_uninterrupted(c, make_host);
  ASSERT_GT(whole.counters.restarts, 0);
  for (std::int64_t after : {700, 2100, 3900}) {
    SCOPED_TRACE(after);
    test::StopPoint stop;
    const test::FinalState resumed = test::run_interrupted(
        c, make_host, path(), [after](const MaSwChains& a) {
          return a.counters().evaluations >= after;
        },
        Backend::kCpu, c.max_evaluations, stop);
    ASSERT_TRUE(stop.stopped);
    test::expect_identical(whole, resumed);
  }
}

// The resumed half runs on another thread count: results never depend on it.
TEST_F(CheckpointTest, ResumeOnAnotherThreadCountIsBitExact) {
  const test::ThreadCountGuard guard;
  omp_set_num_threads(1);
  const Config c = small_config("discus", 3000, 14);
  const test::FinalState whole = test::run_uninterrupted(c, make_host);
  test::StopPoint stop;
  omp_set_num_threads(1);
  bool switched = false;
  const test::FinalState resumed = test::run_interrupted(
      c, make_host, path(), [&](const MaSwChains& a) {
        const bool stop_now = a.counters().evaluations >= 1200;
        if (stop_now && !switched) {
          switched = true;
          omp_set_num_threads(3);
        }
        return stop_now;
      },
      Backend::kCpu, c.max_evaluations, stop);
  test::expect_identical(whole, resumed);
}

// A population wider than one streamed block: genes cross block and chunk boundaries.
TEST_F(CheckpointTest, GenesStreamAcrossBlocks) {
  const test::OneThread one_thread;
  Config c = small_config("sumsquares", 150, 15);
  c.dim = (Dim{1} << 20) + 1234;
  c.population_size = 4;
  c.batch = 2;
  c.nam_candidates = 2;
  c.ls_intensity = 10;
  c.validate();
  const test::FinalState whole = test::run_uninterrupted(c, make_host);
  test::StopPoint stop;
  const test::FinalState resumed = test::run_interrupted(
      c, make_host, path(), [](const MaSwChains& a) { return a.counters().evaluations >= 60; },
      Backend::kCpu, c.max_evaluations, stop);
  ASSERT_TRUE(stop.stopped);
  test::expect_identical(whole, resumed);
}

// The header alone: configuration, counters and backend come back as written.
TEST_F(CheckpointTest, HeaderAndSummaryDescribeTheRun) {
  const test::OneThread one_thread;
  const Config c = small_config("griewank", 2000, 16);
  test::StopPoint stop;
  test::run_interrupted(
      c, make_host, path(), [](const MaSwChains& a) { return a.counters().evaluations >= 900; },
      Backend::kCpu, c.max_evaluations, stop);
  const CheckpointHeader h = read_checkpoint_header(path());
  EXPECT_EQ(h.config.function, "griewank");
  EXPECT_EQ(h.config.dim, c.dim);
  EXPECT_EQ(h.config.seed, c.seed);
  EXPECT_EQ(h.config.ls_intensity, c.ls_intensity);
  EXPECT_EQ(h.config.max_evaluations, c.max_evaluations);
  EXPECT_EQ(h.backend, Backend::kCpu);
  EXPECT_EQ(h.summary.evaluations, stop.state.counters.evaluations);
  EXPECT_EQ(h.summary.capacity, c.capacity());
  EXPECT_EQ(h.summary.format_version, kCheckpointFormatVersion);
  const CheckpointSummary s = inspect_checkpoint(path());
  EXPECT_EQ(s.function, "griewank");
  EXPECT_TRUE(std::isfinite(s.best_fitness));
}

// A budget smaller than the evaluations already done, and a file from another dimension loaded
// into a run built for it by mistake, are refused.
TEST_F(CheckpointTest, LoadRefusesABudgetAlreadySpent) {
  const test::OneThread one_thread;
  const Config c = small_config("rastrigin", 2000, 17);
  test::StopPoint stop;
  test::run_interrupted(
      c, make_host, path(), [](const MaSwChains& a) { return a.counters().evaluations >= 1000; },
      Backend::kCpu, c.max_evaluations, stop);
  Config smaller = c;
  smaller.max_evaluations = 500;
  const Problem problem = test::problem_of(smaller);
  HostEngine engine(smaller, problem);
  MaSwChains algorithm(smaller, problem, engine);
  EXPECT_THROW(load_checkpoint(path(), algorithm), UserError);
}

TEST_F(CheckpointTest, HostRngLayoutIsChecked) {
  const Config c = small_config("rastrigin", 2000, 18);
  const Problem problem = test::problem_of(c);
  HostEngine engine(c, problem);
  RngSnapshot s = engine.save_rng();
  EXPECT_NO_THROW(engine.restore_rng(s));
  s.layout = "curand-xorwow/v1 states=1 bytes=48";
  EXPECT_THROW(engine.restore_rng(s), UserError);
}

}  // namespace
}  // namespace chainsaw
