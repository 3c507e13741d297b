// The GPU numerical optimisation benchmark Janssen et al. propose (seed gpu-de-review-janssen,
// §7.3, Table 2): ten functions from CEC'14 and CEC'17, written once for both backends, as the
// official C codes of those competitions define them (their data files, their scalings, their
// weights; docs/functions.md lists where Table 2 differs from the codes).
//
// Every function reads x whole: z = M (x - o) is a matrix-vector product, the hybrids permute z
// before splitting it, and the compositions weigh components by distances to all their optima.
// So they are not per-gene terms: the engines make a vector's genes first and evaluate the
// stored vector afterwards (the batch-objective path, fitness/external_objective.hpp); on the GPU
// a block per vector, its threads making the components of z (fitness/janssen/device_janssen.cuh).
// D <= 100 keeps a vector's y and z in a thread's local memory or a block's shared memory.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/types.hpp"
#include "fitness/functions.hpp"

namespace chainsaw {

inline constexpr int kJanssenFunctions = 10;
inline constexpr int kJanssenMaxDim = 100;        // the largest D of CEC'14/'17
inline constexpr int kJanssenMaxComponents = 5;   // Composition Function 3 has five

// The basic functions the ten are made of (CEC'17 definitions, which CEC'14's equal).
enum class JanssenBasic : std::int32_t {
  kZakharov, kRosenbrock, kRastrigin, kSchwefel, kBentCigar, kHgbat, kScaffer, kKatsuura,
  kHappyCat, kGriewankRosenbrock, kAckley, kGriewank, kElliptic,
};
enum class JanssenKind : std::int32_t { kBasic, kHybrid, kComposition };

// One function of Table 2. Trivially copyable: it travels to the GPU inside JanssenView.
struct JanssenSpec {
  JanssenKind kind;
  int components;  // basic: 1; hybrid: the parts; composition: the component functions
  JanssenBasic basic[kJanssenMaxComponents];
  double share[kJanssenMaxComponents];   // hybrid: p_i, the parts' shares of D
  double sigma[kJanssenMaxComponents];   // composition: the coverage of each optimum
  double lambda[kJanssenMaxComponents];  // composition: the height of each component
  double bias[kJanssenMaxComponents];    // composition: each component's value at its optimum
  int competition;       // 2014 or 2017: whose data files and definition
  int number;            // the function's number in that competition (its data files' N)
  double optimum_value;  // f*: 100 N, as in the official codes
};

// The ten of Table 2, janssen-f1 .. janssen-f10 (index 0 .. 9). Host only: a kernel gets its
// function's spec by value in the view.
const JanssenSpec& janssen_spec(int index);

// The instance a function reads: device or host pointers, the same layout on both.
struct JanssenView {
  JanssenSpec spec;
  Dim dim = 0;
  const double* o = nullptr;         // D per optimum (a composition: one per component)
  const double* rotation = nullptr;  // D x D per optimum: z = M y
  // M_ij at rotation[i * row_stride + j * column_stride]: row-major on the host (D, 1), the
  // device copy transposed (1, D).
  int row_stride = 0, column_stride = 0;
  const std::int32_t* perm = nullptr;  // hybrids: position k of the split takes z[perm[k]]
};

namespace detail {

// A per-gene function of fitness/functions.hpp on rate * v (n values): the basic functions that
// equal one of them share its code.
template <class Fn>
CHAINSAW_HD double per_gene_value(const double* v, int n, double rate) {
  typename Fn::Partial p{};
  for (int i = 0; i < n; ++i)
    Fn::accumulate(p, rate * v[i], static_cast<typename Fn::Index>(i + 1));
  return Fn::finish(p, static_cast<Dim>(n));
}

CHAINSAW_HD double bent_cigar(const double* v, int n) {  // z_1^2 + 10^6 sum_{i>1} z_i^2
  double tail = 0.0;
  for (int i = 1; i < n; ++i) tail += v[i] * v[i];
  return v[0] * v[0] + 1.0e6 * tail;
}

// Elliptic: sum 10^(6 (i-1)/(D-1)) z_i^2; its term i (0-based) of n.
CHAINSAW_HD double elliptic_term(double v, int i, int n) {
  return (n > 1 ? pow(10.0, 6.0 * i / (n - 1)) : 1.0) * v * v;
}
CHAINSAW_HD double elliptic(const double* v, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += elliptic_term(v[i], i, n);
  return s;
}

// HGBat (alpha 1/4) and HappyCat (alpha 1/8) on u = z - 1, which puts their optimum u = -1 at
// z = 0 as the official codes do: r2 = sum u^2, s = sum u.
CHAINSAW_HD void hg_sums(const double* v, int n, double rate, double& r2, double& s) {
  r2 = 0.0;
  s = 0.0;
  for (int i = 0; i < n; ++i) {
    const double u = rate * v[i] - 1.0;
    r2 += u * u;
    s += u;
  }
}
CHAINSAW_HD double hgbat(const double* v, int n, double rate) {
  double r2, s;
  hg_sums(v, n, rate, r2, s);
  return sqrt(fabs(r2 * r2 - s * s)) + (0.5 * r2 + s) / n + 0.5;
}
CHAINSAW_HD double happy_cat(const double* v, int n, double rate) {
  double r2, s;
  hg_sums(v, n, rate, r2, s);
  return sqrt(sqrt(fabs(r2 - n))) + (0.5 * r2 + s) / n + 0.5;
}

// CEC's Katsuura: 10/D^2 prod (1 + i katsuura_sum(z_i))^(10/D^1.2) - 10/D^2: the exponent,
// factor i (0-based) and the value from the product.
CHAINSAW_HD double cec_katsuura_exponent(int n) { return 10.0 / pow(1.0 * n, 1.2); }
CHAINSAW_HD double cec_katsuura_factor(double v, int i, double rate, double exponent) {
  return pow(1.0 + (i + 1) * katsuura_sum(rate * v), exponent);
}
CHAINSAW_HD double cec_katsuura_finish(double product, int n) {
  const double scale = 10.0 / n / n;
  return product * scale - scale;
}
CHAINSAW_HD double cec_katsuura(const double* v, int n, double rate) {
  const double exponent = cec_katsuura_exponent(n);
  double f = 1.0;
  for (int i = 0; i < n; ++i) f *= cec_katsuura_factor(v[i], i, rate, exponent);
  return cec_katsuura_finish(f, n);
}

// The official codes' scaling of [-100, 100] into each function's own domain.
CHAINSAW_HD double janssen_rate(JanssenBasic b) {
  switch (b) {
    case JanssenBasic::kRosenbrock: return 2.048 / 100.0;
    case JanssenBasic::kRastrigin: return 5.12 / 100.0;
    case JanssenBasic::kSchwefel: return 1000.0 / 100.0;
    case JanssenBasic::kGriewank: return 600.0 / 100.0;
    case JanssenBasic::kHgbat:
    case JanssenBasic::kKatsuura:
    case JanssenBasic::kHappyCat:
    case JanssenBasic::kGriewankRosenbrock: return 5.0 / 100.0;
    default: return 1.0;
  }
}

// The basic functions that equal a per-gene function of fitness/functions.hpp: per_gene(Fn{})
// for those, other() for the rest. The host's janssen_basic and the GPU block's version
// (fitness/janssen/device_janssen.cuh) share this one mapping.
template <class PerGene, class Other>
CHAINSAW_HD double visit_janssen_per_gene(JanssenBasic b, const PerGene& per_gene,
                                          const Other& other) {
  switch (b) {
    case JanssenBasic::kZakharov: return per_gene(Zakharov{});
    case JanssenBasic::kRosenbrock: return per_gene(Rosenbrock{});
    case JanssenBasic::kRastrigin: return per_gene(Rastrigin{});
    case JanssenBasic::kSchwefel: return per_gene(Schwefel226{});
    case JanssenBasic::kScaffer: return per_gene(Scaffer{});
    case JanssenBasic::kGriewankRosenbrock: return per_gene(GriewankRosenbrock{});
    case JanssenBasic::kAckley: return per_gene(Ackley{});
    case JanssenBasic::kGriewank: return per_gene(Griewank{});
    default: return other();
  }
}

}  // namespace detail

// g(v) of basic function b on n values v = M (x - o) (or a part of it), before its scaling.
CHAINSAW_HD double janssen_basic(JanssenBasic b, const double* v, int n) {
  const double rate = detail::janssen_rate(b);
  return detail::visit_janssen_per_gene(
      b, [&](auto fn) { return detail::per_gene_value<decltype(fn)>(v, n, rate); },
      [&] {
        switch (b) {
          case JanssenBasic::kBentCigar: return detail::bent_cigar(v, n);
          case JanssenBasic::kHgbat: return detail::hgbat(v, n, rate);
          case JanssenBasic::kKatsuura: return detail::cec_katsuura(v, n, rate);
          case JanssenBasic::kHappyCat: return detail::happy_cat(v, n, rate);
          default: return detail::elliptic(v, n);
        }
      });
}

// The sizes of a hybrid's parts as the official codes make them: ceil(p_i D) for all but the
// last, which takes the rest (0 or less when D is too small for the split: check_dimension).
CHAINSAW_HD void janssen_part_sizes(const JanssenSpec& s, int dim, int* sizes) {
  int taken = 0;
  for (int c = 0; c + 1 < s.components; ++c) {
    sizes[c] = static_cast<int>(ceil(s.share[c] * dim));
    taken += sizes[c];
  }
  sizes[s.components - 1] = dim - taken;
}

namespace detail {
// y = x - o over n variables; returns |x - o|^2 (the composition weights' distance).
CHAINSAW_HD double janssen_shift(const real_t* x, const double* o, int n, double* y) {
  double distance2 = 0.0;
  for (int j = 0; j < n; ++j) {
    y[j] = static_cast<double>(x[j]) - o[j];
    distance2 += y[j] * y[j];
  }
  return distance2;
}
// z_i = (M y)_i for the n x n M of optimum c: one component of the rotation, summed in j order
// (the GPU makes the components in parallel with the same sums; its copy of M is transposed, so
// the threads making z_i, z_i+1, ... read consecutive elements).
CHAINSAW_HD double janssen_rotate_row(const JanssenView& v, int c, const double* y, int i) {
  const int n = static_cast<int>(v.dim);
  const double* m = v.rotation + static_cast<std::size_t>(c) * n * n + i * v.row_stride;
  double s = 0.0;
  for (int j = 0; j < n; ++j) s += m[j * v.column_stride] * y[j];
  return s;
}
}  // namespace detail

// A composition's component c from its basic function's value g_c(z): lambda_c g_c + bias_c.
CHAINSAW_HD double janssen_component(const JanssenSpec& s, int c, double basic_value) {
  return s.lambda[c] * basic_value + s.bias[c];
}

// A composition's f from its components' values fit[c] and squared distances d2[c] to their
// optima: f = sum w_i / sum w fit_i, w_i = exp(-d_i^2 / (2 D sigma_i^2)) / d_i; at an optimum
// (d_i = 0) the official codes take w_i = 10^99, which leaves that component alone.
CHAINSAW_HD double janssen_compose(const JanssenSpec& s, int n, const double* fit,
                                   const double* d2) {
  double w[kJanssenMaxComponents];
  double w_max = 0.0, w_sum = 0.0;
  for (int c = 0; c < s.components; ++c) {
    w[c] = d2[c] != 0.0 ? sqrt(1.0 / d2[c]) * exp(-d2[c] / 2.0 / n / (s.sigma[c] * s.sigma[c]))
                        : 1.0e99;
    if (w[c] > w_max) w_max = w[c];
    w_sum += w[c];
  }
  if (w_max == 0.0) {  // every weight underflowed: equal weights, as the official codes do
    for (int c = 0; c < s.components; ++c) w[c] = 1.0;
    w_sum = s.components;
  }
  double f = 0.0;
  for (int c = 0; c < s.components; ++c) f += w[c] / w_sum * fit[c];
  return f + s.optimum_value;
}

// A hybrid's sum over its parts of y (z permuted), in part order: basic(b, part, size) evaluates
// basic function b on one part (janssen_basic, or the GPU block's version).
template <class Basic>
CHAINSAW_HD double janssen_hybrid_sum(const JanssenSpec& s, int n, const double* y,
                                      const Basic& basic) {
  int sizes[kJanssenMaxComponents];
  janssen_part_sizes(s, n, sizes);
  double f = 0.0;
  for (int c = 0, begin = 0; c < s.components; begin += sizes[c], ++c)
    f += basic(s.basic[c], y + begin, sizes[c]);
  return f;
}

// A basic or hybrid function's f at z = M (x - o); y is scratch for the hybrid's permutation.
// Hybrid: y = z permuted, cut into consecutive parts, one basic function on each.
CHAINSAW_HD double janssen_rotated_value(const JanssenView& v, const double* z, double* y) {
  const JanssenSpec& s = v.spec;
  const int n = static_cast<int>(v.dim);
  if (s.kind == JanssenKind::kBasic) return janssen_basic(s.basic[0], z, n) + s.optimum_value;
  for (int k = 0; k < n; ++k) y[k] = z[v.perm[k]];
  return janssen_hybrid_sum(s, n, y, [](JanssenBasic b, const double* part, int size) {
           return janssen_basic(b, part, size);
         }) +
         s.optimum_value;
}

// f(x), f* included, on one thread (the host; the GPU shares a row's rotation among a block's
// threads: fitness/janssen/device_janssen.cuh).
CHAINSAW_HD double janssen_value(const JanssenView& v, const real_t* x) {
  const JanssenSpec& s = v.spec;
  const int n = static_cast<int>(v.dim);
  double y[kJanssenMaxDim], z[kJanssenMaxDim];
  const int parts = s.kind == JanssenKind::kComposition ? s.components : 1;
  double fit[kJanssenMaxComponents], d2[kJanssenMaxComponents];
  for (int c = 0; c < parts; ++c) {
    d2[c] = detail::janssen_shift(x, v.o + c * n, n, y);
    for (int i = 0; i < n; ++i) z[i] = detail::janssen_rotate_row(v, c, y, i);
    if (s.kind != JanssenKind::kComposition) return janssen_rotated_value(v, z, y);
    fit[c] = janssen_component(s, c, janssen_basic(s.basic[c], z, n));
  }
  return janssen_compose(s, n, fit, d2);
}

}  // namespace chainsaw
