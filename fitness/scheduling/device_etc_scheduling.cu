// The task-scheduling fitness on the GPU: a block per individual. For each machine i the block
// walks that machine's tasks in their fixed shortest-first order (EtcView::order, coalesced),
// a chunk of 256 at a time; a thread's value is the task's time if the individual assigns the
// task to i, else 0, and a block-wide inclusive scan (CUB) plus the carry of earlier chunks
// gives each assigned task its completion time. The load of i is the final carry, its flowtime
// the sum of the assigned completion times (EtcFlowtime::kLoads: its load). O(n m) reads per
// individual like the host's loop (etc_scheduling.cpp); the genes are gathered through the
// order (n reals, from L2 for a few individuals at a time). The scan and the final reduction
// are fixed trees: the same bits every run; they add in another order than the host's
// sequential loop, so the two agree to rounding.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include "core/gpu/cuda_check.hpp"
#include "fitness/device_instance_copy.cuh"
#include "fitness/scheduling/etc_scheduling.hpp"

namespace chainsaw {

namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    etc_kernel(EtcView v, const real_t* genes, Dim pitch, double* fitness) {
  using Scan = cub::BlockScan<double, kThreads>;
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  const real_t* x = genes + static_cast<Dim>(blockIdx.x) * pitch;
  double makespan = 0.0;  // every thread keeps the block-wide values (the scan's aggregate)
  double loads = 0.0;     // likewise
  double flowtime = 0.0;  // this thread's share of the completion times
  for (int i = 0; i < v.machines; ++i) {
    const std::int32_t* order = v.order + static_cast<Dim>(i) * v.tasks;
    const double* time = v.sorted_time + static_cast<Dim>(i) * v.tasks;
    double carry = 0.0;
    for (Dim base = 0; base < v.tasks; base += kThreads) {
      const Dim k = base + threadIdx.x;
      const bool assigned =
          k < v.tasks && etc_machine_of(static_cast<double>(x[order[k]]), v.machines) == i;
      const double t = assigned ? time[k] : 0.0;
      double prefix = 0.0, chunk_total = 0.0;
      Scan(temp.scan).InclusiveSum(t, prefix, chunk_total);
      __syncthreads();  // temp is reused by the next chunk's scan
      if (assigned) flowtime += carry + prefix;
      carry += chunk_total;
    }
    makespan = fmax(makespan, carry);
    loads += carry;
  }
  // The branch is the same for the whole block (a kernel parameter): the reduction stays
  // block-wide.
  const double total_flowtime =
      v.flowtime_kind == EtcFlowtime::kLoads ? loads : Reduce(temp.reduce).Sum(flowtime);
  if (threadIdx.x == 0)
    fitness[blockIdx.x] = etc_fitness(makespan, total_flowtime, v.machines, v.lambda);
}

struct DeviceEtc {
  DeviceBuffer<std::int32_t> order;
  DeviceBuffer<double> sorted_time;
  EtcView view;
};

DeviceEtc copy_to_device(const EtcInstance& inst) {
  DeviceEtc d;
  d.order = upload(inst.order);
  d.sorted_time = upload(inst.sorted_time);
  d.view = inst.view();
  d.view.order = d.order.data();
  d.view.sorted_time = d.sorted_time.data();
  return d;
}

}  // namespace

DeviceBatchFn etc_device_batch(std::shared_ptr<const EtcInstance> instance) {
  return device_batch_with_copies(
      std::move(instance), copy_to_device,
      [](const DeviceEtc& d, const real_t* genes, Dim pitch, int rows, double* fitness,
         DeviceStream stream) {
        etc_kernel<<<rows, kThreads, 0, stream>>>(d.view, genes, pitch, fitness);
        CHAINSAW_CUDA_CHECK_LAUNCH();
      });
}

}  // namespace chainsaw
