#include "core/algorithms/algorithm.hpp"

#include "core/error.hpp"

namespace chainsaw {

Algorithm::Algorithm(const Config& config, const Problem& problem)
    : config_(config),
      problem_(problem),
      stop_(config, problem.optimum_value),
      start_(std::chrono::steady_clock::now()) {}

double Algorithm::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Algorithm::set_elapsed_seconds(double seconds) {
  start_ = std::chrono::steady_clock::now() -
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(seconds));
}

bool Algorithm::done() const {
  return counters_.evaluations >= config_.max_evaluations || stop_.stopped();
}

void Algorithm::check_stop() {
  if (stop_enabled_) stop_.check(counters_.evaluations, best_fitness(), elapsed_seconds());
}

void Algorithm::initialize() {
  start_ = std::chrono::steady_clock::now();
  initialize_population();
  initialized_ = true;
  check_stop();
}

void Algorithm::advance() {
  const std::int64_t left = config_.max_evaluations - counters_.evaluations;
  if (left <= 0 || stop_.stopped()) return;
  advance_unit(left);
  ++unit_;
  check_stop();
}

RunResult Algorithm::run(const ProgressFn& progress, const SafePointFn& at_safe_point) {
  if (!initialized_) initialize();
  auto report = [&] {
    if (!progress) return;
    Progress p;
    p.evaluations = counters_.evaluations;
    p.budget = config_.max_evaluations;
    p.best_fitness = best_fitness();
    p.elapsed_seconds = elapsed_seconds();
    progress(p);
  };
  report();
  while (!done()) {
    if (at_safe_point && !at_safe_point(*this)) break;
    advance();
    if (at_progress_point() || done()) report();
  }
  return result();
}

RunResult Algorithm::result() {
  RunResult r;
  r.best_fitness = best_fitness();
  r.counters = counters_;
  r.phases = timers_;
  r.wall_seconds = elapsed_seconds();
  r.stop = stop_.record();
  return r;
}

void Algorithm::save_common_state(AlgorithmState& s) const {
  s.integers["evaluations"] = counters_.evaluations;
  s.integers["ga_evaluations"] = counters_.ga_evaluations;
  s.integers["ls_evaluations"] = counters_.ls_evaluations;
  s.integers["ls_applications"] = counters_.ls_applications;
  s.integers["restarts"] = counters_.restarts;
  s.integers["unit"] = unit_;
  s.integers["target_reached"] = stop_.record().target_reached ? 1 : 0;
  s.integers["target_evaluations"] = stop_.record().target_evaluations;
  s.reals["target_seconds"] = {stop_.record().target_seconds};
  s.reals["elapsed_seconds"] = {elapsed_seconds()};
  std::vector<double> phases;
  for (std::size_t p = 0; p < static_cast<std::size_t>(Phase::kCount); ++p)
    phases.push_back(timers_.seconds(static_cast<Phase>(p)));
  s.reals["phase_seconds"] = phases;
}

void Algorithm::restore_common_state(const AlgorithmState& s) {
  counters_ = RunCounters{};
  counters_.evaluations = state_integer(s, "evaluations");
  counters_.ga_evaluations = state_integer(s, "ga_evaluations");
  counters_.ls_evaluations = state_integer(s, "ls_evaluations");
  counters_.ls_applications = state_integer(s, "ls_applications");
  counters_.restarts = state_integer(s, "restarts");
  unit_ = state_integer(s, "unit");
  const std::vector<double>& phases =
      state_reals(s, "phase_seconds", static_cast<std::size_t>(Phase::kCount));
  for (std::size_t p = 0; p < phases.size(); ++p) timers_.set(static_cast<Phase>(p), phases[p]);
  set_elapsed_seconds(state_reals(s, "elapsed_seconds", 1)[0]);
  initialized_ = true;
}

// A target reached before the checkpoint keeps its first time; the rule sees it again.
void Algorithm::restore_stop_record(const AlgorithmState& s) {
  if (state_integer(s, "target_reached") != 0)
    stop_.check(state_integer(s, "target_evaluations"), best_fitness(),
                state_reals(s, "target_seconds", 1)[0]);
}

const std::vector<real_t>& state_genes(const AlgorithmState& s, const std::string& name,
                                       std::size_t size) {
  const auto it = s.genes.find(name);
  if (it == s.genes.end() || it->second.size() != size)
    throw UserError("the checkpoint's algorithm state has no array '" + name +
                    "' of the run's shape");
  return it->second;
}

const std::vector<double>& state_reals(const AlgorithmState& s, const std::string& name,
                                       std::size_t size) {
  const auto it = s.reals.find(name);
  if (it == s.reals.end() || it->second.size() != size)
    throw UserError("the checkpoint's algorithm state has no array '" + name +
                    "' of the run's shape");
  return it->second;
}

std::int64_t state_integer(const AlgorithmState& s, const std::string& name) {
  const auto it = s.integers.find(name);
  if (it == s.integers.end())
    throw UserError("the checkpoint's algorithm state has no value '" + name + "'");
  return it->second;
}

}  // namespace chainsaw
