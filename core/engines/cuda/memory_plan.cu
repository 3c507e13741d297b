#include "core/engines/cuda/memory_plan.hpp"

#include <curand_kernel.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/engines/cuda/launch_plan.hpp"
#include "core/engines/engine.hpp"
#include "core/error.hpp"
#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_info.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/reduction.hpp"

namespace chainsaw {

namespace {

std::string gib(std::size_t bytes) {
  std::ostringstream s;
  s.precision(2);
  s << std::fixed << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return s.str();
}

// The block-partial scratch holds the largest partial of any function.
static_assert(sizeof(RosenbrockPartial) <= sizeof(PrefixSquarePartial) &&
                  sizeof(AckleyPartial) <= sizeof(PrefixSquarePartial),
              "partials scratch is sized by PrefixSquarePartial");

// A CEC 2010 instance on the device (o, P, P's inverse, M), the stored Solis-Wets candidate
// its grouped evaluation gathers from and the group values.
std::size_t cec2010_device_bytes(const Problem& problem, int max_rows) {
  if (!problem.is_cec2010()) return 0;
  const CecInstance& inst = *problem.cec;
  const auto candidate = static_cast<std::size_t>(device::row_pitch(problem.dim));
  return (inst.o.size() + candidate) * sizeof(real_t) +
         (inst.perm.size() + inst.inverse.size()) * sizeof(std::int32_t) +
         (inst.rotation.size() + cec2010_group_values(problem, max_rows)) * sizeof(double);
}

// The children of a crossover batch go to a batch callback in one call, gathered into rows of
// their own, where those rows take at most this much device memory; beyond it (10^8 variables
// and more with the default batch) the callback gets each run of adjacent slots apart.
constexpr std::size_t kGatheredBatchBytes = std::size_t{1} << 30;

// A user objective: the count of invalid values; a batch callback's also the two Solis-Wets
// candidates of a step, its values of a batch and the gathered children; one given as a graph
// too the work rows of a Solis-Wets application.
std::size_t external_device_bytes(const Problem& problem, int max_rows, int batch_rows) {
  if (!problem.is_external()) return 0;
  if (!gpu_evaluates_apart(problem)) return sizeof(unsigned long long);
  const std::size_t row = static_cast<std::size_t>(device::row_pitch(problem.dim)) * sizeof(real_t);
  return 2 * row + static_cast<std::size_t>(max_rows) * sizeof(double) +
         sizeof(unsigned long long) + gathered_batch_bytes(problem, batch_rows) +
         (problem.external->device_graph ? 2 * row + sizeof(double) : 0);
}

}  // namespace

GpuWorkload engine_workload(const Config& config, const Problem& problem, int ranks) {
  const bool sharded = ranks > 1;
  return GpuWorkload::of(problem, std::max(1, sharded ? ranks : config.gpu_slices), sharded);
}

GpuPolicy selected_gpu_policy(const Config& config, const Problem& problem) {
  return select_gpu_policy(engine_workload(config, problem, 1), current_device_properties());
}

std::size_t cec2010_group_values(const Problem& problem, int max_rows) {
  if (!problem.is_cec2010()) return 0;
  return static_cast<std::size_t>(max_rows) * static_cast<std::size_t>(problem.cec->groups);
}

std::size_t gathered_batch_bytes(const Problem& problem, int batch_rows) {
  const std::size_t bytes = static_cast<std::size_t>(batch_rows) *
                            static_cast<std::size_t>(device::row_pitch(problem.dim)) *
                            sizeof(real_t);
  return bytes <= kGatheredBatchBytes ? bytes : 0;
}

static_assert(kGpuSliceTile == device::kWarpTile, "slices are made of whole warp tiles");

Dim gpu_slice_genes(Dim dim, int slices) {
  if (slices <= 1) return dim;
  const Dim per = (dim + slices - 1) / slices;
  const Dim genes = (per + device::kWarpTile - 1) / device::kWarpTile * device::kWarpTile;
  if (genes * (slices - 1) >= dim)
    throw UserError("D = " + std::to_string(dim) + " is too small for " + std::to_string(slices) +
                    " GPU slices: each needs at least one of the " +
                    std::to_string(device::kWarpTile) + "-gene tiles of every individual");
  return genes;
}

DeviceMemoryPlan plan_device_memory(const Config& config, const Problem& problem,
                                    int shard_ranks, const GpuPolicy& policy) {
  const bool sharded = shard_ranks > 1;
  const SliceLayout layout =
      SliceLayout::make(problem.dim, sharded ? shard_ranks : config.gpu_slices, 0, sharded);
  const LaunchPlan launch =
      LaunchPlan::make(config, layout.slice_genes, current_device_properties().sm_count,
                       policy.solis_wets.lane_genes);
  const std::size_t slot_genes =
      static_cast<std::size_t>(config.capacity()) *
      device::row_pitch(layout.rank_slices(problem.dim, sharded).front().count);  // the largest
  const auto held = static_cast<std::size_t>(layout.held);
  DeviceMemoryPlan plan;
  plan.genes = slot_genes * sizeof(real_t);
  plan.bias = slot_genes * sizeof(real_t);
  plan.rng_states = (held * launch.rng_states + (held - 1) * launch.rng_states +
                     launch.one_row_states()) *
                    sizeof(curandState);
  plan.scratch = (policy.evaluation.reads_stored_shift
                      ? static_cast<std::size_t>(problem.dim) * sizeof(real_t)
                      : 0) +
                 (policy.solis_wets.keeps_dif
                      ? static_cast<std::size_t>(device::row_pitch(problem.dim)) * sizeof(real_t)
                      : 0) +
                 cec2010_device_bytes(problem, launch.max_rows) +
                 external_device_bytes(problem, launch.max_rows, launch.rng_rows) +
                 (held + (sharded ? static_cast<std::size_t>(shard_ranks) : 0)) *
                     launch.partial_slots * sizeof(PrefixSquarePartial) +
                 static_cast<std::size_t>(config.capacity()) * sizeof(double) +
                 static_cast<std::size_t>(launch.max_rows) *
                     (sizeof(ChildSpec) + 3 * sizeof(int) + sizeof(double) + sizeof(unsigned));
  return plan;
}

DeviceMemoryPlan plan_device_memory(const Config& config, const Problem& problem,
                                    int shard_ranks) {
  const GpuWorkload workload = engine_workload(config, problem, shard_ranks);
  return plan_device_memory(config, problem, shard_ranks,
                            default_gpu_policy(workload, current_device_properties()));
}

void require_device_memory(const DeviceMemoryPlan& plan) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CHAINSAW_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (plan.total() > free_bytes)
    throw UserError("the population does not fit in GPU memory: needs " + gib(plan.total()) +
                    " (genes " + gib(plan.genes) + ", bias " + gib(plan.bias) + ", RNG states " +
                    gib(plan.rng_states) + ", scratch " + gib(plan.scratch) + "), " +
                    gib(free_bytes) + " free of " + gib(total_bytes));
}

}  // namespace chainsaw
