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

// When a population run checkpoints: periodically (--checkpoint-every), before a unit the
// budget cuts short (so that a resume with a larger budget continues exactly like a longer
// run), at the end, and when `stop_requested` says so (the run then stops).
class AlgorithmCheckpointSchedule {
 public:
  AlgorithmCheckpointSchedule(std::string flag, std::string path, CheckpointInterval every,
                              Backend backend, std::function<bool()> stop_requested = {},
                              KernelProfile* profile = nullptr);
  bool at_safe_point(PopulationAlgorithm& algorithm);
  void at_end(PopulationAlgorithm& algorithm);

 private:
  void write(PopulationAlgorithm& algorithm, const char* reason);
  std::string flag_, path_;
  CheckpointInterval every_;
  Backend backend_;
  std::function<bool()> stop_requested_;
  KernelProfile* profile_;
  std::chrono::steady_clock::time_point last_time_;
  std::int64_t last_evaluations_ = 0;
  bool final_written_ = false;
};

}  // namespace chainsaw
