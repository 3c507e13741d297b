// The `chainsaw` command line: `chainsaw run ...` and `chainsaw functions`.
#pragma once

#include <string>
#include <vector>

#include "core/config.hpp"
#include "io/parse_value.hpp"
#include "io/results/result_json.hpp"

namespace chainsaw {

// The whole program. Exit codes: 0 success (and --help), 2 a mistake in the input (one line on
// stderr: "chainsaw: error: ..."), 1 anything else ("chainsaw: internal error: ...").
int cli_main(int argc, char** argv);

// The command line's options as the Python module (python/src/module.cpp) takes them: as
// keywords, parsed and checked by the same code. Every function below throws UserError (one
// line) for a bad option or value.

// One option of `chainsaw run` or `chainsaw resume`, in --help order.
struct OptionSpec {
  std::string name;          // the long name without its dashes: "blx-alpha"
  std::string default_text;  // as --help shows it; "" for a flag (off) or a path (none)
  std::string type;          // "INT", "REAL", "auto|cpu|cuda", ...; "" for a flag
  bool flag = false;         // takes no value
  std::string help;
};
std::vector<OptionSpec> run_option_specs();
std::vector<OptionSpec> resume_option_specs();

// `chainsaw run ARGS` parsed, not run: ARGS without "run", e.g. {"--dim", "1000"}.
struct RunRequest {
  Config config;
  std::string output;  // empty: none
  bool quiet = false;
  bool profile = false;
  bool dry_run = false;
  std::string checkpoint;  // empty: none
  CheckpointInterval checkpoint_every;
};
RunRequest parse_run_request(const std::vector<std::string>& args);
// The checks `chainsaw run` makes before it starts, for one process (no --distribute):
// the configuration, the output and checkpoint paths, the backend (resolved), the memory.
RunEnvironment check_run_request(RunRequest& request);
// --dry-run: prints the memory plan to stdout; true when the run fits.
bool dry_run_request(const RunRequest& request, Backend backend);

// `chainsaw resume ARGS` parsed and checked against its checkpoint (one process): the
// configuration the resumed run has, and its environment (resumed_from, the backend).
struct ResumeRequest {
  RunRequest run;  // config: the checkpoint's with the new budget; checkpoint: default the file
  std::string file;
  RunEnvironment env;
};
ResumeRequest parse_resume_request(const std::vector<std::string>& args);

}  // namespace chainsaw
