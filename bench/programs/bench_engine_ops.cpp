// Every engine operation of the host loop, one at a time, on the CUDA engine (gpu/...) and the
// CPU engine (cpu/...): a crossover batch (20 BLX-alpha children made and evaluated), the NAM
// distances of a batch (60 pairs), one Solis-Wets step (two evaluations), the (fitness, slot)
// sort, and on the GPU the cuRAND state initialisation. An operation's time is its own bucket of
// the engine's --profile instrumentation (CUDA events around its kernel on the GPU, the steady
// clock around its pass on the CPU), so transfers and host syncs are not in it, and the
// benchmarks measure exactly what a profiled run reports. Bytes are what the operation must
// move: crossover 2 parents read + 1 child written, distances 2 vectors read per pair, a
// Solis-Wets step x and bias read by each of its two moves and read and written by the apply
// (8 vectors: nominal, a successful forward move skips the backward one), the sort its keys and
// values read and written, RNG init the states written. GB/s is reported next to the copy
// bandwidth measured in the same process. GPU benchmarks skip without a GPU.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "core/engines/engine.hpp"
#include "core/engines/host/host_engine.hpp"
#include "core/population.hpp"
#if defined(CHAINSAW_CUDA)
#include <curand_kernel.h>

#include "core/engines/cuda/cuda_engine.hpp"
#include "core/gpu/device_info.hpp"
#endif

namespace {

using namespace chainsaw;

enum class Op { kCrossover, kDistances, kSolisWetsStep, kSort };
enum class Where { kCpu, kGpu };

struct Setup {
  Config config;
  Problem problem;
  std::unique_ptr<Engine> engine;
  Population population;
  KernelProfile profile;

  Setup(Where where, const char* function, Dim dim)
      : config([&] {
          Config c;
          c.function = function;
          c.dim = dim;
          c.seed = 1;
          return c;
        }()),
        problem(Problem::make(function, dim, 1)),
        population(config.population_size, config.batch) {
#if defined(CHAINSAW_CUDA)
    if (where == Where::kGpu) engine = std::make_unique<CudaEngine>(config, problem);
#endif
    if (where == Where::kCpu) engine = std::make_unique<HostEngine>(config, problem);
    std::vector<int> slots(static_cast<std::size_t>(population.size()));
    std::iota(slots.begin(), slots.end(), 0);
    std::vector<double> f(slots.size());
    engine->initialize(slots, f.data());  // random genes: never time on zeros
    for (int i = 0; i < population.size(); ++i) population.fitness(i) = f[i];
    engine->sort_slots(population.order().data());
    engine->set_profile(&profile);
  }
};

double vector_bytes(const Setup& s) { return static_cast<double>(s.problem.dim) * sizeof(real_t); }

bool skip_without_gpu(benchmark::State& state, Where where) {
#if defined(CHAINSAW_CUDA)
  if (where == Where::kCpu || query_cuda_device().available) return false;
#else
  if (where == Where::kCpu) return false;
#endif
  state.SkipWithError("no CUDA GPU");
  return true;
}

void BM_EngineOp(benchmark::State& state, Where where, Op op, const char* function) {
  if (skip_without_gpu(state, where)) return;
  Setup s(where, function, state.range(0));
  const int batch = s.config.batch, pairs = batch * s.config.nam_candidates;
  std::vector<ChildSpec> children(static_cast<std::size_t>(batch));
  for (int i = 0; i < batch; ++i)
    children[i] = {i, (i + 7) % s.population.size(), s.population.padding_slot(i), -1, 0.0};
  std::vector<int> from(static_cast<std::size_t>(pairs)), to(from.size());
  for (int i = 0; i < pairs; ++i) from[i] = i % s.population.size(), to[i] = (3 * i + 1) % s.population.size();
  std::vector<double> out(static_cast<std::size_t>(std::max(batch, pairs)));
  SolisWetsState sw;
  sw.rho = 0.2;

  Bucket bucket = Bucket::kCrossover;
  double bytes = 0.0;
  switch (op) {
    case Op::kCrossover:
      bucket = Bucket::kCrossover;
      bytes = 3.0 * batch * vector_bytes(s);
      break;
    case Op::kDistances:
      bucket = Bucket::kDistances;
      bytes = 2.0 * pairs * vector_bytes(s);
      break;
    case Op::kSolisWetsStep:
      bucket = Bucket::kSwMoves;
      bytes = 8.0 * vector_bytes(s);
      break;
    case Op::kSort:
      bucket = Bucket::kSort;
      bytes = 2.0 * s.config.capacity() * (sizeof(double) + sizeof(int));
      break;
  }
  double seconds = 0.0, evaluations = 0.0;
  for (auto _ : state) {
    const double before = s.profile.seconds(bucket);
    switch (op) {
      case Op::kCrossover:
        s.engine->make_children(children.data(), batch, out.data());
        evaluations += batch;
        break;
      case Op::kDistances:
        s.engine->distances(from.data(), to.data(), pairs, out.data());
        break;
      case Op::kSolisWetsStep: {
        LocalSearchRequest req;
        req.slot = 0;
        req.fitness = s.engine->fitness(0);
        req.state = sw;
        req.continue_chain = true;
        req.evaluations = 2;
        const LocalSearchResult r = s.engine->solis_wets(req);
        sw = r.state;
        evaluations += static_cast<double>(r.evaluations);
        break;
      }
      case Op::kSort:
        s.engine->sort_slots(s.population.order().data());
        break;
    }
    s.engine->flush_profile();
    const double t = s.profile.seconds(bucket) - before;
    state.SetIterationTime(t);
    seconds += t;
  }
#if defined(CHAINSAW_CUDA)
  const double copy = where == Where::kGpu ? bench::device_copy_bandwidth() : bench::host_copy_bandwidth();
#else
  const double copy = bench::host_copy_bandwidth();
#endif
  bench::report_bandwidth(state, bytes, seconds, copy);
  // Evaluations (children, Solis-Wets candidates) per iteration: with the CPU column, the CPU
  // backend's ns per gene per evaluation, which a shared machine does not inflate as it does
  // the wall time (bench/cpu/cpu_floor.sh).
  if (evaluations > 0.0)
    state.counters["evaluations"] = evaluations / static_cast<double>(state.iterations());
}

#if defined(CHAINSAW_CUDA)
// curand_init of every XORWOW state, as the engine's constructor runs it (timed there).
void BM_RngInit(benchmark::State& state) {
  if (skip_without_gpu(state, Where::kGpu)) return;
  Config config;
  config.dim = state.range(0);
  const Problem problem = Problem::make(config.function, config.dim, 1);
  double seconds = 0.0, evaluations = 0.0;
  for (auto _ : state) {
    CudaEngine engine(config, problem);
    KernelProfile profile;
    engine.set_profile(&profile);
    const double t = profile.seconds(Bucket::kRngInit);
    state.SetIterationTime(t);
    seconds += t;
  }
  const DeviceMemoryPlan plan = plan_device_memory(config, problem);
  bench::report_bandwidth(state, static_cast<double>(plan.rng_states), seconds,
                          bench::device_copy_bandwidth());
}
#endif

void register_all() {
  const struct {
    const char* name;
    Op op;
  } ops[] = {{"crossover_batch", Op::kCrossover},
             {"distances_batch", Op::kDistances},
             {"solis_wets_step", Op::kSolisWetsStep},
             {"sort", Op::kSort}};
  for (const auto& o : ops) {
    for (const char* fn : {"rastrigin", "sumsquares"}) {
      benchmark::RegisterBenchmark((std::string("gpu/") + o.name + "/" + fn).c_str(), BM_EngineOp,
                                   Where::kGpu, o.op, fn)
          ->Arg(100000)->Arg(1000000)->Arg(3000000)
          ->UseManualTime()->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark((std::string("cpu/") + o.name + "/" + fn).c_str(), BM_EngineOp,
                                   Where::kCpu, o.op, fn)
          ->Arg(100000)->Arg(1000000)
          ->UseManualTime()->Unit(benchmark::kMicrosecond);
    }
  }
#if defined(CHAINSAW_CUDA)
  benchmark::RegisterBenchmark("gpu/rng_init", BM_RngInit)
      ->Arg(100000)->Arg(3000000)
      ->UseManualTime()->Unit(benchmark::kMicrosecond);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  return chainsaw::bench::run_registered_benchmarks(argc, argv, register_all);
}
