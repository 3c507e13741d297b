// The GPU's sep-CMA-ES kernels (core/engines/cuda/sep_cma_cuda.cu): gene-parallel passes over
// the D-long vectors of the distribution, each gene's math that of the CPU
// (core/algorithms/sep_cma_es.hpp). ||p_sigma||^2 is reduced in a tree whose shape depends on
// D only (kUpdateBlocks), so that a run gives the same bits on every GPU.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/algorithms/sep_cma_es.hpp"
#include "core/types.hpp"
#include "fitness/device_block_reduce.cuh"
#include "fitness/reduction.hpp"

namespace chainsaw::device {

inline constexpr int kSepCmaThreads = 256;
// The most blocks of the norm's reduction: each of the step kernel's threads combines four.
inline constexpr int kUpdateBlocks = 4 * kSepCmaThreads;

inline int update_blocks(Dim n) {
  const Dim blocks = (n + kSepCmaThreads - 1) / kSepCmaThreads;
  return static_cast<int>(blocks < kUpdateBlocks ? blocks : kUpdateBlocks);
}

// The distribution's D-long vectors on the device, and the update's y_w and rank-mu sums.
struct SepCmaVectors {
  double* mean;
  double* c;
  double* path_c;
  double* path_sigma;
  double* y_w;
  double* rank_mu;
};

// What the host loop would otherwise wait for between the passes of a generation: sigma and
// the gains the norm decides.
struct SepCmaScalars {
  double sigma;
  double norm;
  SepCmaStep step;
};

// The coordinate restart criteria as atomics can reduce them: c's bits order as the values do
// (C stays positive), flags are or-ed, TolX is and-ed as "some gene is not below".
struct SepCmaDeviceChecks {
  unsigned long long c_min_bits, c_max_bits;
  unsigned no_effect_coord, no_effect_axis, above_tol_x;
};

__global__ void sep_cma_start_kernel(SepCmaVectors v, Dim n, double lower, double width,
                                     std::uint64_t key) {
  for (Dim j = blockIdx.x * static_cast<Dim>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<Dim>(gridDim.x) * blockDim.x) {
    v.mean[j] = sep_cma_start_mean(lower, width, key, j);
    v.c[j] = 1.0;
    v.path_c[j] = 0.0;
    v.path_sigma[j] = 0.0;
  }
}

// Offspring k < count into rows + k * pitch. A thread takes a pair of genes of every
// offspring (both normals of one draw): m and C are read, and sigma sqrt(C) made, once; each
// offspring's row is written
// coalesced; the offspring's keys are made once per block, a tile of them at a time.
__global__ void sep_cma_sample_kernel(SepCmaVectors v, const SepCmaScalars* scalars, real_t* rows,
                                      Dim pitch, Dim n, int count, std::uint64_t seed,
                                      std::uint64_t generation, double lower, double upper) {
  __shared__ std::uint64_t keys[kSepCmaThreads];
  const double sigma = scalars->sigma;
  const Dim pairs = (n + 1) / 2;
  for (int first = 0; first < count; first += kSepCmaThreads) {
    const int tile = count - first < kSepCmaThreads ? count - first : kSepCmaThreads;
    __syncthreads();
    if (static_cast<int>(threadIdx.x) < tile)
      keys[threadIdx.x] = derive_key(seed, kSepCmaSamplePurpose, generation,
                                     static_cast<std::uint64_t>(first + threadIdx.x));
    __syncthreads();
    for (Dim p = blockIdx.x * static_cast<Dim>(blockDim.x) + threadIdx.x; p < pairs;
         p += static_cast<Dim>(gridDim.x) * blockDim.x) {
      const Dim j = 2 * p;
      const int genes = j + 1 < n ? 2 : 1;
      const double m[2] = {v.mean[j], genes > 1 ? v.mean[j + 1] : 0.0};
      const double scale[2] = {sep_cma_scale(sigma, v.c[j]),
                               genes > 1 ? sep_cma_scale(sigma, v.c[j + 1]) : 0.0};
      for (int k = 0; k < tile; ++k)
        sep_cma_sample_pair(m, scale, keys[k], p, genes, lower, upper,
                            rows + static_cast<Dim>(first + k) * pitch + j);
    }
  }
}

// The update's half before the norm; each block's share of ||p_sigma||^2 to partials.
__global__ void sep_cma_before_norm_kernel(SepCmaVectors v, const SepCmaScalars* scalars,
                                           const real_t* rows, Dim pitch, const int* selected,
                                           const double* weights, int mu, Dim n, double c_sigma,
                                           double sigma_gain, double* partials) {
  __shared__ SumPartial parts[kSepCmaThreads];
  const double sigma = scalars->sigma;
  SumPartial mine;
  for (Dim j = blockIdx.x * static_cast<Dim>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<Dim>(gridDim.x) * blockDim.x) {
    const auto x_at = [&](int i) { return rows[static_cast<Dim>(selected[i]) * pitch + j]; };
    double mean = v.mean[j], path_sigma = v.path_sigma[j], y_w, rank_mu;
    sep_cma_gene_before_norm(mu, weights, x_at, sigma, c_sigma, sigma_gain, v.c[j], mean,
                             path_sigma, y_w, rank_mu);
    v.mean[j] = mean;
    v.path_sigma[j] = path_sigma;
    v.y_w[j] = y_w;
    v.rank_mu[j] = rank_mu;
    mine.sum += path_sigma * path_sigma;
  }
  const SumPartial block = block_combine(mine, parts);
  if (threadIdx.x == 0) partials[blockIdx.x] = block.sum;
}

// SepCmaParameters' learning rates, as a kernel argument.
struct SepCmaRates {
  double c_sigma, d_sigma, c_c, c_1, c_mu, mu_eff, chi_n;
};

// One block: the norm from the blocks' partials, in a fixed tree, and the generation's step.
__global__ void sep_cma_step_kernel(SepCmaScalars* scalars, const double* partials, int blocks,
                                    SepCmaRates p, double n, double generation) {
  __shared__ SumPartial parts[kSepCmaThreads];
  SumPartial mine;
  const int first = static_cast<int>(threadIdx.x) * (kUpdateBlocks / kSepCmaThreads);
  for (int b = first; b < blocks && b < first + kUpdateBlocks / kSepCmaThreads; ++b)
    mine.sum += partials[b];
  const SumPartial all = block_combine(mine, parts);
  if (threadIdx.x != 0) return;
  const double norm = sqrt(all.sum);
  scalars->norm = norm;
  scalars->step = sep_cma_step(p.c_sigma, p.d_sigma, p.c_c, p.c_1, p.c_mu, p.mu_eff, p.chi_n, n,
                               generation, norm, scalars->sigma);
  scalars->sigma = scalars->step.sigma;
}

__global__ void sep_cma_after_norm_kernel(SepCmaVectors v, const SepCmaScalars* scalars, Dim n,
                                          double c_c, double c_1, double c_mu) {
  const SepCmaStep step = scalars->step;
  for (Dim j = blockIdx.x * static_cast<Dim>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<Dim>(gridDim.x) * blockDim.x) {
    double path_c = v.path_c[j], c = v.c[j];
    sep_cma_gene_after_norm(c_c, c_1, c_mu, step, v.y_w[j], v.rank_mu[j], path_c, c);
    v.path_c[j] = path_c;
    v.c[j] = c;
  }
}

// The coordinate criteria of core/algorithms/sep_cma_es.cpp's coordinate_checks, per gene.
__global__ void sep_cma_checks_kernel(SepCmaVectors v, const SepCmaScalars* scalars, Dim n,
                                      double tol_x, Dim axis, SepCmaDeviceChecks* out) {
  const double sigma = scalars->sigma;
  unsigned long long lo = ~0ull, hi = 0;
  unsigned coord = 0, above = 0;
  for (Dim j = blockIdx.x * static_cast<Dim>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<Dim>(gridDim.x) * blockDim.x) {
    const double c = v.c[j], m = v.mean[j], sd = sigma * sqrt(c);
    above |= !(sd < tol_x && sigma * fabs(v.path_c[j]) < tol_x);
    coord |= m + 0.2 * sd == m;
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(c));
    lo = bits < lo ? bits : lo;
    hi = bits > hi ? bits : hi;
    if (j == axis && m + 0.1 * sigma * sqrt(c) == m) atomicOr(&out->no_effect_axis, 1u);
  }
  if (coord) atomicOr(&out->no_effect_coord, 1u);
  if (above) atomicOr(&out->above_tol_x, 1u);
  atomicMin(&out->c_min_bits, lo);
  atomicMax(&out->c_max_bits, hi);
}

}  // namespace chainsaw::device
