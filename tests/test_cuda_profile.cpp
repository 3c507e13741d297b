// --profile on the GPU: CUDA events put every pass in its bucket, change nothing in the run and
// add no host sync to a Solis-Wets application. Skips without a GPU.
#if defined(CHAINSAW_CUDA)

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "core/engines/cuda/cuda_engine.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "gpu_test_support.hpp"

namespace chainsaw {
namespace {

Config profile_config(const std::string& function, Dim dim) {
  Config c;
  c.function = function;
  c.dim = dim;
  c.max_evaluations = 3000;
  c.seed = 9;
  return c;
}

struct ProfiledRun {
  RunResult result;
  KernelProfile profile;
  double seconds = 0.0;  // building the engine and running
};

ProfiledRun run_profiled(const Config& config, bool profile) {
  ProfiledRun out;
  const auto start = std::chrono::steady_clock::now();
  const Problem problem = Problem::make(config.function, config.dim, config.effective_problem_seed());
  CudaEngine engine(config, problem);
  if (profile) engine.set_profile(&out.profile);
  MaSwChains algorithm(config, problem, engine);
  out.result = algorithm.run();
  engine.flush_profile();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

TEST(CudaProfile, ProfilingChangesNothingInTheRun) {
  REQUIRE_GPU();
  for (const char* fn : {"rastrigin", "cec2010-f9"}) {
    const Config config = profile_config(fn, 20000);
    const ProfiledRun plain = run_profiled(config, false), profiled = run_profiled(config, true);
    EXPECT_EQ(plain.result.best_fitness, profiled.result.best_fitness) << fn;
    EXPECT_EQ(plain.result.distance_to_optimum, profiled.result.distance_to_optimum) << fn;
    EXPECT_EQ(plain.profile.total(), 0.0) << fn;
  }
}

TEST(CudaProfile, EveryBucketOfARunGetsDeviceTimeWithinTheWallTime) {
  REQUIRE_GPU();
  const ProfiledRun r = run_profiled(profile_config("rastrigin", 100000), true);
  // Not kTransfers: it holds copies of whole individuals, which this run does not make (the
  // small per-launch copies are timed with their kernels).
  for (Bucket b : {Bucket::kFitness, Bucket::kCrossover, Bucket::kDistances, Bucket::kSwMoves,
                   Bucket::kSort, Bucket::kRngInit})
    EXPECT_GT(r.profile.seconds(b), 0.0) << bucket_info(b).key;
  EXPECT_EQ(r.profile.seconds(Bucket::kCheckpointIo), 0.0);
  // Intervals of one stream do not overlap: together they fit in the time of the run.
  EXPECT_LT(r.profile.total(), r.seconds);
  // The fused passes dominate a paper function's run: they hold its evaluations.
  EXPECT_GT(r.profile.seconds(Bucket::kCrossover) + r.profile.seconds(Bucket::kSwMoves),
            r.profile.seconds(Bucket::kFitness));
}

TEST(CudaProfile, Cec2010CandidateEvaluationsAreFitness) {
  REQUIRE_GPU();
  const ProfiledRun r = run_profiled(profile_config("cec2010-f9", 100000), true);
  // Each Solis-Wets candidate and each child is evaluated by launches of its own, which read
  // at least what the move that made the candidate wrote (and gather and rotate the groups).
  EXPECT_GT(r.profile.seconds(Bucket::kSwMoves), 0.0);
  EXPECT_GT(r.profile.seconds(Bucket::kFitness), 0.25 * r.profile.seconds(Bucket::kSwMoves));
}

TEST(CudaProfile, AddsNoHostSyncToASolisWetsApplication) {
  REQUIRE_GPU();
  const Problem problem = Problem::make("sumsquares", 100000, 6);
  const Config config = profile_config("sumsquares", 100000);
  auto syncs = [&](bool profile) {
    CudaEngine engine(config, problem);
    KernelProfile p;
    if (profile) engine.set_profile(&p);
    std::vector<double> f(1);
    engine.initialize({3}, f.data());
    LocalSearchRequest req;
    req.slot = 3;
    req.fitness = f[0];
    req.state.rho = 0.2;
    req.evaluations = 500;
    const LocalSearchResult r = engine.solis_wets(req);
    engine.flush_profile();
    if (profile) {
      EXPECT_GT(p.seconds(Bucket::kSwMoves), 0.0);
    }
    return std::make_pair(engine.last_ls_host_syncs(), r.fitness);
  };
  const auto plain = syncs(false), profiled = syncs(true);
  EXPECT_EQ(plain.first, profiled.first);
  EXPECT_EQ(plain.second, profiled.second);
}

}  // namespace
}  // namespace chainsaw

#endif  // CHAINSAW_CUDA
