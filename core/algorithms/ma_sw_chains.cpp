#include "core/algorithms/ma_sw_chains.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/algorithms/initial_population.hpp"
#include "core/error.hpp"
#include "localsearch/ls_chain.hpp"
#include "ssga/ssga.hpp"

namespace chainsaw {

// n solves n_LS + I_str = r (n_GA + n + n_LS + I_str). The reference code's calculateFrec has
// r and 1 - r the other way round because its `effort` is the GA's share, not the LS's.
std::int64_t ssga_evaluations_for_ratio(std::int64_t ga_evaluations, std::int64_t ls_evaluations,
                                        std::int64_t ls_intensity, double ls_ratio) {
  if (ls_ratio <= 0.0) return std::numeric_limits<std::int64_t>::max();  // no LS: all to the GA
  const double total_after_ls = static_cast<double>(ga_evaluations + ls_evaluations + ls_intensity);
  return static_cast<std::int64_t>(
      std::floor(((1.0 - ls_ratio) * total_after_ls - static_cast<double>(ga_evaluations)) /
                 ls_ratio));
}

MaSwChains::MaSwChains(const Config& config, const Problem& problem, Engine& engine)
    : Algorithm(config, problem),
      engine_(engine),
      population_(config.population_size, config.batch),
      rng_(derive_key(config.seed, static_cast<std::uint64_t>(RngPurpose::kHostDecisions))) {}

MaSwChains::MaSwChains(const Config& config, const Problem& problem,
                       std::unique_ptr<Engine> engine)
    : Algorithm(config, problem),
      owned_engine_(std::move(engine)),
      engine_(*owned_engine_),
      population_(config.population_size, config.batch),
      rng_(derive_key(config.seed, static_cast<std::uint64_t>(RngPurpose::kHostDecisions))) {}

// The given points (--init) take slots 0 .. k-1 and are evaluated on the host in one batch; the
// engine draws and evaluates the other slots as it draws a whole population.
void MaSwChains::initialize_population() {
  const int given = initial_rows(config_);
  std::vector<int> slots;
  for (int i = given; i < population_.size(); ++i) slots.push_back(i);
  std::vector<double> fitness(static_cast<size_t>(population_.size()));
  {
    ScopedPhase timer(timers_, Phase::kInitialization);
    if (given > 0) {
      const std::vector<real_t> genes = initial_genes(config_, problem_);
      for (int i = 0; i < given; ++i)
        engine_.write_slot_array(SlotArray::kGenes, i, 0, problem_.dim,  // no evaluation
                                 genes.data() + static_cast<Dim>(i) * problem_.dim);
      invalid_ += evaluate_rows_on_host(problem_, genes.data(), given, fitness.data());
    }
    if (!slots.empty()) engine_.initialize(slots, fitness.data() + given);
  }
  for (int i = 0; i < population_.size(); ++i) population_.fitness(i) = fitness[i];
  if (given > 0) engine_.restore_fitness(population_.all_fitness().data());
  {
    ScopedPhase timer(timers_, Phase::kSort);
    engine_.sort_slots(population_.order().data());
  }
  counters_.evaluations += population_.size();
  counters_.ga_evaluations += population_.size();
  record_milestones(0.0, nullptr, population_.size());
  begin_round();
}

std::int64_t MaSwChains::unit_limit() const {
  for (std::int64_t m : config_.milestones)
    if (m > counters_.evaluations) return std::min(m, config_.max_evaluations);
  return config_.max_evaluations;
}

void MaSwChains::record_milestones(double kept_best, const double* fresh, std::int64_t count) {
  const std::int64_t done = counters_.evaluations, before = done - count;
  for (std::int64_t m : config_.milestones) {
    if (m <= before || m > done) continue;
    double best = population_.best_fitness();
    if (m < done) {  // inside a restart: the kept best, then its new members up to the mark
      CHAINSAW_EXPECTS(fresh != nullptr, "a unit crossed a milestone instead of ending there");
      best = kept_best;
      for (std::int64_t k = 0; k < m - before; ++k) best = std::min(best, fresh[k]);
    }
    milestones_.push_back({m, elapsed_seconds(), best});
  }
}

// 2a's n_frec, not cut at the budget, so that the state between units does not depend on it.
// With r = 0 the rule gives the GA everything.
void MaSwChains::begin_round() {
  ga_phase_left_ = std::max<std::int64_t>(
      0, ssga_evaluations_for_ratio(counters_.ga_evaluations, counters_.ls_evaluations,
                                    config_.ls_intensity, config_.ls_ratio));
  stage_ = ga_phase_left_ > 0 ? LoopStage::kGeneticAlgorithm : LoopStage::kLocalSearch;
}

bool MaSwChains::next_unit_cut_by_budget() const {
  const std::int64_t left = config_.max_evaluations - counters_.evaluations;
  if (stage_ == LoopStage::kGeneticAlgorithm)
    return left < std::min<std::int64_t>(population_.batch(), ga_phase_left_);
  // A restart after the LS is skipped when the budget cannot pay for it.
  return left < config_.ls_intensity ||
         (config_.restart && left - config_.ls_intensity < population_.size() - 1);
}

void MaSwChains::advance_unit(std::int64_t left) {
  last_unit_ended_round_ = stage_ == LoopStage::kLocalSearch;
  milestones_before_unit_ = milestones_.size();
  if (stage_ == LoopStage::kGeneticAlgorithm) {
    // 2a. One crossover batch of the SSGA phase.
    const auto children = static_cast<int>(std::min<std::int64_t>(
        {static_cast<std::int64_t>(population_.batch()), ga_phase_left_, left,
         unit_limit() - counters_.evaluations}));
    SsgaContext ctx{config_, problem_, population_, engine_, rng_, timers_};
    const std::int64_t spent = ssga_batch(ctx, children);
    counters_.evaluations += spent;
    counters_.ga_evaluations += spent;
    record_milestones(0.0, nullptr, spent);
    ga_phase_left_ -= spent;
    if (ga_phase_left_ <= 0) stage_ = LoopStage::kLocalSearch;
    return;
  }
  local_search_unit();
  begin_round();
}

void MaSwChains::step() {
  if (done()) return;
  // A round ends with its LS application; with r = 0 there is none and the GA takes the rest.
  do {
    const bool ends_round = stage_ == LoopStage::kLocalSearch;
    advance();
    if (ends_round) return;
  } while (!done());
}

// 2b-2c. Choose the LS individual and continue its Solis-Wets chain for I_str evaluations.
void MaSwChains::local_search_unit() {
  const std::int64_t ls_budget =
      std::min(config_.ls_intensity, unit_limit() - counters_.evaluations);
  LsChoice choice;
  {
    ScopedPhase timer(timers_, Phase::kSelection);
    choice = choose_ls_individual(population_, rng_);
  }
  LsContext ctx{config_, problem_, population_, engine_, timers_};
  const LsApplication app = apply_local_search(ctx, choice.slot, ls_budget);
  counters_.evaluations += app.evaluations;
  counters_.ls_evaluations += app.evaluations;
  ++counters_.ls_applications;
  record_milestones(0.0, nullptr, app.evaluations);
  if (!choice.from_s_ls) {
    ++counters_.ls_random_choices;
    if (config_.restart && app.fitness_after >= app.fitness_before) restart_population();
  }
}

// The reference code's option for a stagnated population (S_LS empty and the LS of a random
// member did not improve it): keep the best, draw the others anew. Skipped when the budget left
// cannot pay for the new individuals.
void MaSwChains::restart_population() {
  const int n = population_.size();
  if (config_.max_evaluations - counters_.evaluations < n - 1) return;
  const double kept_best = population_.best_fitness();
  std::vector<int> slots;
  for (int rank = 1; rank < n; ++rank) slots.push_back(population_.member(rank));
  std::vector<double> fitness(slots.size());
  {
    ScopedPhase timer(timers_, Phase::kInitialization);
    engine_.initialize(slots, fitness.data());
  }
  for (size_t i = 0; i < slots.size(); ++i) {
    population_.fitness(slots[i]) = fitness[i];
    population_.chain(slots[i]) = ChainRecord{};
  }
  population_.chain(population_.best_slot()).ls_failed = false;
  {
    ScopedPhase timer(timers_, Phase::kSort);
    engine_.sort_slots(population_.order().data());
  }
  counters_.evaluations += n - 1;
  counters_.ga_evaluations += n - 1;
  ++counters_.restarts;
  record_milestones(kept_best, fitness.data(), n - 1);
}

double MaSwChains::immigrate(const real_t* genes) {
  const int slot = population_.member(population_.size() - 1);
  engine_.write_genes(slot, genes);
  population_.fitness(slot) = engine_.fitness(slot);
  population_.chain(slot) = ChainRecord{};
  engine_.sort_slots(population_.order().data());
  return population_.fitness(slot);
}

std::vector<real_t> MaSwChains::best_genes() const {
  std::vector<real_t> genes(static_cast<std::size_t>(problem_.dim));
  engine_.read_genes(population_.best_slot(), genes.data());
  return genes;
}

void MaSwChains::set_profile(KernelProfile* profile) {
  Algorithm::set_profile(profile);
  engine_.set_profile(profile);
}

void MaSwChains::flush_profile() { engine_.flush_profile(); }

RunResult MaSwChains::result() {
  RunResult r = Algorithm::result();
  r.best_slot = population_.best_slot();
  r.distance_to_optimum = engine_.distance_to_optimum(r.best_slot);
  r.milestones = milestones_;
  return r;
}

LoopState MaSwChains::loop_state() const {
  LoopState s;
  s.counters = counters_;
  s.timers = timers_;
  s.rng_state = rng_.state();
  s.rng_has_spare = rng_.has_spare();
  s.rng_spare = rng_.spare();
  s.stage = stage_;
  s.ga_phase_left = ga_phase_left_;
  s.elapsed_seconds = elapsed_seconds();
  return s;
}

void MaSwChains::restore(const Population& population, const LoopState& state) {
  CHAINSAW_EXPECTS(population.size() == population_.size() &&
                       population.batch() == population_.batch(),
                   "restored population of another shape");
  population_ = population;
  counters_ = state.counters;
  timers_ = state.timers;
  rng_.restore(state.rng_state, state.rng_has_spare, state.rng_spare);
  stage_ = state.stage;
  ga_phase_left_ = state.ga_phase_left;
  set_elapsed_seconds(state.elapsed_seconds);
  mark_initialized();
  check_stop();  // a resumed run meets its stopping rules before its first unit
}

}  // namespace chainsaw
