#include "core/engines/cuda/cuda_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <type_traits>
#include <utility>

#include "core/distributed/device_collective.hpp"
#include "core/engines/cuda/builtin_passes.hpp"
#include "core/engines/cuda/device_passes.cuh"
#include "core/error.hpp"
#include "core/gpu/copy_bandwidth.hpp"
#include "core/gpu/device_buffer.hpp"
#include "core/gpu/persisting_l2_window.hpp"
#include "core/gpu/phase_timeline.hpp"
#include "core/population.hpp"
#include "core/rng.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/cec2010/device_cec2010.cuh"
#include "fitness/device_reduce.cuh"
#include "fitness/janssen/janssen_instance.hpp"
#include "localsearch/device_solis_wets.cuh"
#include "ssga/device_ops.cuh"

namespace chainsaw {

namespace {

using device::kThreads;
using device::ReduceShape;
using device::Spread;

// Launch sizes from the device (seed 001's lesson). The plan holds the largest shapes (every SM
// at full occupancy), which size the RNG states and the partials; each launch then takes the one
// wave of blocks its own kernel can keep resident (Impl::launch_reduce). All of it per slice of
// the genes (one slice unless config.gpu_slices > 1 or sharded): each slice is a wave.
struct LaunchPlan {
  int sm_count = 1;
  int batch = 1;
  int max_rows = 1;      // rows of any batched launch (children, distance pairs, slots)
  int rng_rows = 1;      // rows of launches that draw random numbers
  ReduceShape single;    // one individual
  ReduceShape batched;   // per row of a batch
  // A Solis-Wets step's one row (SwBothMovesOp), in runs of sw_lane genes (sw_lane_genes).
  int sw_lane = device::kVec;
  ReduceShape sw_step;
  std::size_t rng_states = 0;
  std::size_t partial_slots = 0;  // block partials: rows x blocks

  // The threads of the largest one-row launch: the spare XORWOW states of a Solis-Wets step.
  std::size_t one_row_states() const {
    return static_cast<std::size_t>(std::max(single.blocks_x, sw_step.blocks_x)) * kThreads;
  }
  // The shape of a one-row launch of `genes` in runs of lane_genes per lane, every SM full.
  static ReduceShape one_row(Dim genes, int sm_count, int lane_genes = device::kVec) {
    return ReduceShape::make(genes, sm_count * (2048 / kThreads), lane_genes);
  }

  static LaunchPlan make(const Config& config, Dim problem_dim, Dim slice_genes, int sm_count) {
    const Dim dim = slice_genes;
    LaunchPlan p;
    p.sm_count = sm_count;
    p.batch = std::max(1, config.batch);
    const int blocks_per_sm = 2048 / kThreads;
    p.single = one_row(dim, sm_count);
    p.sw_lane = device::sw_lane_genes(problem_dim, sm_count);
    p.sw_step = one_row(dim, sm_count, p.sw_lane);
    const int batch_blocks = std::max(1, sm_count * blocks_per_sm / std::max(1, config.batch));
    p.batched = ReduceShape::make(dim, batch_blocks);
    p.rng_rows = std::max(config.population_size, config.batch);
    p.max_rows = std::max({config.population_size, config.batch,
                           config.batch * config.nam_candidates});
    p.rng_states = std::max(static_cast<std::size_t>(p.rng_rows) *
                                static_cast<std::size_t>(p.batched.blocks_x) * kThreads,
                            p.one_row_states());
    // A Solis-Wets step's one row holds two partials (SwBothMovesOp), and the chain kernel
    // alternates two sets of them: four times a single row's.
    p.partial_slots = static_cast<std::size_t>(std::max(
        static_cast<long long>(p.max_rows) * p.batched.blocks_x,
        4 * static_cast<long long>(std::max(p.single.blocks_x, p.sw_step.blocks_x))));
    return p;
  }
};

// States [first, first + count) of the run's: a sharded rank holds those of its slice.
__global__ void init_rng_kernel(curandState* states, std::size_t count, std::size_t first,
                                unsigned long long seed) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // One XORWOW subsequence per thread (2^67 apart): independent streams, as in the paper.
  if (i < count) curand_init(seed, first + i, 0, &states[i]);
}

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

// o_j of a paper function for every gene, made by the device's hash (the same floats as the
// host's: CudaFitness.OptimumIsMinus330ForEveryFunction checks them bit for bit).
__global__ void shift_values_kernel(Shift shift, Dim dim, real_t* o) {
  const Dim j = static_cast<Dim>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < dim) o[j] = shift(j);
}

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

// The device's address of pinned host memory (the same pointer where addressing is unified).
template <class T>
T* mapped(PinnedBuffer<T>& buffer) {
  void* p = nullptr;
  CHAINSAW_CUDA_TRY(cudaHostGetDevicePointer(&p, buffer.data(), 0));
  return static_cast<T*>(p);
}

int current_device_attribute(cudaDeviceAttr attribute) {
  int device = 0;
  CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
  int value = 0;
  CHAINSAW_CUDA_TRY(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}
int current_sm_count() { return current_device_attribute(cudaDevAttrMultiProcessorCount); }

std::string gib(std::size_t bytes) {
  std::ostringstream s;
  s.precision(2);
  s << std::fixed << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return s.str();
}

// The block-partial scratch holds the largest partial of any function.
static_assert(sizeof(RosenbrockPartial) <= sizeof(PrefixSquarePartial) &&
                  sizeof(AckleyPartial) <= sizeof(PrefixSquarePartial),
              "partials scratch is sized by PrefixSquarePartial");

// Group values of a CEC 2010 function: rows x groups (every function with groups takes the
// separate pass; the others have none).
std::size_t cec2010_group_values(const Problem& problem, int max_rows) {
  if (!problem.is_cec2010()) return 0;
  return static_cast<std::size_t>(max_rows) * static_cast<std::size_t>(problem.cec->groups);
}

// A CEC 2010 instance on the device (o, P, P's inverse, M), the stored Solis-Wets candidate
// its grouped evaluation gathers from and the group values.
std::size_t cec2010_device_bytes(const Problem& problem, int max_rows) {
  if (!problem.is_cec2010()) return 0;
  const CecInstance& inst = *problem.cec;
  const auto candidate = static_cast<std::size_t>(device::row_pitch(problem.dim));
  return (inst.o.size() + candidate) * sizeof(real_t) +
         (inst.perm.size() + inst.inverse.size()) * sizeof(std::int32_t) +
         (inst.rotation.size() + cec2010_group_values(problem, max_rows)) * sizeof(double);
}

// Whether the GPU evaluates stored vectors in launches of their own (the Solis-Wets candidate,
// a batch of children): CEC 2010 functions and batch callbacks. The built-in functions and a
// per-gene user objective compiled by nvcc (device_passes) evaluate inside the fused passes.
bool gpu_evaluates_stored_vectors(const Problem& problem) {
  return problem.evaluates_stored_vectors() &&
         !(problem.is_external() && problem.external->device_passes);
}

// The evaluation pass of a built-in function reads o from a device copy (StoredShiftTerm), kept
// in L2 by a persisting window; the passes that make genes (initialisation, crossover,
// Solis-Wets) hash it. Measured on the H100 (docs/performance.md, What we tried): the copy
// speeds a batch's evaluation at 1e6-D by 3-24% (Salomon 69 -> 74% of copy bandwidth, Schwefel
// 1.2 48 -> 60%), its rows sharing o in L2, but read in every pass it slowed the 3e6-D run
// (19.2 -> 20.5 s): the making passes' own streams evict it, and their random numbers keep the
// GPU busy anyway. Engines whose rows are laid out in slices hash: the copy would have to
// follow the slices.
bool reads_stored_shift(const Problem& problem, int slices, bool sharded) {
  return !sharded && slices == 1 && !problem.is_cec2010() && !problem.is_external();
}

// Whether `rows` rows of a problem's genes take at most a quarter of L2.
bool rows_fit_quarter_of_l2(const Problem& problem, int rows) {
  const std::size_t bytes = static_cast<std::size_t>(rows) *
                            static_cast<std::size_t>(device::row_pitch(problem.dim)) *
                            sizeof(real_t);
  return bytes <= static_cast<std::size_t>(current_device_attribute(cudaDevAttrL2CacheSize)) / 4;
}

// Whether a Solis-Wets application that runs as one launch (sw_chain_kernel: whole rows, a
// function evaluated as its candidates are made) keeps each step's dif in a row of its own for
// the apply of a success, instead of drawing it again: where the rows that its steps read from
// L2 take at most a quarter of it. That is the dif row alone where x and the bias are staged in
// shared memory, and all three rows where they are not (sw_dif_beside_genes_in_l2). Measured on
// the H100 with the genes in memory (docs/performance.md): local search 4-5% faster at 1e5-D
// (1.2 MB), the same at 1e6-D (12 MB), 4% slower at 3e6-D (36 MB of its 50 MB L2). With them
// staged and the dif row alone in L2, on the H200 at 3e6-D: 6-19% faster for four of the paper
// functions, 7% slower for Salomon, whose step is the cheapest.
bool keeps_sw_dif(const Problem& problem, int slices, bool sharded) {
  return !sharded && slices == 1 && !gpu_evaluates_stored_vectors(problem) &&
         rows_fit_quarter_of_l2(problem, 1);
}
bool sw_dif_beside_genes_in_l2(const Problem& problem) {
  return rows_fit_quarter_of_l2(problem, 3);
}

// The children of a crossover batch go to a batch callback in one call, gathered into rows of
// their own, where those rows take at most this much device memory; beyond it (10^8 variables
// and more with the default batch) the callback gets each run of adjacent slots apart.
constexpr std::size_t kGatheredBatchBytes = std::size_t{1} << 30;

std::size_t gathered_batch_bytes(const Problem& problem, int batch_rows) {
  const std::size_t bytes = static_cast<std::size_t>(batch_rows) *
                            static_cast<std::size_t>(device::row_pitch(problem.dim)) *
                            sizeof(real_t);
  return bytes <= kGatheredBatchBytes ? bytes : 0;
}

// A user objective: the count of invalid values; a batch callback's also the two Solis-Wets
// candidates of a step, its values of a batch and the gathered children; one given as a graph
// too the work rows of a Solis-Wets application.
std::size_t external_device_bytes(const Problem& problem, int max_rows, int batch_rows) {
  if (!problem.is_external()) return 0;
  if (!gpu_evaluates_stored_vectors(problem)) return sizeof(unsigned long long);
  const std::size_t row = static_cast<std::size_t>(device::row_pitch(problem.dim)) * sizeof(real_t);
  return 2 * row + static_cast<std::size_t>(max_rows) * sizeof(double) +
         sizeof(unsigned long long) + gathered_batch_bytes(problem, batch_rows) +
         (problem.external->device_graph ? 2 * row + sizeof(double) : 0);
}

template <class T>
DeviceBuffer<T> device_copy(const std::vector<T>& host, cudaStream_t s) {
  DeviceBuffer<T> d(std::max<std::size_t>(1, host.size()));
  if (!host.empty())
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(d.data(), host.data(), sizeof(T) * host.size(),
                                      cudaMemcpyHostToDevice, s));
  return d;
}

}  // namespace

static_assert(kGpuSliceTile == device::kWarpTile, "slices are made of whole warp tiles");

Dim gpu_slice_genes(Dim dim, int slices) {
  if (slices <= 1) return dim;
  const Dim per = (dim + slices - 1) / slices;
  const Dim genes = (per + device::kWarpTile - 1) / device::kWarpTile * device::kWarpTile;
  if (genes * (slices - 1) >= dim)
    throw UserError("D = " + std::to_string(dim) + " is too small for " + std::to_string(slices) +
                    " GPU slices: each needs at least one of the " +
                    std::to_string(device::kWarpTile) + "-gene tiles of every individual");
  return genes;
}

namespace {
// Which slices of the genes an engine holds.
struct SliceLayout {
  int slices = 1;       // of the run
  int held = 1;         // by this engine: all, or a sharded rank's one
  int first = 0;        // the first held
  Dim slice_genes = 0;

  static SliceLayout make(Dim dim, int slices, int rank, bool sharded) {
    SliceLayout l;
    l.slices = std::max(1, slices);
    l.slice_genes = gpu_slice_genes(dim, l.slices);
    l.held = sharded ? 1 : l.slices;
    l.first = sharded ? rank : 0;
    return l;
  }
  // Every rank's slice of a sharded run, in rank order; one engine holds the whole individual.
  std::vector<GeneSlice> rank_slices(Dim dim, bool sharded) const {
    if (!sharded) return {GeneSlice{0, dim, dim}};
    std::vector<GeneSlice> all;
    for (int r = 0; r < slices; ++r) {
      const Dim first_gene = static_cast<Dim>(r) * slice_genes;
      all.push_back({first_gene, std::min(slice_genes, dim - first_gene), dim});
    }
    return all;
  }
};
}  // namespace

DeviceMemoryPlan plan_device_memory(const Config& config, const Problem& problem,
                                    int shard_ranks) {
  const bool sharded = shard_ranks > 1;
  const SliceLayout layout =
      SliceLayout::make(problem.dim, sharded ? shard_ranks : config.gpu_slices, 0, sharded);
  const LaunchPlan launch =
      LaunchPlan::make(config, problem.dim, layout.slice_genes, current_sm_count());
  const std::size_t slot_genes =
      static_cast<std::size_t>(config.capacity()) *
      device::row_pitch(layout.rank_slices(problem.dim, sharded).front().count);  // the largest
  const auto held = static_cast<std::size_t>(layout.held);
  DeviceMemoryPlan plan;
  plan.genes = slot_genes * sizeof(real_t);
  plan.bias = slot_genes * sizeof(real_t);
  plan.rng_states = (held * launch.rng_states + (held - 1) * launch.rng_states +
                     launch.one_row_states()) *
                    sizeof(curandState);
  plan.scratch = (reads_stored_shift(problem, layout.slices, sharded)
                      ? static_cast<std::size_t>(problem.dim) * sizeof(real_t)
                      : 0) +
                 (keeps_sw_dif(problem, layout.slices, sharded)
                      ? static_cast<std::size_t>(device::row_pitch(problem.dim)) * sizeof(real_t)
                      : 0) +
                 cec2010_device_bytes(problem, launch.max_rows) +
                 external_device_bytes(problem, launch.max_rows, launch.rng_rows) +
                 (held + (sharded ? static_cast<std::size_t>(shard_ranks) : 0)) *
                     launch.partial_slots * sizeof(PrefixSquarePartial) +
                 static_cast<std::size_t>(config.capacity()) * sizeof(double) +
                 static_cast<std::size_t>(launch.max_rows) *
                     (sizeof(ChildSpec) + 3 * sizeof(int) + sizeof(double) + sizeof(unsigned));
  return plan;
}

namespace {
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
}  // namespace

struct CudaEngine::Impl {
  Problem problem;
  Dim dim;    // the problem's
  SliceLayout layout;
  std::vector<GeneSlice> slices;  // every rank's, in rank order (one engine: the whole)
  GeneSlice own;                  // this engine's genes of every individual
  Dim pitch;
  int capacity;
  double blx_alpha;
  SolisWetsParams sw_params;
  LaunchPlan launch;
  // Sharded runs only: the ranks, the exchange of partials and where it gathers them.
  Communicator* comm = nullptr;
  std::unique_ptr<DeviceCollective> collective;
  std::unique_ptr<ProfiledCollective> profiled_collective;
  DeviceBuffer<unsigned char> gathered;
  int last_ls_syncs = 0;
  bool sw_chain = device::sw_chain_wanted();
  bool sw_keeps_dif = true;  // where sw_dif has its row
  bool sw_stages_genes = device::sw_staged_genes_wanted();  // PassContext::sw_stages_genes
  bool sw_stages_dif = device::sw_staged_dif_wanted();      // PassContext::sw_stages_dif
  bool sw_stages_shift = device::sw_staged_shift_wanted();  // PassContext::sw_stages_shift
  bool sw_reads_stored_shift = device::sw_stored_shift_wanted();  // PassContext's
  bool sw_pairs_blocks = device::sw_paired_blocks_wanted();  // PassContext::sw_pairs_blocks
  int last_chain_block_threads = 0;  // the last application's chain launch; 0: none
  bool sw_dif_beside_genes = true;  // PassContext::sw_dif_beside_genes_in_l2
  int sw_lane = launch.sw_lane;  // genes per lane's run of a Solis-Wets step (set_solis_wets_lane)
  bool interleave_rows = device::rows_interleaved_wanted();
  bool nam_child_rows = device::nam_child_rows_wanted();
  double rng_init_seconds = 0.0;  // curand_init of every state, timed once at construction
  PhaseTimeline timeline;         // --profile
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
  // The NAM batch as a CUDA graph, by (children, candidates per child): plain runs only (a
  // sharded pass exchanges through the host's communicator, a user objective calls back).
  bool batch_graphs = false;
  std::map<std::pair<int, int>, CudaGraphExec> nam_graphs;
  DeviceBuffer<curandState> rng;
  DeviceBuffer<curandState> rng_alt;  // Solis-Wets: the states after a step's forward move
  DeviceBuffer<unsigned char> partials;
  DeviceBuffer<unsigned> tickets;
  DeviceBuffer<ChildSpec> specs;
  DeviceBuffer<int> rows_a, rows_b;
  DeviceBuffer<device::SwDeviceState> sw_state;
  PinnedBuffer<ChildSpec> host_specs;
  PinnedBuffer<int> host_a, host_b;
  PinnedBuffer<double> host_out;
  PinnedBuffer<device::SwDeviceState> host_sw;
  PinnedBuffer<int> host_fathers;
  // The staging buffers' device addresses: make_nam_children's kernels read and write them.
  int* mapped_a = nullptr;
  int* mapped_b = nullptr;
  ChildSpec* mapped_specs = nullptr;
  int* mapped_fathers = nullptr;
  double* mapped_out = nullptr;
  // A built-in function's o, for its evaluation pass (reads_stored_shift); empty otherwise.
  DeviceBuffer<real_t> stored_o;
  PersistingL2Window stored_o_window;  // over stored_o, for the evaluation launches
  // CEC 2010 only: the instance and the Solis-Wets candidate (see cec2010_device_bytes); a
  // batch callback's two candidates of a step (external_device_bytes) in `candidate` too.
  DeviceBuffer<real_t> cec_o, candidate;
  // The Solis-Wets chain kernel's dif of a step, one row where keeps_sw_dif, else none (null).
  DeviceBuffer<real_t> sw_dif;
  DeviceBuffer<std::int32_t> cec_perm, cec_inverse;
  DeviceBuffer<double> cec_rotation;
  DeviceBuffer<double> cec_group_values;  // rows x groups
  CecView cec_view;
  // A user objective only: its values of a batch and the count of invalid ones.
  DeviceBuffer<double> external_values;
  DeviceBuffer<unsigned long long> invalid;
  DeviceBuffer<real_t> gathered_rows;  // a batch's children for one call (gathered_batch_bytes)
  // A user objective that comes as a CUDA graph too (BatchObjective::device_graph): a whole
  // Solis-Wets application is one launch of sw_graph (build_sw_graph), on the work rows
  // sw_rows (x, then the bias) that the slot's are copied to and from. Built at the first
  // application; sw_graph_tried says whether that was done.
  bool sw_graph_tried = false;
  CudaGraphExec sw_graph;
  DeviceBuffer<real_t> sw_rows;
  // Where the graph's steps write their slot's fitness; the slot's own is set after it.
  DeviceBuffer<double> sw_graph_fitness;

  Impl(const Config& config, const Problem& p, Communicator* ranks,
       std::unique_ptr<DeviceCollective> exchange)
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
        launch(LaunchPlan::make(config, p.dim, layout.slice_genes, current_sm_count())),
        comm(ranks),
        collective(std::move(exchange)) {
    CHAINSAW_EXPECTS(!comm || (collective && collective->size() == comm->size()),
                     "a sharded engine needs the device collective of its ranks");
    CHAINSAW_EXPECTS(!comm || (!p.is_cec2010() && !p.is_external()),
                     "only built-in functions are sharded");
    const DeviceMemoryPlan plan = plan_device_memory(config, p, comm ? comm->size() : 1);
    std::size_t free_bytes = 0, total_bytes = 0;
    CHAINSAW_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (plan.total() > free_bytes)
      throw UserError("the population does not fit in GPU memory: needs " + gib(plan.total()) +
                      " (genes " + gib(plan.genes) + ", bias " + gib(plan.bias) + ", RNG states " +
                      gib(plan.rng_states) + ", scratch " + gib(plan.scratch) + "), " +
                      gib(free_bytes) + " free of " + gib(total_bytes));

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
    host_specs = PinnedBuffer<ChildSpec>(launch.max_rows);
    host_a = PinnedBuffer<int>(launch.max_rows);
    host_b = PinnedBuffer<int>(launch.max_rows);
    host_out = PinnedBuffer<double>(launch.max_rows);
    host_sw = PinnedBuffer<device::SwDeviceState>(1);
    host_fathers = PinnedBuffer<int>(launch.max_rows);
    mapped_a = mapped(host_a);
    mapped_b = mapped(host_b);
    mapped_specs = mapped(host_specs);
    mapped_fathers = mapped(host_fathers);
    mapped_out = mapped(host_out);

    cudaStream_t s = stream.get();
    if (p.is_external()) {
      if (!p.external->device && !p.external->device_passes)
        throw UserError("objective '" + p.external->name +
                        "' has no device callback: it runs on the CPU backend only (a per-gene "
                        "objective gets one when optimize() is compiled by nvcc)");
      if (gpu_evaluates_stored_vectors(p)) {  // a Solis-Wets step's two candidates
        candidate = DeviceBuffer<real_t>(2 * static_cast<std::size_t>(pitch));
        CHAINSAW_CUDA_TRY(cudaMemsetAsync(candidate.data(), 0, candidate.bytes(), s));
        external_values = DeviceBuffer<double>(launch.max_rows);
        gathered_rows = DeviceBuffer<real_t>(gathered_batch_bytes(p, launch.rng_rows) / sizeof(real_t));
      }
      invalid = DeviceBuffer<unsigned long long>(1);
      // A function of generated data copies it to the device now, before the run's clock.
      if (p.has_generated_data() && p.external->device)
        p.external->device(nullptr, pitch, 0, dim, nullptr, s);
      CHAINSAW_CUDA_TRY(cudaMemsetAsync(invalid.data(), 0, invalid.bytes(), s));
    }
    if (p.is_janssen()) {  // o for the distance to the optimum
      cec_o = device_copy(p.janssen->optimum, s);
      problem.shift.stored = cec_o.data();
    }
    if (p.is_cec2010()) {
      const CecInstance& inst = *p.cec;
      cec_o = device_copy(inst.o, s);
      cec_perm = device_copy(inst.perm, s);
      cec_inverse = device_copy(inst.inverse, s);
      cec_rotation = device_copy(inst.rotation, s);
      cec_group_values = DeviceBuffer<double>(cec2010_group_values(p, launch.max_rows));
      candidate = DeviceBuffer<real_t>(static_cast<std::size_t>(pitch));
      CHAINSAW_CUDA_TRY(cudaMemsetAsync(candidate.data(), 0, candidate.bytes(), s));
      cec_view = inst.view_at(cec_o.data(), cec_perm.data(), cec_inverse.data(), cec_rotation.data());
      problem.shift.stored = cec_o.data();  // o for the distance to the optimum
    }
    if (reads_stored_shift(p, layout.slices, comm != nullptr)) {
      stored_o = DeviceBuffer<real_t>(static_cast<std::size_t>(dim));
      shift_values_kernel<<<static_cast<unsigned>((dim + 255) / 256), 256, 0, s>>>(
          problem.shift, dim, stored_o.data());
      CHAINSAW_CUDA_CHECK_LAUNCH();
      stored_o_window = PersistingL2Window(stored_o.data(), stored_o.bytes());
    }
    if (keeps_sw_dif(p, layout.slices, comm != nullptr))
      sw_dif = DeviceBuffer<real_t>(static_cast<std::size_t>(pitch));
    sw_dif_beside_genes = sw_dif_beside_genes_in_l2(p);
    stored_evaluation = gpu_evaluates_stored_vectors(problem);
    batch_graphs = comm == nullptr && !problem.is_external() && device::batch_graphs_wanted();
    if (problem.is_external() && problem.external->device_passes) {
      passes = problem.external->device_passes;
    } else {
      visit_function(problem.function, [&](auto fn) {
        passes = device::make_builtin_passes<decltype(fn)>(
            problem.shift, stored_o.size() > 0 ? stored_o.data() : nullptr);
      });
    }
    CHAINSAW_CUDA_TRY(cudaMemsetAsync(tickets.data(), 0, tickets.bytes(), s));
    // Empty padding slots rank last until children fill them.
    std::vector<double> inf(static_cast<std::size_t>(capacity), std::numeric_limits<double>::infinity());
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(fitness.data(), inf.data(), fitness.bytes(),
                                      cudaMemcpyHostToDevice, s));
    host_fitness = inf;
    CHAINSAW_CUDA_TRY(cudaMemsetAsync(genes.data(), 0, genes.bytes(), s));  // padding lanes
    CHAINSAW_CUDA_TRY(cudaMemsetAsync(bias.data(), 0, bias.bytes(), s));
    const unsigned rng_blocks = static_cast<unsigned>((rng.size() + 255) / 256);
    // Timed once per run (two events), whether or not it profiles.
    rng_init_seconds = stream_seconds(s, [&] {
      init_rng_kernel<<<rng_blocks, 256, 0, s>>>(
          rng.data(), rng.size(), static_cast<std::size_t>(layout.first) * launch.rng_states,
          derive_key(config.seed, static_cast<std::uint64_t>(RngPurpose::kCrossover)));
      CHAINSAW_CUDA_CHECK_LAUNCH();
    });
  }

  // Every host wait of the engine: the profile's pending intervals are complete after it.
  void sync() {
    timeline.stop();
    stream.synchronize();
    timeline.collect();
  }

  // What the fused passes (core/engines/cuda/device_passes.cuh) need of the engine.
  device::PassContext context() {
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
    c.sw_lane_genes = sw_lane;
    c.sw_stages_genes = sw_stages_genes;
    c.sw_stages_dif = sw_stages_dif;
    c.sw_stages_shift = sw_stages_shift;
    c.sw_reads_stored_shift = sw_reads_stored_shift;
    c.sw_pairs_blocks = sw_pairs_blocks;
    c.sw_dif_beside_genes_in_l2 = sw_dif_beside_genes;
    c.interleave_rows = interleave_rows;
    c.invalid = problem.is_external() ? invalid.data() : nullptr;
    c.shift_window = stored_o_window.window();
    return c;
  }
  template <class Term, class Op>
  ReduceShape launch_reduce(const Op& op, const Term& term, Spread spread, int rows,
                            curandState* rng_in = nullptr, curandState* rng_out = nullptr,
                            int blocks_cap = 0) {
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
    device::CecTerm<Fn> term{cec_view, vectors, vector_pitch, rows};
    if constexpr (device::kCecGroupPass<Fn>) {
      constexpr int threads = device::kCecGroupThreads;
      static const int per_sm = [] {
        int n = 0;
        CHAINSAW_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &n, device::cec_group_kernel<Fn, Op>, threads, 0));
        return std::max(1, n);
      }();
      const Dim threads_needed =
          static_cast<Dim>(row_count) * cec_view.groups * device::kCecThreadsPerGroup<Fn>;
      const Dim useful = (threads_needed + threads - 1) / threads;
      const Dim wave = static_cast<Dim>(launch.sm_count) * per_sm;
      const auto blocks = static_cast<unsigned>(std::max<Dim>(1, std::min(useful, wave)));
      device::cec_group_kernel<Fn, Op><<<blocks, threads, 0, stream.get()>>>(
          op, cec_view, vectors, vector_pitch, rows, row_count, cec_group_values.data());
      CHAINSAW_CUDA_CHECK_LAUNCH();
      term.group_values = cec_group_values.data();
    }
    return term;
  }

  // The small per-launch copies (indices, specs, results, a few KiB) are not marked: they are
  // timed with the kernel they feed or follow. Two events each cost --profile more than 2% of
  // the run at 1e5-D; the transfers bucket holds the copies of whole individuals.
  template <class T>
  void to_device(T* dst, PinnedBuffer<T>& staging, const T* src, int count) {
    std::copy(src, src + count, staging.data());
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(dst, staging.data(), sizeof(T) * count,
                                      cudaMemcpyHostToDevice, stream.get()));
  }
  void rows_to_host(double* out, int count) {
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(host_out.data(), row_out.data(), sizeof(double) * count,
                                      cudaMemcpyDeviceToHost, stream.get()));
    sync();
    std::copy(host_out.data(), host_out.data() + count, out);
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
  // Distances of the pairs staged in rows_a and rows_b (from, to: the same slots) into row_out.
  void launch_distances(const int* from, const int* to, int rows) {
    device::DistanceOp op{genes.data(), pitch, rows_a.data(), rows_b.data(), row_out.data()};
    mark_distances(from, to, rows);
    launch_reduce(op, device::SquareTerm{}, Spread::kBatch, rows);
  }
  // The distances' bucket of the timeline and, profiled, their essential bytes: each distinct
  // member of the pairs (from, to) read once.
  void mark_distances(const int* from, const int* to, int pairs) {
    timeline.mark(Bucket::kDistances);
    if (profile) count_vectors(profile, Bucket::kDistances, distinct_rows(from, to, pairs), own.count);
  }
  // The distances of the fused batch's children (specs staged) to their candidates (staged in
  // rows_b; host_mothers and candidates: the same per pair), a row per child: each row's last
  // block sets the child's father and lists its slot in rows_a. False where a child has more
  // candidates than the rows per child take (or the environment asks for pairs): nothing is
  // launched.
  bool launch_nam_distances(const int* host_mothers, const int* candidates, int per_child,
                            int count) {
    if (!nam_child_rows || per_child < 1 || per_child > device::kNamRowCandidates) return false;
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
  void launch_children(const int* slots, int count) {
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
        copied ? gathered_rows.data() : nullptr};
    launch_reduce(op, device::NoTerm{}, Spread::kBatch, count);
    launch_evaluation(slots, count, copied);
  }
  // Whether a user objective's f of these slots is one call on gathered rows: slots apart
  // whose rows fit there (gathered_batch_bytes). Adjacent slots go to it as they are.
  bool gathers(const int* host_slots, int rows) const {
    bool adjacent = true;
    for (int r = 1; r < rows; ++r) adjacent = adjacent && host_slots[r] == host_slots[0] + r;
    return !adjacent && static_cast<std::size_t>(rows) * pitch <= gathered_rows.size();
  }
  // A user objective's f of the slots staged in rows_a[0..rows) (host_slots: the same slots):
  // adjacent slots go to the callback in one call, slots apart gathered into rows of their own
  // where those fit (`gathered`: the crossover wrote them there already).
  void launch_external_evaluation(const int* host_slots, int rows, bool gathered) {
    const BatchObjective& o = *problem.external;
    const bool gather = gathered || gathers(host_slots, rows);
    if (gather) {  // one call instead of one per run of adjacent slots, on rows a captured
                   // objective reads in place
      if (!gathered) {
        const auto blocks_x = static_cast<unsigned>(std::min<Dim>((dim + 255) / 256, 1024));
        gather_rows_kernel<<<dim3(blocks_x, static_cast<unsigned>(rows)), 256, 0,
                             stream.get()>>>(genes.data(), pitch, rows_a.data(), dim,
                                             gathered_rows.data());
        CHAINSAW_CUDA_CHECK_LAUNCH();
      }
      o.device(gathered_rows.data(), pitch, rows, dim, external_values.data(), stream.get());
    }
    for (int first = 0; !gather && first < rows;) {
      int run = 1;
      while (first + run < rows && host_slots[first + run] == host_slots[first] + run) ++run;
      o.device(slot_genes(host_slots[first]), pitch, run, dim, external_values.data() + first,
               stream.get());
      first += run;
    }
    store_external_kernel<<<(rows + 127) / 128, 128, 0, stream.get()>>>(
        external_values.data(), rows_a.data(), rows, fitness.data(), row_out.data(),
        invalid.data());
    CHAINSAW_CUDA_CHECK_LAUNCH();
  }
  // f of the slots staged in rows_a[0..rows) (host_slots: the same slots), one batched launch.
  // `gathered`: a user objective's rows are in gathered_rows already (launch_children).
  void launch_evaluation(const int* host_slots, int rows, bool gathered = false) {
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
  // CEC 2010, Solis-Wets: evaluates the stored candidate of the step's move and decides.
  void launch_sw_decision(bool forward) {
    timeline.mark(Bucket::kFitness);
    visit_cec2010(problem.function, [&](auto fn) {
      using Fn = decltype(fn);
      device::SwDecideOp op{forward, sw_state.data(), candidate.data(), dim};
      const auto term = launch_cec_groups<Fn>(op, candidate.data(), 0, nullptr, 1);
      launch_reduce(op, term, Spread::kOneRow, 1);
    });
  }
  // The blocks per SM of a Solis-Wets step on a user objective: its launches draw the same dif,
  // so they share one shape.
  int external_sw_blocks_cap() {
    const device::PassContext ctx = context();
    return std::min(device::blocks_per_sm<device::NoTerm, device::SwCandidatesOp>(ctx),
                    device::blocks_per_sm<device::NoTerm, device::SwSettleStepOp>(ctx));
  }
  device::SwCandidatesOp external_sw_candidates(const real_t* x, const real_t* bias) {
    return {sw_state.data(), x, bias, problem.lower, problem.upper, candidate.data(), pitch};
  }
  // A Solis-Wets application on a user objective starts with its first step's candidates
  // (device::SwCandidatesOp) in the two rows of `candidate`, drawn from rng_in.
  ReduceShape launch_external_sw_candidates(const real_t* x, const real_t* bias,
                                            curandState* rng_in, curandState* rng_out,
                                            int blocks_cap) {
    timeline.mark(Bucket::kSwMoves);
    return device::launch_reduce(context(), external_sw_candidates(x, bias), device::NoTerm{},
                                 Spread::kOneRow, 1, rng_in, rng_out, blocks_cap);
  }
  // Then a step is `evaluate`, which enqueues the objective's call on the candidates (values
  // into external_values), and device::SwSettleStepOp: the decision, the accepted move and the
  // next step's candidates, drawn from rng_in; rng_out holds the states this step's were drawn
  // from. `loop`: see SwSettleStepOp.
  template <class Evaluate>
  void launch_external_sw_step(real_t* x, real_t* bias, curandState* rng_in,
                               curandState* rng_out, int blocks_cap, double* slot_fitness,
                               int slot, const Evaluate& evaluate,
                               cudaGraphConditionalHandle loop = 0) {
    timeline.mark(Bucket::kFitness);
    evaluate();
    timeline.mark(Bucket::kSwMoves);
    const device::SwSettleStepOp step{external_sw_candidates(x, bias),
                                      sw_params,
                                      external_values.data(),
                                      invalid.data(),
                                      rng_out,
                                      slot_fitness,
                                      slot,
                                      loop};
    device::launch_reduce(context(), step, device::NoTerm{}, Spread::kOneRow, 1, rng_in, rng_out,
                          blocks_cap);
  }
  // The graph of a whole Solis-Wets application on a user objective given as a CUDA graph too,
  // after its first candidates (launch_external_sw_candidates): a while node whose body makes
  // two steps (the RNG buffers alternate per step) of launch_external_sw_step, the objective's
  // graph before each SwSettleStepOp; a step that leaves no evaluations ends the loop. The same
  // kernels in the same order as CudaEngine::solis_wets launches per step, so the same bits;
  // the host neither launches nor waits per step. Leaves sw_graph empty when the objective gives
  // no graph.
  void build_sw_graph(int blocks_cap) {
    const BatchObjective& o = *problem.external;
    const cudaStream_t s = stream.get();
    // The objective may run its function on the candidates to capture it: points of the domain.
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(candidate.data(), genes.data(), candidate.bytes(),
                                      cudaMemcpyDeviceToDevice, s));
    const DeviceGraph objective =
        o.device_graph(candidate.data(), pitch, 2, dim, external_values.data(), s);
    if (objective == nullptr) return;
    sw_rows = DeviceBuffer<real_t>(2 * static_cast<std::size_t>(pitch));
    sw_graph_fitness = DeviceBuffer<double>(1);
    real_t* const x = sw_rows.data();
    real_t* const bias_row = sw_rows.data() + pitch;
    cudaGraphNodeParams child{};
    child.type = cudaGraphNodeTypeGraph;
    child.graph.graph = objective;  // cloned into each node

    CudaGraph graph;
    cudaGraphConditionalHandle loop = 0;
    CHAINSAW_CUDA_TRY(cudaGraphConditionalHandleCreate(&loop, graph.get(), 1,
                                                       cudaGraphCondAssignDefault));
    cudaGraphNodeParams while_node{};
    while_node.type = cudaGraphNodeTypeConditional;
    while_node.conditional.handle = loop;
    while_node.conditional.type = cudaGraphCondTypeWhile;
    while_node.conditional.size = 1;
    cudaGraphNode_t node = nullptr;
    CHAINSAW_CUDA_TRY(cudaGraphAddNode(&node, graph.get(), nullptr, nullptr, 0, &while_node));
    curandState* buffers[2] = {rng.data(), rng_alt.data()};
    capture_into(s, while_node.conditional.phGraph_out[0], [&] {
      for (int step = 0; step < 2; ++step)
        launch_external_sw_step(x, bias_row, buffers[1 - step], buffers[step], blocks_cap,
                                sw_graph_fitness.data(), 0, [&] { add_captured_node(s, child); },
                                loop);
    });
    sw_graph = CudaGraphExec(graph.get());
  }
  real_t* slot_genes(int slot) { return genes.data() + static_cast<Dim>(slot) * pitch; }
  real_t* slot_bias(int slot) { return bias.data() + static_cast<Dim>(slot) * pitch; }
  real_t* slot_array(SlotArray array, int slot) {
    return array == SlotArray::kGenes ? slot_genes(slot) : slot_bias(slot);
  }
  // One slice: the plain layout of every earlier checkpoint.
  // Solis-Wets steps in short runs draw other normals per state: " sw-lane=" tells them apart.
  std::string rng_layout() const {
    return "curand-xorwow/v1 states=" + std::to_string(launch.rng_states) +
           (layout.slices > 1 ? " slices=" + std::to_string(layout.slices) : std::string()) +
           (sw_lane != device::kVec ? " sw-lane=" + std::to_string(sw_lane) : std::string()) +
           " bytes=" + std::to_string(sizeof(curandState));
  }
};

CudaEngine::CudaEngine(const Config& config, const Problem& problem)
    : impl_(std::make_unique<Impl>(config, problem, nullptr, nullptr)) {}
CudaEngine::CudaEngine(const Config& config, const Problem& problem, Communicator* comm,
                       std::unique_ptr<DeviceCollective> collective)
    : impl_(std::make_unique<Impl>(config, problem, comm, std::move(collective))) {}
CudaEngine::~CudaEngine() = default;

void CudaEngine::initialize(const std::vector<int>& slots, double* fitness) {
  Impl& m = *impl_;
  const int total = static_cast<int>(slots.size());
  for (int first = 0; first < total; first += m.launch.rng_rows) {
    const int rows = std::min(m.launch.rng_rows, total - first);
    m.to_device(m.rows_a.data(), m.host_a, slots.data() + first, rows);
    m.timeline.mark(Bucket::kFitness);  // random genes and their f in one pass
    count_vectors(m.profile, Bucket::kFitness, rows, m.own.count);
    m.passes->initialize(m.context(), m.rows_a.data(), rows);
    if (m.stored_evaluation)  // the genes were only made
      m.launch_evaluation(slots.data() + first, rows);
    m.rows_to_host(fitness + first, rows);
  }
  m.record_fitness(slots.data(), fitness, total);
}

void CudaEngine::distances(const int* from, const int* to, int count, double* out) {
  Impl& m = *impl_;
  for (int first = 0; first < count; first += m.launch.max_rows) {
    const int rows = std::min(m.launch.max_rows, count - first);
    m.to_device(m.rows_a.data(), m.host_a, from + first, rows);
    m.to_device(m.rows_b.data(), m.host_b, to + first, rows);
    m.launch_distances(from + first, to + first, rows);
    m.rows_to_host(out + first, rows);
  }
}

void CudaEngine::make_children(const ChildSpec* children, int count, double* fitness) {
  Impl& m = *impl_;
  CHAINSAW_EXPECTS(count <= m.launch.rng_rows, "more children than padding slots");
  m.to_device(m.specs.data(), m.host_specs, m.local_specs(children, count).data(), count);
  std::vector<int> slots(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) slots[i] = children[i].slot;
  if (m.stored_evaluation) m.to_device(m.rows_a.data(), m.host_a, slots.data(), count);
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
  for (int p = 0; p < pairs; ++p) m.host_a.data()[p] = children[p / per_child].mother;
  std::copy(candidates, candidates + pairs, m.host_b.data());
  const std::vector<ChildSpec> local = m.local_specs(children, count);
  std::copy(local.begin(), local.end(), m.host_specs.data());
  std::vector<int> slots(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) slots[i] = children[i].slot;
  const cudaStream_t s = m.stream.get();
  auto enqueue = [&] {
    stage_batch_kernel<<<1, 256, 0, s>>>(m.mapped_a, m.mapped_b, m.mapped_specs, pairs, count,
                                         m.rows_a.data(), m.rows_b.data(), m.specs.data());
    CHAINSAW_CUDA_CHECK_LAUNCH();
    if (!m.launch_nam_distances(m.host_a.data(), candidates, per_child, count)) {
      m.launch_distances(m.host_a.data(), candidates, pairs);
      // rows_a is free once the distances have read it: the children's slots for their f.
      choose_fathers_kernel<<<(count + 127) / 128, 128, 0, s>>>(
          m.specs.data(), m.rows_b.data(), m.row_out.data(), per_child, count, m.rows_a.data());
      CHAINSAW_CUDA_CHECK_LAUNCH();
    }
    m.launch_children(slots.data(), count);
    publish_batch_kernel<<<1, 128, 0, s>>>(m.specs.data(), m.row_out.data(), count,
                                           m.mapped_fathers, m.mapped_out);
    CHAINSAW_CUDA_CHECK_LAUNCH();
  };
  if (m.batch_graphs && !m.profile) {
    CudaGraphExec& graph = m.nam_graphs[{count, per_child}];
    if (!graph) graph = CudaGraphExec::capture(s, enqueue);
    graph.launch(s);
  } else {
    enqueue();
  }
  m.sync();
  std::copy(m.host_out.data(), m.host_out.data() + count, fitness);
  for (int i = 0; i < count; ++i) children[i].father = m.host_fathers.data()[i];
  m.record_fitness(slots.data(), fitness, count);
}

LocalSearchResult CudaEngine::solis_wets(const LocalSearchRequest& request) {
  Impl& m = *impl_;
  cudaStream_t s = m.stream.get();
  real_t* x = m.slot_genes(request.slot);
  real_t* bias = m.slot_bias(request.slot);
  m.timeline.mark(Bucket::kSwMoves);
  count_vectors(m.profile, Bucket::kSwMoves, 2.0 * static_cast<double>(request.evaluations),
                m.own.count);
  if (!request.continue_chain)
    CHAINSAW_CUDA_TRY(cudaMemsetAsync(bias, 0, sizeof(real_t) * m.own.count, s));
  device::SwDeviceState& h = m.host_sw[0];
  h = device::SwDeviceState{request.fitness,         request.state.rho,
                            0,                       request.evaluations,
                            request.state.successes, request.state.failures,
                            device::kSwIdle,         0,
                            1.0};
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.sw_state.data(), &h, sizeof(h), cudaMemcpyHostToDevice, s));

  m.last_ls_syncs = 0;
  m.last_chain_block_threads = 0;
  ReduceShape sw_shape;
  const bool stored = m.stored_evaluation;  // the candidate is stored and evaluated apart
  // A batch callback's steps: both candidates, one call (launch_external_sw_step).
  const bool external = stored && m.problem.is_external();
  const bool separate_moves = stored || !device::sw_both_moves_wanted();
  device::PassContext ctx = m.context();
  // Short runs per lane only for both moves in one pass; the separate moves take kVec genes.
  if (separate_moves) ctx.sw_lane_genes = device::kVec;
  const bool chain = !separate_moves && m.sw_chain && !ctx.sliced();
  real_t* const candidate = stored ? m.candidate.data() : nullptr;
  // f(the apply step of a success): SwApplyOp in the lane runs of the moves.
  const auto with_apply = [&](const auto& f) {
    return device::with_sw_lane(ctx, [&](auto lane) {
      return f(device::SwApplyOp<lane.value>{m.sw_state.data(), x, bias, m.problem.lower,
                                             m.problem.upper, m.sw_params, m.fitness.data(),
                                             request.slot});
    });
  };
  const auto launch_apply = [&](curandState* states, int cap) {
    with_apply([&](const auto& apply) {
      device::launch_reduce(ctx, apply, device::NoTerm{}, Spread::kOneRow, 1, states, states, cap);
    });
  };
  curandState* buffers[2] = {m.rng.data(), m.rng_alt.data()};
  // The moves and the apply step map genes to threads alike (they draw the same dif): one shape.
  const int apply_blocks = with_apply([&](const auto& apply) {
    return device::blocks_per_sm<device::NoTerm, std::decay_t<decltype(apply)>>(ctx);
  });
  const int blocks_cap =
      external         ? m.external_sw_blocks_cap()
      : separate_moves ? std::min(m.passes->solis_wets_move_blocks_per_sm(ctx), apply_blocks)
                       : std::min(m.passes->solis_wets_both_moves_blocks_per_sm(ctx), apply_blocks);
  std::int64_t left = request.evaluations;
  // The host's one wait: where the application stands.
  auto read_state = [&] {
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(&h, m.sw_state.data(), sizeof(h), cudaMemcpyDeviceToHost, s));
    m.sync();
    ++m.last_ls_syncs;
  };
  // The whole application in one launch where its grid fits; one sync to read where it ended.
  if (chain) {
    m.last_chain_block_threads =
        m.passes->solis_wets_chain(ctx, x, bias, m.sw_keeps_dif ? m.sw_dif.data() : nullptr,
                                   m.sw_params, request.slot, blocks_cap);
  }
  if (m.last_chain_block_threads > 0) {
    read_state();
    left = 0;
  }
  // A user objective that comes as a CUDA graph: the application is one graph launch on the
  // work rows. Not profiled: the profile times the steps' launches apart. Only with evaluations
  // to make: the graph's loop ends at a step's decision.
  if (external && left > 0 && m.problem.external->device_graph && !m.profile && m.sw_chain &&
      !ctx.sliced()) {
    if (!m.sw_graph_tried) {
      m.sw_graph_tried = true;
      m.build_sw_graph(blocks_cap);
    }
    if (m.sw_graph) {
      const std::size_t row_bytes = sizeof(real_t) * static_cast<std::size_t>(m.pitch);
      real_t* const work = m.sw_rows.data();
      CHAINSAW_CUDA_TRY(cudaMemcpyAsync(work, x, row_bytes, cudaMemcpyDeviceToDevice, s));
      CHAINSAW_CUDA_TRY(
          cudaMemcpyAsync(work + m.pitch, bias, row_bytes, cudaMemcpyDeviceToDevice, s));
      sw_shape = m.launch_external_sw_candidates(work, work + m.pitch, buffers[0], buffers[1],
                                                 blocks_cap);
      m.sw_graph.launch(s);
      CHAINSAW_CUDA_TRY(cudaMemcpyAsync(x, work, row_bytes, cudaMemcpyDeviceToDevice, s));
      CHAINSAW_CUDA_TRY(
          cudaMemcpyAsync(bias, work + m.pitch, row_bytes, cudaMemcpyDeviceToDevice, s));
      CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.fitness.data() + request.slot,
                                        &m.sw_state.data()->f_current, sizeof(double),
                                        cudaMemcpyDeviceToDevice, s));
      read_state();
      left = 0;
    }
  }
  if (external && left > 0)
    sw_shape = m.launch_external_sw_candidates(x, bias, buffers[0], buffers[1], blocks_cap);
  while (left > 0) {
    // Each step spends one or two evaluations, so ceil(left / 2) steps never overrun the
    // budget and at least halve what is left: few host syncs per application.
    const std::int64_t steps = (left + 1) / 2;
    m.timeline.mark(Bucket::kSwMoves);
    for (std::int64_t k = 0; k < steps; ++k) {
      curandState* current = buffers[(h.rng_parity + k) & 1];
      curandState* next = buffers[(h.rng_parity + k + 1) & 1];
      if (external) {  // the step's candidates were drawn from `current`: see above
        m.launch_external_sw_step(
            x, bias, next, current, blocks_cap, m.fitness.data(), request.slot, [&] {
              m.problem.external->device(candidate, m.pitch, 2, m.dim, m.external_values.data(), s);
            });
        continue;
      }
      if (!separate_moves) {  // both moves in one pass; apply runs only after a success
        sw_shape = m.passes->solis_wets_both_moves(ctx, x, bias, m.sw_params, current, next,
                                                   blocks_cap);
        launch_apply(current, blocks_cap);
        continue;
      }
      sw_shape = m.passes->solis_wets_move(ctx, true, x, bias, candidate, current, next,
                                           blocks_cap);
      // CEC 2010: the candidate's evaluation is a launch of its own.
      if (stored) {
        m.launch_sw_decision(true);
        m.timeline.mark(Bucket::kSwMoves);
      }
      m.passes->solis_wets_move(ctx, false, x, bias, candidate, current, current, blocks_cap);
      if (stored) {
        m.launch_sw_decision(false);
        m.timeline.mark(Bucket::kSwMoves);
      }
      launch_apply(current, blocks_cap);
    }
    read_state();
    left = h.budget - h.evaluations;
  }
  if (h.bias_scale != 1.0) {  // failures since the last success halved the bias as a scale
    m.timeline.mark(Bucket::kSwMoves);
    m.launch_reduce(device::SwScaleBiasOp{m.sw_state.data(), bias}, device::NoTerm{},
                    Spread::kOneRow, 1);
    h.bias_scale = 1.0;
  }

  if (h.rng_parity == 1) {  // the current states ended in the spare buffer: bring them home
    m.timeline.mark(Bucket::kSwMoves);
    const std::size_t stride = sizeof(curandState) * m.launch.rng_states;  // per slice
    CHAINSAW_CUDA_TRY(cudaMemcpy2DAsync(
        m.rng.data(), stride, m.rng_alt.data(), stride,
        sizeof(curandState) * static_cast<std::size_t>(sw_shape.blocks_x) * kThreads,
        static_cast<std::size_t>(m.layout.held), cudaMemcpyDeviceToDevice, s));
    m.sync();  // the profile's window ends here, not after the host's next decisions
  }

  LocalSearchResult result;
  result.fitness = h.f_current;
  m.host_fitness[request.slot] = h.f_current;
  result.state = SolisWetsState{h.rho, h.successes, h.failures};
  result.evaluations = h.evaluations;
  return result;
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

double CudaEngine::time_evaluation(const std::vector<int>& slots, int repetitions) {
  Impl& m = *impl_;
  const int rows = static_cast<int>(slots.size());
  CHAINSAW_EXPECTS(rows <= m.launch.max_rows, "more slots than a batched launch has rows");
  m.to_device(m.rows_a.data(), m.host_a, slots.data(), rows);
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
    m.to_device(m.rows_a.data(), m.host_a, slots.data() + first, rows);
    count_vectors(m.profile, Bucket::kFitness, rows, m.own.count);
    m.launch_evaluation(slots.data() + first, rows);
    m.rows_to_host(fitness + first, rows);
  }
  m.record_fitness(slots.data(), fitness, total);
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

// Pageable copies: checkpoints stream blocks of a few MiB, where the staging copy costs little
// next to the file system. Sharded, every rank sends its part of the range to rank 0, which
// alone writes checkpoints (as the CPU backend's shards do).
void CudaEngine::read_slot_array(SlotArray array, int slot, Dim first, Dim count, real_t* out) {
  Impl& m = *impl_;
  const real_t* held = m.slot_array(array, slot);  // from gene m.own.first
  gather_on_root(m.comm, m.slices, first, count, out, [&](const GeneSlice& part, real_t* room) {
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(room, held + (part.first - m.own.first),
                                      sizeof(real_t) * part.count, cudaMemcpyDeviceToHost,
                                      m.stream.get()));
    m.stream.synchronize();
    return static_cast<const real_t*>(room);
  });
}

void CudaEngine::write_slot_array(SlotArray array, int slot, Dim first, Dim count,
                                  const real_t* in) {
  Impl& m = *impl_;
  const GeneSlice part = m.own.part(first, count);
  if (part.count == 0) return;
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.slot_array(array, slot) + (part.first - m.own.first),
                                    in + (part.first - first), sizeof(real_t) * part.count,
                                    cudaMemcpyHostToDevice, m.stream.get()));
  m.stream.synchronize();
}

EngineShard CudaEngine::shard() const {
  const Impl& m = *impl_;
  if (!m.comm) return {};
  return {m.comm, m.own};
}

void CudaEngine::restore_fitness(const double* fitness) {
  Impl& m = *impl_;
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.fitness.data(), fitness, m.fitness.bytes(),
                                    cudaMemcpyHostToDevice, m.stream.get()));
  m.stream.synchronize();
  m.host_fitness.assign(fitness, fitness + m.capacity);
}

RngSnapshot CudaEngine::save_rng() {
  Impl& m = *impl_;
  const int ranks = m.comm ? m.comm->size() : 1;
  RngSnapshot s{m.rng_layout(), std::vector<std::uint8_t>(m.rng.bytes() * ranks)};
  std::vector<std::uint8_t> mine(m.comm ? m.rng.bytes() : 0);
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.comm ? mine.data() : s.bytes.data(), m.rng.data(),
                                    m.rng.bytes(), cudaMemcpyDeviceToHost, m.stream.get()));
  m.stream.synchronize();
  // Slice after slice: the bytes of one GPU holding every slice (config.gpu_slices).
  if (m.comm) m.comm->allgatherv(mine.data(), s.bytes.data(),
                                 std::vector<std::size_t>(ranks, m.rng.bytes()));
  return s;
}

void CudaEngine::restore_rng(const RngSnapshot& snapshot) {
  Impl& m = *impl_;
  const std::size_t offset = m.comm ? m.rng.bytes() * m.comm->rank() : 0;
  const std::size_t expected = m.rng.bytes() * (m.comm ? m.comm->size() : 1);
  if (snapshot.layout != m.rng_layout() || snapshot.bytes.size() != expected)
    throw UserError("the checkpoint's random-number state (" + snapshot.layout +
                    ") does not fit this GPU's launch plan (" + m.rng_layout() +
                    "): resume on the same GPU model, with as many GPU slices");
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.rng.data(), snapshot.bytes.data() + offset, m.rng.bytes(),
                                    cudaMemcpyHostToDevice, m.stream.get()));
  m.stream.synchronize();
}

int CudaEngine::last_ls_host_syncs() const { return impl_->last_ls_syncs; }
int CudaEngine::last_ls_chain_block_threads() const { return impl_->last_chain_block_threads; }
void CudaEngine::set_solis_wets_chain(bool chain) { impl_->sw_chain = chain; }
void CudaEngine::set_solis_wets_chain_keeps_dif(bool keeps) { impl_->sw_keeps_dif = keeps; }
void CudaEngine::set_solis_wets_chain_stages_genes(bool stages) {
  impl_->sw_stages_genes = stages;
}
void CudaEngine::set_solis_wets_chain_stages_dif(bool stages) { impl_->sw_stages_dif = stages; }
void CudaEngine::set_solis_wets_chain_pairs_blocks(bool pairs) { impl_->sw_pairs_blocks = pairs; }
void CudaEngine::set_solis_wets_chain_shift(bool stages, bool reads_stored) {
  impl_->sw_stages_shift = stages;
  impl_->sw_reads_stored_shift = reads_stored;
}
void CudaEngine::set_solis_wets_short_lanes(bool short_lanes) {
  Impl& m = *impl_;
  const int genes = short_lanes ? device::kShortLane : device::kVec;
  const ReduceShape step = LaunchPlan::one_row(m.layout.slice_genes, m.launch.sm_count, genes);
  const std::size_t states = static_cast<std::size_t>(step.blocks_x) * kThreads;
  CHAINSAW_EXPECTS(states <= m.launch.rng_states && states <= m.launch.one_row_states() &&
                       4 * static_cast<std::size_t>(step.blocks_x) <= m.launch.partial_slots,
                   "the engine holds too few XORWOW states or partials for that lane width");
  m.sw_lane = genes;
}
void CudaEngine::set_interleaved_rows(bool interleave) { impl_->interleave_rows = interleave; }

std::int64_t CudaEngine::invalid_evaluations() {
  Impl& m = *impl_;
  if (!m.problem.is_external()) return 0;
  unsigned long long n = 0;
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(&n, m.invalid.data(), sizeof(n), cudaMemcpyDeviceToHost,
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
