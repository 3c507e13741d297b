// The CUDA backend of DE, jDE, PSO and Scatter Search (the population-parallel path of
// core/engines/cuda/population_kernels.cuh behind the PopulationAlgorithm host loop) and of
// sep-CMA-ES (core/engines/cuda/sep_cma_cuda.hpp).
#pragma once

#include <memory>

#include "core/algorithms/population_algorithm.hpp"

namespace chainsaw {

// Whether `config`'s algorithm and function run on the GPU path (DE, jDE, PSO and SS on the
// built-in functions and those with a batch kernel; sep-CMA-ES on what the CUDA engine
// evaluates); `why` says what does not.
bool population_runs_on_cuda(const Config& config, const Problem& problem, std::string* why);

// Throws UserError (with population_runs_on_cuda's reason) for what does not run there.
std::unique_ptr<PopulationAlgorithm> make_cuda_population_algorithm(const Config& config,
                                                                    const Problem& problem);

}  // namespace chainsaw
