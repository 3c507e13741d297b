#include "io/checkpoint/checkpoint_schedule.hpp"

#include <optional>
#include <utility>

#include <fmt/format.h>

#include "core/distributed/agreement.hpp"
#include "core/error.hpp"
#include "io/checkpoint/checkpoint.hpp"

namespace chainsaw {

CheckpointSchedule::CheckpointSchedule(std::string flag, std::string path,
                                       CheckpointInterval every, Backend backend,
                                       std::function<bool()> stop_requested,
                                       KernelProfile* profile)
    : flag_(std::move(flag)), path_(std::move(path)), every_(every), backend_(backend),
      stop_requested_(std::move(stop_requested)), profile_(profile),
      last_time_(std::chrono::steady_clock::now()) {}

void CheckpointSchedule::distribute(Communicator* comm, const Islands* islands) {
  comm_ = comm;
  islands_ = islands;
}

bool CheckpointSchedule::at_safe_point(Algorithm& algorithm) {
  bool stop = stop_requested_ && stop_requested_();
  if (comm_) stop = comm_->any(stop);  // a signal may reach the ranks at different units
  if (stop) {
    if (!path_.empty()) write_or_stop(algorithm, "signal");
    return false;
  }
  if (path_.empty()) return true;
  if (algorithm.next_unit_cut_by_budget()) {
    // The last unit is cut at the budget: checkpoint before it, so that a resume with a
    // larger budget continues exactly as a run that had the larger budget from the start.
    if (!final_written_) write_or_stop(algorithm, "final");
    final_written_ = true;
  } else if (due(algorithm)) {
    write_or_stop(algorithm, "periodic");
  }
  return true;
}

void CheckpointSchedule::at_end(Algorithm& algorithm) {
  if (!path_.empty() && !final_written_) write_or_stop(algorithm, "final");
}

bool CheckpointSchedule::due(const Algorithm& algorithm) const {
  if (every_.evaluations > 0 &&
      algorithm.counters().evaluations - last_evaluations_ >= every_.evaluations)
    return true;  // the same on every rank: their evaluation counts move in step
  if (!(every_.seconds > 0.0)) return false;
  const bool late =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - last_time_).count() >=
      every_.seconds;
  return comm_ ? comm_->any(late) : late;  // each rank's clock: agree
}

void CheckpointSchedule::write_or_stop(Algorithm& algorithm, const char* reason) {
  try {
    write(algorithm, reason);
  } catch (const UserError& e) {
    const std::string kept =
        last_good_evaluations_ < 0
            ? fmt::format("{} keeps what it held before (this run wrote no checkpoint yet)",
                          path_)
            : fmt::format("{} keeps the last good checkpoint, at {} evaluations", path_,
                          last_good_evaluations_);
    throw UserError(fmt::format("{}; the run stops, {}", e.what(), kept));
  }
  last_good_evaluations_ = algorithm.counters().evaluations;
}

void CheckpointSchedule::write(Algorithm& algorithm, const char* reason) {
  const auto start = std::chrono::steady_clock::now();
  {
    NvtxRange range(phase_name(Phase::kCheckpoint));
    const IslandState* islands = islands_ ? &islands_->state() : nullptr;
    if (!comm_ || !islands_) {
      // One process, or a sharded run's one file: the writer agrees across the ranks.
      write_checkpoint(flag_, path_, algorithm, backend_, reason, islands);
    } else {
      // A failed write on one rank leaves every rank's last good file in place: the set stays
      // one consistent point of the run.
      std::optional<StagedFile> staged;
      agree(*comm_, [&] {
        staged.emplace(stage_checkpoint(flag_, path_, algorithm, backend_, reason, islands));
      });
      agree(*comm_, [&] { staged->commit(); });
    }
  }
  last_time_ = std::chrono::steady_clock::now();
  last_evaluations_ = algorithm.counters().evaluations;
  const double seconds = std::chrono::duration<double>(last_time_ - start).count();
  algorithm.add_phase_time(Phase::kCheckpoint, seconds);
  if (profile_) profile_->add(Bucket::kCheckpointIo, seconds);
}

}  // namespace chainsaw
