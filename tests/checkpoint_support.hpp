// Bit-exact resume, for any backend: run a configuration uninterrupted, and run it again with a
// stop at a chosen safe point, a checkpoint, and a resume in a new engine from the file alone.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/engines/engine.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "fitness/problem.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/instance_file.hpp"

namespace chainsaw::test {

using EngineFactory = std::function<std::unique_ptr<Engine>(const Config&, const Problem&)>;

// The end state of a run that a resume must reproduce bit for bit.
struct FinalState {
  RunCounters counters;
  std::vector<double> fitness;  // every slot
  std::vector<int> order;
  std::vector<real_t> best_genes;
  std::vector<real_t> best_bias;
};

inline FinalState final_state(MaSwChains& algorithm) {
  FinalState s;
  s.counters = algorithm.counters();
  s.fitness = algorithm.population().all_fitness();
  s.order = algorithm.population().order();
  const Dim dim = algorithm.config().dim;
  const int best = algorithm.population().best_slot();
  s.best_genes.resize(static_cast<size_t>(dim));
  s.best_bias.resize(static_cast<size_t>(dim));
  algorithm.engine().read_slot_array(SlotArray::kGenes, best, 0, dim, s.best_genes.data());
  algorithm.engine().read_slot_array(SlotArray::kBias, best, 0, dim, s.best_bias.data());
  return s;
}

inline void expect_identical(const FinalState& a, const FinalState& b) {
  EXPECT_EQ(a.counters.evaluations, b.counters.evaluations);
  EXPECT_EQ(a.counters.ls_evaluations, b.counters.ls_evaluations);
  EXPECT_EQ(a.counters.ls_applications, b.counters.ls_applications);
  EXPECT_EQ(a.counters.restarts, b.counters.restarts);
  ASSERT_EQ(a.fitness.size(), b.fitness.size());
  EXPECT_EQ(0, std::memcmp(a.fitness.data(), b.fitness.data(), a.fitness.size() * sizeof(double)))
      << "best " << a.fitness[a.order[0]] << " vs " << b.fitness[b.order[0]];
  EXPECT_EQ(a.order, b.order);
  ASSERT_EQ(a.best_genes.size(), b.best_genes.size());
  EXPECT_EQ(0, std::memcmp(a.best_genes.data(), b.best_genes.data(),
                           a.best_genes.size() * sizeof(real_t)));
  EXPECT_EQ(0, std::memcmp(a.best_bias.data(), b.best_bias.data(),
                           a.best_bias.size() * sizeof(real_t)));
}

// The run's problem as the CLI builds it (config.instance read when given).
inline Problem problem_of_run(const Config& config) {
  return make_problem(config);
}

inline FinalState run_uninterrupted(const Config& config, const EngineFactory& make) {
  const Problem problem = problem_of_run(config);
  const auto engine = make(config, problem);
  MaSwChains algorithm(config, problem, *engine);
  algorithm.run();
  return final_state(algorithm);
}

// Where the interrupted run stopped.
struct StopPoint {
  bool stopped = false;
  LoopState state;
  bool next_ls_continues_a_chain = false;  // the LS individual has a chain (rho, bias) to go on
};

// Runs `config` until `stop_here` says so at a safe point, writes a checkpoint to `path` and
// drops the whole run; then builds a new engine and host loop from the file's configuration and
// problem (with `resume_budget` evaluations) and runs them to the end.
inline FinalState run_interrupted(const Config& config, const EngineFactory& make,
                                  const std::string& path,
                                  const std::function<bool(const MaSwChains&)>& stop_here,
                                  Backend backend, std::int64_t resume_budget, StopPoint& stop) {
  {
    const Problem problem = problem_of_run(config);
    const auto engine = make(config, problem);
    MaSwChains algorithm(config, problem, *engine);
    algorithm.run({}, [&](Algorithm& any) {
      auto& a = static_cast<MaSwChains&>(any);
      if (!stop_here(a)) return true;
      stop.stopped = true;
      stop.state = a.loop_state();
      const Population& pop = a.population();
      for (int rank = 0; rank < pop.size(); ++rank) {
        const ChainRecord& c = pop.chain(pop.member(rank));
        if (c.ls_failed) continue;
        stop.next_ls_continues_a_chain = c.has_chain;
        break;
      }
      write_checkpoint("--checkpoint", path, a, backend, "test");
      return false;
    });
  }
  const CheckpointHeader header = read_checkpoint_header(path);
  Config resumed = header.config;
  resumed.max_evaluations = resume_budget;
  // As `chainsaw resume`: the checkpoint's embedded instance, if it has one.
  const Problem problem = checkpoint_problem(header);
  const auto engine = make(resumed, problem);
  MaSwChains algorithm(resumed, problem, *engine);
  load_checkpoint(path, algorithm);
  algorithm.run();
  return final_state(algorithm);
}

// A stop inside an SSGA phase: a GA unit follows a GA unit, after at least one LS application.
inline std::function<bool(const MaSwChains&)> stop_inside_ga_phase(std::int64_t after) {
  auto previous_was_ga = std::make_shared<bool>(false);
  return [=](const MaSwChains& a) {
    const LoopState s = a.loop_state();
    const bool ga = s.stage == LoopStage::kGeneticAlgorithm;
    const bool inside = ga && *previous_was_ga;
    *previous_was_ga = ga;
    return inside && s.counters.ls_applications >= 1 && s.counters.evaluations >= after;
  };
}

// A stop before an LS application that continues a stored Solis-Wets chain.
inline std::function<bool(const MaSwChains&)> stop_inside_chain(std::int64_t after) {
  return [=](const MaSwChains& a) {
    const LoopState s = a.loop_state();
    if (s.stage != LoopStage::kLocalSearch || s.counters.evaluations < after) return false;
    const Population& pop = a.population();
    for (int rank = 0; rank < pop.size(); ++rank) {
      const ChainRecord& c = pop.chain(pop.member(rank));
      if (!c.ls_failed) return c.has_chain;
    }
    return false;
  };
}

}  // namespace chainsaw::test
