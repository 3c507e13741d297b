// The launch of a whole Solis-Wets application as one cooperative kernel (sw_chain_kernel,
// localsearch/device_sw_chain.cuh): its grid, paired blocks, the rows its blocks stage in shared
// memory, and the checks that the grid is co-resident. Launches nothing, returning 0, where the
// form asked for cannot hold the one-row launch shape's grid.
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstddef>

#include "core/engines/cuda/pass_context.cuh"
#include "core/engines/cuda/reduce_launch.cuh"
#include "core/engines/cuda/tuning/solis_wets_policy.hpp"
#include "core/error.hpp"
#include "core/gpu/cuda_check.hpp"
#include "localsearch/device_sw_chain.cuh"
#include "localsearch/solis_wets.hpp"

namespace chainsaw::device {

// The rows a chain kernel launch's blocks stage, and the dynamic shared memory they take.
struct SwChainStaging {
  SwStaged rows = SwStaged::kNone;
  std::size_t bytes = 0;
};

// Blocks of `kernel` an SM holds with `bytes` of dynamic shared memory each.
template <class Kernel>
int sw_chain_resident_blocks(Kernel kernel, int block_threads, std::size_t bytes) {
  int n = 0;
  CHAINSAW_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, block_threads, bytes));
  return n;
}

// Staged where the rows fit beside the same grid of `grid` blocks: x and the bias with the dif,
// else without it (its row in memory); kStagesShift only with the dif (the form measured).
template <bool kKeepsDif, int L, bool kStagesShift, class Kernel>
SwChainStaging sw_chain_staging(const PassContext& c, Kernel kernel, const ReduceShape& s,
                                int halves, int block_threads, int grid) {
  // Above 48 KB a kernel takes dynamic shared memory only as far as it opts in, on the current
  // device: up to the device's limit, less the kernel's static shared memory.
  int device = 0, optin = 0;
  CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
  CHAINSAW_CUDA_TRY(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attributes{};
  CHAINSAW_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
  const std::size_t most = static_cast<std::size_t>(optin) - attributes.sharedSizeBytes;
  for (const SwStaged rows : {SwStaged::kGenesAndDif, SwStaged::kGenes}) {
    if (rows == SwStaged::kGenesAndDif && !(kKeepsDif && c.solis_wets.stages_dif)) continue;
    if (kStagesShift && rows != SwStaged::kGenesAndDif) continue;  // the form measured
    const std::size_t bytes = sw_chain_staged_bytes<L>(s, rows, kStagesShift, halves);
    if (bytes > most) continue;
    CHAINSAW_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
    if (grid <= sw_chain_resident_blocks(kernel, block_threads, bytes) * c.sm_count)
      return {rows, bytes};
  }
  return {};
}

// The application to slot genes x with bias `bias` (FusedPasses::solis_wets_chain) in the chain
// kernel of kKeepsDif, lane width L and o taken as kShift says (stored_o: the evaluation's copy
// of o, for kStored). Returns the launch's threads per block, or 0.
template <class Term, bool kKeepsDif, int L, SwShift kShift>
int launch_sw_chain(const PassContext& c, const Term& term, const real_t* stored_o, real_t* x,
                    real_t* bias, real_t* step_dif, const SolisWetsParams& params, int slot,
                    int blocks_cap) {
  CHAINSAW_EXPECTS(!c.sliced(), "the Solis-Wets chain kernel takes whole rows");
  constexpr bool kStagesShift = kShift == SwShift::kRow;
  if constexpr (kShift == SwShift::kStored) {
    if (stored_o == nullptr) return 0;
  }
  const auto kernel = sw_chain_kernel<Term, kKeepsDif, L, kShift>;
  const ReduceShape s = launch_shape(c, Spread::kOneRow, blocks_cap, L);
  // Paired blocks hold two of the shape's blocks each, to the same bits.
  const int halves =
      c.solis_wets.pairs_blocks && chain_pairs_blocks(kChainTwoBlocksPerSm<Term, L>, s.blocks_x)
          ? 2
          : 1;
  const int block_threads = halves * kThreads;
  const int grid = s.blocks_x / halves;
  // The grid must be co-resident: staged rows where they fit beside it, else none, if it fits.
  const SwChainStaging staged =
      c.solis_wets.stages_genes
          ? sw_chain_staging<kKeepsDif, L, kStagesShift>(c, kernel, s, halves, block_threads, grid)
          : SwChainStaging{};
  if (kStagesShift && staged.rows == SwStaged::kNone) return 0;
  if (staged.rows == SwStaged::kNone &&
      ((kKeepsDif && !c.solis_wets.dif_beside_genes_in_l2) ||
       grid > sw_chain_resident_blocks(kernel, block_threads, 0) * c.sm_count))
    return 0;
  const SwBothMovesOp<L> op{c.sw_state, x, bias, c.lower, c.upper, c.dim, params, c.invalid};
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(static_cast<unsigned>(block_threads));
  config.dynamicSmemBytes = staged.bytes;
  config.stream = c.stream;
  config.attrs = &cooperative;
  config.numAttrs = grid > 1 ? 1 : 0;  // one block needs no grid barrier
  using Partial = typename PairTerm<Term>::Partial;
  CHAINSAW_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, op, term, s, c.rng,
                                       static_cast<Partial*>(c.partials), step_dif, staged.rows,
                                       stored_o, c.slot_fitness, slot));
  CHAINSAW_CUDA_CHECK_LAUNCH();
  return block_threads;
}

}  // namespace chainsaw::device
