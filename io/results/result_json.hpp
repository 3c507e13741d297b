// The result file of `chainsaw run`: the configuration, what ran it, the paper's two quality
// measures (best fitness, Euclidean distance of the best individual to the optimum), the
// evaluation counters, wall time and the per-phase breakdown. docs/results-format.md documents
// every field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/convergence_trace.hpp"
#include "core/distributed/islands.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "io/cli/profile_report.hpp"

namespace chainsaw {

// Where and how a run was executed, beyond its Config.
struct RunEnvironment {
  Backend backend = Backend::kCpu;  // resolved: kCpu or kCuda
  std::string device;               // the GPU's name; empty on the CPU
  int threads = 1;                  // OpenMP threads available to the run
  double setup_seconds = 0.0;       // building the engine (allocation, device set-up)
  std::string checkpoint;           // where checkpoints went; empty: none
  std::string resumed_from;         // the checkpoint this run continued; empty: a fresh run
  std::int64_t resumed_at_evaluations = 0;
};

// The ranks of a distributed run (--distribute), for the result's `distribute` block.
struct DistributedRun {
  Distribute mode = Distribute::kNone;
  int ranks = 1;
  int best_rank = 0;                   // islands: the island that holds the best individual
  std::vector<IslandSummary> islands;  // islands: every island, in rank order
};

// Every Config field, under the name of its command-line flag (dashes as underscores).
nlohmann::ordered_json config_to_json(const Config& config);

// The inverse of config_to_json; throws UserError naming the first missing or bad field.
Config config_from_json(const nlohmann::json& json);

// The total's key is published twice: `total` in result files, `evaluations` in checkpoints.
enum class CountersSchema { kResultFile, kCheckpoint };

// The counters as `schema`'s JSON object; from_json throws nlohmann::json's exception for a
// missing or mistyped key (the caller names the file).
nlohmann::ordered_json counters_to_json(const RunCounters& counters, CountersSchema schema);
RunCounters counters_from_json(const nlohmann::json& json, CountersSchema schema);

// `trace`, `profile` and `distributed` may be null: the file then has `"trace": []`,
// `"profile": null` and `"distribute": null`.
nlohmann::ordered_json result_to_json(const Config& config, const RunEnvironment& environment,
                                      const RunResult& result,
                                      const ConvergenceTrace* trace = nullptr,
                                      const ProfileReport* profile = nullptr,
                                      const DistributedRun* distributed = nullptr);

}  // namespace chainsaw
