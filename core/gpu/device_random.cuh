// The GPU's random numbers, drawn from a thread's cuRAND XORWOW state: uniforms and standard
// normals in the precision of the genes, one at a time or a whole run of a lane's genes. Every
// pass that draws (initialisation, crossover, Solis-Wets) takes them from here.
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include "core/types.hpp"

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

}  // namespace chainsaw::device
