// ETC matrix files of the task-scheduling problem (`--function etc --instance FILE`; format in
// docs/functions.md): plain text, whitespace-separated positive numbers, task-major (each task's
// time on machine 0, 1, ..., m - 1), so that Braun et al.'s published files (one value a line)
// read as they are; `#` starts a comment that runs to the end of its line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace chainsaw {

// The tasks x machines values of `path`, task-major. Throws UserError "--instance = PATH: ..."
// (one line: what is wrong and where) for a file that cannot be read, a token that is not a
// number, a value that is not finite and positive, or a count other than tasks x machines.
std::vector<double> read_etc_file(const std::string& path, std::int64_t tasks, int machines);

}  // namespace chainsaw
