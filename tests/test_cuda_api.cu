// The library API on the GPU backend: per-gene objectives in the engine's fused passes compiled
// here by nvcc, batch callbacks with device pointers. Skips without a GPU.
#include <chainsaw/chainsaw.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "api_objectives.hpp"
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/gpu/device_buffer.hpp"
#include "gpu_test_support.hpp"
#include "temp_dir_test.hpp"

namespace chainsaw::test {
namespace {

Options gpu_options(Dim dim, std::int64_t evaluations, std::uint64_t seed = 3) {
  return small_api_options(dim, evaluations, seed, Backend::kCuda);
}

Config engine_config(const std::string& function, Dim dim) {
  Config c;
  c.function = function;
  c.dim = dim;
  c.population_size = 6;
  c.batch = 4;
  c.nam_candidates = 3;
  c.backend = Backend::kCuda;
  return c;
}

std::vector<real_t> uniform_point(Dim dim, double lo, double hi, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<real_t> x(static_cast<std::size_t>(dim));
  for (auto& v : x) v = static_cast<real_t>(u(gen));
  return x;
}

// f of x written into slot 0 of a GPU engine on `problem`.
double gpu_fitness(CudaEngine& engine, const std::vector<real_t>& x) {
  engine.write_genes(0, x.data());
  return engine.fitness(0);
}

// The user objective runs in the engine's fused passes, instantiated here: the built-in's
// kernels, shapes and reduction trees, so the same value bit for bit wherever the built-in's
// evaluation pass has the same launch shape. That pass reads o from memory in a kernel of its own
// (core/engines/cuda/device_passes.cuh), shaped by that kernel's blocks per SM. At 1,000 genes
// every row is one block, so the values agree to the bit. At 1,000,003 genes:
// - Schwefel 1.2's stored-o kernel holds as many blocks per SM as the hashing kernel, so the
//   values still agree to the bit;
// - Rastrigin's holds fewer on the H100 (54 registers against 48), so it cuts the row into other
//   blocks, and the same terms agree only to the rounding of another tree
//   (`large_dim_same_shape` false).
template <class Obj>
void expect_same_as_builtin(const char* function, const Obj& user, double lo, double hi,
                            bool large_dim_same_shape) {
  for (const Dim dim : {Dim{1000}, Dim{1000003}}) {
    const Problem builtin = Problem::make(function, dim, 3);
    const Problem external =
        Problem::make_external(std::make_shared<BatchObjective>(batch_objective(user)), dim);
    CudaEngine a(engine_config(function, dim), builtin);
    CudaEngine b(engine_config(function, dim), external);
    std::mt19937_64 gen(17);
    for (int k = 0; k < 3; ++k) {
      const std::vector<real_t> x = uniform_point(dim, lo, hi, gen);
      const double fa = gpu_fitness(a, x), fb = gpu_fitness(b, x);
      if (dim == 1000 || large_dim_same_shape) {
        EXPECT_EQ(fb, fa) << function << " D=" << dim;
      } else {
        EXPECT_NEAR(fb, fa, 1e-13 * std::fabs(fa)) << function << " D=" << dim;
      }
      const double host = detail::evaluate_row_host(user, x.data(), dim);  // the CPU's value
      EXPECT_NEAR(fb, host, 1e-12 * std::fabs(host)) << function << " D=" << dim;
    }
  }
}

TEST(CudaApi, UserRastriginEvaluatesLikeTheBuiltin) {
  REQUIRE_GPU();
  expect_same_as_builtin("rastrigin", UserRastrigin{benchmark_shift(-5.12, 5.12, 3)}, -5.12, 5.12,
                         false);
}

TEST(CudaApi, UserSchwefel12EvaluatesLikeTheBuiltinBitForBit) {
  REQUIRE_GPU();
  expect_same_as_builtin("schwefel12", UserSchwefel12{benchmark_shift(-100.0, 100.0, 3)}, -100.0,
                         100.0, true);
}

// Whole runs: initial population, crossover batches, Solis-Wets chains, every decision. 100,003
// genes: several blocks per row and a ragged last tile.
TEST(CudaApi, UserRastriginGivesTheBuiltinRunBitForBit) {
  REQUIRE_GPU();
  const Options o = gpu_options(100003, 3000);
  const BuiltinRun builtin = run_builtin<CudaEngine>("rastrigin", o);
  const Result r = optimize(UserRastrigin{benchmark_shift(-5.12, 5.12, o.seed)}, o);
  EXPECT_EQ(r.backend, Backend::kCuda);
  expect_same_run(builtin, r);
}

TEST(CudaApi, UserSchwefel12GivesTheBuiltinRunBitForBit) {
  REQUIRE_GPU();
  const Options o = gpu_options(100003, 2000, 7);
  expect_same_run(run_builtin<CudaEngine>("schwefel12", o),
                  optimize(UserSchwefel12{benchmark_shift(-100.0, 100.0, o.seed)}, o));
}

// The block partial through the GPU's ordered warp/block tree, blocks split across tiles.
TEST(CudaApi, GroupedObjectiveMatchesTheHostEvaluation) {
  REQUIRE_GPU();
  const UserGrouped user;
  for (const Dim dim : {Dim{977}, Dim{1000050}}) {
    const Problem p =
        Problem::make_external(std::make_shared<BatchObjective>(batch_objective(user)), dim);
    CudaEngine engine(engine_config("user:user-grouped", dim), p);
    std::mt19937_64 gen(5);
    const std::vector<real_t> x = uniform_point(dim, -1.0, 1.0, gen);
    const double host = detail::evaluate_row_host(user, x.data(), dim);
    EXPECT_NEAR(gpu_fitness(engine, x), host, 1e-12 * host) << "D=" << dim;
  }
}

// A per-gene objective runs in the fused passes: nothing of a batch callback's (the stored
// Solis-Wets candidate, the values of a batch) is allocated or planned, only the invalid count
// (and no copy of o).
TEST(CudaApi, APerGeneObjectiveNeedsTheBuiltinsDeviceMemoryAndItsInvalidCount) {
  REQUIRE_GPU();
  const Dim dim = 1000003;
  const Problem builtin = Problem::make("rastrigin", dim, 3);
  const Problem external = Problem::make_external(
      std::make_shared<BatchObjective>(batch_objective(UserRastrigin{benchmark_shift(-5.12, 5.12, 3)})),
      dim);
  const Config c = engine_config("rastrigin", dim);
  const DeviceMemoryPlan a = plan_device_memory(c, builtin), b = plan_device_memory(c, external);
  EXPECT_EQ(b.genes, a.genes);
  // The built-in function's evaluation pass reads o from a device copy (D floats); the user's
  // objective makes its own o.
  EXPECT_EQ(b.scratch + static_cast<std::size_t>(dim) * sizeof(real_t),
            a.scratch + sizeof(unsigned long long));
  CudaEngine engine(c, external);  // allocates what it planned, and runs
  std::mt19937_64 gen(5);
  const std::vector<real_t> x = uniform_point(dim, -5.12, 5.12, gen);
  EXPECT_TRUE(std::isfinite(gpu_fitness(engine, x)));
}

TEST(CudaApi, OptimizeRunsAPerGeneObjectiveOnTheGpu) {
  REQUIRE_GPU();
  const UserRastrigin user{benchmark_shift(-5.12, 5.12, 3)};
  Options o = gpu_options(100000, 3000);
  double first_best = 0.0;
  o.progress = [&first_best](const Progress& p) {
    if (first_best == 0.0) first_best = p.best_fitness;  // after the initial population
  };
  const Result r = optimize(user, o);
  EXPECT_EQ(r.backend, Backend::kCuda);
  EXPECT_FALSE(r.device.empty());
  EXPECT_EQ(r.evaluations.evaluations, 3000);
  EXPECT_EQ(r.invalid_evaluations, 0);
  // The reported best is the best genes' value, as the CPU computes it.
  const double host = detail::evaluate_row_host(user, r.best_genes.data(), 100000);
  EXPECT_NEAR(r.best_fitness, host, 1e-12 * std::fabs(host));
  EXPECT_LT(r.best_fitness, first_best);  // the run improved on the initial population
  EXPECT_EQ(r.best_error, r.best_fitness + 330.0);
}

// A device batch callback: sphere, NaN where x_0 > 0.
__global__ void sphere_or_nan_kernel(const real_t* genes, Dim pitch, int rows, Dim dim,
                                     double* out) {
  const int r = blockIdx.x;
  if (r >= rows) return;
  __shared__ double sums[256];
  double s = 0.0;
  for (Dim j = threadIdx.x; j < dim; j += blockDim.x) {
    const double g = genes[r * pitch + j];
    s += g * g;
  }
  sums[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) sums[threadIdx.x] += sums[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[r] = genes[r * pitch] > 0 ? std::numeric_limits<double>::quiet_NaN() : sums[0];
}

BatchObjective device_sphere_or_nan() {
  BatchObjective b;
  b.name = "sphere-or-nan";
  b.lower = -5.0;
  b.upper = 5.0;
  b.device = [](const real_t* genes, Dim pitch, int rows, Dim dim, double* out,
                DeviceStream stream) {
    sphere_or_nan_kernel<<<rows, 256, 0, stream>>>(genes, pitch, rows, dim, out);
    CHAINSAW_CUDA_TRY(cudaGetLastError());
  };
  return b;
}

TEST(CudaApi, DeviceBatchCallbackNanRanksLastAndIsCounted) {
  REQUIRE_GPU();
  const Result r = optimize(device_sphere_or_nan(), gpu_options(5000, 3000));
  EXPECT_EQ(r.backend, Backend::kCuda);
  EXPECT_TRUE(std::isfinite(r.best_fitness));
  EXPECT_LE(r.best_genes[0], 0);
  EXPECT_GT(r.invalid_evaluations, 0);
  double f = 0.0;
  for (real_t g : r.best_genes) f += static_cast<double>(g) * g;
  EXPECT_NEAR(r.best_fitness, f, 1e-9 * f);
}

// The same objective handing the engine a CUDA graph of itself for the Solis-Wets candidate
// (BatchObjective::device_graph): the graph runs the same kernel on the same rows, so whole
// applications as one graph launch must give the run with a callback per step, to the bit,
// NaN values and their count included.
struct SphereGraph {
  CudaGraph graph;
  int requests = 0;
};

BatchObjective device_sphere_or_nan_with_graph(std::shared_ptr<SphereGraph> held) {
  BatchObjective b = device_sphere_or_nan();
  b.device_graph = [held](const real_t* genes, Dim pitch, int rows, Dim dim, double* out,
                          DeviceStream) -> DeviceGraph {
    ++held->requests;
    CudaStream capture;
    capture_into(capture.get(), held->graph.get(), [&] {
      sphere_or_nan_kernel<<<rows, 256, 0, capture.get()>>>(genes, pitch, rows, dim, out);
    });
    return held->graph.get();
  };
  return b;
}

TEST(CudaApi, ADeviceGraphObjectiveGivesTheCallbacksRunBitForBit) {
  REQUIRE_GPU();
  for (const Dim dim : {Dim{5000}, Dim{300001}}) {
    const Options o = gpu_options(dim, 3000);
    const Result plain = optimize(device_sphere_or_nan(), o);
    auto held = std::make_shared<SphereGraph>();
    const Result graphed = optimize(device_sphere_or_nan_with_graph(held), o);
    EXPECT_EQ(held->requests, 1) << "one graph, asked for at the first application";
    EXPECT_GT(graphed.evaluations.ls_applications, 10);
    EXPECT_EQ(graphed.best_fitness, plain.best_fitness) << dim;
    EXPECT_EQ(graphed.best_genes, plain.best_genes) << dim;
    EXPECT_EQ(graphed.evaluations.evaluations, plain.evaluations.evaluations);
    EXPECT_EQ(graphed.evaluations.ls_evaluations, plain.evaluations.ls_evaluations);
    EXPECT_EQ(graphed.invalid_evaluations, plain.invalid_evaluations) << dim;
    EXPECT_GT(graphed.invalid_evaluations, 0);
  }
}

TEST(CudaApi, DeviceOnlyObjectiveRefusesTheCpu) {
  Options o = gpu_options(100, 200);
  o.backend = Backend::kCpu;
  EXPECT_THROW(optimize(device_sphere_or_nan(), o), UserError);
}

class CudaApiCheckpoint : public TempDirTest {};

TEST_F(CudaApiCheckpoint, ResumedGpuRunEndsIdenticalToAnUninterruptedOne) {
  REQUIRE_GPU();
  const UserRastrigin user{benchmark_shift(-5.12, 5.12, 3)};
  const Result expected = optimize(user, gpu_options(20000, 2400));
  Options part = gpu_options(20000, 1200);
  part.checkpoint = path_in_dir("run.h5");
  optimize(user, part);
  Options resume = gpu_options(20000, 2400);
  resume.resume_from = part.checkpoint;
  const Result resumed = optimize(user, resume);
  EXPECT_EQ(resumed.best_fitness, expected.best_fitness);
  EXPECT_EQ(resumed.best_genes, expected.best_genes);
}

}  // namespace
}  // namespace chainsaw::test
