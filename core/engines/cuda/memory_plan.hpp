// The CUDA engine's device memory, planned before anything is allocated: what each purpose
// takes (plan_device_memory, cuda_engine.hpp, the --dry-run plan) and the up-front check that
// the population fits.
#pragma once

#include <cstddef>

#include "core/config.hpp"
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/engines/cuda/tuning/gpu_policy.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

// The workload of an engine of `config` on `problem`: `ranks` > 1 a rank of a sharded run.
GpuWorkload engine_workload(const Config& config, const Problem& problem, int ranks);
// Group values of a CEC 2010 function: rows x groups (every function with groups takes the
// separate pass; the others have none).
std::size_t cec2010_group_values(const Problem& problem, int max_rows);
// The bytes of the rows a batch callback gets a crossover batch's children in, one call: 0
// where they would take more than kGatheredBatchBytes (the callback then gets each run of
// adjacent slots apart).
std::size_t gathered_batch_bytes(const Problem& problem, int batch_rows);
// Throws UserError, with the sizes, when the plan does not fit in the GPU's free memory.
void require_device_memory(const DeviceMemoryPlan& plan);

}  // namespace chainsaw
