// The per-gene work of a Solis-Wets step on a lane's run of genes, shared by the launches per
// step and the chain kernel: both candidates from x, the bias and dif; the accepted move and the
// bias update; the bias at its scale. Each thread touches only its own runs.
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <type_traits>

#include "core/gpu/device_random.cuh"
#include "core/types.hpp"
#include "fitness/device_genes.cuh"
#include "localsearch/device_sw_state.cuh"
#include "localsearch/solis_wets.hpp"

namespace chainsaw::device {

// Whole lanes of float genes clip their candidates as a max and a min (sw_clip): faster there,
// slower in the short-lane kernels (runs of 4); float64 genes were not measured.
// Measured: bench/results/2026-11-28-h200-sw-normals-clip.
template <int L>
inline constexpr bool kSwClipsByMinMax = L == kVec && std::is_same_v<real_t, float>;

// A lane's run of n stored bias values times `scale`, a power of two <= 1 (bias_scale), each
// rounded to real_t as static_cast<real_t>(scale * b) rounds it. Where real_t holds the scale
// exactly the product is taken in real_t: it is exact, or (below real_t's normal range) rounded
// once, as the double product rounded to real_t is, so the bits are the same without the two
// float64 conversions per gene of the double form (a quarter-rate unit on the GPU).
template <int L>
__device__ __forceinline__ void scale_genes(double scale, int n, real_t (&bs)[L]) {
  const real_t scale_in_genes = static_cast<real_t>(scale);
  if (static_cast<double>(scale_in_genes) == scale) {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: the array stays in registers
      if (k < n) bs[k] = mul_rn(bs[k], scale_in_genes);
  } else {  // a scale below real_t's range: 150 failures in a row for float genes
    #pragma unroll
    for (int k = 0; k < L; ++k)
      if (k < n) bs[k] = static_cast<real_t>(scale * bs[k]);
  }
}

// A lane's run of n genes of both candidates of a step from x and the bias b in registers (b
// at scale 1, or times the step's scale already): x' = clip(x + b + dif) and
// x'' = clip(x - b - dif), dif = rho N(0, 1) drawn from rng. Out: real_t to store them, double
// for a reduction (SwBothMovesOp: written in place, which keeps its kernels' registers).
// dif_out, where given, receives the run's dif (the chain kernel applies a success from it
// instead of drawing the normals again).
template <class Out, int L>
__device__ __forceinline__ void sw_both_candidates_of(const real_t (&xs)[L], const real_t (&bs)[L],
                                                      double step_rho, int n, curandState& rng,
                                                      double lower, double upper,
                                                      Out (&forward)[L], Out (&backward)[L],
                                                      real_t* dif_out) {
  real_t dif[L];
  normal01_run(rng, n, dif);
  const real_t rho = static_cast<real_t>(step_rho);
  #pragma unroll
  for (int k = 0; k < L; ++k)  // unrolled: the arrays stay in registers
    if (k < n) dif[k] = mul_rn(rho, dif[k]);
  // Stored before the candidates are made: dif takes the normals' registers, no more.
  if (dif_out != nullptr) store_genes(dif_out, n, dif);
  #pragma unroll
  for (int k = 0; k < L; ++k)
    if (k < n) {
    forward[k] = sw_forward_gene<kSwClipsByMinMax<L>>(xs[k], bs[k], dif[k], lower, upper);
    backward[k] = sw_backward_gene<kSwClipsByMinMax<L>>(xs[k], bs[k], dif[k], lower, upper);
  }
}
// The same from x and the stored bias at `scale` in memory.
template <class Out, int L>
__device__ __forceinline__ void sw_both_candidates_run(double step_rho, double scale,
                                                       const real_t* x, const real_t* bias, int n,
                                                       curandState& rng, double lower,
                                                       double upper, Out (&forward)[L],
                                                       Out (&backward)[L],
                                                       real_t* dif_out = nullptr) {
  real_t xs[L], bs[L];
  load_genes(x, n, xs);
  load_genes(bias, n, bs);
  scale_genes(scale, n, bs);
  sw_both_candidates_of(xs, bs, step_rho, n, rng, lower, upper, forward, backward, dif_out);
}

template <int L = kVec>
__device__ inline void sw_scale_bias_run(double scale, real_t* bias, int n) {
  real_t bs[L];
  load_genes(bias, n, bs);
  scale_genes(scale, n, bs);
  store_genes(bias, n, bs);
}

// A lane's run of n genes after a successful step (phase), in registers: x moves and the bias
// bs (at scale 1) updates with the step's dif. x moves to the candidate, clipped as it was made.
template <int L>
__device__ __forceinline__ void sw_success_move(int phase, real_t (&xs)[L], real_t (&bs)[L],
                                                const real_t (&dif)[L], int n, double lower,
                                                double upper) {
  const bool fwd = phase == kSwForwardSuccess;
  #pragma unroll
  for (int k = 0; k < L; ++k)  // unrolled: the arrays stay in registers
    if (k < n) {
    xs[k] = fwd ? sw_forward_gene<kSwClipsByMinMax<L>>(xs[k], bs[k], dif[k], lower, upper)
                : sw_backward_gene<kSwClipsByMinMax<L>>(xs[k], bs[k], dif[k], lower, upper);
    bs[k] = fwd ? sw_bias_after_forward_success(bs[k], dif[k])
                : sw_bias_after_backward_success(bs[k], dif[k]);
  }
}
// The same on x in memory: x and the bias written.
template <int L>
__device__ __forceinline__ void sw_success_run(int phase, real_t* x, real_t* bias,
                                               real_t (&bs)[L], const real_t (&dif)[L], int n,
                                               double lower, double upper) {
  real_t xs[L];
  load_genes(x, n, xs);
  sw_success_move(phase, xs, bs, dif, n, lower, upper);
  store_genes(x, n, xs);
  store_genes(bias, n, bs);
}
// The last step's success (phase) applied to a lane's run in memory from the dif that step kept
// and the bias at that step's scale: x and the bias move, and stay in xs and bs (the bias at
// scale 1) for the caller (the chain kernel that keeps dif: its next pass, or its end).
template <int L>
__device__ __forceinline__ void sw_apply_kept_dif(int phase, double scale, real_t* x,
                                                  real_t* bias, const real_t* dif, int n,
                                                  double lower, double upper, real_t (&xs)[L],
                                                  real_t (&bs)[L]) {
  real_t kept[L];
  load_genes(x, n, xs);
  load_genes(bias, n, bs);
  load_genes(dif, n, kept);
  scale_genes(scale, n, bs);
  sw_success_move(phase, xs, bs, kept, n, lower, upper);
  store_genes(x, n, xs);
  store_genes(bias, n, bs);
}

// A lane's run of n genes after a step decided `phase` with rho and bias scale as they were
// in the step: a success moves x and updates the bias with the step's dif, drawn again from the
// state the step started with (rng); a failure halves the bias. The bias is written at scale 1.
// Runs of L genes, as the step's.
template <int L = kVec>
__device__ inline void sw_apply_run(int phase, double step_rho, double scale, real_t* x,
                                    real_t* bias, int n, curandState& rng, double lower,
                                    double upper) {
  if (phase == kSwNoDecision) return;
  real_t bs[L], dif[L];
  load_genes(bias, n, bs);
  if (scale != 1.0) scale_genes(scale, n, bs);  // below 1 only after SwBothMovesOp's failures
  if (phase == kSwFailure) {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) bs[k] = sw_bias_after_failure(bs[k]);
    store_genes(bias, n, bs);
    return;
  }
  const real_t rho = static_cast<real_t>(step_rho);
  normal01_run(rng, n, dif);  // the step's normals, drawn again
  #pragma unroll
  for (int k = 0; k < L; ++k)
    if (k < n) dif[k] = mul_rn(dif[k], rho);
  sw_success_run(phase, x, bias, bs, dif, n, lower, upper);
}

}  // namespace chainsaw::device
