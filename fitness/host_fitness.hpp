// Fitness on the CPU: an individual is cut into fixed chunks of kHostChunk genes; each chunk is
// accumulated sequentially in double, and the chunk partials are combined left to right. The
// chunking is fixed, so the result does not depend on the number of OpenMP threads.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "fitness/problem.hpp"

namespace chainsaw {

inline constexpr Dim kHostChunk = 4096;

inline Dim host_chunk_count(Dim dim) { return (dim + kHostChunk - 1) / kHostChunk; }

// Accumulates genes [begin, end) of one individual; gene_at(j) yields gene j (a stored gene, or
// one being generated, so that making and evaluating an individual is a single pass).
template <class Fn, class GeneAt>
typename Fn::Partial accumulate_chunk(const Shift& shift, Dim begin, Dim end, GeneAt&& gene_at) {
  typename Fn::Partial partial{};
  if constexpr (std::is_same_v<Fn, GenesOnly>) {  // make the genes; no o needed
    for (Dim j = begin; j < end; ++j) gene_at(j);
  } else {
    for (Dim j = begin; j < end; ++j) {
      const double z = shifted_gene(gene_at(j), shift, j);
      Fn::accumulate(partial, z, j + 1);
    }
  }
  return partial;
}

template <class Partial>
Partial combine_chunks(const Partial* partials, Dim chunks) {
  Partial total = partials[0];
  for (Dim c = 1; c < chunks; ++c) total = Partial::combine(total, partials[c]);
  return total;
}

template <class Fn>
double finish_chunks(const typename Fn::Partial* partials, Dim chunks, Dim dim) {
  return Fn::finish(combine_chunks(partials, chunks), dim) + Fn::kBias;
}

// The partials of the fixed chunks of [0, dim), chunk_partial(begin, end) in parallel, combined
// in order: the one host reduction of the built-in functions and of user objectives
// (include/chainsaw/chainsaw.hpp), which is what makes a user objective identical to a
// built-in one give bit-identical runs.
template <class Partial, class ChunkPartial>
Partial reduce_host_partials(Dim dim, ChunkPartial&& chunk_partial) {
  const Dim chunks = host_chunk_count(dim);
  std::vector<Partial> partials(static_cast<size_t>(chunks));
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (Dim c = 0; c < chunks; ++c) {
    const Dim begin = c * kHostChunk;
    partials[c] = chunk_partial(begin, begin + kHostChunk < dim ? begin + kHostChunk : dim);
  }
  return combine_chunks(partials.data(), chunks);
}

// f from the partials of the fixed chunks of [0, dim).
template <class Fn, class ChunkPartial>
double reduce_host_chunks(Dim dim, ChunkPartial&& chunk_partial) {
  return Fn::finish(reduce_host_partials<typename Fn::Partial>(dim, chunk_partial), dim) +
         Fn::kBias;
}

// f(x) of one stored individual, chunks in parallel (every function, CEC 2010 and user
// objectives included; a user objective's invalid value is returned as it is).
double evaluate_host(const Problem& problem, const real_t* x);

// A user objective's f of `rows` stored rows (row r at genes + r * pitch), made rankable
// (rankable_fitness); returns how many values were invalid (NaN or -inf).
std::int64_t evaluate_external_host(const Problem& problem, const real_t* genes, Dim pitch,
                                    int rows, double* out);

}  // namespace chainsaw
