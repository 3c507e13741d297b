// The best fitness against evaluations and seconds (the result file's `trace`, the experiment
// runner's convergence curves). A point per progress report — one per round of the host loop,
// i.e. per Solis-Wets application — thinned to a bounded size: when kMaxPoints are held every
// other point is dropped and from then on only every other report is kept, so a curve keeps
// its shape and a 500,000-evaluation run its few kilobytes. The last report is always kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/algorithms/ma_sw_chains.hpp"

namespace chainsaw {

class ConvergenceTrace {
 public:
  static constexpr std::size_t kMaxPoints = 256;

  struct Point {
    std::int64_t evaluations = 0;
    double seconds = 0.0;  // since the run started (a resumed run: all segments)
    double best_fitness = 0.0;
  };

  void add(const Progress& p) {
    last_ = {p.evaluations, p.elapsed_seconds, p.best_fitness};
    has_last_ = true;
    if (reports_++ % stride_ != 0) return;
    points_.push_back(last_);
    if (points_.size() >= kMaxPoints) {
      std::size_t kept = 0;
      for (std::size_t i = 0; i < points_.size(); i += 2) points_[kept++] = points_[i];
      points_.resize(kept);
      stride_ *= 2;
    }
  }
  // Reports seen: the initial population's, then one per round (generation, iteration).
  std::int64_t reports() const { return static_cast<std::int64_t>(reports_); }
  // The points, the last report included.
  std::vector<Point> points() const {
    std::vector<Point> out = points_;
    if (has_last_ && (out.empty() || out.back().evaluations != last_.evaluations))
      out.push_back(last_);
    return out;
  }

 private:
  std::vector<Point> points_;
  Point last_;
  bool has_last_ = false;
  std::int64_t reports_ = 0;
  std::int64_t stride_ = 1;
};

}  // namespace chainsaw
