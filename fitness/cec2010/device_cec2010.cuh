// The groups of CEC 2010 (F4-F18) on the GPU, in a pass of their own.
//
// Computed inside the gene reduction, a group cost one lane 50 serial gathers (and a 50 x 50
// matrix-vector product) while the rest of its warp waited. A warp per group, with the product
// spread over its lanes, was bound by shared-memory reads: each FMA read M and y (~375 cycles a
// group per SM at 1e6-D). Here each thread computes whole groups with the host's code
// (CecFunction::group_value): w stays in registers, and M, in shared memory, is read at the
// same address by the whole warp (a broadcast). The unweighted group values land in
// values[row * groups + g]; the gene reduction (CecTerm) then reads them at items t = g m.
// F4-F6 have one group per row: there a whole warp shares it, each lane taking every 32nd
// component, and a fixed shuffle tree sums the lanes' terms (one thread's 2500 FMAs were slower:
// bench/results/2026-11-23-h100-cec2010). No atomics: bit-identical run after run, whatever the
// grid.
#pragma once

#include <cuda_runtime.h>

#include "fitness/cec2010/cec2010.hpp"
#include "fitness/device_reduce.cuh"

namespace chainsaw::device {

// Whether Fn's groups take the separate pass: every function with groups.
template <class Fn>
inline constexpr bool kCecGroupPass = cec_has_groups(Fn::kLayout);

// Threads that share a group: a warp for the single rotated group of F4-F6, else one.
template <class Fn>
inline constexpr int kCecThreadsPerGroup =
    Fn::kLayout == CecLayout::kOneGroup && Fn::kRotated ? 32 : 1;

// Threads of a group-pass block. A rotated group keeps its 50 w in registers, so few threads fit
// on an SM; small blocks let them fill it.
inline constexpr int kCecGroupThreads = 128;
// At least 12 warps per SM (168 registers a thread): a rotated group takes ~200 without the bound.
inline constexpr int kCecGroupBlocksPerSm = 3;

// The rotation (rotated functions only) and the elliptic group weights, in shared memory.
template <class Fn>
struct CecGroupTables {
  static constexpr int kRotationSize = Fn::kRotated ? kCecGroup * kCecGroup : 1;
  double rotation[kRotationSize];
  detail::GroupWeights weights;
};

// Group values of rows [0, row_count) of the vectors (vectors[rows ? rows[r] : r], pitch
// apart), one group per kCecThreadsPerGroup threads. Gate: the launch's operation; an inactive
// one (a Solis-Wets move not taken) makes this pass a no-op as it does the reduction.
template <class Fn, class Gate>
__global__ void __launch_bounds__(kCecGroupThreads, kCecGroupBlocksPerSm)
    cec_group_kernel(Gate gate, CecView view, const real_t* vectors, Dim pitch, const int* rows,
                     int row_count, double* values) {
  static_assert(kCecGroupPass<Fn>, "only functions with groups take this pass");
  if (!gate.active()) return;
  __shared__ CecGroupTables<Fn> tables;
  if constexpr (Fn::kRotated) {
    for (int i = threadIdx.x; i < kCecGroup * kCecGroup; i += kCecGroupThreads)
      tables.rotation[i] = view.rotation[i];
  }
  if constexpr (Fn::kGroupBase == CecBase::kElliptic)
    tables.weights.fill(static_cast<int>(threadIdx.x), kCecGroupThreads);
  __syncthreads();

  constexpr int kShare = kCecThreadsPerGroup<Fn>;
  constexpr int kGroupsPerBlock = kCecGroupThreads / kShare;
  const int share_lane = static_cast<int>(threadIdx.x) % kShare;
  const Dim items = static_cast<Dim>(row_count) * view.groups;
  // All threads of a group take the same items, as the warp reduction below needs.
  for (Dim item = static_cast<Dim>(blockIdx.x) * kGroupsPerBlock + threadIdx.x / kShare;
       item < items; item += static_cast<Dim>(gridDim.x) * kGroupsPerBlock) {
    const Dim row = item / view.groups;
    const Dim g = item - row * view.groups;
    const real_t* x = vectors + static_cast<Dim>(rows ? rows[row] : row) * pitch;
    if constexpr (kShare == 1) {
      values[item] = Fn::group_value(view, x, g, tables.rotation, tables.weights);
    } else {
      static_assert(kShare == 32, "a warp shares the group");
      const detail::GroupSums sums = warp_reduce_ordered(
          detail::cec_rotated_terms<Fn::kGroupBase, kShare>(view, x, g, tables.rotation,
                                                            tables.weights, share_lane));
      if (share_lane == 0) values[item] = detail::cec_group_finish<Fn::kGroupBase>(sums);
    }
  }
}

// A CEC 2010 function in the gene reduction: the value is gene t of a stored vector
// (vectors[rows ? rows[row] : row] with the given pitch). Groups are read from group_values
// (row * groups + g, filled by cec_group_kernel for the same rows).
template <class Fn>
struct CecTerm {
  using Partial = typename Fn::Partial;
  CecView view;
  const real_t* vectors;
  Dim pitch;
  const int* rows;
  const double* group_values = nullptr;  // kCecGroupPass<Fn> only
  __device__ double value(const Partial& p, Dim dim) const { return function_value<Fn>(p, dim); }
  __device__ void accumulate(Partial& p, double value, Dim t, int row) const {
    if constexpr (kCecGroupPass<Fn>) {
      const double* row_values = group_values + static_cast<Dim>(row) * view.groups;
      Fn::accumulate_item(p, view, value, t, [row_values](Dim g) { return row_values[g]; });
    } else {
      const real_t* x = vectors + static_cast<Dim>(rows ? rows[row] : row) * pitch;
      Fn::accumulate(p, view, x, value, t);
    }
  }
};

}  // namespace chainsaw::device
