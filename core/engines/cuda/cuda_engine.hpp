// The GPU backend (Lastra et al. 2014 §5): genes, bias vectors, fitness and cuRAND XORWOW states
// stay in device memory for the whole run; the host loop only sends small index arrays and reads
// back fitness values and the sorted order. CUDA types stay behind the pimpl so that plain C++
// translation units can hold an engine. How its passes run is its GpuPolicy
// (core/engines/cuda/tuning/gpu_policy.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/distributed/communicator.hpp"
#include "core/config.hpp"
#include "core/engines/cuda/tuning/gpu_policy.hpp"
#include "core/engines/engine.hpp"
#include "fitness/problem.hpp"

// cudaStream_t without the CUDA headers (cuda_runtime.h: typedef struct CUstream_st*).
struct CUstream_st;

namespace chainsaw {

// Device memory a run needs, by purpose (the --dry-run plan and the up-front fit check).
struct DeviceMemoryPlan {
  std::size_t genes = 0;
  std::size_t bias = 0;
  std::size_t rng_states = 0;
  std::size_t scratch = 0;
  std::size_t total() const { return genes + bias + rng_states + scratch; }
};
// shard_ranks > 1: the plan of one rank of a sharded run (its slice of every individual). The
// engine's default policy for the current GPU (default_gpu_policy), or the one given.
DeviceMemoryPlan plan_device_memory(const Config& config, const Problem& problem,
                                    int shard_ranks = 1);
DeviceMemoryPlan plan_device_memory(const Config& config, const Problem& problem,
                                    int shard_ranks, const GpuPolicy& policy);

// The policy selected for an engine of `config` on `problem` holding whole individuals on the
// current GPU, without the environment's override: what tests start from to ask for another.
GpuPolicy selected_gpu_policy(const Config& config, const Problem& problem);

// Slices are made of whole warp tiles: 32 lanes of 32 bytes (fitness/device_reduce.cuh).
inline constexpr Dim kGpuSliceTile = 32 * 32 / static_cast<Dim>(sizeof(real_t));

// Genes per slice when every individual is laid out in `slices` slices (config.gpu_slices, or
// the ranks of a sharded run): whole warp tiles, the last slice shorter. Throws UserError when
// D leaves a slice empty.
Dim gpu_slice_genes(Dim dim, int slices);

class DeviceCollective;

class CudaEngine final : public Engine {
 public:
  // Throws UserError when the population does not fit in the GPU's free memory.
  // comm (with its device collective): one rank of a sharded run, holding slice comm->rank()
  // of config.gpu_slices == comm->size(); null: the whole individuals, in config.gpu_slices.
  // Without a policy, the default one (default_gpu_policy: the selected policy, overridden by
  // CHAINSAW_GPU_POLICY); with one, that policy as the problem supports it.
  CudaEngine(const Config& config, const Problem& problem);
  CudaEngine(const Config& config, const Problem& problem, const GpuPolicy& policy);
  CudaEngine(const Config& config, const Problem& problem, Communicator* comm,
             std::unique_ptr<DeviceCollective> collective);
  ~CudaEngine() override;

  std::string name() const override { return "cuda"; }
  void initialize(const std::vector<int>& slots, double* fitness) override;
  void distances(const int* from, const int* to, int count, double* out) override;
  void make_children(const ChildSpec* children, int count, double* fitness) override;
  void make_nam_children(ChildSpec* children, const int* candidates, int per_child, int count,
                         double* fitness, PhaseTimers* timers = nullptr) override;
  LocalSearchResult solis_wets(const LocalSearchRequest& request) override;
  void sort_slots(int* order) override;

  void read_genes(int slot, real_t* out) override;
  void write_genes(int slot, const real_t* genes) override;
  double fitness(int slot) override;
  double distance_to_optimum(int slot) override;

  void read_slot_array(SlotArray array, int slot, Dim first, Dim count, real_t* out) override;
  void write_slot_array(SlotArray array, int slot, Dim first, Dim count,
                        const real_t* in) override;
  void restore_fitness(const double* fitness) override;
  // The cuRAND XORWOW states, all of them: their count follows the launch plan, so a snapshot
  // restores only on a GPU with the same number of SMs and the same slices. Sharded, save_rng
  // is collective and gives every rank all slices' states (the one-GPU layout of the slices).
  RngSnapshot save_rng() override;
  void restore_rng(const RngSnapshot& snapshot) override;
  std::int64_t invalid_evaluations() override;
  EngineShard shard() const override;
  // CUDA events around every pass, read where the engine synchronises anyway.
  void set_profile(KernelProfile* profile) override;
  void flush_profile() override;

  // Evaluates stored slots in one batched launch (benchmarks time the fitness kernel with it).
  void evaluate(const std::vector<int>& slots, double* fitness);
  // The slots' genes for kernels of another algorithm that fill them before evaluate()
  // (sep-CMA-ES samples into them): slot s at genes + s * pitch, written on `stream`, genes
  // from `dim` to `pitch` left zero. Whole individuals only (one slice, not sharded).
  struct SlotRows {
    real_t* genes = nullptr;
    Dim pitch = 0;
    ::CUstream_st* stream = nullptr;
  };
  SlotRows slot_rows();
  // Seconds per batched fitness launch over `slots`, timed with CUDA events around
  // `repetitions` back-to-back launches (the fitness-kernel benchmark).
  double time_evaluation(const std::vector<int>& slots, int repetitions);
  // Host syncs made by the last solis_wets call (to check "no round trip per step").
  int last_ls_host_syncs() const;
  // Threads per block of the last solis_wets call's chain kernel launch (paired blocks: twice
  // kThreads); 0 where it ran otherwise.
  int last_ls_chain_block_threads() const;
  // The policy the engine runs (supported_gpu_policy of the one given or selected).
  const GpuPolicy& policy() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace chainsaw
