// The ranks of a distributed run (`--distribute`; docs/distributed.md): the communicator and the
// mode. A default Ranks is one process. Every step that can fail on one rank runs inside agree(),
// so that all ranks fail together.
#pragma once

#include <functional>
#include <string>

#include "core/config.hpp"
#include "core/distributed/communicator.hpp"

namespace chainsaw {

struct Ranks {
  Communicator* comm = nullptr;
  Distribute mode = Distribute::kNone;

  bool root() const { return comm == nullptr || comm->is_root(); }
  int rank() const { return comm ? comm->rank() : 0; }
  int size() const { return comm ? comm->size() : 1; }
  bool islands() const { return mode == Distribute::kIslands; }
  // The ranks every individual is split over: 1 unless sharded.
  int shard_ranks() const { return mode == Distribute::kShard ? size() : 1; }
  // The communicator a sharded engine exchanges its partials over; null unless sharded.
  Communicator* shard_comm() const { return mode == Distribute::kShard ? comm : nullptr; }
  // Runs `step` so that a failure on one rank fails every rank (core/distributed/agreement.hpp).
  void agree(const std::function<void()>& step) const;
  // Where this rank checkpoints when the run checkpoints to `path`: islands keep a file each.
  std::string checkpoint_path(const std::string& path) const;
  // The command that continues a run checkpointed to `path`.
  std::string resume_command(const std::string& path) const;
};

}  // namespace chainsaw
