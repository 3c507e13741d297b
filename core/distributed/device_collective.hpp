// Collectives on device buffers, for the CUDA engine of a sharded run (`--distribute shard`):
// the one exchange of a pass, every rank's block partials to every rank, enqueued on the
// engine's stream. NCCL's is the real one (one rank per GPU, NVLink or the network); the
// host-staged one goes through pinned host memory and a host Communicator (MPI, or the test
// suite's threads) and syncs the stream: correct, slower, and usable where NCCL is missing.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>

#include "core/distributed/communicator.hpp"

namespace chainsaw {

class DeviceCollective {
 public:
  virtual ~DeviceCollective() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // out (device, size() x bytes) receives every rank's `bytes` bytes of `in` (device), rank
  // after rank. Collective, and ordered on `stream` like a kernel launch.
  virtual void allgather(const void* in, void* out, std::size_t bytes, cudaStream_t stream) = 0;
};

std::unique_ptr<DeviceCollective> make_host_staged_collective(Communicator& comm);

// Whether this build has NCCL (CMake: CHAINSAW_NCCL).
bool nccl_compiled();
// The NCCL communicator of comm's ranks (rank 0 makes the unique id, comm broadcasts it); the
// calling process's GPU must already be selected. Throws UserError without NCCL.
std::unique_ptr<DeviceCollective> make_nccl_collective(Communicator& comm);

}  // namespace chainsaw
