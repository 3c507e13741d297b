// The fused passes of the paper's unimodal functions
// (builtin_passes.hpp says why these passes have files of their own).
#include "core/engines/cuda/builtin_passes.cuh"

CHAINSAW_BUILTIN_PASSES(Discus);
CHAINSAW_BUILTIN_PASSES(SumSquares);
CHAINSAW_BUILTIN_PASSES(Schwefel12);
