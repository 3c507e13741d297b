// Sharded runs on the CPU backend (docs/distributed.md), P ranks as P threads: every rank
// holds a slice of every individual and the run is bit-identical to the one-rank run, for the
// paper's six functions, ranks with one chunk or none, and through checkpoints written by any
// number of ranks and resumed on any other.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "checkpoint_support.hpp"
#include "core/distributed/agreement.hpp"
#include "core/error.hpp"
#include "core/engines/host/host_engine.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "fitness/host_fitness.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/checkpoint/hdf5_file.hpp"
#include "temp_dir_test.hpp"
#include "test_support.hpp"
#include "thread_communicator.hpp"

namespace chainsaw {
namespace {

// Small enough for CI, long enough for several Solis-Wets applications and chains.
Config shard_config(const std::string& function, Dim dim, std::uint64_t seed = 5) {
  Config c = test::small_config(function, dim, seed, 8, 4);
  c.max_evaluations = 1200;
  c.ls_intensity = 100;
  c.validate();
  return c;
}

// What a run ends with, as one rank sees it.
struct Outcome {
  RunResult result;
  std::vector<double> fitness;
  std::vector<int> order;
  std::vector<real_t> best_genes;  // read_genes: every rank
  std::vector<real_t> best_bias;   // read_slot_array: rank 0 only when sharded
};

Outcome outcome_of(MaSwChains& algorithm) {
  Outcome o;
  o.result = algorithm.result();
  const test::FinalState s = test::final_state(algorithm);
  o.fitness = s.fitness;
  o.order = s.order;
  o.best_bias = s.best_bias;
  o.best_genes.resize(static_cast<std::size_t>(algorithm.config().dim));
  algorithm.engine().read_genes(o.result.best_slot, o.best_genes.data());
  return o;
}

Outcome run_one_rank(const Config& config) {
  const Problem problem = test::problem_of(config);
  HostEngine engine(config, problem);
  MaSwChains algorithm(config, problem, engine);
  algorithm.run();
  return outcome_of(algorithm);
}

// Every rank's outcome, in rank order.
std::vector<Outcome> run_sharded(const Config& config, int ranks) {
  const Problem problem = test::problem_of(config);
  std::vector<Outcome> outcomes(static_cast<std::size_t>(ranks));
  test::run_ranks(ranks, [&](Communicator& comm) {
    HostEngine engine(config, problem, &comm);
    MaSwChains algorithm(config, problem, engine);
    algorithm.run();
    outcomes[static_cast<std::size_t>(comm.rank())] = outcome_of(algorithm);
  });
  return outcomes;
}

bool same_bits(const std::vector<real_t>& a, const std::vector<real_t>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(real_t)) == 0;
}

void expect_same_run(const Outcome& one, const Outcome& rank, bool with_bias) {
  EXPECT_EQ(one.result.best_fitness, rank.result.best_fitness);
  EXPECT_EQ(one.result.distance_to_optimum, rank.result.distance_to_optimum);
  EXPECT_EQ(one.result.best_slot, rank.result.best_slot);
  const RunCounters& a = one.result.counters;
  const RunCounters& b = rank.result.counters;
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_EQ(a.ga_evaluations, b.ga_evaluations);
  EXPECT_EQ(a.ls_evaluations, b.ls_evaluations);
  EXPECT_EQ(a.ls_applications, b.ls_applications);
  EXPECT_EQ(a.ls_random_choices, b.ls_random_choices);
  EXPECT_EQ(a.restarts, b.restarts);
  EXPECT_EQ(one.fitness, rank.fitness);  // every slot's, exactly
  EXPECT_EQ(one.order, rank.order);
  EXPECT_TRUE(same_bits(one.best_genes, rank.best_genes));
  if (with_bias) {
    EXPECT_TRUE(same_bits(one.best_bias, rank.best_bias));
  }
}

// Returns the one-rank run's counters.
RunCounters expect_sharded_equals_one_rank(const Config& config, int ranks) {
  const Outcome one = run_one_rank(config);
  EXPECT_GT(one.result.counters.ls_applications, 2);
  const std::vector<Outcome> sharded = run_sharded(config, ranks);
  for (int r = 0; r < ranks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    expect_same_run(one, sharded[static_cast<std::size_t>(r)], r == 0);
  }
  return one.result.counters;
}

struct ShardCase {
  Dim dim;
  int ranks;
};
void PrintTo(const ShardCase& s, std::ostream* os) {
  *os << "D = " << s.dim << ", P = " << s.ranks;
}

class ShardedRun : public ::testing::TestWithParam<std::tuple<const char*, ShardCase>> {};

TEST_P(ShardedRun, IsBitIdenticalToTheOneRankRunOnEveryRank) {
  const auto [function, shard] = GetParam();
  expect_sharded_equals_one_rank(shard_config(function, shard.dim), shard.ranks);
}

// The neighbour partial (Rosenbrock's pairs across chunk and rank seams; Scaffer's pair of the
// last and the first gene) gathered from the ranks.
TEST(ShardedClassicRun, NeighbourTermsAcrossRanksAreBitIdenticalToTheOneRankRun) {
  for (const char* function : {"rosenbrock", "scaffer"}) {
    SCOPED_TRACE(function);
    expect_sharded_equals_one_rank(shard_config(function, 20000), 3);
  }
}

// 20,000 genes: 5 chunks, the last one partial (not a multiple of 4096); 3 ranks hold 2, 2
// and 1 chunk. 12,288 genes: 3 whole chunks, one per rank.
INSTANTIATE_TEST_SUITE_P(
    PaperFunctions, ShardedRun,
    ::testing::Combine(::testing::ValuesIn(test::kAllFunctions),
                       ::testing::Values(ShardCase{20000, 2}, ShardCase{20000, 3},
                                         ShardCase{12288, 3})),
    [](const auto& info) {
      const ShardCase& s = std::get<1>(info.param);
      return std::string(std::get<0>(info.param)) + "_D" + std::to_string(s.dim) + "_P" +
             std::to_string(s.ranks);
    });

TEST(ShardedRunOptions, RestartsAreBitIdenticalToOneRank) {
  Config c = shard_config("rastrigin", 9000);
  c.restart = true;
  // Steps across half the domain never improve: chains fail, and so do random members' LS.
  c.solis_wets.rho0 = 5.0;
  c.ls_intensity = 4;
  c.validate();
  const RunCounters counters = expect_sharded_equals_one_rank(c, 2);
  EXPECT_GT(counters.restarts, 0);
}

TEST(ShardedRunOptions, NeighbourStepSizesAreBitIdenticalToOneRank) {
  Config c = shard_config("griewank", 9000);
  c.rho_init = RhoInit::kNearestRms;
  c.validate();
  expect_sharded_equals_one_rank(c, 2);
}

// 5,000 genes are 2 chunks: the third rank holds none and only joins the exchanges.
TEST(ShardedRunOptions, ARankWithoutGenesTakesPartAndChangesNothing) {
  const Config c = shard_config("schwefel12", 5000);
  expect_sharded_equals_one_rank(c, 3);
}

TEST(ShardSlices, EachRankHoldsWholeChunksOfItsShareAndTheyTileTheIndividual) {
  const Config c = shard_config("rastrigin", 20000);
  const Problem problem = test::problem_of(c);
  std::vector<GeneSlice> slices(3);
  test::run_ranks(3, [&](Communicator& comm) {
    HostEngine engine(c, problem, &comm);
    EXPECT_EQ(engine.shard().comm, &comm);
    slices[static_cast<std::size_t>(comm.rank())] = engine.shard().slice;
  });
  Dim next = 0;
  for (const GeneSlice& s : slices) {
    EXPECT_EQ(s.first, next);
    EXPECT_EQ(s.first % kHostChunk, 0);
    EXPECT_LE(s.count, 2 * kHostChunk);
    next = s.end();
  }
  EXPECT_EQ(next, c.dim);
}

TEST(ShardSlices, OneRankIsTheUnshardedEngine) {
  const Config c = shard_config("rastrigin", 5000);
  const Problem problem = test::problem_of(c);
  SingleProcess single;
  HostEngine engine(c, problem, &single);
  EXPECT_EQ(engine.shard().comm, nullptr);
  EXPECT_TRUE(engine.shard().slice.whole());
}

// Refusals need no exchange: the engine of rank 0 of two is enough.
TEST(ShardRefusals, Cec2010FunctionsAreRefusedInOneLine) {
  Config c = test::small_config("cec2010-f5", 1000);
  const Problem problem = Problem::make(c.function, c.dim, 1);
  test::Rendezvous rendezvous(2);
  test::ThreadCommunicator comm(rendezvous, 0);
  try {
    HostEngine engine(c, problem, &comm);
    FAIL() << "a sharded CEC 2010 engine was built";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--distribute shard: cec2010-f5"), std::string::npos) << what;
    EXPECT_NE(what.find("--distribute islands"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST(ShardRefusals, UserObjectivesAreRefusedInOneLine) {
  BatchObjective objective;
  objective.name = "sphere";
  objective.dim = 100;
  objective.lower = -1.0;
  objective.upper = 1.0;
  objective.host = [](const real_t*, Dim, int rows, Dim, double* out) {
    for (int r = 0; r < rows; ++r) out[r] = 0.0;
  };
  const Problem problem =
      Problem::make_external(std::make_shared<const BatchObjective>(objective), 100);
  Config c = test::small_config("rastrigin", 100);
  test::Rendezvous rendezvous(2);
  test::ThreadCommunicator comm(rendezvous, 0);
  EXPECT_THROW(HostEngine(c, problem, &comm), UserError);
}

// ---- Checkpoints: one ordinary file, whatever the number of ranks ----

class ShardCheckpoint : public test::TempDirTest {
 protected:
  static Config config() { return shard_config("schwefel12", 20000, 9); }
};

// The end state a resumed run must reach: the one-rank run that never stopped.
test::FinalState one_rank_to_the_end(const Config& config) {
  return test::run_uninterrupted(config, [](const Config& c, const Problem& p) {
    return std::make_unique<HostEngine>(c, p);
  });
}

// Runs `config` on `ranks` ranks (0: the unsharded engine) to the safe point `stop_here`
// chooses, writes a checkpoint to `path` there and returns rank 0's loop state at that point.
LoopState checkpoint_at(const Config& config, int ranks, const std::string& path,
                        const std::function<bool(const MaSwChains&)>& stop_here) {
  const Problem problem = test::problem_of(config);
  std::vector<LoopState> states(static_cast<std::size_t>(std::max(ranks, 1)));
  auto body = [&](Communicator* comm) {
    HostEngine engine(config, problem, comm);
    MaSwChains algorithm(config, problem, engine);
    algorithm.run({}, [&](Algorithm& any) {
      auto& a = static_cast<MaSwChains&>(any);
      if (!stop_here(a)) return true;
      write_checkpoint("--checkpoint", path, a, Backend::kCpu, "test");
      states[comm ? static_cast<std::size_t>(comm->rank()) : 0] = a.loop_state();
      return false;
    });
  };
  if (ranks == 0)
    body(nullptr);
  else
    test::run_ranks(ranks, [&](Communicator& comm) { body(&comm); });
  for (const LoopState& s : states)
    EXPECT_EQ(s.counters.evaluations, states[0].counters.evaluations);
  return states[0];
}

// Resumes `path` on `ranks` ranks (0: unsharded) to the end; rank 0's final state.
test::FinalState resume_on(const std::string& path, int ranks) {
  const CheckpointHeader header = read_checkpoint_header(path);
  const Problem problem = checkpoint_problem(header);
  std::vector<test::FinalState> states(static_cast<std::size_t>(std::max(ranks, 1)));
  auto body = [&](Communicator* comm) {
    HostEngine engine(header.config, problem, comm);
    MaSwChains algorithm(header.config, problem, engine);
    load_checkpoint(path, algorithm);
    algorithm.run();
    states[comm ? static_cast<std::size_t>(comm->rank()) : 0] = test::final_state(algorithm);
  };
  if (ranks == 0)
    body(nullptr);
  else
    test::run_ranks(ranks, [&](Communicator& comm) { body(&comm); });
  return states[0];
}

std::vector<std::uint8_t> dataset_bytes(const std::string& path, const std::string& name) {
  h5::Handle file = h5::open_file_read_only(path);
  h5::Handle dataset = h5::open_dataset(file.get(), name);
  const h5::StoredType type = h5::dataset_type(dataset.get());
  std::size_t size = type.size;
  for (hsize_t d : h5::dataset_dims(dataset.get())) size *= d;
  std::vector<std::uint8_t> bytes(size);
  const h5::Handle stored(H5Dget_type(dataset.get()), H5Tclose, "type of " + name);
  h5::read_all(dataset.get(), stored.get(), bytes.data());
  return bytes;
}

TEST_F(ShardCheckpoint, TwoRanksWriteTheOneRankFile) {
  const Config c = config();
  const std::string one = path_in_dir("one.h5"), two = path_in_dir("two.h5");
  checkpoint_at(c, 0, one, test::stop_inside_chain(500));
  checkpoint_at(c, 2, two, test::stop_inside_chain(500));
  for (const char* name : {"algorithm/genes", "algorithm/bias", "algorithm/fitness",
                           "algorithm/order", "algorithm/chain_rho", "algorithm/rng"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(dataset_bytes(one, name), dataset_bytes(two, name));
  }
  const CheckpointSummary a = inspect_checkpoint(one), b = inspect_checkpoint(two);
  EXPECT_EQ(a.evaluations, b.evaluations);
  EXPECT_EQ(a.best_fitness, b.best_fitness);
}

TEST_F(ShardCheckpoint, ATwoRankCheckpointResumesExactlyOnOneRank) {
  const Config c = config();
  const test::FinalState whole = one_rank_to_the_end(c);
  checkpoint_at(c, 2, path_in_dir("run.h5"), test::stop_inside_chain(500));
  test::expect_identical(whole, resume_on(path_in_dir("run.h5"), 0));
}

TEST_F(ShardCheckpoint, AOneRankCheckpointResumesExactlyOnThreeRanks) {
  const Config c = config();
  const test::FinalState whole = one_rank_to_the_end(c);
  checkpoint_at(c, 0, path_in_dir("run.h5"), test::stop_inside_ga_phase(500));
  test::expect_identical(whole, resume_on(path_in_dir("run.h5"), 3));
}

// 1.1e6 genes: the checkpoint's blocks of 2^20 genes span several ranks' slices, and the
// slices of 3 ranks start inside blocks.
TEST_F(ShardCheckpoint, BlocksAcrossSlicesWriteAndReadTheOneRankFile) {
  Config c = test::small_config("rastrigin", 1100000, 3, 2, 1);
  c.max_evaluations = c.population_size + 1;  // stopped after the initial population
  c.validate();
  const std::string one = path_in_dir("one.h5"), three = path_in_dir("three.h5");
  const auto at_end = [](const MaSwChains& a) { return a.initialized(); };
  checkpoint_at(c, 0, one, at_end);
  checkpoint_at(c, 3, three, at_end);
  EXPECT_EQ(dataset_bytes(one, "algorithm/genes"), dataset_bytes(three, "algorithm/genes"));
  // Loaded on 2 ranks, written again on 2: still the same file content.
  const std::string again = path_in_dir("again.h5");
  const CheckpointHeader header = read_checkpoint_header(three);
  const Problem problem = checkpoint_problem(header);
  test::run_ranks(2, [&](Communicator& comm) {
    HostEngine engine(header.config, problem, &comm);
    MaSwChains algorithm(header.config, problem, engine);
    load_checkpoint(three, algorithm);
    write_checkpoint("--checkpoint", again, algorithm, Backend::kCpu, "test");
  });
  EXPECT_EQ(dataset_bytes(one, "algorithm/genes"), dataset_bytes(again, "algorithm/genes"));
}

TEST_F(ShardCheckpoint, AWriteThatFailsOnRankZeroFailsOnEveryRankAndRankZeroReportsIt) {
  const Config c = config();
  const Problem problem = test::problem_of(c);
  const std::string path = path_in_dir("missing/run.h5");
  std::vector<std::string> messages(2);
  std::vector<int> failed(2, 0);
  test::run_ranks(2, [&](Communicator& comm) {
    HostEngine engine(c, problem, &comm);
    MaSwChains algorithm(c, problem, engine);
    algorithm.initialize();
    try {
      write_checkpoint("--checkpoint", path, algorithm, Backend::kCpu, "test");
    } catch (const AgreedFailure& e) {
      EXPECT_TRUE(e.user_error);
      EXPECT_EQ(e.reporter, comm.is_root());  // reported once, by the rank that failed
      failed[static_cast<std::size_t>(comm.rank())] = 1;
      messages[static_cast<std::size_t>(comm.rank())] = e.what();
    }
    algorithm.run();  // the ranks are still in step
  });
  EXPECT_EQ(failed, (std::vector<int>{1, 1}));
  EXPECT_NE(messages[0].find("--checkpoint = " + path), std::string::npos) << messages[0];
}

// A signal reaches the ranks at different moments: the schedule stops them all at the first
// safe point where any has seen it, with one checkpoint that resumes exactly.
TEST_F(ShardCheckpoint, AStopSeenByOneRankStopsEveryRankAtTheSameSafePoint) {
  const Config c = config();
  const Problem problem = test::problem_of(c);
  const std::string path = path_in_dir("run.h5");
  std::vector<std::int64_t> stopped_at(2);
  test::run_ranks(2, [&](Communicator& comm) {
    HostEngine engine(c, problem, &comm);
    MaSwChains algorithm(c, problem, engine);
    CheckpointSchedule schedule("--checkpoint", path, CheckpointInterval{}, Backend::kCpu,
                                [&] {
                                  return comm.rank() == 1 &&
                                         algorithm.counters().evaluations >= 400;
                                });
    schedule.distribute(&comm, nullptr);
    algorithm.run({}, [&](Algorithm& a) { return schedule.at_safe_point(a); });
    stopped_at[static_cast<std::size_t>(comm.rank())] = algorithm.counters().evaluations;
  });
  EXPECT_GE(stopped_at[0], 400);
  EXPECT_LT(stopped_at[0], c.max_evaluations);
  EXPECT_EQ(stopped_at[0], stopped_at[1]);
  EXPECT_EQ(inspect_checkpoint(path).evaluations, stopped_at[0]);
  const test::FinalState whole = one_rank_to_the_end(c);
  test::expect_identical(whole, resume_on(path, 2));
}

}  // namespace
}  // namespace chainsaw
