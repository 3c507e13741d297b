// How the CUDA engine lays out and launches its work: the slices of the genes it holds
// (SliceLayout) and the largest launch shapes, which size its XORWOW states and partials
// (LaunchPlan).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/config.hpp"
#include "core/distributed/communicator.hpp"
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/types.hpp"
#include "fitness/reduce_shape.hpp"

namespace chainsaw {

// Launch sizes from the device, as Qin et al. 2012 derive theirs. The plan holds the largest shapes
// (every SM at full occupancy), which size the RNG states and the partials; each launch then takes
// the one wave of blocks its own kernel can keep resident (Impl::launch_reduce). All of it per
// slice of the genes (one slice unless config.gpu_slices > 1 or sharded): each slice is a wave.
struct LaunchPlan {
  int sm_count = 1;
  int batch = 1;
  int max_rows = 1;      // rows of any batched launch (children, distance pairs, slots)
  int rng_rows = 1;      // rows of launches that draw random numbers
  device::ReduceShape single;   // one individual
  device::ReduceShape batched;  // per row of a batch
  // A Solis-Wets step's one row (SwBothMovesOp), in runs of sw_lane genes (the policy's).
  int sw_lane = device::kVec;
  device::ReduceShape sw_step;
  std::size_t rng_states = 0;
  std::size_t partial_slots = 0;  // block partials: rows x blocks

  // The threads of the largest one-row launch: the spare XORWOW states of a Solis-Wets step.
  std::size_t one_row_states() const {
    return static_cast<std::size_t>(std::max(single.blocks_x, sw_step.blocks_x)) *
           device::kThreads;
  }
  // The shape of a one-row launch of `genes` in runs of lane_genes per lane, every SM full.
  static device::ReduceShape one_row(Dim genes, int sm_count, int lane_genes = device::kVec) {
    return device::ReduceShape::make(genes, sm_count * (2048 / device::kThreads), lane_genes);
  }

  // sw_lane: SolisWetsPolicy::lane_genes.
  static LaunchPlan make(const Config& config, Dim slice_genes, int sm_count, int sw_lane) {
    const Dim dim = slice_genes;
    LaunchPlan p;
    p.sm_count = sm_count;
    p.batch = std::max(1, config.batch);
    const int blocks_per_sm = 2048 / device::kThreads;
    p.single = one_row(dim, sm_count);
    p.sw_lane = sw_lane;
    p.sw_step = one_row(dim, sm_count, p.sw_lane);
    const int batch_blocks = std::max(1, sm_count * blocks_per_sm / std::max(1, config.batch));
    p.batched = device::ReduceShape::make(dim, batch_blocks);
    p.rng_rows = std::max(config.population_size, config.batch);
    p.max_rows = std::max({config.population_size, config.batch,
                           config.batch * config.nam_candidates});
    p.rng_states = std::max(static_cast<std::size_t>(p.rng_rows) *
                                static_cast<std::size_t>(p.batched.blocks_x) * device::kThreads,
                            p.one_row_states());
    // A Solis-Wets step's one row holds two partials (SwBothMovesOp), and the chain kernel
    // alternates two sets of them: four times a single row's.
    p.partial_slots = static_cast<std::size_t>(std::max(
        static_cast<long long>(p.max_rows) * p.batched.blocks_x,
        4 * static_cast<long long>(std::max(p.single.blocks_x, p.sw_step.blocks_x))));
    return p;
  }
};

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

}  // namespace chainsaw
