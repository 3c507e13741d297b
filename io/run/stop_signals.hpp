// SIGINT and SIGTERM stop a run at its next safe point, where a checkpoint is written; a second
// signal ends the process at once (exit 128 + signal) with a line on stderr, removing the
// temporary file of a checkpoint being written. One StopSignals at a time, for the run in
// progress.
#pragma once

#include <csignal>

namespace chainsaw {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // The signal received since construction; 0: none.
  int received() const;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace chainsaw
