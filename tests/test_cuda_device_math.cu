// The GPU's own forms of shared per-gene math, against the forms they replace: the Solis-Wets
// step's normals drawn as whole pairs and their Box-Muller against double's, the bias scaled in
// the genes' precision, and cos(2 pi z) as the kernels compile it (fused multiply-adds). Skips
// without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/algorithms/population_ops.hpp"
#include "core/algorithms/sep_cma_es.hpp"
#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"
#include "fitness/functions.hpp"
#include "gpu_test_support.hpp"
#include "test_support.hpp"
#include "localsearch/device_solis_wets.cuh"

namespace chainsaw::test {
namespace {

using device::kVec;

constexpr int kStates = 256;

// Thread t: a state of sequence t; odd threads first draw one normal, so that they hold a
// spare. Then `runs` runs of n normals each, by normal01_run (pairs) or one normal01 at a time.
__global__ void normal_runs_kernel(bool as_runs, int n, int runs, real_t* out,
                                   curandState* states_after) {
  const int t = threadIdx.x;
  curandState s;
  curand_init(77, t, 0, &s);
  if (t % 2 == 1) (void)device::normal01(s);
  for (int r = 0; r < runs; ++r) {
    real_t v[kVec] = {};
    if (as_runs) {
      device::normal01_run(s, n, v);
    } else {
      for (int k = 0; k < n; ++k) v[k] = device::normal01(s);
    }
    for (int k = 0; k < kVec; ++k) out[(t * runs + r) * kVec + k] = v[k];
  }
  states_after[t] = s;
}

// Field by field: the state has 4 bytes of padding, which no draw writes.
bool same_state(const curandState& a, const curandState& b) {
  return a.d == b.d && std::memcmp(a.v, b.v, sizeof(a.v)) == 0 &&
         a.boxmuller_flag == b.boxmuller_flag &&
         a.boxmuller_flag_double == b.boxmuller_flag_double &&
         std::memcmp(&a.boxmuller_extra, &b.boxmuller_extra, sizeof(float)) == 0 &&
         std::memcmp(&a.boxmuller_extra_double, &b.boxmuller_extra_double, sizeof(double)) == 0;
}

// sep-CMA-ES's normals and samples on the device: the host's bits (its portable float math
// and the products and sums rounded one at a time).
__global__ void sep_cma_draws_kernel(std::uint64_t key, int pairs, float* normals, real_t* x) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= pairs) return;
  const NormalPair z = normal_pair_at(key, static_cast<std::uint64_t>(p));
  normals[2 * p] = z.first;
  normals[2 * p + 1] = z.second;
  const double mean[2] = {0.125 * p - 3.0, sep_cma_start_mean(-5.0, 10.0, key, p)};
  const double c[2] = {0.5 + 0x1p-10 * p, 2.0};  // exact: no fused rounding to differ
  const double scale[2] = {sep_cma_scale(0.7, c[0]), sep_cma_scale(0.7, c[1])};
  sep_cma_sample_pair(mean, scale, key, p, 2, -5.0, 5.0, x + 2 * p);
}

TEST(CudaDeviceMath, SepCmaSamplesAreTheHostsBitForBit) {
  REQUIRE_GPU();
  constexpr int kPairs = 1 << 16;
  const std::uint64_t key = derive_key(5, 202, 3, 7);
  DeviceBuffer<float> normals(2 * kPairs);
  DeviceBuffer<real_t> x(2 * kPairs);
  sep_cma_draws_kernel<<<kPairs / 256, 256>>>(key, kPairs, normals.data(), x.data());
  CHAINSAW_CUDA_CHECK_LAUNCH();
  std::vector<float> got(2 * kPairs);
  std::vector<real_t> got_x(2 * kPairs);
  CHAINSAW_CUDA_TRY(cudaMemcpy(got.data(), normals.data(), normals.bytes(), cudaMemcpyDeviceToHost));
  CHAINSAW_CUDA_TRY(cudaMemcpy(got_x.data(), x.data(), x.bytes(), cudaMemcpyDeviceToHost));
  int differ = 0;
  for (int p = 0; p < kPairs; ++p) {
    const NormalPair z = normal_pair_at(key, static_cast<std::uint64_t>(p));
    const double mean[2] = {0.125 * p - 3.0, sep_cma_start_mean(-5.0, 10.0, key, p)};
    const double c[2] = {0.5 + 0x1p-10 * p, 2.0};  // exact: no fused rounding to differ
    const double scale[2] = {sep_cma_scale(0.7, c[0]), sep_cma_scale(0.7, c[1])};
    real_t want[2];
    sep_cma_sample_pair(mean, scale, key, p, 2, -5.0, 5.0, want);
    differ += got[2 * p] != z.first || got[2 * p + 1] != z.second || got_x[2 * p] != want[0] ||
              got_x[2 * p + 1] != want[1];
  }
  EXPECT_EQ(differ, 0) << "of " << kPairs << " pairs";
}

TEST(CudaDeviceMath, NormalRunsEqualOneDrawAtATimeBitForBit) {
  REQUIRE_GPU();
  constexpr int kRuns = 5;
  // Whole runs (pairs) and short runs of both parities, which leave a spare for the next run.
  for (int n : {kVec, kVec - 1, 1}) {
    std::vector<real_t> values[2];
    std::vector<curandState> after[2];
    for (int form = 0; form < 2; ++form) {
      DeviceBuffer<real_t> out(static_cast<std::size_t>(kStates) * kRuns * kVec);
      DeviceBuffer<curandState> states(kStates);
      normal_runs_kernel<<<1, kStates>>>(form == 1, n, kRuns, out.data(), states.data());
      CHAINSAW_CUDA_CHECK_LAUNCH();
      values[form].resize(out.size());
      after[form].resize(kStates);
      CHAINSAW_CUDA_TRY(cudaMemcpy(values[form].data(), out.data(), out.bytes(),
                                   cudaMemcpyDeviceToHost));
      CHAINSAW_CUDA_TRY(cudaMemcpy(after[form].data(), states.data(), states.bytes(),
                                   cudaMemcpyDeviceToHost));
    }
    EXPECT_EQ(std::memcmp(values[0].data(), values[1].data(), values[0].size() * sizeof(real_t)),
              0) << "n = " << n;
    for (int t = 0; t < kStates; ++t)
      EXPECT_TRUE(same_state(after[0][t], after[1][t])) << "n = " << n << ", thread " << t;
    // Not all the same value: the runs drew.
    EXPECT_NE(values[0][0], values[0][1]) << "n = " << n;
  }
}

#if !defined(CHAINSAW_DOUBLE)
constexpr int kPairsPerThread = 512;

// Thread t, state of sequence t: for each pair, the two draws it takes, normal_pair's values
// and curand_normal2's from the same state.
__global__ void normal_pairs_kernel(unsigned* draws, float2* ours, float2* curands) {
  const int t = threadIdx.x;
  curandState s;
  curand_init(91, t, 0, &s);
  for (int i = 0; i < kPairsPerThread; ++i) {
    const int at = t * kPairsPerThread + i;
    curandState copy = s;
    draws[2 * at] = curand(&copy);
    draws[2 * at + 1] = curand(&copy);
    copy = s;
    curands[at] = curand_normal2(&copy);
    ours[at] = device::normal_pair(s);
  }
}

// Against Box-Muller in double on the same two draws (cuRAND's mapping to u and the angle):
// within 1e-5 (relative above a radius of 1) where the radius is above 0.1, within 1e-3 below,
// where cuRAND's own pair, u rounded to a float, is as far; and the sample is N(0, 1).
TEST(CudaDeviceMath, NormalPairsAreBoxMullerOfTheirDraws) {
  REQUIRE_GPU();
  constexpr std::size_t kPairs = static_cast<std::size_t>(kStates) * kPairsPerThread;
  DeviceBuffer<unsigned> draws_d(2 * kPairs);
  DeviceBuffer<float2> ours_d(kPairs), curands_d(kPairs);
  normal_pairs_kernel<<<1, kStates>>>(draws_d.data(), ours_d.data(), curands_d.data());
  CHAINSAW_CUDA_CHECK_LAUNCH();
  std::vector<unsigned> draws(draws_d.size());
  std::vector<float2> ours(kPairs), curands(kPairs);
  CHAINSAW_CUDA_TRY(cudaMemcpy(draws.data(), draws_d.data(), draws_d.bytes(), cudaMemcpyDeviceToHost));
  CHAINSAW_CUDA_TRY(cudaMemcpy(ours.data(), ours_d.data(), ours_d.bytes(), cudaMemcpyDeviceToHost));
  CHAINSAW_CUDA_TRY(
      cudaMemcpy(curands.data(), curands_d.data(), curands_d.bytes(), cudaMemcpyDeviceToHost));
  const double two_pow_32 = std::ldexp(1.0, 32), two_pi = 2.0 * std::acos(-1.0);
  double sum = 0.0, sum_squares = 0.0, worst_ours = 0.0, worst_curand = 0.0;
  for (std::size_t i = 0; i < kPairs; ++i) {
    const double u = (draws[2 * i] + 0.5) / two_pow_32;
    const double angle = (draws[2 * i + 1] + 0.5) / two_pow_32 * two_pi;
    const double radius = std::sqrt(-2.0 * std::log(u));
    const double want[2] = {radius * std::sin(angle), radius * std::cos(angle)};
    const double got[2] = {ours[i].x, ours[i].y};
    const double theirs[2] = {curands[i].x, curands[i].y};
    const double bound = radius > 0.1 ? 1e-5 * std::max(1.0, radius) : 1e-3;
    for (int k = 0; k < 2; ++k) {
      ASSERT_TRUE(std::isfinite(got[k])) << "pair " << i;
      ASSERT_LE(std::abs(got[k] - want[k]), bound) << "pair " << i << ", radius " << radius;
      worst_ours = std::max(worst_ours, std::abs(got[k] - want[k]) / bound);
      worst_curand = std::max(worst_curand, std::abs(theirs[k] - want[k]) / bound);
      sum += got[k];
      sum_squares += got[k] * got[k];
    }
  }
  // cuRAND's own pairs are within the same bound.
  EXPECT_LE(worst_curand, 1.0);
  RecordProperty("worst_error_over_bound", std::to_string(worst_ours));
  const double n = 2.0 * kPairs, mean = sum / n;
  EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(sum_squares / n - mean * mean, 1.0, 5.0 * std::sqrt(2.0 / n));
}
#endif

__global__ void scale_genes_kernel(const double* scales, int scale_count, const real_t* bias,
                                   int bias_runs, real_t* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= scale_count * bias_runs) return;
  const int s = i / bias_runs, r = i % bias_runs;
  real_t v[kVec];
  for (int k = 0; k < kVec; ++k) v[k] = bias[r * kVec + k];
  device::scale_genes(scales[s], kVec, v);
  for (int k = 0; k < kVec; ++k) out[i * kVec + k] = v[k];
}

// Every power-of-two scale from 1 to 2^-170 (below float's range from 2^-150), on bias values of
// every magnitude: products in the normal range, in the subnormal range (rounded) and below.
TEST(CudaDeviceMath, ScaledBiasEqualsTheDoubleProductRoundedBitForBit) {
  REQUIRE_GPU();
  std::vector<double> scales;
  for (int e = 0; e >= -170; --e) scales.push_back(std::ldexp(1.0, e));
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-140, 20);
  constexpr int kBiasRuns = 64;
  std::vector<real_t> bias(static_cast<std::size_t>(kBiasRuns) * kVec);
  for (auto& b : bias)
    b = static_cast<real_t>((gen() & 1 ? -1.0 : 1.0) * std::ldexp(mantissa(gen), exponent(gen)));
  const int count = static_cast<int>(scales.size()) * kBiasRuns;
  DeviceBuffer<double> scales_d(scales.size());
  DeviceBuffer<real_t> bias_d(bias.size()), out_d(static_cast<std::size_t>(count) * kVec);
  CHAINSAW_CUDA_TRY(
      cudaMemcpy(scales_d.data(), scales.data(), scales_d.bytes(), cudaMemcpyHostToDevice));
  CHAINSAW_CUDA_TRY(cudaMemcpy(bias_d.data(), bias.data(), bias_d.bytes(), cudaMemcpyHostToDevice));
  scale_genes_kernel<<<(count + 255) / 256, 256>>>(scales_d.data(), static_cast<int>(scales.size()),
                                                   bias_d.data(), kBiasRuns, out_d.data());
  CHAINSAW_CUDA_CHECK_LAUNCH();
  std::vector<real_t> out(out_d.size());
  CHAINSAW_CUDA_TRY(cudaMemcpy(out.data(), out_d.data(), out_d.bytes(), cudaMemcpyDeviceToHost));
  int rounded = 0;
  for (int i = 0; i < count; ++i)
    for (int k = 0; k < kVec; ++k) {
      const double exact = scales[i / kBiasRuns] * bias[(i % kBiasRuns) * kVec + k];
      const real_t want = static_cast<real_t>(exact);
      const real_t got = out[static_cast<std::size_t>(i) * kVec + k];
      ASSERT_EQ(std::memcmp(&got, &want, sizeof(real_t)), 0)
          << "scale 2^" << std::ilogb(scales[i / kBiasRuns]) << ", bias "
          << bias[(i % kBiasRuns) * kVec + k];
      if (static_cast<double>(want) != exact) ++rounded;
    }
  if (sizeof(real_t) == sizeof(float)) EXPECT_GT(rounded, 0);  // the rounded cases were met
}

__global__ void cos_two_pi_kernel(const double* z, int n, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = detail::cos_two_pi(z[i]);
}

// The host's bound (tests/test_host_rng.cpp) holds for the GPU's contracted polynomial too.
TEST(CudaDeviceMath, CosTwoPiIsWithin4e16OfLongDoubleCos) {
  REQUIRE_GPU();
  std::vector<double> z = cos_two_pi_test_points();
  z[0] = 0.0;
  z[1] = 0.5;
  z[2] = -3.0;
  z[3] = 0.25;
  DeviceBuffer<double> z_d(z.size()), out_d(z.size());
  CHAINSAW_CUDA_TRY(cudaMemcpy(z_d.data(), z.data(), z_d.bytes(), cudaMemcpyHostToDevice));
  const int n = static_cast<int>(z.size());
  cos_two_pi_kernel<<<(n + 255) / 256, 256>>>(z_d.data(), n, out_d.data());
  CHAINSAW_CUDA_CHECK_LAUNCH();
  std::vector<double> out(z.size());
  CHAINSAW_CUDA_TRY(cudaMemcpy(out.data(), out_d.data(), out_d.bytes(), cudaMemcpyDeviceToHost));
  double worst = 0.0;
  for (std::size_t i = 0; i < z.size(); ++i)
    worst = std::max(worst, static_cast<double>(std::fabs(out[i] - cos_two_pi_reference(z[i]))));
  EXPECT_LT(worst, 4e-16);
  EXPECT_EQ(out[0], 1.0);
  EXPECT_EQ(out[1], -1.0);
  EXPECT_EQ(out[2], 1.0);
  EXPECT_LT(std::fabs(out[3]), 1e-16);
}

__global__ void rastrigin_term_kernel(const double* z, int n, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = detail::rastrigin_term(z[i]);
}

// The host's bound (tests/test_host_rng.cpp) holds for the GPU's contracted polynomial too.
TEST(CudaDeviceMath, RastriginTermIsWithin2e13OfLongDoubleRelative) {
  REQUIRE_GPU();
  std::vector<double> z = rastrigin_term_test_points();
  z[0] = 0.0;
  z[1] = -3.0;
  DeviceBuffer<double> z_d(z.size()), out_d(z.size());
  CHAINSAW_CUDA_TRY(cudaMemcpy(z_d.data(), z.data(), z_d.bytes(), cudaMemcpyHostToDevice));
  const int n = static_cast<int>(z.size());
  rastrigin_term_kernel<<<(n + 255) / 256, 256>>>(z_d.data(), n, out_d.data());
  CHAINSAW_CUDA_CHECK_LAUNCH();
  std::vector<double> out(z.size());
  CHAINSAW_CUDA_TRY(cudaMemcpy(out.data(), out_d.data(), out_d.bytes(), cudaMemcpyDeviceToHost));
  EXPECT_LT(rastrigin_term_worst_relative_error(z, out), 2e-13);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_EQ(out[1], 9.0);
}

}  // namespace
}  // namespace chainsaw::test
