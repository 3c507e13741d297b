// The CUDA engine's operations on whole individuals (initialisation, their genes, fitness and
// distance to the optimum), its construction by policy and its profile. The other operations:
// cuda_engine_crossover.cu, cuda_engine_evaluation.cu, cuda_engine_solis_wets.cu,
// cuda_engine_checkpoint.cu; the engine's state: cuda_engine_impl.cuh.
#include "core/engines/cuda/cuda_engine.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "core/engines/cuda/cuda_engine_impl.cuh"
#include "core/gpu/copy_bandwidth.hpp"
#include "core/population.hpp"
#include "ssga/device_ops.cuh"

namespace chainsaw {

namespace {
using device::Spread;
}  // namespace

CudaEngine::CudaEngine(const Config& config, const Problem& problem)
    : impl_(std::make_unique<Impl>(config, problem, nullptr, nullptr, nullptr)) {}
CudaEngine::CudaEngine(const Config& config, const Problem& problem, const GpuPolicy& policy)
    : impl_(std::make_unique<Impl>(config, problem, nullptr, nullptr, &policy)) {}
CudaEngine::CudaEngine(const Config& config, const Problem& problem, Communicator* comm,
                       std::unique_ptr<DeviceCollective> collective)
    : impl_(std::make_unique<Impl>(config, problem, comm, std::move(collective), nullptr)) {}
CudaEngine::~CudaEngine() = default;

const GpuPolicy& CudaEngine::policy() const { return impl_->policy; }

void CudaEngine::initialize(const std::vector<int>& slots, double* fitness) {
  Impl& m = *impl_;
  const int total = static_cast<int>(slots.size());
  for (int first = 0; first < total; first += m.launch.rng_rows) {
    const int rows = std::min(m.launch.rng_rows, total - first);
    m.to_device(m.rows_a.data(), m.host.a, slots.data() + first, rows);
    m.timeline.mark(Bucket::kFitness);  // random genes and their f in one pass
    count_vectors(m.profile, Bucket::kFitness, rows, m.own.count);
    m.passes->initialize(m.context(), m.rows_a.data(), rows);
    if (m.stored_evaluation)  // the genes were only made
      m.launch_evaluation(slots.data() + first, rows);
    m.rows_to_host(fitness + first, rows);
  }
  m.record_fitness(slots.data(), fitness, total);
}

void CudaEngine::sort_slots(int* order) {
  Impl& m = *impl_;
  ScopedBucket timer(m.profile, Bucket::kSort);
  sort_slots_by_fitness(m.host_fitness.data(), m.capacity, order);
}

void CudaEngine::read_genes(int slot, real_t* out) {
  Impl& m = *impl_;
  m.timeline.mark(Bucket::kTransfers);
  std::vector<real_t> mine(m.comm ? static_cast<std::size_t>(m.own.count) : 0);
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.comm ? mine.data() : out, m.slot_genes(slot),
                                    sizeof(real_t) * m.own.count, cudaMemcpyDeviceToHost,
                                    m.stream.get()));
  m.sync();
  if (m.comm) allgather_individual(*m.comm, m.slices, mine.data(), out);
}

void CudaEngine::write_genes(int slot, const real_t* genes) {
  Impl& m = *impl_;
  m.timeline.mark(Bucket::kTransfers);
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.slot_genes(slot), genes + m.own.first,
                                    sizeof(real_t) * m.own.count, cudaMemcpyHostToDevice,
                                    m.stream.get()));
  double f;
  evaluate({slot}, &f);
}

double CudaEngine::fitness(int slot) {
  Impl& m = *impl_;
  double f;
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(&f, m.fitness.data() + slot, sizeof(double),
                                    cudaMemcpyDeviceToHost, m.stream.get()));
  m.sync();
  return f;
}

double CudaEngine::distance_to_optimum(int slot) {
  Impl& m = *impl_;
  if (!m.problem.optimum_position_known()) return std::numeric_limits<double>::quiet_NaN();
  device::OptimumDistanceOp op{m.genes.data(), m.pitch,          slot, m.problem.shift,
                               m.row_out.data(), m.own.first};
  m.timeline.mark(Bucket::kDistances);
  count_vectors(m.profile, Bucket::kDistances, 1.0, m.own.count);
  m.launch_reduce(op, device::SquareTerm{}, Spread::kOneRow, 1);
  double d;
  m.rows_to_host(&d, 1);
  return d;
}

EngineShard CudaEngine::shard() const {
  const Impl& m = *impl_;
  if (!m.comm) return {};
  return {m.comm, m.own};
}

int CudaEngine::last_ls_host_syncs() const { return impl_->last_ls_syncs; }
int CudaEngine::last_ls_chain_block_threads() const { return impl_->last_chain_block_threads; }

std::int64_t CudaEngine::invalid_evaluations() {
  Impl& m = *impl_;
  if (!m.problem.is_external()) return 0;
  unsigned long long n = 0;
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(&n, m.user.invalid.data(), sizeof(n), cudaMemcpyDeviceToHost,
                                    m.stream.get()));
  m.stream.synchronize();
  return static_cast<std::int64_t>(n);
}

void CudaEngine::set_profile(KernelProfile* profile) {
  Impl& m = *impl_;
  m.sync();  // nothing of before is timed into the new profile
  m.timeline.enable(m.stream.get(), profile);
  m.profile = profile;
  if (!profile) return;
  profile->add(Bucket::kRngInit, m.rng_init_seconds);
  // 256 MiB a buffer (a few ms); a device too full for them leaves the column out (0).
  try {
    profile->set_copy_bandwidth(measure_device_copy_bandwidth(std::size_t{1} << 28, 10));
  } catch (const std::exception&) {
    cudaGetLastError();  // the failed allocation's error is not the run's
  }
}

void CudaEngine::flush_profile() { impl_->sync(); }

}  // namespace chainsaw
