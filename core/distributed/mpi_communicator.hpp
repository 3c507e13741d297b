// The multi-process Communicator over MPI (Open MPI on the CI and the GPU machines): one rank per
// process, host buffers only. Built when CHAINSAW_MPI is ON; mpi.h stays inside the .cpp so that
// the CUDA sources and the installed headers never see it.
//
// MPI is started only for `--distribute shard|islands`: an MpiSession lives exactly as long as a
// distributed command, and a plain `chainsaw run` never touches MPI.
#pragma once

#include <climits>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/distributed/communicator.hpp"

namespace chainsaw {

// MPI_Init_thread (MPI_THREAD_FUNNELED: only the host loop's thread calls MPI, OpenMP threads
// never do) for the object's lifetime, MPI_Finalize at its end. One per process.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  // The last resort when ranks cannot agree on an error (one rank failed between two
  // collectives): ends every rank of the job with `code`.
  [[noreturn]] static void abort(int code);
};

class MpiCommunicator final : public Communicator {
 public:
  // The largest message one MPI call carries; MPI counts are int, so larger buffers go in
  // pieces of at most this many bytes (tests lower it to exercise the pieces).
  static constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 30;

  // A duplicate of MPI_COMM_WORLD whose errors are returned (and thrown as InternalError with
  // MPI's error string) rather than aborting the job.
  explicit MpiCommunicator(std::size_t max_message_bytes = kMaxMessageBytes);
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int node_rank() const override { return node_rank_; }
  void allgatherv(const void* in, void* out, const std::vector<std::size_t>& counts) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  void send(const void* data, std::size_t bytes, int to, int tag) override;
  void receive(void* data, std::size_t bytes, int from, int tag) override;
  void barrier() override;
  void allreduce_min(double* values, int count) override;
  void allreduce_sum(double* values, int count) override;
  bool any(bool failed) override;

 private:
  struct Handle;  // the MPI_Comm
  std::unique_ptr<Handle> comm_;
  std::size_t max_message_;
  int rank_ = 0;
  int size_ = 1;
  int node_rank_ = 0;
};

}  // namespace chainsaw
