// `chainsaw run/resume` for what the MA-SW-Chains path of io/cli/cli.cpp does not run itself:
// a single run of DE, jDE, PSO or SS (fresh or resumed), and --runs K of any algorithm
// (docs/algorithms.md). Kept apart from cli.cpp, which calls in through two hooks.
#pragma once

#include <functional>
#include <string>

#include "core/config.hpp"
#include "io/parse_value.hpp"
#include "io/results/result_json.hpp"

namespace chainsaw {

struct AlgorithmRunOptions {
  std::string output;  // empty: stdout
  bool quiet = false;
  bool profile = false;
  std::string checkpoint;  // where checkpoints go; empty: none
  CheckpointInterval checkpoint_every;
  std::string resume_from;  // a population algorithm's checkpoint to continue
};

// One run of a population algorithm (config.algorithm is not MA-SW-Chains), config validated
// and env.backend resolved. Returns the exit code (128 + signal when interrupted).
int run_population_algorithm(const Config& config, RunEnvironment env,
                             const AlgorithmRunOptions& options,
                             const std::function<Problem()>& make_problem_fn);

// --runs K > 1: runs seeds seed .. seed + K - 1 (CPU: concurrently, a run per thread; GPU: one
// after the other) and writes one JSON with every run and the mean, sd and median of each
// quality measure. Each run equals `chainsaw run --seed s+k` bit for bit.
int run_many(const Config& config, RunEnvironment env, const AlgorithmRunOptions& options);

// `chainsaw resume` of a population algorithm's checkpoint (checkpoint_algorithm(file) is not
// ma-sw-chains). Overrides are applied as for MA-SW-Chains checkpoints.
struct AlgorithmResumeOverrides {
  std::int64_t evaluations = -1;  // < 0: the checkpoint's budget
  int threads = -1;               // < 0: the checkpoint's
  Backend backend = Backend::kAuto;
  std::string function;  // empty: no check
  Dim dim = -1;          // < 0: no check
};
int resume_population_algorithm(const std::string& file, const AlgorithmResumeOverrides& overrides,
                                AlgorithmRunOptions options);

// The summary of K runs' results (the `summary` of run_many's JSON): mean, sd (K - 1 in the
// denominator; 0 for one run) and median of each quality measure.
nlohmann::ordered_json summarize_runs(const std::vector<nlohmann::ordered_json>& runs);

}  // namespace chainsaw
