// Turns --backend into an Engine: auto takes the GPU when one is present, else the CPU.
#pragma once

#include <memory>

#include "core/config.hpp"
#include "core/engine.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

// The backend `requested` resolves to on this machine (kAuto becomes kCpu or kCuda).
// Throws UserError when kCuda is asked for and cannot be had.
Backend resolve_backend(Backend requested);

std::unique_ptr<Engine> make_engine(const Config& config, const Problem& problem,
                                    Backend resolved);

}  // namespace chainsaw
