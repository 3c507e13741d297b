#include "core/algorithms/population_algorithm.hpp"

#include <cmath>
#include <limits>

#include "core/algorithms/de.hpp"
#include "core/algorithms/initial_population.hpp"
#include "core/algorithms/mts_ls1.hpp"
#include "core/algorithms/pso.hpp"
#include "core/algorithms/scatter_search.hpp"
#include "core/algorithms/sep_cma_es.hpp"
#include "core/algorithms/shade.hpp"
#include "core/algorithms/shade_ils.hpp"
#include "localsearch/lbfgsb.hpp"
#include "core/error.hpp"
#if defined(CHAINSAW_CUDA)
#include "core/engines/cuda/population_cuda.hpp"
#endif
#include "fitness/host_fitness.hpp"

namespace chainsaw {

PopulationAlgorithm::PopulationAlgorithm(const Config& config, const Problem& problem)
    : Algorithm(config, problem) {}

void PopulationAlgorithm::initialize_population() {
  ScopedPhase timer(timers_, Phase::kInitialization);
  initialize_members();
}

RunResult PopulationAlgorithm::result() {
  RunResult r = Algorithm::result();
  r.milestones = milestones_;
  const std::vector<real_t> best = best_genes();
  r.distance_to_optimum = host_distance_to_optimum(problem_, best.data());
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

void PopulationAlgorithm::count_ga_evaluations(const double* fitness, int rows) {
  record_milestones(fitness, rows);
  counters_.evaluations += rows;
  counters_.ga_evaluations += rows;
}

void PopulationAlgorithm::evaluate_ls_rows(const real_t* genes, int rows, double* out) {
  evaluate_rows(genes, rows, out);
  record_milestones(out, rows);
  counters_.evaluations += rows;
  counters_.ls_evaluations += rows;
}

void PopulationAlgorithm::record_milestones(const double* fitness, int rows) {
  const std::int64_t before = counters_.evaluations;
  auto mark = config_.milestones.begin();
  while (mark != config_.milestones.end() && *mark <= before) ++mark;
  for (int r = 0; r < rows; ++r) {
    if (fitness[r] < best_evaluated_) best_evaluated_ = fitness[r];
    if (mark != config_.milestones.end() && *mark == before + r + 1) {
      milestones_.push_back({*mark, elapsed_seconds(), best_evaluated_});
      ++mark;
    }
  }
}

AlgorithmState PopulationAlgorithm::save_state() const {
  AlgorithmState s;
  save_common_state(s);
  save_arrays(s);
  return s;
}

void PopulationAlgorithm::restore_state(const AlgorithmState& s) {
  restore_common_state(s);
  restore_arrays(s);
  restore_stop_record(s);
  best_evaluated_ = best_fitness();
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
  if (!problem.optimum_position_known()) return std::numeric_limits<double>::quiet_NaN();
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
  CHAINSAW_EXPECTS(resolved != Backend::kCuda || !runs_on_cpu_only(config.algorithm),
                   "make_population_algorithm: a CPU-only algorithm resolved to CUDA");
  if (resolved == Backend::kCuda) {
    if (initial_rows(config) > 0)
      throw UserError(std::string("--init: ") + algorithm_name(config.algorithm) +
                      " starts from given points on the CPU backend only (--backend cpu)");
#if defined(CHAINSAW_CUDA)
    return make_cuda_population_algorithm(config, problem);
#else
    throw UserError("--backend cuda: this chainsaw was built without CUDA");
#endif
  }
  switch (config.algorithm) {
    case AlgorithmKind::kDe:
    case AlgorithmKind::kJde: return std::make_unique<DifferentialEvolution>(config, problem);
    case AlgorithmKind::kPso: return std::make_unique<ParticleSwarm>(config, problem);
    case AlgorithmKind::kScatterSearch: return std::make_unique<ScatterSearch>(config, problem);
    case AlgorithmKind::kSepCmaEs: return std::make_unique<SepCmaEs>(config, problem);
    case AlgorithmKind::kShade:
    case AlgorithmKind::kLshade: return std::make_unique<Shade>(config, problem);
    case AlgorithmKind::kMtsLs1: return std::make_unique<MtsLs1>(config, problem);
    case AlgorithmKind::kShadeIls:
      if (!lbfgsb_available())
        throw UserError("--algorithm shade-ils: this chainsaw was built without L-BFGS-B "
                        "(Debian: liblbfgsb-dev)");
      return std::make_unique<ShadeIls>(config, problem);
    default: break;
  }
  CHAINSAW_EXPECTS(false, "make_population_algorithm: MA-SW-Chains runs through MaSwChains");
  return nullptr;
}

}  // namespace chainsaw
