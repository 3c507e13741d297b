#include "core/algorithms/initial_population.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"
#include "fitness/host_fitness.hpp"

namespace chainsaw {

int initial_rows(const Config& config) {
  if (!config.initial_population || config.dim < 1) return 0;
  return static_cast<int>(static_cast<Dim>(config.initial_population->size()) / config.dim);
}

std::vector<real_t> initial_genes(const Config& config, const Problem& problem) {
  const int rows = initial_rows(config);
  const Dim dim = problem.dim;
  std::vector<real_t> genes(static_cast<std::size_t>(rows) * static_cast<std::size_t>(dim));
  const std::vector<double>& values = *config.initial_population;
  for (std::size_t k = 0; k < genes.size(); ++k) {
    const double v = values[k];
    if (!(v >= problem.lower && v <= problem.upper))
      throw UserError(fmt::format("--init: point {}, variable {} is {}, outside the domain "
                                  "[{}, {}]",
                                  k / static_cast<std::size_t>(dim),
                                  k % static_cast<std::size_t>(dim), v, problem.lower,
                                  problem.upper));
    // A value rounded to the genes' type may land just outside: keep it inside.
    genes[k] = std::clamp(static_cast<real_t>(v), static_cast<real_t>(problem.lower),
                          static_cast<real_t>(problem.upper));
  }
  return genes;
}

std::int64_t evaluate_rows_on_host(const Problem& problem, const real_t* genes, int rows,
                                   double* out) {
  if (problem.is_external()) {
    if (!problem.external->host)
      throw UserError("--init: the objective '" + problem.external->name +
                      "' has no host callback, and the given points are evaluated on the host");
    return evaluate_external_host(problem, genes, problem.dim, rows, out);
  }
  for (int r = 0; r < rows; ++r) out[r] = evaluate_host(problem, genes + static_cast<Dim>(r) * problem.dim);
  return 0;
}

void place_initial_rows(const Config& config, const Problem& problem, real_t* genes,
                        int members) {
  const std::vector<real_t> given = initial_genes(config, problem);
  CHAINSAW_EXPECTS(given.size() <= static_cast<std::size_t>(members) *
                                       static_cast<std::size_t>(problem.dim),
                   "more initial points than members");
  std::copy(given.begin(), given.end(), genes);
}

}  // namespace chainsaw
