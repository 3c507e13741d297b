// Checkpoints of GPU runs: the cuRAND XORWOW states, genes and bias vectors leave the device
// and come back bit-exact, and a resumed run ends identical to the run that never stopped,
// inside an SSGA phase and inside a Solis-Wets chain. Skipped without a GPU.
#if defined(CHAINSAW_CUDA)

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint_support.hpp"
#include "temp_dir_test.hpp"
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/engines/host/host_engine.hpp"
#include "core/gpu/device_info.hpp"
#include "gpu_test_support.hpp"
#include "core/error.hpp"
#include "io/instance_file.hpp"

namespace chainsaw {
namespace {


Config gpu_config(const std::string& function, Dim dim, std::int64_t budget) {
  Config c;
  c.function = function;
  c.dim = dim;
  c.max_evaluations = budget;
  c.seed = 21;
  c.ls_intensity = 200;
  c.backend = Backend::kCuda;
  c.validate();
  return c;
}

std::unique_ptr<Engine> make_cuda(const Config& c, const Problem& p) {
  return std::make_unique<CudaEngine>(c, p);
}

class CudaCheckpoint : public test::TempDirTest {
 protected:
  std::string path() const { return path_in_dir("run.h5"); }
};

// Saved states, drawn from, restored: the same children again, bit for bit.
TEST_F(CudaCheckpoint, RngStatesRestoreExactly) {
  REQUIRE_GPU();
  const Config c = gpu_config("rastrigin", 50000, 1000);
  const Problem problem = Problem::make(c.function, c.dim, 3);
  CudaEngine engine(c, problem);
  std::vector<int> slots(static_cast<size_t>(c.population_size));
  for (int i = 0; i < c.population_size; ++i) slots[i] = i;
  std::vector<double> fitness(slots.size());
  engine.initialize(slots, fitness.data());

  const RngSnapshot saved = engine.save_rng();
  EXPECT_EQ(saved.bytes.size() % 48, 0u);
  const ChildSpec child{0, 1, c.population_size, 17, 0.01};
  std::vector<real_t> first(static_cast<size_t>(c.dim)), second(first.size());
  double f1 = 0.0, f2 = 0.0;
  engine.make_children(&child, 1, &f1);
  engine.read_genes(child.slot, first.data());
  engine.restore_rng(saved);
  engine.make_children(&child, 1, &f2);
  engine.read_genes(child.slot, second.data());
  EXPECT_EQ(f1, f2);
  EXPECT_EQ(first, second);
  // Without the restore the states have moved on: a different child.
  engine.make_children(&child, 1, &f2);
  EXPECT_NE(f1, f2);

  RngSnapshot wrong = saved;
  wrong.bytes.resize(wrong.bytes.size() - 48);
  EXPECT_THROW(engine.restore_rng(wrong), UserError);
}

TEST_F(CudaCheckpoint, ResumeInsideAnSsgaPhaseIsBitExact) {
  REQUIRE_GPU();
  for (const char* function : {"rastrigin", "schwefel12"}) {
    SCOPED_TRACE(function);
    const Config c = gpu_config(function, 100003, 4000);
    const test::FinalState whole = test::run_uninterrupted(c, make_cuda);
    test::StopPoint stop;
    const test::FinalState resumed =
        test::run_interrupted(c, make_cuda, path(), test::stop_inside_ga_phase(1500),
                              Backend::kCuda, c.max_evaluations, stop);
    ASSERT_TRUE(stop.stopped);
    EXPECT_EQ(stop.state.stage, LoopStage::kGeneticAlgorithm);
    test::expect_identical(whole, resumed);
  }
}

TEST_F(CudaCheckpoint, ResumeInsideASolisWetsChainIsBitExact) {
  REQUIRE_GPU();
  // Rastrigin's LS individual continues its chain early (as on the CPU); two sizes, so that one
  // row is split over all SMs and one is not.
  for (Dim dim : {Dim{100003}, Dim{30011}}) {
    SCOPED_TRACE(dim);
    const Config c = gpu_config("rastrigin", dim, 5000);
    const test::FinalState whole = test::run_uninterrupted(c, make_cuda);
    test::StopPoint stop;
    const test::FinalState resumed =
        test::run_interrupted(c, make_cuda, path(), test::stop_inside_chain(1000),
                              Backend::kCuda, c.max_evaluations, stop);
    ASSERT_TRUE(stop.stopped);
    EXPECT_TRUE(stop.next_ls_continues_a_chain);
    test::expect_identical(whole, resumed);
  }
}

// A CEC 2010 run on an instance file (another seed's, so a fallback to the generated instance
// would differ), the file deleted before the resume: the device gets the embedded o, P and M
// and the run ends bit-identical. F11 takes the rotated-group pass, F13 the gathered groups.
TEST_F(CudaCheckpoint, Cec2010ResumeWithTheInstanceFileDeletedIsBitExact) {
  REQUIRE_GPU();
  for (const char* function : {"cec2010-f11", "cec2010-f13"}) {
    SCOPED_TRACE(function);
    Config c = gpu_config(function, 100000, 5000);
    c.instance = path_in_dir("instance.h5");
    write_instance_file("-o", c.instance, *Problem::make(function, c.dim, 99).cec,
                        function_info(function), "test");
    const test::FinalState whole = test::run_uninterrupted(c, make_cuda);
    test::StopPoint stop;
    const auto stop_inside_chain = test::stop_inside_chain(1000);
    const test::FinalState resumed = test::run_interrupted(
        c, make_cuda, path(),
        [&](const MaSwChains& a) {
          if (!stop_inside_chain(a)) return false;
          std::filesystem::remove(c.instance);
          return true;
        },
        Backend::kCuda, c.max_evaluations, stop);
    ASSERT_TRUE(stop.stopped);
    EXPECT_FALSE(std::filesystem::exists(c.instance));
    test::expect_identical(whole, resumed);
  }
}

// A checkpoint of a GPU run is refused by the CPU engine: its random streams are XORWOW states.
TEST_F(CudaCheckpoint, CpuEngineRefusesGpuRngState) {
  REQUIRE_GPU();
  const Config c = gpu_config("rastrigin", 1000, 1000);
  const Problem problem = Problem::make(c.function, c.dim, 3);
  CudaEngine gpu(c, problem);
  const RngSnapshot s = gpu.save_rng();
  EXPECT_NE(s.layout.find("curand-xorwow"), std::string::npos);
  Config cpu_config = c;
  cpu_config.backend = Backend::kCpu;
  HostEngine cpu(cpu_config, problem);
  EXPECT_THROW(cpu.restore_rng(s), UserError);
}

}  // namespace
}  // namespace chainsaw

#endif  // CHAINSAW_CUDA
