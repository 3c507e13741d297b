// The GPU engine's tuning: one policy per strategy (the reduction's launch, the evaluation of
// stored rows, the NAM batch, Solis-Wets), each chosen by one selector from the problem and the
// device's properties (CUB's tuning policies are the model). CudaEngine takes the selected
// policy unless it is given one; tests and benchmarks pass one explicitly to compare the paths
// a policy can select. For benchmarking, CHAINSAW_GPU_POLICY in the environment overrides the
// selected policy of engines built without one (docs/performance.md, "Measuring a choice").
#pragma once

#include <string>

#include "core/engines/cuda/tuning/evaluation_policy.hpp"
#include "core/engines/cuda/tuning/gpu_workload.hpp"
#include "core/engines/cuda/tuning/nam_batch_policy.hpp"
#include "core/engines/cuda/tuning/reduce_policy.hpp"
#include "core/engines/cuda/tuning/solis_wets_policy.hpp"

namespace chainsaw {

struct GpuPolicy {
  ReducePolicy reduce;
  EvaluationPolicy evaluation;
  NamBatchPolicy nam_batch;
  SolisWetsPolicy solis_wets;
};

GpuPolicy select_gpu_policy(const GpuWorkload& workload, const DeviceProperties& device);

// `policy` without what the workload cannot run whatever is asked (a sliced layout's stored o, a
// sharded batch's graph, a kept dif where no chain kernel runs). Throws InternalError for a
// lane width other than kVec and kShortLane.
GpuPolicy supported_gpu_policy(GpuPolicy policy, const GpuWorkload& workload);

// `policy` with the settings of `spec` applied, comma-separated key=value:
//   pdl=on|off  interleave=on|off  nam_distances=rows|pairs  batch_graphs=on|off
//   stored_o=on|off  sw_moves=both|separate  sw_launch=chain|steps  sw_lane=short|whole
//   sw_dif=kept|drawn  sw_stage=all|genes|off  sw_shift=row|stored|hash  sw_blocks=paired|single
// Throws UserError, naming the setting, for anything else.
GpuPolicy apply_gpu_policy_override(GpuPolicy policy, const std::string& spec);

// The selected policy, overridden by CHAINSAW_GPU_POLICY where the environment sets it, and
// supported by the workload: what an engine built without a policy runs.
GpuPolicy default_gpu_policy(const GpuWorkload& workload, const DeviceProperties& device);

}  // namespace chainsaw
