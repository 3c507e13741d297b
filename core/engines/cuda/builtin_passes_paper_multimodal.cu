// The fused passes of the paper's multimodal functions
// (builtin_passes.hpp says why these passes have files of their own).
#include "core/engines/cuda/builtin_passes.cuh"

CHAINSAW_BUILTIN_PASSES(Rastrigin);
CHAINSAW_BUILTIN_PASSES(Griewank);
CHAINSAW_BUILTIN_PASSES(Salomon);
