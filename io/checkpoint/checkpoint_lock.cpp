#include "io/checkpoint/checkpoint_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/error.hpp"

namespace chainsaw {

namespace {

// The lock file held, for remove_held_lock_file (a signal handler may not allocate).
char g_held[4096] = {};

void note_held(const std::string& path) {
  if (path.size() < sizeof g_held) std::memcpy(g_held, path.c_str(), path.size() + 1);
}

}  // namespace

void remove_held_lock_file() noexcept {
  if (g_held[0] != '\0') ::unlink(g_held);
}

std::string checkpoint_lock_path(const std::string& path) {
  const std::filesystem::path p(path);
  return (p.parent_path() / ("." + p.filename().string() + ".lock")).string();
}

CheckpointLock::CheckpointLock(const std::string& flag, const std::string& path)
    : lock_path_(checkpoint_lock_path(path)) {
  auto fail = [&](const std::string& why) { throw UserError(flag + " = " + path + ": " + why); };
  // The holder removes the file as it ends: a lock taken on a file since unlinked is stale, so
  // take it again on the file now at the path.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      fail("cannot create the lock file " + lock_path_ + " (" + std::strerror(errno) + ")");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK)
        fail("another running chainsaw writes this checkpoint (it holds " + lock_path_ +
             "); give this run another --checkpoint");
      fail("cannot lock " + lock_path_ + " (" + std::strerror(err) + ")");
    }
    struct stat held {}, now {};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path_.c_str(), &now) == 0 &&
        held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
      fd_ = fd;
      note_held(lock_path_);
      return;
    }
    ::close(fd);
  }
  fail("cannot lock " + lock_path_ + " (it keeps being replaced)");
}

CheckpointLock::~CheckpointLock() { release(); }

CheckpointLock::CheckpointLock(CheckpointLock&& other) noexcept
    : lock_path_(std::move(other.lock_path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

CheckpointLock& CheckpointLock::operator=(CheckpointLock&& other) noexcept {
  if (this != &other) {
    release();
    lock_path_ = std::move(other.lock_path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

void CheckpointLock::release() noexcept {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // while still held: no other process can be between the two
  g_held[0] = '\0';
  ::close(fd_);
  fd_ = -1;
}

}  // namespace chainsaw
