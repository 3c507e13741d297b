#include "localsearch/mts_ls1.hpp"

#include <algorithm>
#include <numeric>

#include "core/algorithms/population_ops.hpp"

namespace chainsaw {

real_t mts_moved_gene(real_t gene, double step, double lower, double upper) {
  const double moved = static_cast<double>(gene) + step;
  return static_cast<real_t>(std::min(upper, std::max(lower, moved)));
}

namespace {

// One variable's tries on x (trial is x's copy and is x's copy again afterwards): the
// improvement (0 if none), with x and fx updated when there is one.
struct VariableSearch {
  const EvaluateOne& evaluate;
  real_t* x;
  double& fx;
  std::vector<real_t>& trial;
  double lower, upper;
  std::int64_t used = 0, budget = 0;

  // f with gene i of the trial at `value`; keeps the trial when better.
  bool try_value(Dim i, real_t value) {
    trial[i] = value;
    const double f = evaluate(trial.data());
    ++used;
    if (f < fx) {
      fx = f;
      x[i] = value;
      return true;
    }
    trial[i] = x[i];
    last_worse = f > fx;
    return false;
  }
  double improve(Dim i, double sr) {
    const double before = fx;
    last_worse = false;
    if (try_value(i, mts_moved_gene(x[i], -sr, lower, upper))) return before - fx;
    // Equal is no reason to look the other way (the authors' rule).
    if (last_worse && used < budget && try_value(i, mts_moved_gene(x[i], 0.5 * sr, lower, upper)))
      return before - fx;
    return 0.0;
  }
  bool last_worse = false;
};

// Variables by improvement, largest first; ties by index (a fixed rule keeps runs reproducible).
void order_by_improvement(std::vector<Dim>& order, const std::vector<double>& improvement) {
  std::iota(order.begin(), order.end(), Dim{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](Dim a, Dim b) { return improvement[a] > improvement[b]; });
}

}  // namespace

MtsLs1Outcome mts_ls1(const EvaluateOne& evaluate, real_t* x, double& fx, Dim dim,
                      std::vector<double>& sr, std::int64_t budget, std::uint64_t key,
                      double lower, double upper, double first_step) {
  const double start = fx;
  std::vector<real_t> trial(x, x + dim);
  VariableSearch search{evaluate, x, fx, trial, lower, upper};
  search.budget = budget;
  std::vector<double> improvement(static_cast<std::size_t>(dim), 0.0);
  // The first pass: a random order (Fisher-Yates on the keyed stream).
  std::vector<Dim> order(static_cast<std::size_t>(dim));
  std::iota(order.begin(), order.end(), Dim{0});
  for (Dim j = dim - 1; j > 0; --j)
    std::swap(order[j], order[below_from(u64_at(key, static_cast<std::uint64_t>(j)),
                                         static_cast<std::uint32_t>(j + 1))]);
  for (Dim k = 0; k < dim && search.used < budget; ++k) {
    const Dim i = order[k];
    improvement[i] = search.improve(i, sr[i]);
    if (improvement[i] == 0.0) sr[i] *= 0.5;
  }
  // Then by improvement: stay on a variable while it improves, unless the next has improved
  // more (the order is sorted again); a failure halves SR_i and moves on.
  order_by_improvement(order, improvement);
  Dim d = 0;
  while (search.used < budget) {
    const Dim i = order[d];
    improvement[i] = search.improve(i, sr[i]);
    const Dim next = (d + 1) % dim;
    if (improvement[i] > 0.0) {
      if (improvement[i] < improvement[order[next]]) order_by_improvement(order, improvement);
    } else {
      sr[i] *= 0.5;
      d = next;
    }
  }
  for (double& s : sr)
    if (s < 1e-15) s = first_step;
  return {search.used, start - fx};
}

}  // namespace chainsaw
