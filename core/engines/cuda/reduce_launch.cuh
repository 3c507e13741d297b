// Launches of the reduction kernel (fitness/device_reduce.cuh) in a pass's context: the blocks
// per SM asked of the driver per kernel, the one-wave launch shape, the kernel of the rows'
// layout, programmatic dependent launch and the L2 window, and the exchange of a sharded pass.
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "core/engines/cuda/pass_context.cuh"
#include "core/error.hpp"
#include "core/gpu/cuda_check.hpp"
#include "fitness/device_reduce.cuh"

namespace chainsaw::device {

// Blocks of this kernel that fit on one SM (registers, shared memory), asked of the driver once
// per kernel.
template <class Term, class Op, int kLayout = kWholeRows>
int blocks_per_sm() {
  static const int blocks = [] {
    int n = 0;
    CHAINSAW_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &n, produce_reduce_kernel<Term, Op, kLayout>, kThreads, 0));
    return std::max(1, n);
  }();
  return blocks;
}
// The blocks per SM that shape a launch in context `c`: a sliced layout's are those of the
// one-slice kernel (a sharded rank's), also when one GPU runs several slices, so that both
// cut the genes alike and give the same run.
template <class Term, class Op>
int blocks_per_sm(const PassContext& c) {
  if constexpr (Sliceable<Term>::value) {
    if (c.sliced()) return blocks_per_sm<Term, Op, kOneSlice>();
  }
  return blocks_per_sm<Term, Op, kWholeRows>();
}

// f(std::integral_constant<int, L>) for the context's Solis-Wets lane width L: the operations of
// a step are instantiated for both widths and picked here.
template <class F>
auto with_sw_lane(const PassContext& c, const F& f) {
  if (c.solis_wets.lane_genes == kShortLane) return f(std::integral_constant<int, kShortLane>{});
  CHAINSAW_EXPECTS(c.solis_wets.lane_genes == kVec, "a Solis-Wets lane takes kVec or kShortLane genes");
  return f(std::integral_constant<int, kVec>{});
}


template <class Term, class Op>
struct ReduceKernel {
  void (*function)(Op, Term, ReduceShape, const curandState*, curandState*,
                   typename Term::Partial*, unsigned*);
  bool awaits;  // the kernel awaits the previous grid: it may be launched programmatically
};

template <class Term, class Op, int kLayout>
ReduceKernel<Term, Op> reduce_kernel_of() {
  // Only code compiled for sm_90 or later holds the wait that makes an early start safe.
  static const bool awaits = [] {
    cudaFuncAttributes a{};
    CHAINSAW_CUDA_TRY(cudaFuncGetAttributes(&a, produce_reduce_kernel<Term, Op, kLayout>));
    return std::min(a.ptxVersion, a.binaryVersion) >= 90;
  }();
  return {produce_reduce_kernel<Term, Op, kLayout>, awaits};
}

// The kernel of a launch in context `c`: the layout of its rows, compiled in.
template <class Term, class Op>
auto reduce_kernel(const PassContext& c) {
  if constexpr (Sliceable<Term>::value) {
    if (c.slices > 1) return reduce_kernel_of<Term, Op, kSeveralSlices>();
    if (c.sliced()) return reduce_kernel_of<Term, Op, kOneSlice>();
  }
  CHAINSAW_EXPECTS(!c.sliced(), "this function cannot be laid out in slices");
  return reduce_kernel_of<Term, Op, kWholeRows>();
}

// One wave of blocks exactly: a partial second wave would run on a few SMs while the rest idle.
inline ReduceShape launch_shape(const PassContext& c, Spread spread, int blocks_per_sm,
                                int lane_genes = kVec) {
  const int wave = c.sm_count * std::min(blocks_per_sm, 2048 / kThreads);
  ReduceShape s = ReduceShape::make(c.slice_genes,
                                    spread == Spread::kOneRow ? wave : std::max(1, wave / c.batch),
                                    lane_genes);
  s.dim = c.dim;
  s.first_slice = c.first_slice;
  s.gene_base = c.gene_base;
  s.rng_stride = c.rng_stride;
  return s;
}

// `blocks_cap` (> 0) lowers the blocks per SM, so that kernels which must map genes to threads
// alike (the Solis-Wets moves and their apply step regenerate the same dif) share one shape.
// `l2_window` (num_bytes > 0): the launch's accesses to it persist in L2.
template <class Term, class Op>
ReduceShape launch_reduce(const PassContext& c, const Op& op, const Term& term, Spread spread,
                          int rows, curandState* rng_in = nullptr, curandState* rng_out = nullptr,
                          int blocks_cap = 0, const cudaAccessPolicyWindow* l2_window = nullptr) {
  CHAINSAW_EXPECTS(rows >= 1 && rows <= c.max_rows, "batched launch exceeds its rows");
  int blocks = blocks_per_sm<Term, Op>(c);
  if (blocks_cap > 0) blocks = std::min(blocks, blocks_cap);
  ReduceShape s = launch_shape(c, spread, blocks, LaneGenes<Op>::value);
  // Sharded: every rank reduces its slice, the partials are exchanged, and each rank finishes
  // the rows alike. Element-wise passes (NoTerm) reduce nothing and finish on their own.
  using Partial = typename Term::Partial;
  s.deferred = c.collective != nullptr && !std::is_same_v<Term, NoTerm>;
  const bool interleaved =
      InterleavesRows<Op>::value && !c.sliced() && c.reduce.interleave_rows;
  const dim3 grid = interleaved ? dim3(static_cast<unsigned>(s.blocks_x * rows))
                                : dim3(static_cast<unsigned>(s.blocks_x * c.slices),
                                       static_cast<unsigned>(rows));
  const auto kernel = reduce_kernel<Term, Op>(c);
  cudaLaunchAttribute attrs[2]{};
  unsigned attr_count = 0;
  if (kernel.awaits && c.reduce.programmatic_launch) {
    attrs[attr_count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[attr_count++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (l2_window != nullptr && l2_window->num_bytes > 0) {
    attrs[attr_count].id = cudaLaunchAttributeAccessPolicyWindow;
    attrs[attr_count++].val.accessPolicyWindow = *l2_window;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(kThreads);
  config.stream = c.stream;
  config.attrs = attrs;
  config.numAttrs = attr_count;
  CHAINSAW_CUDA_TRY(cudaLaunchKernelEx(&config, kernel.function, op, term, s,
                                       rng_in ? rng_in : c.rng, rng_out ? rng_out : c.rng,
                                       static_cast<Partial*>(c.partials), c.tickets));
  CHAINSAW_CUDA_CHECK_LAUNCH();
  if (s.deferred) {
    c.collective->allgather(c.partials, c.gathered,
                            sizeof(Partial) * static_cast<std::size_t>(rows) * s.blocks_x, c.stream);
    finish_rows_kernel<Term, Op><<<rows, kThreads, 0, c.stream>>>(
        op, term, c.collective->size(), rows, s.blocks_x, static_cast<const Partial*>(c.gathered));
    CHAINSAW_CUDA_CHECK_LAUNCH();
  }
  return s;
}

}  // namespace chainsaw::device
