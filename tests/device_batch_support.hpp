// The GPU tests of objectives with a device callback (the functions with data, Janssen's, CEC
// 2013's): the device's values against the host's. CUDA builds only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "core/gpu/device_buffer.hpp"
#include "fitness/problem.hpp"

namespace chainsaw::test {

// `points` as rows a pitch apart (wider than D, as the engines' batches), through the problem's
// device callback (after a call that only copies its data) and its host callback: equal to
// `relative` (their sums run in other orders).
inline void expect_device_batch_equals_host(const Problem& p,
                                            const std::vector<std::vector<double>>& points,
                                            double relative = 1e-11) {
  const int rows = static_cast<int>(points.size());
  const Dim pitch = p.dim + 5;
  std::vector<real_t> genes(static_cast<std::size_t>(rows * pitch), real_t{0});
  for (int r = 0; r < rows; ++r)
    std::copy(points[r].begin(), points[r].end(), genes.begin() + r * pitch);
  DeviceBuffer<real_t> d_genes(genes.size());
  DeviceBuffer<double> d_out(static_cast<std::size_t>(rows));
  ASSERT_EQ(cudaMemcpy(d_genes.data(), genes.data(), d_genes.bytes(), cudaMemcpyHostToDevice),
            cudaSuccess);
  p.external->device(nullptr, pitch, 0, p.dim, nullptr, nullptr);
  p.external->device(d_genes.data(), pitch, rows, p.dim, d_out.data(), nullptr);
  std::vector<double> gpu(static_cast<std::size_t>(rows)), host(static_cast<std::size_t>(rows));
  ASSERT_EQ(cudaMemcpy(gpu.data(), d_out.data(), d_out.bytes(), cudaMemcpyDeviceToHost),
            cudaSuccess);
  p.external->host(genes.data(), pitch, rows, p.dim, host.data());
  for (int r = 0; r < rows; ++r)
    EXPECT_NEAR(gpu[r], host[r], relative * std::fabs(host[r]) + 1e-300)
        << function_info(p.function).name << " D=" << p.dim << " row " << r;
}

}  // namespace chainsaw::test
