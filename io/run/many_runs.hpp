// --runs K: K runs of one configuration, seeds s .. s+K-1, concurrently (CPU: a run per
// thread; GPU: a stream each), each through the run driver (io/run/run_driver.hpp), gathered
// into one result file with the mean, sd and median of each quality measure
// (docs/algorithms.md).
#pragma once

#include <functional>
#include <string>

#include "core/config.hpp"
#include "io/parse_value.hpp"
#include "io/results/result_json.hpp"

namespace chainsaw {

struct RunsOptions {
  std::string output;  // empty: stdout
  bool quiet = false;
  bool profile = false;
};

// --runs K > 1: runs seeds seed .. seed + K - 1 (CPU: concurrently, a run per thread; GPU: one
// after the other) and writes one JSON with every run and the mean, sd and median of each
// quality measure. Each run equals `chainsaw run --seed s+k --problem-seed p` bit for bit, p the
// first run's problem seed (--problem-seed, or s); with --vary-instance p = s+k.
int run_many(const Config& config, RunEnvironment env, const RunsOptions& options);

// The summary of K runs' results (the `summary` of run_many's JSON): mean, sd (K - 1 in the
// denominator; 0 for one run) and median of each quality measure.
nlohmann::ordered_json summarize_runs(const std::vector<nlohmann::ordered_json>& runs);

}  // namespace chainsaw
