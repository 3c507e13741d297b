// Where the evaluation pass of stored individuals (a batch after a host write, the paper's
// evaluation of a slot) takes o from. The same bits either way.
#pragma once

#include "core/engines/cuda/tuning/gpu_workload.hpp"

namespace chainsaw {

struct EvaluationPolicy {
  // From a device copy of o kept in L2 by a persisting window (StoredShiftTerm), not hashed per
  // gene: a 1e6-D batch's evaluation 3-24% faster on the H100 (Salomon 69 -> 74% of copy
  // bandwidth, Schwefel 1.2 48 -> 60%). Only the evaluation pass: read in every pass it slowed the
  // 3e6-D run 19.2 -> 20.5 s (bench/results/2026-11-23-h100-fitness-kernels/README.md).
  bool reads_stored_shift = true;
};

// Wherever it can.
inline EvaluationPolicy select_evaluation_policy(const GpuWorkload& w, const DeviceProperties&) {
  return {w.stored_shift_possible()};
}

}  // namespace chainsaw
