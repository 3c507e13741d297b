// Schwefel 2.6 and 2.13 (nashed-f7, nashed-f17; docs/functions.md): their generated matrices,
// f(o) = 0, and f against a float64 evaluation of the definition at random points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "fitness/matrix_functions/schwefel_matrix.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {
namespace {

// f by its definition from the instance's matrices and the problem's o, in float64.
double reference(const Problem& p, const std::vector<double>& x) {
  const SchwefelMatrixInstance& m = *p.matrix;
  const Dim d = p.dim;
  double f = 0.0;
  for (Dim i = 0; i < d; ++i) {
    double at_x = 0.0, at_o = 0.0;
    for (Dim j = 0; j < d; ++j) {
      const std::size_t k = static_cast<std::size_t>(i * d + j);
      const double o = p.shift.value(j);
      if (m.kind == SchwefelMatrixKind::k26) {
        at_x += m.a26[k] * x[static_cast<std::size_t>(j)];
        at_o += m.a26[k] * o;
      } else {
        at_x += m.a213[k] * std::sin(x[static_cast<std::size_t>(j)]) + m.b213[k] * std::cos(x[static_cast<std::size_t>(j)]);
        at_o += m.a213[k] * std::sin(o) + m.b213[k] * std::cos(o);
      }
    }
    f = m.kind == SchwefelMatrixKind::k26 ? std::max(f, std::fabs(at_x - at_o))
                                          : f + (at_o - at_x) * (at_o - at_x);
  }
  return f;
}

double host_f(const Problem& p, const std::vector<real_t>& x) {
  double f = 0.0;
  p.external->host(x.data(), p.dim, 1, p.dim, &f);
  return f;
}

TEST(SchwefelMatrix, NashedNamesAndRanges) {
  EXPECT_EQ(function_info("nashed-f7").id, FunctionId::kSchwefel26);
  EXPECT_EQ(function_info("schwefel26").lower, -100.0);
  EXPECT_EQ(function_info("nashed-f17").id, FunctionId::kSchwefel213);
  EXPECT_EQ(function_info("schwefel213").upper, 3.141592653589793);
  EXPECT_THROW(Problem::make("schwefel26", 10001, 1), UserError);
  EXPECT_EQ(function_optimum_value("nashed-f7"), 0.0);
}

TEST(SchwefelMatrix, MatricesAreIntegersInTheirRangesFromTheSeed) {
  const Problem p26 = Problem::make("schwefel26", 150, 3), p213 = Problem::make("schwefel213", 60, 3);
  const auto& a = p26.matrix->a26;
  EXPECT_EQ(*std::min_element(a.begin(), a.end()), -500);  // 22500 draws of 1001 values
  EXPECT_EQ(*std::max_element(a.begin(), a.end()), 500);
  for (const auto* m : {&p213.matrix->a213, &p213.matrix->b213}) {
    EXPECT_EQ(*std::min_element(m->begin(), m->end()), -100);
    EXPECT_EQ(*std::max_element(m->begin(), m->end()), 100);
  }
  EXPECT_EQ(Problem::make("schwefel26", 150, 3).matrix->a26, a);
  EXPECT_NE(Problem::make("schwefel26", 150, 4).matrix->a26, a);
  EXPECT_NE(p213.matrix->a213, p213.matrix->b213);
}

TEST(SchwefelMatrix, ZeroAtTheOptimum) {
  for (Dim d : {1, 7, 100}) {
    const Problem p26 = Problem::make("nashed-f7", d, 11), p213 = Problem::make("nashed-f17", d, 11);
    std::vector<real_t> o(static_cast<std::size_t>(d));
    for (Dim j = 0; j < d; ++j) o[static_cast<std::size_t>(j)] = p26.shift(j);
    EXPECT_EQ(host_f(p26, o), 0.0);  // B = A o exactly
    for (Dim j = 0; j < d; ++j) o[static_cast<std::size_t>(j)] = p213.shift(j);
    EXPECT_NEAR(host_f(p213, o), 0.0, 1e-18);
    EXPECT_TRUE(p26.optimum_position_known());
  }
}

TEST(SchwefelMatrix, MatchesAFloat64ReferenceAtRandomPoints) {
  for (const char* name : {"schwefel26", "schwefel213"}) {
    for (Dim d : {2, 33, 150}) {
      SCOPED_TRACE(std::string(name) + " D=" + std::to_string(d));
      const Problem p = Problem::make(name, d, 5);
      CounterRng rng(d);
      for (int trial = 0; trial < 4; ++trial) {
        std::vector<real_t> x(static_cast<std::size_t>(d));
        std::vector<double> xd(x.size());
        for (std::size_t j = 0; j < x.size(); ++j) {
          x[j] = static_cast<real_t>(p.lower + p.width() * rng.uniform());
          xd[j] = static_cast<double>(x[j]);
        }
        const double want = reference(p, xd);
        EXPECT_GT(want, 0.0);
        EXPECT_NEAR(host_f(p, x), want, 1e-12 * want);
      }
    }
  }
}

}  // namespace
}  // namespace chainsaw
