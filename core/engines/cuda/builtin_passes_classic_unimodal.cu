// The fused passes of the other GPU papers' unimodal classic functions
// (builtin_passes.hpp says why these passes have files of their own).
#include "core/engines/cuda/builtin_passes.cuh"

CHAINSAW_BUILTIN_PASSES(Rosenbrock);
CHAINSAW_BUILTIN_PASSES(Zakharov);
CHAINSAW_BUILTIN_PASSES(Sphere);
CHAINSAW_BUILTIN_PASSES(HyperEllipsoid);
CHAINSAW_BUILTIN_PASSES(Schwefel222);
CHAINSAW_BUILTIN_PASSES(DixonPrice);
