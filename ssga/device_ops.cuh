// GPU operations of the SSGA phase and of plain evaluation, as producers for the generic
// reduction of fitness/device_reduce.cuh. The per-gene math is the shared host/device code of
// ssga/blx_alpha.hpp; only the random numbers (cuRAND XORWOW, core/gpu/device_random.cuh) are
// the GPU's own.
#pragma once

#include <type_traits>

#include "core/engines/engine.hpp"
#include "core/gpu/device_random.cuh"
#include "fitness/device_fitness.cuh"
#include "fitness/device_reduce.cuh"
#include "fitness/external_objective.hpp"
#include "ssga/blx_alpha.hpp"
#include "ssga/nam.hpp"

namespace chainsaw::device {

// Random genes uniform in the domain for slots[row], evaluated as they are made.
struct InitializeOp {
  static constexpr bool kUsesRng = true;
  __device__ bool stores_rng() const { return true; }
  real_t* genes;
  Dim pitch;
  const int* slots;
  double lower, upper;
  FitnessSink sink;
  __device__ bool active() const { return true; }
  __device__ void produce(int row, Dim j0, int n, double (&v)[kVec], curandState& rng) const {
    real_t g[kVec];
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) {
      g[k] = static_cast<real_t>(clamp_to(lower + (upper - lower) * uniform01(rng), lower, upper));
      v[k] = g[k];
    }
    store_genes(genes + static_cast<Dim>(slots[row]) * pitch + j0, n, g);
  }
  template <class Term>
  __device__ void finish(int row, const Term& term, const typename Term::Partial& p) const {
    sink.write(slots[row], row, term, p);
  }
};

// A batch of BLX-alpha children (+ BGA mutation) written into their padding slots, fused with
// their evaluation: the child is never read back.
struct CrossoverOp {
  static constexpr bool kUsesRng = true;
  __device__ bool stores_rng() const { return true; }
  real_t* genes;
  Dim pitch;
  const ChildSpec* children;
  double alpha, lower, upper;
  FitnessSink sink;
  __device__ bool active() const { return true; }
  __device__ void produce(int row, Dim j0, int n, double (&v)[kVec], curandState& rng) const {
    real_t c[kVec];
    make_child(row, j0, n, c, rng, [&](int k, real_t gene) { v[k] = gene; });
  }
  // Child `row`'s genes j0.. into c and its slot; gene(k, c[k]) sees each one as it is made
  // (inside the loop: the kernels keep their registers).
  template <class Gene>
  __device__ __forceinline__ void make_child(int row, Dim j0, int n, real_t (&c)[kVec],
                                             curandState& rng, const Gene& gene) const {
    const ChildSpec spec = children[row];
    real_t a[kVec], b[kVec];
    load_genes(genes + static_cast<Dim>(spec.mother) * pitch + j0, n, a);
    load_genes(genes + static_cast<Dim>(spec.father) * pitch + j0, n, b);
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) {
      c[k] = blx_alpha_gene(a[k], b[k], alpha, lower, upper, uniform01(rng));
      if (j0 + k == spec.mutated_gene) c[k] = bga_mutate_gene(c[k], spec.mutation_step, lower, upper);
      gene(k, c[k]);
    }
    store_genes(genes + static_cast<Dim>(spec.slot) * pitch + j0, n, c);
  }
  template <class Term>
  __device__ void finish(int row, const Term& term, const typename Term::Partial& p) const {
    sink.write(children[row].slot, row, term, p);
  }
};

// The crossover of a user objective's batch (pair with NoTerm: the objective evaluates the
// children after it): where `copies` is given, child `row` is written to its row there too, the
// rows of the objective's one call.
struct UserCrossoverOp {
  static constexpr bool kUsesRng = true;
  __device__ bool stores_rng() const { return true; }
  CrossoverOp crossover;
  real_t* copies;
  __device__ bool active() const { return true; }
  __device__ void produce(int row, Dim j0, int n, double (&)[kVec], curandState& rng) const {
    real_t c[kVec];
    crossover.make_child(row, j0, n, c, rng, [](int, real_t) {});
    if (copies != nullptr) store_genes(copies + static_cast<Dim>(row) * crossover.pitch + j0, n, c);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const typename Term::Partial&) const {}
};

// A lane's n stored genes at p, widened.
__device__ inline void load_widened(const real_t* p, int n, double (&v)[kVec]) {
  real_t x[kVec];
  load_genes(p, n, x);
  #pragma unroll
  for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
    if (k < n) v[k] = x[k];
}

// f of stored slots (after a host write).
struct EvaluateOp {
  static constexpr bool kUsesRng = false;
  __device__ bool stores_rng() const { return false; }
  const real_t* genes;
  Dim pitch;
  const int* slots;
  FitnessSink sink;
  __device__ bool active() const { return true; }
  __device__ void produce(int row, Dim j0, int n, double (&v)[kVec], curandState&) const {
    load_widened(genes + static_cast<Dim>(slots[row]) * pitch + j0, n, v);
  }
  template <class Term>
  __device__ void finish(int row, const Term& term, const typename Term::Partial& p) const {
    sink.write(slots[row], row, term, p);
  }
};

// EvaluateOp that reads its row's slot before the previous grid is awaited, so that the first
// genes' address is known when the wait ends (the slots are staged by the host: no kernel writes
// them). The evaluation of a built-in function's stored individuals (core/engines/cuda/device_passes.cuh).
struct EarlySlotEvaluateOp {
  static constexpr bool kUsesRng = false;
  __device__ bool stores_rng() const { return false; }
  EvaluateOp base;
  const real_t* row_genes = nullptr;  // set by prepare_row
  __device__ bool active() const { return true; }
  __device__ void prepare_row(int row) {
    row_genes = base.genes + static_cast<Dim>(base.slots[row]) * base.pitch;
  }
  __device__ void produce(int, Dim j0, int n, double (&v)[kVec], curandState&) const {
    load_widened(row_genes + j0, n, v);
  }
  template <class Term>
  __device__ void finish(int row, const Term& term, const typename Term::Partial& p) const {
    base.finish(row, term, p);
  }
};

// Euclidean distance between slots from[row] and to[row] (NAM), all pairs of a batch at once.
// A batch's pairs read each mother three times and most members more than once: interleaved
// rows read them from L2.
struct DistanceOp {
  static constexpr bool kUsesRng = false;
  static constexpr bool kInterleavesRows = true;
  __device__ bool stores_rng() const { return false; }
  const real_t* genes;
  Dim pitch;
  const int* from;
  const int* to;
  double* row_out;
  __device__ bool active() const { return true; }
  __device__ void produce(int row, Dim j0, int n, double (&v)[kVec], curandState&) const {
    real_t a[kVec], b[kVec];
    load_genes(genes + static_cast<Dim>(from[row]) * pitch + j0, n, a);
    load_genes(genes + static_cast<Dim>(to[row]) * pitch + j0, n, b);
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) v[k] = static_cast<double>(a[k]) - static_cast<double>(b[k]);
  }
  template <class Term>
  __device__ void finish(int row, const Term&, const SumPartial& p) const {
    row_out[row] = sqrt(p.sum);
  }
};

// Child c's father, by the host loop's NAM rule: its candidate farthest from the mother, of
// candidates[c * per_child + k] at `distances` (the first on ties); `slots` then lists the
// child's slot for its evaluation.
__device__ inline void choose_father(ChildSpec* specs, const int* candidates,
                                     const double* distances, int per_child, int c, int* slots) {
  specs[c].father = candidates[c * per_child + farthest_candidate(distances, per_child)];
  slots[c] = specs[c].slot;
}

// NAM's distances of a fused batch, a row per child: the mother's genes (specs[row].mother) are
// read once for her K candidates (candidates[row * K + k]), each distance reduced in its own
// tree, and the row's last block chooses the father, the candidate farthest from the mother by
// the host loop's rule, and lists the child's slot for its evaluation. Against a row per pair
// (DistanceOp) it reads 1 + K vectors per child instead of 2K.
template <int K>
struct NamDistancesOp {
  static constexpr bool kUsesRng = false;
  static constexpr bool kInterleavesRows = true;
  using Values = double[K][kVec];
  __device__ bool stores_rng() const { return false; }
  const real_t* genes;
  Dim pitch;
  ChildSpec* specs;
  const int* candidates;
  int* slots;  // out: slots[row], the child's slot
  __device__ bool active() const { return true; }
  __device__ void produce(int row, Dim j0, int n, Values& v, curandState&) const {
    real_t mother[kVec];
    load_genes(genes + static_cast<Dim>(specs[row].mother) * pitch + j0, n, mother);
    #pragma unroll
    for (int c = 0; c < K; ++c) {
      real_t candidate[kVec];
      load_genes(genes + static_cast<Dim>(candidates[row * K + c]) * pitch + j0, n, candidate);
      #pragma unroll
      for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
        if (k < n) v[c][k] = static_cast<double>(mother[k]) - static_cast<double>(candidate[k]);
    }
  }
  template <class Term>
  __device__ void finish(int row, const Term&, const PartialSet<SumPartial, K>& p) const {
    double distance[K];
    #pragma unroll
    for (int c = 0; c < K; ++c) distance[c] = sqrt(p.part[c].sum);
    choose_father(specs, candidates, distance, K, row, slots);
  }
};

// Distance of a slot to the optimum o (the paper's second quality measure).
struct OptimumDistanceOp {
  static constexpr bool kUsesRng = false;
  __device__ bool stores_rng() const { return false; }
  const real_t* genes;
  Dim pitch;
  int slot;
  Shift shift;
  double* row_out;
  Dim gene_base = 0;  // the problem's gene at the start of the rows (a sharded rank's first)
  __device__ bool active() const { return true; }
  __device__ void produce(int, Dim j0, int n, double (&v)[kVec], curandState&) const {
    real_t x[kVec];
    load_genes(genes + static_cast<Dim>(slot) * pitch + j0, n, x);
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n)
      v[k] = static_cast<double>(x[k]) - static_cast<double>(shift(gene_base + j0 + k));
  }
  template <class Term>
  __device__ void finish(int row, const Term&, const SumPartial& p) const {
    row_out[row] = sqrt(p.sum);
  }
};

}  // namespace chainsaw::device
