// The checkpoint of any algorithm: what the run driver, the schedule and `chainsaw inspect`
// call. MA-SW-Chains' population lives in its engine and is streamed (checkpoint.hpp); the
// others' state is named arrays (algorithm_checkpoint.hpp); both files share the root
// attributes, the run's Config and the embedded instance (docs/checkpoints.md).
#pragma once

#include <string>

#include "core/algorithms/algorithm.hpp"
#include "core/config.hpp"
#include "core/distributed/islands.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/results/output_file.hpp"

namespace chainsaw {

// Writes `algorithm`'s state between two units crash-safely to `path` (UserError naming `flag`
// and `path` when it cannot; `path` then still holds the previous checkpoint). `islands`: an
// island's migration record (MA-SW-Chains under --distribute islands).
void write_run_checkpoint(const std::string& flag, const std::string& path,
                          Algorithm& algorithm, Backend backend, const std::string& reason,
                          const IslandState* islands = nullptr);
// The same, up to the rename (the islands of a run commit together).
StagedFile stage_run_checkpoint(const std::string& flag, const std::string& path,
                                Algorithm& algorithm, Backend backend, const std::string& reason,
                                const IslandState* islands = nullptr);
// The Config, backend, embedded instance and island record of a checkpoint of any algorithm.
CheckpointHeader read_run_checkpoint_header(const std::string& path);
// Restores the file's state into `algorithm`, built from the header's Config (a larger budget
// allowed) and problem. UserError for a damaged or mismatching file.
void load_run_checkpoint(const std::string& path, Algorithm& algorithm);

}  // namespace chainsaw
