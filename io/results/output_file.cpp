#include "io/results/output_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "io/results/write_faults.hpp"

namespace chainsaw {

namespace {

// The temporary file being written, for remove_unfinished_temporary (a signal handler): a
// fixed buffer, since a handler may not allocate.
char g_unfinished[4096] = {};

void note_unfinished(const std::string& temp) {
  if (temp.size() >= sizeof g_unfinished) return;
  std::memcpy(g_unfinished, temp.c_str(), temp.size() + 1);
}

void forget_unfinished() { g_unfinished[0] = '\0'; }

std::string directory_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// "--output = FILE" or, for stdout, "stdout".
std::string target_name(const std::string& flag, const std::string& path) {
  return path == "-" ? "stdout" : flag + " = " + path;
}

[[noreturn]] void fail(const std::string& flag, const std::string& path, const std::string& why) {
  throw UserError(target_name(flag, path) + ": " + why);
}

[[noreturn]] void fail_errno(const std::string& flag, const std::string& path,
                             const std::string& what, int err) {
  fail(flag, path, what + " (" + std::strerror(err) + ")");
}

// Writes all of `data` to `fd`; 0 or the errno of the failure.
int write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    if (write_fault_injected()) return errno;
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

// close(2), checked (NFS and some disks report a failed write only here).
int close_checked(int fd) {
  if (write_fault_injected()) {
    const int err = errno;
    ::close(fd);
    return err;
  }
  return ::close(fd) == 0 ? 0 : errno;
}

// A new, empty, uniquely named file in `dir`, named after `path`'s file name (hidden, so that a
// leftover from a killed process is recognisable); returns its descriptor.
int create_temporary(const std::string& flag, const std::string& path, const std::string& dir,
                     std::string& temp_name) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) fail(flag, path, "directory " + dir + " does not exist");
  if (!S_ISDIR(st.st_mode)) fail(flag, path, dir + " is not a directory");
  std::string base = std::filesystem::path(path).filename().string();
  if (base.empty() || base == "-") base = "stdout";
  std::string pattern = dir + "/." + base + ".tmp.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const int fd = ::mkstemp(buffer.data());
  if (fd < 0) fail_errno(flag, path, "cannot create files in " + dir, errno);
  temp_name.assign(buffer.data());
  return fd;
}

// Where a target's temporary file lies: beside a regular file (the rename stays on one file
// system); the system's temporary directory for a special file, which is copied in.
std::string staging_directory(OutputTarget target, const std::string& path) {
  if (target == OutputTarget::kFile) return directory_of(path);
  std::error_code ignored;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ignored);
  return dir.empty() ? std::string("/tmp") : dir.string();
}

// Opens a special target (or stdout) for writing in place: never created, never truncated.
int open_in_place(const std::string& flag, const std::string& path) {
  if (path == "-") return STDOUT_FILENO;
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail_errno(flag, path, "cannot open for writing", errno);
  return fd;
}

void write_in_place(const std::string& flag, const std::string& path, const char* data,
                    std::size_t size) {
  const int fd = open_in_place(flag, path);
  int err = write_all(fd, data, size);
  if (fd != STDOUT_FILENO) {
    const int closed = close_checked(fd);
    if (err == 0) err = closed;
  }
  if (err != 0) fail_errno(flag, path, "cannot write", err);
}

// Copies the finished temporary file `temp` into a special target.
void copy_in_place(const std::string& flag, const std::string& path, const std::string& temp) {
  const int in = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) fail_errno(flag, path, "cannot reopen the temporary file", errno);
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(in);
      fail_errno(flag, path, "cannot read the temporary file", err);
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(in);
  write_in_place(flag, path, content.data(), content.size());
}

}  // namespace

OutputTarget output_target(const std::string& path) {
  if (path == "-") return OutputTarget::kStdout;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
    return OutputTarget::kFile;
  return OutputTarget::kSpecial;
}

void check_output_writable(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UserError(flag + " = '': must be a file name");
  switch (output_target(path)) {
    case OutputTarget::kStdout:
      return;
    case OutputTarget::kSpecial:
      if (::access(path.c_str(), W_OK) != 0) fail_errno(flag, path, "cannot be written", errno);
      return;
    case OutputTarget::kFile:
      break;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(flag, path, "is a directory");
  std::string temp;
  const int fd = create_temporary(flag, path, directory_of(path), temp);
  ::close(fd);
  ::unlink(temp.c_str());
}

void check_checkpoint_writable(const std::string& flag, const std::string& path) {
  check_output_writable(flag, path);
  if (output_target(path) != OutputTarget::kFile)
    fail(flag, path,
         "not a regular file (a checkpoint must be a file that chainsaw resume can read back)");
}

namespace {

// The file a path names once its symbolic links (dangling ones too: the file is yet to be
// written) and its . and .. are resolved.
std::filesystem::path resolved(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ignored;
  fs::path p = fs::absolute(path, ignored);
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ignored); ++hops) {
    const fs::path target = fs::read_symlink(p, ignored);
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return fs::weakly_canonical(p, ignored).lexically_normal();
}

}  // namespace

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  auto same_file = [](const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
      return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;  // hard links too
    return resolved(a) == resolved(b);
  };
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t k = i + 1; k < outputs.size(); ++k) {
      const auto& [flag_a, a] = outputs[i];
      const auto& [flag_b, b] = outputs[k];
      if (a.empty() || b.empty() || a == "-" || b == "-") continue;
      if (same_file(a, b))
        throw UserError(flag_a + " = " + a + ": the same file as " + flag_b + " = " + b +
                        " (one would overwrite the other)");
    }
}

StagedFile::StagedFile(const std::string& flag, const std::string& path,
                       const std::function<void(const std::string&)>& write)
    : flag_(flag), path_(path), target_(output_target(path)) {
  std::string temp;
  if (target_ == OutputTarget::kFile) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(flag, path, "is a directory");
  }
  {
    // A second SIGINT between the file's creation and its note would leave it behind.
    sigset_t stops, old;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &stops, &old);
    int fd = -1;
    try {
      fd = create_temporary(flag, path, staging_directory(target_, path), temp);
    } catch (...) {
      ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
      throw;
    }
    note_unfinished(temp);
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::close(fd);
  }
  auto give_up = [&](const std::string& what, int err) {
    ::unlink(temp.c_str());
    forget_unfinished();
    fail_errno(flag, path, what, err);
  };
  try {
    write(temp);
  } catch (...) {
    ::unlink(temp.c_str());
    forget_unfinished();
    throw;
  }
  const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) give_up("cannot reopen the temporary file", errno);
  const bool failed_sync = write_fault_injected() || ::fsync(fd) != 0;
  const int sync_error = errno;
  // mkstemp makes the file 0600; a result file is ordinary data, so give it the usual mode.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  if (failed_sync) give_up("cannot flush the file to disk", sync_error);
  temporary_ = temp;
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : flag_(std::move(other.flag_)),
      path_(std::move(other.path_)),
      temporary_(std::move(other.temporary_)),
      target_(other.target_) {
  other.temporary_.clear();
}

StagedFile::~StagedFile() {
  if (temporary_.empty()) return;
  ::unlink(temporary_.c_str());
  forget_unfinished();
}

void StagedFile::commit() {
  CHAINSAW_EXPECTS(!temporary_.empty(), "a staged file committed twice");
  if (target_ != OutputTarget::kFile) {
    const std::string temp = std::move(temporary_);
    temporary_.clear();
    struct Remove {
      const std::string& name;
      ~Remove() {
        ::unlink(name.c_str());
        forget_unfinished();
      }
    } remove{temp};
    copy_in_place(flag_, path_, temp);
    return;
  }
  if (write_fault_injected() || std::rename(temporary_.c_str(), path_.c_str()) != 0)
    fail_errno(flag_, path_, "cannot rename the finished file into place", errno);
  temporary_.clear();
  forget_unfinished();
  // The rename itself survives a power cut only once the directory is on disk.
  const int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void commit_atomically(const std::string& flag, const std::string& path,
                       const std::function<void(const std::string&)>& write) {
  StagedFile(flag, path, write).commit();
}

void write_file_atomically(const std::string& flag, const std::string& path,
                           const std::string& content) {
  if (output_target(path) != OutputTarget::kFile) {
    std::fflush(stdout);  // what printf buffered comes first
    write_in_place(flag, path, content.data(), content.size());
    return;
  }
  commit_atomically(flag, path, [&](const std::string& temp) {
    const int fd = ::open(temp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) fail_errno(flag, path, "cannot open the temporary file", errno);
    int err = write_all(fd, content.data(), content.size());
    const int closed = close_checked(fd);
    if (err == 0) err = closed;
    if (err != 0) fail_errno(flag, path, "cannot write", err);
  });
}

void check_stdout_flushed() {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int err = errno;
  if (flushed && !std::ferror(stdout)) return;
  std::clearerr(stdout);
  // A failure inside an earlier printf leaves no errno to report.
  throw UserError(std::string("stdout: cannot write (") +
                  (err != 0 ? std::strerror(err) : "output lost") + ")");
}

void remove_unfinished_temporary() noexcept {
  if (g_unfinished[0] != '\0') ::unlink(g_unfinished);
}

}  // namespace chainsaw
