// The communicator layer of distributed runs (`--distribute shard|islands`): the few collectives
// the engines and the host loop need, on host buffers. One rank per process (and per GPU);
// SingleProcess is the one-rank case, where every collective is a copy, so that the same code
// runs with and without MPI. MpiCommunicator (core/distributed/mpi_communicator.hpp) is the multi-process
// implementation; collectives on device buffers (NCCL) sit beside the CUDA engine.
//
// Every call is collective unless it says otherwise: all ranks make the same calls in the same
// order, which the host loop guarantees because its decisions depend only on values that every
// rank holds identically (fitness, distances, the host generator).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/types.hpp"

namespace chainsaw {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // The rank among those of the same host: which of the host's GPUs a rank takes.
  virtual int node_rank() const { return rank(); }

  // out receives the concatenation, in rank order, of every rank's `in`; rank r contributes
  // counts[r] bytes (the same `counts` on every rank; counts[rank()] bytes are read from `in`).
  virtual void allgatherv(const void* in, void* out, const std::vector<std::size_t>& counts) = 0;
  // `bytes` bytes of `data` from `root` to every rank.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  // Point to point, for migration and for streaming checkpoint blocks to the writing rank
  // (not collective: exactly the two ranks named take part).
  virtual void send(const void* data, std::size_t bytes, int to, int tag) = 0;
  virtual void receive(void* data, std::size_t bytes, int from, int tag) = 0;
  virtual void barrier() = 0;
  // Element-wise minimum and sum of `count` doubles, in place, the same on every rank.
  virtual void allreduce_min(double* values, int count) = 0;
  virtual void allreduce_sum(double* values, int count) = 0;
  // A rank that fails alone (an I/O error on the writing rank) tells the others here: true on
  // every rank when `failed` was true on any.
  virtual bool any(bool failed) = 0;

  bool is_root() const { return rank() == 0; }

  // Typed convenience over allgatherv: every rank contributes counts[r] items of T.
  template <class T>
  std::vector<T> allgather(const T* in, const std::vector<std::size_t>& counts) {
    std::vector<std::size_t> bytes(counts.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      bytes[r] = counts[r] * sizeof(T);
      total += counts[r];
    }
    std::vector<T> out(total);
    allgatherv(in, out.data(), bytes);
    return out;
  }
};

// The one-rank communicator: collectives are copies.
class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allgatherv(const void* in, void* out, const std::vector<std::size_t>& counts) override;
  void broadcast(void*, std::size_t, int) override {}
  void send(const void*, std::size_t, int, int) override;
  void receive(void*, std::size_t, int, int) override;
  void barrier() override {}
  void allreduce_min(double*, int) override {}
  void allreduce_sum(double*, int) override {}
  bool any(bool failed) override { return failed; }
};

// Which genes of every individual a rank holds in a sharded run: [first, first + count) of dim.
// Shards are whole multiples of `granule` genes (the CPU backend's chunk), so that a rank's
// chunks are exactly the one-rank run's chunks with the same random streams and partials.
struct GeneSlice {
  Dim first = 0;
  Dim count = 0;
  Dim dim = 0;  // the problem's whole dimension
  Dim end() const { return first + count; }
  bool whole() const { return first == 0 && count == dim; }
  // The genes of [from, from + n) that this slice holds (count 0: none).
  GeneSlice part(Dim from, Dim n) const;
};

// Rank `rank` of `ranks`: granules split as evenly as possible, the first ranks taking one more.
GeneSlice shard_slice(Dim dim, Dim granule, int rank, int ranks);

// The engines' sharded vectors; `slices` are every rank's, in rank order, tiling [0, dim).
// The whole individual on every rank: each rank's `held` genes, concatenated in rank order.
void allgather_individual(Communicator& comm, const std::vector<GeneSlice>& slices,
                          const real_t* held, real_t* out);
// Genes [first, first + count) of a sharded array into `out` on rank 0, the rank that writes
// checkpoints: every other rank sends the part it holds point to point, so that a block crosses
// the network once (comm null: one rank holding slices[0]). held_part(part, room) returns this
// rank's genes of `part` in host memory, copied into `room` (part.count genes) where they are
// not there already.
using HeldPart = std::function<const real_t*(const GeneSlice& part, real_t* room)>;
void gather_on_root(Communicator* comm, const std::vector<GeneSlice>& slices, Dim first,
                    Dim count, real_t* out, const HeldPart& held_part);

}  // namespace chainsaw
