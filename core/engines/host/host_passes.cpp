#include "core/engines/host/host_passes.hpp"

#include <algorithm>

#include "core/host_rng.hpp"
#include "fitness/host_fitness.hpp"
#include "localsearch/solis_wets.hpp"
#include "ssga/blx_alpha.hpp"

// Function multiversioning where the toolchain resolves it at load time (GNU ifunc). flatten
// inlines everything a pass calls (the evaluation and its function's terms included) into each
// version, which a call to a baseline-compiled helper would not be.
// -DCHAINSAW_NO_CPU_CLONES builds the one version the flags give (how the versions' equal
// bits are checked).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && \
    !defined(CHAINSAW_NO_CPU_CLONES)
#define CHAINSAW_CPU_CLONES \
  __attribute__((flatten, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CHAINSAW_CPU_CLONES __attribute__((flatten))
#endif

namespace chainsaw {

namespace {
// Evaluates the chunk just made: genes at x (chunk-local).
ChunkPartial evaluate_made_chunk(const Problem& problem, const ChunkSpan& span, const real_t* x) {
  return visit_function(problem.function, [&](auto fn) {
    using Fn = decltype(fn);
    ChunkPartial out;
    const typename Fn::Partial p =
        evaluate_chunk<Fn>(problem.shift, span.begin, span.end, x, span.o_values);
    std::memcpy(out.bytes, &p, sizeof p);
    return out;
  });
}
}  // namespace

CHAINSAW_CPU_CLONES
ChunkPartial random_genes_chunk(const Problem& problem, const ChunkSpan& span, std::uint64_t key,
                                real_t* x) {
  const double lower = problem.lower, upper = problem.upper, width = problem.width();
  const Dim n = span.size();
  double u[kUniformBlock];
  for (Dim first = 0; first < n; first += kUniformBlock) {
    uniform_block(key, static_cast<std::uint64_t>(first / kUniformBlock), u);
    const Dim count = std::min<Dim>(kUniformBlock, n - first);
    for (Dim t = 0; t < count; ++t)
      x[first + t] = static_cast<real_t>(clamp_to(lower + width * u[t], lower, upper));
  }
  return evaluate_made_chunk(problem, span, x);
}

CHAINSAW_CPU_CLONES
ChunkPartial crossover_chunk(const Problem& problem, const ChunkSpan& span, std::uint64_t key,
                             const real_t* a, const real_t* b, double alpha, Dim mutated,
                             double mutation_step, real_t* child) {
  const double lower = problem.lower, upper = problem.upper;
  const Dim n = span.size();
  double u[kUniformBlock];
  for (Dim first = 0; first < n; first += kUniformBlock) {
    uniform_block(key, static_cast<std::uint64_t>(first / kUniformBlock), u);
    const Dim count = std::min<Dim>(kUniformBlock, n - first);
    const real_t* a_block = a + first;
    const real_t* b_block = b + first;
    real_t* child_block = child + first;
    for (Dim t = 0; t < count; ++t)
      child_block[t] = blx_alpha_gene(a_block[t], b_block[t], alpha, lower, upper, u[t]);
  }
  if (mutated >= 0) child[mutated] = bga_mutate_gene(child[mutated], mutation_step, lower, upper);
  return evaluate_made_chunk(problem, span, child);
}

CHAINSAW_CPU_CLONES
ChunkPartial sw_forward_chunk(const Problem& problem, const ChunkSpan& span, std::uint64_t key,
                              double rho, const real_t* x, const real_t* bias, real_t* dif,
                              real_t* candidate) {
  const double lower = problem.lower, upper = problem.upper;
  const Dim n = span.size();
  double normals[kNormalBlock];
  for (Dim first = 0; first < n; first += kNormalBlock) {
    normal_block(key, static_cast<std::uint64_t>(first / kNormalBlock), normals);
    const Dim count = std::min<Dim>(kNormalBlock, n - first);
    const real_t* x_block = x + first;
    const real_t* bias_block = bias + first;
    real_t* dif_block = dif + first;
    real_t* candidate_block = candidate + first;
    for (Dim t = 0; t < count; ++t) {
      const auto d = static_cast<real_t>(rho * normals[t]);
      dif_block[t] = d;
      candidate_block[t] = sw_forward_gene(x_block[t], bias_block[t], d, lower, upper);
    }
  }
  return evaluate_made_chunk(problem, span, candidate);
}

CHAINSAW_CPU_CLONES
ChunkPartial sw_backward_chunk(const Problem& problem, const ChunkSpan& span, const real_t* x,
                               const real_t* bias, const real_t* dif, real_t* candidate) {
  const double lower = problem.lower, upper = problem.upper;
  for (Dim l = 0, n = span.size(); l < n; ++l)
    candidate[l] = sw_backward_gene(x[l], bias[l], dif[l], lower, upper);
  return evaluate_made_chunk(problem, span, candidate);
}

CHAINSAW_CPU_CLONES
double squared_distance_chunk(const real_t* a, const real_t* b, Dim n) {
  return accumulate_genes<SumPartial>(0, n, [a, b](SumPartial& p, Dim j) {
           const double d = static_cast<double>(a[j]) - static_cast<double>(b[j]);
           p.sum += d * d;
         }).sum;
}

CHAINSAW_CPU_CLONES
void sw_update_bias_chunk(SwOutcome outcome, const real_t* dif, real_t* bias, Dim n) {
  sw_update_bias(outcome, dif, bias, n);
}

}  // namespace chainsaw
