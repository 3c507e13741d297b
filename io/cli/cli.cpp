#include "io/cli/cli.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/distributed/agreement.hpp"
#include "core/distributed/communicator.hpp"
#if defined(CHAINSAW_MPI)
#include "core/distributed/mpi_communicator.hpp"
#endif
#include "core/error.hpp"
#include "io/cli/exit_codes.hpp"
#include "io/cli/info_commands.hpp"
#include "io/cli/run_commands.hpp"
#include "io/cli/run_flags.hpp"
#include "io/results/output_file.hpp"
#include "io/run/ranks.hpp"
#include "io/study/study_runner.hpp"
#include "io/version.hpp"

namespace chainsaw {

using namespace cli;

namespace {

// Set once this process is a rank of a started MPI job: from then on the ranks agree on who
// reports (core/distributed/agreement.hpp).
bool g_mpi_started = false;

// Before MPI starts, every rank of an mpirun job parses the same command line and fails alike:
// only the launcher's rank 0 reports, the others exit with the same code. The launchers' own
// variables say which rank a process is (Open MPI, PMIx, MPICH/Hydra).
bool is_later_rank_of_a_job() {
  if (g_mpi_started) return false;
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return std::string(value) != "0";
  }
  return false;
}

int report(const char* kind, const std::string& message, int code) {
  if (is_later_rank_of_a_job()) return code;
  std::fprintf(stderr, "chainsaw: %s: %s\n", kind, one_line(message).c_str());
  return code;
}

// The one line and the exit code of an exception that ends the program.
int report_exception(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const AgreedFailure& e) {
    const int code = e.user_error ? kExitUserError : kExitInternalError;
    // The lowest failing rank speaks for the job; the others exit with the same code.
    return e.reporter ? report(e.user_error ? "error" : "internal error", e.what(), code) : code;
  } catch (const UserError& e) {
    return report("error", e.what(), kExitUserError);
  } catch (const std::bad_alloc&) {
    return report("error", "out of memory", kExitInternalError);
  } catch (const std::exception& e) {
    return report("internal error", e.what(), kExitInternalError);
  } catch (...) {
    return report("internal error", "unknown exception", kExitInternalError);
  }
}

// Runs a run or resume `command` in one process, or with --distribute as one rank of the MPI
// job that mpirun started: MPI lives exactly as long as the command, so a plain run never
// touches it.
int with_ranks(Distribute mode, int& argc, char**& argv,
               const std::function<int(const Ranks&)>& command) {
  if (mode == Distribute::kNone) return command(Ranks{});
#if defined(CHAINSAW_MPI)
  MpiSession session(&argc, &argv);
  g_mpi_started = true;
  MpiCommunicator comm;
  try {
    return command(Ranks{&comm, mode});
  } catch (const AgreedFailure&) {
    return report_exception(std::current_exception());
  } catch (...) {
    // This rank failed between two collectives, where the others cannot learn of it: the one
    // line, then the whole job ends rather than hang.
    MpiSession::abort(report_exception(std::current_exception()));
  }
#else
  (void)argc;
  (void)argv;
  (void)command;
  throw UserError(fmt::format("--distribute {}: this chainsaw was built without MPI",
                              distribute_name(mode)));
#endif
}

// `chainsaw study` (docs/study.md).
void add_study_options(CLI::App& study, std::string& file, std::string& folder, std::string& shard,
                       StudyOptions& o) {
  study.add_option("study_file", file, "the study (TOML; docs/study.md)")
      ->type_name("FILE")
      ->required();
  study.add_option("--out", folder,
                   "the results' folder (default: the file's `folder`, else next to the file, "
                   "named after it)")
      ->type_name("DIR");
  study.add_option("--shard", shard,
                   "run only part i of n of the runs (a job array's task, into the same folder); "
                   "such a part writes no table or report")
      ->type_name("I/N");
  study.add_flag("--no-report", [&o](std::int64_t) { o.report = false; },
                 "write the table, not the report");
  study.add_option("--python", o.python,
                   "the report's interpreter, with SciPy, pandas and matplotlib (default: "
                   "/usr/bin/python3)")
      ->type_name("FILE");
  study.add_flag("--quiet,-q", o.quiet, "no line per finished run");
  study.add_flag("--list", o.list,
                 "print every run's result file, done or todo, and the counts; run nothing");
}

// Parses the command line: the exit code of one that ends here (help, version, a parse error,
// reported), or nothing for one that runs.
std::optional<int> parse_or_exit(CLI::App& app, const CLI::App& instance, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForVersion&) {
    std::printf("chainsaw %s\n", kVersion);
    return 0;
  } catch (const CLI::CallForHelp&) {
    write_file_atomically("stdout", "-", app.help());  // checked, as every output
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    write_file_atomically("stdout", "-", app.help("", CLI::AppFormatMode::All));
    return 0;
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::RequiredError& e) {
    if (app.get_subcommands().empty())
      return report("error",
                    "a subcommand is required: run, resume, inspect, functions, instance or study "
                    "(see chainsaw --help)",
                    kExitUserError);
    if (instance && instance.get_subcommands().empty())
      return report("error", "chainsaw instance: a subcommand is required: export (see chainsaw "
                             "instance export --help)",
                    kExitUserError);
    return report("error", e.what(), kExitUserError);
  } catch (const CLI::ParseError& e) {
    return report("error", e.what(), kExitUserError);
  }
  return std::nullopt;
}

// The command line's work, before stdout's final check.
int dispatch(int argc, char** argv) {
  CLI::App app{fmt::format("chainsaw {}: MA-SW-Chains memetic optimisation of large-scale "
                           "continuous problems on the CPU (OpenMP) or a GPU (CUDA)",
                           kVersion),
               "chainsaw"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  RunOptions options;
  CLI::App* run = app.add_subcommand(
      "run", "run an optimiser (--algorithm, MA-SW-Chains by default) on a benchmark function");
  add_run_options(*run, options);
  ResumeOptions resume_options;
  CLI::App* resume = app.add_subcommand("resume", "continue a run from its HDF5 checkpoint");
  add_resume_options(*resume, resume_options);
  std::string inspect_file;
  CLI::App* inspect =
      app.add_subcommand("inspect", "print what a checkpoint holds, without loading it");
  inspect->add_option("checkpoint_file", inspect_file, "the checkpoint")->type_name("FILE")->required();
  CLI::App* functions =
      app.add_subcommand("functions", "list the benchmark functions with their domains");
  CLI::App* instance =
      app.add_subcommand("instance", "CEC 2010 and 2013 instances: export one as text or HDF5");
  instance->require_subcommand(1);
  ExportOptions export_options;
  CLI::App* export_instance = instance->add_subcommand(
      "export", "write the instance a run would use (generated or read) as text or HDF5");
  add_export_options(*export_instance, export_options);
  std::string study_file, study_folder, study_shard;
  StudyOptions study_options;
  CLI::App* study = app.add_subcommand(
      "study", "run a study file's grid of runs (resumably), then its table and report");
  add_study_options(*study, study_file, study_folder, study_shard, study_options);

  try {
    if (const std::optional<int> code = parse_or_exit(app, *instance, argc, argv)) return *code;
    if (*functions) return functions_command();
    if (*export_instance) return export_command(export_options);
    if (*inspect) return inspect_command(inspect_file);
    if (*study) {
      if (!study_shard.empty()) parse_shard(study_shard, study_options);
      return run_study(read_study(study_file, study_folder), study_options);
    }
    if (*resume) {
      resume_options.run.apply_deferred();
      return with_ranks(resume_options.distribute, argc, argv, [&](const Ranks& ranks) {
        return resume_command(resume_options, ranks);
      });
    }
    options.apply_deferred();
    check_flags_apply(*run, options);
    return with_ranks(options.config.distribute, argc, argv,
                      [&](const Ranks& ranks) { return run_command(options, ranks); });
  } catch (...) {
    return report_exception(std::current_exception());
  }
}

}  // namespace

int cli_main(int argc, char** argv) {
  const int code = dispatch(argc, argv);
  // What printf buffered (--version, --help, the memory plan) is written here: a full disk or
  // a closed pipe is an error, not a silent exit 0.
  try {
    check_stdout_flushed();
  } catch (...) {
    const int failed = report_exception(std::current_exception());
    return code != 0 ? code : failed;
  }
  return code;
}

}  // namespace chainsaw
