// The GPU evaluation of a per-gene objective (include/chainsaw/chainsaw.hpp): the engine's fused
// passes (core/engines/cuda/device_passes.cuh) instantiated for the user's type in the user's nvcc-compiled
// translation unit. Its individuals are made and evaluated in one sweep, with the kernels,
// launch shapes and reduction trees of the built-in functions, so that a user objective
// identical to a built-in function gives the built-in's run bit for bit.
#pragma once

#include <memory>

#include "core/engines/cuda/device_passes.cuh"

namespace chainsaw::detail {

// The user's objective as a fitness term: the gene itself is the value reduced (the objective
// applies any shift of its own).
template <class Obj>
struct UserTerm {
  using Partial = typename Obj::Partial;
  static constexpr bool kMayBeInvalid = true;  // NaN and -inf rank last and are counted
  Obj objective;
  __device__ void accumulate(Partial& p, double x, Dim j, int) const {
    objective.accumulate(p, x, j);
  }
  __device__ double value(const Partial& p, Dim dim) const { return objective.finish(p, dim); }
};

template <class Obj>
std::shared_ptr<const device::FusedPasses> device_passes(const Obj& objective) {
  return std::make_shared<device::FusedPassesFor<UserTerm<Obj>>>(UserTerm<Obj>{objective});
}

}  // namespace chainsaw::detail
