// The GPU's own forms of shared per-gene math, against the forms they replace: the Solis-Wets
// step's normals drawn as whole pairs, the bias scaled in the genes' precision, and cos(2 pi z)
// as the kernels compile it (fused multiply-adds). Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/engines/cuda/cuda_check.hpp"
#include "core/engines/cuda/device_buffer.hpp"
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
