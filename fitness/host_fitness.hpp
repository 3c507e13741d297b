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

// Lanes of a chunk's sum: gene j goes to lane (j - begin) % kHostLanes and the lanes combine in
// a fixed tree, so the compiler may vectorise a chunk's terms (one AVX-512 vector, two AVX2
// ones) and the bits stay the same for any vector width and thread count. Only for partials
// whose combine commutes (kOrdered false); ordered ones, and a user's partial that does not say,
// run gene by gene.
inline constexpr int kHostLanes = 8;

template <class Partial, class = void>
struct combines_in_any_order : std::false_type {};
template <class Partial>
struct combines_in_any_order<Partial, std::enable_if_t<!Partial::kOrdered>> : std::true_type {};

// The one order of a chunk's reduction, for the built-in functions and user objectives alike:
// add_gene(partial, j) adds gene j's term for j in [begin, end).
template <class Partial, class AddGene>
Partial accumulate_genes(Dim begin, Dim end, AddGene&& add_gene) {
  if constexpr (combines_in_any_order<Partial>::value) {
    // Each gene's term into a partial of its own first (0 + term: the term exactly), an
    // elementwise loop the compiler vectorises at any width; then the terms into the lanes.
    constexpr int kTerms = 128;
    Partial lanes[kHostLanes] = {};
    Partial terms[kTerms];
    for (Dim first = begin; first < end; first += kTerms) {
      const int count = static_cast<int>(end - first < kTerms ? end - first : kTerms);
      for (int t = 0; t < count; ++t) {
        terms[t] = Partial{};
        add_gene(terms[t], first + t);
      }
      int t = 0;
      for (; count - t >= kHostLanes; t += kHostLanes)
        for (int l = 0; l < kHostLanes; ++l) lanes[l] = Partial::combine(lanes[l], terms[t + l]);
      for (int l = 0; t < count; ++t, ++l) lanes[l] = Partial::combine(lanes[l], terms[t]);
    }
    for (int width = kHostLanes / 2; width > 0; width /= 2)
      for (int l = 0; l < width; ++l) lanes[l] = Partial::combine(lanes[l], lanes[l + width]);
    return lanes[0];
  } else {
    Partial partial{};
    for (Dim j = begin; j < end; ++j) add_gene(partial, j);
    return partial;
  }
}

// Gene j's 1-based index as the function's Index type. A double index is made from the int32
// offset in the chunk: x86 vectorises int32 to double, not int64 to double (before AVX-512).
template <class Index>
Index gene_index(Dim begin, Dim j) {
  if constexpr (std::is_same_v<Index, double>)
    return static_cast<double>(begin + 1) + static_cast<double>(static_cast<std::int32_t>(j - begin));
  else
    return static_cast<Index>(j + 1);
}

// Accumulates genes [begin, end) of one individual (end - begin < 2^31); gene_at(j) yields
// gene j (a stored gene, or one being generated) and o_at(j) the shift's o_j.
template <class Fn, class GeneAt, class OAt>
typename Fn::Partial accumulate_terms(Dim begin, Dim end, GeneAt&& gene_at, OAt&& o_at) {
  using Partial = typename Fn::Partial;
  if constexpr (std::is_same_v<Fn, GenesOnly>) {  // make the genes; no o needed
    for (Dim j = begin; j < end; ++j) gene_at(j);
    return Partial{};
  } else {
    return accumulate_genes<Partial>(begin, end, [&](Partial& partial, Dim j) {
      const double z = static_cast<double>(gene_at(j)) - o_at(j);  // as shifted_gene makes it
      Fn::accumulate(partial, z, gene_index<typename Fn::Index>(begin, j));
    });
  }
}

// The same with o from the shift. The loop is instantiated for each form of o, so that no gene
// tests which one it is (a branch in the loop stops the vectoriser).
template <class Fn, class GeneAt>
typename Fn::Partial accumulate_chunk(const Shift& shift, Dim begin, Dim end, GeneAt&& gene_at) {
  if (shift.stored != nullptr)
    return accumulate_terms<Fn>(begin, end, gene_at,
                                [o = shift.stored](Dim j) { return static_cast<double>(o[j]); });
  return accumulate_terms<Fn>(begin, end, gene_at,
                              [&shift](Dim j) { return shift.hashed_value(j); });
}

// f's partial of stored genes [begin, end); x points at gene begin. o_values, when not null,
// holds o_j from gene begin on (a host copy of the shift, exactly its values): read, o costs
// less than its hash.
template <class Fn>
typename Fn::Partial evaluate_chunk(const Shift& shift, Dim begin, Dim end, const real_t* x,
                                    const real_t* o_values = nullptr) {
  const auto gene_at = [x, begin](Dim j) { return x[j - begin]; };
  if (o_values != nullptr)
    return accumulate_terms<Fn>(begin, end, gene_at, [o_values, begin](Dim j) {
      return static_cast<double>(o_values[j - begin]);
    });
  return accumulate_chunk<Fn>(shift, begin, end, gene_at);
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
