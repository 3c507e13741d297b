// The `chainsaw` command line: `chainsaw run ...` and `chainsaw functions`.
#pragma once

namespace chainsaw {

// The whole program. Exit codes: 0 success (and --help), 2 a mistake in the input (one line on
// stderr: "chainsaw: error: ..."), 1 anything else ("chainsaw: internal error: ...").
int cli_main(int argc, char** argv);

}  // namespace chainsaw
