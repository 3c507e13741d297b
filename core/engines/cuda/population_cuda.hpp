// The CUDA backend of DE, jDE and PSO: the population-parallel path of
// core/engines/cuda/population_kernels.cuh behind the PopulationAlgorithm host loop.
#pragma once

#include <memory>

#include "core/algorithms/population_algorithm.hpp"

namespace chainsaw {

// Whether `config`'s algorithm and function run on the GPU path (DE, jDE and PSO on the
// paper's six functions); `why` says what does not.
bool population_runs_on_cuda(const Config& config, const Problem& problem, std::string* why);

// Throws UserError (with population_runs_on_cuda's reason) for what does not run there.
std::unique_ptr<PopulationAlgorithm> make_cuda_population_algorithm(const Config& config,
                                                                    const Problem& problem);

}  // namespace chainsaw
