// The GPU evaluation of a per-gene objective (include/chainsaw/chainsaw.hpp): the engine's
// bucketed, ordered reduction kernel (fitness/device_reduce.cuh) instantiated for the user's
// type in the user's nvcc-compiled translation unit. The reduction tree follows the launch
// shape, so a user objective equal to a built-in function agrees with it to rounding (about
// 1e-15 relative for sums), not bit for bit as on the CPU.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "core/cuda_check.hpp"
#include "core/device_buffer.hpp"
#include "fitness/device_reduce.cuh"
#include "fitness/external_objective.hpp"
#include "ssga/device_ops.cuh"

namespace chainsaw::detail {

template <class Obj>
struct UserTerm {
  using Partial = typename Obj::Partial;
  Obj objective;
  __device__ void accumulate(Partial& p, double x, Dim j, int) const {
    objective.accumulate(p, x, j);
  }
};

// Rows genes + r * pitch, r < rows; f of row r to out[r].
template <class Obj>
struct UserEvaluateOp {
  static constexpr bool kUsesRng = false;
  __device__ bool stores_rng() const { return false; }
  const real_t* genes;
  Dim pitch;
  Dim dim;
  double* out;
  Obj objective;
  __device__ bool active() const { return true; }
  __device__ void produce(int row, Dim j0, int n, double (&v)[device::kVec], curandState&) const {
    real_t x[device::kVec];
    device::load_genes(genes + static_cast<Dim>(row) * pitch + j0, n, x);
#pragma unroll
    for (int k = 0; k < device::kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) v[k] = x[k];
  }
  __device__ void finish(int row, const typename Obj::Partial& p) const {
    out[row] = objective.finish(p, dim);
  }
};

// A device batch callback for Obj. Its block partials and tickets are allocated on the first
// call and grown when a call has more rows; one wave of blocks over the GPU, as the engine's.
template <class Obj>
class DeviceRowEvaluator {
 public:
  using Partial = typename Obj::Partial;
  using Term = UserTerm<Obj>;
  using Op = UserEvaluateOp<Obj>;

  explicit DeviceRowEvaluator(const Obj& objective) : objective_(objective) {}

  void operator()(const real_t* genes, Dim pitch, int rows, Dim dim, double* out,
                  DeviceStream stream) {
    if (wave_ == 0) {
      int device = 0, sms = 0, per_sm = 0;
      CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
      CHAINSAW_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      CHAINSAW_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, device::produce_reduce_kernel<Term, Op>, device::kThreads, 0));
      wave_ = std::max(1, sms * std::max(1, per_sm));
    }
    const device::ReduceShape shape = device::ReduceShape::make(dim, std::max(1, wave_ / rows));
    const std::size_t partials = static_cast<std::size_t>(rows) * shape.blocks_x;
    if (partials > partials_.size()) partials_ = DeviceBuffer<Partial>(partials);
    if (static_cast<std::size_t>(rows) > tickets_.size()) {
      tickets_ = DeviceBuffer<unsigned>(static_cast<std::size_t>(rows));
      CHAINSAW_CUDA_TRY(cudaMemsetAsync(tickets_.data(), 0, tickets_.bytes(), stream));
    }
    const Op op{genes, pitch, dim, out, objective_};
    const dim3 grid(static_cast<unsigned>(shape.blocks_x), static_cast<unsigned>(rows));
    device::produce_reduce_kernel<Term, Op><<<grid, device::kThreads, 0, stream>>>(
        op, Term{objective_}, shape, nullptr, nullptr, partials_.data(), tickets_.data());
    CHAINSAW_CUDA_CHECK_LAUNCH();
  }

 private:
  Obj objective_;
  int wave_ = 0;  // blocks of one wave of this kernel over the whole GPU
  DeviceBuffer<Partial> partials_;
  DeviceBuffer<unsigned> tickets_;
};

}  // namespace chainsaw::detail
