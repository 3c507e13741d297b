// The problem as the GPU tuning policies see it (core/engines/cuda/tuning/), and the device's
// properties they are chosen from. Plain C++: the selectors run, and are tested, without a GPU.
#pragma once

#include "core/gpu/device_info.hpp"
#include "core/types.hpp"

namespace chainsaw {

class Problem;

// Whether the GPU evaluates a problem's stored vectors by launches of their own (the Solis-Wets
// candidate, a batch of children): CEC 2010 functions and user batch callbacks. The built-in
// functions and a per-gene user objective compiled by nvcc evaluate inside the fused passes.
bool gpu_evaluates_apart(const Problem& problem);

struct GpuWorkload {
  Dim dim = 0;
  bool evaluated_apart = false;  // gpu_evaluates_apart
  // A built-in per-gene function: its o can be read from a device copy instead of hashed.
  bool built_in_term = true;
  bool user_objective = false;
  int slices = 1;        // of the genes' layout (config.gpu_slices, or the ranks of a shard)
  bool sharded = false;  // one rank of a sharded run

  bool whole_rows() const { return !sharded && slices == 1; }
  // The evaluation pass can read o from a device copy: a built-in function's whole rows (the copy
  // would have to follow a sliced layout; the other functions have no built-in term).
  bool stored_shift_possible() const { return built_in_term && whole_rows(); }
  // A NAM batch can be captured as a graph: not a sharded pass (its exchange goes through the
  // host's communicator) nor a user objective (it calls back).
  bool batch_graphs_possible() const { return !sharded && !user_objective; }
  // A Solis-Wets application can run as the chain kernel: whole rows of a function evaluated
  // as its candidates are made.
  bool sw_chain_possible() const { return whole_rows() && !evaluated_apart; }
  // `slices` and `sharded` as the engine lays the genes out.
  static GpuWorkload of(const Problem& problem, int slices, bool sharded);
};

}  // namespace chainsaw
