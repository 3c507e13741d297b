// Migration between real islands (one per rank, CPU engines): the best individual of rank r-1
// arrives on rank r, bit for bit, in place of the worst member, and is ranked by its fitness.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "core/engines/host/host_engine.hpp"
#include "core/distributed/islands.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "core/distributed/mpi_communicator.hpp"
#include "fitness/problem.hpp"
#include "io/instance_file.hpp"

namespace chainsaw {
namespace {

TEST(Islands, TheBestOfThePreviousRankReplacesTheWorstMember) {
  MpiCommunicator comm;
  Config run;
  run.function = "rastrigin";
  run.dim = 3000;
  run.max_evaluations = 1000;
  run.migration_interval = 400;
  run.distribute = Distribute::kIslands;
  const Config config = island_config(run, comm.rank());
  const Problem problem = make_problem(config.function, config.dim, config.effective_problem_seed(), "");
  HostEngine engine(config, problem);
  MaSwChains algorithm(config, problem, engine);
  algorithm.initialize();
  while (algorithm.counters().evaluations < 400) algorithm.advance();

  // What every island sends: its best, before the exchange.
  const double best = algorithm.population().best_fitness();
  std::vector<real_t> genes(static_cast<std::size_t>(config.dim));
  engine.read_genes(algorithm.population().best_slot(), genes.data());
  std::vector<std::size_t> ones(static_cast<std::size_t>(comm.size()), 1);
  const std::vector<double> bests = comm.allgather(&best, ones);
  const int previous = (comm.rank() + comm.size() - 1) % comm.size();
  std::vector<std::size_t> dims(static_cast<std::size_t>(comm.size()), genes.size());
  const std::vector<real_t> all_genes = comm.allgather(genes.data(), dims);
  EXPECT_NE(bests[0], bests[1]);  // islands of their own seeds

  const int worst = algorithm.population().member(config.population_size - 1);
  Islands islands(comm, config.migration_interval, IslandState{comm.rank(), comm.size()});
  islands.at_safe_point(algorithm);
  EXPECT_EQ(islands.state().migrations, 1);
  EXPECT_EQ(islands.state().epoch, 1);
  // The immigrant sits in the old worst slot with the sender's fitness and genes.
  EXPECT_EQ(algorithm.population().fitness(worst), bests[previous]);
  EXPECT_EQ(islands.state().best_immigrant, bests[previous]);
  std::vector<real_t> arrived(genes.size());
  engine.read_genes(worst, arrived.data());
  EXPECT_TRUE(std::equal(arrived.begin(), arrived.end(),
                         all_genes.begin() + static_cast<std::ptrdiff_t>(previous * genes.size())));
  EXPECT_EQ(algorithm.population().best_fitness(), std::min(best, bests[previous]));
  EXPECT_EQ(islands.state().immigrants_improved, bests[previous] < best ? 1 : 0);
  // Within the same epoch, nothing moves again.
  islands.at_safe_point(algorithm);
  EXPECT_EQ(islands.state().migrations, 1);
}

}  // namespace
}  // namespace chainsaw
