// sep-CMA-ES on the GPU: the host loop of core/algorithms/sep_cma_es.hpp, its D-long vectors
// on the device. The offspring are sampled into a CudaEngine's slots and evaluated by its
// batched evaluation pass (every function the engine evaluates); the update runs gene-parallel
// (core/engines/cuda/sep_cma_kernels.cuh). One wait per generation: the lambda values the
// host ranks (and, with IPOP, one more for the restart criteria).
#pragma once

#include <memory>

#include "core/algorithms/population_algorithm.hpp"

namespace chainsaw {

// Whole individuals on one GPU: make_cuda_population_algorithm refuses --gpu-slices > 1
// (population_runs_on_cuda) before it calls this.
std::unique_ptr<PopulationAlgorithm> make_cuda_sep_cma_es(const Config& config,
                                                          const Problem& problem);

}  // namespace chainsaw
