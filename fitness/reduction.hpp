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

// Two independent sums (Zakharov: sum z^2 and sum 0.5 i z; Ackley: sum z^2 and sum cos 2 pi z).
struct TwoSumsPartial {
  static constexpr bool kOrdered = false;
  double first = 0.0;
  double second = 0.0;
  CHAINSAW_HD static TwoSumsPartial combine(const TwoSumsPartial& a, const TwoSumsPartial& b) {
    return {a.first + b.first, a.second + b.second};
  }
};

// A sum over neighbouring pairs, sum_i Pair::term(u_{i-1}, u_i, i) (Rosenbrock, Dixon-Price,
// the expanded functions): a range keeps its first and last u, and joining two ranges adds the
// one term across the seam, for which it needs the index of the second range's first u. i is
// 1-based, so first_index = 0 marks the empty partial, the identity of combine. Four doubles:
// the GPU's block-partial scratch is sized by the largest partial (PrefixSquarePartial).
template <class Pair>
struct NeighbourPartial {
  static constexpr bool kOrdered = true;
  double sum = 0.0;
  double first = 0.0;
  double last = 0.0;
  double first_index = 0.0;
  // u is the i-th value (1-based); values come in index order.
  CHAINSAW_HD void add(double u, double i) {
    if (first_index != 0.0) {
      sum += Pair::term(last, u, i);
    } else {
      first = u;
      first_index = i;
    }
    last = u;
  }
  CHAINSAW_HD static NeighbourPartial combine(const NeighbourPartial& a,
                                              const NeighbourPartial& b) {
    if (a.first_index == 0.0) return b;
    if (b.first_index == 0.0) return a;
    return {a.sum + b.sum + Pair::term(a.last, b.first, b.first_index), a.first, b.last,
            a.first_index};
  }
};

// Rosenbrock's pair on u = z + 1 (optimum at u = 1).
struct RosenbrockPair {
  CHAINSAW_HD static double term(double u, double next, double /*next_index*/) {
    const double a = u * u - next;
    return 100.0 * a * a + (u - 1.0) * (u - 1.0);
  }
};
using RosenbrockPartial = NeighbourPartial<RosenbrockPair>;

}  // namespace chainsaw

namespace chainsaw {

// A sum of per-block terms, sum_b Block::value(s_b), where block b is genes [b K, (b+1) K)
// (K = Block::kSize; the last block may be shorter) and s_b is the sum of the block's per-gene
// contributions, added in index order with add(i, t). A chunk of genes may start and end inside
// a block: it keeps the open sums of its first and last block (head, tail) apart from the
// finished blocks inside (body), and combine() closes a block split between two chunks. Every
// field is a double (index bounds included, exact below 2^53) so that the GPU's warp shuffle
// moves it like any other partial. Block supplies
//   static constexpr Dim kSize;   CHAINSAW_HD static double value(double block_sum);
template <class Block>
struct BlockSumPartial {
  static constexpr bool kOrdered = true;
  double begin = -1.0;  // genes [begin, end) are in the partial; begin < 0: none
  double end = -1.0;
  double head = 0.0;    // sum of the first block's genes in the range
  double body = 0.0;    // values of the blocks wholly inside, after the first
  double tail = 0.0;    // sum of the last block's genes in the range, when it is not the first

  CHAINSAW_HD static Dim block_of(double gene) {
    return static_cast<Dim>(gene) / Block::kSize;
  }
  CHAINSAW_HD bool spans_blocks() const { return block_of(begin) != block_of(end - 1.0); }
  // Gene i's contribution t to its block's sum; genes come in index order.
  CHAINSAW_HD void add(Dim i, double t) {
    BlockSumPartial one;
    one.begin = static_cast<double>(i);
    one.end = static_cast<double>(i + 1);
    one.head = t;
    *this = combine(*this, one);
  }
  CHAINSAW_HD static BlockSumPartial combine(const BlockSumPartial& a, const BlockSumPartial& b) {
    if (a.begin < 0.0) return b;
    if (b.begin < 0.0) return a;
    BlockSumPartial r;
    r.begin = a.begin;
    r.end = b.end;
    r.head = a.head;
    const bool a_spans = a.spans_blocks(), b_spans = b.spans_blocks();
    const double a_last = a_spans ? a.tail : a.head;  // a's last (open) block
    if (block_of(a.end - 1.0) == block_of(b.begin)) {  // one block continues from a into b
      const double joined = a_last + b.head;
      if (!a_spans && !b_spans) {
        r.head = joined;
      } else if (!a_spans) {
        r.head = joined;
        r.body = b.body;
        r.tail = b.tail;
      } else if (!b_spans) {
        r.body = a.body;
        r.tail = joined;
      } else {
        r.body = a.body + Block::value(joined) + b.body;
        r.tail = b.tail;
      }
    } else {  // a ends a block, b starts one
      r.body = (a_spans ? a.body + Block::value(a.tail) : 0.0) +
               (b_spans ? Block::value(b.head) + b.body : 0.0);
      r.tail = b_spans ? b.tail : b.head;
    }
    return r;
  }
  // The whole sum, once the partial covers every gene.
  CHAINSAW_HD double total() const {
    if (begin < 0.0) return 0.0;
    return Block::value(head) + body + (spans_blocks() ? Block::value(tail) : 0.0);
  }
};

}  // namespace chainsaw
