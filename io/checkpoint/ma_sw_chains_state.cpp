// MA-SW-Chains' part of a checkpoint: the loop state in /run/state and, under /algorithm, the
// population streamed out of (and back into) the engine in blocks of rows: genes and bias
// (capacity x D), the host's per-slot records, and the backend's random-number state.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/algorithms/ma_sw_chains.hpp"
#include "core/error.hpp"
#include "io/checkpoint/checkpoint_file.hpp"
#include "io/checkpoint/saved_state.hpp"
#include "io/results/result_json.hpp"

namespace chainsaw::checkpoint_state {

namespace {

using checkpoint_file::damaged;
using state_arrays::Block;
using state_arrays::in_memory;
using state_arrays::NamedArray;

const char* stage_name(LoopStage s) { return s == LoopStage::kLocalSearch ? "ls" : "ga"; }

// +inf (nothing received yet) is not a JSON number: null.
nlohmann::ordered_json islands_to_json(const IslandState& s) {
  return {{"rank", s.rank},
          {"ranks", s.ranks},
          {"epoch", s.epoch},
          {"migrations", s.migrations},
          {"immigrants_improved", s.immigrants_improved},
          {"best_immigrant", std::isfinite(s.best_immigrant)
                                 ? nlohmann::ordered_json(s.best_immigrant)
                                 : nlohmann::ordered_json()}};
}

void loop_state_to_json(const LoopState& s, nlohmann::ordered_json& j) {
  j["counters"] = counters_to_json(s.counters, CountersSchema::kCheckpoint);
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  for (std::size_t p = 0; p < static_cast<std::size_t>(Phase::kCount); ++p)
    phases[phase_name(static_cast<Phase>(p))] = s.timers.seconds(static_cast<Phase>(p));
  j["phase_seconds"] = phases;
  // JSON numbers round-trip doubles exactly, which the pending normal deviate needs.
  j["host_rng"] = {{"state", s.rng_state}, {"has_spare", s.rng_has_spare}, {"spare", s.rng_spare}};
  j["stage"] = stage_name(s.stage);
  j["ga_phase_left"] = s.ga_phase_left;
  j["elapsed_seconds"] = s.elapsed_seconds;
}

LoopState loop_state_from_json(const std::string& path, const nlohmann::json& j) {
  try {
    LoopState s;
    s.counters = counters_from_json(j.at("counters"), CountersSchema::kCheckpoint);
    for (std::size_t p = 0; p < static_cast<std::size_t>(Phase::kCount); ++p) {
      const Phase phase = static_cast<Phase>(p);
      const auto& seconds = j.at("phase_seconds");
      if (seconds.contains(phase_name(phase)))  // phases added later start at zero
        s.timers.set(phase, seconds.at(phase_name(phase)).get<double>());
    }
    const nlohmann::json& rng = j.at("host_rng");
    s.rng_state = rng.at("state").get<std::uint64_t>();
    s.rng_has_spare = rng.at("has_spare").get<bool>();
    s.rng_spare = rng.at("spare").get<double>();
    const std::string stage = j.at("stage").get<std::string>();
    if (stage != "ga" && stage != "ls") damaged(path, "run/state has an unknown stage " + stage);
    s.stage = stage == "ls" ? LoopStage::kLocalSearch : LoopStage::kGeneticAlgorithm;
    s.ga_phase_left = j.at("ga_phase_left").get<std::int64_t>();
    s.elapsed_seconds = j.at("elapsed_seconds").get<double>();
    return s;
  } catch (const nlohmann::json::exception& e) {
    damaged(path, std::string("run/state is incomplete (") + e.what() + ")");
  }
}

std::optional<IslandState> islands_from_json(const std::string& path, const nlohmann::json& j) {
  if (!j.contains("islands")) return std::nullopt;
  try {
    const nlohmann::json& i = j.at("islands");
    IslandState s;
    s.rank = i.at("rank").get<int>();
    s.ranks = i.at("ranks").get<int>();
    s.epoch = i.at("epoch").get<std::int64_t>();
    s.migrations = i.at("migrations").get<std::int64_t>();
    s.immigrants_improved = i.at("immigrants_improved").get<std::int64_t>();
    if (!i.at("best_immigrant").is_null()) s.best_immigrant = i.at("best_immigrant").get<double>();
    if (s.ranks < 1 || s.rank < 0 || s.rank >= s.ranks || s.epoch < 0 || s.migrations < 0)
      damaged(path, "run/state has an impossible islands record");
    return s;
  } catch (const nlohmann::json::exception& e) {
    damaged(path, std::string("run/state has an incomplete islands record (") + e.what() + ")");
  }
}

// The host's per-slot records, as the arrays fitness, order and chain_*.
struct SlotRecords {
  explicit SlotRecords(int capacity)
      : fitness(capacity), order(capacity), has_chain(capacity), ls_failed(capacity),
        rho(capacity), successes(capacity), failures(capacity) {}
  std::vector<double> fitness;
  std::vector<std::int32_t> order;
  std::vector<std::uint8_t> has_chain, ls_failed;
  std::vector<double> rho;
  std::vector<std::int32_t> successes, failures;

  std::vector<NamedArray> arrays() {
    return {in_memory("fitness", fitness),          in_memory("order", order),
            in_memory("chain_has_chain", has_chain), in_memory("chain_ls_failed", ls_failed),
            in_memory("chain_rho", rho),             in_memory("chain_successes", successes),
            in_memory("chain_failures", failures)};
  }
};

// Genes or bias vectors of every slot, capacity x D, through one block of the engine's at a time.
// A sharded engine's reads are collective; a sharded rank restores its slice only.
NamedArray slot_array(const std::string& name, SlotArray which, Engine& engine, int capacity,
                      Dim dim, std::vector<real_t>& block) {
  NamedArray a;
  a.name = name;
  a.element = state_arrays::Element::kGenes;
  a.rows = static_cast<std::size_t>(capacity);
  a.columns = static_cast<std::size_t>(dim);
  const EngineShard shard = engine.shard();
  if (shard.comm) {
    a.read_begin = static_cast<std::size_t>(shard.slice.first);
    a.read_end = static_cast<std::size_t>(shard.slice.end());
  }
  a.save = [&engine, &block, which](const Block& b) -> const void* {
    engine.read_slot_array(which, static_cast<int>(b.row), static_cast<Dim>(b.first),
                           static_cast<Dim>(b.count), block.data());
    return block.data();
  };
  a.load = [&block](const Block&) -> void* { return block.data(); };
  a.loaded = [&engine, &block, which](const Block& b) {
    engine.write_slot_array(which, static_cast<int>(b.row), static_cast<Dim>(b.first),
                            static_cast<Dim>(b.count), block.data());
  };
  return a;
}

struct Storage {
  Storage(int capacity, Dim dim)
      : records(capacity),
        block(static_cast<std::size_t>(std::min<Dim>(dim, state_arrays::kBlockElements))) {}
  SlotRecords records;
  std::vector<real_t> block;
  RngSnapshot rng;
};

std::vector<NamedArray> population_arrays(Storage& s, Engine& engine, int capacity, Dim dim) {
  std::vector<NamedArray> arrays = {
      slot_array("genes", SlotArray::kGenes, engine, capacity, dim, s.block),
      slot_array("bias", SlotArray::kBias, engine, capacity, dim, s.block)};
  for (NamedArray& a : s.records.arrays()) arrays.push_back(std::move(a));
  return arrays;
}

MaSwChains& as_ma_sw_chains(Algorithm& algorithm) {
  auto* ma = dynamic_cast<MaSwChains*>(&algorithm);
  CHAINSAW_EXPECTS(ma != nullptr, "an MA-SW-Chains checkpoint of another algorithm");
  return *ma;
}

}  // namespace

SavedState save_ma_sw_chains(Algorithm& algorithm, const IslandState* islands) {
  MaSwChains& ma = as_ma_sw_chains(algorithm);
  const Population& population = ma.population();
  const int capacity = population.capacity();
  const Dim dim = ma.config().dim;
  auto storage = std::make_shared<Storage>(capacity, dim);
  SlotRecords& r = storage->records;
  for (int slot = 0; slot < capacity; ++slot) {
    const ChainRecord& c = population.chain(slot);
    r.fitness[slot] = population.all_fitness()[slot];
    r.order[slot] = population.order()[slot];
    r.has_chain[slot] = c.has_chain;
    r.ls_failed[slot] = c.ls_failed;
    r.rho[slot] = c.state.rho;
    r.successes[slot] = c.state.successes;
    r.failures[slot] = c.state.failures;
  }
  storage->rng = ma.engine().save_rng();  // collective on the GPU: every slice's states
  SavedState saved;
  loop_state_to_json(ma.loop_state(), saved.state);
  saved.state["engine_rng_layout"] = storage->rng.layout;
  if (islands) saved.state["islands"] = islands_to_json(*islands);
  saved.arrays = population_arrays(*storage, ma.engine(), capacity, dim);
  saved.arrays.push_back(in_memory("rng", storage->rng.bytes));
  saved.capacity = capacity;
  saved.storage = storage;
  return saved;
}

StateHeader read_ma_sw_chains_header(const std::string& path, const nlohmann::json& state,
                                     const Config& config) {
  const LoopState loop = loop_state_from_json(path, state);
  StateHeader h;
  h.evaluations = loop.counters.evaluations;
  h.islands = islands_from_json(path, state);
  if (h.islands.has_value() != (config.distribute == Distribute::kIslands))
    damaged(path, "run/state's islands record does not match its configuration");
  const RunCounters& n = loop.counters;
  if (n.evaluations != n.ga_evaluations + n.ls_evaluations ||
      n.evaluations < config.population_size || n.evaluations > config.max_evaluations ||
      loop.ga_phase_left < 0)
    damaged(path, "the evaluation counters are inconsistent");
  return h;
}

namespace {

// The records read, checked (between two units `order` is the sort of every slot by
// (fitness, slot)), as a Population.
Population population_from(const std::string& path, const Config& config, const SlotRecords& r) {
  const int capacity = config.capacity();
  std::vector<int> expected(static_cast<std::size_t>(capacity));
  std::iota(expected.begin(), expected.end(), 0);
  std::sort(expected.begin(), expected.end(), [&](int a, int b) {
    return r.fitness[a] < r.fitness[b] || (r.fitness[a] == r.fitness[b] && a < b);
  });
  if (!std::equal(expected.begin(), expected.end(), r.order.begin()))
    damaged(path, "algorithm/order is not the fitness order of the slots");
  Population population(config.population_size, config.batch);
  for (int slot = 0; slot < capacity; ++slot) {
    if (std::isnan(r.fitness[slot])) damaged(path, "algorithm/fitness holds NaN");
    population.fitness(slot) = r.fitness[slot];
    population.order()[slot] = r.order[slot];
    ChainRecord& c = population.chain(slot);
    c.has_chain = r.has_chain[slot] != 0;
    c.ls_failed = r.ls_failed[slot] != 0;
    c.state = SolisWetsState{r.rho[slot], r.successes[slot], r.failures[slot]};
    if (!(r.rho[slot] > 0.0) || !std::isfinite(r.rho[slot]))
      damaged(path, "algorithm/chain_rho holds a step size that is not positive");
  }
  return population;
}

}  // namespace

void load_ma_sw_chains(const std::string& path, hid_t group, const nlohmann::json& state,
                       Algorithm& algorithm) {
  MaSwChains& ma = as_ma_sw_chains(algorithm);
  const Config& config = ma.config();
  const int capacity = config.capacity();
  Storage storage(capacity, config.dim);
  Engine& engine = ma.engine();
  // The records first, checked before the engine is touched; then the streamed arrays (a
  // sharded rank reads only its slice: the file is the one-rank layout, whatever the ranks).
  std::vector<NamedArray> streamed = population_arrays(storage, engine, capacity, config.dim);
  std::vector<NamedArray> host(std::make_move_iterator(streamed.begin() + 2),
                               std::make_move_iterator(streamed.end()));
  streamed.resize(2);
  host.push_back(in_memory("rng", storage.rng.bytes, true));
  state_arrays::check_arrays(path, group, "algorithm", streamed);
  state_arrays::read_arrays(path, group, "algorithm", host);
  const Population population = population_from(path, config, storage.records);
  state_arrays::read_arrays(path, group, "algorithm", streamed);
  engine.restore_fitness(population.all_fitness().data());
  try {
    storage.rng.layout = state.at("engine_rng_layout").get<std::string>();
    engine.restore_rng(storage.rng);
  } catch (const nlohmann::json::exception&) {
    damaged(path, "run/state has no engine_rng_layout");
  } catch (const UserError& e) {
    damaged(path, e.what());
  }
  ma.restore(population, loop_state_from_json(path, state));
}

}  // namespace chainsaw::checkpoint_state
