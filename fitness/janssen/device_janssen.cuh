// A Janssen function's data on the GPU: the instance's o, M and permutation copied to the
// current device once, and the view the kernels read them through (fitness/janssen/janssen.hpp);
// and f of a row evaluated by a whole block.
#pragma once

#include "core/gpu/device_buffer.hpp"
#include "fitness/device_block_reduce.cuh"
#include "fitness/device_instance_copy.cuh"
#include "fitness/janssen/janssen_instance.hpp"

namespace chainsaw {

// M is stored transposed: the block's threads make consecutive z_i, so in each step of the sum
// a warp reads one contiguous column instead of 32 rows' elements 8 D bytes apart.
struct DeviceJanssen {
  DeviceBuffer<double> o, rotation;
  DeviceBuffer<std::int32_t> perm;
  JanssenView view;

  explicit DeviceJanssen(const JanssenInstance& inst)
      : o(upload(inst.o)), rotation(upload(transposed_rotations(inst))), perm(upload(inst.perm)) {
    view = inst.view();
    view.o = o.data();
    view.rotation = rotation.data();
    view.row_stride = 1;
    view.column_stride = static_cast<int>(inst.dim);
    view.perm = inst.perm.empty() ? nullptr : perm.data();
  }

 private:
  static std::vector<double> transposed_rotations(const JanssenInstance& inst) {
    const std::size_t n = static_cast<std::size_t>(inst.dim);
    std::vector<double> t(inst.rotation.size());
    for (std::size_t base = 0; base < t.size(); base += n * n)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) t[base + j * n + i] = inst.rotation[base + i * n + j];
    return t;
  }
};

#if defined(__CUDACC__)
namespace detail {

// Shared scratch for the block's partials: blockDim.x <= device::kMaxRowBlockThreads of at most
// kJanssenPartialBytes each.
inline constexpr int kJanssenPartialBytes = 48;

struct ProductPartial {
  double product = 1.0;
  __device__ static ProductPartial combine(const ProductPartial& a, const ProductPartial& b) {
    return {a.product * b.product};
  }
};

// The block's partial of term(p, i) over i in [0, n): each thread a contiguous range, combined
// in index order.
template <class Partial, class Term>
__device__ Partial janssen_block_partial(int n, void* scratch, const Term& term) {
  static_assert(sizeof(Partial) <= kJanssenPartialBytes, "the scratch holds the partials");
  Partial mine{};
  const device::GeneRange r = device::thread_genes(n);
  for (Dim i = r.begin; i < r.end; ++i) term(mine, static_cast<int>(i));
  return device::block_combine(mine, static_cast<Partial*>(scratch));
}

// janssen_basic with the n values' terms made by the block's threads: every thread calls it
// and gets g(v). The sums are the host's in another order (equal to round-off). Bent Cigar,
// HGBat and HappyCat, a multiply-add per value, are summed whole by every thread.
__device__ inline double janssen_basic_block(JanssenBasic b, const double* v, int n,
                                             void* scratch) {
  const double rate = janssen_rate(b);
  auto per_gene = [&](auto fn) {
    using Fn = decltype(fn);
    using P = typename Fn::Partial;
    const P p = janssen_block_partial<P>(n, scratch, [&](P& q, int i) {
      Fn::accumulate(q, rate * v[i], static_cast<typename Fn::Index>(i + 1));
    });
    return Fn::finish(p, static_cast<Dim>(n));
  };
  return visit_janssen_per_gene(b, per_gene, [&] {
    switch (b) {
      case JanssenBasic::kKatsuura: {
        const double exponent = cec_katsuura_exponent(n);
        const ProductPartial p = janssen_block_partial<ProductPartial>(
            n, scratch, [&](ProductPartial& q, int i) {
              q.product *= cec_katsuura_factor(v[i], i, rate, exponent);
            });
        return cec_katsuura_finish(p.product, n);
      }
      case JanssenBasic::kElliptic:
        return janssen_block_partial<SumPartial>(n, scratch, [&](SumPartial& q, int i) {
                 q.sum += elliptic_term(v[i], i, n);
               }).sum;
      default: return janssen_basic(b, v, n);
    }
  });
}

}  // namespace detail

// f of the row x (stored, visible to the whole block), the block's threads sharing the work:
// thread i makes y_i = x_i - o_i and z_i = (M y)_i, with the same sums as janssen_value; the
// basic functions' terms are made in parallel too (detail::janssen_basic_block). A thread
// alone would take 10^4 dependent FMAs per component at D = 100, the generation's whole time,
// and then 100 cosines, roots or Katsuura's 32-term sums. Every thread of the block must call
// it, with blockDim.x <= device::kMaxRowBlockThreads; every thread gets f.
__device__ inline double janssen_block_value(const JanssenView& v, const real_t* x) {
  __shared__ double y[kJanssenMaxDim], z[kJanssenMaxDim];
  __shared__ double fit[kJanssenMaxComponents], d2[kJanssenMaxComponents];
  __shared__ alignas(16) unsigned char
      scratch[device::kMaxRowBlockThreads * detail::kJanssenPartialBytes];
  const JanssenSpec& s = v.spec;
  const int n = static_cast<int>(v.dim);
  const int t = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const bool composition = s.kind == JanssenKind::kComposition;
  const int parts = composition ? s.components : 1;
  double f = 0.0;
  for (int c = 0; c < parts; ++c) {
    const double* o = v.o + c * n;
    for (int j = t; j < n; j += threads) y[j] = static_cast<double>(x[j]) - o[j];
    __syncthreads();
    if (t == 0 && composition) {  // |x - o|^2 in janssen_shift's order
      double distance2 = 0.0;
      for (int j = 0; j < n; ++j) distance2 += y[j] * y[j];
      d2[c] = distance2;
    }
    for (int i = t; i < n; i += threads)
      z[i] = detail::janssen_rotate_row(v, c, y, i);
    __syncthreads();
    if (composition) {
      const double g = detail::janssen_basic_block(s.basic[c], z, n, scratch);
      if (t == 0) fit[c] = janssen_component(s, c, g);
    } else if (s.kind == JanssenKind::kBasic) {
      f = detail::janssen_basic_block(s.basic[0], z, n, scratch) + s.optimum_value;
    } else {  // hybrid: z permuted (into y), cut into parts, as janssen_rotated_value
      for (int k = t; k < n; k += threads) y[k] = z[v.perm[k]];
      __syncthreads();
      f = janssen_hybrid_sum(s, n, y,
                             [&](JanssenBasic b, const double* part, int size) {
                               return detail::janssen_basic_block(b, part, size, scratch);
                             }) +
          s.optimum_value;
    }
    __syncthreads();  // y and z are the next component's
  }
  if (composition) {
    __shared__ double composed;
    if (t == 0) composed = janssen_compose(s, n, fit, d2);
    __syncthreads();
    f = composed;
    __syncthreads();  // composed is the next call's
  }
  return f;
}
#endif

}  // namespace chainsaw
