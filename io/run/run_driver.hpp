// The one run driver (docs/design.md "How one run flows"): builds the problem and the algorithm,
// restores a checkpoint, and runs the algorithm's units with everything around them — the
// checkpoint schedule, SIGINT/SIGTERM, the progress line and callback, the convergence trace,
// the profile, islands' migration. `chainsaw run`, `resume`, each run of `--runs`, the library's
// optimize and so the Python module all run through drive_run; what they do with the outcome
// (a result file, a Result) is theirs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.hpp"
#include "core/config.hpp"
#include "core/convergence_trace.hpp"
#include "core/distributed/islands.hpp"
#include "fitness/problem.hpp"
#include "io/cli/profile_report.hpp"
#include "io/parse_value.hpp"
#include "io/results/result_json.hpp"
#include "io/run/ranks.hpp"

namespace chainsaw {

struct DriveOptions {
  std::string checkpoint;  // where this rank checkpoints; empty: none
  std::string checkpoint_flag = "--checkpoint";  // names the path in error messages
  CheckpointInterval checkpoint_every;
  // false: no checkpoint at the budget's end, only periodic and stop ones (the study runner: a
  // finished run leaves its result file instead)
  bool final_checkpoint = true;
  std::string resume_from;  // this rank's checkpoint to continue; empty: a fresh run
  std::optional<IslandState> restored_islands;  // a resumed island's migration record
  bool profile = false;        // time every pass (--profile)
  bool progress_line = false;  // the progress line on stderr
  bool catch_signals = false;  // SIGINT/SIGTERM stop the run at its next safe point
  bool best_genes = false;     // read the best individual back (the library's Result)
  bool progress_best_genes = false;  // and at every progress report (Progress::best_genes)
  std::function<bool()> stop_requested;              // true: stop at the next safe point
  std::function<void(const Progress&)> on_progress;  // after the initial population and rounds
  // At every safe point (between two units), before the checkpoint schedule: the ask/tell
  // optimiser (io/api/ask_tell.hpp) parks there and writes the checkpoints asked for.
  std::function<void(Algorithm&)> at_safe_point;
  // --runs in waves: after the set-up, before the run's clock starts; after it stopped,
  // before its memory is freed. Called once each, also when the run fails.
  std::function<void()> on_built;
  std::function<void()> on_stopped;
};

struct DrivenRun {
  RunResult result;
  ConvergenceTrace trace;
  std::optional<ProfileReport> profile;  // with DriveOptions::profile
  std::vector<real_t> best_genes;        // with DriveOptions::best_genes
  std::int64_t invalid_evaluations = 0;
  double setup_seconds = 0.0;  // the problem, the algorithm and a restored checkpoint
  // false: a signal or stop_requested ended the run before its budget and stopping rules.
  bool finished = true;
  int signal = 0;  // the signal that stopped it (the lowest any rank received); 0: none
  DistributedRun distributed;  // islands: every island's summary; the result is the best's
};

// Runs `config` (validated, its backend resolved to `backend`) on make_problem()'s problem.
// Throws UserError for what cannot run; every step that can fail on one rank fails all.
DrivenRun drive_run(const Config& config, Backend backend,
                    const std::function<Problem()>& make_problem, const DriveOptions& options,
                    const Ranks& ranks = {});

}  // namespace chainsaw
