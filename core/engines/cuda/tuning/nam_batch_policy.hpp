// How a crossover batch by negative assortative mating (CudaEngine::make_nam_children) runs on
// the GPU: its distances, its fathers, the crossover and the children's evaluation in one
// stream behind one host wait. The same fathers and bits every way.
#pragma once

#include "core/engines/cuda/tuning/gpu_workload.hpp"

namespace chainsaw {

struct NamBatchPolicy {
  // A row per child (NamDistancesOp: the mother read once for her up to four candidates) instead
  // of a row per pair (DistanceOp): 80 vectors per batch instead of 120, the crossover phase
  // 2.695 -> 2.587 s at 1e6-D on the H100
  // (bench/results/2026-11-28-h100-nam-rows-sw-fold/README.md).
  bool child_rows = true;
  // The batch as one CUDA graph per batch size, replayed (plain runs of built-in functions, not
  // profiled): 10^3-D, 3e6 evaluations 9.04 -> 8.76 s on the H100
  // (bench/results/2026-11-26-h100-batch-round-trips/README.md).
  bool graphs = true;
};

// Graphs wherever the batch can be captured.
inline NamBatchPolicy select_nam_batch_policy(const GpuWorkload& w, const DeviceProperties&) {
  return {true, w.batch_graphs_possible()};
}

}  // namespace chainsaw
