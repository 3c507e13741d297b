#include "core/distributed/communicator.hpp"

#include <cstring>
#include <algorithm>

#include "core/error.hpp"

namespace chainsaw {

void SingleProcess::allgatherv(const void* in, void* out, const std::vector<std::size_t>& counts) {
  CHAINSAW_EXPECTS(counts.size() == 1, "one rank, one count");
  if (counts[0] > 0) std::memcpy(out, in, counts[0]);
}

void SingleProcess::send(const void*, std::size_t, int, int) {
  CHAINSAW_EXPECTS(false, "a one-rank run has no one to send to");
}

void SingleProcess::receive(void*, std::size_t, int, int) {
  CHAINSAW_EXPECTS(false, "a one-rank run has no one to receive from");
}

GeneSlice GeneSlice::part(Dim from, Dim n) const {
  const Dim begin = std::max(from, first), stop = std::min(from + n, end());
  return {begin, stop > begin ? stop - begin : 0, dim};
}

void allgather_individual(Communicator& comm, const std::vector<GeneSlice>& slices,
                          const real_t* held, real_t* out) {
  std::vector<std::size_t> bytes;
  for (const GeneSlice& s : slices) bytes.push_back(static_cast<std::size_t>(s.count) * sizeof(real_t));
  comm.allgatherv(held, out, bytes);
}

void gather_on_root(Communicator* comm, const std::vector<GeneSlice>& slices, Dim first,
                    Dim count, real_t* out, const HeldPart& held_part) {
  constexpr int kTag = 1;  // checkpoint blocks on their way to rank 0
  const int me = comm == nullptr ? 0 : comm->rank();
  std::vector<real_t> room;
  for (int r = 0; r < static_cast<int>(slices.size()); ++r) {
    const GeneSlice part = slices[static_cast<std::size_t>(r)].part(first, count);
    if (part.count == 0 || (me != 0 && r != me)) continue;
    const auto n = static_cast<std::size_t>(part.count);
    real_t* const to = out + (part.first - first);  // rank 0's
    if (r != me) {
      comm->receive(to, n * sizeof(real_t), r, kTag);
    } else if (me == 0) {
      const real_t* genes = held_part(part, to);
      if (genes != to) std::copy(genes, genes + n, to);
    } else {
      room.resize(n);
      comm->send(held_part(part, room.data()), n * sizeof(real_t), 0, kTag);
    }
  }
}

GeneSlice shard_slice(Dim dim, Dim granule, int rank, int ranks) {
  CHAINSAW_EXPECTS(dim > 0 && granule > 0 && ranks > 0 && rank >= 0 && rank < ranks,
                   "shard of an empty problem or of a rank that does not exist");
  const Dim granules = (dim + granule - 1) / granule;
  const Dim base = granules / ranks, extra = granules % ranks;
  const Dim first_granule = rank * base + std::min<Dim>(rank, extra);
  const Dim own = base + (rank < extra ? 1 : 0);
  GeneSlice s;
  s.dim = dim;
  s.first = std::min(dim, first_granule * granule);
  s.count = std::min(dim, (first_granule + own) * granule) - s.first;
  return s;
}

}  // namespace chainsaw
