#include "fitness/host_fitness.hpp"

#include "fitness/cec2010_instance.hpp"

namespace chainsaw {

double evaluate_host(const Problem& problem, const real_t* x) {
  if (problem.is_cec2010()) return evaluate_cec2010_host(problem, x);
  return visit_function(problem.function, [&](auto fn) {
    using Fn = decltype(fn);
    const Dim chunks = host_chunk_count(problem.dim);
    std::vector<typename Fn::Partial> partials(static_cast<size_t>(chunks));
#pragma omp parallel for schedule(static) if (chunks > 1)
    for (Dim c = 0; c < chunks; ++c) {
      const Dim begin = c * kHostChunk;
      const Dim end = begin + kHostChunk < problem.dim ? begin + kHostChunk : problem.dim;
      partials[c] = accumulate_chunk<Fn>(problem.shift, begin, end, [x](Dim j) { return x[j]; });
    }
    return finish_chunks<Fn>(partials.data(), chunks, problem.dim);
  });
}

}  // namespace chainsaw
