// Turns --backend into an Engine: auto takes the GPU when one is present, else the CPU.
#pragma once

#include <functional>
#include <memory>

#include "core/distributed/communicator.hpp"
#include "core/config.hpp"
#include "core/engines/engine.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

// The backend `requested` resolves to on this machine (kAuto becomes kCpu or kCuda).
// Throws UserError when kCuda is asked for and cannot be had.
Backend resolve_backend(Backend requested);

// --backend auto after resolve_backend: the CPU where the GPU does not run config's algorithm
// (runs_on_cpu_only, --init rows, a problem the GPU population path refuses), else `resolved`.
// An explicit backend and MA-SW-Chains (the CUDA engine runs it all) keep `resolved`.
// `problem` is called only when the answer depends on it.
Backend backend_after_auto_fallback(const Config& config, Backend resolved,
                                    const std::function<Problem()>& problem);

// comm: the ranks of a `--distribute shard` run, which share one population (nullptr: one
// process; islands runs pass nullptr, each rank's engine is a whole one).
std::unique_ptr<Engine> make_engine(const Config& config, const Problem& problem,
                                    Backend resolved, Communicator* comm = nullptr);

}  // namespace chainsaw
