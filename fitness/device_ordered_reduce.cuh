// Ordered reductions of partials within a warp and a block: neighbouring ranges combined left
// to right, so that non-commutative partials (Schwefel 1.2's prefix) come out exact and every
// sum is the same bits run after run.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "fitness/reduce_shape.hpp"

namespace chainsaw::device {

template <class Partial>
__device__ Partial shuffle_down(const Partial& p, int offset) {
  static_assert(sizeof(Partial) % sizeof(double) == 0, "partials are made of doubles");
  constexpr int n = sizeof(Partial) / sizeof(double);
  Partial r;
  const double* src = reinterpret_cast<const double*>(&p);
  double* dst = reinterpret_cast<double*>(&r);
#pragma unroll
  for (int i = 0; i < n; ++i) dst[i] = __shfl_down_sync(0xffffffffu, src[i], offset);
  return r;
}

// Ordered warp reduction: after the step of width w, lane i (i % 2w == 0) holds lanes
// [i, i + 2w) combined left to right. Lane 0 ends with the whole warp; with kLanes < 32, each
// lane that is a multiple of kLanes with its kLanes lanes (the first steps of the same tree).
template <int kLanes = 32, class Partial>
__device__ Partial warp_reduce_ordered(Partial p) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int w = 1; w < kLanes; w *= 2) {
    const Partial other = shuffle_down(p, w);
    if ((lane & (2 * w - 1)) == 0) p = Partial::combine(p, other);
  }
  return p;
}

// Combines items(0..count) in order with the whole block; the result is valid in thread 0.
// kPaired: a block of kThreads or twice as many (the Solis-Wets chain kernel's paired blocks)
// reduces in each kThreads apart, as blocks of their own would, each its own `items` and
// `count`, the result valid in each one's first thread; warp_scratch then holds a slot per warp
// of the block. Only there: the other kernels keep the registers, and so the launch shapes and
// bits, that they have without it.
template <bool kPaired = false, class Partial, class Items>
__device__ Partial block_reduce_ordered(const Items& items, int count, Partial* warp_scratch) {
  const int thread = kPaired ? static_cast<int>(threadIdx.x % kThreads) : threadIdx.x;
  const int per_thread = (count + kThreads - 1) / kThreads;
  const int begin = thread * per_thread;
  Partial p{};
  for (int i = begin; i < begin + per_thread && i < count; ++i)
    p = i == begin ? items(i) : Partial::combine(p, items(i));
  p = warp_reduce_ordered(p);
  if ((threadIdx.x & 31) == 0) warp_scratch[threadIdx.x / 32] = p;
  __syncthreads();
  if (thread == 0) {
    const Partial* const own = kPaired ? warp_scratch + threadIdx.x / 32 : warp_scratch;
    p = own[0];
    for (int w = 1; w < kWarps; ++w) p = Partial::combine(p, own[w]);
  }
  return p;
}
template <class Partial>
struct ContiguousItems {
  const Partial* items;
  __device__ Partial operator()(int i) const { return items[i]; }
};
// Row `row`'s partials in an all-gather of every rank's rows x blocks_x partials: rank-major,
// so item i is block i % blocks_x of rank i / blocks_x, the order of the slices.
template <class Partial>
struct GatheredItems {
  const Partial* gathered;
  int rows, row, blocks_x;
  __device__ Partial operator()(int i) const {
    const int rank = i / blocks_x;
    return gathered[(static_cast<std::size_t>(rank) * rows + row) * blocks_x + (i - rank * blocks_x)];
  }
};

}  // namespace chainsaw::device
