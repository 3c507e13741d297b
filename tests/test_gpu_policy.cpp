// The GPU engine's tuning policies (core/engines/cuda/tuning/) chosen from the problem and the
// device's properties, without a GPU: the measured choices at the sizes they were measured at,
// the boundaries of the placement rules, what a workload cannot run, and the benchmarking
// override CHAINSAW_GPU_POLICY with its one-line errors.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/engines/cuda/tuning/gpu_policy.hpp"
#include "core/error.hpp"
#include "fitness/external_objective.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {
namespace {

// The H100 the choices were measured on: 132 SMs, 50 MB of L2.
const DeviceProperties kH100{132, std::size_t{50} << 20};

GpuWorkload built_in(Dim dim) {
  return GpuWorkload::of(Problem::make("rastrigin", dim, 1), 1, false);
}

// The genes of a one-row step whose short-lane grid needs exactly two blocks per SM.
Dim short_lane_limit(const DeviceProperties& device) {
  return 2 * static_cast<Dim>(device.sm_count) * device::kWarps * 32 * device::kShortLane;
}

// The largest D whose row of genes takes at most a quarter of L2 (rows are 32-gene aligned).
Dim quarter_l2_row_limit(const DeviceProperties& device) {
  return static_cast<Dim>(device.l2_cache_bytes / 4 / sizeof(real_t)) / 32 * 32;
}

TEST(GpuPolicy, ABuiltInFunctionTakesEveryMeasuredPathOnTheH100) {
  const GpuPolicy p = select_gpu_policy(built_in(100000), kH100);
  EXPECT_TRUE(p.reduce.programmatic_launch);
  EXPECT_TRUE(p.reduce.interleave_rows);
  EXPECT_TRUE(p.evaluation.reads_stored_shift);
  EXPECT_TRUE(p.nam_batch.child_rows);
  EXPECT_TRUE(p.nam_batch.graphs);
  const SolisWetsPolicy& sw = p.solis_wets;
  EXPECT_TRUE(sw.both_moves);
  EXPECT_TRUE(sw.chain);
  EXPECT_EQ(sw.lane_genes, device::kShortLane);
  EXPECT_TRUE(sw.keeps_dif);
  EXPECT_TRUE(sw.dif_beside_genes_in_l2);
  EXPECT_TRUE(sw.stages_genes && sw.stages_dif && sw.stages_shift && sw.reads_stored_shift);
  EXPECT_TRUE(sw.pairs_blocks);
}

TEST(GpuPolicy, SolisWetsLanesAreShortWhileTheirGridNeedsAtMostTwoBlocksPerSm) {
  for (const DeviceProperties device : {kH100, DeviceProperties{2, std::size_t{4} << 20}}) {
    const Dim limit = short_lane_limit(device);
    EXPECT_EQ(sw_lane_genes(1, device.sm_count), device::kShortLane);
    EXPECT_EQ(sw_lane_genes(limit, device.sm_count), device::kShortLane);
    EXPECT_EQ(sw_lane_genes(limit + 1, device.sm_count), device::kVec);
    EXPECT_EQ(select_solis_wets_policy(built_in(limit + 1), device).lane_genes, device::kVec);
  }
  // The H100's limit is the one the docs quote for float genes.
  if (sizeof(real_t) == sizeof(float)) {
    EXPECT_EQ(short_lane_limit(kH100), 270336);
  }
}

// The dif row is kept while it takes at most a quarter of L2 (3e6 float genes on the H100: 12 of
// 50 MB), and beside x and the bias in memory while all three do (1e6: 12 MB; not 3e6: 36 MB).
TEST(GpuPolicy, TheChainKeepsItsDifWhileItsRowsTakeAtMostAQuarterOfL2) {
  const Dim limit = quarter_l2_row_limit(kH100);
  EXPECT_TRUE(select_solis_wets_policy(built_in(limit), kH100).keeps_dif);
  EXPECT_FALSE(select_solis_wets_policy(built_in(limit + 1), kH100).keeps_dif);
  if (sizeof(real_t) == sizeof(float)) {
    const SolisWetsPolicy at_1e6 = select_solis_wets_policy(built_in(1000000), kH100);
    const SolisWetsPolicy at_3e6 = select_solis_wets_policy(built_in(3000000), kH100);
    EXPECT_TRUE(at_1e6.keeps_dif && at_1e6.dif_beside_genes_in_l2);
    EXPECT_TRUE(at_3e6.keeps_dif);
    EXPECT_FALSE(at_3e6.dif_beside_genes_in_l2);
  }
}

TEST(GpuPolicy, SlicedShardedAndUserWorkloadsRunWithoutWhatTheyCannotHold) {
  GpuWorkload sliced = built_in(100000);
  sliced.slices = 2;
  GpuWorkload sharded = built_in(100000);
  sharded.slices = 2;
  sharded.sharded = true;
  for (const GpuWorkload& w : {sliced, sharded}) {
    const GpuPolicy p = select_gpu_policy(w, kH100);
    EXPECT_FALSE(p.evaluation.reads_stored_shift);
    EXPECT_FALSE(p.solis_wets.keeps_dif);
    EXPECT_EQ(p.nam_batch.graphs, !w.sharded);  // one GPU's slices still capture a batch
  }
  // A batch callback: evaluated apart, no built-in term, calls back from the batch.
  auto objective = std::make_shared<BatchObjective>();
  objective->name = "callback";
  objective->lower = -1.0;
  objective->upper = 1.0;
  objective->host = [](const real_t*, Dim, int, Dim, double*) {};
  const Problem user = Problem::make_external(objective, 1000);
  const GpuWorkload w = GpuWorkload::of(user, 1, false);
  EXPECT_TRUE(w.evaluated_apart);
  const GpuPolicy p = select_gpu_policy(w, kH100);
  EXPECT_FALSE(p.evaluation.reads_stored_shift);
  EXPECT_FALSE(p.nam_batch.graphs);
  EXPECT_FALSE(p.solis_wets.keeps_dif);
}

TEST(GpuPolicy, AGivenPolicyIsNarrowedToWhatItsWorkloadSupports) {
  GpuPolicy everything = select_gpu_policy(built_in(100000), kH100);
  everything.solis_wets.stages_genes = false;
  GpuWorkload sharded = built_in(100000);
  sharded.slices = 2;
  sharded.sharded = true;
  const GpuPolicy p = supported_gpu_policy(everything, sharded);
  EXPECT_FALSE(p.evaluation.reads_stored_shift);
  EXPECT_FALSE(p.nam_batch.graphs);
  EXPECT_FALSE(p.solis_wets.keeps_dif);
  // The dif and o are staged beside the staged genes only.
  EXPECT_FALSE(p.solis_wets.stages_dif);
  EXPECT_FALSE(p.solis_wets.stages_shift);
  EXPECT_TRUE(p.solis_wets.reads_stored_shift);
  // Nothing changes where the workload runs it all.
  const GpuPolicy plain = select_gpu_policy(built_in(100000), kH100);
  const GpuPolicy same = supported_gpu_policy(plain, built_in(100000));
  EXPECT_TRUE(same.evaluation.reads_stored_shift && same.nam_batch.graphs &&
              same.solis_wets.keeps_dif && same.solis_wets.stages_shift);
  GpuPolicy odd = plain;
  odd.solis_wets.lane_genes = 3;
  EXPECT_THROW(supported_gpu_policy(odd, built_in(100000)), InternalError);
}

// Each setting of the override turns one choice of the selected policy; later settings win.
TEST(GpuPolicy, TheOverrideSetsEachChoiceByName) {
  const GpuPolicy base = select_gpu_policy(built_in(100000), kH100);
  const auto with = [&](const std::string& spec) { return apply_gpu_policy_override(base, spec); };
  EXPECT_FALSE(with("pdl=off").reduce.programmatic_launch);
  EXPECT_TRUE(with("pdl=off,pdl=on").reduce.programmatic_launch);
  EXPECT_FALSE(with("interleave=off").reduce.interleave_rows);
  EXPECT_FALSE(with("nam_distances=pairs").nam_batch.child_rows);
  EXPECT_FALSE(with("batch_graphs=off").nam_batch.graphs);
  EXPECT_FALSE(with("stored_o=off").evaluation.reads_stored_shift);
  EXPECT_FALSE(with("sw_moves=separate").solis_wets.both_moves);
  EXPECT_FALSE(with("sw_launch=steps").solis_wets.chain);
  EXPECT_EQ(with("sw_lane=whole").solis_wets.lane_genes, device::kVec);
  EXPECT_EQ(with("sw_lane=whole,sw_lane=short").solis_wets.lane_genes, device::kShortLane);
  EXPECT_FALSE(with("sw_dif=drawn").solis_wets.keeps_dif);
  EXPECT_FALSE(with("sw_blocks=single").solis_wets.pairs_blocks);
  const SolisWetsPolicy off = with("sw_stage=off").solis_wets;
  EXPECT_FALSE(off.stages_genes || off.stages_dif);
  const SolisWetsPolicy genes = with("sw_stage=genes").solis_wets;
  EXPECT_TRUE(genes.stages_genes);
  EXPECT_FALSE(genes.stages_dif);
  const SolisWetsPolicy stored = with("sw_shift=stored").solis_wets;
  EXPECT_FALSE(stored.stages_shift);
  EXPECT_TRUE(stored.reads_stored_shift);
  const SolisWetsPolicy hashed = with("sw_shift=hash").solis_wets;
  EXPECT_FALSE(hashed.stages_shift || hashed.reads_stored_shift);
  // Several at once, in any order; an empty override changes nothing.
  const GpuPolicy both = with("sw_launch=steps,pdl=off");
  EXPECT_FALSE(both.solis_wets.chain || both.reduce.programmatic_launch);
  EXPECT_TRUE(with("").solis_wets.chain);
}

TEST(GpuPolicy, AnUnknownOverrideIsOneLineNamingIt) {
  const GpuPolicy base = select_gpu_policy(built_in(1000), kH100);
  for (const std::string spec : {"pdl=maybe", "warp=32", "sw_launch", "pdl=off,sw_stage=half"}) {
    try {
      apply_gpu_policy_override(base, spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const UserError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_NE(what.find("CHAINSAW_GPU_POLICY"), std::string::npos) << what;
      const std::string bad = spec.substr(spec.rfind(',') + 1);
      EXPECT_NE(what.find(bad.substr(0, bad.find('='))), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace chainsaw
