// Result files are written whole or not at all: a temporary file next to the target, renamed
// over it once complete. The target's directory is probed before a run starts, so a bad path
// fails in a second instead of after hours of optimisation.
#pragma once

#include <string>

namespace chainsaw {

// Throws UserError naming `flag` and `path` unless a file can be created next to `path`
// (by creating and removing one) and `path` itself is not a directory.
void check_output_writable(const std::string& flag, const std::string& path);

// Writes `content` to a temporary file in the directory of `path`, flushes it to disk and
// renames it to `path`. On any failure the temporary file is removed and UserError thrown.
void write_file_atomically(const std::string& flag, const std::string& path,
                           const std::string& content);

}  // namespace chainsaw
