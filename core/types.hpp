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

// The global bias of every paper function (Lastra et al. 2014 §6.3): the optimum value is -330.
inline constexpr double kFBias = -330.0;

template <class T>
CHAINSAW_HD T clamp_to(T v, T lo, T hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// a * b rounded on its own, never fused with an addition that follows. The GPU compiler fuses a
// product and a sum into one multiply-add where it sees both, and two kernels that inline the
// same gene formula differently would then make different genes of the same move (the chain
// kernel against a launch per step; the candidate evaluated against the move applied). The
// per-gene formulas of the genes' precision multiply through this, so that every kernel rounds
// as the host does (built with -ffp-contract=off).
template <class T>
CHAINSAW_HD T mul_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == sizeof(float))
    return __fmul_rn(a, b);
  else
    return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
// a + b rounded on its own, for the same reason: with mul_rn, a formula whose every product and
// sum goes through these gives the host's bits on the GPU (sep-CMA-ES's samples).
template <class T>
CHAINSAW_HD T add_rn(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == sizeof(float))
    return __fadd_rn(a, b);
  else
    return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

}  // namespace chainsaw
