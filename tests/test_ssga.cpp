// The steady-state GA (Lastra et al. 2014 §4.1, algorithm.md 2a): BLX-alpha children on a real
// HostEngine, negative assortative mating, BGA mutation, and the batched replacement.
//
// Statistical checks use fixed seeds (so they are deterministic) and 5-sigma bounds (so that a
// correct implementation with other seeds would pass them too, p ~ 6e-7 per check).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "core/engines/host/host_engine.hpp"
#include "core/profiling.hpp"
#include "core/population.hpp"
#include "core/rng.hpp"
#include "ssga/bga_mutation.hpp"
#include "ssga/blx_alpha.hpp"
#include "ssga/ssga.hpp"
#include "test_support.hpp"

namespace chainsaw {
namespace {

using test::PointKind;

double five_sigma_binomial(double n, double p) { return 5.0 * std::sqrt(n * p * (1.0 - p)); }

// The interval a BLX-alpha child gene must lie in: [min - alpha I, max + alpha I], I = max - min,
// clipped to the domain; widened by one rounding of the gene to real_t.
struct Interval {
  double lo, hi;
};
Interval blx_interval(real_t a, real_t b, double alpha, const Problem& p) {
  const double lo_parent = std::min<double>(a, b), hi_parent = std::max<double>(a, b);
  const double spread = alpha * (hi_parent - lo_parent);
  return {std::max(p.lower, lo_parent - spread), std::min(p.upper, hi_parent + spread)};
}

struct ParentPair {
  PointKind mother, father;
};

// Writes random parents into slots 0..pairs-1 (mothers) and pairs..2*pairs-1 (fathers), makes
// one child of each pair and returns the genes of parents and children as stored by the engine.
struct BlxTrial {
  std::vector<std::vector<real_t>> mothers, fathers, children;
};
BlxTrial run_blx(const Config& c, const Problem& p, const std::vector<ParentPair>& pairs,
                 std::uint64_t seed) {
  HostEngine engine(c, p);
  std::mt19937_64 gen(seed);
  const int n = static_cast<int>(pairs.size());
  EXPECT_LE(3 * n, c.capacity()) << "not enough slots for the parents and children";
  if (3 * n > c.capacity()) return {};
  BlxTrial t;
  std::vector<ChildSpec> specs;
  for (int i = 0; i < n; ++i) {
    t.mothers.push_back(test::random_point(p, gen, pairs[i].mother));
    t.fathers.push_back(test::random_point(p, gen, pairs[i].father));
    engine.write_genes(i, t.mothers.back().data());
    engine.write_genes(n + i, t.fathers.back().data());
    specs.push_back({i, n + i, 2 * n + i, -1, 0.0});
  }
  std::vector<double> fitness(static_cast<size_t>(n));
  engine.make_children(specs.data(), n, fitness.data());
  for (int i = 0; i < n; ++i) {
    t.children.emplace_back(static_cast<size_t>(p.dim));
    engine.read_genes(2 * n + i, t.children.back().data());
  }
  return t;
}

TEST(BlxAlpha, ChildGenesStayInsideTheExtendedParentIntervalAndTheDomain) {
  const std::vector<ParentPair> pairs = {{PointKind::kUniform, PointKind::kUniform},
                                         {PointKind::kNearBounds, PointKind::kUniform},
                                         {PointKind::kNearBounds, PointKind::kNearBounds},
                                         {PointKind::kNearOptimum, PointKind::kNearBounds}};
  for (const char* function : {"rastrigin", "griewank", "sumsquares"}) {
    for (double alpha : {0.0, 0.5, 1.5}) {
      Config c = test::small_config(function, 4097, 31, 8, 4);
      c.blx_alpha = alpha;
      const Problem p = test::problem_of(c);
      const BlxTrial t = run_blx(c, p, pairs, 31);
      for (size_t i = 0; i < pairs.size(); ++i) {
        Dim outside = 0, outside_domain = 0;
        for (Dim j = 0; j < p.dim; ++j) {
          const real_t a = t.mothers[i][j], b = t.fathers[i][j];
          const Interval in = blx_interval(a, b, alpha, p);
          const double slack = test::kGeneEps * std::max(std::fabs(in.lo), std::fabs(in.hi));
          const double g = t.children[i][j];
          if (g < in.lo - slack || g > in.hi + slack) ++outside;
          if (g < p.lower || g > p.upper) ++outside_domain;
        }
        EXPECT_EQ(outside, 0) << function << ", alpha " << alpha << ", pair " << i;
        EXPECT_EQ(outside_domain, 0) << function << ", alpha " << alpha << ", pair " << i;
      }
    }
  }
}

TEST(BlxAlpha, IdenticalParentsGiveTheirCopy) {
  const Config c = test::small_config("schwefel12", 1000, 32);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  std::mt19937_64 gen(32);
  const auto x = test::random_point(p, gen);
  engine.write_genes(0, x.data());
  engine.write_genes(1, x.data());
  const ChildSpec spec{0, 1, 7, -1, 0.0};
  double f = 0.0;
  engine.make_children(&spec, 1, &f);
  std::vector<real_t> child(x.size());
  engine.read_genes(7, child.data());
  EXPECT_EQ(0, std::memcmp(child.data(), x.data(), x.size() * sizeof(real_t)));
  EXPECT_EQ(f, engine.fitness(0));
}

// The gene is uniform inside the (clipped) interval: the normalised position of many child genes
// fills [0, 1] evenly, its ends included.
TEST(BlxAlpha, ChildGenesAreUniformOverTheWholeInterval) {
  const Config c = test::small_config("griewank", 4097, 33, 16, 8);
  const Problem p = test::problem_of(c);
  const std::vector<ParentPair> pairs(8, {PointKind::kUniform, PointKind::kNearBounds});
  constexpr int kBins = 10;
  std::vector<double> counts(kBins, 0.0);
  double n = 0.0, lowest = 1.0, highest = 0.0;
  for (std::uint64_t trial = 0; trial < 3; ++trial) {
    const BlxTrial t = run_blx(c, p, pairs, 330 + trial);
    for (size_t i = 0; i < pairs.size(); ++i) {
      for (Dim j = 0; j < p.dim; ++j) {
        const Interval in = blx_interval(t.mothers[i][j], t.fathers[i][j], c.blx_alpha, p);
        if (in.hi - in.lo < 1e-3 * p.width()) continue;  // too narrow to resolve after rounding
        const double u = (t.children[i][j] - in.lo) / (in.hi - in.lo);
        counts[std::min(kBins - 1, std::max(0, static_cast<int>(u * kBins)))] += 1.0;
        lowest = std::min(lowest, u);
        highest = std::max(highest, u);
        n += 1.0;
      }
    }
  }
  ASSERT_GT(n, 50000.0);
  for (int b = 0; b < kBins; ++b)
    EXPECT_NEAR(counts[b], n / kBins, five_sigma_binomial(n, 1.0 / kBins)) << "bin " << b;
  EXPECT_LT(lowest, 1e-3);
  EXPECT_GT(highest, 1.0 - 1e-3);
}

// Parents near the bounds: the interval is clipped before the draw, so (almost) no child gene sits
// exactly on a bound. Drawing in the unclipped interval and clipping the gene afterwards would put
// every draw that falls outside the domain (a large share here) on a bound.
TEST(BlxAlpha, ChildGenesDoNotPileUpOnTheDomainBounds) {
  const Config c = test::small_config("rastrigin", 4097, 34, 16, 8);
  const Problem p = test::problem_of(c);
  const std::vector<ParentPair> pairs(8, {PointKind::kNearBounds, PointKind::kNearBounds});
  const BlxTrial t = run_blx(c, p, pairs, 34);
  const auto lower = static_cast<real_t>(p.lower), upper = static_cast<real_t>(p.upper);
  double on_bound = 0.0, n = 0.0;
  for (const auto& child : t.children)
    for (real_t g : child) {
      on_bound += (g == lower || g == upper) ? 1.0 : 0.0;
      n += 1.0;
    }
  EXPECT_LT(on_bound / n, 1e-3);
}

TEST(BlxAlphaGene, DrawsLinearlyInsideTheClippedInterval) {
  // u = 0 and u -> 1 give the ends of the clipped interval; u = 1/2 its middle.
  const double lower = -10.0, upper = 10.0;
  const real_t a = 2.0f, b = 6.0f;  // I = 4, alpha = 0.5: [0, 8]
  EXPECT_DOUBLE_EQ(blx_alpha_gene(a, b, 0.5, lower, upper, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(blx_alpha_gene(b, a, 0.5, lower, upper, 0.5), 4.0);
  EXPECT_NEAR(blx_alpha_gene(a, b, 0.5, lower, upper, 1.0 - 0x1.0p-53), 8.0, 1e-6);
  // Parents 8 and 9.5, alpha 1: [6.5, 11] clipped to [6.5, 10].
  EXPECT_DOUBLE_EQ(blx_alpha_gene(8.0f, 9.5f, 1.0, lower, upper, 0.0), 6.5);
  EXPECT_DOUBLE_EQ(blx_alpha_gene(8.0f, 9.5f, 1.0, lower, upper, 0.5), 8.25);
}

TEST(Nam, FarthestCandidateIsTheIndexOfTheLargestDistance) {
  std::mt19937_64 gen(41);
  for (int trial = 0; trial < 1000; ++trial) {
    const int count = 1 + static_cast<int>(gen() % 8);
    std::vector<double> d(static_cast<size_t>(count));
    for (double& v : d) v = test::uniform(gen, 0.0, 100.0);
    int expected = 0;
    for (int k = 1; k < count; ++k)
      if (d[k] > d[expected]) expected = k;
    ASSERT_EQ(farthest_candidate(d.data(), count), expected) << "trial " << trial;
  }
}

TEST(Nam, FarthestCandidateTakesTheFirstOfEqualDistances) {
  const double d[] = {1.0, 3.0, 3.0, 2.0};
  EXPECT_EQ(farthest_candidate(d, 4), 1);
}

TEST(Nam, MatingCandidatesAreDistinctMembersOtherThanTheMother) {
  CounterRng rng(derive_key(42, 1));
  for (int n : {2, 3, 5, 50}) {
    for (int count = 1; count <= std::min(n - 1, 6); ++count) {
      for (int draw = 0; draw < 2000; ++draw) {
        int mother = -1;
        std::vector<int> ranks(static_cast<size_t>(count), -1);
        draw_mating_candidates(n, count, rng, mother, ranks.data());
        ASSERT_GE(mother, 0);
        ASSERT_LT(mother, n);
        std::set<int> seen;
        for (int r : ranks) {
          ASSERT_GE(r, 0);
          ASSERT_LT(r, n);
          ASSERT_NE(r, mother);
          seen.insert(r);
        }
        ASSERT_EQ(static_cast<int>(seen.size()), count) << "repeated candidate";
      }
    }
  }
}

TEST(Nam, MotherAndCandidatesAreUniformOverTheMembers) {
  constexpr int kN = 50, kCount = 3, kDraws = 100000;
  CounterRng rng(derive_key(43, 1));
  std::vector<double> mothers(kN, 0.0), candidates(kN, 0.0);
  int ranks[kCount];
  for (int draw = 0; draw < kDraws; ++draw) {
    int mother;
    draw_mating_candidates(kN, kCount, rng, mother, ranks);
    mothers[mother] += 1.0;
    for (int r : ranks) candidates[r] += 1.0;
  }
  for (int r = 0; r < kN; ++r) {
    EXPECT_NEAR(mothers[r], kDraws / double(kN), five_sigma_binomial(kDraws, 1.0 / kN))
        << "rank " << r;
    // Each rank is a candidate with probability count/N by symmetry.
    EXPECT_NEAR(candidates[r], kDraws * double(kCount) / kN,
                five_sigma_binomial(kDraws, double(kCount) / kN))
        << "rank " << r;
  }
}

struct SsgaFixture {
  explicit SsgaFixture(Config config)
      : c(std::move(config)),
        p(test::problem_of(c)),
        host(c, p),
        engine(host, c.dim),
        pop(c.population_size, c.batch),
        rng(derive_key(c.seed, 99)) {
    test::initialize_population(engine, pop);
  }
  std::int64_t batch(int children) {
    SsgaContext ctx{c, p, pop, engine, rng, timers};
    return ssga_batch(ctx, children);
  }
  const test::OneThread one_thread;  // small dims: see test_support.hpp
  Config c;
  Problem p;
  HostEngine host;
  test::RecordingEngine engine;
  Population pop;
  CounterRng rng;
  PhaseTimers timers;
};

TEST(Nam, HostDistancesEqualTheFloat64Reference) {
  SsgaFixture f(test::small_config("salomon", 5000, 44, 12, 6));
  f.batch(6);
  ASSERT_EQ(f.engine.distance_calls.size(), 1u);
  const auto& call = f.engine.distance_calls[0];
  ASSERT_EQ(call.out.size(), 6u * f.c.nam_candidates);
  for (size_t i = 0; i < call.out.size(); ++i)
    EXPECT_NEAR(call.out[i], call.reference[i], 1e-12 * call.reference[i]) << "pair " << i;
}

TEST(Nam, SsgaBatchMatesTheMotherWithTheFarthestOfItsCandidates) {
  Config c = test::small_config("rastrigin", 37, 45, 20, 10);
  c.nam_candidates = 5;
  SsgaFixture f(c);
  for (int b = 0; b < 20; ++b) {
    const std::vector<int> order_before = f.pop.order();
    const std::set<int> members(order_before.begin(), order_before.begin() + c.population_size);
    const std::set<int> padding(order_before.begin() + c.population_size, order_before.end());
    f.batch(c.batch);
    const auto& call = f.engine.distance_calls.back();
    const auto& specs = f.engine.child_batches.back();
    ASSERT_EQ(static_cast<int>(specs.size()), c.batch);
    for (int child = 0; child < c.batch; ++child) {
      const int* from = &call.from[static_cast<size_t>(child * c.nam_candidates)];
      const int* to = &call.to[static_cast<size_t>(child * c.nam_candidates)];
      const double* ref = &call.reference[static_cast<size_t>(child * c.nam_candidates)];
      int farthest = 0;
      for (int k = 1; k < c.nam_candidates; ++k)
        if (ref[k] > ref[farthest]) farthest = k;
      const ChildSpec& spec = specs[static_cast<size_t>(child)];
      for (int k = 0; k < c.nam_candidates; ++k) {
        EXPECT_EQ(from[k], spec.mother);  // every candidate is measured from the mother
        EXPECT_TRUE(members.count(to[k])) << "candidate is not a member";
      }
      EXPECT_TRUE(members.count(spec.mother)) << "mother is not a member";
      EXPECT_EQ(spec.father, to[farthest]) << "batch " << b << ", child " << child;
      EXPECT_NE(spec.father, spec.mother);
      EXPECT_TRUE(padding.count(spec.slot)) << "child not written into a padding slot";
    }
  }
}

TEST(Ssga, BatchKeepsTheBestOfMembersAndChildrenAsMembers) {
  SsgaFixture f(test::small_config("sumsquares", 50, 46, 10, 6));
  for (int b = 0; b < 30; ++b) {
    std::vector<double> before;
    for (int rank = 0; rank < f.c.population_size; ++rank)
      before.push_back(f.pop.fitness(f.pop.member(rank)));
    f.batch(b % 2 ? f.c.batch : 3);  // full and partial batches
    // order holds every slot once, sorted by (fitness, slot).
    std::vector<int> sorted = f.pop.order();
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < f.c.capacity(); ++i) ASSERT_EQ(sorted[i], i);
    for (int i = 0; i + 1 < f.c.capacity(); ++i) {
      const int s = f.pop.order()[i], t = f.pop.order()[i + 1];
      ASSERT_TRUE(f.pop.fitness(s) < f.pop.fitness(t) ||
                  (f.pop.fitness(s) == f.pop.fitness(t) && s < t));
    }
    // The host's fitness of every slot is the engine's.
    for (int s = 0; s < f.c.capacity(); ++s) ASSERT_EQ(f.pop.fitness(s), f.engine.fitness(s));
    // Elitist replacement: the k-th best member never gets worse.
    for (int rank = 0; rank < f.c.population_size; ++rank)
      ASSERT_LE(f.pop.fitness(f.pop.member(rank)), before[rank]) << "rank " << rank;
  }
}

TEST(Ssga, SlotSortIsByFitnessThenSlotWithMinusZeroFirst) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> f = {3.5, -0.0, inf, 0.0, -2.0, 3.5, -inf, 0.0, -0.0, 1e-300};
  std::vector<int> order(f.size(), -1);
  sort_slots_by_fitness(f.data(), static_cast<int>(f.size()), order.data());
  EXPECT_EQ(order, (std::vector<int>{6, 4, 1, 8, 3, 7, 9, 0, 5, 2}));
}

TEST(Ssga, NewChildrenHaveNoChainAndQualifyForLocalSearch) {
  SsgaFixture f(test::small_config("sumsquares", 20, 47, 10, 6));
  for (int s = 0; s < f.c.capacity(); ++s) {
    f.pop.chain(s).ls_failed = true;
    f.pop.chain(s).has_chain = true;
  }
  f.batch(f.c.batch);
  for (const ChildSpec& spec : f.engine.child_batches.back()) {
    EXPECT_FALSE(f.pop.chain(spec.slot).ls_failed);
    EXPECT_FALSE(f.pop.chain(spec.slot).has_chain);
  }
}

TEST(Ssga, PhaseSpendsExactlyTheEvaluationsAskedFor) {
  SsgaFixture f(test::small_config("rastrigin", 10, 48, 10, 6));
  for (std::int64_t evals : {1, 5, 6, 7, 13, 100}) {
    const std::int64_t before = f.engine.evaluations;
    SsgaContext ctx{f.c, f.p, f.pop, f.engine, f.rng, f.timers};
    EXPECT_EQ(ssga_phase(ctx, evals), evals);
    EXPECT_EQ(f.engine.evaluations - before, evals);
  }
}

// BGA step: ±0.1 w Σ_{k=0..15} a_k 2^-k, P(a_k = 1) = 1/16, sign ± with probability 1/2.
class BgaStepDraws : public ::testing::Test {
 protected:
  static constexpr int kDraws = 200000;
  static constexpr double kWidth = 10.24;
  void SetUp() override {
    CounterRng rng(derive_key(51, 2));
    for (int i = 0; i < kDraws; ++i) steps.push_back(bga_step(rng, kWidth));
  }
  std::vector<double> steps;
};

TEST_F(BgaStepDraws, MagnitudeIsAtMostTwoTenthsOfTheDomainWidth) {
  for (double s : steps) ASSERT_LE(std::fabs(s), 0.1 * kWidth * (2.0 - 0x1.0p-15) * (1 + 1e-15));
}

TEST_F(BgaStepDraws, IsNonzeroWithProbabilityOneMinusFifteenSixteenthsToTheSixteenth) {
  const double p = 1.0 - std::pow(15.0 / 16.0, 16.0);  // ~0.644
  double nonzero = 0.0;
  for (double s : steps) nonzero += s != 0.0 ? 1.0 : 0.0;
  EXPECT_NEAR(nonzero, kDraws * p, five_sigma_binomial(kDraws, p));
}

TEST_F(BgaStepDraws, SignIsBalanced) {
  double positive = 0.0, nonzero = 0.0;
  for (double s : steps) {
    if (s == 0.0) continue;
    nonzero += 1.0;
    positive += s > 0.0 ? 1.0 : 0.0;
  }
  EXPECT_NEAR(positive, nonzero / 2.0, five_sigma_binomial(nonzero, 0.5));
}

TEST_F(BgaStepDraws, EachBinaryDigitIsSetWithProbabilityOneSixteenth) {
  // |s| / (0.1 w) = Σ a_k 2^-k is a multiple of 2^-15: its 16 binary digits are the a_k.
  std::vector<double> set(16, 0.0);
  for (double s : steps) {
    const double units = std::fabs(s) / (0.1 * kWidth) * 0x1.0p15;
    const auto bits = static_cast<std::uint32_t>(std::llround(units));
    ASSERT_NEAR(units, static_cast<double>(bits), 1e-6) << "not on the 2^-15 lattice";
    for (int k = 0; k < 16; ++k) set[k] += (bits >> (15 - k)) & 1u ? 1.0 : 0.0;
  }
  for (int k = 0; k < 16; ++k)
    EXPECT_NEAR(set[k], kDraws / 16.0, five_sigma_binomial(kDraws, 1.0 / 16.0)) << "a_" << k;
}

TEST(Bga, SsgaBatchMutatesTheExpectedFractionOfChildren) {
  for (double probability : {0.125, 0.5, 0.0, 1.0}) {
    Config c = test::small_config("discus", 5, 52, 50, 20);
    c.mutation_probability = probability;
    SsgaFixture f(c);
    const int batches = probability == 0.125 ? 300 : 50;
    for (int b = 0; b < batches; ++b) f.batch(c.batch);
    double children = 0.0, mutated = 0.0;
    std::vector<double> per_gene(static_cast<size_t>(c.dim), 0.0);
    for (const auto& specs : f.engine.child_batches) {
      for (const ChildSpec& spec : specs) {
        children += 1.0;
        if (spec.mutated_gene < 0) continue;
        mutated += 1.0;
        ASSERT_LT(spec.mutated_gene, c.dim);
        per_gene[static_cast<size_t>(spec.mutated_gene)] += 1.0;
        ASSERT_LE(std::fabs(spec.mutation_step), 0.2 * f.p.width());
      }
    }
    EXPECT_NEAR(mutated, children * probability, five_sigma_binomial(children, probability))
        << "mutation probability " << probability;
    if (mutated > 0) {  // the mutated gene is uniform over the dimensions
      for (Dim j = 0; j < c.dim; ++j)
        EXPECT_NEAR(per_gene[j], mutated / c.dim, five_sigma_binomial(mutated, 1.0 / c.dim))
            << "gene " << j;
    }
  }
}

// Two engines with the same history draw the same BLX numbers (the RNG is keyed by the operation
// counter), so a child with and without the mutation differ exactly in the mutated gene.
struct MutationPair {
  std::vector<real_t> with, without;
  double f_with = 0.0, f_without = 0.0;
};
MutationPair make_pair_of_children(const Config& c, const Problem& p, Dim gene, double step) {
  HostEngine a(c, p), b(c, p);
  std::mt19937_64 gen(53);
  const auto mother = test::random_point(p, gen), father = test::random_point(p, gen);
  for (HostEngine* e : {&a, &b}) {
    e->write_genes(0, mother.data());
    e->write_genes(1, father.data());
  }
  EXPECT_EQ(a.operation_counter(), b.operation_counter());
  const ChildSpec mutated{0, 1, 6, gene, step}, plain{0, 1, 6, -1, 0.0};
  MutationPair r;
  a.make_children(&mutated, 1, &r.f_with);
  b.make_children(&plain, 1, &r.f_without);
  r.with.resize(static_cast<size_t>(p.dim));
  r.without.resize(static_cast<size_t>(p.dim));
  a.read_genes(6, r.with.data());
  b.read_genes(6, r.without.data());
  return r;
}

TEST(Bga, MutationMovesExactlyTheChosenGeneByTheStep) {
  const Config c = test::small_config("sumsquares", 4500, 54);
  const Problem p = test::problem_of(c);
  for (Dim gene : {Dim{0}, Dim{4095}, Dim{4096}, Dim{4499}}) {
    const double step = (gene % 2 ? -1 : 1) * 0.037 * p.width();
    const MutationPair r = make_pair_of_children(c, p, gene, step);
    for (Dim j = 0; j < p.dim; ++j) {
      if (j == gene) {
        const auto expected = static_cast<real_t>(
            std::clamp(static_cast<double>(r.without[j]) + step, p.lower, p.upper));
        EXPECT_EQ(r.with[j], expected) << "gene " << j;
        EXPECT_NE(r.with[j], r.without[j]) << "gene " << j;
      } else {
        ASSERT_EQ(r.with[j], r.without[j]) << "gene " << j << " changed, mutated " << gene;
      }
    }
    EXPECT_TRUE(test::matches_reference(p, r.with.data(), r.f_with));
    EXPECT_NE(r.f_with, r.f_without);
  }
}

TEST(Bga, MutatedGeneIsClippedToTheDomain) {
  const Config c = test::small_config("rastrigin", 9, 55);
  const Problem p = test::problem_of(c);
  const MutationPair up = make_pair_of_children(c, p, 3, 2.0 * p.width());
  EXPECT_EQ(up.with[3], static_cast<real_t>(p.upper));
  const MutationPair down = make_pair_of_children(c, p, 8, -2.0 * p.width());
  EXPECT_EQ(down.with[8], static_cast<real_t>(p.lower));
}

}  // namespace
}  // namespace chainsaw
