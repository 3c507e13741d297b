// A reduced row's fitness as the engine ranks and stores it: a user objective's NaN and -inf
// ranked last and counted, the value written where the engine keeps it and where the host reads
// it (FitnessSink).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "core/types.hpp"
#include "fitness/external_objective.hpp"

namespace chainsaw::device {

// Terms whose value may be NaN or -inf (a user's objective: kMayBeInvalid) rank those last and
// count them; a built-in function's value is always a number, and its kernels carry no check.
template <class Term, class = void>
struct MayBeInvalid : std::false_type {};
template <class Term>
struct MayBeInvalid<Term, std::void_t<decltype(Term::kMayBeInvalid)>>
    : std::bool_constant<Term::kMayBeInvalid> {};

// f of a reduced row, for the ranking.
template <class Term>
__device__ double ranked_value(const Term& term, const typename Term::Partial& p, Dim dim,
                               unsigned long long* invalid) {
  const double f = term.value(p, dim);
  if constexpr (MayBeInvalid<Term>::value) {
    if (is_invalid_fitness(f)) atomicAdd(invalid, 1ull);
    return rankable_fitness(f);
  } else {
    return f;
  }
}

// Writes a row's fitness where the engine keeps it and where the host will read it; `term` is the
// function's fitness term (fitness/device_reduce.cuh), whose value() gives f.
struct FitnessSink {
  Dim dim;
  double* slot_fitness;  // per slot
  double* row_out;       // per row, copied back to the host
  unsigned long long* invalid;  // the count of NaN and -inf values (MayBeInvalid terms)
  template <class Term>
  __device__ void write(int slot, int row, const Term& term,
                        const typename Term::Partial& p) const {
    const double f = ranked_value(term, p, dim, invalid);
    slot_fitness[slot] = f;
    row_out[row] = f;
  }
};

}  // namespace chainsaw::device
