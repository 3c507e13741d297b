// Stopping criteria beside the evaluation budget, for every algorithm (docs/algorithms.md):
//  --time-limit: the run's wall time (all segments of a resumed run) reaches the limit;
//  --target-error: the best f - f* reaches the target (CEC rules), recording the evaluations
//    and seconds at which it first did.
// The host loops check between units (an MA-SW-Chains crossover batch or LS application, a
// DE/jDE/PSO generation, an SS iteration), so a run stops at the end of the unit in which the
// criterion held, and the recorded evaluation count is that unit's end.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "core/config.hpp"

namespace chainsaw {

enum class StopReason { kBudget, kTimeLimit, kTargetError };

inline const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::kTimeLimit: return "time_limit";
    case StopReason::kTargetError: return "target_error";
    default: return "budget";
  }
}

struct StopRecord {
  StopReason reason = StopReason::kBudget;
  bool target_reached = false;
  std::int64_t target_evaluations = 0;  // when the target was first reached
  double target_seconds = 0.0;
};

class StopRule {
 public:
  // optimum_value: f*; NaN (a user objective without one) disables --target-error's check.
  StopRule(const Config& config, double optimum_value)
      : time_limit_(config.time_limit_seconds),
        target_(config.target_error),
        optimum_(optimum_value) {}

  // After a unit; true: stop the run now (record() says why).
  bool check(std::int64_t evaluations, double best_fitness, double elapsed_seconds) {
    if (target_ >= 0.0 && !std::isnan(optimum_) && best_fitness - optimum_ <= target_) {
      if (!record_.target_reached) {
        record_.target_reached = true;
        record_.target_evaluations = evaluations;
        record_.target_seconds = elapsed_seconds;
      }
      record_.reason = StopReason::kTargetError;
      stopped_ = true;
      return true;
    }
    if (time_limit_ > 0.0 && elapsed_seconds >= time_limit_) {
      record_.reason = StopReason::kTimeLimit;
      stopped_ = true;
      return true;
    }
    return false;
  }
  // After a run that ended at its budget: records a target reached in its last unit (a loop
  // that checks before each unit has not seen it).
  void at_end(std::int64_t evaluations, double best_fitness, double elapsed_seconds) {
    if (target_ >= 0.0 && !std::isnan(optimum_) && !record_.target_reached &&
        best_fitness - optimum_ <= target_) {
      record_.target_reached = true;
      record_.target_evaluations = evaluations;
      record_.target_seconds = elapsed_seconds;
      record_.reason = StopReason::kTargetError;
    }
  }
  bool stopped() const { return stopped_; }
  const StopRecord& record() const { return record_; }

 private:
  double time_limit_;
  double target_;
  double optimum_;
  StopRecord record_;
  bool stopped_ = false;
};

}  // namespace chainsaw
