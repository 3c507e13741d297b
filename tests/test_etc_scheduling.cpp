// Independent-task scheduling on an ETC matrix (Kromer et al. §4.1, docs/functions.md "Task
// scheduling"): Braun's generator per class, the fitness against a hand-computed case and a
// float64 reference, ETC matrix files, the options, and a DE run from the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_support.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "fitness/problem.hpp"
#include "fitness/scheduling/etc_scheduling.hpp"
#include "io/instance_file.hpp"

namespace chainsaw::test {
namespace {

std::vector<EtcClass> every_class() {
  std::vector<EtcClass> classes;
  for (const char* name : {"u_c_hihi", "u_c_hilo", "u_c_lohi", "u_c_lolo", "u_i_hihi", "u_i_hilo",
                           "u_i_lohi", "u_i_lolo", "u_s_hihi", "u_s_hilo", "u_s_lohi", "u_s_lolo"})
    classes.push_back(parse_etc_class("--etc-class", name));
  return classes;
}

double at(const EtcInstance& inst, std::int64_t t, int i) {
  return inst.etc[static_cast<std::size_t>(t * inst.machines + i)];
}

// f by the definition, in float64: each machine's tasks sorted by their time there, completion
// times their running sums.
double reference_fitness(const EtcInstance& inst, const real_t* genes) {
  std::vector<std::vector<double>> times(static_cast<std::size_t>(inst.machines));
  for (std::int64_t t = 0; t < inst.tasks; ++t) {
    const double g = static_cast<double>(genes[t]);
    const int i = std::min(inst.machines - 1, std::max(0, static_cast<int>(std::floor(g))));
    times[static_cast<std::size_t>(i)].push_back(at(inst, t, i));
  }
  double makespan = 0.0, flowtime = 0.0;
  for (auto& machine : times) {
    std::sort(machine.begin(), machine.end());
    double completion = 0.0;
    for (double e : machine) {
      completion += e;
      if (inst.flowtime_kind == EtcFlowtime::kCompletionTimes) flowtime += completion;
    }
    if (inst.flowtime_kind == EtcFlowtime::kLoads) flowtime += completion;  // the load
    makespan = std::max(makespan, completion);
  }
  return inst.lambda * makespan + (1.0 - inst.lambda) * flowtime / inst.machines;
}

TEST(EtcClass, BothNamingsNameTheTwelveClasses) {
  std::set<std::string> braun, paper;
  for (const EtcClass& c : every_class()) {
    braun.insert(c.braun_name());
    paper.insert(c.paper_name());
    EXPECT_EQ(parse_etc_class("--etc-class", c.paper_name()).braun_name(), c.braun_name());
  }
  EXPECT_EQ(braun.size(), 12u);
  EXPECT_EQ(paper.size(), 12u);
  EXPECT_EQ(parse_etc_class("f", "ThMlCs").braun_name(), "u_s_hilo");
  EXPECT_EQ(parse_etc_class("f", "tlmhci").braun_name(), "u_i_lohi");
  EXPECT_THROW(parse_etc_class("--etc-class", "u_x_hihi"), UserError);
}

TEST(EtcGenerator, EntriesLieInBraunsRangesPerClass) {
  for (const EtcClass& c : every_class()) {
    SCOPED_TRACE(c.braun_name());
    const EtcInstance inst = EtcInstance::generate(c, 512, 16, 0.75, 17);
    const double phi_b = c.task_range(), phi_r = c.machine_range();
    double sum = 0.0;
    for (std::int64_t t = 0; t < inst.tasks; ++t) {
      double lo = at(inst, t, 0), hi = lo;
      for (int i = 0; i < 16; ++i) {
        const double e = at(inst, t, i);
        ASSERT_GE(e, 1.0);
        ASSERT_LT(e, phi_b * phi_r);
        lo = std::min(lo, e);
        hi = std::max(hi, e);
        sum += e;
      }
      // A row is one task's base time times U[1, phi_r): machine heterogeneity bounds its spread.
      ASSERT_LT(hi / lo, phi_r);
    }
    // E[tau U] = (1 + phi_b)/2 (1 + phi_r)/2; 512 tasks put the mean within ~3% (1 sigma).
    const double expected = 0.25 * (1.0 + phi_b) * (1.0 + phi_r);
    EXPECT_NEAR(sum / (512.0 * 16.0) / expected, 1.0, 0.12);
  }
}

TEST(EtcGenerator, ConsistencyIsExactAsBraunDefinesIt) {
  for (const EtcClass& c : every_class()) {
    SCOPED_TRACE(c.braun_name());
    const EtcInstance inst = EtcInstance::generate(c, 512, 16, 0.75, 3);
    int rows_sorted = 0, odd_columns_sorted = 0;
    for (std::int64_t t = 0; t < inst.tasks; ++t) {
      bool sorted = true, even_sorted = true, odd_sorted = true;
      for (int i = 1; i < 16; ++i) sorted = sorted && at(inst, t, i - 1) <= at(inst, t, i);
      for (int i = 2; i < 16; i += 2) even_sorted = even_sorted && at(inst, t, i - 2) <= at(inst, t, i);
      for (int i = 3; i < 16; i += 2) odd_sorted = odd_sorted && at(inst, t, i - 2) <= at(inst, t, i);
      rows_sorted += sorted;
      odd_columns_sorted += odd_sorted;
      if (c.consistency != EtcConsistency::kInconsistent) {
        ASSERT_TRUE(even_sorted) << "task " << t;
      }
    }
    switch (c.consistency) {
      case EtcConsistency::kConsistent:  // machine j faster than k on one task: on all of them
        EXPECT_EQ(rows_sorted, 512);
        break;
      case EtcConsistency::kSemiConsistent:  // even columns consistent, odd ones not in general
        EXPECT_EQ(rows_sorted, 0);
        EXPECT_LT(odd_columns_sorted, 3);  // 8 drawn values are in order with probability 1/8!
        break;
      case EtcConsistency::kInconsistent:
        EXPECT_EQ(rows_sorted, 0);
        break;
    }
  }
}

TEST(EtcGenerator, SameSeedSameMatrixOtherSeedOther) {
  const EtcClass c = parse_etc_class("f", "u_i_hihi");
  const EtcInstance a = EtcInstance::generate(c, 300, 7, 0.75, 5);
  EXPECT_EQ(a.etc, EtcInstance::generate(c, 300, 7, 0.75, 5).etc);
  EXPECT_NE(a.etc, EtcInstance::generate(c, 300, 7, 0.75, 6).etc);
}

TEST(EtcFitness, HandComputedSchedule) {
  // 4 tasks x 2 machines. Genes: tasks 0, 1, 3 on machine 0, task 2 on machine 1 (the domain's
  // top edge, 2.0, is the last machine). Machine 0 runs t1 (1), t3 (2), t0 (3): completions 1,
  // 3, 6; machine 1 runs t2 (1): completion 1. makespan 6, flowtime 11.
  const EtcInstance inst = EtcInstance::from_matrix({3, 5, 1, 2, 4, 1, 2, 6}, 4, 2, 0.75);
  const std::vector<real_t> genes = {0.5f, 0.99f, 2.0f, 0.0f};
  double makespan = 0.0, flowtime = 0.0;
  inst.schedule_times(genes.data(), makespan, flowtime);
  EXPECT_EQ(makespan, 6.0);
  EXPECT_EQ(flowtime, 11.0);
  EXPECT_DOUBLE_EQ(inst.evaluate(genes.data()), 0.75 * 6.0 + 0.25 * 11.0 / 2.0);
  const EtcInstance half = EtcInstance::from_matrix({3, 5, 1, 2, 4, 1, 2, 6}, 4, 2, 0.5);
  EXPECT_DOUBLE_EQ(half.evaluate(genes.data()), 3.0 + 2.75);
  // Everything on machine 1: 5, 2, 1, 6 -> 1, 3, 8, 14: makespan 14, flowtime 26.
  const std::vector<real_t> all_on_1 = {1.0f, 1.5f, 1.25f, 1.999f};
  EXPECT_DOUBLE_EQ(inst.evaluate(all_on_1.data()), 0.75 * 14.0 + 0.25 * 26.0 / 2.0);
  // The paper's reading: flowtime is the sum of the loads, 6 + 1 and 14 + 0.
  const EtcInstance loads =
      EtcInstance::from_matrix({3, 5, 1, 2, 4, 1, 2, 6}, 4, 2, 0.75, EtcFlowtime::kLoads);
  loads.schedule_times(genes.data(), makespan, flowtime);
  EXPECT_EQ(makespan, 6.0);
  EXPECT_EQ(flowtime, 7.0);
  EXPECT_DOUBLE_EQ(loads.evaluate(genes.data()), 0.75 * 6.0 + 0.25 * 7.0 / 2.0);
  EXPECT_DOUBLE_EQ(loads.evaluate(all_on_1.data()), 0.75 * 14.0 + 0.25 * 14.0 / 2.0);
}

TEST(EtcFitness, MatchesAFloat64ReferenceAtRandomSchedules) {
  for (const char* name : {"u_c_hihi", "u_i_lolo", "u_s_lohi"}) {
    for (int machines : {16, 3}) {
      const char* flowtime = machines == 3 ? "loads" : "completion";
      SCOPED_TRACE(std::string(name) + " m=" + std::to_string(machines) + " " + flowtime);
      const Problem p = Problem::make("etc", 700, 9, nullptr, {name, machines, 0.6, flowtime});
      EXPECT_EQ(etc_flowtime_name(p.etc->flowtime_kind), std::string(flowtime));
      ASSERT_TRUE(p.is_external());
      EXPECT_EQ(p.lower, 0.0);
      EXPECT_EQ(p.upper, machines);
      const int rows = 6;
      std::vector<real_t> genes(static_cast<std::size_t>(rows * p.dim));
      CounterRng rng(42);
      for (real_t& g : genes) g = static_cast<real_t>(machines * rng.uniform());
      genes[0] = static_cast<real_t>(machines);  // the top edge
      std::vector<double> f(rows);
      p.external->host(genes.data(), p.dim, rows, p.dim, f.data());
      for (int r = 0; r < rows; ++r) {
        const double want = reference_fitness(*p.etc, genes.data() + r * p.dim);
        EXPECT_NEAR(f[static_cast<std::size_t>(r)], want, 1e-12 * want);
        EXPECT_GT(want, 0.0);
      }
    }
  }
}

TEST(EtcProblem, NamesItsOptimumUnknownAndChecksItsOptions) {
  const Problem p = Problem::make("etc", 512, 1);
  EXPECT_EQ(p.etc->machines, 16);
  EXPECT_EQ(p.etc->lambda, 0.75);
  EXPECT_TRUE(std::isnan(p.optimum_value));
  EXPECT_FALSE(p.optimum_position_known());
  Config c;
  c.function = "etc";
  c.dim = 512;
  c.etc_machines = 0;
  EXPECT_THROW(c.validate(), UserError);
  c.etc_machines = 16;
  c.etc_lambda = 1.5;
  EXPECT_THROW(c.validate(), UserError);
  c.etc_lambda = 0.75;
  c.etc_class = "hihi";
  EXPECT_THROW(c.validate(), UserError);
  c.etc_class = "TlMhCi";
  EXPECT_NO_THROW(c.validate());
  c.etc_flowtime = "sum";
  EXPECT_THROW(c.validate(), UserError);
  c.etc_flowtime = "loads";
  EXPECT_NO_THROW(c.validate());
  EXPECT_EQ(make_problem(c).etc->flowtime_kind, EtcFlowtime::kLoads);
}

class EtcFile : public TempDirTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  Config config(const std::string& file, Dim tasks, int machines) {
    Config c;
    c.function = "etc";
    c.dim = tasks;
    c.etc_machines = machines;
    c.instance = file;
    return c;
  }
  // The UserError of make_problem, or "" when it succeeds.
  std::string error_of(const Config& c) {
    try {
      make_problem(c);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(EtcFile, ABraunStyleFileGivesTheGeneratedProblemBack) {
  const Problem generated = Problem::make("etc", 40, 4, nullptr, {"u_s_hilo", 4, 0.75});
  std::string text = "# 40 tasks x 4 machines, task-major\n";
  for (double e : generated.etc->etc) text += fmt::format("{:.17g}\n", e);
  const Problem read = make_problem(config(write("m.txt", text), 40, 4));
  EXPECT_EQ(read.etc->etc, generated.etc->etc);
  EXPECT_EQ(read.etc->order, generated.etc->order);
}

TEST_F(EtcFile, BadFilesGiveOneErrorLine) {
  const std::string six = "1 2 3\n4 5 6\n";
  EXPECT_EQ(error_of(config(write("ok.txt", six), 3, 2)), "");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {config((dir_ / "missing.txt").string(), 3, 2).instance, "cannot be opened"},
      {write("word.txt", "1 2 3\n4 five 6\n"), "line 2: 'five' is not a number"},
      {write("negative.txt", "1 2 3\n4 -5 6\n"), "line 2: -5 is not a positive finite time"},
      {write("zero.txt", "1 2 0\n4 5 6\n"), "line 1: 0 is not a positive finite time"},
      {write("nan.txt", "1 2 nan\n4 5 6\n"), "is not a positive finite time"},
      {write("short.txt", "1 2 3\n4 5\n"), "holds 5 values, 3 tasks x 2 machines"},
      {write("long.txt", "1 2 3\n4 5 6 7\n"), "holds more than 3 tasks x 2 machines"},
      {dir_.string(), "not a regular file"},
  };
  for (const auto& [path, message] : cases) {
    const std::string e = error_of(config(path, 3, 2));
    EXPECT_NE(e.find("--instance = " + path + ": "), std::string::npos) << e;
    EXPECT_NE(e.find(message), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

class EtcCli : public CliTest {};

TEST_F(EtcCli, DifferentialEvolutionImprovesOnTheInitialPopulation) {
  const Outcome o = chainsaw(
      "run -q --backend cpu --function etc --etc-class TlMlCs --etc-machines 8 --dim 64 "
      "--algorithm de --de-np 32 --evals 4000 --seed 3");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["config"]["etc_class"], "TlMlCs");
  EXPECT_EQ(j["config"]["etc_machines"], 8);
  EXPECT_EQ(j["config"]["etc_flowtime"], "completion");
  EXPECT_TRUE(j["best_error"].is_null());  // no known optimum
  const double first = j["trace"][0][2].get<double>();
  EXPECT_LT(j["best_fitness"].get<double>(), 0.95 * first);
}

TEST_F(EtcCli, BraunsSizeIsTheDefaultAndBadValuesGiveOneErrorLine) {
  const Outcome o = chainsaw("run -q --backend cpu --function etc --algorithm de --evals 300");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out)["config"]["dim"], 512);
  const std::string base = "run --backend cpu --function etc --evals 1000 ";
  expect_one_line_error(chainsaw(base + "--etc-class u_q_hihi"), "--etc-class = u_q_hihi");
  expect_one_line_error(chainsaw(base + "--etc-machines 0"), "--etc-machines = 0");
  expect_one_line_error(chainsaw(base + "--etc-lambda 2"), "--etc-lambda");
  expect_one_line_error(chainsaw(base + "--etc-flowtime sum"), "--etc-flowtime = sum");
  const std::string bad = out_path("bad.txt");
  std::ofstream(bad) << "1 2 x\n";
  expect_one_line_error(chainsaw(base + "--dim 3 --etc-machines 1 --instance " + bad),
                        "'x' is not a number");
}

}  // namespace
}  // namespace chainsaw::test
