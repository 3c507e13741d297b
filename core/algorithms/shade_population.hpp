// The population of SHADE (Tanabe & Fukunaga 2013) and L-SHADE (Tanabe & Fukunaga 2014), shared
// by the shade, lshade and shade-ils algorithms: the individuals, the success-history memories
// M_F and M_CR (H entries each), the external archive A, and one generation of
// current-to-pbest/1/bin with its selection and memory update.
//
// A generation: individual i draws a memory slot r_i, CR_i ~ N(M_CR[r_i], 0.1) clipped to
// [0, 1] and F_i ~ Cauchy(M_F[r_i], 0.1) (redrawn while <= 0, cut at 1); then
//   v = x_i + F_i (x_pbest - x_i) + F_i (x_r1 - x~_r2),
// x_pbest uniform among the round(p N) best (at least 2), r1 from P \ {i}, r2 from (P u A) \ {i, r1};
// a mutant gene outside the domain becomes the midpoint between x_i's gene and the bound;
// binomial crossover with j_rand. Every trial is made from the generation's population (one
// keyed stream per individual and generation, so the thread count changes nothing), then, in
// index order, u_i replaces x_i when f(u_i) <= f(x_i); a strict improvement sends x_i to the
// archive (a random member is replaced once it is full) and F_i, CR_i with the weight
// |f(u_i) - f(x_i)| to S_F, S_CR. Memory slot k (cycling) becomes the weighted Lehmer mean of
// S_F and the weighted mean of S_CR (SHADE), or the weighted Lehmer mean of S_CR (L-SHADE, whose
// slot turns terminal, CR = 0 for good, once max S_CR = 0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.hpp"
#include "core/types.hpp"

namespace chainsaw {

// Stream purposes of the SHADE family, beside population_ops.hpp's (101..106).
enum class ShadePurpose : std::uint64_t {
  kInitial = 121,     // an initial (or restarted) individual
  kTrial = 122,       // a trial vector: one stream per (generation, individual)
  kArchive = 123,     // archive replacements of a generation
  kMtsOrder = 124,    // MTS-LS1's first pass: one stream per application
  kRestart = 125,     // SHADE-ILS: the restart's individual and its perturbation
  kMethodOrder = 126  // SHADE-ILS: the order in which the pools first try their methods
};

std::uint64_t shade_key(std::uint64_t seed, ShadePurpose purpose, std::uint64_t operation,
                        std::uint64_t index);

struct ShadeSettings {
  int memory_size = 100;       // H
  double archive_rate = 1.0;   // |A| = rate x N
  bool lshade = false;         // L-SHADE's memory rules (Lehmer mean of S_CR, terminal CR)
  bool fixed_p = false;        // p = p (L-SHADE) rather than p_i uniform in [2/N, p_max]
  double p = 0.11;
  double p_max = 0.2;
};

// The terminal value of an M_CR slot (L-SHADE's ⊥): every CR drawn from it is 0.
inline constexpr double kTerminalCr = -1.0;

struct MemoryUpdate {
  double f;
  double cr;
};
// The new values of a memory slot from the successes (s_f, s_cr, improvements of one size > 0)
// and the slot's current M_CR.
MemoryUpdate shade_memory_update(const std::vector<double>& s_f, const std::vector<double>& s_cr,
                                 const std::vector<double>& improvements, bool lshade,
                                 double current_cr);

class ShadePopulation {
 public:
  // capacity: the largest population (L-SHADE's N_init); it starts with `capacity` individuals.
  ShadePopulation(const ShadeSettings& settings, int capacity, Dim dim);

  // Uniform in [lower, upper], stream (seed, kInitial, operation, i); rows to evaluate next.
  void randomize(std::uint64_t seed, std::uint64_t operation, double lower, double upper);
  void reset_memories() { set_memories(0.5, 0.5); }
  void set_memories(double f, double cr);  // every slot; the next update writes slot 0
  void clear_archive() { archive_size_ = 0; }

  // Trials of individuals [0, count) for `generation` into trials().
  void make_trials(int count, std::uint64_t seed, std::uint64_t generation, double lower,
                   double upper);
  // Selection of the first `count` trials with their fitness trial_fitness(), archive and
  // memory update.
  void select(int count, std::uint64_t seed, std::uint64_t generation);
  // L-SHADE: keeps the `size` best (ties: the lower index), the archive cut to rate x size.
  void shrink(int size, std::uint64_t seed, std::uint64_t generation);

  int size() const { return size_; }
  int capacity() const { return capacity_; }
  int archive_size() const { return archive_size_; }
  int archive_capacity() const;
  int best() const;  // the lowest index among the best
  real_t* row(int i) { return genes_.data() + static_cast<Dim>(i) * dim_; }
  const real_t* row(int i) const { return genes_.data() + static_cast<Dim>(i) * dim_; }
  std::vector<real_t>& genes() { return genes_; }
  std::vector<double>& fitness() { return fitness_; }
  const std::vector<double>& fitness() const { return fitness_; }
  std::vector<real_t>& trials() { return trials_; }
  std::vector<double>& trial_fitness() { return trial_fitness_; }
  const std::vector<double>& memory_f() const { return memory_f_; }
  const std::vector<double>& memory_cr() const { return memory_cr_; }
  int memory_index() const { return memory_index_; }
  const std::vector<double>& trial_f() const { return trial_f_; }
  const std::vector<double>& trial_cr() const { return trial_cr_; }

  // Named arrays (names prefixed) into and out of a checkpoint's state.
  void save(AlgorithmState& s, const std::string& prefix) const;
  void restore(const AlgorithmState& s, const std::string& prefix);

 private:
  void make_trial(int i, std::uint64_t key, const std::vector<int>& ranking, double lower,
                  double upper);
  void archive_insert(const real_t* x, std::uint64_t key, std::uint64_t& draws);

  ShadeSettings settings_;
  int capacity_;
  Dim dim_;
  int size_;
  std::vector<real_t> genes_;  // capacity x dim
  std::vector<double> fitness_;
  std::vector<real_t> trials_;
  std::vector<double> trial_fitness_, trial_f_, trial_cr_;
  std::vector<double> memory_f_, memory_cr_;
  int memory_index_ = 0;
  std::vector<real_t> archive_;  // archive capacity (at least one row) x dim
  int archive_size_ = 0;
};

}  // namespace chainsaw
