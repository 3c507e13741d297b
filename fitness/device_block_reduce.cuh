// A block per row: each thread reduces a contiguous range of the row's genes into its partial,
// and a fixed shared-memory tree combines neighbouring ranges in index order: exact for
// non-commutative partials (Schwefel 1.2's prefix), the same bits run after run. The shape of
// the population path's fused kernels (core/engines/cuda/population_kernels.cuh) and of the
// batch kernels that evaluate stored rows of a function with data (CEC 2010).
#pragma once

#include <cuda_runtime.h>

#include "core/types.hpp"

namespace chainsaw::device {

// The most threads of a block that evaluates a row (the population path's launch shape; the
// Janssen functions size their shared scratch by it).
inline constexpr int kMaxRowBlockThreads = 256;

// Genes of a block's thread: a contiguous range, so that ordered partials combine in index order.
struct GeneRange {
  Dim begin, end;
};
__device__ inline GeneRange thread_genes(Dim dim) {
  const Dim per = (dim + blockDim.x - 1) / blockDim.x;
  const Dim begin = static_cast<Dim>(threadIdx.x) * per;
  return {begin < dim ? begin : dim, begin + per < dim ? begin + per : dim};
}

// The block's partial from each thread's (threads in order, ranges in index order). Every
// thread gets it. `parts` holds blockDim.x partials.
template <class Partial>
__device__ Partial block_combine(const Partial& mine, Partial* parts) {
  parts[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (threadIdx.x % (2 * s) == 0 && threadIdx.x + s < blockDim.x)
      parts[threadIdx.x] = Partial::combine(parts[threadIdx.x], parts[threadIdx.x + s]);
    __syncthreads();
  }
  const Partial all = parts[0];
  __syncthreads();  // parts may be reused
  return all;
}

// The block's f from each thread's partial (Fn::finish of the combined partial, plus Fn::kBias).
template <class Fn>
__device__ double block_fitness(typename Fn::Partial mine, typename Fn::Partial* parts, Dim dim) {
  return Fn::finish(block_combine(mine, parts), dim) + Fn::kBias;
}

}  // namespace chainsaw::device
