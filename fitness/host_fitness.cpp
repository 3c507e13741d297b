#include "fitness/host_fitness.hpp"

#include "core/error.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"

namespace chainsaw {

namespace {
void call_host_objective(const Problem& problem, const real_t* genes, Dim pitch, int rows,
                         double* out) {
  const BatchObjective& o = *problem.external;
  if (!o.host)
    throw UserError("objective '" + o.name +
                    "' has no host callback: it runs on the GPU backend only");
  o.host(genes, pitch, rows, problem.dim, out);
}
}  // namespace

std::int64_t evaluate_external_host(const Problem& problem, const real_t* genes, Dim pitch,
                                    int rows, double* out) {
  call_host_objective(problem, genes, pitch, rows, out);
  std::int64_t invalid = 0;
  for (int r = 0; r < rows; ++r) {
    invalid += is_invalid_fitness(out[r]) ? 1 : 0;
    out[r] = rankable_fitness(out[r]);
  }
  return invalid;
}

double evaluate_host(const Problem& problem, const real_t* x) {
  if (problem.is_cec2010()) return evaluate_cec2010_host(problem, x);
  if (problem.is_external()) {
    double f = 0.0;
    call_host_objective(problem, x, problem.dim, 1, &f);
    return f;
  }
  return visit_function(problem.function, [&](auto fn) {
    using Fn = decltype(fn);
    return reduce_host_chunks<Fn>(problem.dim, [&](Dim begin, Dim end) {
      return accumulate_chunk<Fn>(problem.shift, begin, end, [x](Dim j) { return x[j]; });
    });
  });
}

}  // namespace chainsaw
