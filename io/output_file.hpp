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
