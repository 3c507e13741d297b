// A lane's run of genes in registers: loaded and stored as whole 16-byte words where the run is
// whole, gene by gene at a row's end.
#pragma once

#include <cuda_runtime.h>

#include <cstring>

#include "core/types.hpp"

namespace chainsaw::device {

// Loads/stores a lane's L genes as 16-byte accesses when the run is whole (always aligned:
// rows have a 32-gene pitch and runs start at multiples of L).
template <int L>
inline constexpr int kAccesses = L * static_cast<int>(sizeof(real_t)) / 16;
template <int L>
__device__ inline void load_genes(const real_t* p, int n, real_t (&out)[L]) {
  static_assert(L * sizeof(real_t) % 16 == 0, "a run is whole 16-byte words");
  if (n == L) {
    uint4 raw[kAccesses<L>];
#pragma unroll
    for (int q = 0; q < kAccesses<L>; ++q) raw[q] = reinterpret_cast<const uint4*>(p)[q];
    memcpy(out, raw, sizeof(raw));
  } else {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) out[k] = p[k];
  }
}
template <int L>
__device__ inline void store_genes(real_t* p, int n, const real_t (&in)[L]) {
  if (n == L) {
    uint4 raw[kAccesses<L>];
    memcpy(raw, in, sizeof(raw));
#pragma unroll
    for (int q = 0; q < kAccesses<L>; ++q) reinterpret_cast<uint4*>(p)[q] = raw[q];
  } else {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) p[k] = in[k];
  }
}

}  // namespace chainsaw::device
