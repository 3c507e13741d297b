// The fused passes of GenesOnly, which only make genes: those of the functions that are not a
// per-gene term (the CEC 2010 functions), whose stored vectors are evaluated apart
// (builtin_passes.hpp says why these passes have files of their own).
#include "core/engines/cuda/builtin_passes.cuh"

CHAINSAW_BUILTIN_PASSES(GenesOnly);
