#include "core/distributed/islands.hpp"

#include <chrono>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace chainsaw {

namespace {

// Tags of the two messages of a migration.
constexpr int kHeaderTag = 801;
constexpr int kGenesTag = 802;

// What travels with the migrant's genes: its fitness, and the sender's position, which must be
// the receiver's (the islands move in step).
struct MigrantHeader {
  double fitness = 0.0;
  std::int64_t evaluations = 0;
  std::int64_t epoch = 0;
};

}  // namespace

Config island_config(const Config& run, int rank) {
  Config c = run;
  c.problem_seed = run.effective_problem_seed();
  if (rank > 0)
    c.seed = derive_key(run.seed, static_cast<std::uint64_t>(RngPurpose::kIsland),
                        static_cast<std::uint64_t>(rank));
  return c;
}

Islands::Islands(Communicator& comm, std::int64_t migration_interval, const IslandState& state)
    : comm_(comm), interval_(migration_interval), state_(state) {
  CHAINSAW_EXPECTS(interval_ >= 1, "a migration interval below one evaluation");
  CHAINSAW_EXPECTS(state_.rank == comm.rank() && state_.ranks == comm.size(),
                   "an island state of another rank or job size");
}

void Islands::at_safe_point(MaSwChains& algorithm) {
  const std::int64_t epoch = algorithm.counters().evaluations / interval_;
  if (epoch <= state_.epoch) return;
  state_.epoch = epoch;
  if (comm_.size() > 1) migrate(algorithm);
}

// The ring: even ranks send first and odd ranks receive first, so that blocking sends of
// large messages cannot wait on each other all around the ring.
void Islands::migrate(MaSwChains& algorithm) {
  const auto start = std::chrono::steady_clock::now();
  const Population& population = algorithm.population();
  const auto dim = static_cast<std::size_t>(algorithm.config().dim);
  outgoing_.resize(dim);
  incoming_.resize(dim);
  algorithm.engine().read_genes(population.best_slot(), outgoing_.data());
  const MigrantHeader mine{population.best_fitness(), algorithm.counters().evaluations,
                           state_.epoch};
  MigrantHeader theirs;
  const int p = comm_.size(), r = comm_.rank();
  const int next = (r + 1) % p, previous = (r + p - 1) % p;
  auto send = [&] {
    comm_.send(&mine, sizeof mine, next, kHeaderTag);
    comm_.send(outgoing_.data(), dim * sizeof(real_t), next, kGenesTag);
  };
  auto receive = [&] {
    comm_.receive(&theirs, sizeof theirs, previous, kHeaderTag);
    comm_.receive(incoming_.data(), dim * sizeof(real_t), previous, kGenesTag);
  };
  if (r % 2 == 0) {
    send();
    receive();
  } else {
    receive();
    send();
  }
  if (theirs.evaluations != mine.evaluations || theirs.epoch != mine.epoch)
    throw InternalError("islands out of step: rank " + std::to_string(previous) + " at " +
                            std::to_string(theirs.evaluations) + " evaluations, rank " +
                            std::to_string(r) + " at " + std::to_string(mine.evaluations),
                        __FILE__, __LINE__);
  const double best_before = population.best_fitness();
  const double fitness = algorithm.immigrate(incoming_.data());
  ++state_.migrations;
  if (fitness < best_before) ++state_.immigrants_improved;
  if (fitness < state_.best_immigrant) state_.best_immigrant = fitness;
  algorithm.add_phase_time(
      Phase::kMigration,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

std::vector<IslandSummary> gather_islands(Communicator& comm, const IslandSummary& mine) {
  // Plain data of the same build on every rank: gathered as bytes.
  static_assert(std::is_trivially_copyable_v<IslandSummary>);
  return comm.allgather(&mine, std::vector<std::size_t>(static_cast<std::size_t>(comm.size()), 1));
}

RunResult combine_islands(const RunResult& mine, const std::vector<IslandSummary>& islands,
                          int& best_rank) {
  CHAINSAW_EXPECTS(!islands.empty(), "no islands to combine");
  RunResult r = mine;
  r.counters = RunCounters{};
  best_rank = islands.front().rank;
  for (const IslandSummary& island : islands) {
    if (island.best_fitness < islands[static_cast<std::size_t>(best_rank)].best_fitness)
      best_rank = island.rank;
    const RunCounters& n = island.counters;
    r.counters.evaluations += n.evaluations;
    r.counters.ga_evaluations += n.ga_evaluations;
    r.counters.ls_evaluations += n.ls_evaluations;
    r.counters.ls_applications += n.ls_applications;
    r.counters.ls_random_choices += n.ls_random_choices;
    r.counters.restarts += n.restarts;
  }
  r.best_fitness = islands[static_cast<std::size_t>(best_rank)].best_fitness;
  r.distance_to_optimum = islands[static_cast<std::size_t>(best_rank)].distance_to_optimum;
  return r;
}

}  // namespace chainsaw
