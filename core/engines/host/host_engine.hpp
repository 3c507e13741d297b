// The CPU backend: every Engine operation as OpenMP loops over fixed chunks of kHostChunk
// genes. Random numbers come from counter-based streams keyed by (seed, purpose, operation,
// chunk), so results are bit-identical for any thread count.
//
// Sharded (a communicator of P > 1 ranks): each rank holds the whole chunks of its GeneSlice of
// every slot and computes exactly the one-rank run's chunks there, keyed by their global index;
// one allgather of the chunk partials per pass gives every rank every chunk's partial, folded as
// on one rank. Fitness and distances, and with them every decision of the host loop, are
// bit-identical to the one-rank run's on every rank.
#pragma once

#include <cstdint>
#include <vector>

#include "core/distributed/communicator.hpp"
#include "core/config.hpp"
#include "core/engines/engine.hpp"
#include "core/engines/host/host_passes.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

// The genes of every individual that rank `rank` of `ranks` holds in a sharded run: whole
// chunks, so that its chunks are the one-rank run's (rank 0's slice is the largest).
inline GeneSlice host_shard_slice(Dim dim, int rank, int ranks) {
  return shard_slice(dim, kHostChunk, rank, ranks);
}

// Throws UserError when `problem` cannot be sharded (`--distribute shard`): CEC 2010 functions
// and user objectives are evaluated on whole vectors.
void check_shardable(const Problem& problem);

class HostEngine final : public Engine {
 public:
  // comm: null or one rank holds whole individuals. Throws UserError for a sharded problem
  // whose terms need genes of other slices (CEC 2010, user objectives).
  HostEngine(const Config& config, const Problem& problem, Communicator* comm = nullptr);

  std::string name() const override { return "cpu"; }
  void initialize(const std::vector<int>& slots, double* fitness) override;
  void distances(const int* from, const int* to, int count, double* out) override;
  void make_children(const ChildSpec* children, int count, double* fitness) override;
  LocalSearchResult solis_wets(const LocalSearchRequest& request) override;
  void sort_slots(int* order) override;

  void read_genes(int slot, real_t* out) override;
  void write_genes(int slot, const real_t* genes) override;
  double fitness(int slot) override { return fitness_[static_cast<size_t>(slot)]; }
  double distance_to_optimum(int slot) override;

  void read_slot_array(SlotArray array, int slot, Dim first, Dim count, real_t* out) override;
  void write_slot_array(SlotArray array, int slot, Dim first, Dim count,
                        const real_t* in) override;
  void restore_fitness(const double* fitness) override;
  RngSnapshot save_rng() override;
  void restore_rng(const RngSnapshot& snapshot) override;
  std::int64_t invalid_evaluations() override { return invalid_; }
  void set_profile(KernelProfile* profile) override;  // and measures the copy bandwidth
  EngineShard shard() const override { return {comm_, slice_}; }

  // The slot's Solis-Wets bias vector over this rank's slice (tests inspect chain state
  // through it).
  const real_t* bias(int slot) const { return &bias_[static_cast<size_t>(slot) * slice_.count]; }
  std::uint64_t operation_counter() const { return operation_; }

 private:
  // The k-th chunk this rank holds: global genes [begin, end), stored from local index `local`.
  struct OwnChunk {
    Dim chunk;
    Dim begin;
    Dim end;
    Dim local;
  };
  OwnChunk own_chunk(Dim k) const;
  ChunkSpan span_of(const OwnChunk& c) const;
  template <class Partial>
  void gather_chunks(std::vector<Partial>& partials, Dim items);

  real_t* genes_of(int slot) { return &genes_[static_cast<size_t>(slot) * slice_.count]; }
  real_t* bias_of(int slot) { return &bias_[static_cast<size_t>(slot) * slice_.count]; }
  real_t* array_of(SlotArray array, int slot) {
    return array == SlotArray::kGenes ? genes_of(slot) : bias_of(slot);
  }
  void evaluate_external_slots(const int* slots, int count, double* fitness);
  std::uint64_t chunk_key(RngPurpose purpose, std::uint64_t operation, Dim chunk) const;

  Problem problem_;
  Dim dim_;
  Communicator* comm_ = nullptr;       // null: one rank, whole individuals
  std::vector<GeneSlice> slices_;      // every rank's, in rank order
  GeneSlice slice_;                    // this rank's
  Dim chunks_ = 0;                     // chunks of the whole individual
  Dim own_chunks_ = 0;                 // chunks of this rank's slice
  int capacity_;
  double blx_alpha_;
  SolisWetsParams sw_params_;
  std::uint64_t seed_;
  std::uint64_t operation_ = 0;  // advances once per random operation: the RNG's whole state
  std::int64_t invalid_ = 0;     // a user objective's NaN and -inf values
  KernelProfile* profile_ = nullptr;  // --profile: steady-clock time of every pass

  std::vector<real_t> genes_;  // capacity x slice, slot-major
  std::vector<real_t> bias_;   // capacity x slice, the Solis-Wets bias of each slot's chain
  std::vector<double> fitness_;  // every slot's, on every rank
  std::vector<real_t> current_, candidate_, dif_;  // Solis-Wets working vectors, the slice
  std::vector<real_t> o_values_;  // the shift's o over the slice; empty: CEC 2010, user objective
};

}  // namespace chainsaw
