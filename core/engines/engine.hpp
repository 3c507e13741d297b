// The Engine: the few coarse operations the MA-SW-Chains host loop asks of a backend. Each is
// one step of the paper's Fig. 3; the host loop (core/algorithms/ma_sw_chains.hpp) owns all decisions
// (which parents, which slot, how many evaluations), the engine owns the genes, the bias
// vectors and the gene-level random numbers. HostEngine (OpenMP) and CudaEngine implement it.
// A sharded engine (EngineShard) holds a slice of every individual; its passes are collective,
// which holds because every rank runs the same host loop on identical values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/distributed/communicator.hpp"
#include "core/profiling.hpp"
#include "core/types.hpp"
#include "localsearch/solis_wets.hpp"
#include "ssga/nam.hpp"

namespace chainsaw {

// One child of a crossover batch: BLX-alpha of two slots, written into a padding slot, with an
// optional BGA mutation of one gene (mutated_gene < 0: none).
struct ChildSpec {
  int mother = 0;
  int father = 0;
  int slot = 0;
  Dim mutated_gene = -1;
  double mutation_step = 0.0;
};

// The per-slot arrays an engine holds besides fitness (checkpoints stream them).
enum class SlotArray { kGenes, kBias };

// A backend's random-number state as bytes. `layout` names the generator and the shape of its
// state, so a state is only ever restored into an engine that draws the same way.
struct RngSnapshot {
  std::string layout;
  std::vector<std::uint8_t> bytes;
};

// Where an engine of a sharded run stands (docs/distributed.md): the ranks that share every
// individual, each holding `slice` of its genes. comm null: the engine holds whole individuals.
struct EngineShard {
  Communicator* comm = nullptr;
  GeneSlice slice;
};

struct LocalSearchRequest {
  int slot = 0;
  double fitness = 0.0;           // f of the slot now
  SolisWetsState state;           // where the chain stands (or the default state)
  bool continue_chain = false;    // false: start from bias = 0
  std::int64_t evaluations = 0;   // I_str, or less at the end of the budget
};

struct LocalSearchResult {
  double fitness = 0.0;  // f of the slot after the application (<= request.fitness)
  SolisWetsState state;
  std::int64_t evaluations = 0;  // exactly request.evaluations
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual std::string name() const = 0;

  // Uniform random genes in the domain for `slots`, evaluated; fitness[i] is that of slots[i].
  virtual void initialize(const std::vector<int>& slots, double* fitness) = 0;
  // out[i] = Euclidean distance between slots from[i] and to[i], all in one pass.
  virtual void distances(const int* from, const int* to, int count, double* out) = 0;
  // Makes and evaluates `count` children into their padding slots; fitness[i] of children[i].
  virtual void make_children(const ChildSpec* children, int count, double* fitness) = 0;
  // A crossover batch by negative assortative mating: child i's father becomes the candidate
  // (slots candidates[i * per_child + k]) farthest from its mother, written to
  // children[i].father; then as make_children. Here the two passes with the choice on the
  // host between them, timed as the distances and crossover phases when `timers` is given; the
  // GPU fuses them behind one host wait (its time all in the crossover phase).
  virtual void make_nam_children(ChildSpec* children, const int* candidates, int per_child,
                                 int count, double* fitness, PhaseTimers* timers = nullptr) {
    const auto pairs = static_cast<std::size_t>(count) * static_cast<std::size_t>(per_child);
    std::vector<int> mothers(pairs);
    for (std::size_t p = 0; p < pairs; ++p) mothers[p] = children[p / per_child].mother;
    std::vector<double> distance(pairs);
    {
      std::optional<ScopedPhase> timer;
      if (timers) timer.emplace(*timers, Phase::kDistances);
      distances(mothers.data(), candidates, static_cast<int>(pairs), distance.data());
    }
    for (int i = 0; i < count; ++i)
      children[i].father = candidates[i * per_child +
                                      farthest_candidate(&distance[i * per_child], per_child)];
    std::optional<ScopedPhase> timer;
    if (timers) timer.emplace(*timers, Phase::kCrossover);
    make_children(children, count, fitness);
  }
  // One Solis-Wets application; the slot's genes, fitness and bias vector are updated in place.
  virtual LocalSearchResult solis_wets(const LocalSearchRequest& request) = 0;
  // order[0..capacity) = every slot sorted by (fitness, slot index), best first.
  virtual void sort_slots(int* order) = 0;

  // Whole individuals (dim genes) on every rank; read_genes is collective when sharded.
  virtual void read_genes(int slot, real_t* out) = 0;
  virtual void write_genes(int slot, const real_t* genes) = 0;  // and evaluates them
  virtual double fitness(int slot) = 0;
  virtual double distance_to_optimum(int slot) = 0;

  // Checkpoints. Raw copies of genes [first, first + count) of a slot's genes or bias vector,
  // without evaluation, so that a population streams through a small host buffer. Sharded:
  // read_slot_array is collective and fills `out` on rank 0 only (the rank that writes the
  // file); write_slot_array keeps the part of the range the engine holds.
  virtual void read_slot_array(SlotArray array, int slot, Dim first, Dim count, real_t* out) = 0;
  virtual void write_slot_array(SlotArray array, int slot, Dim first, Dim count,
                                const real_t* in) = 0;
  // Every slot's fitness (capacity values) as the checkpoint recorded it.
  virtual void restore_fitness(const double* fitness) = 0;
  virtual RngSnapshot save_rng() = 0;
  // Throws UserError when the snapshot's layout is not this engine's.
  virtual void restore_rng(const RngSnapshot& snapshot) = 0;

  // Values of a user objective that were NaN or -inf (stored as +inf, ranked last), counted
  // since the engine was built.
  virtual std::int64_t invalid_evaluations() = 0;
  // --profile: from now on every pass adds its time to `profile` by bucket (nullptr: off, the
  // default; the RNG initialisation done at construction is added when profiling starts).
  // Checkpoint copies (the slot arrays, fitness, RNG) are not bucketed: the caller times them
  // as checkpoint I/O.
  virtual void set_profile(KernelProfile* profile) = 0;
  // The engine's place in a sharded run; the default holds whole individuals.
  virtual EngineShard shard() const { return {}; }
  // Completes the timings of passes still in flight (the GPU's): call before reading `profile`.
  virtual void flush_profile() {}
};

}  // namespace chainsaw
