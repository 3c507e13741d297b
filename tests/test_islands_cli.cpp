// `--distribute islands` through the real binary under mpiexec (2 ranks, one OpenMP thread
// each): runs complete and migrate, are deterministic per seed, island 0 is the one-process run,
// checkpoints resume exactly, and errors are one line from the whole job. Skipped in a build
// without MPI, where --distribute is refused in one line instead.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"

namespace chainsaw {
namespace {

using test::CliTest;
using test::expect_one_line_error;
using test::Outcome;
using test::read_file;
namespace fs = std::filesystem;

constexpr const char* kIslands =
    "run --function rastrigin --dim 2000 --seed 3 --backend cpu -q --distribute islands "
    "--migration-every 1000";

class IslandsCli : public test::MpiCliTest {};

TEST_F(IslandsCli, TwoIslandsRunTheirBudgetsAndMigrateAroundTheRing) {
  const Outcome o = on_ranks(2, std::string(kIslands) + " --evals 6000 -o " + out_path());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(o.out.empty()) << o.out;
  EXPECT_TRUE(o.err.empty()) << o.err;  // -q: no rank says anything
  const nlohmann::json j = result("r.json");
  const nlohmann::json& d = j.at("distribute");
  EXPECT_EQ(d.at("mode"), "islands");
  EXPECT_EQ(d.at("ranks"), 2);
  // Multiples of 1000 crossed at the safe points between units: 1000 .. 5000 (the unit that
  // reaches 6000 ends the run).
  EXPECT_EQ(d.at("migrations"), 5);
  ASSERT_EQ(d.at("islands").size(), 2u);
  double best = 1e300;
  for (const nlohmann::json& island : d.at("islands")) {
    EXPECT_EQ(island.at("evaluations").at("total"), 6000);
    EXPECT_EQ(island.at("migrations"), 5);
    // The islands are elitist: an immigrant's fitness bounds the island's final best.
    EXPECT_LE(island.at("best_fitness").get<double>(),
              island.at("best_immigrant_fitness").get<double>());
    best = std::min(best, island.at("best_fitness").get<double>());
  }
  EXPECT_EQ(d.at("islands")[0].at("seed"), 3);
  EXPECT_NE(d.at("islands")[1].at("seed"), 3);
  EXPECT_EQ(j.at("best_fitness").get<double>(), best);
  EXPECT_EQ(d.at("islands")[d.at("best_rank").get<int>()].at("best_fitness").get<double>(), best);
  EXPECT_EQ(j.at("evaluations").at("total"), 12000);  // summed over the islands
  EXPECT_EQ(j.at("config").at("distribute"), "islands");
  EXPECT_GT(j.at("phases").at("migration").at("seconds").get<double>(), 0.0);
}

TEST_F(IslandsCli, RunsAreDeterministicPerSeedAndMigrationChangesThem) {
  for (const char* name : {"a.json", "b.json"})
    ASSERT_EQ(on_ranks(2, std::string(kIslands) + " --evals 4000 -o " + out_path(name)).exit_code, 0);
  const nlohmann::json a = result("a.json"), b = result("b.json");
  EXPECT_EQ(a.at("best_fitness").get<double>(), b.at("best_fitness").get<double>());
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(a["distribute"]["islands"][r]["best_fitness"].get<double>(),
              b["distribute"]["islands"][r]["best_fitness"].get<double>());
  // Without a migration an island ends elsewhere: the migrants mattered.
  ASSERT_EQ(on_ranks(2, std::string(kIslands) + " --evals 4000 --migration-every 100000 -o " +
                          out_path("alone.json"))
                .exit_code,
            0);
  const nlohmann::json alone = result("alone.json");
  EXPECT_EQ(alone["distribute"]["migrations"], 0);
  bool changed = false;
  for (int r = 0; r < 2; ++r)
    changed = changed || alone["distribute"]["islands"][r]["best_fitness"].get<double>() !=
                             a["distribute"]["islands"][r]["best_fitness"].get<double>();
  EXPECT_TRUE(changed);
}

// Rank 0 keeps the run's seed: an island that never migrates is the one-process run.
TEST_F(IslandsCli, IslandZeroWithoutMigrationIsTheOneProcessRun) {
  ASSERT_EQ(chainsaw("run --function rastrigin --dim 2000 --seed 3 --backend cpu -q --evals 3000 "
                     "-o " + out_path("one.json"))
                .exit_code,
            0);
  ASSERT_EQ(on_ranks(2, std::string(kIslands) + " --evals 3000 --migration-every 100000 -o " +
                          out_path("islands.json"))
                .exit_code,
            0);
  EXPECT_EQ(result("one.json").at("best_fitness").get<double>(),
            result("islands.json")["distribute"]["islands"][0]["best_fitness"].get<double>());
}

// Stopped at 3100 evaluations (cutting a unit) and resumed to 6000: every island ends as in the
// uninterrupted run, migrations included.
TEST_F(IslandsCli, CheckpointedIslandsResumeExactly) {
  const std::string run = std::string(kIslands) + " --migration-every 700";
  ASSERT_EQ(on_ranks(2, run + " --evals 6000 -o " + out_path("whole.json")).exit_code, 0);
  const std::string ck = out_path("ck.h5");
  const Outcome part = on_ranks(2, run + " --evals 3100 --checkpoint " + ck + " -o " + out_path("part.json"));
  ASSERT_EQ(part.exit_code, 0) << part.err;
  EXPECT_TRUE(fs::exists(out_path("ck.island0.h5")));
  EXPECT_TRUE(fs::exists(out_path("ck.island1.h5")));
  EXPECT_FALSE(fs::exists(ck));
  const Outcome resumed = on_ranks(2, "resume " + ck + " --distribute islands --evals 6000 -q -o " +
                                        out_path("resumed.json") + " --checkpoint " +
                                        out_path("again.h5"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const nlohmann::json whole = result("whole.json"), again = result("resumed.json");
  EXPECT_EQ(whole.at("best_fitness").get<double>(), again.at("best_fitness").get<double>());
  EXPECT_EQ(whole["distribute"]["migrations"], again["distribute"]["migrations"]);
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(whole["distribute"]["islands"][r]["best_fitness"].get<double>(),
              again["distribute"]["islands"][r]["best_fitness"].get<double>());
    EXPECT_EQ(whole["distribute"]["islands"][r]["best_immigrant_fitness"],
              again["distribute"]["islands"][r]["best_immigrant_fitness"]);
  }
  EXPECT_EQ(again.at("resumed_from"), ck);

  // Another number of ranks, or no --distribute: one line, no hang.
  expect_one_line_error(on_ranks(1, "resume " + ck + " --distribute islands --evals 6000 -q"),
                        "islands resume on the number of ranks that wrote them", true);
  expect_one_line_error(chainsaw("resume " + out_path("ck.island1.h5") + " -q"),
                        "is island 1 of a --distribute islands run of 2 ranks");
  // One rank's file missing: that rank speaks for the job.
  fs::remove(out_path("ck.island1.h5"));
  expect_one_line_error(on_ranks(2, "resume " + ck + " --distribute islands -q"),
                        "ck.island1.h5: no such file", true);
}

TEST_F(IslandsCli, ErrorsAreOneLineFromTheWholeJob) {
  expect_one_line_error(on_ranks(2, std::string(kIslands) + " --evals 3000 --restart"),
                        "--restart cannot be combined with --distribute islands", true);
  expect_one_line_error(on_ranks(2, std::string(kIslands) + " --evals 3000 --migration-every 0"),
                        "--migration-every = 0", true);
  // Only rank 0 writes the output: a bad path fails every rank at once.
  expect_one_line_error(on_ranks(2, std::string(kIslands) + " --evals 3000 -o /nonexistent/r.json"),
                        "--output = /nonexistent/r.json", true);
}

// --distribute shard on one rank is the one-process run (the sharded engine adds more ranks).
TEST_F(IslandsCli, ShardOnOneRankIsTheOneProcessRun) {
  const std::string run = "run --function rastrigin --dim 2000 --seed 3 --backend cpu -q --evals 2000";
  ASSERT_EQ(chainsaw(run + " -o " + out_path("one.json")).exit_code, 0);
  const Outcome o = on_ranks(1, run + " --distribute shard -o " + out_path("shard.json"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json shard = result("shard.json");
  EXPECT_EQ(result("one.json").at("best_fitness").get<double>(), shard.at("best_fitness").get<double>());
  EXPECT_EQ(shard["distribute"]["mode"], "shard");
  EXPECT_EQ(shard["distribute"]["ranks"], 1);
}

#if !defined(CHAINSAW_MPI)
class NoMpiCli : public CliTest {};
TEST_F(NoMpiCli, DistributeIsRefusedInOneLine) {
  expect_one_line_error(chainsaw("run --dim 100 --evals 100 --distribute islands"),
                        "this chainsaw was built without MPI");
}
#endif

}  // namespace
}  // namespace chainsaw
