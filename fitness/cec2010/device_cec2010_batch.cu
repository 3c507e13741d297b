// The CEC 2010 functions over stored rows, a block per row: the batch kernel of the GPU
// population path (DE, jDE, PSO), which makes a generation's rows, then evaluates them here,
// then selects (core/engines/cuda/population_kernels.cuh, BatchRow). Each thread takes a
// contiguous range of items t with the host's code (CecFunction::accumulate: a group's whole
// value at t = g m, gathered through P and rotated by M from global memory, where a few rows'
// reads stay in L2), and the block combines the ranges in index order (fitness/
// device_block_reduce.cuh). The CUDA engine's single huge rows take its own passes instead
// (fitness/cec2010/device_cec2010.cuh). Not the host's order of additions, so the two agree to
// rounding; the same bits run after run.
#include <cuda_runtime.h>

#include "core/gpu/cuda_check.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/device_block_reduce.cuh"
#include "fitness/device_instance_copy.cuh"

namespace chainsaw {

namespace {

constexpr int kThreads = 128;

template <class Fn>
__global__ void __launch_bounds__(kThreads)
    cec_rows_kernel(CecView v, const real_t* genes, Dim pitch, double* fitness) {
  __shared__ typename Fn::Partial parts[kThreads];
  const real_t* x = genes + static_cast<Dim>(blockIdx.x) * pitch;
  const device::GeneRange range = device::thread_genes(v.dim);
  typename Fn::Partial partial{};
  for (Dim t = range.begin; t < range.end; ++t)
    Fn::accumulate(partial, v, x, static_cast<double>(x[t]), t);
  const double f = device::block_fitness<Fn>(partial, parts, v.dim);
  if (threadIdx.x == 0) fitness[blockIdx.x] = f;
}

struct DeviceCec {
  DeviceBuffer<real_t> o;
  DeviceBuffer<std::int32_t> perm, inverse;
  DeviceBuffer<double> rotation;
  CecView view;
};

DeviceCec copy_to_device(const CecInstance& inst) {
  DeviceCec d;
  d.o = upload(inst.o);
  d.perm = upload(inst.perm);
  d.inverse = upload(inst.inverse);
  d.rotation = upload(inst.rotation);
  d.view = inst.view_at(d.o.data(), d.perm.data(), d.inverse.data(), d.rotation.data());
  return d;
}

}  // namespace

DeviceBatchFn cec2010_device_batch(std::shared_ptr<const CecInstance> instance, FunctionId id) {
  return visit_cec2010(id, [&](auto fn) -> DeviceBatchFn {
    using Fn = decltype(fn);
    return device_batch_with_copies(
        std::move(instance), copy_to_device,
        [](const DeviceCec& d, const real_t* genes, Dim pitch, int rows, double* fitness,
           DeviceStream stream) {
          cec_rows_kernel<Fn><<<rows, kThreads, 0, stream>>>(d.view, genes, pitch, fitness);
          CHAINSAW_CUDA_CHECK_LAUNCH();
        });
  });
}

}  // namespace chainsaw
