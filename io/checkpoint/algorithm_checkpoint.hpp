// HDF5 checkpoints of the population algorithms (DE, jDE, PSO, SS; docs/algorithms.md). The
// root attributes are those of an MA-SW-Chains checkpoint (io/checkpoint/checkpoint.hpp), so
// `chainsaw inspect` reads both, plus `algorithm`; the rest:
//   /run/state             the Config and the algorithm's integers (JSON text)
//   /algorithm/<name>      the algorithm's arrays: genes (real_t) and doubles, 1-D, checksummed
//   /instance              CEC 2010 only, as in an MA-SW-Chains checkpoint
// Written to a temporary file and renamed over the target, as every checkpoint.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "core/algorithms/population_algorithm.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/parse_value.hpp"

namespace chainsaw {

// The `algorithm` attribute of a checkpoint: "ma-sw-chains" for one without it (and for a
// file that cannot be read: the MA-SW-Chains reader then reports why).
std::string checkpoint_algorithm(const std::string& path);

void write_algorithm_checkpoint(const std::string& flag, const std::string& path,
                                PopulationAlgorithm& algorithm, Backend backend,
                                const std::string& reason);

// The Config, backend and CEC 2010 instance, validated (islands: always empty).
CheckpointHeader read_algorithm_checkpoint_header(const std::string& path);

// Restores the state into `algorithm`, built from the header's Config (a larger budget
// allowed) and problem. Throws UserError for a damaged or mismatching file.
void load_algorithm_checkpoint(const std::string& path, PopulationAlgorithm& algorithm);

}  // namespace chainsaw
