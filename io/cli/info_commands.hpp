// The subcommands that run nothing: `inspect` (a checkpoint's summary), `functions` (the list),
// `instance export` (a generated or read instance as text or HDF5).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "io/cli/run_flags.hpp"

namespace chainsaw::cli {

int inspect_command(const std::string& file);

struct ExportOptions {
  RunOptions run;  // config: function, dim, problem_seed, instance
  std::string output;
};
void add_export_options(CLI::App& e, ExportOptions& x);
int export_command(ExportOptions& x);

int functions_command();

}  // namespace chainsaw::cli
