// The GPU passes of the functions of generated data (task scheduling, Schwefel 2.6 and 2.13)
// against their host evaluation, and the same bits call after call. Skipped without a GPU.
#if defined(CHAINSAW_CUDA)

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/gpu/device_buffer.hpp"
#include "core/rng.hpp"
#include "fitness/problem.hpp"
#include "gpu_test_support.hpp"

namespace chainsaw {
namespace {

// f of `rows` random individuals (pitch > dim, as the engines lay rows out) on the host and
// through the device callback, twice.
void expect_gpu_equals_host(const Problem& p, double tolerance) {
  const int rows = 70;
  const Dim pitch = p.dim + 5;
  std::vector<real_t> genes(static_cast<std::size_t>(rows * pitch), real_t(0));
  CounterRng rng(p.dim);
  for (int r = 0; r < rows; ++r)
    for (Dim j = 0; j < p.dim; ++j)
      genes[static_cast<std::size_t>(r * pitch + j)] =
          static_cast<real_t>(p.lower + p.width() * rng.uniform());
  genes[0] = static_cast<real_t>(p.upper);  // the domain's top edge
  std::vector<double> host(rows);
  p.external->host(genes.data(), pitch, rows, p.dim, host.data());

  DeviceBuffer<real_t> d_genes(genes.size());
  DeviceBuffer<double> d_f(rows);
  CHAINSAW_CUDA_TRY(cudaMemcpy(d_genes.data(), genes.data(), d_genes.bytes(), cudaMemcpyHostToDevice));
  CudaStream stream;
  std::vector<double> gpu(rows), again(rows);
  for (std::vector<double>* out : {&gpu, &again}) {
    p.external->device(d_genes.data(), pitch, rows, p.dim, d_f.data(), stream.get());
    stream.synchronize();
    CHAINSAW_CUDA_TRY(cudaMemcpy(out->data(), d_f.data(), d_f.bytes(), cudaMemcpyDeviceToHost));
  }
  for (int r = 0; r < rows; ++r) {
    EXPECT_NEAR(gpu[r], host[r], tolerance * host[r]) << "row " << r;
    EXPECT_EQ(gpu[r], again[r]) << "row " << r;
    EXPECT_GT(host[r], 0.0);
  }
}

TEST(CudaDataFunctions, SchedulingEqualsTheHost) {
  REQUIRE_GPU();
  for (const char* name : {"u_c_hihi", "TlMlCi", "u_s_lohi"})
    for (Dim tasks : {512, 1000})
      for (int machines : {16, 3}) {
        SCOPED_TRACE(std::string(name) + " n=" + std::to_string(tasks) + " m=" +
                     std::to_string(machines));
        expect_gpu_equals_host(Problem::make("etc", tasks, 7, nullptr, {name, machines, 0.75}),
                               1e-12);
      }
}

TEST(CudaDataFunctions, SchwefelMatrixFunctionsEqualTheHost) {
  REQUIRE_GPU();
  for (const char* name : {"nashed-f7", "nashed-f17"})
    for (Dim d : {1, 37, 300, 2000}) {
      SCOPED_TRACE(std::string(name) + " D=" + std::to_string(d));
      expect_gpu_equals_host(Problem::make(name, d, 3), 1e-10);
    }
}

}  // namespace
}  // namespace chainsaw

#endif  // CHAINSAW_CUDA
