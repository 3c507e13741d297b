// `--distribute islands` (docs/distributed.md, "Islands"): every rank runs its own MA-SW-Chains
// population on the same problem; every migration_interval evaluations the best individual of
// each island goes around a ring to rank (r + 1) % P, where it replaces the worst member.
//
// The host loop itself is unchanged: migration is a hook at its safe points (between units).
// All islands advance in units of the same sizes (a batch of min(batch, phase left, budget left)
// children, an LS application of min(I_str, budget left)), so their evaluation counts are equal
// at every safe point and every island crosses a multiple of the interval at the same unit; the
// exchange checks this and throws when it does not hold. Restarts would break it: Config refuses
// them with islands.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "core/distributed/communicator.hpp"
#include "core/config.hpp"
#include "core/algorithms/ma_sw_chains.hpp"

namespace chainsaw {

// An island's migration record; checkpoints keep it, so that a resumed island migrates exactly
// where the uninterrupted one does.
struct IslandState {
  int rank = 0;
  int ranks = 1;
  // evaluations / migration_interval at the last safe point: a migration happens when a safe
  // point finds this grown.
  std::int64_t epoch = 0;
  std::int64_t migrations = 0;           // exchanges this island took part in
  std::int64_t immigrants_improved = 0;  // immigrants better than the island's best on arrival
  double best_immigrant = std::numeric_limits<double>::infinity();  // best fitness received
};

// The configuration of island `rank`: the run's, with the problem seed pinned (the same problem
// on every island) and a seed of its own. Rank 0 keeps the run's seed, so that island 0 starts
// exactly as the one-process run with the same flags (and a one-rank islands run is that run);
// rank r > 0 takes derive_key(seed, kIsland, r).
Config island_config(const Config& run, int rank);

class Islands {
 public:
  // `state`: a fresh island's ({comm.rank(), comm.size()}) or the one a checkpoint restored.
  Islands(Communicator& comm, std::int64_t migration_interval, const IslandState& state);

  // For MaSwChains::run's safe points, on every rank (collective): migrates when the
  // evaluations have crossed a multiple of the interval since the last call.
  void at_safe_point(MaSwChains& algorithm);
  const IslandState& state() const { return state_; }

 private:
  void migrate(MaSwChains& algorithm);

  Communicator& comm_;
  std::int64_t interval_;
  IslandState state_;
  std::vector<real_t> outgoing_, incoming_;
};

// What each island reports at the end; gathered on every rank for the result file.
struct IslandSummary {
  int rank = 0;
  std::uint64_t seed = 0;
  double best_fitness = 0.0;
  double distance_to_optimum = 0.0;
  RunCounters counters;
  IslandState state;
};

// Every island's summary, in rank order (collective).
std::vector<IslandSummary> gather_islands(Communicator& comm, const IslandSummary& mine);

// The run over all islands: the best island's (lowest rank among equals) fitness and distance
// to the optimum, the counters summed; best slot, wall time and phases are this rank's.
// best_rank receives the best island's rank.
RunResult combine_islands(const RunResult& mine, const std::vector<IslandSummary>& islands,
                          int& best_rank);

}  // namespace chainsaw
