// A Janssen function's data on the GPU: the instance's o, M and permutation copied to the
// current device once, and the view the kernels read them through (fitness/janssen/janssen.hpp).
#pragma once

#include "core/engines/cuda/device_buffer.hpp"
#include "fitness/janssen/janssen_instance.hpp"

namespace chainsaw {

struct DeviceJanssen {
  DeviceBuffer<double> o, rotation;
  DeviceBuffer<std::int32_t> perm;
  JanssenView view;

  explicit DeviceJanssen(const JanssenInstance& inst)
      : o(copy(inst.o)), rotation(copy(inst.rotation)), perm(copy(inst.perm)) {
    view = inst.view();
    view.o = o.data();
    view.rotation = rotation.data();
    view.perm = inst.perm.empty() ? nullptr : perm.data();
  }

 private:
  template <class T>
  static DeviceBuffer<T> copy(const std::vector<T>& host) {
    DeviceBuffer<T> d(host.size());
    if (!host.empty())
      CHAINSAW_CUDA_TRY(cudaMemcpy(d.data(), host.data(), d.bytes(), cudaMemcpyHostToDevice));
    return d;
  }
};

}  // namespace chainsaw
