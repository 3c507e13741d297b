// Shared helpers of the CPU algorithm tests: an independent float64 reference for the six paper
// functions, random genes from a generator that is not the code's own, small configurations,
// and a RecordingEngine that forwards to a HostEngine and remembers what the host loop asked.
#pragma once

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/engines/engine.hpp"
#include "core/engines/host/host_engine.hpp"
#include "core/population.hpp"
#include "fitness/problem.hpp"

namespace chainsaw::test {

// One unit in the last place of real_t, relative: the rounding of one stored gene.
inline constexpr double kGeneEps = std::numeric_limits<real_t>::epsilon();

inline const char* const kAllFunctions[] = {"rastrigin",  "griewank",   "salomon",
                                            "discus",     "sumsquares", "schwefel12"};

// Restores OpenMP's thread count when a test that changes it ends, however it ends.
class ThreadCountGuard {
 public:
  ThreadCountGuard() : saved_(omp_get_max_threads()) {}
  ~ThreadCountGuard() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

// Runs the enclosing scope on one OpenMP thread. Results do not depend on the thread count
// (test_host_loop.cpp's Determinism tests check exactly that); up to 4096 genes an individual is
// a single chunk, so there is little to split, while every parallel region ends in a barrier
// that costs milliseconds when the 2 cores are shared with other jobs (ctest -j, a build): these
// tests ran 10-40x slower with 2 threads on a loaded machine.
class OneThread {
 public:
  OneThread() { omp_set_num_threads(1); }

 private:
  ThreadCountGuard guard_;
};

// Uniform double in [0, 1) from a standard engine (not chainsaw's RNG, so tests do not share
// the code's assumptions; the mapping is spelled out so results do not depend on the library).
inline double uniform01(std::mt19937_64& gen) {
  return static_cast<double>(gen() >> 11) * 0x1.0p-53;
}
inline double uniform(std::mt19937_64& gen, double lo, double hi) {
  return lo + (hi - lo) * uniform01(gen);
}

// The points at which both backends' cos(2 pi z) are held to cos_two_pi_reference: alternately
// near the domains (|z| < 12) and far out (|z| < 10^6).
inline std::vector<double> cos_two_pi_test_points() {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> near(-12.0, 12.0), far(-1.0e6, 1.0e6);
  std::vector<double> z(200000);
  for (std::size_t n = 0; n < z.size(); ++n) z[n] = n % 2 ? near(gen) : far(gen);
  return z;
}
// cos(2 pi z) in long double. The reference reduces exactly too: 2 pi z itself is not exact for
// large z.
inline long double cos_two_pi_reference(double z) {
  const long double two_pi = 6.283185307179586476925286766559005768L;
  const long double r = static_cast<long double>(z) - std::nearbyint(static_cast<long double>(z));
  return std::cos(two_pi * r);
}

// The points at which both backends' Rastrigin term is held to rastrigin_term_reference: the
// shifted domains (|z| < 12), next to integers (the optimum, where 10 - 10 cos(2 pi z) cancels),
// next to half-integers (the end of the term's polynomial) and far out (|z| < 10^6).
inline std::vector<double> rastrigin_term_test_points() {
  std::mt19937_64 gen(12);
  std::uniform_real_distribution<double> near(-12.0, 12.0), far(-1.0e6, 1.0e6), nudge(-1.0, 1.0);
  std::uniform_int_distribution<int> whole(-12, 12), digits(3, 15);
  std::vector<double> z(200000);
  for (std::size_t n = 0; n < z.size(); ++n) {
    const double offset = nudge(gen) * std::pow(10.0, -digits(gen));
    switch (n % 4) {
      case 0: z[n] = near(gen); break;
      case 1: z[n] = whole(gen) + offset; break;
      case 2: z[n] = whole(gen) + 0.5 + offset; break;
      default: z[n] = far(gen);
    }
  }
  return z;
}
// z^2 + 20 sin^2(pi z) in long double, z reduced exactly: the identity the term computes, as
// its cosine form would cancel near the integers even in long double.
inline long double rastrigin_term_reference(double z) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const long double zl = static_cast<long double>(z);
  const long double s = std::sin(pi * (zl - std::nearbyint(zl)));
  return zl * zl + 20.0L * s * s;
}
// The largest relative error of `terms` (the term at rastrigin_term_test_points()).
inline double rastrigin_term_worst_relative_error(const std::vector<double>& z,
                                                  const std::vector<double>& terms) {
  double worst = 0.0;
  for (std::size_t n = 0; n < z.size(); ++n) {
    const long double want = rastrigin_term_reference(z[n]);
    const long double error = std::fabs(static_cast<long double>(terms[n]) - want);
    worst = std::max(worst, static_cast<double>(want > 0.0L ? error / want : error));
  }
  return worst;
}

// A configuration for engine-level tests: the defaults of algorithm.md with a small population.
inline Config small_config(const std::string& function, Dim dim, std::uint64_t seed = 1,
                           int population_size = 6, int batch = 4) {
  Config c;
  c.function = function;
  c.dim = dim;
  c.seed = seed;
  c.population_size = population_size;
  c.batch = batch;
  c.nam_candidates = std::min(3, population_size - 1);
  c.max_evaluations = 10 * population_size;
  c.backend = Backend::kCpu;
  c.validate();
  return c;
}

inline Problem problem_of(const Config& c) {
  return Problem::make(c.function, c.dim, c.effective_problem_seed());
}

// Where random points are drawn.
enum class PointKind {
  kUniform,      // uniform in the whole domain
  kNearBounds,   // every gene within 1% of the width of a bound (the side at random)
  kNearOptimum,  // o + a step of at most 1% of the width per gene, clipped
};

inline std::vector<real_t> random_point(const Problem& p, std::mt19937_64& gen,
                                        PointKind kind = PointKind::kUniform) {
  std::vector<real_t> x(static_cast<size_t>(p.dim));
  const double w = p.width();
  for (Dim j = 0; j < p.dim; ++j) {
    double v = 0.0;
    switch (kind) {
      case PointKind::kUniform: v = uniform(gen, p.lower, p.upper); break;
      case PointKind::kNearBounds:
        v = (gen() & 1) ? p.upper - 0.01 * w * uniform01(gen) : p.lower + 0.01 * w * uniform01(gen);
        break;
      case PointKind::kNearOptimum:
        v = static_cast<double>(p.shift(j)) + uniform(gen, -0.01 * w, 0.01 * w);
        break;
    }
    x[static_cast<size_t>(j)] = static_cast<real_t>(std::clamp(v, p.lower, p.upper));
  }
  return x;
}

inline std::vector<real_t> optimum_point(const Problem& p) {
  std::vector<real_t> x(static_cast<size_t>(p.dim));
  for (Dim j = 0; j < p.dim; ++j) x[static_cast<size_t>(j)] = p.shift(j);
  return x;
}

// F(z) without the bias, straight from the formulas (algorithm.md "Functions"; indices 1-based),
// in long double with naive loops. z_i = x_i - o_i with both widened from real_t.
inline long double reference_value_without_bias(const Problem& p, const real_t* x) {
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<long double> z(static_cast<size_t>(p.dim));
  for (Dim j = 0; j < p.dim; ++j)
    z[static_cast<size_t>(j)] =
        static_cast<long double>(x[j]) - static_cast<long double>(p.shift(j));
  const Dim n = p.dim;
  long double f = 0.0L;
  switch (p.function) {
    case FunctionId::kRastrigin:
      for (Dim i = 1; i <= n; ++i) {
        const long double zi = z[i - 1];
        f += zi * zi - 10.0L * std::cos(2.0L * pi * zi) + 10.0L;
      }
      break;
    case FunctionId::kGriewank: {
      long double sum = 0.0L, product = 1.0L;
      for (Dim i = 1; i <= n; ++i) {
        const long double zi = z[i - 1];
        sum += zi * zi / 4000.0L;
        product *= std::cos(zi / std::sqrt(static_cast<long double>(i)));
      }
      f = sum - product + 1.0L;
      break;
    }
    case FunctionId::kSalomon: {
      long double g = 0.0L;
      for (Dim i = 1; i <= n; ++i) g += z[i - 1] * z[i - 1];
      const long double r = std::sqrt(g);
      f = 1.0L - std::cos(2.0L * pi * r) + 0.1L * r;
      break;
    }
    case FunctionId::kDiscus:
      f = 1.0e6L * z[0] * z[0];
      for (Dim i = 2; i <= n; ++i) f += z[i - 1] * z[i - 1];
      break;
    case FunctionId::kSumSquares:
      for (Dim i = 1; i <= n; ++i) f += static_cast<long double>(i) * z[i - 1] * z[i - 1];
      break;
    case FunctionId::kSchwefel12: {
      // Explicit prefix sums s_i = sum_{j<=i} z_j, then sum_i s_i^2.
      std::vector<long double> s(static_cast<size_t>(n));
      long double running = 0.0L;
      for (Dim i = 1; i <= n; ++i) {
        running += z[i - 1];
        s[i - 1] = running;
      }
      for (Dim i = 1; i <= n; ++i) f += s[i - 1] * s[i - 1];
      break;
    }
    default:  // CEC 2010 has its own reference (test_cec2010.cpp)
      throw std::logic_error("reference_value_without_bias: not one of the paper's functions");
  }
  return f;
}

inline double reference_fitness(const Problem& p, const real_t* x) {
  return static_cast<double>(reference_value_without_bias(p, x) - 330.0L);
}

inline double reference_distance(const real_t* a, const real_t* b, Dim dim) {
  long double sum = 0.0L;
  for (Dim j = 0; j < dim; ++j) {
    const long double d = static_cast<long double>(a[j]) - static_cast<long double>(b[j]);
    sum += d * d;
  }
  return static_cast<double>(std::sqrt(sum));
}

// |f - reference| <= 1e-6 relative. Checked twice: on f itself, and on the function value
// without the bias (so that -330 cannot hide an error near the optimum); the absolute floor is a
// few units in the last place of a double near 330, the rounding of adding the bias.
inline ::testing::AssertionResult matches_reference(const Problem& p, const real_t* x, double f) {
  const long double ref_without_bias = reference_value_without_bias(p, x);
  const double ref = static_cast<double>(ref_without_bias - 330.0L);
  const double tol_f = 1e-6 * std::max(std::fabs(ref), 1.0);
  const double without_bias = f - kFBias;
  const double tol_without_bias =
      1e-6 * std::fabs(static_cast<double>(ref_without_bias)) + 1e-12;
  if (std::fabs(f - ref) <= tol_f &&
      std::fabs(without_bias - static_cast<double>(ref_without_bias)) <= tol_without_bias)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "f = " << f << ", reference = " << ref << " (without bias: " << without_bias
         << " vs " << static_cast<double>(ref_without_bias) << ")";
}

// Forwards every operation to a HostEngine and records what it was asked and answered.
class RecordingEngine final : public Engine {
 public:
  struct DistanceCall {
    std::vector<int> from, to;
    std::vector<double> out;        // what the engine answered
    std::vector<double> reference;  // recomputed here from the stored genes
  };
  struct LsCall {
    LocalSearchRequest request;
    LocalSearchResult result;
    std::vector<real_t> bias_before, bias_after;  // the slot's bias vector around the call
    std::vector<real_t> genes_before, genes_after;
  };

  RecordingEngine(HostEngine& inner, Dim dim) : inner_(inner), dim_(dim) {}

  std::string name() const override { return "recording(" + inner_.name() + ")"; }
  void initialize(const std::vector<int>& slots, double* fitness) override {
    evaluations += static_cast<std::int64_t>(slots.size());
    inner_.initialize(slots, fitness);
  }
  void distances(const int* from, const int* to, int count, double* out) override {
    DistanceCall call;
    call.from.assign(from, from + count);
    call.to.assign(to, to + count);
    std::vector<real_t> a(static_cast<size_t>(dim_)), b(static_cast<size_t>(dim_));
    for (int i = 0; i < count; ++i) {
      inner_.read_genes(from[i], a.data());
      inner_.read_genes(to[i], b.data());
      call.reference.push_back(reference_distance(a.data(), b.data(), dim_));
    }
    inner_.distances(from, to, count, out);
    call.out.assign(out, out + count);
    distance_calls.push_back(std::move(call));
  }
  void make_children(const ChildSpec* children, int count, double* fitness) override {
    evaluations += count;
    child_batches.emplace_back(children, children + count);
    inner_.make_children(children, count, fitness);
  }
  LocalSearchResult solis_wets(const LocalSearchRequest& request) override {
    LsCall call;
    call.request = request;
    call.bias_before.assign(inner_.bias(request.slot), inner_.bias(request.slot) + dim_);
    call.genes_before.resize(static_cast<size_t>(dim_));
    inner_.read_genes(request.slot, call.genes_before.data());
    call.result = inner_.solis_wets(request);
    call.bias_after.assign(inner_.bias(request.slot), inner_.bias(request.slot) + dim_);
    call.genes_after.resize(static_cast<size_t>(dim_));
    inner_.read_genes(request.slot, call.genes_after.data());
    evaluations += call.result.evaluations;
    ls_calls.push_back(call);
    return call.result;
  }
  void sort_slots(int* order) override { inner_.sort_slots(order); }
  void read_genes(int slot, real_t* out) override { inner_.read_genes(slot, out); }
  void write_genes(int slot, const real_t* genes) override {
    ++evaluations;
    inner_.write_genes(slot, genes);
  }
  double fitness(int slot) override { return inner_.fitness(slot); }
  double distance_to_optimum(int slot) override { return inner_.distance_to_optimum(slot); }
  void read_slot_array(SlotArray array, int slot, Dim first, Dim count, real_t* out) override {
    inner_.read_slot_array(array, slot, first, count, out);
  }
  void write_slot_array(SlotArray array, int slot, Dim first, Dim count,
                        const real_t* in) override {
    inner_.write_slot_array(array, slot, first, count, in);
  }
  void restore_fitness(const double* fitness) override { inner_.restore_fitness(fitness); }
  RngSnapshot save_rng() override { return inner_.save_rng(); }
  void restore_rng(const RngSnapshot& snapshot) override { inner_.restore_rng(snapshot); }
  std::int64_t invalid_evaluations() override { return inner_.invalid_evaluations(); }
  void set_profile(KernelProfile* profile) override { inner_.set_profile(profile); }

  std::int64_t evaluations = 0;  // as the calls add up
  std::vector<DistanceCall> distance_calls;
  std::vector<std::vector<ChildSpec>> child_batches;
  std::vector<LsCall> ls_calls;

 private:
  HostEngine& inner_;
  Dim dim_;
};

// A population of N random members in slots 0..N-1, evaluated and sorted, as step 1 leaves it.
inline void initialize_population(Engine& engine, Population& pop) {
  std::vector<int> slots(static_cast<size_t>(pop.size()));
  for (int i = 0; i < pop.size(); ++i) slots[i] = i;
  std::vector<double> fitness(slots.size());
  engine.initialize(slots, fitness.data());
  for (int i = 0; i < pop.size(); ++i) pop.fitness(i) = fitness[i];
  engine.sort_slots(pop.order().data());
}

}  // namespace chainsaw::test
