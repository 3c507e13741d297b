// The reduction's terms (fitness/device_reduce.cuh): how a produced value enters a row's
// partial. A built-in function's term (hashing o, or reading it from a device copy or a staged
// row), the squared difference of the distances, none for element-wise operations, and K terms
// reduced in one sweep; the traits that say how an operation's lane values and a term meet.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "core/types.hpp"
#include "fitness/device_genes.cuh"
#include "fitness/problem.hpp"
#include "fitness/reduce_shape.hpp"
#include "fitness/reduction.hpp"

namespace chainsaw::device {

// A built-in function's f from its reduced partial. Every fitness term has a value(p, dim), and
// the kernel hands the term to the operation's finish(): the passes that make and evaluate
// individuals (ssga/device_ops.cuh) are then the same for every function, a user's per-gene
// objective included.
template <class Fn>
__device__ double function_value(const typename Fn::Partial& p, Dim dim) {
  return Fn::finish(p, dim) + Fn::kBias;
}

// Terms: how a produced value (for gene j of the launch's row) enters the partial.
template <class Fn>
struct FitnessTerm {  // the value is a gene; the term is the function's, on z = x - o
  using Partial = typename Fn::Partial;
  static constexpr bool kSliceable = !std::is_same_v<Fn, GenesOnly>;  // not CEC 2010's genes
  Shift shift;
  __device__ double value(const Partial& p, Dim dim) const { return function_value<Fn>(p, dim); }
  // The value is a gene, widened (every operation that pairs with a FitnessTerm produces one).
  __device__ void accumulate(Partial& p, double value, Dim j, int) const {
    if constexpr (!std::is_same_v<Fn, GenesOnly>)  // GenesOnly: the genes are only made
      Fn::accumulate(p, shifted_gene(value, shift, j), j + 1);
  }
};
// A built-in function's term with o read from a device copy of its values (the hash's floats)
// instead of hashed per gene: the evaluation pass of an engine that holds whole individuals
// (CudaEngine's EvaluationPolicy). A lane's o comes in 16-byte loads beside its genes' (the copy
// starts at gene 0 and is aligned like a row); z is FitnessTerm's, to the bit. One layout only.
template <class Fn>
struct StoredShiftTerm {
  using Partial = typename Fn::Partial;
  static constexpr bool kSliceable = false;
  const real_t* o = nullptr;
  __device__ double value(const Partial& p, Dim dim) const { return function_value<Fn>(p, dim); }
  template <int L>
  __device__ void accumulate_tile(Partial& p, const double (&v)[L], Dim j0, int n) const {
    real_t o_run[L];
    load_genes(o + j0, n, o_run);
    // A numeric index (Fn::Index double) is converted once per run, i0 + k exactly, not per gene.
    const typename Fn::Index i0 = static_cast<typename Fn::Index>(j0 + 1);
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) Fn::accumulate(p, v[k] - static_cast<double>(o_run[k]), i0 + k);
  }
};
// A built-in function's term with o read from a row of doubles (the Solis-Wets chain kernel's,
// staged in shared memory for a whole application), so that z is FitnessTerm's, to the bit,
// without the hash and its integer chain per gene. The row is laid out lane-interleaved, tile by
// tile of 32 runs of L genes: gene k of a lane's run sits 32 doubles after gene k - 1, so a
// warp's 32 loads of one k are consecutive (a run's genes side by side put 16 lanes on one pair
// of banks). o points at the row's start, gene `first`, a multiple of 32 L: `at` of a gene
// relative to it is the same as in a row from gene 0. A pointer into the row itself, so that the
// compiler addresses it as shared memory.
template <class Fn>
struct RowShiftTerm {
  using Partial = typename Fn::Partial;
  static constexpr bool kSliceable = false;
  const double* o = nullptr;
  Dim first = 0;
  template <int L>
  __host__ __device__ static Dim at(Dim j) {
    constexpr Dim kTile = 32 * L;
    return j / kTile * kTile + j % kTile / L + j % L * 32;
  }
  __device__ double value(const Partial& p, Dim dim) const { return function_value<Fn>(p, dim); }
  template <int L>
  __device__ void accumulate_tile(Partial& p, const double (&v)[L], Dim j0, int n) const {
    const double* const run = o + at<L>(j0 - first);  // j0 starts a run: gene k at run[32 k]
    const typename Fn::Index i0 = static_cast<typename Fn::Index>(j0 + 1);
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) Fn::accumulate(p, v[k] - run[32 * k], i0 + k);
  }
};
// The forms of a fitness term that read o instead of hashing it, where it has them (a built-in
// function's, which makes z): from a row of doubles (Row) or from the engine's device copy
// (Stored). Else both are the term itself.
template <class T>
struct ShiftForms {
  static constexpr bool kAvailable = false;
  using Row = T;
  using Stored = T;
};
template <class Fn>
struct ShiftForms<FitnessTerm<Fn>> {
  static constexpr bool kAvailable = !std::is_same_v<Fn, GenesOnly>;
  using Row = RowShiftTerm<Fn>;
  using Stored = StoredShiftTerm<Fn>;
};
struct SquareTerm {  // the value is a difference; the partial is the sum of squares
  using Partial = SumPartial;
  static constexpr bool kSliceable = true;
  __device__ void accumulate(Partial& p, double value, Dim, int) const { p.sum += value * value; }
};
struct NoTerm {  // element-wise operations that only need the "last block" hook
  using Partial = SumPartial;
  static constexpr bool kSliceable = true;
  __device__ void accumulate(Partial&, double, Dim, int) const {}
};
// Terms that may be laid out in slices say so (kSliceable): the built-in functions' and the
// element-wise ones. The kernels of the others (CEC 2010 groups, users' objectives) are never
// instantiated for slices.
template <class Term, class = void>
struct Sliceable : std::false_type {};
template <class Term>
struct Sliceable<Term, std::void_t<decltype(Term::kSliceable)>>
    : std::bool_constant<Term::kSliceable> {};

// A lane's n values v (genes j0..) into its partial, in gene order: by the term's
// accumulate_tile when it has one (a lane's run at once), else value by value.
template <class Term, class = void>
struct TakesTiles : std::false_type {};
template <class Term>
struct TakesTiles<Term, std::void_t<decltype(&Term::template accumulate_tile<kVec>)>>
    : std::true_type {};
template <class Term, class Partial, int L>
__device__ void accumulate_lane(const Term& term, Partial& p, const double (&v)[L], Dim j0,
                                int n, int row) {
  if constexpr (TakesTiles<Term>::value) {
    term.accumulate_tile(p, v, j0, n);
  } else {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) term.accumulate(p, v[k], j0 + k, row);
  }
}

// K rows reduced in one sweep, each keeping its own partial, combined in the same tree as
// alone: the Solis-Wets step's forward and backward candidates (a pair: they share their loads
// and normals), NAM's distances of a child's mother to its candidates (the mother read once).
template <class P, int K>
struct PartialSet {
  static constexpr bool kOrdered = P::kOrdered;
  P part[K]{};
  __device__ static PartialSet combine(const PartialSet& a, const PartialSet& b) {
    PartialSet r;
    #pragma unroll
    for (int k = 0; k < K; ++k) r.part[k] = P::combine(a.part[k], b.part[k]);
    return r;
  }
};
template <class Term, int K>
struct TermSet {
  using Partial = PartialSet<typename Term::Partial, K>;
  static constexpr bool kSliceable = Sliceable<Term>::value;
  Term term;
};
template <class P>
using PairPartial = PartialSet<P, 2>;
template <class Term>
using PairTerm = TermSet<Term, 2>;
// The genes of a lane's run of an operation's: kVec unless it declares kLaneGenes (kShortLane).
template <class Op, class = void>
struct LaneGenes : std::integral_constant<int, kVec> {};
template <class Op>
struct LaneGenes<Op, std::void_t<decltype(Op::kLaneGenes)>>
    : std::integral_constant<int, Op::kLaneGenes> {};
// The values an operation produces per lane: one candidate's (double[L]) unless it declares
// Values (TermSet's operations: double[K][L]). Holding them as stored genes (real_t) instead
// took registers off the one-pass Solis-Wets kernel but made the 10^6-D Rastrigin run slower
// (bench/results/2026-11-24-h100-solis-wets).
template <class Op, class = void>
struct OpValues {
  using type = double[LaneGenes<Op>::value];
};
template <class Op>
struct OpValues<Op, std::void_t<typename Op::Values>> {
  using type = typename Op::Values;
};
template <class Term, class Partial, int K, int L>
__device__ void accumulate_lane(const TermSet<Term, K>& set, PartialSet<Partial, K>& p,
                                const double (&v)[K][L], Dim j0, int n, int row) {
  #pragma unroll
  for (int k = 0; k < K; ++k) accumulate_lane(set.term, p.part[k], v[k], j0, n, row);
}

}  // namespace chainsaw::device
