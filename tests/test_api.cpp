// The library API (include/chainsaw/chainsaw.hpp) on the CPU backend.
#include <chainsaw/chainsaw.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api_objectives.hpp"
#include "cli_support.hpp"
#include "core/engines/host/host_engine.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "temp_dir_test.hpp"

namespace chainsaw::test {
namespace {

Options small_options(Dim dim, std::int64_t evaluations, std::uint64_t seed = 3) {
  return small_api_options(dim, evaluations, seed, Backend::kCpu);
}

// 4200 genes: two host chunks, so the chunk combination is exercised too.
TEST(Api, UserRastriginGivesTheBuiltinRunBitForBit) {
  const Options o = small_options(4200, 700);
  const BuiltinRun builtin = run_builtin<HostEngine>("rastrigin", o);
  const UserRastrigin user{benchmark_shift(-5.12, 5.12, o.seed)};
  const Result r = optimize(user, o);
  expect_same_run(builtin, r);
  EXPECT_EQ(r.best_error, r.best_fitness + 330.0);
  EXPECT_EQ(r.backend, Backend::kCpu);
  EXPECT_EQ(r.invalid_evaluations, 0);
}

TEST(Api, UserSchwefel12GivesTheBuiltinRunBitForBitWithOneOrTwoThreads) {
  Options o = small_options(4200, 500, 7);
  const BuiltinRun builtin = run_builtin<HostEngine>("schwefel12", o);
  const UserSchwefel12 user{benchmark_shift(-100.0, 100.0, o.seed)};
  o.threads = 1;
  expect_same_run(builtin, optimize(user, o));
  o.threads = 2;
  expect_same_run(builtin, optimize(user, o));
}

// f of one row through the per-gene objective's host callback.
template <class Obj>
double evaluate_once(const Obj& objective, const std::vector<real_t>& x) {
  double f = 0.0;
  batch_objective(objective).host(x.data(), static_cast<Dim>(x.size()), 1,
                                  static_cast<Dim>(x.size()), &f);
  return f;
}

// Blocks of 50 across the 4096-gene chunks, a last block of 1 gene: against a direct loop.
TEST(Api, BlockSumPartialMatchesADirectSumOverBlocks) {
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const Dim dim : {Dim{1}, Dim{49}, Dim{50}, Dim{51}, Dim{8193}, Dim{10001}}) {
    std::vector<real_t> x(static_cast<size_t>(dim));
    for (auto& v : x) v = static_cast<real_t>(u(gen));
    long double reference = 0.0L;
    for (Dim b = 0; b * 50 < dim; ++b) {
      long double s = 0.0L;
      for (Dim j = b * 50; j < std::min(dim, (b + 1) * 50); ++j)
        s += static_cast<long double>(x[j]) - 0.25L;
      reference += s * s;
    }
    const double f = evaluate_once(UserGrouped{}, x);
    EXPECT_NEAR(f, static_cast<double>(reference), 1e-12 * static_cast<double>(reference) + 1e-12)
        << "dim " << dim;
  }
}

// Any split of the genes into consecutive pieces, combined in order, gives the same partial.
TEST(Api, BlockSumPartialCombinesPiecesSplitInsideAndBetweenBlocks) {
  using P = BlockSumPartial<BlockSquares>;
  std::mt19937_64 gen(11);
  std::vector<double> t(503);
  for (auto& v : t) v = std::uniform_real_distribution<double>(-1.0, 1.0)(gen);
  P whole;
  for (Dim i = 0; i < 503; ++i) whole.add(i, t[i]);
  for (const Dim piece : {Dim{1}, Dim{7}, Dim{25}, Dim{50}, Dim{100}, Dim{137}}) {
    P combined;
    for (Dim begin = 0; begin < 503; begin += piece) {
      P p;
      for (Dim i = begin; i < std::min<Dim>(503, begin + piece); ++i) p.add(i, t[i]);
      combined = P::combine(combined, p);
    }
    EXPECT_NEAR(combined.total(), whole.total(), 1e-12 * whole.total()) << "pieces of " << piece;
  }
}

BatchObjective sphere_batch(int* calls = nullptr, std::int64_t* rows_seen = nullptr) {
  BatchObjective b;
  b.name = "sphere";
  b.lower = -5.0;
  b.upper = 5.0;
  b.optimum_value = 0.0;
  b.host = [calls, rows_seen](const real_t* genes, Dim pitch, int rows, Dim dim, double* out) {
    if (calls) ++*calls;
    if (rows_seen) *rows_seen += rows;
    for (int r = 0; r < rows; ++r) {
      double s = 0.0;
      for (Dim j = 0; j < dim; ++j) s += static_cast<double>(genes[r * pitch + j]) * genes[r * pitch + j];
      out[r] = s;
    }
  };
  return b;
}

TEST(Api, BatchCallbackSeesEveryEvaluationOnceAndTheRunImproves) {
  int calls = 0;
  std::int64_t rows = 0;
  const Options o = small_options(300, 2000);
  const Result r = optimize(sphere_batch(&calls, &rows), o);
  EXPECT_EQ(rows, 2000);  // on the CPU, exactly one callback row per evaluation
  EXPECT_LT(calls, 2000);  // the initial population came in fewer calls than rows
  // A uniform point of [-5, 5]^300 has f = 2500 on average.
  EXPECT_LT(r.best_fitness, 1500.0);
  EXPECT_EQ(r.best_error, r.best_fitness);
  double f = 0.0;
  for (real_t g : r.best_genes) f += static_cast<double>(g) * g;
  EXPECT_EQ(f, r.best_fitness);
}

TEST(Api, NanFitnessRanksLastAndIsCounted) {
  BatchObjective b = sphere_batch();
  const HostBatchFn sphere = b.host;
  // NaN wherever x_0 > 0: half the domain.
  b.host = [sphere](const real_t* genes, Dim pitch, int rows, Dim dim, double* out) {
    sphere(genes, pitch, rows, dim, out);
    for (int r = 0; r < rows; ++r)
      if (genes[r * pitch] > 0) out[r] = std::numeric_limits<double>::quiet_NaN();
  };
  const Result r = optimize(b, small_options(50, 2000));
  EXPECT_TRUE(std::isfinite(r.best_fitness));
  EXPECT_LE(r.best_genes[0], 0);
  EXPECT_GT(r.invalid_evaluations, 0);
  EXPECT_LT(r.invalid_evaluations, 2000);
}

TEST(Api, AllNanFitnessEndsWithAnInfiniteBestAndEveryEvaluationCounted) {
  BatchObjective b = sphere_batch();
  b.host = [](const real_t*, Dim, int rows, Dim, double* out) {
    for (int r = 0; r < rows; ++r) out[r] = -std::numeric_limits<double>::infinity();
  };
  const Result r = optimize(b, small_options(20, 500));
  EXPECT_EQ(r.best_fitness, std::numeric_limits<double>::infinity());
  EXPECT_EQ(r.invalid_evaluations, 500);
}

// One line, naming what is wrong.
void expect_user_error(const BatchObjective& b, const Options& o, const std::string& part) {
  try {
    optimize(b, o);
    ADD_FAILURE() << "no error; expected one mentioning '" << part << "'";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(Api, WrongUseGivesAClearError) {
  const Options o = small_options(100, 200);
  Options no_dim = o;
  no_dim.dim = 0;
  expect_user_error(sphere_batch(), no_dim, "Options::dim = 0");
  BatchObjective fixed = sphere_batch();
  fixed.dim = 50;
  expect_user_error(fixed, o, "defined for 50 variables, Options::dim = 100");
  BatchObjective none = sphere_batch();
  none.host = nullptr;
  expect_user_error(none, o, "neither a host nor a device callback");
  BatchObjective device_only = sphere_batch();
  device_only.host = nullptr;
  device_only.device = [](const real_t*, Dim, int, Dim, double*, DeviceStream) {};
  expect_user_error(device_only, o, "no host callback");
  BatchObjective inverted = sphere_batch();
  inverted.lower = 1.0;
  inverted.upper = -1.0;
  expect_user_error(inverted, o, "lower < upper");
  BatchObjective unnamed = sphere_batch();
  unnamed.name.clear();
  expect_user_error(unnamed, o, "no name");
  Options small_budget = o;
  small_budget.max_evaluations = 5;
  expect_user_error(sphere_batch(), small_budget, "--evals = 5");
  // The dimension a per-gene objective declares.
  struct Fixed : UserGrouped {
    Dim dim() const { return 64; }
  };
  EXPECT_THROW(optimize(Fixed{}, o), UserError);
}

class ApiCheckpoint : public TempDirTest {};

// Run N checkpointed, resumed to 2N = run 2N, as for the CLI (docs/checkpoints.md).
TEST_F(ApiCheckpoint, ResumedRunEndsIdenticalToAnUninterruptedOne) {
  const UserRastrigin user{benchmark_shift(-5.12, 5.12, 3)};
  Options whole = small_options(700, 2400);
  const Result expected = optimize(user, whole);

  Options part = small_options(700, 1200);
  part.checkpoint = path_in_dir("run.h5");
  part.checkpoint_every.evaluations = 300;
  optimize(user, part);
  Options resume = small_options(700, 2400);
  resume.resume_from = part.checkpoint;
  const Result resumed = optimize(user, resume);
  EXPECT_GT(resumed.resumed_at_evaluations, 0);
  EXPECT_EQ(resumed.best_fitness, expected.best_fitness);
  EXPECT_EQ(resumed.best_genes, expected.best_genes);
  EXPECT_EQ(resumed.evaluations.evaluations, 2400);
}

TEST_F(ApiCheckpoint, ResumeRefusesAnotherObjective) {
  Options part = small_options(200, 300);
  part.checkpoint = path_in_dir("run.h5");
  optimize(sphere_batch(), part);
  BatchObjective other = sphere_batch();
  other.name = "cube";
  Options resume = small_options(200, 600);
  resume.resume_from = part.checkpoint;
  expect_user_error(other, resume, "holds a run on 'user:sphere', not on 'user:cube'");
  Options wider = resume;
  wider.dim = 300;
  expect_user_error(sphere_batch(), wider, "has 200 variables");
  Options shorter = resume;
  shorter.max_evaluations = 100;
  expect_user_error(sphere_batch(), shorter, "below the 300 evaluations done");
}

TEST_F(ApiCheckpoint, CheckpointEveryWithoutAFileIsAnError) {
  Options o = small_options(20, 100);
  o.checkpoint_every.seconds = 10.0;
  expect_user_error(sphere_batch(), o, "Options::checkpoint names no file");
}

class ApiCli : public CliTest {};

// The CLI cannot rebuild a user objective: inspect shows the run, resume says where to go.
TEST_F(ApiCli, CliInspectsAUserObjectiveCheckpointAndRefusesToResumeIt) {
  Options o = small_options(40, 100);
  o.checkpoint = path_in_dir("run.h5");
  optimize(sphere_batch(), o);
  const Outcome inspect = chainsaw("inspect '" + o.checkpoint + "'");
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("user:sphere"), std::string::npos) << inspect.out;
  expect_one_line_error(chainsaw("resume '" + o.checkpoint + "'"),
                        "holds a run on the user objective 'sphere': resume it through "
                        "chainsaw::optimize with Options::resume_from");
}

}  // namespace
}  // namespace chainsaw::test
