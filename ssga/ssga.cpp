#include "ssga/ssga.hpp"

#include <algorithm>
#include <vector>

#include "ssga/bga_mutation.hpp"

namespace chainsaw {

void draw_mating_candidates(int population_size, int count, CounterRng& rng, int& mother_rank,
                            int* candidate_ranks) {
  mother_rank = static_cast<int>(rng.below(static_cast<std::uint64_t>(population_size)));
  for (int k = 0; k < count; ++k) {
    int rank;
    bool taken;
    do {  // rejection: count <= population_size - 1 (Config::validate), so this terminates fast
      rank = static_cast<int>(rng.below(static_cast<std::uint64_t>(population_size)));
      taken = rank == mother_rank || std::find(candidate_ranks, candidate_ranks + k, rank) !=
                                         candidate_ranks + k;
    } while (taken);
    candidate_ranks[k] = rank;
  }
}

std::int64_t ssga_batch(SsgaContext& ctx, int children) {
  const int n = ctx.population.size();
  const int cands = ctx.config.nam_candidates;
  std::vector<int> candidates(static_cast<size_t>(children) * cands);
  std::vector<ChildSpec> specs(static_cast<size_t>(children));
  {
    // Every draw comes before the distances (the father takes none): all mating candidates,
    // then each child's mutation.
    ScopedPhase timer(ctx.timers, Phase::kSelection);
    std::vector<int> ranks(static_cast<size_t>(cands));
    for (int c = 0; c < children; ++c) {
      int mother_rank;
      draw_mating_candidates(n, cands, ctx.rng, mother_rank, ranks.data());
      specs[c].mother = ctx.population.member(mother_rank);
      for (int k = 0; k < cands; ++k) candidates[c * cands + k] = ctx.population.member(ranks[k]);
    }
    for (int c = 0; c < children; ++c) {
      ChildSpec& spec = specs[c];
      spec.slot = ctx.population.padding_slot(c);
      if (ctx.rng.bernoulli(ctx.config.mutation_probability)) {
        spec.mutated_gene =
            static_cast<Dim>(ctx.rng.below(static_cast<std::uint64_t>(ctx.problem.dim)));
        spec.mutation_step = bga_step(ctx.rng, ctx.problem.width());
      }
    }
  }
  std::vector<double> fitness(static_cast<size_t>(children));
  ctx.engine.make_nam_children(specs.data(), candidates.data(), cands, children, fitness.data(),
                               &ctx.timers);
  for (int c = 0; c < children; ++c) {
    ctx.population.fitness(specs[c].slot) = fitness[c];
    ctx.population.chain(specs[c].slot) = ChainRecord{};  // a new individual: no chain yet
  }
  {
    ScopedPhase timer(ctx.timers, Phase::kSort);
    ctx.engine.sort_slots(ctx.population.order().data());
  }
  return children;
}

std::int64_t ssga_phase(SsgaContext& ctx, std::int64_t evaluations) {
  std::int64_t spent = 0;
  while (spent < evaluations) {
    const auto children =
        static_cast<int>(std::min<std::int64_t>(ctx.population.batch(), evaluations - spent));
    spent += ssga_batch(ctx, children);
  }
  return spent;
}

}  // namespace chainsaw
