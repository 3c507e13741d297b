// The reduction kinds a fitness function is built from. A function is a per-gene `accumulate`
// into one of these partials plus a `finish` on the combined partial. Partials of consecutive
// gene ranges combine in order (associative, not necessarily commutative), which lets both
// backends split an individual into fixed chunks and reduce them in a fixed tree: the result is
// then independent of the thread count (CPU) and of scheduling (GPU).
#pragma once

#include "core/types.hpp"

namespace chainsaw {

// kOrdered: the combine is not commutative, so a reduction must keep genes in index order
// (the GPU then reduces each warp tile before moving on; see fitness/device_reduce.cuh).
struct SumPartial {
  static constexpr bool kOrdered = false;
  double sum = 0.0;
  CHAINSAW_HD static SumPartial combine(const SumPartial& a, const SumPartial& b) {
    return {a.sum + b.sum};
  }
};

// Griewank: a sum and a product over the genes.
struct SumProductPartial {
  static constexpr bool kOrdered = false;
  double sum = 0.0;
  double product = 1.0;
  CHAINSAW_HD static SumProductPartial combine(const SumProductPartial& a,
                                               const SumProductPartial& b) {
    return {a.sum + b.sum, a.product * b.product};
  }
};

// Schwefel 1.2, sum_i (sum_{j<=i} z_j)^2, in one pass: a chunk keeps its total T, and the sums
// P1, P2 of its local prefixes p_k and their squares. A chunk b after a chunk a sees prefixes
// T_a + p_k, so P2 = P2_a + n_b T_a^2 + 2 T_a P1_b + P2_b: no separate scan pass is needed.
struct PrefixSquarePartial {
  static constexpr bool kOrdered = true;
  double total = 0.0;
  double prefix_sum = 0.0;
  double prefix_square_sum = 0.0;
  double count = 0.0;
  CHAINSAW_HD static PrefixSquarePartial combine(const PrefixSquarePartial& a,
                                                 const PrefixSquarePartial& b) {
    PrefixSquarePartial r;
    r.total = a.total + b.total;
    r.prefix_sum = a.prefix_sum + b.count * a.total + b.prefix_sum;
    r.prefix_square_sum = a.prefix_square_sum + b.count * a.total * a.total +
                          2.0 * a.total * b.prefix_sum + b.prefix_square_sum;
    r.count = a.count + b.count;
    return r;
  }
};

}  // namespace chainsaw
