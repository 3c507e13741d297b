// Basic types shared by every part of chainsaw, host and device.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CHAINSAW_HD __host__ __device__ __forceinline__
#else
#define CHAINSAW_HD inline
#endif

// Unrolls the next loop completely on the GPU, where a local array indexed by its counter must
// stay in registers (the host compiler would warn about the unknown pragma).
#if defined(__CUDA_ARCH__)
#define CHAINSAW_UNROLL _Pragma("unroll")
#else
#define CHAINSAW_UNROLL
#endif

namespace chainsaw {

// Genes are float32 unless built with -DCHAINSAW_DOUBLE=ON: half the bytes per pass over an
// individual, which is what bounds every phase at 10^6+ dimensions. Sums always use double.
#if defined(CHAINSAW_DOUBLE)
using real_t = double;
#else
using real_t = float;
#endif

// Gene indices: 10^8 genes times ~70 slots overflows 32 bits, so every gene offset is 64-bit.
using Dim = std::int64_t;

// The global bias of every paper function (seed 003 §6.3): the optimum value is -330.
inline constexpr double kFBias = -330.0;

template <class T>
CHAINSAW_HD T clamp_to(T v, T lo, T hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace chainsaw
