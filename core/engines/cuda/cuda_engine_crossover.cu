// The CUDA engine's distances and crossover batches: NAM's distances (a row per pair, or a row
// per child that reads the mother once), the fathers chosen on the device, BLX-alpha children
// with BGA mutation made and evaluated in one pass, and the fused batch behind one host wait.
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/engines/cuda/cuda_engine_impl.cuh"
#include "ssga/device_ops.cuh"

namespace chainsaw {

namespace {

using device::Spread;

// NAM's rows per child hold up to this many candidates (NamDistancesOp<K>, K = 1..4); more take
// a row per pair.
constexpr int kNamRowCandidates = 4;

// NAM on the device, between the distances and the crossover of a fused batch: each child's
// father, from its row of distances[c * per_child + k] (choose_father).
__global__ void choose_fathers_kernel(ChildSpec* specs, const int* candidates,
                                      const double* distances, int per_child, int count,
                                      int* slots) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < count)
    device::choose_father(specs, candidates, distances + c * per_child, per_child, c, slots);
}

// A crossover batch's inputs, read by a kernel straight from the pinned staging buffers (mapped
// into the device's address space), and its outputs written back the same way: kernels instead
// of DMA copies, so that many runs sharing the GPU (--runs) do not queue their small copies on
// its copy engines.
__global__ void stage_batch_kernel(const int* host_mothers, const int* host_candidates,
                                   const ChildSpec* host_specs, int pairs, int count,
                                   int* mothers, int* candidates, ChildSpec* specs) {
  for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
    mothers[i] = host_mothers[i];
    candidates[i] = host_candidates[i];
  }
  for (int i = threadIdx.x; i < count; i += blockDim.x) specs[i] = host_specs[i];
}
__global__ void publish_batch_kernel(const ChildSpec* specs, const double* fitness, int count,
                                     int* host_fathers, double* host_fitness) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    host_fathers[i] = specs[i].father;
    host_fitness[i] = fitness[i];
  }
}

}  // namespace

// Distances of the pairs staged in rows_a and rows_b (from, to: the same slots) into row_out.
void CudaEngine::Impl::launch_distances(const int* from, const int* to, int rows) {
  device::DistanceOp op{genes.data(), pitch, rows_a.data(), rows_b.data(), row_out.data()};
  mark_distances(from, to, rows);
  launch_reduce(op, device::SquareTerm{}, Spread::kBatch, rows);
}
// The distances' bucket of the timeline and, profiled, their essential bytes: each distinct
// member of the pairs (from, to) read once.
void CudaEngine::Impl::mark_distances(const int* from, const int* to, int pairs) {
  timeline.mark(Bucket::kDistances);
  if (profile)
    count_vectors(profile, Bucket::kDistances, distinct_rows(from, to, pairs), own.count);
}
// The distances of the fused batch's children (specs staged) to their candidates (staged in
// rows_b; host_mothers and candidates: the same per pair), a row per child: each row's last
// block sets the child's father and lists its slot in rows_a. False where a child has more
// candidates than the rows per child take (or the policy asks for pairs): nothing is launched.
bool CudaEngine::Impl::launch_nam_distances(const int* host_mothers, const int* candidates,
                                            int per_child, int count) {
  if (!policy.nam_batch.child_rows || per_child < 1 || per_child > kNamRowCandidates)
    return false;
  mark_distances(host_mothers, candidates, count * per_child);
  // A row of K sums takes the partials of K rows of one (the plan sizes them per pair).
  const auto launch = [&](auto k) {
    constexpr int K = decltype(k)::value;
    const device::NamDistancesOp<K> op{genes.data(), pitch, specs.data(), rows_b.data(),
                                       rows_a.data()};
    launch_reduce(op, device::TermSet<device::SquareTerm, K>{}, Spread::kBatch, count);
  };
  switch (per_child) {
    case 1: launch(std::integral_constant<int, 1>{}); break;
    case 2: launch(std::integral_constant<int, 2>{}); break;
    case 3: launch(std::integral_constant<int, 3>{}); break;
    default: launch(std::integral_constant<int, 4>{}); break;
  }
  return true;
}
// Crossover of the specs staged in `specs` (slots: the children's); their f into row_out.
// Functions evaluated apart from the pass read the children's slots from rows_a; a user
// objective's children that go to it in gathered rows are written there by the pass too.
void CudaEngine::Impl::launch_children(const int* slots, int count) {
  timeline.mark(Bucket::kCrossover);  // BLX-alpha, BGA, their XORWOW draws and f, fused
  count_vectors(profile, Bucket::kCrossover, 3.0 * count, own.count);
  if (!problem.is_external() || !stored_evaluation) {
    passes->make_children(context(), specs.data(), count);
    if (stored_evaluation) launch_evaluation(slots, count);
    return;
  }
  const bool copied = gathers(slots, count);
  const device::UserCrossoverOp op{
      {genes.data(), pitch, specs.data(), blx_alpha, problem.lower, problem.upper, {}},
      copied ? user.gathered_rows.data() : nullptr};
  launch_reduce(op, device::NoTerm{}, Spread::kBatch, count);
  launch_evaluation(slots, count, copied);
}

void CudaEngine::distances(const int* from, const int* to, int count, double* out) {
  Impl& m = *impl_;
  for (int first = 0; first < count; first += m.launch.max_rows) {
    const int rows = std::min(m.launch.max_rows, count - first);
    m.to_device(m.rows_a.data(), m.host.a, from + first, rows);
    m.to_device(m.rows_b.data(), m.host.b, to + first, rows);
    m.launch_distances(from + first, to + first, rows);
    m.rows_to_host(out + first, rows);
  }
}

void CudaEngine::make_children(const ChildSpec* children, int count, double* fitness) {
  Impl& m = *impl_;
  CHAINSAW_EXPECTS(count <= m.launch.rng_rows, "more children than padding slots");
  m.to_device(m.specs.data(), m.host.specs, m.local_specs(children, count).data(), count);
  std::vector<int> slots(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) slots[i] = children[i].slot;
  if (m.stored_evaluation) m.to_device(m.rows_a.data(), m.host.a, slots.data(), count);
  m.launch_children(slots.data(), count);
  m.rows_to_host(fitness, count);
  m.record_fitness(slots.data(), fitness, count);
}

// The distances, the fathers, the crossover and the children's f in one stream, one host wait,
// no DMA copy; in a plain run, not profiled, all of it is one CUDA graph per batch size, replayed
// on the newly staged values (one launch instead of seven calls: --runs threads contend for the
// driver).
void CudaEngine::make_nam_children(ChildSpec* children, const int* candidates, int per_child,
                                   int count, double* fitness, PhaseTimers* timers) {
  Impl& m = *impl_;
  std::optional<ScopedPhase> timer;
  if (timers) timer.emplace(*timers, Phase::kCrossover);
  const int pairs = count * per_child;
  CHAINSAW_EXPECTS(count <= m.launch.rng_rows && pairs <= m.launch.max_rows,
                   "more children or mating candidates than a batched launch has rows");
  for (int p = 0; p < pairs; ++p) m.host.a.data()[p] = children[p / per_child].mother;
  std::copy(candidates, candidates + pairs, m.host.b.data());
  const std::vector<ChildSpec> local = m.local_specs(children, count);
  std::copy(local.begin(), local.end(), m.host.specs.data());
  std::vector<int> slots(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) slots[i] = children[i].slot;
  const cudaStream_t s = m.stream.get();
  auto enqueue = [&] {
    stage_batch_kernel<<<1, 256, 0, s>>>(m.host.mapped_a, m.host.mapped_b, m.host.mapped_specs, pairs, count,
                                         m.rows_a.data(), m.rows_b.data(), m.specs.data());
    CHAINSAW_CUDA_CHECK_LAUNCH();
    if (!m.launch_nam_distances(m.host.a.data(), candidates, per_child, count)) {
      m.launch_distances(m.host.a.data(), candidates, pairs);
      // rows_a is free once the distances have read it: the children's slots for their f.
      choose_fathers_kernel<<<(count + 127) / 128, 128, 0, s>>>(
          m.specs.data(), m.rows_b.data(), m.row_out.data(), per_child, count, m.rows_a.data());
      CHAINSAW_CUDA_CHECK_LAUNCH();
    }
    m.launch_children(slots.data(), count);
    publish_batch_kernel<<<1, 128, 0, s>>>(m.specs.data(), m.row_out.data(), count,
                                           m.host.mapped_fathers, m.host.mapped_out);
    CHAINSAW_CUDA_CHECK_LAUNCH();
  };
  if (m.policy.nam_batch.graphs && !m.profile) {
    CudaGraphExec& graph = m.nam_graphs[{count, per_child}];
    if (!graph) graph = CudaGraphExec::capture(s, enqueue);
    graph.launch(s);
  } else {
    enqueue();
  }
  m.sync();
  std::copy(m.host.out.data(), m.host.out.data() + count, fitness);
  for (int i = 0; i < count; ++i) children[i].father = m.host.fathers.data()[i];
  m.record_fitness(slots.data(), fitness, count);
}

}  // namespace chainsaw
