// Result files are written whole or not at all: a temporary file next to the target, renamed
// over it once complete. The target's directory is probed before a run starts, so a bad path
// fails in a second instead of after hours of optimisation.
#pragma once

#include <functional>
#include <string>

namespace chainsaw {

// Throws UserError naming `flag` and `path` unless a file can be created next to `path`
// (by creating and removing one) and `path` itself is not a directory.
void check_output_writable(const std::string& flag, const std::string& path);

// A finished temporary file in the directory of its target, flushed to disk, waiting to be
// renamed over the target: the first half of commit_atomically, so that the ranks of a
// distributed run can all stage their checkpoints before any of them replaces its last good one.
// Removed unless committed.
class StagedFile {
 public:
  // Calls `write(temporary_path)` and flushes the file; throws as commit_atomically.
  StagedFile(const std::string& flag, const std::string& path,
             const std::function<void(const std::string& temporary_path)>& write);
  ~StagedFile();
  StagedFile(StagedFile&& other) noexcept;
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  StagedFile& operator=(StagedFile&&) = delete;

  // Renames the file over the target and flushes the directory; throws UserError when it cannot
  // (the target then still holds what it held).
  void commit();

 private:
  std::string flag_, path_, temporary_;
};

// Calls `write(temporary_path)` to fill a temporary file in the directory of `path` (the
// callback may truncate and rewrite it), flushes it to disk, renames it to `path` and flushes
// the directory. On any failure, an exception from `write` included, the temporary file is
// removed, the exception propagates and whatever `path` held before is untouched.
void commit_atomically(const std::string& flag, const std::string& path,
                       const std::function<void(const std::string& temporary_path)>& write);

// Writes `content` to a temporary file in the directory of `path`, flushes it to disk and
// renames it to `path`. On any failure the temporary file is removed and UserError thrown.
void write_file_atomically(const std::string& flag, const std::string& path,
                           const std::string& content);

}  // namespace chainsaw
