// Wall time per phase of the algorithm (the paper's Table 14 buckets), on the host's steady
// clock. Every engine call is synchronous from the host's point of view, so host time around it
// is the phase's time on either backend.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>

namespace chainsaw {

enum class Phase : std::size_t {
  kInitialization,  // random genes and their first evaluation
  kDistances,       // NAM distances
  kCrossover,       // BLX-alpha + BGA + the children's evaluation (fused)
  kLocalSearch,     // Solis-Wets moves and their evaluations
  kSort,            // index sort of (fitness, slot)
  kSelection,       // host decisions: parents, mutation draws, the LS individual
  kCheckpoint,      // writing checkpoints
  kCount
};

inline const char* phase_name(Phase p) {
  static constexpr const char* names[] = {"initialization", "distances", "crossover",
                                          "local_search",   "sort",      "selection",
                                          "checkpoint_io"};
  return names[static_cast<std::size_t>(p)];
}

class PhaseTimers {
 public:
  void add(Phase p, double seconds) { seconds_[static_cast<std::size_t>(p)] += seconds; }
  void set(Phase p, double seconds) { seconds_[static_cast<std::size_t>(p)] = seconds; }
  double seconds(Phase p) const { return seconds_[static_cast<std::size_t>(p)]; }
  double total() const {
    double t = 0.0;
    for (double s : seconds_) t += s;
    return t;
  }

 private:
  std::array<double, static_cast<std::size_t>(Phase::kCount)> seconds_{};
};

class ScopedPhase {
 public:
  ScopedPhase(PhaseTimers& timers, Phase phase)
      : timers_(timers), phase_(phase), start_(std::chrono::steady_clock::now()) {}
  ~ScopedPhase() {
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
    timers_.add(phase_, d.count());
  }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  PhaseTimers& timers_;
  Phase phase_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace chainsaw
