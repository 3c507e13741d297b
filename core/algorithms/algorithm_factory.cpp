#include "core/algorithms/algorithm_factory.hpp"

#include "core/algorithms/ma_sw_chains.hpp"
#include "core/algorithms/population_algorithm.hpp"
#include "core/engines/engine_factory.hpp"

namespace chainsaw {

std::unique_ptr<Algorithm> make_algorithm(const Config& config, const Problem& problem,
                                          Backend resolved, Communicator* shard) {
  if (config.algorithm == AlgorithmKind::kMaSwChains)
    return std::make_unique<MaSwChains>(config, problem,
                                        make_engine(config, problem, resolved, shard));
  return make_population_algorithm(config, problem, resolved);
}

}  // namespace chainsaw
