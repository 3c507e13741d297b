// The CUDA engine's evaluation of stored individuals: one batched launch of the function's
// evaluation pass, a CEC 2010 function's groups ahead of it, or a user objective's callback on
// the slots' rows (adjacent slots as they are, others gathered into rows of their own).
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "core/engines/cuda/cuda_engine_impl.cuh"
#include "fitness/external_objective.hpp"
#include "ssga/device_ops.cuh"

namespace chainsaw {

namespace {

using device::Spread;

// A user objective's values of a batch of slots (fitness/external_objective.hpp): ranked as
// rankable_fitness says, invalid ones counted.
__global__ void store_external_kernel(const double* values, const int* slots, int rows,
                                      double* slot_fitness, double* row_out,
                                      unsigned long long* invalid) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const double v = values[r];
  if (is_invalid_fitness(v)) atomicAdd(invalid, 1ull);
  slot_fitness[slots[r]] = row_out[r] = rankable_fitness(v);
}

// Rows of slots apart copied to consecutive rows (row r from slots[r]): a crossover batch's
// children for one call of a user objective (Impl::launch_external_evaluation).
__global__ void gather_rows_kernel(const real_t* genes, Dim pitch, const int* slots, Dim dim,
                                   real_t* rows) {
  const real_t* from = genes + static_cast<Dim>(slots[blockIdx.y]) * pitch;
  real_t* to = rows + static_cast<Dim>(blockIdx.y) * pitch;
  const Dim stride = static_cast<Dim>(gridDim.x) * blockDim.x;
  for (Dim j = static_cast<Dim>(blockIdx.x) * blockDim.x + threadIdx.x; j < dim; j += stride)
    to[j] = from[j];
}

}  // namespace

// Whether a user objective's f of these slots is one call on gathered rows: slots apart
// whose rows fit there (gathered_batch_bytes). Adjacent slots go to it as they are.
bool CudaEngine::Impl::gathers(const int* host_slots, int rows) const {
  bool adjacent = true;
  for (int r = 1; r < rows; ++r) adjacent = adjacent && host_slots[r] == host_slots[0] + r;
  return !adjacent && static_cast<std::size_t>(rows) * pitch <= user.gathered_rows.size();
}
// A user objective's f of the slots staged in rows_a[0..rows) (host_slots: the same slots):
// adjacent slots go to the callback in one call, slots apart gathered into rows of their own
// where those fit (`gathered`: the crossover wrote them there already).
void CudaEngine::Impl::launch_external_evaluation(const int* host_slots, int rows,
                                                  bool gathered) {
  const BatchObjective& o = *problem.external;
  const bool gather = gathered || gathers(host_slots, rows);
  if (gather) {  // one call instead of one per run of adjacent slots, on rows a captured
                 // objective reads in place
    if (!gathered) {
      const auto blocks_x = static_cast<unsigned>(std::min<Dim>((dim + 255) / 256, 1024));
      gather_rows_kernel<<<dim3(blocks_x, static_cast<unsigned>(rows)), 256, 0,
                           stream.get()>>>(genes.data(), pitch, rows_a.data(), dim,
                                           user.gathered_rows.data());
      CHAINSAW_CUDA_CHECK_LAUNCH();
    }
    o.device(user.gathered_rows.data(), pitch, rows, dim, user.values.data(), stream.get());
  }
  for (int first = 0; !gather && first < rows;) {
    int run = 1;
    while (first + run < rows && host_slots[first + run] == host_slots[first] + run) ++run;
    o.device(slot_genes(host_slots[first]), pitch, run, dim, user.values.data() + first,
             stream.get());
    first += run;
  }
  store_external_kernel<<<(rows + 127) / 128, 128, 0, stream.get()>>>(
      user.values.data(), rows_a.data(), rows, fitness.data(), row_out.data(),
      user.invalid.data());
  CHAINSAW_CUDA_CHECK_LAUNCH();
}
// f of the slots staged in rows_a[0..rows) (host_slots: the same slots), one batched launch.
// `gathered`: a user objective's rows are in user.gathered_rows already (launch_children).
void CudaEngine::Impl::launch_evaluation(const int* host_slots, int rows, bool gathered) {
  timeline.mark(Bucket::kFitness);
  if (!stored_evaluation) return passes->evaluate(context(), rows_a.data(), rows);
  if (problem.is_external()) return launch_external_evaluation(host_slots, rows, gathered);
  visit_cec2010(problem.function, [&](auto fn) {
    using Fn = decltype(fn);
    const device::EvaluateOp op{genes.data(), pitch, rows_a.data(),
                                {dim, fitness.data(), row_out.data(), nullptr}};
    const auto term = launch_cec_groups<Fn>(op, genes.data(), pitch, rows_a.data(), rows);
    launch_reduce(op, term, Spread::kBatch, rows);
  });
}

double CudaEngine::time_evaluation(const std::vector<int>& slots, int repetitions) {
  Impl& m = *impl_;
  const int rows = static_cast<int>(slots.size());
  CHAINSAW_EXPECTS(rows <= m.launch.max_rows, "more slots than a batched launch has rows");
  m.to_device(m.rows_a.data(), m.host.a, slots.data(), rows);
  m.launch_evaluation(slots.data(), rows);  // warm-up
  return stream_seconds(m.stream.get(), [&] {
           for (int r = 0; r < repetitions; ++r) m.launch_evaluation(slots.data(), rows);
         }) /
         repetitions;
}

void CudaEngine::evaluate(const std::vector<int>& slots, double* fitness) {
  Impl& m = *impl_;
  const int total = static_cast<int>(slots.size());
  for (int first = 0; first < total; first += m.launch.max_rows) {
    const int rows = std::min(m.launch.max_rows, total - first);
    m.to_device(m.rows_a.data(), m.host.a, slots.data() + first, rows);
    count_vectors(m.profile, Bucket::kFitness, rows, m.own.count);
    m.launch_evaluation(slots.data() + first, rows);
    m.rows_to_host(fitness + first, rows);
  }
  m.record_fitness(slots.data(), fitness, total);
}

CudaEngine::SlotRows CudaEngine::slot_rows() {
  Impl& m = *impl_;
  CHAINSAW_EXPECTS(m.layout.slices == 1 && !m.comm,
                   "CudaEngine::slot_rows: the engine holds its genes in slices");
  return {m.genes.data(), m.pitch, m.stream.get()};
}

}  // namespace chainsaw
