// The fused passes of the other GPU papers' multimodal classic functions
// (builtin_passes.hpp says why these passes have files of their own).
#include "core/engines/cuda/builtin_passes.cuh"

CHAINSAW_BUILTIN_PASSES(Schwefel226);
CHAINSAW_BUILTIN_PASSES(Katsuura);
CHAINSAW_BUILTIN_PASSES(Ackley);
CHAINSAW_BUILTIN_PASSES(GriewankRosenbrock);
CHAINSAW_BUILTIN_PASSES(Scaffer);
CHAINSAW_BUILTIN_PASSES(Levy);
