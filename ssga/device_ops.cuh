// GPU operations of the SSGA phase and of plain evaluation, as producers for the generic
// reduction of fitness/device_reduce.cuh. The per-gene math is the shared host/device code of
// ssga/blx_alpha.hpp; only the random numbers (cuRAND XORWOW) are the GPU's own.
#pragma once

#include <type_traits>

#include "core/engines/engine.hpp"
#include "fitness/device_reduce.cuh"
#include "fitness/external_objective.hpp"
#include "ssga/blx_alpha.hpp"
#include "ssga/nam.hpp"

namespace chainsaw::device {

// Uniform in (0, 1] and standard normal, in the precision of the genes.
__device__ inline double uniform01(curandState& s) {
#if defined(CHAINSAW_DOUBLE)
  return curand_uniform_double(&s);
#else
  return static_cast<double>(curand_uniform(&s));
#endif
}

#if !defined(CHAINSAW_DOUBLE)
// A pair of float normals from two XORWOW draws: cuRAND's Box-Muller (curand_normal2: the same
// draws, the same u in (0, 1] and angle in (0, 2 pi], and the same approximate sine and cosine)
// with the hardware's approximate log2 and square root in place of logf and sqrtf, which took a
// sixth of the Solis-Wets pass's instructions (bench/results/2026-11-28-h200-sw-normals-clip).
// Within 1e-5 of Box-Muller in double on the same draws where the radius is above 0.1, and 1e-3
// below, where u rounded to a float moves cuRAND's own pair as far
// (tests/test_cuda_device_math.cu).
//
// The log2 and the square root in their flush-to-zero forms: u is at least 2^-33, and t is 0
// or the log2 of a float in (0, 1) times 1.39, at least about 1e-7: neither is subnormal, so
// they give the same values without the subnormal scaling that the plain forms put around each,
// six instructions a pair (in the Solis-Wets pass, three of about 94 a gene).
__device__ __forceinline__ float2 normal_pair(curandState& s) {
  const unsigned int a = curand(&s);
  const unsigned int b = curand(&s);
  const float u = a * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2);
  const float angle = b * CURAND_2POW32_INV_2PI + (CURAND_2POW32_INV_2PI / 2);
  float log2_u;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(log2_u) : "f"(u));
  // -2 ln u, never below 0: log2 of a u just under 1 may come out above 0.
  const float t = fmaxf(log2_u * -1.38629436f, 0.0f);
  float radius;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(radius) : "f"(t));
  float2 pair;
  __sincosf(angle, &pair.x, &pair.y);
  pair.x *= radius;
  pair.y *= radius;
  return pair;
}
#endif

// One normal at a time, keeping the pair's second as a spare in the state's own fields, as
// curand_normal does (the same state layout, flag and checkpoints).
__device__ inline real_t normal01(curandState& s) {
#if defined(CHAINSAW_DOUBLE)
  return curand_normal_double(&s);
#else
  if (s.boxmuller_flag == EXTRA_FLAG_NORMAL) {
    s.boxmuller_flag = 0;
    return s.boxmuller_extra;
  }
  const float2 pair = normal_pair(s);
  s.boxmuller_extra = pair.y;
  s.boxmuller_flag = EXTRA_FLAG_NORMAL;
  return pair.x;
#endif
}

// n draws of normal01 into out[0..n): the same values, and the same state after, as n calls.
// Box-Muller makes normals in pairs and keeps the second as a spare (a flag and a value in the
// state, of the genes' precision); a whole run that starts with no spare takes the
// pairs as they come, without normal01's test of the spare and its update per draw.
template <int L>
__device__ __forceinline__ void normal01_run(curandState& s, int n, real_t (&out)[L]) {
  static_assert(L % 2 == 0, "whole runs are pairs");
#if defined(CHAINSAW_DOUBLE)
  if (n == L && s.boxmuller_flag_double == 0) {
#else
  if (n == L && s.boxmuller_flag == 0) {
#endif
    #pragma unroll
    for (int k = 0; k < L; k += 2) {
#if defined(CHAINSAW_DOUBLE)
      const double2 pair = curand_normal2_double(&s);
#else
      const float2 pair = normal_pair(s);
#endif
      out[k] = pair.x;
      out[k + 1] = pair.y;
    }
    // The spare as the last call left it (unused while the flag is clear).
#if defined(CHAINSAW_DOUBLE)
    s.boxmuller_extra_double = out[L - 1];
#else
    s.boxmuller_extra = out[L - 1];
#endif
    return;
  }
  #pragma unroll
  for (int k = 0; k < L; ++k)  // unrolled: out[] stays in registers
    if (k < n) out[k] = normal01(s);
}

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
