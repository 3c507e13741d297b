#include "fitness/host_fitness.hpp"

#include "fitness/cec2010_instance.hpp"

namespace chainsaw {

double evaluate_host(const Problem& problem, const real_t* x) {
  if (problem.is_cec2010()) return evaluate_cec2010_host(problem, x);
  return visit_function(problem.function, [&](auto fn) {
    using Fn = decltype(fn);
    return reduce_host_chunks<Fn>(problem.dim, [&](Dim begin, Dim end) {
      return accumulate_chunk<Fn>(problem.shift, begin, end, [x](Dim j) { return x[j]; });
    });
  });
}

}  // namespace chainsaw
