#include "core/distributed/mpi_communicator.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

// Every MPI call is checked: a failure becomes an InternalError with MPI's own words.
#define CHAINSAW_MPI_TRY(call)                                                        \
  do {                                                                                \
    const int chainsaw_mpi_rc = (call);                                               \
    if (chainsaw_mpi_rc != MPI_SUCCESS)                                               \
      throw ::chainsaw::InternalError(mpi_error_text(#call, chainsaw_mpi_rc), __FILE__, \
                                      __LINE__);                                      \
  } while (0)

namespace chainsaw {

namespace {

std::string mpi_error_text(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return std::string(call) + " failed";
  return std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length));
}

int as_int(std::size_t n) {
  CHAINSAW_EXPECTS(n <= static_cast<std::size_t>(INT_MAX), "an MPI count above INT_MAX");
  return static_cast<int>(n);
}

// Calls piece(offset, count) for consecutive pieces of `bytes` of at most `largest` bytes each.
template <class Piece>
void in_pieces(std::size_t bytes, std::size_t largest, Piece piece) {
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(largest, bytes - done);
    piece(done, as_int(n));
    done += n;
  }
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  CHAINSAW_MPI_TRY(MPI_Initialized(&initialized));
  CHAINSAW_EXPECTS(!initialized, "MPI is initialised twice");
  int provided = MPI_THREAD_SINGLE;
  CHAINSAW_MPI_TRY(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw InternalError("the MPI library does not support MPI_THREAD_FUNNELED", __FILE__,
                        __LINE__);
  }
}

MpiSession::~MpiSession() {
  int finalized = 0;
  if (MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) MPI_Finalize();
}

void MpiSession::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; this keeps [[noreturn]] honest if it did
}

struct MpiCommunicator::Handle {
  MPI_Comm comm = MPI_COMM_NULL;
};

MpiCommunicator::MpiCommunicator(std::size_t max_message_bytes)
    : comm_(std::make_unique<Handle>()), max_message_(max_message_bytes) {
  CHAINSAW_EXPECTS(max_message_ >= 1 && max_message_ <= static_cast<std::size_t>(INT_MAX),
                   "MPI message limit outside [1, INT_MAX]");
  // A communicator of our own: its error handler does not change MPI_COMM_WORLD's, and no
  // library that also uses MPI_COMM_WORLD can match our messages.
  CHAINSAW_MPI_TRY(MPI_Comm_dup(MPI_COMM_WORLD, &comm_->comm));
  CHAINSAW_MPI_TRY(MPI_Comm_set_errhandler(comm_->comm, MPI_ERRORS_RETURN));
  CHAINSAW_MPI_TRY(MPI_Comm_rank(comm_->comm, &rank_));
  CHAINSAW_MPI_TRY(MPI_Comm_size(comm_->comm, &size_));
  MPI_Comm node = MPI_COMM_NULL;  // the ranks sharing this host (and its GPUs)
  CHAINSAW_MPI_TRY(MPI_Comm_split_type(comm_->comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL,
                                       &node));
  CHAINSAW_MPI_TRY(MPI_Comm_rank(node, &node_rank_));
  CHAINSAW_MPI_TRY(MPI_Comm_free(&node));
}

MpiCommunicator::~MpiCommunicator() {
  int finalized = 0;
  if (comm_->comm != MPI_COMM_NULL && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized)
    MPI_Comm_free(&comm_->comm);
}

void MpiCommunicator::allgatherv(const void* in, void* out,
                                 const std::vector<std::size_t>& counts) {
  CHAINSAW_EXPECTS(counts.size() == static_cast<std::size_t>(size_),
                   "allgatherv needs one count per rank");
  std::vector<std::size_t> offsets(counts.size());
  std::size_t total = 0;
  bool small = true;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    offsets[r] = total;
    total += counts[r];
    small = small && total <= max_message_;
  }
  auto* bytes_out = static_cast<std::uint8_t*>(out);
  if (small) {
    std::vector<int> count(counts.size()), displacement(counts.size());
    for (std::size_t r = 0; r < counts.size(); ++r) {
      count[r] = as_int(counts[r]);
      displacement[r] = as_int(offsets[r]);
    }
    // MPI_IN_PLACE would need `in` copied first; the send buffer may not alias `out`.
    CHAINSAW_MPI_TRY(MPI_Allgatherv(in, count[rank_], MPI_BYTE, bytes_out, count.data(),
                                    displacement.data(), MPI_BYTE, comm_->comm));
    return;
  }
  // MPI's int counts and displacements cannot address this much: each rank's part goes to the
  // others as a broadcast in pieces. Slower than one allgatherv, and only met beyond 2^30 bytes.
  if (counts[rank_] > 0) std::memcpy(bytes_out + offsets[rank_], in, counts[rank_]);
  for (int root = 0; root < size_; ++root)
    broadcast(bytes_out + offsets[root], counts[root], root);
}

void MpiCommunicator::broadcast(void* data, std::size_t bytes, int root) {
  auto* p = static_cast<std::uint8_t*>(data);
  in_pieces(bytes, max_message_, [&](std::size_t at, int n) {
    CHAINSAW_MPI_TRY(MPI_Bcast(p + at, n, MPI_BYTE, root, comm_->comm));
  });
}

// Pieces of one message keep their order: MPI does not let messages with the same source,
// tag and communicator overtake each other.
void MpiCommunicator::send(const void* data, std::size_t bytes, int to, int tag) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  in_pieces(bytes, max_message_, [&](std::size_t at, int n) {
    CHAINSAW_MPI_TRY(MPI_Send(p + at, n, MPI_BYTE, to, tag, comm_->comm));
  });
}

void MpiCommunicator::receive(void* data, std::size_t bytes, int from, int tag) {
  auto* p = static_cast<std::uint8_t*>(data);
  in_pieces(bytes, max_message_, [&](std::size_t at, int n) {
    MPI_Status status;
    CHAINSAW_MPI_TRY(MPI_Recv(p + at, n, MPI_BYTE, from, tag, comm_->comm, &status));
    int received = 0;
    CHAINSAW_MPI_TRY(MPI_Get_count(&status, MPI_BYTE, &received));
    CHAINSAW_EXPECTS(received == n, "a message of another size than the receiver expected");
  });
}

void MpiCommunicator::barrier() { CHAINSAW_MPI_TRY(MPI_Barrier(comm_->comm)); }

void MpiCommunicator::allreduce_min(double* values, int count) {
  CHAINSAW_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MIN, comm_->comm));
}

void MpiCommunicator::allreduce_sum(double* values, int count) {
  CHAINSAW_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm_->comm));
}

bool MpiCommunicator::any(bool failed) {
  int flag = failed ? 1 : 0;
  CHAINSAW_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_LOR, comm_->comm));
  return flag != 0;
}

}  // namespace chainsaw
