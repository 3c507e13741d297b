#include "io/checkpoint_schedule.hpp"

#include <utility>

#include "io/checkpoint.hpp"

namespace chainsaw {

CheckpointSchedule::CheckpointSchedule(std::string flag, std::string path,
                                       CheckpointInterval every, Backend backend,
                                       std::function<bool()> stop_requested,
                                       KernelProfile* profile)
    : flag_(std::move(flag)), path_(std::move(path)), every_(every), backend_(backend),
      stop_requested_(std::move(stop_requested)), profile_(profile),
      last_time_(std::chrono::steady_clock::now()) {}

namespace {
// A sharded run's ranks must write and stop together, but a signal or a clock is seen by each
// rank on its own: they act when any of them says so.
bool agreed(MaSwChains& algorithm, bool mine) {
  Communicator* comm = algorithm.engine().shard().comm;
  return comm == nullptr ? mine : comm->any(mine);
}
}  // namespace

bool CheckpointSchedule::at_safe_point(MaSwChains& algorithm) {
  if (stop_requested_ && agreed(algorithm, stop_requested_())) {
    if (!path_.empty()) write(algorithm, "signal");
    return false;
  }
  if (path_.empty()) return true;
  if (algorithm.next_unit_cut_by_budget()) {
    // The last unit is cut at the budget: checkpoint before it, so that a resume with a
    // larger budget continues exactly as a run that had the larger budget from the start.
    if (!final_written_) write(algorithm, "final");
    final_written_ = true;
  } else if (agreed(algorithm, due(algorithm))) {
    write(algorithm, "periodic");
  }
  return true;
}

void CheckpointSchedule::at_end(MaSwChains& algorithm) {
  if (!path_.empty() && !final_written_) write(algorithm, "final");
}

bool CheckpointSchedule::due(const MaSwChains& algorithm) const {
  if (every_.evaluations > 0 &&
      algorithm.counters().evaluations - last_evaluations_ >= every_.evaluations)
    return true;
  return every_.seconds > 0.0 &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - last_time_).count() >=
             every_.seconds;
}

void CheckpointSchedule::write(MaSwChains& algorithm, const char* reason) {
  const auto start = std::chrono::steady_clock::now();
  {
    NvtxRange range(phase_name(Phase::kCheckpoint));
    write_checkpoint(flag_, path_, algorithm, backend_, reason);
  }
  last_time_ = std::chrono::steady_clock::now();
  last_evaluations_ = algorithm.counters().evaluations;
  const double seconds = std::chrono::duration<double>(last_time_ - start).count();
  algorithm.add_phase_time(Phase::kCheckpoint, seconds);
  if (profile_) profile_->add(Bucket::kCheckpointIo, seconds);
}

}  // namespace chainsaw
