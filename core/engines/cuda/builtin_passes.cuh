// The definition of make_builtin_passes (builtin_passes.hpp), for the builtin_passes_*.cu files
// that instantiate it.
#pragma once

#include "core/engines/cuda/builtin_passes.hpp"
#include "core/engines/cuda/device_passes.cuh"
#include "fitness/functions.hpp"

namespace chainsaw::device {

template <class Fn>
std::shared_ptr<FusedPasses> make_builtin_passes(const Shift& shift, const real_t* stored_o) {
  using Passes = FusedPassesFor<FitnessTerm<Fn>, StoredShiftTerm<Fn>>;
  const FitnessTerm<Fn> term{shift};
  return stored_o != nullptr ? std::make_shared<Passes>(term, StoredShiftTerm<Fn>{stored_o})
                             : std::make_shared<Passes>(term);
}

}  // namespace chainsaw::device

// One function's passes and their kernels, compiled in the file that says this.
#define CHAINSAW_BUILTIN_PASSES(Fn)                                                   \
  template std::shared_ptr<chainsaw::device::FusedPasses>                             \
  chainsaw::device::make_builtin_passes<chainsaw::Fn>(const chainsaw::Shift&,         \
                                                      const chainsaw::real_t*)
