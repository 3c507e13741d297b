// The rows a Solis-Wets chain kernel application moves (x, the bias, the kept dif), in device
// memory or staged in shared memory for the application, and its step's pass over them
// (SwChainStepOp); the shared memory that staging takes.
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstddef>
#include <cstdint>

#include "core/types.hpp"
#include "fitness/device_genes.cuh"
#include "fitness/device_reduce.cuh"
#include "fitness/reduce_shape.hpp"
#include "localsearch/device_sw_moves.cuh"
#include "localsearch/device_sw_ops.cuh"
#include "localsearch/device_sw_state.cuh"

namespace chainsaw::device {

// The address that gene 0 would have in a row of T whose first element is gene `first`: an
// integer, for it may lie outside the row (a block's staged rows start at its first gene).
template <class T>
__device__ std::uintptr_t row_origin(const T* row, Dim first) {
  return reinterpret_cast<std::uintptr_t>(row) - static_cast<std::uintptr_t>(first) * sizeof(T);
}

// The rows a Solis-Wets application moves, as a step's runs address them by gene: x, the bias
// and the kept dif in device memory, or a block's own genes of a row staged in shared memory for
// the whole application (gene `first` at the start of each staged row; the dif's `dif_first`,
// 0 where its row stays in memory). Each thread reads and writes only its own runs, so the
// staged rows need no barrier. Held as the address gene 0 would have (an integer: outside the
// staged rows): one register pair per row, as the rows themselves.
class SwRows {
 public:
  __device__ SwRows(real_t* x, real_t* bias, Dim first, real_t* dif, Dim dif_first)
      : x_(row_origin(x, first)), bias_(row_origin(bias, first)),
        dif_(row_origin(dif, dif_first)) {}
  __device__ real_t* x_at(Dim j0) const { return at(x_, j0); }
  __device__ real_t* bias_at(Dim j0) const { return at(bias_, j0); }
  __device__ real_t* dif_at(Dim j0) const { return at(dif_, j0); }

 private:
  __device__ static real_t* at(std::uintptr_t origin, Dim j0) {
    return reinterpret_cast<real_t*>(origin + static_cast<std::uintptr_t>(j0) * sizeof(real_t));
  }
  std::uintptr_t x_, bias_, dif_;
};

// The same rows where all three are a block's, staged in shared memory (the whole-lane kernel
// that stages o): pointers into the staged rows themselves, gene `first` at their start, which
// the compiler addresses as shared memory (LDS and STS, 32-bit addresses) where SwRows'
// integers leave it generic loads, which wait as long as loads from memory.
class SwSharedRows {
 public:
  __device__ SwSharedRows(real_t* rows, Dim block_genes, Dim first)
      : x_(rows), bias_(rows + block_genes), dif_(rows + 2 * block_genes), first_(first) {}
  __device__ real_t* x_at(Dim j0) const { return x_ + (j0 - first_); }
  __device__ real_t* bias_at(Dim j0) const { return bias_ + (j0 - first_); }
  __device__ real_t* dif_at(Dim j0) const { return dif_ + (j0 - first_); }

 private:
  real_t* x_;
  real_t* bias_;
  real_t* dif_;
  Dim first_;
};

// Copies a thread's runs (those of its warp's tiles [first_tile, end_tile)) of x and the bias
// between memory and their staged rows: kIn at an application's start, back at its end.
template <bool kIn, int L, class Rows>
__device__ __forceinline__ void sw_copy_staged_runs(real_t* x, real_t* bias, const Rows& staged,
                                                    Dim first_tile, Dim end_tile, Dim dim) {
  for_lane_runs<L>(first_tile, end_tile, dim, [&](Dim j0, int n) {
    real_t run[L];
    load_genes(kIn ? x + j0 : staged.x_at(j0), n, run);
    store_genes(kIn ? staged.x_at(j0) : x + j0, n, run);
    load_genes(kIn ? bias + j0 : staged.bias_at(j0), n, run);
    store_genes(kIn ? staged.bias_at(j0) : bias + j0, n, run);
  });
}

// The chain kernel's step: SwBothMovesOp's pass on `rows` with the step's rho and bias scale
// from registers, kKeepsDif storing the step's dif in rows.dif. Where it keeps dif, the last
// step's success (`pending`: its phase, else kSwIdle) is applied here, to each run before its
// candidates are made, from the dif that step kept and the bias at that step's scale: x and the
// bias are read once for the move and the new candidates, not once more by a pass of their own.
// The bias is at scale 1 after a success, so the candidates take it as moved.
template <int L, bool kKeepsDif, class Rows = SwRows>
struct SwChainStepOp {
  const SwBothMovesOp<L>& moves;
  Rows rows;
  double rho, scale;
  int pending = kSwIdle;
  double pending_scale = 1.0;
  static constexpr int kLaneGenes = L;
  static constexpr bool kSplitsWholeRuns = true;
  using Values = typename SwBothMovesOp<L>::Values;
  __device__ void produce(int, Dim j0, int n, Values& v, curandState& r) const {
    real_t* const x = rows.x_at(j0);
    real_t* const bias = rows.bias_at(j0);
    real_t* const dif = kKeepsDif ? rows.dif_at(j0) : nullptr;
    if constexpr (kKeepsDif) {
      // A row's address is never null: without this, each run made the staged dif's generic
      // address only for sw_both_candidates_of's test of it, eight instructions.
      __builtin_assume(dif != nullptr);
      if (pending != kSwIdle) {
        real_t xs[L], bs[L];
        sw_apply_kept_dif(pending, pending_scale, x, bias, dif, n, moves.lower, moves.upper, xs,
                          bs);
        sw_both_candidates_of(xs, bs, rho, n, r, moves.lower, moves.upper, v[0], v[1], dif);
        return;
      }
    }
    sw_both_candidates_run(rho, scale, x, bias, n, r, moves.lower, moves.upper, v[0], v[1], dif);
  }
};

// The genes of each block of a chain kernel launch of `shape`: its warps' tiles of 32 runs of L.
template <int L>
__host__ __device__ inline Dim sw_chain_block_genes(const ReduceShape& shape) {
  return static_cast<Dim>(kWarps) * shape.tiles_per_warp * 32 * L;
}
// The rows that each block of a chain kernel launch stages in shared memory for the application:
// none, its genes of x and the bias, or those and of the kept dif. Their number is the value.
enum class SwStaged : int { kNone = 0, kGenes = 2, kGenesAndDif = 3 };
// The dynamic shared memory of a chain kernel launch of `shape` whose blocks stage those rows,
// and with stages_shift a row of o, in doubles, after them; each block holds `halves` of the
// shape's blocks (paired blocks: 2).
template <int L>
inline std::size_t sw_chain_staged_bytes(const ReduceShape& shape, SwStaged staged,
                                         bool stages_shift = false, int halves = 1) {
  return (static_cast<std::size_t>(staged) * sizeof(real_t) +
          (stages_shift ? sizeof(double) : 0)) *
         static_cast<std::size_t>(sw_chain_block_genes<L>(shape)) *
         static_cast<std::size_t>(halves);
}

}  // namespace chainsaw::device
