#include "core/distributed/device_collective.hpp"

#include <cstring>
#include <string>
#include <vector>

#if defined(CHAINSAW_NCCL)
#include <nccl.h>
#endif

#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"
#include "core/error.hpp"

namespace chainsaw {

namespace {

class HostStagedCollective final : public DeviceCollective {
 public:
  explicit HostStagedCollective(Communicator& comm) : comm_(comm) {}
  int rank() const override { return comm_.rank(); }
  int size() const override { return comm_.size(); }
  void allgather(const void* in, void* out, std::size_t bytes, cudaStream_t stream) override {
    const auto ranks = static_cast<std::size_t>(comm_.size());
    if (staging_.size() < ranks * bytes) staging_ = PinnedBuffer<unsigned char>(ranks * bytes);
    unsigned char* mine = staging_.data() + static_cast<std::size_t>(comm_.rank()) * bytes;
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(mine, in, bytes, cudaMemcpyDeviceToHost, stream));
    CHAINSAW_CUDA_TRY(cudaStreamSynchronize(stream));
    // This rank's bytes sit inside the output; MPI forbids input and output to overlap.
    own_.assign(mine, mine + bytes);
    comm_.allgatherv(own_.data(), staging_.data(), std::vector<std::size_t>(ranks, bytes));
    CHAINSAW_CUDA_TRY(
        cudaMemcpyAsync(out, staging_.data(), ranks * bytes, cudaMemcpyHostToDevice, stream));
    // The staging buffer is reused by the next exchange: the copy must be done by then.
    CHAINSAW_CUDA_TRY(cudaStreamSynchronize(stream));
  }

 private:
  Communicator& comm_;
  PinnedBuffer<unsigned char> staging_;
  std::vector<unsigned char> own_;
};

#if defined(CHAINSAW_NCCL)
void nccl_try(ncclResult_t result, const char* call) {
  if (result != ncclSuccess)
    throw InternalError(std::string("NCCL error in ") + call + ": " + ncclGetErrorString(result),
                        __FILE__, __LINE__);
}

class NcclCollective final : public DeviceCollective {
 public:
  explicit NcclCollective(Communicator& comm) : rank_(comm.rank()), size_(comm.size()) {
    ncclUniqueId id{};
    if (comm.is_root()) nccl_try(ncclGetUniqueId(&id), "ncclGetUniqueId");
    comm.broadcast(&id, sizeof(id), 0);
    nccl_try(ncclCommInitRank(&nccl_, size_, id, rank_), "ncclCommInitRank");
  }
  ~NcclCollective() override {
    if (nccl_) ncclCommDestroy(nccl_);
  }
  NcclCollective(const NcclCollective&) = delete;
  NcclCollective& operator=(const NcclCollective&) = delete;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allgather(const void* in, void* out, std::size_t bytes, cudaStream_t stream) override {
    nccl_try(ncclAllGather(in, out, bytes, ncclUint8, nccl_, stream), "ncclAllGather");
  }

 private:
  int rank_, size_;
  ncclComm_t nccl_ = nullptr;
};
#endif

}  // namespace

std::unique_ptr<DeviceCollective> make_host_staged_collective(Communicator& comm) {
  return std::make_unique<HostStagedCollective>(comm);
}

bool nccl_compiled() {
#if defined(CHAINSAW_NCCL)
  return true;
#else
  return false;
#endif
}

std::unique_ptr<DeviceCollective> make_nccl_collective(Communicator& comm) {
#if defined(CHAINSAW_NCCL)
  return std::make_unique<NcclCollective>(comm);
#else
  (void)comm;
  throw UserError("this build has no NCCL (configure with -DCHAINSAW_NCCL=ON)");
#endif
}

}  // namespace chainsaw
