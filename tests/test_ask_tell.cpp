// The ask/tell optimiser (io/api/ask_tell.hpp) against the batch-callback run of every algorithm,
// its checkpoints, and the initial population of --init, x0 and population= (core/algorithms/
// initial_population.hpp) with the .npy reader (io/npy_file.hpp).
#include <chainsaw/chainsaw.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "core/error.hpp"
#include "io/api/ask_tell.hpp"
#include "io/npy_file.hpp"

namespace chainsaw::test {
namespace {

// A shifted Rastrigin, in double: rows are independent, so a row's value does not depend on the
// batch it comes in.
double shifted_rastrigin(const real_t* x, Dim dim) {
  double s = 0.0;
  for (Dim j = 0; j < dim; ++j) {
    const double z = static_cast<double>(x[j]) - 0.1 * static_cast<double>(j % 7);
    s += z * z - 10.0 * std::cos(2.0 * 3.141592653589793 * z) + 10.0;
  }
  return s;
}

BatchObjective rastrigin_objective(std::vector<int>* batch_rows = nullptr) {
  BatchObjective b;
  b.name = "shifted-rastrigin";
  b.lower = -5.12;
  b.upper = 5.12;
  b.host = [batch_rows](const real_t* genes, Dim pitch, int rows, Dim dim, double* out) {
    if (batch_rows) batch_rows->push_back(rows);
    for (int r = 0; r < rows; ++r) out[r] = shifted_rastrigin(genes + r * pitch, dim);
  };
  return b;
}

Options options_for(AlgorithmKind algorithm, std::int64_t evals) {
  Options o;
  o.algorithm = algorithm;
  o.dim = 12;
  o.max_evaluations = evals;
  o.seed = 7;
  o.backend = Backend::kCpu;
  o.population_size = 12;
  o.batch = 6;
  o.ls_intensity = 60;
  o.de_np = 16;
  o.pso_particles = 14;
  o.ss_population = 20;
  o.ss_ls_iterations = 5;
  return o;
}

// Evaluates what `opt` asks until it is done; the rows per ask() go to `rows`.
void drive(AskTell& opt, std::vector<int>* rows = nullptr) {
  std::vector<double> f;
  for (;;) {
    const std::vector<real_t> asked = opt.ask();
    if (asked.empty()) break;
    const int n = opt.rows();
    if (rows) rows->push_back(n);
    f.resize(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) f[r] = shifted_rastrigin(asked.data() + r * opt.dim(), opt.dim());
    opt.tell(f.data(), n);
  }
  EXPECT_TRUE(opt.done());
}

const std::map<AlgorithmKind, std::string> kAlgorithms = {
    {AlgorithmKind::kMaSwChains, "ma-sw-chains"}, {AlgorithmKind::kDe, "de"},
    {AlgorithmKind::kJde, "jde"}, {AlgorithmKind::kPso, "pso"},
    {AlgorithmKind::kScatterSearch, "ss"}};

void expect_same_result(const Result& a, const Result& b) {
  EXPECT_EQ(a.best_fitness, b.best_fitness);
  EXPECT_EQ(a.best_genes, b.best_genes);
  EXPECT_EQ(a.evaluations.evaluations, b.evaluations.evaluations);
  EXPECT_EQ(a.evaluations.ls_evaluations, b.evaluations.ls_evaluations);
  EXPECT_EQ(a.iterations, b.iterations);
}

TEST(AskTell, EveryAlgorithmGivesTheBatchCallbackRunBitForBit) {
  for (const auto& [algorithm, name] : kAlgorithms) {
    SCOPED_TRACE(name);
    const Options o = options_for(algorithm, 1500);
    std::vector<int> callback_rows, asked_rows;
    const Result callback = optimize(rastrigin_objective(&callback_rows), o);
    AskTell opt(rastrigin_objective(), o);
    drive(opt, &asked_rows);
    const Result asked = opt.result();
    expect_same_result(asked, callback);
    EXPECT_EQ(asked_rows, callback_rows);  // the same batches, in the same order
    EXPECT_EQ(asked.evaluations.evaluations, 1500);
  }
}

// MA-SW-Chains hands out its initial population and every crossover batch whole; only the
// Solis-Wets steps, each of which depends on the one before, come a row at a time.
TEST(AskTell, MaSwChainsAsksForWholeCrossoverBatches) {
  const Options o = options_for(AlgorithmKind::kMaSwChains, 1500);
  AskTell opt(rastrigin_objective(), o);
  std::vector<int> rows;
  drive(opt, &rows);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front(), o.population_size);
  const auto batches = std::count(rows.begin(), rows.end(), o.batch);
  EXPECT_GT(batches, 5);
  for (int n : rows) EXPECT_TRUE(n == 1 || n <= o.batch || n == o.population_size) << n;
  const Result r = opt.result();
  // Every GA evaluation after the initial population came in batches of at most `batch`.
  std::int64_t ga_in_batches = 0;
  for (std::size_t k = 1; k < rows.size(); ++k)
    if (rows[k] > 1) ga_in_batches += rows[k];
  EXPECT_GE(ga_in_batches, (r.evaluations.ga_evaluations - o.population_size) / 2);
}

// A checkpoint saved between two units and loaded into a new optimiser continues the run as if
// it had not stopped.
TEST(AskTell, SaveAndLoadContinueTheRunExactly) {
  for (const auto& [algorithm, name] : kAlgorithms) {
    SCOPED_TRACE(name);
    const Options o = options_for(algorithm, 1500);
    AskTell whole(rastrigin_objective(), o);
    drive(whole);
    const std::string path = ::testing::TempDir() + "ask_tell_" + name + ".h5";
    {
      AskTell first(rastrigin_objective(), o);
      std::vector<double> f;
      int units = 0;
      while (units < 2) {  // Scatter Search's budget holds three iterations
        const std::vector<real_t> asked = first.ask();
        ASSERT_FALSE(asked.empty());
        f.resize(static_cast<std::size_t>(first.rows()));
        for (int r = 0; r < first.rows(); ++r)
          f[r] = shifted_rastrigin(asked.data() + r * first.dim(), first.dim());
        first.tell(f.data(), first.rows());
        if (first.at_safe_point()) ++units;
      }
      first.save(path);
    }  // abandoned: its rows after the checkpoint are never told
    Options resumed = o;
    resumed.resume_from = path;
    AskTell second(rastrigin_objective(), resumed);
    drive(second);
    const Result a = second.result(), b = whole.result();
    EXPECT_EQ(a.best_fitness, b.best_fitness);
    EXPECT_EQ(a.best_genes, b.best_genes);
    EXPECT_EQ(a.evaluations.evaluations, b.evaluations.evaluations);
    EXPECT_EQ(a.evaluations.ls_evaluations, b.evaluations.ls_evaluations);
    std::remove(path.c_str());
  }
}

TEST(AskTell, WrongUseGivesOneLineErrors) {
  const Options o = options_for(AlgorithmKind::kDe, 1000);
  AskTell opt(rastrigin_objective(), o);
  ASSERT_FALSE(opt.ask().empty());
  const std::vector<double> two(2, 1.0);
  EXPECT_THROW(opt.tell(two.data(), 2), UserError);  // 16 rows were asked
  EXPECT_THROW(opt.save("never.h5"), UserError);     // inside a unit
  EXPECT_THROW(opt.result(), UserError);             // not done
  Options cuda = o;
  cuda.backend = Backend::kCuda;
  try {
    AskTell refused_cuda(rastrigin_objective(), cuda);
    ADD_FAILURE() << "the cuda backend was taken";
  } catch (const UserError& e) {
    const std::string what = e.what();  // one line that says why
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_NE(what.find("outside chainsaw, on the host"), std::string::npos) << what;
  }
  Options bad = o;
  bad.de_f = -1.0;
  AskTell refused(rastrigin_objective(), bad);
  EXPECT_THROW(refused.ask(), UserError);  // optimize's own check, from the worker
}

// The given points are the first members, evaluated once each (the first ask() holds them as
// its first rows); the others are drawn.
TEST(InitialPopulation, EveryAlgorithmStartsFromTheGivenPoints) {
  for (const auto& [algorithm, name] : kAlgorithms) {
    SCOPED_TRACE(name);
    Options o = options_for(algorithm, 1000);
    std::vector<double> points(static_cast<std::size_t>(2 * o.dim));
    for (Dim j = 0; j < o.dim; ++j) {
      points[j] = 0.1 * static_cast<double>(j % 7);  // the optimum: f = 0
      points[o.dim + j] = -1.0;
    }
    o.initial_population = std::make_shared<const std::vector<double>>(points);
    AskTell opt(rastrigin_objective(), o);
    const std::vector<real_t> first = opt.ask();
    ASSERT_GE(opt.rows(), 2);
    for (Dim j = 0; j < 2 * o.dim; ++j) EXPECT_EQ(first[j], static_cast<real_t>(points[j]));
    drive(opt);
    const Result r = opt.result();
    EXPECT_EQ(r.evaluations.evaluations, 1000);
    EXPECT_LE(r.best_fitness, shifted_rastrigin(first.data(), o.dim));  // never lost
    EXPECT_LT(r.best_fitness, 1e-3);
  }
}

TEST(InitialPopulation, PointsOutsideTheDomainOrTooManyAreRefused) {
  Options o = options_for(AlgorithmKind::kPso, 1000);
  o.initial_population = std::make_shared<const std::vector<double>>(
      std::vector<double>(static_cast<std::size_t>(o.dim), 9.0));
  EXPECT_THROW(optimize(rastrigin_objective(), o), UserError);
  o.initial_population = std::make_shared<const std::vector<double>>(
      std::vector<double>(static_cast<std::size_t>(15 * o.dim), 0.0));  // 14 particles
  EXPECT_THROW(optimize(rastrigin_objective(), o), UserError);
  o.initial_population = std::make_shared<const std::vector<double>>(
      std::vector<double>(static_cast<std::size_t>(o.dim + 1), 0.0));
  EXPECT_THROW(optimize(rastrigin_objective(), o), UserError);
}

// numpy.save's bytes for np.arange(6, dtype='<f8').reshape(2, 3) (version 1.0, header padded
// to 64 bytes with spaces and a newline).
std::string npy_bytes(const std::string& descr, const std::string& shape, int count,
                      int item_bytes) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  for (int i = 0; i < count; ++i) {
    if (item_bytes == 8) {
      const double v = i;
      out.append(reinterpret_cast<const char*>(&v), 8);
    } else {
      const float v = static_cast<float>(i);
      out.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  return out;
}

TEST(NpyFile, ReadsFloat64AndFloat32RowsAndRefusesOthers) {
  const std::string path = ::testing::TempDir() + "init.npy";
  auto write = [&](const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; };
  write(npy_bytes("<f8", "(2, 3)", 6, 8));
  NpyArray a = read_npy_file("--init", path);
  EXPECT_EQ(a.rows, 2);
  EXPECT_EQ(a.columns, 3);
  EXPECT_EQ(a.values, (std::vector<double>{0, 1, 2, 3, 4, 5}));
  write(npy_bytes("<f4", "(4,)", 4, 4));
  a = read_npy_file("--init", path);
  EXPECT_EQ(a.rows, 1);
  EXPECT_EQ(a.columns, 4);
  EXPECT_EQ(a.values, (std::vector<double>{0, 1, 2, 3}));
  write(npy_bytes("<i8", "(2,)", 2, 8));
  EXPECT_THROW(read_npy_file("--init", path), UserError);
  write(npy_bytes("<f8", "(3, 3)", 6, 8));  // cut short
  EXPECT_THROW(read_npy_file("--init", path), UserError);
  write("not numpy");
  EXPECT_THROW(read_npy_file("--init", path), UserError);
  std::remove(path.c_str());
}

class InitCli : public CliTest {};

// --init FILE and the one --population flag on the command line.
TEST_F(InitCli, InitStartsEveryAlgorithmFromTheFileAndPopulationSetsItsSize) {
  const std::string path = out_path("x0.npy");
  std::ofstream(path, std::ios::binary) << npy_bytes("<f8", "(2, 3)", 6, 8);
  for (const std::string algorithm : {"ma-sw-chains", "de", "pso", "ss"}) {
    const Outcome o = chainsaw("run -q --backend cpu --function sphere --dim 3 --evals 400 "
                               "--population 20 --algorithm " + algorithm + " --init " + path);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const nlohmann::json j = nlohmann::json::parse(o.out);
    EXPECT_EQ(j["config"]["algorithm"], algorithm);
  }
  const Outcome wrong = chainsaw("run --function sphere --dim 4 --evals 400 --init " + path);
  expect_one_line_error(wrong, "points of 3 variables for D = 4");
  const Outcome clash =
      chainsaw("run --function sphere --dim 3 --algorithm de --population 20 --de-np 30");
  expect_one_line_error(clash, "--population = 20 and --de-np = 30");
  const Outcome de = chainsaw("run -q --backend cpu --function sphere --dim 3 --evals 400 "
                              "--algorithm de --population 20");
  ASSERT_EQ(de.exit_code, 0) << de.err;
  EXPECT_EQ(nlohmann::json::parse(de.out)["config"]["de_np"], 20);
}

}  // namespace
}  // namespace chainsaw::test
