// chainsaw as a library: MA-SW-Chains on a user objective, on the CPU or the GPU.
//
//   #include <chainsaw/chainsaw.hpp>
//   chainsaw::Result r = chainsaw::optimize(MyObjective{...}, options);
//
// Two kinds of objective (docs/library.md):
//  - A per-gene objective: a plain type that reduces over the genes, with a reduction kind and
//    CHAINSAW_HD members, so the same code runs on both backends:
//        using Partial = chainsaw::SumPartial;   // or SumProductPartial, PrefixSquarePartial,
//                                                // BlockSumPartial<Block>, or your own
//        CHAINSAW_HD void accumulate(Partial& p, double x, chainsaw::Dim i) const;  // gene i,
//                                                // 0-based (kOrdered: in index order within
//                                                // a chunk; else into an empty partial each,
//                                                // combined in 8 interleaved lanes on the CPU)
//        CHAINSAW_HD double finish(const Partial& p, chainsaw::Dim dim) const;      // f
//        double lower() const;  double upper() const;   // the domain of every variable
//    and optionally  std::string name() const  (checkpoints record it), Dim dim() const (the
//    only dimension it accepts) and double optimum_value() const (Result::best_error).
//    A Partial is a struct of doubles with a default value that is the empty partial,
//    static constexpr bool kOrdered (true: combine is not commutative) and
//    CHAINSAW_HD static Partial combine(const Partial& left, const Partial& right).
//    On the GPU the engine's kernels are instantiated for the objective in the caller's
//    translation unit: compile the file that calls optimize() with nvcc, or the objective runs
//    on the CPU only (Backend::kCuda then refuses it with an error).
//  - A BatchObjective (fitness/external_objective.hpp): callbacks that evaluate whole rows of
//    genes, host and/or device, for objectives that are no reduction over the genes.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "core/error.hpp"
#include "core/types.hpp"
#include "fitness/external_objective.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"
#include "fitness/reduction.hpp"
#include "io/api/optimize.hpp"

#if defined(__CUDACC__)
#include "chainsaw/device_objective.cuh"
#endif

namespace chainsaw {

namespace detail {

template <class T, class = void>
struct has_name : std::false_type {};
template <class T>
struct has_name<T, std::void_t<decltype(std::string(std::declval<const T&>().name()))>>
    : std::true_type {};
template <class T, class = void>
struct has_dim : std::false_type {};
template <class T>
struct has_dim<T, std::void_t<decltype(Dim(std::declval<const T&>().dim()))>> : std::true_type {};
template <class T, class = void>
struct has_optimum : std::false_type {};
template <class T>
struct has_optimum<T, std::void_t<decltype(double(std::declval<const T&>().optimum_value()))>>
    : std::true_type {};

template <class T, class = void>
struct is_per_gene_objective : std::false_type {};
template <class T>
struct is_per_gene_objective<
    T, std::void_t<typename T::Partial,
                   decltype(std::declval<const T&>().accumulate(
                       std::declval<typename T::Partial&>(), 0.0, Dim{0})),
                   decltype(double(std::declval<const T&>().finish(
                       std::declval<const typename T::Partial&>(), Dim{0}))),
                   decltype(double(std::declval<const T&>().lower())),
                   decltype(double(std::declval<const T&>().upper()))>> : std::true_type {};

// f of one row on the host: the fixed 4096-gene chunks and in-order combination of the
// built-in functions (fitness/host_fitness.hpp), so that the same math gives the same bits.
template <class Obj>
double evaluate_row_host(const Obj& objective, const real_t* x, Dim dim) {
  using Partial = typename Obj::Partial;
  const Partial total = reduce_host_partials<Partial>(dim, [&](Dim begin, Dim end) {
    return accumulate_genes<Partial>(begin, end, [&](Partial& p, Dim j) {
      objective.accumulate(p, static_cast<double>(x[j]), j);
    });
  });
  return objective.finish(total, dim);
}

}  // namespace detail

// What follows differs with the compiler (nvcc adds the GPU evaluation): an inline namespace
// per kind keeps a program whose .cpp and .cu files both call optimize<Obj> free of two
// different definitions of one template (ODR), each file getting its own.
#if defined(__CUDACC__)
inline namespace with_device {
#else
inline namespace host_only {
#endif

// The BatchObjective that optimize<Obj> runs: host rows through evaluate_row_host; on the GPU
// (nvcc only) the engine's fused passes instantiated for Obj.
template <class Obj>
BatchObjective batch_objective(const Obj& objective) {
  static_assert(detail::is_per_gene_objective<Obj>::value,
                "a per-gene objective needs: using Partial = ...; accumulate(Partial&, double, "
                "Dim) const; finish(const Partial&, Dim) const; lower() const; upper() const");
  BatchObjective b;
  if constexpr (detail::has_name<Obj>::value) {
    b.name = objective.name();
  } else {
    b.name = typeid(Obj).name();  // stable for one compiler; give name() for portable checkpoints
  }
  if constexpr (detail::has_dim<Obj>::value) b.dim = objective.dim();
  if constexpr (detail::has_optimum<Obj>::value) b.optimum_value = objective.optimum_value();
  b.lower = objective.lower();
  b.upper = objective.upper();
  b.host = [objective](const real_t* genes, Dim pitch, int rows, Dim dim, double* fitness) {
    for (int r = 0; r < rows; ++r)
      fitness[r] = detail::evaluate_row_host(objective, genes + static_cast<Dim>(r) * pitch, dim);
  };
#if defined(__CUDACC__)
  b.device_passes = detail::device_passes(objective);
#endif
  return b;
}

// Runs MA-SW-Chains on a per-gene objective (see the top of this file).
template <class Obj>
Result optimize(const Obj& objective, const Options& options) {
  return optimize(batch_objective(objective), options);
}

}  // inline namespace with_device / host_only

}  // namespace chainsaw
