// The one way chainsaw writes a file (result JSON, checkpoint, instance export, report). A
// regular file (or a new one) is written whole or not at all: a temporary file next to the
// target, renamed over it once complete. Anything else, a character device (/dev/null), a FIFO
// or stdout ("-"), is written in place and never replaced. Every write, flush and close is
// checked; a failure is one UserError naming the cause ("No space left on device"). The
// target is probed before a run starts, so a bad path fails in a second, not after hours.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace chainsaw {

// What a path names as a write target.
enum class OutputTarget {
  kFile,     // a regular file, or none yet: temporary-then-rename
  kSpecial,  // an existing character device, FIFO or socket: written in place
  kStdout,   // "-"
};
OutputTarget output_target(const std::string& path);

// Throws UserError naming `flag` and `path` for an empty path, a directory, a missing or
// read-only directory (probed by creating and removing a file) or a special file chainsaw
// cannot open for writing. "-" (stdout) passes.
void check_output_writable(const std::string& flag, const std::string& path);

// As check_output_writable, and refuses what a resume could not read back: stdout and special
// files (a checkpoint must be a regular file).
void check_checkpoint_writable(const std::string& flag, const std::string& path);

// Throws UserError when two of `outputs` (flag, path; empty paths skipped) name the same file:
// the one written last would destroy the other.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

// A finished temporary file waiting to replace its target: the first half of
// commit_atomically, so that the ranks of a distributed run can all stage their checkpoints
// before any of them replaces its last good one. Removed unless committed. For a special
// target the temporary lies in the system's temporary directory and commit() copies it in.
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

  // Renames the file over the target and flushes the directory (a special target: copies the
  // bytes in); throws UserError when it cannot (a regular target then holds what it held).
  void commit();

 private:
  std::string flag_, path_, temporary_;
  OutputTarget target_ = OutputTarget::kFile;
};

// Calls `write(temporary_path)` to fill a temporary file (the callback may truncate and rewrite
// it), flushes it to disk and puts it in place. On any failure, an exception from `write`
// included, the temporary file is removed, the exception propagates and whatever a regular
// `path` held before is untouched.
void commit_atomically(const std::string& flag, const std::string& path,
                       const std::function<void(const std::string& temporary_path)>& write);

// Writes `content` to `path`: a regular file through a temporary file and a rename, a special
// file or "-" (stdout) in place. UserError naming the cause on any failure.
void write_file_atomically(const std::string& flag, const std::string& path,
                           const std::string& content);

// Flushes stdout; UserError naming the cause when anything written to it was lost.
void check_stdout_flushed();

// Async-signal-safe: removes the temporary file being written, if any (a second SIGINT ends
// the process without waiting for the write).
void remove_unfinished_temporary() noexcept;

}  // namespace chainsaw
