// The CPU backend: every Engine operation as OpenMP loops over fixed chunks of kHostChunk
// genes. Random numbers come from counter-based streams keyed by (seed, purpose, operation,
// chunk), so results are bit-identical for any thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "core/communicator.hpp"
#include "core/config.hpp"
#include "core/engine.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

class HostEngine final : public Engine {
 public:
  // comm: the ranks of a sharded run (`--distribute shard`); nullptr or one rank: the whole
  // problem in this process.
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
  void set_profile(KernelProfile* profile) override { profile_ = profile; }

  // The slot's Solis-Wets bias vector (tests inspect chain state through it).
  const real_t* bias(int slot) const { return &bias_[static_cast<size_t>(slot) * dim_]; }
  std::uint64_t operation_counter() const { return operation_; }

 private:
  real_t* genes_of(int slot) { return &genes_[static_cast<size_t>(slot) * dim_]; }
  real_t* bias_of(int slot) { return &bias_[static_cast<size_t>(slot) * dim_]; }
  real_t* array_of(SlotArray array, int slot) {
    return array == SlotArray::kGenes ? genes_of(slot) : bias_of(slot);
  }
  void evaluate_external_slots(const int* slots, int count, double* fitness);
  std::uint64_t chunk_key(RngPurpose purpose, std::uint64_t operation, Dim chunk) const;

  Problem problem_;
  Communicator* comm_;
  Dim dim_;
  int capacity_;
  double blx_alpha_;
  SolisWetsParams sw_params_;
  std::uint64_t seed_;
  std::uint64_t operation_ = 0;  // advances once per random operation: the RNG's whole state
  std::int64_t invalid_ = 0;     // a user objective's NaN and -inf values
  KernelProfile* profile_ = nullptr;  // --profile: steady-clock time of every pass

  std::vector<real_t> genes_;  // capacity x dim, slot-major
  std::vector<real_t> bias_;   // capacity x dim, the Solis-Wets bias of each slot's chain
  std::vector<double> fitness_;
  std::vector<real_t> current_, candidate_, dif_;  // Solis-Wets working vectors
};

}  // namespace chainsaw
