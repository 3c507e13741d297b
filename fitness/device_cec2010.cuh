// The rotated groups of CEC 2010 (F4-F6, F9-F11, F14-F16) on the GPU, in a pass of their own.
//
// Computed inside the gene reduction, a group cost one lane a 50 x 50 matrix-vector product
// read through the cache (2,500 FMAs and loads) while the rest of its warp waited: the grouped
// functions ran ~100x slower than the others. Here one warp computes one group: M (m x m
// double, the same for every group) sits in shared memory, the warp gathers the group's m
// variables into shared memory, each lane computes w_i = (y M)_i of one or two components and
// its base term, and the warp reduces the terms in a fixed tree (warp_reduce_ordered). The
// unweighted group values land in values[row * groups + g]; the gene reduction (CecTerm) then
// reads them at items t = g m instead of calling group_value. No atomics and a fixed order per
// group: bit-identical run after run, whatever the grid.
#pragma once

#include <cuda_runtime.h>

#include "fitness/cec2010.hpp"
#include "fitness/device_reduce.cuh"

namespace chainsaw::device {

// Whether Fn's groups take the separate pass (its rotated groups) or stay in the reduction.
template <class Fn>
inline constexpr bool kCecGroupPass = Fn::kRotated;

// Group values of rows [0, row_count) of the vectors (vectors[rows ? rows[r] : r], pitch
// apart). Gate: the launch's operation; an inactive one (a Solis-Wets move not taken) makes
// this pass a no-op as it does the reduction.
template <class Fn, class Gate>
__global__ void __launch_bounds__(kThreads)
    cec_group_kernel(Gate gate, CecView view, const real_t* vectors, Dim pitch, const int* rows,
                     int row_count, double* values) {
  static_assert(kCecGroupPass<Fn>, "only rotated groups take this pass");
  constexpr int m = kCecGroup;
  if (!gate.active()) return;
  __shared__ double rotation[m * m];
  __shared__ double gathered[kWarps][m];
  for (int i = threadIdx.x; i < m * m; i += kThreads) rotation[i] = view.rotation[i];
  __syncthreads();

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  double* y = gathered[warp];
  const Dim items = static_cast<Dim>(row_count) * view.groups;
  // The whole warp walks the same items: warp_reduce_ordered needs all 32 lanes.
  for (Dim item = static_cast<Dim>(blockIdx.x) * kWarps + warp; item < items;
       item += static_cast<Dim>(gridDim.x) * kWarps) {
    const Dim row = item / view.groups;
    const Dim g = item - row * view.groups;
    const real_t* x = vectors + static_cast<Dim>(rows ? rows[row] : row) * pitch;
    for (int i = lane; i < m; i += 32) y[i] = detail::cec_gather(view, x, g, i);
    __syncwarp();
    detail::GroupSums sums{};
    for (int i = lane; i < m; i += 32)
      detail::cec_group_term<Fn::kGroupBase>(sums, i, detail::cec_rotate(y, rotation, i));
    sums = warp_reduce_ordered(sums);
    if (lane == 0) values[item] = detail::cec_group_finish<Fn::kGroupBase>(sums);
    __syncwarp();  // y is rewritten by the next item
  }
}

// A CEC 2010 function in the gene reduction: the value is gene t of a stored vector
// (vectors[rows ? rows[row] : row] with the given pitch). Rotated groups are read from
// group_values (row * groups + g, filled by cec_group_kernel for the same rows); the others are
// gathered from the vector.
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
