#include "localsearch/ls_chain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace chainsaw {

LsChoice choose_ls_individual(const Population& population, CounterRng& rng) {
  for (int rank = 0; rank < population.size(); ++rank) {
    const int slot = population.member(rank);
    if (!population.chain(slot).ls_failed) return {slot, true};
  }
  const auto rank = static_cast<int>(rng.below(static_cast<std::uint64_t>(population.size())));
  return {population.member(rank), false};
}

bool improved_by_threshold(double before, double after, double delta) {
  return after < before && (before - after) >= delta * std::fabs(after);
}

namespace {

// The first rho of a new chain from d, the Euclidean distance to the nearest other member
// (a distinct point; none: rho0). Both rules take half of d, spread over the genes:
//  - reference: d / D, as the reference code's distance is the norm divided by D
//    (Rmalschains' distreal), and at most rho0 (its setDelta(0.2)). The step of a chain then
//    shrinks with the dimension and with the population's convergence.
//  - nearest-rms: d / sqrt(D), the per-gene root mean square, so that a step of rho per gene has
//    about half the length of d; at most a tenth of the domain width.
double nearest_member_rho(LsContext& ctx, int slot) {
  const int n = ctx.population.size();
  std::vector<int> from, to;
  for (int rank = 0; rank < n; ++rank) {
    const int other = ctx.population.member(rank);
    if (other == slot) continue;
    from.push_back(slot);
    to.push_back(other);
  }
  std::vector<double> d(from.size());
  {
    ScopedPhase timer(ctx.timers, Phase::kDistances);
    ctx.engine.distances(from.data(), to.data(), static_cast<int>(from.size()), d.data());
  }
  double nearest = std::numeric_limits<double>::infinity();
  for (double v : d)
    if (v > 0.0) nearest = std::min(nearest, v);
  const double rho0 = ctx.config.solis_wets.rho0;
  if (!std::isfinite(nearest)) return rho0;
  const auto dim = static_cast<double>(ctx.problem.dim);
  if (ctx.config.rho_init == RhoInit::kReference) return std::min(0.5 * nearest / dim, rho0);
  return std::min(0.5 * nearest / std::sqrt(dim), 0.1 * ctx.problem.width());
}

}  // namespace

LsApplication apply_local_search(LsContext& ctx, int slot, std::int64_t evaluations) {
  ChainRecord& record = ctx.population.chain(slot);
  LocalSearchRequest request;
  request.slot = slot;
  request.fitness = ctx.population.fitness(slot);
  request.continue_chain = record.has_chain;
  request.evaluations = evaluations;
  if (record.has_chain) {
    request.state = record.state;
  } else {
    request.state = SolisWetsState{};
    request.state.rho = ctx.config.rho_init == RhoInit::kFixed ? ctx.config.solis_wets.rho0
                                                               : nearest_member_rho(ctx, slot);
  }

  LocalSearchResult result;
  {
    ScopedPhase timer(ctx.timers, Phase::kLocalSearch);
    result = ctx.engine.solis_wets(request);
  }

  LsApplication app;
  app.slot = slot;
  app.fitness_before = request.fitness;
  app.fitness_after = result.fitness;
  app.evaluations = result.evaluations;
  app.chain_continues =
      improved_by_threshold(request.fitness, result.fitness, ctx.config.ls_improvement_threshold);
  ctx.population.fitness(slot) = result.fitness;
  if (app.chain_continues) {
    record.has_chain = true;
    record.ls_failed = false;
    record.state = result.state;
  } else {
    record = ChainRecord{};
    record.ls_failed = true;
  }
  {
    ScopedPhase timer(ctx.timers, Phase::kSort);
    ctx.engine.sort_slots(ctx.population.order().data());
  }
  return app;
}

}  // namespace chainsaw
