// When a run writes checkpoints (`--checkpoint`, `--checkpoint-every`; Options::checkpoint and
// checkpoint_every in the library): called by the host loop between units, it writes a periodic
// checkpoint when one is due, the final one before a unit that the budget cuts short (so that a
// resume with a larger budget continues exactly like a longer run), and one when asked to stop.
// The one schedule of every algorithm and entry point (the run driver, io/run/run_driver.hpp).
// A checkpoint that cannot be written ends the run (UserError): the file keeps its last good
// checkpoint, and a run that went on would go on without the protection it was asked to have.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "core/distributed/communicator.hpp"
#include "core/config.hpp"
#include "core/distributed/islands.hpp"
#include "core/algorithms/algorithm.hpp"
#include "core/profiling.hpp"
#include "io/parse_value.hpp"

namespace chainsaw {

class CheckpointSchedule {
 public:
  // path empty: no checkpoints. stop_requested (may be empty): true stops the run at the next
  // safe point, after a checkpoint there. flag names the path in error messages.
  // profile (may be null, --profile): the writes are added to its checkpoint I/O bucket.
  CheckpointSchedule(std::string flag, std::string path, CheckpointInterval every,
                     Backend backend, std::function<bool()> stop_requested = {},
                     KernelProfile* profile = nullptr);

  // A distributed run: every decision (stop, a periodic checkpoint by time) is agreed by all
  // ranks, so that they stop and write at the same unit, and every rank's file is staged
  // before any is committed. islands (may be null): the migration record each file keeps.
  // From then on at_safe_point and at_end are collective.
  void distribute(Communicator* comm, const Islands* islands);

  // Writes no final checkpoint (before the unit the budget cuts, or at the end): only periodic
  // ones and the one when asked to stop.
  void skip_final() { final_written_ = true; }

  // For Algorithm::run's SafePointFn: false stops the run.
  bool at_safe_point(Algorithm& algorithm);
  // After a run that reached its budget: the final checkpoint, unless written already.
  void at_end(Algorithm& algorithm);

 private:
  bool due(const Algorithm& algorithm) const;
  void write(Algorithm& algorithm, const char* reason);
  void write_or_stop(Algorithm& algorithm, const char* reason);

  std::string flag_;
  std::string path_;
  CheckpointInterval every_;
  Backend backend_;
  std::function<bool()> stop_requested_;
  KernelProfile* profile_;
  Communicator* comm_ = nullptr;
  const Islands* islands_ = nullptr;
  std::chrono::steady_clock::time_point last_time_;
  std::int64_t last_evaluations_ = 0;
  bool final_written_ = false;
  std::int64_t last_good_evaluations_ = -1;  // this run's last checkpoint; -1: none yet
};

}  // namespace chainsaw
