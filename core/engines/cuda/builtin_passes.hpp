// make_builtin_passes<Fn>: the fused passes (device_passes.cuh) of built-in function Fn. Their
// kernels are most of the GPU code; each function's are compiled in one of the
// builtin_passes_*.cu files, a few functions per file, so that the build compiles them in
// parallel rather than all in the engine's file (cuda_engine.cu), which only calls this.
#pragma once

#include <memory>

#include "core/types.hpp"
#include "fitness/problem.hpp"

namespace chainsaw::device {

class FusedPasses;

// stored_o != nullptr: the evaluation pass reads o from that device copy (StoredShiftTerm);
// every pass that makes genes hashes it (FitnessTerm). Defined in builtin_passes.cuh.
template <class Fn>
std::shared_ptr<FusedPasses> make_builtin_passes(const Shift& shift, const real_t* stored_o);

}  // namespace chainsaw::device
