// A Janssen function's data on the GPU: the instance's o, M and permutation copied to the
// current device once, and the view the kernels read them through (fitness/janssen/janssen.hpp);
// and f of a row evaluated by a whole block.
#pragma once

#include "core/engines/cuda/device_buffer.hpp"
#include "fitness/device_instance_copy.cuh"
#include "fitness/janssen/janssen_instance.hpp"

namespace chainsaw {

struct DeviceJanssen {
  DeviceBuffer<double> o, rotation;
  DeviceBuffer<std::int32_t> perm;
  JanssenView view;

  explicit DeviceJanssen(const JanssenInstance& inst)
      : o(upload(inst.o)), rotation(upload(inst.rotation)), perm(upload(inst.perm)) {
    view = inst.view();
    view.o = o.data();
    view.rotation = rotation.data();
    view.perm = inst.perm.empty() ? nullptr : perm.data();
  }
};

#if defined(__CUDACC__)
// f of the row x (stored, visible to the whole block), the block's threads sharing the work:
// thread i makes y_i = x_i - o_i and z_i = (M y)_i, with the same sums as janssen_value (so the
// same bits); thread 0 then finishes on z. A thread alone would take 10^4 dependent FMAs per
// component at D = 100, the generation's whole time. Every thread of the block must call it,
// with any blockDim.x; every thread gets f.
__device__ inline double janssen_block_value(const JanssenView& v, const real_t* x) {
  __shared__ double y[kJanssenMaxDim], z[kJanssenMaxDim];
  __shared__ double fit[kJanssenMaxComponents], d2[kJanssenMaxComponents];
  __shared__ double f;
  const JanssenSpec& s = v.spec;
  const int n = static_cast<int>(v.dim);
  const int t = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const bool composition = s.kind == JanssenKind::kComposition;
  const int parts = composition ? s.components : 1;
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
      z[i] = detail::janssen_rotate_row(v.rotation + c * n * n, y, n, i);
    __syncthreads();
    if (t == 0) {
      if (composition)
        fit[c] = janssen_component(s, c, z, n);
      else
        f = janssen_rotated_value(v, z, y);
    }
    __syncthreads();  // y and z are the next component's
  }
  if (t == 0 && composition) f = janssen_compose(s, n, fit, d2);
  __syncthreads();
  const double result = f;
  __syncthreads();  // f is the next call's
  return result;
}
#endif

}  // namespace chainsaw
