// How a Solis-Wets application (CudaEngine::solis_wets) runs on the GPU: the step's passes, the
// launch form, the lane width and where the chain kernel (localsearch/device_sw_chain.cuh) keeps
// its rows. Every choice but the lane width leaves the bits of a run as they are; short lanes
// draw other normals per XORWOW state (a checkpoint's RNG layout says sw-lane=).
#pragma once

#include <cstddef>

#include "core/engines/cuda/tuning/gpu_workload.hpp"
#include "fitness/reduce_shape.hpp"

namespace chainsaw {

struct SolisWetsPolicy {
  // Both moves of a step in one pass (SwBothMovesOp), where a function is evaluated as it is
  // made; else a launch per move (SwMoveOp, in whole lanes). Rastrigin 1e6-D 9.80 -> 8.30 s on
  // the H100 (bench/results/2026-11-24-h100-solis-wets/README.md).
  bool both_moves = true;
  // A whole application in one cooperative launch (sw_chain_kernel) where its grid is
  // co-resident, and one graph launch on a user objective given as a CUDA graph; else a launch
  // per step. Rastrigin 10^3-D 18.24 -> 14.01 s, 1e5-D 3.81 -> 3.12 s on the H100
  // (bench/results/2026-11-25-h100-solis-wets-chain/README.md).
  bool chain = true;
  // Genes per lane's run of a step's passes: device::kShortLane or device::kVec
  // (sw_lane_genes).
  int lane_genes = device::kVec;
  // The chain kernel keeps each step's dif in a row for the apply of a success instead of drawing
  // it again (keeps_sw_dif), and where x and the bias stay in memory, only while the three rows
  // take at most a quarter of L2 (dif_beside_genes_in_l2).
  bool keeps_dif = true;
  bool dif_beside_genes_in_l2 = true;
  // Each block's genes of x and the bias staged in shared memory for the application where they
  // fit beside its grid: Rastrigin 1e6-D 1.771 -> 1.607 s, 3e6-D 4.748 -> 4.313 s of local search
  // on the H100 (bench/results/2026-11-28-h100-sw-staged-genes/README.md).
  bool stages_genes = true;
  // The kept dif staged beside them where it fits (else its row stays in L2): local search at
  // 3e6-D 6-19% faster for four of the paper functions on the H200
  // (bench/results/2026-11-28-h200-sw-dif-row/README.md).
  bool stages_dif = true;
  // A built-in function's o staged beside those as doubles where it still fits (else read from
  // the evaluation's device copy where it keeps dif: reads_stored_shift; else hashed per gene):
  // local search at 1e6-D -13% for Rastrigin, -20% for Schwefel 1.2, at 3e6-D from the copy
  // -4% to -21% on the H200 (bench/results/2026-11-28-h200-sw-shift-row/README.md).
  bool stages_shift = true;
  bool reads_stored_shift = true;
  // Paired blocks of 2 x kThreads where the shape allows them (chain_pairs_blocks): local search
  // at 1e6-D Griewank 2.40 -> 2.07 s, Salomon 0.87 -> 0.71 s on the H200
  // (bench/results/2026-11-28-h200-sw-paired-blocks/README.md).
  bool pairs_blocks = true;
};

// Genes per lane's run of the Solis-Wets step of a problem of `dim` genes: kShortLane where one
// tile per warp of runs that short needs no more than two blocks per SM (the chain kernel's
// co-resident grid), else kVec. A step is bound by the latency of one lane's run; at kVec a
// 1e5-D step fills 49 of the H100's 132 SMs, at kShortLane 98 with half as long a chain per lane
// (local search 1.06 -> 0.74 s for Rastrigin); where the grid is full anyway a warp takes
// several tiles and longer runs keep more independent work per lane (1e6-D in short runs
// 2.46 -> 3.37 s). bench/results/2026-11-27-h100-short-lanes/README.md.
inline int sw_lane_genes(Dim dim, int sm_count) {
  const Dim short_tiles_per_block = static_cast<Dim>(device::kWarps) * 32 * device::kShortLane;
  const Dim blocks = (dim + short_tiles_per_block - 1) / short_tiles_per_block;
  return blocks <= 2 * static_cast<Dim>(sm_count) ? device::kShortLane : device::kVec;
}

// Whether `rows` rows of `dim` genes take at most a quarter of the device's L2.
inline bool rows_fit_quarter_of_l2(Dim dim, int rows, const DeviceProperties& device) {
  const std::size_t bytes = static_cast<std::size_t>(rows) *
                            static_cast<std::size_t>(device::row_pitch(dim)) * sizeof(real_t);
  return bytes <= device.l2_cache_bytes / 4;
}

// Whether the chain kernel keeps
// each step's dif: where the rows its steps read from L2 take at most a quarter of it, the dif
// row alone where x and the bias are staged, all three where they are not
// (dif_beside_genes_in_l2). With the genes in memory on the H100: local search 4-5% faster at
// 1e5-D (1.2 MB), the same at 1e6-D (12 MB), 4% slower at 3e6-D (36 MB of its 50 MB L2)
// (bench/results/2026-11-27-h100-kept-dif/README.md); with them staged and the dif row alone
// in L2, on the H200 at 3e6-D: 6-19% faster for four of the paper functions, 7% slower for
// Salomon, whose step is the cheapest (bench/results/2026-11-28-h200-sw-dif-row/README.md).
inline bool keeps_sw_dif(const GpuWorkload& w, const DeviceProperties& device) {
  return w.sw_chain_possible() && rows_fit_quarter_of_l2(w.dim, 1, device);
}

// Whether a chain kernel launch of a one-row shape of `blocks_x` blocks, compiled bounded to two
// blocks per SM (kChainTwoBlocksPerSm, whose 128 registers a paired block keeps), runs as
// paired blocks of 2 x kThreads, one per SM where the shape has two: each block combines its two
// halves' partials as the grid's tree combines them first, two by two, where the shape has more
// blocks than kThreads and at most twice as many (block_reduce_ordered: two partials per
// thread): the same total, to the bit, from half the partials; the grid barrier waits for half
// the blocks (bench/results/2026-11-28-h200-sw-paired-blocks/README.md).
inline bool chain_pairs_blocks(bool two_blocks_per_sm, int blocks_x) {
  return two_blocks_per_sm && blocks_x > device::kThreads && blocks_x <= 2 * device::kThreads &&
         blocks_x % 2 == 0;
}

inline SolisWetsPolicy select_solis_wets_policy(const GpuWorkload& w,
                                                const DeviceProperties& device) {
  SolisWetsPolicy p;
  p.lane_genes = sw_lane_genes(w.dim, device.sm_count);
  p.keeps_dif = keeps_sw_dif(w, device);
  p.dif_beside_genes_in_l2 = rows_fit_quarter_of_l2(w.dim, 3, device);
  return p;
}

}  // namespace chainsaw
