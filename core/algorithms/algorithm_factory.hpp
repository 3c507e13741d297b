// The registry of algorithms: config.algorithm → an Algorithm on the resolved backend. A new
// algorithm adds its case here (and its name in core/config.cpp's algorithm_name).
#pragma once

#include <memory>

#include "core/algorithms/algorithm.hpp"
#include "core/config.hpp"
#include "core/distributed/communicator.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

// shard: the ranks of a `--distribute shard` run, which share one population (null: one
// process). Throws UserError for what the backend does not run.
std::unique_ptr<Algorithm> make_algorithm(const Config& config, const Problem& problem,
                                          Backend resolved, Communicator* shard = nullptr);

}  // namespace chainsaw
