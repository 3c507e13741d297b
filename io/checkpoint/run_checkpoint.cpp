#include "io/checkpoint/run_checkpoint.hpp"

#include "core/algorithms/ma_sw_chains.hpp"
#include "core/algorithms/population_algorithm.hpp"
#include "core/error.hpp"
#include "io/checkpoint/algorithm_checkpoint.hpp"

namespace chainsaw {

namespace {

MaSwChains* as_ma_sw_chains(Algorithm& algorithm) { return dynamic_cast<MaSwChains*>(&algorithm); }

PopulationAlgorithm& as_population(Algorithm& algorithm, const IslandState* islands) {
  auto* population = dynamic_cast<PopulationAlgorithm*>(&algorithm);
  CHAINSAW_EXPECTS(population != nullptr, "a checkpoint of an algorithm of no known kind");
  CHAINSAW_EXPECTS(islands == nullptr, "only MA-SW-Chains runs as islands");
  return *population;
}

}  // namespace

void write_run_checkpoint(const std::string& flag, const std::string& path,
                          Algorithm& algorithm, Backend backend, const std::string& reason,
                          const IslandState* islands) {
  if (MaSwChains* ma = as_ma_sw_chains(algorithm)) {
    write_checkpoint(flag, path, *ma, backend, reason, islands);
    return;
  }
  write_algorithm_checkpoint(flag, path, as_population(algorithm, islands), backend, reason);
}

StagedFile stage_run_checkpoint(const std::string& flag, const std::string& path,
                                Algorithm& algorithm, Backend backend, const std::string& reason,
                                const IslandState* islands) {
  MaSwChains* ma = as_ma_sw_chains(algorithm);
  CHAINSAW_EXPECTS(ma != nullptr, "only MA-SW-Chains runs as islands");
  return stage_checkpoint(flag, path, *ma, backend, reason, islands);
}

CheckpointHeader read_run_checkpoint_header(const std::string& path) {
  return checkpoint_algorithm(path) == algorithm_name(AlgorithmKind::kMaSwChains)
             ? read_checkpoint_header(path)
             : read_algorithm_checkpoint_header(path);
}

void load_run_checkpoint(const std::string& path, Algorithm& algorithm) {
  if (MaSwChains* ma = as_ma_sw_chains(algorithm)) {
    load_checkpoint(path, *ma);
    return;
  }
  load_algorithm_checkpoint(path, as_population(algorithm, nullptr));
}

}  // namespace chainsaw
