// --profile and the convergence trace: every engine pass lands in its Table 14 bucket, profiling
// changes nothing in the run, the result file and the table say the same, and the trace is a
// bounded, faithful curve of the run.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "core/convergence_trace.hpp"
#include "core/engines/host/host_engine.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "core/population.hpp"
#include "io/cli/profile_report.hpp"
#include "test_support.hpp"
#include "thread_communicator.hpp"

namespace chainsaw {
namespace {

using test::CliTest;
using test::Outcome;
using test::read_file;

// Buckets that received time, by key.
std::vector<std::string> timed_buckets(const KernelProfile& p) {
  std::vector<std::string> keys;
  for (std::size_t b = 0; b < KernelProfile::kBuckets; ++b)
    if (p.seconds(static_cast<Bucket>(b)) > 0.0) keys.push_back(bucket_info(static_cast<Bucket>(b)).key);
  return keys;
}

struct HostSetup {
  Config config;
  Problem problem;
  HostEngine engine;
  Population population;
  KernelProfile profile;
  explicit HostSetup(const std::string& function, Dim dim)
      : config([&] {
          Config c;
          c.function = function;
          c.dim = dim;
          c.seed = 3;
          return c;
        }()),
        problem(Problem::make(function, dim, 3)),
        engine(config, problem),
        population(config.population_size, config.batch) {
    test::initialize_population(engine, population);
    engine.set_profile(&profile);
  }
  std::vector<ChildSpec> children(int count) const {
    std::vector<ChildSpec> specs(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) specs[i] = {i, i + 1, population.padding_slot(i), -1, 0.0};
    return specs;
  }
};

TEST(HostProfile, EveryOperationLandsInItsOwnBucketOnly) {
  HostSetup s("rastrigin", 20000);
  const auto specs = s.children(5);
  std::vector<double> f(specs.size());
  s.engine.make_children(specs.data(), 5, f.data());
  EXPECT_EQ(timed_buckets(s.profile), std::vector<std::string>{"crossover_rng"});

  s.profile = KernelProfile{};
  const int from[] = {0, 1}, to[] = {2, 3};
  double d[2];
  s.engine.distances(from, to, 2, d);
  EXPECT_EQ(timed_buckets(s.profile), std::vector<std::string>{"distances"});

  s.profile = KernelProfile{};
  s.engine.sort_slots(s.population.order().data());
  EXPECT_EQ(timed_buckets(s.profile), std::vector<std::string>{"sort"});

  s.profile = KernelProfile{};
  LocalSearchRequest req;
  req.slot = 0;
  req.fitness = s.engine.fitness(0);
  req.state.rho = 0.2;
  req.evaluations = 6;
  s.engine.solis_wets(req);
  EXPECT_EQ(timed_buckets(s.profile), std::vector<std::string>{"solis_wets_moves"});

  s.profile = KernelProfile{};
  s.engine.initialize({5, 6}, f.data());
  EXPECT_EQ(timed_buckets(s.profile), std::vector<std::string>{"fitness"});
}

// CEC 2010's make passes only make the genes; their evaluation is a pass of its own.
TEST(HostProfile, Cec2010EvaluationsAreFitnessApartFromTheMovesAndChildren) {
  HostSetup s("cec2010-f9", 1000);
  const auto specs = s.children(3);
  std::vector<double> f(specs.size());
  s.engine.make_children(specs.data(), 3, f.data());
  EXPECT_EQ(timed_buckets(s.profile), (std::vector<std::string>{"fitness", "crossover_rng"}));

  s.profile = KernelProfile{};
  LocalSearchRequest req;
  req.slot = 0;
  req.fitness = s.engine.fitness(0);
  req.state.rho = 0.2;
  req.evaluations = 4;
  s.engine.solis_wets(req);
  EXPECT_EQ(timed_buckets(s.profile), (std::vector<std::string>{"fitness", "solis_wets_moves"}));
}

// A sharded pass's exchange is communication, taken out of the pass's own bucket.
TEST(HostProfile, AShardedPassesExchangeIsCommunication) {
  Config c = test::small_config("rastrigin", 20000, 3);
  const Problem problem = test::problem_of(c);
  std::vector<KernelProfile> profiles(2);
  test::run_ranks(2, [&](Communicator& comm) {
    HostEngine engine(c, problem, &comm);
    Population population(c.population_size, c.batch);
    test::initialize_population(engine, population);
    KernelProfile& p = profiles[static_cast<std::size_t>(comm.rank())];
    engine.set_profile(&p);
    const ChildSpec spec{0, 1, population.padding_slot(0), -1, 0.0};
    double f = 0.0;
    engine.make_children(&spec, 1, &f);
  });
  for (const KernelProfile& p : profiles) {
    EXPECT_EQ(timed_buckets(p), (std::vector<std::string>{"crossover_rng", "communication"}));
  }
}

// Nested scopes: each second lands in one bucket, the innermost scope's.
TEST(HostProfile, NestedScopesSplitTheirTime) {
  KernelProfile p;
  const auto start = std::chrono::steady_clock::now();
  {
    ScopedBucket outer(&p, Bucket::kCrossover);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ScopedBucket inner(&p, Bucket::kCommunication);
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(p.seconds(Bucket::kCrossover), 0.019);
  EXPECT_GE(p.seconds(Bucket::kCommunication), 0.029);
  EXPECT_LE(p.total(), wall);  // not counted twice
}

TEST(HostProfile, ProfilingChangesNothingInTheRun) {
  auto run = [](bool profile) {
    Config c;
    c.function = "schwefel12";
    c.dim = 300;
    c.max_evaluations = 3000;
    c.seed = 11;
    const Problem problem = Problem::make(c.function, c.dim, 11);
    HostEngine engine(c, problem);
    KernelProfile p;
    if (profile) engine.set_profile(&p);
    MaSwChains algorithm(c, problem, engine);
    const RunResult r = algorithm.run();
    if (profile) {
      EXPECT_GT(p.total(), 0.0);
    }
    return r;
  };
  const RunResult plain = run(false), profiled = run(true);
  EXPECT_EQ(plain.best_fitness, profiled.best_fitness);
  EXPECT_EQ(plain.distance_to_optimum, profiled.distance_to_optimum);
  EXPECT_EQ(plain.counters.ls_evaluations, profiled.counters.ls_evaluations);
}

TEST(ProfileReport, BucketsAndOtherAddUpToTheTotalInJsonAndTable) {
  ProfileReport r;
  r.clock = "gpu_windows";
  r.setup_seconds = 0.5;
  r.run_seconds = 9.5;
  r.buckets.add(Bucket::kCrossover, 2.0);
  r.buckets.add(Bucket::kSwMoves, 3.0);
  r.buckets.add(Bucket::kTransfers, 1.0);
  const auto j = profile_to_json(r);
  EXPECT_EQ(j["clock"], "gpu_windows");
  EXPECT_DOUBLE_EQ(j["total_seconds"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(j["buckets"]["other"]["seconds"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["buckets"]["crossover_rng"]["share"].get<double>(), 0.2);
  double shares = 0.0;
  for (const auto& [key, b] : j["buckets"].items()) shares += b["share"].get<double>();
  EXPECT_NEAR(shares, 1.0, 1e-12);
  EXPECT_EQ(j["buckets"].size(), KernelProfile::kBuckets + 1);

  const std::string table = profile_table(r);
  EXPECT_NE(table.find("2000.0 ms   20.0 %"), std::string::npos) << table;
  EXPECT_NE(table.find("4000.0 ms   40.0 %"), std::string::npos) << table;
  EXPECT_NE(table.find("10000.0 ms  100.0 %"), std::string::npos) << table;
}

TEST(ProfileReport, RooflineColumnIsTheEssentialBytesPerSecondAgainstTheCopyBandwidth) {
  ProfileReport r;
  r.run_seconds = 10.0;
  r.buckets.add(Bucket::kSwMoves, 2.0);
  r.buckets.add(Bucket::kSort, 1.0);
  count_vectors(&r.buckets, Bucket::kSwMoves, 2.0 * 500, 1000000);  // 500 evaluations, 1e6 genes
  r.buckets.set_copy_bandwidth(4e9);
  const double bytes = 2.0 * 500 * 1e6 * sizeof(real_t);
  const auto j = profile_to_json(r);
  EXPECT_DOUBLE_EQ(j["copy_bandwidth_bytes_per_second"].get<double>(), 4e9);
  EXPECT_DOUBLE_EQ(j["buckets"]["solis_wets_moves"]["bytes"].get<double>(), bytes);
  EXPECT_DOUBLE_EQ(j["buckets"]["solis_wets_moves"]["bytes_per_second"].get<double>(), bytes / 2.0);
  EXPECT_DOUBLE_EQ(j["buckets"]["solis_wets_moves"]["share_of_copy_bandwidth"].get<double>(),
                   bytes / 2.0 / 4e9);
  EXPECT_FALSE(j["buckets"]["sort"].contains("bytes"));  // no essential bytes counted
  const std::string table = profile_table(r);
  const std::string gbps = fmt::format("{:.1f}", 1e-9 * bytes / 2.0);
  EXPECT_NE(table.find(gbps), std::string::npos) << table;
  EXPECT_NE(table.find(fmt::format("{:.1f} %", 100.0 * bytes / 2.0 / 4e9)), std::string::npos)
      << table;
}

// An engine under --profile counts what its passes must move and measures its copy bandwidth.
TEST(ProfileReport, HostEngineCountsEssentialBytesPerBucket) {
  const Dim dim = 4096;
  Config config = test::small_config("sumsquares", dim, 3, 8, 4);
  config.max_evaluations = 400;
  config.ls_intensity = 50;
  config.validate();
  const Problem problem = test::problem_of(config);
  HostEngine engine(config, problem);
  KernelProfile profile;
  engine.set_profile(&profile);
  EXPECT_GT(profile.copy_bandwidth(), 0.0);
  MaSwChains algorithm(config, problem, engine);
  const RunResult result = algorithm.run();
  const double vector = static_cast<double>(dim) * sizeof(real_t);
  EXPECT_DOUBLE_EQ(profile.bytes(Bucket::kSwMoves),
                   2.0 * vector * static_cast<double>(result.counters.ls_evaluations));
  EXPECT_GT(profile.bytes(Bucket::kCrossover), 0.0);
  EXPECT_EQ(std::fmod(profile.bytes(Bucket::kCrossover), 3.0 * vector), 0.0);
  EXPECT_GT(profile.bytes(Bucket::kFitness), 0.0);
}

Progress report_at(std::int64_t evaluations, double best) {
  Progress p;
  p.evaluations = evaluations;
  p.elapsed_seconds = 0.001 * static_cast<double>(evaluations);
  p.best_fitness = best;
  return p;
}

TEST(ConvergenceTrace, KeepsEveryReportWhileThereIsRoom) {
  ConvergenceTrace t;
  for (int i = 0; i < 100; ++i) t.add(report_at(1000 * i, 1e6 - i));
  const auto points = t.points();
  ASSERT_EQ(points.size(), 100u);
  EXPECT_EQ(points[37].evaluations, 37000);
  EXPECT_EQ(points[37].best_fitness, 1e6 - 37);
}

TEST(ConvergenceTrace, ThinsEvenlyToABoundedSizeAndKeepsTheLastReport) {
  ConvergenceTrace t;
  const int reports = 5001;
  for (int i = 0; i < reports; ++i) t.add(report_at(10 * i, -i));
  const auto points = t.points();
  EXPECT_LE(points.size(), ConvergenceTrace::kMaxPoints + 1);
  EXPECT_GE(points.size(), ConvergenceTrace::kMaxPoints / 2);
  EXPECT_EQ(points.front().evaluations, 0);
  EXPECT_EQ(points.back().evaluations, 10 * (reports - 1));
  // Evenly spaced but for the last: one stride between every two kept reports.
  const std::int64_t stride = points[1].evaluations - points[0].evaluations;
  for (std::size_t i = 1; i + 1 < points.size(); ++i)
    EXPECT_EQ(points[i].evaluations - points[i - 1].evaluations, stride) << i;
}

constexpr const char* kRun = "run --function sumsquares --dim 300 --evals 4000 --backend cpu --seed 5";

TEST_F(CliTest, ProfilePrintsTheTableAfterTheSummaryAndWritesIt) {
  const Outcome o = chainsaw(std::string(kRun) + " --profile --output '" + out_path() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto lines = test::lines_of(o.err);
  // Summary, title, header, the buckets, other, total and the roofline column's footnote.
  ASSERT_EQ(lines.size(), 1u + 2u + KernelProfile::kBuckets + 3u) << o.err;
  EXPECT_EQ(lines[0].rfind("chainsaw: sumsquares", 0), 0u) << lines[0];
  EXPECT_NE(lines[1].find("profile (steady_clock)"), std::string::npos) << lines[1];
  for (std::size_t b = 0; b < KernelProfile::kBuckets; ++b)
    EXPECT_NE(o.err.find(bucket_info(static_cast<Bucket>(b)).label), std::string::npos) << b;
  EXPECT_NE(lines[lines.size() - 2].find("100.0 %"), std::string::npos) << lines[lines.size() - 2];
  EXPECT_NE(lines.back().find("copy bandwidth"), std::string::npos) << lines.back();

  const auto j = nlohmann::json::parse(read_file(out_path()));
  const auto& p = j["profile"];
  ASSERT_TRUE(p.is_object());
  EXPECT_EQ(p["clock"], "steady_clock");
  double sum = 0.0;
  for (const auto& [key, b] : p["buckets"].items()) sum += b["seconds"].get<double>();
  EXPECT_NEAR(sum, p["total_seconds"].get<double>(), 1e-9);
  EXPECT_LE(p["run_seconds"].get<double>(), p["total_seconds"].get<double>());
  EXPECT_GE(p["run_seconds"].get<double>(), j["wall_seconds"].get<double>());
  for (const char* busy : {"crossover_rng", "distances", "solis_wets_moves", "sort"})
    EXPECT_GT(p["buckets"][busy]["seconds"].get<double>(), 0.0) << busy;
  // The CPU engine has no device to copy to and no generator state to set up.
  EXPECT_EQ(p["buckets"]["transfers"]["seconds"].get<double>(), 0.0);
  EXPECT_EQ(p["buckets"]["rng_init"]["seconds"].get<double>(), 0.0);
}

TEST_F(CliTest, ProfileWithQuietPrintsNothingButWritesTheProfile) {
  const Outcome o = chainsaw(std::string(kRun) + " --profile -q --output '" + out_path() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(o.err.empty()) << o.err;
  EXPECT_TRUE(nlohmann::json::parse(read_file(out_path()))["profile"].is_object());
}

TEST_F(CliTest, ProfileChangesNothingInTheResultAndIsNullWithoutIt) {
  ASSERT_EQ(chainsaw(std::string(kRun) + " -q --output '" + out_path("a.json") + "'").exit_code, 0);
  ASSERT_EQ(chainsaw(std::string(kRun) + " -q --profile --output '" + out_path("b.json") + "'")
                .exit_code,
            0);
  const auto a = nlohmann::json::parse(read_file(out_path("a.json")));
  const auto b = nlohmann::json::parse(read_file(out_path("b.json")));
  EXPECT_TRUE(a["profile"].is_null());
  EXPECT_EQ(a["best_fitness"], b["best_fitness"]);
  EXPECT_EQ(a["distance_to_optimum"], b["distance_to_optimum"]);
  EXPECT_EQ(a["evaluations"], b["evaluations"]);
}

TEST_F(CliTest, TraceFollowsTheRunFromTheInitialPopulationToItsResult) {
  ASSERT_EQ(chainsaw(std::string(kRun) + " -q --output '" + out_path() + "'").exit_code, 0);
  const auto j = nlohmann::json::parse(read_file(out_path()));
  const auto& trace = j["trace"];
  ASSERT_GE(trace.size(), 3u);
  EXPECT_EQ(trace[0][0], j["config"]["population"]);  // the initial population's report
  EXPECT_EQ(trace.back()[0], j["evaluations"]["total"]);
  EXPECT_EQ(trace.back()[2], j["best_fitness"]);
  for (std::size_t i = 1; i < trace.size(); ++i) {
    EXPECT_GT(trace[i][0].get<long>(), trace[i - 1][0].get<long>()) << i;
    EXPECT_GE(trace[i][1].get<double>(), trace[i - 1][1].get<double>()) << i;
    EXPECT_LE(trace[i][2].get<double>(), trace[i - 1][2].get<double>()) << i;  // elitist
  }
}

TEST_F(CliTest, ResumeProfilesItsOwnSegmentWithTheCheckpointIo) {
  ASSERT_EQ(chainsaw(std::string(kRun) + " -q --evals 2000 --checkpoint '" + out_path("c.h5") +
                     "' --output '" + out_path("part.json") + "'")
                .exit_code,
            0);
  const Outcome o = chainsaw("resume '" + out_path("c.h5") + "' --evals 4000 --profile -q --output '" +
                             out_path() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto p = nlohmann::json::parse(read_file(out_path()))["profile"];
  ASSERT_TRUE(p.is_object());
  // Reading the checkpoint at set-up and writing the final one.
  EXPECT_GT(p["buckets"]["checkpoint_io"]["seconds"].get<double>(), 0.0);
  EXPECT_GT(p["buckets"]["crossover_rng"]["seconds"].get<double>(), 0.0);
}

}  // namespace
}  // namespace chainsaw
