// One live run per checkpoint path: an advisory lock (flock) on a hidden lock file beside the
// checkpoint, `.NAME.lock`. A second run that names the same --checkpoint is refused in one
// line instead of silently replacing the first one's files. The kernel releases the lock when
// the process ends, a crash or SIGKILL included; a clean end also removes the file.
#pragma once

#include <string>

namespace chainsaw {

class CheckpointLock {
 public:
  CheckpointLock() = default;
  // Takes the lock of `path`; throws UserError naming `flag` when another process holds it.
  CheckpointLock(const std::string& flag, const std::string& path);
  ~CheckpointLock();
  CheckpointLock(CheckpointLock&& other) noexcept;
  CheckpointLock& operator=(CheckpointLock&& other) noexcept;
  CheckpointLock(const CheckpointLock&) = delete;
  CheckpointLock& operator=(const CheckpointLock&) = delete;

  bool held() const { return fd_ >= 0; }

 private:
  void release() noexcept;
  std::string lock_path_;
  int fd_ = -1;
};

// Async-signal-safe: removes the lock file this process holds, if any (a second SIGINT ends the
// process at once; the kernel releases the lock itself).
void remove_held_lock_file() noexcept;

// The lock file of a checkpoint path: run.h5 -> .run.h5.lock in the same directory.
std::string checkpoint_lock_path(const std::string& path);

}  // namespace chainsaw
