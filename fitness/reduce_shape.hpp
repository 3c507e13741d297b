// The layout of the GPU's reduction (fitness/device_reduce.cuh) as the host plans it: the
// block size, the runs of genes a lane takes, the warp tiles, the rows' pitch and the shape of a
// launch over one row. Plain C++: the launch plan and the tuning policies are chosen from it.
#pragma once

#include <cstddef>

#include "core/types.hpp"

namespace chainsaw::device {

inline constexpr int kThreads = 256;
inline constexpr int kWarps = kThreads / 32;
// Each lane takes 32 consecutive bytes of a tile as two independent 16-byte loads.
inline constexpr int kLaneBytes = 32;
inline constexpr int kVec = kLaneBytes / static_cast<int>(sizeof(real_t));
inline constexpr int kWarpTile = 32 * kVec;
// An operation may take runs of half as many genes per lane (16 bytes: one load), tiles of
// 32 x kShortLane genes: the Solis-Wets step where a tile per warp leaves SMs idle (sw_lane_genes,
// core/engines/cuda/tuning/solis_wets_policy.hpp). Its lanes' chains are half as long.
inline constexpr int kShortLane = kVec / 2;

// Row pitch in genes: rows start 128-byte aligned, so 16-byte accesses are always aligned.
inline Dim row_pitch(Dim dim) { return (dim + 31) / 32 * 32; }

// Genes may be laid out in `slices` equal runs of slice_genes (the last one shorter), the
// layout of a sharded run (docs/distributed.md, "On GPUs"): every slice has the same launch
// shape, its own blocks, RNG states and partials, and the partials of all slices are combined
// in slice order.
// One slice is the plain layout. A launch covers the slices [first_slice, first_slice + slices
// in the grid); gene j of the problem sits at j - gene_base in the engine's rows.
struct ReduceShape {
  Dim dim = 0;               // the problem's dimension
  Dim slice_genes = 0;       // genes per slice (a multiple of kWarpTile when there are several)
  int blocks_x = 1;          // blocks per slice and row
  Dim tiles_per_warp = 1;
  int first_slice = 0;       // the launch's first slice (a sharded rank's own)
  Dim gene_base = 0;         // the engine's first gene
  std::size_t rng_stride = 0;  // RNG states from one slice's to the next
  bool deferred = false;     // the rows' results come from finish_rows_kernel, after an exchange

  // Tiles of 32 x lane_genes genes.
  static ReduceShape make(Dim slice_genes, int max_blocks_x, int lane_genes = kVec) {
    ReduceShape s;
    s.dim = s.slice_genes = slice_genes;
    const Dim tile = 32 * static_cast<Dim>(lane_genes);
    const Dim tiles = (slice_genes + tile - 1) / tile;
    const Dim useful_blocks = (tiles + kWarps - 1) / kWarps;
    s.blocks_x = static_cast<int>(useful_blocks < max_blocks_x ? useful_blocks : max_blocks_x);
    if (s.blocks_x < 1) s.blocks_x = 1;
    const Dim warps = static_cast<Dim>(s.blocks_x) * kWarps;
    s.tiles_per_warp = (tiles + warps - 1) / warps;
    return s;
  }
};

// What a launch's blocks hold, compiled into the kernel: the plain layout (one slice, the
// least registers, so a run of one slice keeps its launch shapes and speed), one slice of
// several (a sharded rank: no more than a start gene and a deferred finish on top), or several
// slices (one GPU running a sharded run's layout). The two sliced kinds take their launch
// shapes from the one-slice kernel (core/engines/cuda/reduce_launch.cuh), so that they reduce
// alike.
enum RowsLayout : int { kWholeRows = 0, kOneSlice = 1, kSeveralSlices = 2 };

}  // namespace chainsaw::device
