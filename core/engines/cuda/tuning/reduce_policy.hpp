// How the reduction kernel (fitness/device_reduce.cuh, produce_reduce_kernel) is launched, for
// every pass that makes or evaluates rows. Each choice leaves the bits of a run as they are.
#pragma once

#include "core/engines/cuda/tuning/gpu_workload.hpp"

namespace chainsaw {

struct ReducePolicy {
  // Programmatic dependent launch: scheduled while the previous kernel drains, awaited on the
  // device (sm_90 code only). About 1.5-1.9 us off every launch; 3e6-D Rastrigin 19.62 -> 19.24 s
  // on the H100 (bench/results/2026-11-23-h100-fitness-kernels/README.md).
  bool programmatic_launch = true;
  // Rows that read the same vectors (NAM's distance pairs) start gene range by gene range, so that
  // they share lines in L2: the crossover phase 3.51 -> 3.24 s at 1e6-D on the H100
  // (bench/results/2026-11-27-h100-chain-settle/README.md).
  bool interleave_rows = true;
};

// The same for every problem and device this was measured on (H100, H200).
inline ReducePolicy select_reduce_policy(const GpuWorkload&, const DeviceProperties&) {
  return {};
}

}  // namespace chainsaw
