// `chainsaw run` and `chainsaw resume` (docs/cli.md): the checks before a run starts, then the
// run driver (io/run/run_driver.hpp), the result file and the summary line.
#pragma once

#include <string>

#include "core/config.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/cli/run_flags.hpp"
#include "io/results/result_json.hpp"
#include "io/run/ranks.hpp"

namespace chainsaw::cli {

// Both return the exit code: 0, or 128 + the signal that stopped the run.
int run_command(const RunOptions& o, const Ranks& ranks);
int resume_command(ResumeOptions& r, const Ranks& ranks);

// The output and checkpoint paths probed before any work starts (UserError naming the flag).
void check_paths(const std::string& output, const std::string& checkpoint);
// The checkpoint's configuration with what a resume may change (UserError for the rest).
void apply_resume_flags(const ResumeOptions& r, const CheckpointHeader& header,
                        const std::string& file, Config& config);
[[noreturn]] void resume_mismatch(const std::string& file, const std::string& flag,
                                  const std::string& given, const std::string& saved);

}  // namespace chainsaw::cli
