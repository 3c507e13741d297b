// The CUDA engine's state (CudaEngine::Impl) and the steps its operations share, for the files
// that implement it: cuda_engine.cu (the operations, whole individuals, profiling),
// cuda_engine_setup.cu (construction), cuda_engine_crossover.cu (distances and crossover
// batches), cuda_engine_evaluation.cu (stored individuals' evaluation), cuda_engine_solis_wets.cu
// and cuda_engine_checkpoint.cu. Genes, bias vectors, fitness and cuRAND XORWOW states stay on
// the device for the whole run; the host sends small index arrays and reads back a few numbers.
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/distributed/device_collective.hpp"
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/engines/cuda/device_passes.cuh"
#include "core/engines/cuda/launch_plan.hpp"
#include "core/engines/cuda/tuning/gpu_policy.hpp"
#include "core/error.hpp"
#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"
#include "core/gpu/persisting_l2_window.hpp"
#include "core/gpu/phase_timeline.hpp"
#include "core/profiling.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/cec2010/device_cec2010.cuh"
#include "fitness/problem.hpp"
#include "localsearch/device_solis_wets.cuh"
#include "localsearch/solis_wets.hpp"

namespace chainsaw {

// The exchange of a sharded pass, timed as communication when profiling: the bucket it
// interrupts resumes after it.
class ProfiledCollective final : public DeviceCollective {
 public:
  ProfiledCollective(DeviceCollective& inner, PhaseTimeline& timeline)
      : inner_(inner), timeline_(timeline) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  void allgather(const void* in, void* out, std::size_t bytes, cudaStream_t stream) override {
    const Bucket resume = timeline_.current();
    if (resume != Bucket::kCount) timeline_.mark(Bucket::kCommunication);
    inner_.allgather(in, out, bytes, stream);
    if (resume != Bucket::kCount) timeline_.mark(resume);
  }

 private:
  DeviceCollective& inner_;
  PhaseTimeline& timeline_;
};

// The pinned host buffers that a launch's small inputs and outputs go through, and their device
// addresses: make_nam_children's kernels read and write them in place.
struct HostStaging {
  PinnedBuffer<ChildSpec> specs;
  PinnedBuffer<int> a, b;
  PinnedBuffer<double> out;
  PinnedBuffer<device::SwDeviceState> sw;
  PinnedBuffer<int> fathers;
  int* mapped_a = nullptr;
  int* mapped_b = nullptr;
  ChildSpec* mapped_specs = nullptr;
  int* mapped_fathers = nullptr;
  double* mapped_out = nullptr;

  HostStaging() = default;
  explicit HostStaging(int max_rows);
};

// A CEC 2010 instance's permutation, its inverse, the rotation and the group values of a
// launch's rows (rows x groups), as the device's kernels read them (view).
struct CecDeviceInstance {
  DeviceBuffer<std::int32_t> perm, inverse;
  DeviceBuffer<double> rotation;
  DeviceBuffer<double> group_values;
  CecView view;
};

// A user objective's device buffers: the count of invalid values; a batch callback's values of
// a batch and the rows a batch's children go to it in (gathered_batch_bytes). One that comes as
// a CUDA graph too (BatchObjective::device_graph) runs a whole Solis-Wets application as one
// launch of sw_graph (build_sw_graph), on the work rows sw_rows (x, then the bias) that the
// slot's are copied to and from; built at the first application (sw_graph_tried).
struct UserObjectiveDevice {
  DeviceBuffer<double> values;
  DeviceBuffer<unsigned long long> invalid;
  DeviceBuffer<real_t> gathered_rows;
  bool sw_graph_tried = false;
  CudaGraphExec sw_graph;
  DeviceBuffer<real_t> sw_rows;
  // Where the graph's steps write their slot's fitness; the slot's own is set after it.
  DeviceBuffer<double> sw_graph_fitness;
};

struct CudaEngine::Impl {
  Problem problem;
  Dim dim;  // the problem's
  SliceLayout layout;
  std::vector<GeneSlice> slices;  // every rank's, in rank order (one engine: the whole)
  GeneSlice own;                  // this engine's genes of every individual
  Dim pitch;
  int capacity;
  double blx_alpha;
  SolisWetsParams sw_params;
  GpuPolicy policy;  // as the workload supports it
  LaunchPlan launch;
  // Sharded runs only: the ranks, the exchange of partials and where it gathers them.
  Communicator* comm = nullptr;
  std::unique_ptr<DeviceCollective> collective;
  std::unique_ptr<ProfiledCollective> profiled_collective;
  DeviceBuffer<unsigned char> gathered;
  int last_ls_syncs = 0;
  int last_chain_block_threads = 0;  // the last application's chain launch; 0: none
  double rng_init_seconds = 0.0;     // curand_init of every state, timed once at construction
  PhaseTimeline timeline;            // --profile
  KernelProfile* profile = nullptr;  // --profile: the essential bytes of the passes too
  // The passes that make and evaluate individuals of this function in one sweep. CEC 2010 and
  // user batch callbacks only make genes there (GenesOnly), and their evaluation of the stored
  // vectors is a launch of its own (stored_evaluation); a per-gene user objective compiled by
  // nvcc brings its own fused passes and runs as a built-in function does.
  std::shared_ptr<const device::FusedPasses> passes;
  bool stored_evaluation = false;

  CudaStream stream;
  DeviceBuffer<real_t> genes, bias;
  DeviceBuffer<double> fitness, row_out;
  // Every slot's fitness as the engine returned it: the index sort runs on the host, where the
  // values already are (a device sort cost a launch, a copy and a host wait per batch).
  std::vector<double> host_fitness;
  // The NAM batch as a CUDA graph, by (children, candidates per child): policy.nam_batch.graphs.
  std::map<std::pair<int, int>, CudaGraphExec> nam_graphs;
  DeviceBuffer<curandState> rng;
  DeviceBuffer<curandState> rng_alt;  // Solis-Wets: the states after a step's forward move
  DeviceBuffer<unsigned char> partials;
  DeviceBuffer<unsigned> tickets;
  DeviceBuffer<ChildSpec> specs;
  DeviceBuffer<int> rows_a, rows_b;
  DeviceBuffer<device::SwDeviceState> sw_state;
  HostStaging host;
  // A built-in function's o, for its evaluation pass (policy.evaluation); empty otherwise.
  DeviceBuffer<real_t> stored_o;
  PersistingL2Window stored_o_window;  // over stored_o, for the evaluation launches
  // o for the distance to the optimum where it is data (CEC 2010, Janssen et al.'s functions).
  DeviceBuffer<real_t> device_o;
  // The Solis-Wets candidate of a function evaluated apart: CEC 2010's one row, a batch
  // callback's two (both candidates of a step).
  DeviceBuffer<real_t> candidate;
  // The Solis-Wets chain kernel's dif of a step, one row where policy.solis_wets.keeps_dif.
  DeviceBuffer<real_t> sw_dif;
  CecDeviceInstance cec;     // CEC 2010 only
  UserObjectiveDevice user;  // user objectives only

  // cuda_engine_setup.cu: every buffer allocated, the problem's data staged, XORWOW seeded.
  Impl(const Config& config, const Problem& p, Communicator* ranks,
       std::unique_ptr<DeviceCollective> exchange, const GpuPolicy* given_policy);
  void allocate_launch_buffers();
  void stage_user_objective();
  void stage_problem_data();
  void make_passes();
  void clear_slots();
  void seed_rng(std::uint64_t seed);

  // Every host wait of the engine: the profile's pending intervals are complete after it.
  void sync() {
    timeline.stop();
    stream.synchronize();
    timeline.collect();
  }
  // What the fused passes (core/engines/cuda/device_passes.cuh) need of the engine.
  device::PassContext context() const {
    device::PassContext c;
    c.stream = stream.get();
    c.sm_count = launch.sm_count;
    c.batch = launch.batch;
    c.max_rows = launch.max_rows;
    c.dim = dim;
    c.pitch = pitch;
    c.slice_genes = layout.slice_genes;
    c.slices = layout.held;
    c.first_slice = layout.first;
    c.gene_base = own.first;
    c.rng_stride = launch.rng_states;
    if (comm) {
      c.collective = profiled_collective.get();
      c.gathered = gathered.data();
    }
    c.lower = problem.lower;
    c.upper = problem.upper;
    c.blx_alpha = blx_alpha;
    c.genes = genes.data();
    c.slot_fitness = fitness.data();
    c.row_out = row_out.data();
    c.rng = rng.data();
    c.partials = partials.data();
    c.tickets = tickets.data();
    c.sw_state = sw_state.data();
    c.reduce = policy.reduce;
    c.solis_wets = policy.solis_wets;
    c.invalid = problem.is_external() ? user.invalid.data() : nullptr;
    c.shift_window = stored_o_window.window();
    return c;
  }
  template <class Term, class Op>
  device::ReduceShape launch_reduce(const Op& op, const Term& term, device::Spread spread,
                                    int rows, curandState* rng_in = nullptr,
                                    curandState* rng_out = nullptr, int blocks_cap = 0) {
    return device::launch_reduce(context(), op, term, spread, rows, rng_in, rng_out, blocks_cap);
  }

  // CEC 2010: the groups of rows [0, row_count) of the vectors, ahead of the gene reduction
  // (fitness/cec2010/device_cec2010.cuh), and the term of that reduction, which reads them. Functions
  // without groups launch nothing. One wave of blocks at most, one group per thread (per warp
  // for F4-F6).
  template <class Fn, class Op>
  device::CecTerm<Fn> launch_cec_groups(const Op& op, const real_t* vectors, Dim vector_pitch,
                                        const int* rows, int row_count) {
    CHAINSAW_EXPECTS(row_count >= 1 && row_count <= launch.max_rows,
                     "batched launch exceeds its rows");
    device::CecTerm<Fn> term{cec.view, vectors, vector_pitch, rows};
    if constexpr (device::kCecGroupPass<Fn>) {
      constexpr int threads = device::kCecGroupThreads;
      static const int per_sm = [] {
        int n = 0;
        CHAINSAW_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &n, device::cec_group_kernel<Fn, Op>, threads, 0));
        return std::max(1, n);
      }();
      const Dim threads_needed =
          static_cast<Dim>(row_count) * cec.view.groups * device::kCecThreadsPerGroup<Fn>;
      const Dim useful = (threads_needed + threads - 1) / threads;
      const Dim wave = static_cast<Dim>(launch.sm_count) * per_sm;
      const auto blocks = static_cast<unsigned>(std::max<Dim>(1, std::min(useful, wave)));
      device::cec_group_kernel<Fn, Op><<<blocks, threads, 0, stream.get()>>>(
          op, cec.view, vectors, vector_pitch, rows, row_count, cec.group_values.data());
      CHAINSAW_CUDA_CHECK_LAUNCH();
      term.group_values = cec.group_values.data();
    }
    return term;
  }

  // The small per-launch copies (indices, specs, results, a few KiB) are not marked: they are
  // timed with the kernel they feed or follow, for events around each cost --profile more than
  // they measure (bench/results/2026-11-23-h100-profiling); the transfers bucket holds the
  // copies of whole individuals.
  template <class T>
  void to_device(T* dst, PinnedBuffer<T>& staging, const T* src, int count) {
    std::copy(src, src + count, staging.data());
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(dst, staging.data(), sizeof(T) * count,
                                      cudaMemcpyHostToDevice, stream.get()));
  }
  void rows_to_host(double* out, int count) {
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(host.out.data(), row_out.data(), sizeof(double) * count,
                                      cudaMemcpyDeviceToHost, stream.get()));
    sync();
    std::copy(host.out.data(), host.out.data() + count, out);
  }
  void record_fitness(const int* slots, const double* values, int count) {
    for (int i = 0; i < count; ++i) host_fitness[slots[i]] = values[i];
  }
  // A sharded rank counts the mutated gene from its first gene.
  std::vector<ChildSpec> local_specs(const ChildSpec* children, int count) const {
    std::vector<ChildSpec> local(children, children + count);
    for (ChildSpec& c : local)
      if (c.mutated_gene >= 0) c.mutated_gene -= own.first;
    return local;
  }

  // cuda_engine_crossover.cu
  void launch_distances(const int* from, const int* to, int rows);
  void mark_distances(const int* from, const int* to, int pairs);
  bool launch_nam_distances(const int* host_mothers, const int* candidates, int per_child,
                            int count);
  void launch_children(const int* slots, int count);
  // cuda_engine_evaluation.cu
  bool gathers(const int* host_slots, int rows) const;
  void launch_external_evaluation(const int* host_slots, int rows, bool gathered);
  void launch_evaluation(const int* host_slots, int rows, bool gathered = false);
  // cuda_engine_solis_wets.cu
  class SwApplication;
  void launch_sw_decision(bool forward);
  int external_sw_blocks_cap();
  device::SwCandidatesOp external_sw_candidates(const real_t* x, const real_t* bias);
  device::ReduceShape launch_external_sw_candidates(const real_t* x, const real_t* bias,
                                                    curandState* rng_in, curandState* rng_out,
                                                    int blocks_cap);
  template <class Evaluate>
  void launch_external_sw_step(real_t* x, real_t* bias, curandState* rng_in,
                               curandState* rng_out, int blocks_cap, double* slot_fitness,
                               int slot, const Evaluate& evaluate,
                               cudaGraphConditionalHandle loop = 0);
  void build_sw_graph(int blocks_cap);
  // cuda_engine_checkpoint.cu
  std::string rng_layout() const;

  real_t* slot_genes(int slot) { return genes.data() + static_cast<Dim>(slot) * pitch; }
  real_t* slot_bias(int slot) { return bias.data() + static_cast<Dim>(slot) * pitch; }
  real_t* slot_array(SlotArray array, int slot) {
    return array == SlotArray::kGenes ? slot_genes(slot) : slot_bias(slot);
  }
};

}  // namespace chainsaw
