#include "io/cli/progress.hpp"

#include <cmath>

#include <fmt/format.h>

namespace chainsaw {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0.0) return "--";
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

std::string format_progress(const Progress& p) {
  const double rate = p.elapsed_seconds > 0.0 ? static_cast<double>(p.evaluations) / p.elapsed_seconds
                                              : 0.0;
  const double eta = rate > 0.0 ? static_cast<double>(p.budget - p.evaluations) / rate : -1.0;
  const double percent =
      p.budget > 0 ? 100.0 * static_cast<double>(p.evaluations) / static_cast<double>(p.budget) : 0.0;
  return fmt::format("{}/{} evals ({:.1f}%)  best {:.6e}  {:.0f} evals/s  ETA {}", p.evaluations,
                     p.budget, percent, p.best_fitness, rate, format_duration(eta));
}

void ProgressLine::update(const Progress& p) {
  if (!enabled_) return;
  const bool last = p.evaluations >= p.budget;
  if (!last && drawn_ && p.elapsed_seconds - last_draw_ < kInterval) return;
  last_draw_ = p.elapsed_seconds;
  // \033[K clears what a longer previous line left to the right.
  std::fprintf(out_, "\r%s\033[K", format_progress(p).c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (!drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace chainsaw
