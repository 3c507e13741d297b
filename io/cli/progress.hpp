// The live progress line of `chainsaw run` on a terminal: evaluations done of the budget, best
// fitness, evaluations per second and the time left, redrawn in place at most four times a second.
#pragma once

#include <cstdio>
#include <string>

#include "core/algorithms/ma_sw_chains.hpp"

namespace chainsaw {

// "1h02m", "3m05s", "42s", or "--" when unknown.
std::string format_duration(double seconds);
// The progress line's text (no \r, no newline).
std::string format_progress(const Progress& p);

class ProgressLine {
 public:
  // Draws only when `enabled`; the caller decides (a TTY and not --quiet).
  ProgressLine(std::FILE* out, bool enabled) : out_(out), enabled_(enabled) {}
  // Ends the line so that whatever is printed next (an error, say) starts on its own line.
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const Progress& p);
  // Erases the line; the caller prints the summary in its place.
  void finish();

 private:
  static constexpr double kInterval = 0.25;  // seconds between redraws

  std::FILE* out_;
  bool enabled_;
  bool drawn_ = false;
  double last_draw_ = -1.0;
};

}  // namespace chainsaw
