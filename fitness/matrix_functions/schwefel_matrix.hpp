// Schwefel's problems 2.6 and 2.13 (Nashed et al.'s Table 3 f7 and f17), as the CEC 2005 suite
// defines them (Suganthan et al. 2005, F5 and F12; Nashed's "defined in [17]"):
//   2.6:  f(x) = max_i |A_i x - B_i|,  A a D x D integer matrix in [-500, 500], B = A o;
//   2.13: f(x) = sum_i (A_i - B_i(x))^2, A_i = sum_j (a_ij sin alpha_j + b_ij cos alpha_j),
//         B_i(x) = sum_j (a_ij sin x_j + b_ij cos x_j), a, b integer matrices in [-100, 100],
//         alpha = o in [-pi, pi].
// The matrices are generated from the problem seed, one counter-based stream per row (parallel
// and independent of the thread count); o is the hashed shift of every other function (middle
// 60% of the domain, floats), where CEC 2005's 2.6 puts a quarter of o on each bound. A is not
// checked for a non-zero determinant (CEC 2005 asks for one): a random integer matrix is singular
// with negligible probability, and the check is O(D^3).
// Both are O(D^2) per evaluation: every entry of the matrices is read once. The matrices are
// stored as int16 (2.6) and int8 (2.13) to halve and quarter those bytes. f(o) = 0: the products
// of an integer and a float o_j are exact, and so are their sums below 2^53 (D < 2^20), so
// B = A o holds bit for bit.
// They run on both backends as objectives over stored vectors (Problem::external); the row math
// below is shared by the host loop (fitness/matrix_functions/schwefel_matrix.cpp) and the GPU's
// warp-per-row pass (device_schwefel_matrix.cu).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/types.hpp"
#include "fitness/external_objective.hpp"

namespace chainsaw {

enum class SchwefelMatrixKind { k26, k213 };

// The largest D: the matrices are D^2 entries (10^8 at 10^4), and the GPU keeps sin x and cos x
// of a row in shared memory (16 bytes a variable).
inline constexpr std::int64_t kSchwefelMatrixMaxDim = 10000;

struct SchwefelMatrixView {
  SchwefelMatrixKind kind = SchwefelMatrixKind::k26;
  Dim dim = 0;
  const std::int16_t* a26 = nullptr;  // 2.6: A, row-major
  const std::int8_t* a213 = nullptr;  // 2.13: a and b, row-major
  const std::int8_t* b213 = nullptr;
  const double* target = nullptr;  // B (2.6) or A_i (2.13): the row's value at the optimum
};

// One row's product, over the variables j = first, first + step, ... < dim: the host takes
// them all (first 0, step 1), a GPU lane every 32nd.
CHAINSAW_HD double schwefel26_row_dot(const SchwefelMatrixView& v, Dim row, const real_t* x,
                                      Dim first, Dim step) {
  const std::int16_t* a = v.a26 + row * v.dim;
  double sum = 0.0;
  for (Dim j = first; j < v.dim; j += step) sum += static_cast<double>(a[j]) * static_cast<double>(x[j]);
  return sum;
}
// B_i(x) from sin x_j and cos x_j (computed once per evaluation, not once per row).
CHAINSAW_HD double schwefel213_row_sum(const SchwefelMatrixView& v, Dim row, const double* sin_x,
                                       const double* cos_x, Dim first, Dim step) {
  const std::int8_t* a = v.a213 + row * v.dim;
  const std::int8_t* b = v.b213 + row * v.dim;
  double sum = 0.0;
  for (Dim j = first; j < v.dim; j += step)
    sum += static_cast<double>(a[j]) * sin_x[j] + static_cast<double>(b[j]) * cos_x[j];
  return sum;
}
// The row's term from its reduced product: |A_i x - B_i| (combined by max) or (A_i - B_i(x))^2
// (combined by a sum).
CHAINSAW_HD double schwefel_matrix_term(SchwefelMatrixKind kind, double row_value, double target) {
  const double d = kind == SchwefelMatrixKind::k26 ? row_value - target : target - row_value;
  return kind == SchwefelMatrixKind::k26 ? fabs(d) : d * d;
}
CHAINSAW_HD double schwefel_matrix_combine(SchwefelMatrixKind kind, double a, double b) {
  return kind == SchwefelMatrixKind::k26 ? fmax(a, b) : a + b;
}

struct SchwefelMatrixInstance {
  SchwefelMatrixKind kind = SchwefelMatrixKind::k26;
  Dim dim = 0;
  std::vector<std::int16_t> a26;
  std::vector<std::int8_t> a213, b213;
  std::vector<double> target;

  // o: the optimum (2.6's B = A o, 2.13's alpha), dim values.
  static SchwefelMatrixInstance generate(SchwefelMatrixKind kind, const std::vector<real_t>& o,
                                         std::uint64_t seed);
  SchwefelMatrixView view() const;  // host pointers
  // f(x) in double on the host, rows in order.
  double evaluate(const real_t* x) const;
};

// The GPU evaluation (a block per individual, a warp per matrix row); empty in a build without
// CUDA. The instance is copied to each device once, at its first call there.
DeviceBatchFn schwefel_matrix_device_batch(std::shared_ptr<const SchwefelMatrixInstance> instance);

}  // namespace chainsaw
