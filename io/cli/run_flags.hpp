// The flags of `chainsaw run` and `chainsaw resume` (docs/cli.md), declared with CLI11 and
// parsed by io/parse_value (one-line errors) once the whole line is read.
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/config.hpp"
#include "fitness/scheduling/etc_scheduling.hpp"
#include "io/cli/cli.hpp"
#include "io/parse_value.hpp"

namespace chainsaw::cli {

// A flag whose text goes through our own parser (io/parse_value.hpp) rather than CLI11's, after
// CLI11 has parsed the whole line: so `--help` wins over a bad value anywhere on the line.
struct DeferredOption {
  CLI::Option* option = nullptr;
  std::string text;
  std::function<void(const std::string&)> apply;
};

struct RunOptions {
  Config config;
  std::string output;  // empty: the JSON goes to stdout
  bool quiet = false;
  bool profile = false;
  bool dry_run = false;
  std::string checkpoint;  // empty: no checkpoints
  CheckpointInterval checkpoint_every;
  std::deque<DeferredOption> deferred;  // a deque: CLI11 keeps a reference to each text
  std::optional<int> population;        // --population, for the chosen algorithm

  // Throws UserError for the first bad value, in the order of `chainsaw run --help`.
  void apply_deferred() {
    bool dim_given = false;
    for (DeferredOption& d : deferred) {
      if (d.option->count() == 0) continue;
      d.apply(d.text);
      dim_given = dim_given || d.option->check_lname("dim");
    }
    // The scheduling problem's variables are its tasks: Braun's 512 unless --dim says otherwise.
    if (!dim_given && config.function == "etc") config.dim = kEtcDefaultTasks;
    apply_population();
  }
  void apply_population();
};

// `chainsaw resume FILE`: the checkpoint's configuration, with a new budget if asked for.
struct ResumeOptions {
  RunOptions run;  // output, progress and checkpoint flags; config comes from the file
  std::string file;
  std::optional<std::int64_t> evaluations;
  std::optional<Backend> backend;
  std::optional<int> threads;
  std::optional<std::string> function;
  std::optional<std::int64_t> dim;
  Distribute distribute = Distribute::kNone;  // must be the checkpoint's
};

// A flag whose value our own parser reads: `parse(flag, text)` once the whole line is parsed.
void add_parsed(CLI::App& app, RunOptions& o, const std::string& flag, const std::string& help,
                const std::string& type, const std::string& default_text,
                std::function<void(const std::string&, const std::string&)> parse);

// A numeric flag into `target`, read by `parser` (io/parse_value.hpp).
template <class T, class Parser>
void add_number(CLI::App& app, RunOptions& o, const std::string& flag, T& target,
                const std::string& help, const std::string& type, Parser parser) {
  add_parsed(app, o, flag, help, type, fmt::format("{}", target),
             [&target, parser](const std::string& f, const std::string& text) {
               target = static_cast<T>(parser(f, text));
             });
}

// Declares every flag of `run` (in --help order) and of `resume` on `app`.
void add_run_options(CLI::App& app, RunOptions& o);
void add_resume_options(CLI::App& app, ResumeOptions& r);

// After parsing `run`'s line (apply_deferred included): UserError for a flag given that does not
// apply to the chosen --algorithm (the table in run_flags.cpp) and for --checkpoint-every
// without --checkpoint.
void check_flags_apply(const CLI::App& run, const RunOptions& o);

// The options of `app` as the Python module lists them.
std::vector<OptionSpec> option_specs(const CLI::App& app);
// Parses `args` (without the subcommand) into what `app` declares; UserError in one line.
void parse_arguments(CLI::App& app, std::vector<std::string> args);
// `text` on one line (CLI11's messages span several).
std::string one_line(std::string text);

}  // namespace chainsaw::cli
