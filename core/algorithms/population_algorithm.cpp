#include "core/algorithms/population_algorithm.hpp"

#include <cmath>
#include <limits>

#include "core/algorithms/de.hpp"
#include "core/algorithms/pso.hpp"
#include "core/algorithms/scatter_search.hpp"
#include "core/error.hpp"
#if defined(CHAINSAW_CUDA)
#include "core/engines/cuda/population_cuda.hpp"
#endif
#include "fitness/host_fitness.hpp"

namespace chainsaw {

PopulationAlgorithm::PopulationAlgorithm(const Config& config, const Problem& problem)
    : config_(config),
      problem_(problem),
      stop_(config, problem.optimum_value),
      start_(std::chrono::steady_clock::now()) {}

double PopulationAlgorithm::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void PopulationAlgorithm::initialize() {
  start_ = std::chrono::steady_clock::now();
  {
    ScopedPhase timer(timers_, Phase::kInitialization);
    initialize_population();
  }
  initialized_ = true;
  stop_.check(counters_.evaluations, best_fitness(), elapsed_seconds());
}

void PopulationAlgorithm::advance() {
  const std::int64_t left = config_.max_evaluations - counters_.evaluations;
  if (left <= 0 || stop_.stopped()) return;
  advance_unit(left);
  ++unit_;
  stop_.check(counters_.evaluations, best_fitness(), elapsed_seconds());
}

RunResult PopulationAlgorithm::run(const ProgressFn& progress, const SafePointFn& at_safe_point) {
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
    report();
  }
  return result();
}

RunResult PopulationAlgorithm::result() {
  RunResult r;
  r.best_fitness = best_fitness();
  const std::vector<real_t> best = best_genes();
  r.distance_to_optimum = host_distance_to_optimum(problem_, best.data());
  r.counters = counters_;
  r.phases = timers_;
  r.wall_seconds = elapsed_seconds();
  r.stop = stop_.record();
  return r;
}

void PopulationAlgorithm::evaluate_rows(const real_t* genes, int rows, double* out) {
  if (rows <= 0) return;
  const Dim dim = problem_.dim;
  if (problem_.is_external()) {
    ScopedBucket timer(profile_, Bucket::kFitness);
    invalid_ += evaluate_external_host(problem_, genes, dim, rows, out);
    return;
  }
  // A row per iteration; evaluate_host's own chunk loop nests inside (serially), so a row's f
  // is the same whichever thread computes it.
#pragma omp parallel for schedule(dynamic, 1) if (rows > 1)
  for (int r = 0; r < rows; ++r)
    out[r] = evaluate_row_serial(problem_, genes + static_cast<Dim>(r) * dim);
}

AlgorithmState PopulationAlgorithm::save_state() const {
  AlgorithmState s;
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
  save_arrays(s);
  return s;
}

void PopulationAlgorithm::restore_state(const AlgorithmState& s) {
  counters_ = RunCounters{};
  counters_.evaluations = integer_of(s, "evaluations");
  counters_.ga_evaluations = integer_of(s, "ga_evaluations");
  counters_.ls_evaluations = integer_of(s, "ls_evaluations");
  counters_.ls_applications = integer_of(s, "ls_applications");
  counters_.restarts = integer_of(s, "restarts");
  unit_ = integer_of(s, "unit");
  const std::vector<double>& phases =
      reals_of(s, "phase_seconds", static_cast<std::size_t>(Phase::kCount));
  for (std::size_t p = 0; p < phases.size(); ++p) timers_.set(static_cast<Phase>(p), phases[p]);
  restore_arrays(s);
  const double elapsed = reals_of(s, "elapsed_seconds", 1)[0];
  start_ = std::chrono::steady_clock::now() -
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
               std::chrono::duration<double>(elapsed));
  initialized_ = true;
  // A target reached before the checkpoint keeps its first time; the rule sees it again.
  if (integer_of(s, "target_reached") != 0) {
    stop_.check(integer_of(s, "target_evaluations"), best_fitness(),
                reals_of(s, "target_seconds", 1)[0]);
  }
}

const std::vector<real_t>& PopulationAlgorithm::genes_of(const AlgorithmState& s,
                                                         const std::string& name,
                                                         std::size_t size) {
  const auto it = s.genes.find(name);
  if (it == s.genes.end() || it->second.size() != size)
    throw UserError("the checkpoint's algorithm state has no array '" + name +
                    "' of the run's shape");
  return it->second;
}

const std::vector<double>& PopulationAlgorithm::reals_of(const AlgorithmState& s,
                                                         const std::string& name,
                                                         std::size_t size) {
  const auto it = s.reals.find(name);
  if (it == s.reals.end() || it->second.size() != size)
    throw UserError("the checkpoint's algorithm state has no array '" + name +
                    "' of the run's shape");
  return it->second;
}

std::int64_t PopulationAlgorithm::integer_of(const AlgorithmState& s, const std::string& name) {
  const auto it = s.integers.find(name);
  if (it == s.integers.end())
    throw UserError("the checkpoint's algorithm state has no value '" + name + "'");
  return it->second;
}

#if !defined(CHAINSAW_CUDA)
bool population_runs_on_cuda(const Config&, const Problem&, std::string* why) {
  if (why) *why = "this chainsaw was built without CUDA";
  return false;
}
#endif

double evaluate_row_serial(const Problem& problem, const real_t* x) {
  if (problem.is_cec2010() || problem.is_external() || problem.dim > kHostChunk)
    return evaluate_host(problem, x);
  return visit_function(problem.function, [&](auto fn) {
    using Fn = decltype(fn);
    const typename Fn::Partial p =
        accumulate_chunk<Fn>(problem.shift, 0, problem.dim, [x](Dim j) { return x[j]; });
    return finish_chunks<Fn>(&p, 1, problem.dim);
  });
}

double host_distance_to_optimum(const Problem& problem, const real_t* x) {
  if (!problem.knows_optimum()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  for (Dim j = 0; j < problem.dim; ++j) {
    const double d = static_cast<double>(x[j]) - static_cast<double>(problem.shift(j));
    sum += d * d;
  }
  return std::sqrt(sum);
}

std::unique_ptr<PopulationAlgorithm> make_population_algorithm(const Config& config,
                                                               const Problem& problem,
                                                               Backend resolved) {
  if (resolved == Backend::kCuda) {
#if defined(CHAINSAW_CUDA)
    return make_cuda_population_algorithm(config, problem);
#else
    throw UserError("--backend cuda: this chainsaw was built without CUDA");
#endif
  }
  switch (config.algorithm) {
    case Algorithm::kDe:
    case Algorithm::kJde: return std::make_unique<DifferentialEvolution>(config, problem);
    case Algorithm::kPso: return std::make_unique<ParticleSwarm>(config, problem);
    case Algorithm::kScatterSearch: return std::make_unique<ScatterSearch>(config, problem);
    default: break;
  }
  CHAINSAW_EXPECTS(false, "make_population_algorithm: MA-SW-Chains runs through MaSwChains");
  return nullptr;
}

}  // namespace chainsaw
