// The CUDA engine's construction: its policy, the fit check, every buffer allocated before the
// run, the problem's data staged on the device, its passes chosen and its XORWOW states seeded.
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "core/engines/cuda/builtin_passes.hpp"
#include "core/engines/cuda/cuda_engine_impl.cuh"
#include "core/engines/cuda/memory_plan.hpp"
#include "core/gpu/device_info.hpp"
#include "core/rng.hpp"
#include "fitness/janssen/janssen_instance.hpp"

namespace chainsaw {

namespace {

// States [first, first + count) of the run's: a sharded rank holds those of its slice.
__global__ void init_rng_kernel(curandState* states, std::size_t count, std::size_t first,
                                unsigned long long seed) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // One XORWOW subsequence per thread (2^67 apart): independent streams, as in the paper.
  if (i < count) curand_init(seed, first + i, 0, &states[i]);
}

// o_j of a paper function for every gene, made by the device's hash (the same floats as the
// host's: CudaFitness.OptimumIsMinus330ForEveryFunction checks them bit for bit).
__global__ void shift_values_kernel(Shift shift, Dim dim, real_t* o) {
  const Dim j = static_cast<Dim>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < dim) o[j] = shift(j);
}

// The device's address of pinned host memory (the same pointer where addressing is unified).
template <class T>
T* mapped(PinnedBuffer<T>& buffer) {
  void* p = nullptr;
  CHAINSAW_CUDA_TRY(cudaHostGetDevicePointer(&p, buffer.data(), 0));
  return static_cast<T*>(p);
}

template <class T>
DeviceBuffer<T> device_copy(const std::vector<T>& host, cudaStream_t s) {
  DeviceBuffer<T> d(std::max<std::size_t>(1, host.size()));
  if (!host.empty())
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(d.data(), host.data(), sizeof(T) * host.size(),
                                      cudaMemcpyHostToDevice, s));
  return d;
}

// The policy an engine runs: the one given, else the selected one (with CHAINSAW_GPU_POLICY), as
// the workload supports it.
GpuPolicy engine_policy(const Problem& problem, const SliceLayout& layout, bool sharded,
                        const GpuPolicy* given) {
  const GpuWorkload workload = GpuWorkload::of(problem, layout.slices, sharded);
  return given ? supported_gpu_policy(*given, workload)
               : default_gpu_policy(workload, current_device_properties());
}

}  // namespace

HostStaging::HostStaging(int max_rows)
    : specs(max_rows), a(max_rows), b(max_rows), out(max_rows), sw(1), fathers(max_rows) {
  mapped_a = mapped(a);
  mapped_b = mapped(b);
  mapped_specs = mapped(specs);
  mapped_fathers = mapped(fathers);
  mapped_out = mapped(out);
}

CudaEngine::Impl::Impl(const Config& config, const Problem& p, Communicator* ranks,
                       std::unique_ptr<DeviceCollective> exchange, const GpuPolicy* given_policy)
    : problem(p),
      dim(p.dim),
      layout(SliceLayout::make(p.dim, ranks ? ranks->size() : config.gpu_slices,
                               ranks ? ranks->rank() : 0, ranks != nullptr)),
      slices(layout.rank_slices(p.dim, ranks != nullptr)),
      own(slices[ranks ? static_cast<std::size_t>(ranks->rank()) : 0]),
      pitch(device::row_pitch(own.count)),
      capacity(config.capacity()),
      blx_alpha(config.blx_alpha),
      sw_params(config.solis_wets),
      policy(engine_policy(p, layout, ranks != nullptr, given_policy)),
      launch(LaunchPlan::make(config, layout.slice_genes, current_device_properties().sm_count,
                              policy.solis_wets.lane_genes)),
      comm(ranks),
      collective(std::move(exchange)) {
  CHAINSAW_EXPECTS(!comm || (collective && collective->size() == comm->size()),
                   "a sharded engine needs the device collective of its ranks");
  CHAINSAW_EXPECTS(!comm || (!p.is_cec2010() && !p.is_external()),
                   "only built-in functions are sharded");
  require_device_memory(plan_device_memory(config, p, comm ? comm->size() : 1, policy));
  allocate_launch_buffers();
  stage_user_objective();
  stage_problem_data();
  make_passes();
  clear_slots();
  seed_rng(config.seed);
}

void CudaEngine::Impl::allocate_launch_buffers() {
  const std::size_t slot_genes = static_cast<std::size_t>(capacity) * pitch;
  genes = DeviceBuffer<real_t>(slot_genes);
  bias = DeviceBuffer<real_t>(slot_genes);
  fitness = DeviceBuffer<double>(capacity);
  row_out = DeviceBuffer<double>(launch.max_rows);
  const auto slices_held = static_cast<std::size_t>(layout.held);
  rng = DeviceBuffer<curandState>(slices_held * launch.rng_states);
  // The spare states of a Solis-Wets step, at the same stride per slice as `rng`.
  rng_alt = DeviceBuffer<curandState>((slices_held - 1) * launch.rng_states +
                                      launch.one_row_states());
  partials = DeviceBuffer<unsigned char>(slices_held * launch.partial_slots *
                                         sizeof(PrefixSquarePartial));
  if (comm) {
    gathered = DeviceBuffer<unsigned char>(static_cast<std::size_t>(comm->size()) *
                                           launch.partial_slots * sizeof(PrefixSquarePartial));
    profiled_collective = std::make_unique<ProfiledCollective>(*collective, timeline);
  }
  tickets = DeviceBuffer<unsigned>(launch.max_rows);
  specs = DeviceBuffer<ChildSpec>(launch.max_rows);
  rows_a = DeviceBuffer<int>(launch.max_rows);
  rows_b = DeviceBuffer<int>(launch.max_rows);
  sw_state = DeviceBuffer<device::SwDeviceState>(1);
  host = HostStaging(launch.max_rows);
}

// A user objective: its device callback, a batch callback's candidates, values and gathered
// rows, the count of invalid values; a function of generated data copies it to the device now,
// before the run's clock.
void CudaEngine::Impl::stage_user_objective() {
  const Problem& p = problem;
  if (!p.is_external()) return;
  const cudaStream_t s = stream.get();
  if (!p.external->device && !p.external->device_passes)
    throw UserError("objective '" + p.external->name +
                    "' has no device callback: it runs on the CPU backend only (a per-gene "
                    "objective gets one when optimize() is compiled by nvcc)");
  if (gpu_evaluates_apart(p)) {  // a Solis-Wets step's two candidates
    candidate = DeviceBuffer<real_t>(2 * static_cast<std::size_t>(pitch));
    CHAINSAW_CUDA_TRY(cudaMemsetAsync(candidate.data(), 0, candidate.bytes(), s));
    user.values = DeviceBuffer<double>(launch.max_rows);
    user.gathered_rows =
        DeviceBuffer<real_t>(gathered_batch_bytes(p, launch.rng_rows) / sizeof(real_t));
  }
  user.invalid = DeviceBuffer<unsigned long long>(1);
  if (p.has_generated_data() && p.external->device)
    p.external->device(nullptr, pitch, 0, dim, nullptr, s);
  CHAINSAW_CUDA_TRY(cudaMemsetAsync(user.invalid.data(), 0, user.invalid.bytes(), s));
}

// o where it is data, a CEC 2010 instance, a built-in function's stored o in its L2 window, and
// the chain kernel's dif row, as the policy asks.
void CudaEngine::Impl::stage_problem_data() {
  const Problem& p = problem;
  const cudaStream_t s = stream.get();
  if (const std::vector<real_t>* optimum = p.stored_optimum()) {  // for the distance to it
    device_o = device_copy(*optimum, s);
    problem.shift.stored = device_o.data();
  }
  if (p.is_cec2010()) {
    const CecInstance& inst = *p.cec;
    device_o = device_copy(inst.o, s);
    cec.perm = device_copy(inst.perm, s);
    cec.inverse = device_copy(inst.inverse, s);
    cec.rotation = device_copy(inst.rotation, s);
    cec.group_values = DeviceBuffer<double>(cec2010_group_values(p, launch.max_rows));
    candidate = DeviceBuffer<real_t>(static_cast<std::size_t>(pitch));
    CHAINSAW_CUDA_TRY(cudaMemsetAsync(candidate.data(), 0, candidate.bytes(), s));
    cec.view =
        inst.view_at(device_o.data(), cec.perm.data(), cec.inverse.data(), cec.rotation.data());
    problem.shift.stored = device_o.data();  // o for the distance to the optimum
  }
  if (policy.evaluation.reads_stored_shift) {
    stored_o = DeviceBuffer<real_t>(static_cast<std::size_t>(dim));
    shift_values_kernel<<<static_cast<unsigned>((dim + 255) / 256), 256, 0, s>>>(
        problem.shift, dim, stored_o.data());
    CHAINSAW_CUDA_CHECK_LAUNCH();
    stored_o_window = PersistingL2Window(stored_o.data(), stored_o.bytes());
  }
  if (policy.solis_wets.keeps_dif) sw_dif = DeviceBuffer<real_t>(static_cast<std::size_t>(pitch));
}

void CudaEngine::Impl::make_passes() {
  stored_evaluation = gpu_evaluates_apart(problem);
  if (problem.is_external() && problem.external->device_passes) {
    passes = problem.external->device_passes;
  } else {
    visit_function(problem.function, [&](auto fn) {
      passes = device::make_builtin_passes<decltype(fn)>(
          problem.shift, stored_o.size() > 0 ? stored_o.data() : nullptr);
    });
  }
}

// Every slot empty: zero genes and bias (the padding lanes stay zero), fitness +inf, so that
// empty padding slots rank last until children fill them.
void CudaEngine::Impl::clear_slots() {
  const cudaStream_t s = stream.get();
  CHAINSAW_CUDA_TRY(cudaMemsetAsync(tickets.data(), 0, tickets.bytes(), s));
  std::vector<double> inf(static_cast<std::size_t>(capacity),
                          std::numeric_limits<double>::infinity());
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(fitness.data(), inf.data(), fitness.bytes(),
                                    cudaMemcpyHostToDevice, s));
  host_fitness = inf;
  CHAINSAW_CUDA_TRY(cudaMemsetAsync(genes.data(), 0, genes.bytes(), s));  // padding lanes
  CHAINSAW_CUDA_TRY(cudaMemsetAsync(bias.data(), 0, bias.bytes(), s));
}

// Timed once per run (two events), whether or not it profiles.
void CudaEngine::Impl::seed_rng(std::uint64_t seed) {
  const cudaStream_t s = stream.get();
  const unsigned rng_blocks = static_cast<unsigned>((rng.size() + 255) / 256);
  rng_init_seconds = stream_seconds(s, [&] {
    init_rng_kernel<<<rng_blocks, 256, 0, s>>>(
        rng.data(), rng.size(), static_cast<std::size_t>(layout.first) * launch.rng_states,
        derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCrossover)));
    CHAINSAW_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace chainsaw
