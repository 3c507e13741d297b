// Each algorithm's part of a checkpoint, for the one writer and reader (checkpoint_writer.cpp,
// checkpoint_reader.cpp): its entries of /run/state and its named arrays under /algorithm.
// MA-SW-Chains streams its population out of the engine (ma_sw_chains_state.cpp); the
// population algorithms' AlgorithmState arrays are host arrays (population_state.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/algorithms/algorithm.hpp"
#include "core/distributed/islands.hpp"
#include "io/checkpoint/state_arrays.hpp"

namespace chainsaw {

class Communicator;

namespace checkpoint_state {

// What the writer stores of an algorithm between two units.
struct SavedState {
  nlohmann::ordered_json state = nlohmann::ordered_json::object();  // merged into /run/state
  std::vector<state_arrays::NamedArray> arrays;
  std::int64_t capacity = 0;  // the slots (members) the arrays hold: the summary's `capacity`
  std::shared_ptr<void> storage;  // what the arrays' saves read from
};

// The algorithm's state; `islands`: MA-SW-Chains' migration record under --distribute islands.
// Collective for a sharded engine (its random-number state).
SavedState save_state(Algorithm& algorithm, const IslandState* islands);
// The communicator of a sharded engine (--distribute shard), or null.
Communicator* shard_communicator(Algorithm& algorithm);

// What /run/state says beyond the Config, checked for consistency with the Config:
// the evaluations done and, for an island, its migration record.
struct StateHeader {
  std::int64_t evaluations = 0;
  std::optional<IslandState> islands;
};
StateHeader read_state_header(const std::string& path, const nlohmann::json& state,
                              const Config& config);

// Restores the algorithm from /run/state and the arrays of `group`; UserError for a damaged or
// mismatching file.
void load_state(const std::string& path, hid_t group, const nlohmann::json& state,
                Algorithm& algorithm);

// MA-SW-Chains' and the population algorithms' parts (one file each).
SavedState save_ma_sw_chains(Algorithm& algorithm, const IslandState* islands);
StateHeader read_ma_sw_chains_header(const std::string& path, const nlohmann::json& state,
                                     const Config& config);
void load_ma_sw_chains(const std::string& path, hid_t group, const nlohmann::json& state,
                       Algorithm& algorithm);
SavedState save_population(Algorithm& algorithm);
void load_population(const std::string& path, hid_t group, const nlohmann::json& state,
                     Algorithm& algorithm);

}  // namespace checkpoint_state
}  // namespace chainsaw
