// A user-supplied objective as the engines see it: a batch evaluation of stored vectors, on the
// host and/or on the GPU. Both backends make the genes of a new individual first and then hand
// whole rows to it, the path the CEC 2010 functions take (fitness/problem.hpp, visit_function).
// chainsaw::optimize<Obj> builds one from a per-gene objective type (include/chainsaw/
// chainsaw.hpp); a user may also write one directly for objectives that are no reduction over
// the genes (a simulation, a neural network, a sparse matrix product).
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "core/types.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*: no CUDA header needed to name it
struct CUgraph_st;   // and cudaGraph_t is CUgraph_st*

namespace chainsaw {
namespace device {
class FusedPasses;  // core/engines/cuda/device_passes.cuh
}

using DeviceStream = CUstream_st*;
using DeviceGraph = CUgraph_st*;

// The contract of a batch callback (docs/library.md, "Batch objectives"):
//  - genes: `rows` individuals of `dim` genes, row r at genes + r * pitch (pitch >= dim, in
//    genes); on the CPU backend host memory, on the GPU backend device memory (row starts are
//    128-byte aligned there). Read only, valid during the call.
//  - fitness: `rows` doubles to write, host memory (CPU) or device memory (GPU).
//  - GPU: enqueue the work on `stream` (or make it wait for yours); no synchronisation is
//    needed, the engine orders its next launches after it on that stream. A Solis-Wets step
//    is one call on its two candidates (forward, backward); the backward value is discarded
//    when the forward move succeeded. Never call cudaDeviceSynchronize-dependent APIs that would
//    deadlock on a blocked stream.
//  - rows is between 1 and the population size (the initial population) or the crossover
//    batch; calls come one at a time from the host loop's thread.
//  - A value that is NaN or -inf ranks last: it is stored as +inf and counted
//    (Result::invalid_evaluations).
using HostBatchFn =
    std::function<void(const real_t* genes, Dim pitch, int rows, Dim dim, double* fitness)>;
using DeviceBatchFn = std::function<void(const real_t* genes, Dim pitch, int rows, Dim dim,
                                         double* fitness, DeviceStream stream)>;
// Optional, beside a DeviceBatchFn: the same evaluation of `rows` rows at `genes` into `fitness`
// as a CUDA graph that reads and writes those fixed addresses whenever it is launched. The engine
// asks once for its Solis-Wets candidates (two rows) and embeds copies of the graph in a graph
// of its own, so that a whole Solis-Wets application is one launch: no host call per step.
// The graph stays the objective's (valid while
// it lives) and may contain kernels, memory copies and memsets only (CUDA's rule for the body of
// a conditional node). The engine calls it outside any capture; the rows are ready once the
// work enqueued on `stream` is. nullptr: no graph; the engine calls `device` per step instead.
using DeviceGraphFn = std::function<DeviceGraph(const real_t* genes, Dim pitch, int rows, Dim dim,
                                                double* fitness, DeviceStream stream)>;

struct BatchObjective {
  std::string name;  // stored in checkpoints; a resume must pass the same name
  Dim dim = 0;       // the number of variables it is defined for; 0: any (Options::dim)
  double lower = 0.0;  // the search domain, the same for every variable
  double upper = 0.0;
  std::optional<double> optimum_value;  // f at the optimum when known: Result::best_error
  HostBatchFn host;      // the CPU backend's evaluation; empty: this objective needs a GPU
  DeviceBatchFn device;  // the GPU backend's; empty: this objective runs on the CPU only
  DeviceGraphFn device_graph;  // optional, with `device`: Solis-Wets applications in one launch
  // Set by optimize<Obj> under nvcc for a per-gene objective: the GPU engine's own passes,
  // instantiated for it, make and evaluate its individuals in one sweep (then `device` is unused).
  std::shared_ptr<const device::FusedPasses> device_passes;
};

// The value a fitness becomes before the engines rank it: NaN and -inf (no real minimum) are
// ranked last.
// (numeric_limits is constexpr: callable on the device with --expt-relaxed-constexpr.)
CHAINSAW_HD bool is_invalid_fitness(double f) {
  return f != f || f == -std::numeric_limits<double>::infinity();
}
CHAINSAW_HD double rankable_fitness(double f) {
  return is_invalid_fitness(f) ? std::numeric_limits<double>::infinity() : f;
}

}  // namespace chainsaw
