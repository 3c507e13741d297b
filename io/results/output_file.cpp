#include "io/results/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace chainsaw {

namespace {

std::string directory_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

[[noreturn]] void fail(const std::string& flag, const std::string& path, const std::string& why) {
  throw UserError(flag + " = " + path + ": " + why);
}

// A new, empty, uniquely named file in the directory of `path`; returns its descriptor.
// Hidden and named after the target, so a leftover from a killed process is recognisable.
int create_temporary(const std::string& flag, const std::string& path, std::string& temp_name) {
  const std::string dir = directory_of(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    fail(flag, path, "directory " + dir + " does not exist");
  }
  if (!S_ISDIR(st.st_mode)) fail(flag, path, dir + " is not a directory");
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(flag, path, "is a directory");

  const std::string base = std::filesystem::path(path).filename().string();
  std::string pattern = dir + "/." + base + ".tmp.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const int fd = ::mkstemp(buffer.data());
  if (fd < 0) {
    const int err = errno;
    fail(flag, path, "cannot create files in " + dir + " (" + std::strerror(err) + ")");
  }
  temp_name.assign(buffer.data());
  return fd;
}

}  // namespace

void check_output_writable(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UserError(flag + " = '': must be a file name");
  std::string temp;
  const int fd = create_temporary(flag, path, temp);
  ::close(fd);
  ::unlink(temp.c_str());
}

StagedFile::StagedFile(const std::string& flag, const std::string& path,
                       const std::function<void(const std::string&)>& write)
    : flag_(flag), path_(path) {
  std::string temp;
  ::close(create_temporary(flag, path, temp));
  auto give_up = [&](const std::string& what) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail(flag, path, what + " (" + std::strerror(err) + ")");
  };
  try {
    write(temp);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  const int fd = ::open(temp.c_str(), O_RDONLY);
  if (fd < 0) give_up("cannot reopen the temporary file");
  const bool synced = ::fsync(fd) == 0;
  // mkstemp makes the file 0600; a result file is ordinary data, so give it the usual mode.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  if (!synced) give_up("cannot flush the file to disk");
  temporary_ = temp;
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : flag_(std::move(other.flag_)),
      path_(std::move(other.path_)),
      temporary_(std::move(other.temporary_)) {
  other.temporary_.clear();
}

StagedFile::~StagedFile() {
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void StagedFile::commit() {
  CHAINSAW_EXPECTS(!temporary_.empty(), "a staged file committed twice");
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    fail(flag_, path_, std::string("cannot rename the finished file into place (") +
                           std::strerror(err) + ")");
  }
  temporary_.clear();
  // The rename itself survives a power cut only once the directory is on disk.
  const int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY);
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
  commit_atomically(flag, path, [&](const std::string& temp) {
    const int fd = ::open(temp.c_str(), O_WRONLY | O_TRUNC);
    if (fd < 0) fail(flag, path, std::string("cannot open the temporary file (") +
                                     std::strerror(errno) + ")");
    const char* data = content.data();
    std::size_t left = content.size();
    while (left > 0) {
      const ssize_t n = ::write(fd, data, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::close(fd);
        fail(flag, path, std::string("cannot write the result (") + std::strerror(err) + ")");
      }
      data += n;
      left -= static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0)
      fail(flag, path, std::string("cannot write the result (") + std::strerror(errno) + ")");
  });
}

}  // namespace chainsaw
