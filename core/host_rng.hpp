// Random numbers of the CPU backend's per-gene passes, drawn in blocks that the compiler
// vectorises. Draw k of a stream is a pure function of (key, k) — CounterRng's (k+1)-th
// SplitMix64 output — so a gene's numbers depend only on its chunk's key and its place in the
// chunk, never on the thread or the vector width. The conversions avoid what x86 cannot
// vectorise before AVX-512 (int64 to double, the library's log and cos): uniforms are mantissa
// bits, the logarithm and cosine are branch-free polynomials with exact reductions. No
// -ffast-math is needed, so every build gives the same bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/rng.hpp"
#include "fitness/functions.hpp"

namespace chainsaw {

// Draw k of the stream `key`: what CounterRng(key)'s (k+1)-th next_u64() returns.
inline std::uint64_t block_draw(std::uint64_t key, std::uint64_t k) {
  return mix64(key + (k + 1) * 0x9e3779b97f4a7c15ULL);
}

// A 32-bit integer as a double through the bits of 2^52 + v: no int64 conversion.
inline double u32_as_double(std::uint64_t v) {
  const std::uint64_t bits = v | 0x4330000000000000ULL;
  double two52_plus_v;
  std::memcpy(&two52_plus_v, &bits, sizeof bits);
  return two52_plus_v - 0x1p52;
}

// Uniforms in blocks of kUniformBlock genes: draw block * kUniformBlock/2 + t gives gene t its
// high 32 bits and gene kUniformBlock/2 + t its low 32 bits (one 64-bit draw per two genes; 32
// bits resolve any gene interval far below a float's step), as k 2^-32 in [0, 1).
inline constexpr int kUniformBlock = 16;

inline void uniform_block(std::uint64_t key, std::uint64_t block, double* out) {
  constexpr int kDraws = kUniformBlock / 2;
  for (int t = 0; t < kDraws; ++t) {
    const std::uint64_t draw = block_draw(key, block * kDraws + static_cast<std::uint64_t>(t));
    out[t] = u32_as_double(draw >> 32) * 0x1p-32;
    out[kDraws + t] = u32_as_double(draw & 0xffffffffULL) * 0x1p-32;
  }
}

// ln(u) for a positive normal double u. u = 2^e m with m in [sqrt(1/2), sqrt(2)), then
// ln m = 2 atanh(s), s = (m - 1)/(m + 1), |s| < 0.172, by its series to s^23 (next term
// < 1e-19 relative); e ln 2 in two parts (fdlibm's split), so the result is within a few ulp.
inline double log_polynomial(double u) {
  std::uint64_t bits;
  std::memcpy(&bits, &u, sizeof bits);
  const std::uint64_t mantissa_bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  // The biased exponent as a double through the bits of 2^52 + e: no int64 conversion.
  const std::uint64_t exponent_bits = (bits >> 52) | 0x4330000000000000ULL;
  double m, biased_exponent;
  std::memcpy(&m, &mantissa_bits, sizeof m);
  std::memcpy(&biased_exponent, &exponent_bits, sizeof biased_exponent);
  const bool halve = m > 1.4142135623730951;
  m = halve ? 0.5 * m : m;
  const double e = (biased_exponent - 0x1p52) - (halve ? 1022.0 : 1023.0);
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 23.0;
  p = p * s2 + 1.0 / 21.0;
  p = p * s2 + 1.0 / 19.0;
  p = p * s2 + 1.0 / 17.0;
  p = p * s2 + 1.0 / 15.0;
  p = p * s2 + 1.0 / 13.0;
  p = p * s2 + 1.0 / 11.0;
  p = p * s2 + 1.0 / 9.0;
  p = p * s2 + 1.0 / 7.0;
  p = p * s2 + 1.0 / 5.0;
  p = p * s2 + 1.0 / 3.0;
  const double log_m = 2.0 * s + 2.0 * s * s2 * p;
  constexpr double kLn2Hi = 0x1.62e42fefa3800p-1, kLn2Lo = 0x1.ef35793c76730p-45;
  return e * kLn2Hi + (log_m + e * kLn2Lo);
}

// Standard normals in blocks of kNormalBlock genes by Box-Muller: pair t of the block (draw
// k = block * kNormalBlock/2 + t: u1 = (high 32 bits + 1) 2^-32 in (0, 1], no log(0); u2 = low
// 32 bits times 2^-32) gives gene t its cosine deviate and gene kNormalBlock/2 + t its sine
// deviate, so both halves are contiguous vector stores. u1 >= 2^-32 bounds |N| by 6.66 sigma
// (the tail beyond has probability 3e-11).
inline constexpr int kNormalBlock = 16;

inline void normal_block(std::uint64_t key, std::uint64_t block, double* out) {
  constexpr int kPairs = kNormalBlock / 2;
  for (int t = 0; t < kPairs; ++t) {
    const std::uint64_t draw = block_draw(key, block * kPairs + static_cast<std::uint64_t>(t));
    const double u1 = (u32_as_double(draw >> 32) + 1.0) * 0x1p-32;
    const double u2 = u32_as_double(draw & 0xffffffffULL) * 0x1p-32;
    const double radius = std::sqrt(-2.0 * log_polynomial(u1));
    out[t] = radius * detail::cos_two_pi(u2);
    out[kPairs + t] = radius * detail::cos_two_pi(u2 - 0.25);  // sin(2 pi u2), exact shift
  }
}

}  // namespace chainsaw
