// The population algorithms' part of a checkpoint (DE, jDE, PSO, SS, sep-CMA-ES, the SHADE
// family): AlgorithmState's integers in /run/state, its genes and doubles as host arrays.
#include <fmt/format.h>

#include "core/algorithms/ma_sw_chains.hpp"
#include "core/algorithms/population_algorithm.hpp"
#include "core/error.hpp"
#include "io/checkpoint/checkpoint_file.hpp"
#include "io/checkpoint/saved_state.hpp"

namespace chainsaw::checkpoint_state {

namespace {

using checkpoint_file::damaged;
using state_arrays::in_memory;
using state_arrays::NamedArray;

PopulationAlgorithm& as_population(Algorithm& algorithm) {
  auto* population = dynamic_cast<PopulationAlgorithm*>(&algorithm);
  CHAINSAW_EXPECTS(population != nullptr, "a checkpoint of an algorithm of no known kind");
  return *population;
}

// Every array of `s`, genes first, by name (the stored type says which is which).
std::vector<NamedArray> arrays_of(AlgorithmState& s, bool any_length) {
  std::vector<NamedArray> arrays;
  for (auto& [name, values] : s.genes) arrays.push_back(in_memory(name, values, any_length));
  for (auto& [name, values] : s.reals) arrays.push_back(in_memory(name, values, any_length));
  return arrays;
}

}  // namespace

SavedState save_population(Algorithm& algorithm) {
  PopulationAlgorithm& population = as_population(algorithm);
  auto state = std::make_shared<AlgorithmState>(population.save_state());
  SavedState saved;
  saved.state["integers"] = state->integers;
  saved.arrays = arrays_of(*state, false);
  saved.capacity = population.population_size();
  saved.storage = state;
  return saved;
}

void load_population(const std::string& path, hid_t group, const nlohmann::json& state,
                     Algorithm& algorithm) {
  PopulationAlgorithm& population = as_population(algorithm);
  AlgorithmState s = population.save_state();  // the names and kinds of the arrays
  s.integers.clear();
  try {
    for (const auto& [name, value] : state.at("integers").items())
      s.integers[name] = value.get<std::int64_t>();
  } catch (const nlohmann::json::exception&) {
    damaged(path, "run/state's integers are incomplete");
  }
  state_arrays::read_arrays(path, group, "algorithm", arrays_of(s, true));
  try {
    population.restore_state(s);
  } catch (const UserError& e) {
    damaged(path, e.what());
  }
}

SavedState save_state(Algorithm& algorithm, const IslandState* islands) {
  if (dynamic_cast<MaSwChains*>(&algorithm) != nullptr) return save_ma_sw_chains(algorithm, islands);
  CHAINSAW_EXPECTS(islands == nullptr, "only MA-SW-Chains runs as islands");
  return save_population(algorithm);
}

Communicator* shard_communicator(Algorithm& algorithm) {
  auto* ma = dynamic_cast<MaSwChains*>(&algorithm);
  return ma ? ma->engine().shard().comm : nullptr;
}

StateHeader read_state_header(const std::string& path, const nlohmann::json& state,
                              const Config& config) {
  if (config.algorithm == AlgorithmKind::kMaSwChains)
    return read_ma_sw_chains_header(path, state, config);
  try {
    return {state.at("integers").at("evaluations").get<std::int64_t>(), std::nullopt};
  } catch (const nlohmann::json::exception&) {
    damaged(path, "run/state's integers are incomplete");
  }
}

void load_state(const std::string& path, hid_t group, const nlohmann::json& state,
                Algorithm& algorithm) {
  if (dynamic_cast<MaSwChains*>(&algorithm) != nullptr)
    return load_ma_sw_chains(path, group, state, algorithm);
  load_population(path, group, state, algorithm);
}

}  // namespace chainsaw::checkpoint_state
