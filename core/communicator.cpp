#include "core/communicator.hpp"

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
