// What the GPU's passes need of the engine (PassContext): the stream, the buffers, the problem's
// shape and layout, and the tuning policies the launches follow.
#pragma once

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <cstddef>

#include "core/distributed/device_collective.hpp"
#include "core/engines/cuda/tuning/reduce_policy.hpp"
#include "core/engines/cuda/tuning/solis_wets_policy.hpp"
#include "core/types.hpp"
#include "fitness/reduce_shape.hpp"
#include "localsearch/device_sw_state.cuh"

namespace chainsaw::device {

// How many rows of a launch share the GPU: a single row takes every SM, a batch spreads its
// `batch` rows over them (more rows run as further waves).
enum class Spread { kOneRow, kBatch };

// What a pass needs of the engine: the device, its buffers and the problem's shape.
struct PassContext {
  cudaStream_t stream = nullptr;
  int sm_count = 1;
  int batch = 1;     // the rows a batched launch spreads over
  int max_rows = 1;  // the most rows any launch may have (partials and tickets are sized for it)
  Dim dim = 0;    // the problem's
  Dim pitch = 0;  // of the engine's rows
  // The slices of the genes' layout (fitness/device_reduce.cuh, ReduceShape): the engine holds
  // `slices` of them from first_slice on, its rows starting at gene gene_base. A sharded rank
  // holds one; collective (null unless sharded) brings every rank's partials into `gathered`.
  Dim slice_genes = 0;
  int slices = 1;
  int first_slice = 0;
  Dim gene_base = 0;
  std::size_t rng_stride = 0;
  DeviceCollective* collective = nullptr;
  void* gathered = nullptr;
  // The run has several slices or ranks: launches take the sliced kernels.
  bool sliced() const { return slices > 1 || collective != nullptr; }
  double lower = 0.0, upper = 0.0;
  double blx_alpha = 0.0;
  real_t* genes = nullptr;        // capacity x pitch
  double* slot_fitness = nullptr;  // per slot
  double* row_out = nullptr;       // per row of the last launch, read back by the host
  curandState* rng = nullptr;      // one XORWOW state per thread of the largest launch
  void* partials = nullptr;        // block partials: max_rows x blocks of the largest partial
  unsigned* tickets = nullptr;     // per row, zero between launches
  SwDeviceState* sw_state = nullptr;
  // How the launches and the Solis-Wets application run (core/engines/cuda/tuning/): the
  // reduction's launch (programmatic, rows interleaved) and the step's lane width, the chain
  // kernel's staging and pairs. Every choice but the lane width gives the same bits.
  ReducePolicy reduce;
  SolisWetsPolicy solis_wets;
  unsigned long long* invalid = nullptr;  // user objectives: NaN and -inf values are counted
  // The evaluation pass's o in a persisting L2 window (core/gpu/persisting_l2_window.hpp);
  // num_bytes 0: none.
  cudaAccessPolicyWindow shift_window{};
};

}  // namespace chainsaw::device
