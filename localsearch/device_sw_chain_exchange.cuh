// How the blocks of the Solis-Wets chain kernel exchange a step's partials: loads from L2 of
// what other blocks wrote before the grid barrier, the block's total combined by warp 0 alone,
// and the grid barrier arrived at by one thread per block.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "fitness/device_ordered_reduce.cuh"
#include "fitness/reduce_shape.hpp"

namespace chainsaw::device {

// T's words at p, read from L2 as Words (ld.global.cg).
template <class Word, class T>
__device__ __forceinline__ T words_from_l2(const T* p) {
  T value;
  Word* dst = reinterpret_cast<Word*>(&value);
  const Word* src = reinterpret_cast<const Word*>(p);
  #pragma unroll
  for (std::size_t i = 0; i < sizeof(T) / sizeof(Word); ++i) dst[i] = __ldcg(src + i);
  return value;
}
// Reads what another block wrote before a grid-wide barrier: from L2, never from a line this
// SM's L1 may still hold from an earlier step. In the widest words the address allows: after
// the barrier every block reads all the step's partials at once, and 4-byte loads multiplied
// the requests to those same lines of L2 (four per 16-byte partial).
template <class T>
__device__ T load_from_l2(const T* p) {
  static_assert(sizeof(T) % sizeof(int) == 0, "read as ints");
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  if constexpr (sizeof(T) % sizeof(int4) == 0)
    if (address % sizeof(int4) == 0) return words_from_l2<int4>(p);
  if constexpr (sizeof(T) % sizeof(int2) == 0)
    if (address % sizeof(int2) == 0) return words_from_l2<int2>(p);
  return words_from_l2<int>(p);
}
template <class Partial>
struct L2Items {
  const Partial* items;
  __device__ Partial operator()(int i) const { return load_from_l2(items + i); }
};

// The chain kernel's exchange where it may pair (whole lanes; partials of sums and products):
// warp 0 alone combines the block's warp partials and thread 0 alone arrives at the grid
// barrier, so a step passes four __syncthreads instead of seven
// (bench/results/2026-11-29-h200-sw-step-barriers).
//
// A partial combined with the identity: itself, but for a -0.0 sum, which it makes +0.0; more
// such combinations leave that as it is. So one stands for the several of a tree whose later
// levels combine only identities, to the bit.
template <class Partial>
__device__ __forceinline__ Partial with_identity(const Partial& p) {
  return Partial::combine(p, Partial{});
}
// The block's partial in lane 0 of warp 0, as block_reduce_ordered<true> over each half's
// kWarps warp partials, then the two halves' combination, give it in thread 0: the first half's
// in lanes [0, kWarps), the second's in lanes [16, 16 + kWarps), the tree's levels that combine
// them as warp_reduce_ordered takes them, and one combination with the identity for the levels
// and the block's second level after them.
template <class Partial>
__device__ __forceinline__ Partial warp0_block_total(const Partial* warp_results, int halves) {
  static_assert(2 * kWarps <= 32, "both halves' warps in one warp");
  const int lane = threadIdx.x & 31;
  Partial p{};
  if ((lane & 15) < kWarps && (lane < 16 || halves == 2))
    p = warp_results[(lane & 15) + (lane < 16 ? 0 : kWarps)];
  p = with_identity(warp_reduce_ordered<kWarps>(p));
  const Partial upper = shuffle_down(p, 16);
  return halves == 2 ? Partial::combine(p, upper) : p;
}
// Cooperative groups' grid barrier in one thread of each block: its protocol on the launch's
// own barrier word (its grid syncs in the same launch stay valid), without the __syncthreads
// before and after, which the block's threads need only where all of them wrote or read.
__device__ __forceinline__ void grid_barrier_one_thread() {
  unsigned int* const word = &cooperative_groups::details::get_grid_workspace()->barrier;
  // Every round adds 2^31 in all: the top bit flips once every block has arrived.
  const unsigned int add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
  unsigned int before, now;
  asm volatile("atom.add.release.gpu.u32 %0,[%1],%2;"
               : "=r"(before) : "l"(word), "r"(add) : "memory");
  do {
    asm volatile("ld.acquire.gpu.u32 %0,[%1];" : "=r"(now) : "l"(word) : "memory");
  } while (((before ^ now) & 0x80000000u) == 0);
}

}  // namespace chainsaw::device
