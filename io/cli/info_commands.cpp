#include "io/cli/info_commands.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "core/error.hpp"
#include "fitness/problem.hpp"
#include "io/cec2013_files.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/instance_file.hpp"
#include "io/results/output_file.hpp"

namespace chainsaw::cli {

int inspect_command(const std::string& file) {
  const CheckpointSummary s = inspect_checkpoint(file);
  std::printf(
      "checkpoint %s\n"
      "  layout version    %lld (chainsaw %s)\n"
      "  algorithm         %s\n"
      "  written           %s (%s)\n"
      "  function          %s\n"
      "  dim               %lld\n"
      "  slots             %lld (population + batch)\n"
      "  backend           %s, %s genes\n"
      "  evaluations done  %lld of a budget of %lld\n"
      "  best fitness      %.17g\n"
      "%s",
      file.c_str(), static_cast<long long>(s.format_version), s.chainsaw_version.c_str(),
      s.algorithm.c_str(), s.written_at.c_str(), s.reason.c_str(), s.function.c_str(), static_cast<long long>(s.dim),
      static_cast<long long>(s.capacity), s.backend.c_str(), s.genes_type.c_str(),
      static_cast<long long>(s.evaluations), static_cast<long long>(s.budget), s.best_fitness,
      s.instance.empty() ? "" : ("  instance          " + s.instance + "\n").c_str());
  return 0;
}

// `chainsaw instance export`: the instance a run would use, written to share or to convert.


void add_export_options(CLI::App& e, ExportOptions& x) {
  e.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  RunOptions& o = x.run;
  Config& c = o.config;
  c.problem_seed = 1;  // a run's with the default --seed 1
  e.add_option("--function", c.function,
               "a CEC 2010 or 2013 function: cec2010-f1 .. cec2010-f20, cec2013-f1 .. cec2013-f15")
      ->type_name("NAME")
      ->required();
  add_number(e, o, "--dim", c.dim, "number of variables D", "INT", parse_int64);
  add_number(e, o, "--problem-seed", c.problem_seed,
             "the run's problem seed: its --problem-seed, or its --seed when that is 0", "UINT",
             parse_uint64);
  e.add_option("--instance", c.instance,
               "read this instance file instead of generating one (converts text <-> HDF5; "
               "cec2013-*: also the official cdatafiles directory)")
      ->type_name("FILE");
  e.add_option("--output,-o", x.output,
               "the file, written whole or not at all: HDF5 when it ends in .h5 or .hdf5, text "
               "otherwise")
      ->type_name("FILE")
      ->required();
}

int export_command(ExportOptions& x) {
  x.run.apply_deferred();
  Config& c = x.run.config;
  const FunctionInfo& info = function_info(c.function);
  if (cec2010_number(info.id) == 0 && cec2013_number(info.id) == 0)
    throw UserError("--function = " + c.function +
                    ": only the cec2010-* and cec2013-* functions have an instance to export");
  c.validate();
  check_output_writable("--output", x.output);
  const Problem problem = make_problem(c.function, c.dim, c.problem_seed, c.instance);
  if (problem.is_cec2013())
    write_cec2013_file("--output", x.output, *problem.cec2013,
                       instance_origin(c.instance, c.problem_seed));
  else
    write_instance_file("--output", x.output, *problem.cec, info,
                        instance_origin(c.instance, c.problem_seed));
  std::fprintf(stderr, "chainsaw: %s D=%lld instance (%s) -> %s\n", info.name,
               static_cast<long long>(c.dim), instance_origin(c.instance, c.problem_seed).c_str(),
               x.output.c_str());
  return 0;
}

int functions_command() {
  std::string out;
  auto table = [&out](const std::vector<FunctionInfo>& functions, const char* title) {
    out += fmt::format("{}\n{:<32} {:<16} {:<14} {}\n", title, "function", "domain",
                       "separability", "formula (z = x - o)");
    for (const FunctionInfo& f : functions) {
      const std::string name =
          f.alias != nullptr ? fmt::format("{} ({})", f.name, f.alias) : std::string(f.name);
      out += fmt::format("{:<32} {:<16} {:<14} {}\n", name,
                         fmt::format("[{:g}, {:g}]", f.lower, f.upper), f.separability, f.formula);
    }
  };
  table(all_functions(), "The paper's functions, f(o) = -330:");
  table(classic_functions(),
        "\nRosenbrock, Zakharov and Nashed et al.'s Table 3 (alias nashed-fN; f1 is cec2010-f1),\n"
        "f(o) = 0 but where the formula says - 330:");
  table(data_functions(),
        "\nFunctions of generated data, from --problem-seed: Schwefel 2.6 and 2.13, f(o) = 0\n"
        "(O(D^2) per evaluation); etc, scheduling tasks (--dim, default 512) on --etc-machines\n"
        "(16) of an ETC matrix of --etc-class (u_c_hihi) or --instance FILE, --etc-lambda 0.75:");
  table(cec2010_functions(),
        "\nCEC 2010 LSGO (Tang et al. 2009), f(o) = 0; m = 50, P a permutation, M a rotation;\n"
        "D >= 50 for f4-f8, D a multiple of 100 for f9-f18; o, P and M generated from\n"
        "--problem-seed or read with --instance FILE (text or HDF5); chainsaw instance export\n"
        "writes one:");
  table(janssen_functions(),
        "\nJanssen et al.'s GPU benchmark (Table 2; alias janssen-fN), CEC'14/'17 definitions,\n"
        "f(o) = the formula's constant; 2 <= D <= 100; o, M (and a hybrid's permutation)\n"
        "generated from --problem-seed or read from the official input_data with --instance DIR\n"
        "(CEC'14's for janssen-f5 and f7, CEC'17's for the others):");
  table(cec2013_functions(),
        "\nCEC 2013 LSGO (Li et al. 2013), f(o) = 0 (F12 at o + 1; F14 has no common optimum);\n"
        "groups of 25/50/100 rotated by R25/R50/R100, weighted, permuted by P; D = 1000 k for\n"
        "f4-f11, 900 k + 5 for f13, f14 (905 as in the competition); o, P, s, w, R generated\n"
        "from --problem-seed or read with --instance DIR (the official cdatafiles) or FILE\n"
        "(chainsaw instance export writes one):");
  write_file_atomically("stdout", "-", out);  // checked: `chainsaw functions > /dev/full` fails
  return 0;
}

// CLI11 messages can span lines; the contract is one line per error.

}  // namespace chainsaw::cli
