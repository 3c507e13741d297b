// The command line's exit codes (docs/cli.md "Errors and exit codes").
#pragma once

namespace chainsaw::cli {

constexpr int kExitUserError = 2;      // a mistake in the input: one line on stderr
constexpr int kExitInternalError = 1;  // anything else

}  // namespace chainsaw::cli
