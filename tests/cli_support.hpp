// The `chainsaw` binary as a user meets it: run through the shell, with its exit code, stdout,
// stderr and the files it leaves behind. Shared by the CLI and checkpoint tests.
#pragma once

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_dir_test.hpp"

namespace chainsaw::test {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The binary's tests: a fresh directory per test for every file a run writes.
class CliTest : public TempDirTest {
 protected:
  // Runs `chainsaw <args>`, after `launcher` (e.g. mpiexec and its flags) when given; stdout
  // through the pipe, stderr through a file outside dir_.
  Outcome chainsaw(const std::string& args, const std::string& launcher = "") {
    const std::string err_file = dir_.string() + ".stderr";
    // Every call here finishes in seconds; the timeout turns a run that should have been refused
    // up front (see kLongRun) into a failure instead of a hang.
    const std::string command =
        "timeout 120 " + launcher + " '" + CHAINSAW_BINARY + "' " + args + " 2>'" + err_file + "'";
    Outcome o;
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return o;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) o.out.append(buffer, n);
    const int status = ::pclose(pipe);
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    o.err = read_file(err_file);
    std::remove(err_file.c_str());
    return o;
  }

  // Runs `command` with stdout and stderr on a pseudo-terminal; everything comes back in `out`.
  Outcome chainsaw_on_terminal(const std::string& command) {
    const std::string shell = "script -qec \"" + command + "\" /dev/null";
    Outcome o;
    std::FILE* pipe = ::popen(shell.c_str(), "r");
    if (pipe == nullptr) return o;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) o.out.append(buffer, n);
    const int status = ::pclose(pipe);
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return o;
  }

  std::vector<std::string> files_in_dir() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename());
    return names;
  }

  std::string out_path(const std::string& name = "r.json") const { return (dir_ / name).string(); }

  // `chainsaw run <args>` of MA-SW-Chains and of DE with one and with two OpenMP threads: the
  // same run (expect_same_run_result, below).
  void expect_runs_independent_of_threads(const std::string& args);

  // DE's initial population (40 individuals, nothing selected yet) of `chainsaw run <args>` on
  // the CPU and on the GPU, which draw the same genes and evaluate them with the same code: the
  // same best to round-off. For a GPU test.
  void expect_gpu_initial_best_is_the_cpus(const std::string& args) {
    std::vector<double> best;
    for (const std::string backend : {"cpu", "cuda"}) {
      const std::string out = out_path(backend + ".json");
      const Outcome o = chainsaw("run --algorithm de --de-np 40 --evals 40 " + args +
                                 " --backend " + backend + " -q --output '" + out + "'");
      ASSERT_EQ(o.exit_code, 0) << o.err;
      best.push_back(nlohmann::json::parse(read_file(out)).at("best_fitness").get<double>());
    }
    EXPECT_NEAR(best[1], best[0], 1e-11 * std::fabs(best[0]));
  }
};

// The binary as the ranks of one MPI job (CHAINSAW_MPIEXEC, set by tests/CMakeLists.txt when
// the build has MPI); the tests skip in builds without it.
class MpiCliTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
#if !defined(CHAINSAW_MPIEXEC)
    GTEST_SKIP() << "built without MPI";
#endif
  }
  // `chainsaw <args>` as rank 0 .. ranks-1 of one job.
  Outcome on_ranks(int ranks, const std::string& args) {
#if defined(CHAINSAW_MPIEXEC)
    return chainsaw(args, std::string(CHAINSAW_MPIEXEC) + " " + std::to_string(ranks));
#else
    (void)ranks;
    (void)args;
    return {};
#endif
  }
  nlohmann::json result(const std::string& name) {
    return nlohmann::json::parse(read_file(out_path(name)));
  }
};

// Two result files of the same run: exactly, not to a tolerance.
inline void expect_same_run_result(const nlohmann::json& one, const nlohmann::json& other) {
  EXPECT_EQ(one.at("best_fitness").get<double>(), other.at("best_fitness").get<double>());
  EXPECT_EQ(one.at("distance_to_optimum").get<double>(),
            other.at("distance_to_optimum").get<double>());
  EXPECT_EQ(one.at("evaluations"), other.at("evaluations"));
}

inline void CliTest::expect_runs_independent_of_threads(const std::string& args) {
  for (const char* algorithm : {"ma-sw-chains", "de"}) {
    std::vector<nlohmann::json> results;
    for (const char* threads : {"1", "2"}) {
      const std::string out = out_path(std::string(algorithm) + threads + ".json");
      const Outcome o = chainsaw(std::string("run --algorithm ") + algorithm + " " + args +
                                     " --backend cpu -q --output '" + out + "'",
                                 std::string("env OMP_NUM_THREADS=") + threads);
      ASSERT_EQ(o.exit_code, 0) << o.err;
      results.push_back(nlohmann::json::parse(read_file(out)));
    }
    expect_same_run_result(results[0], results[1]);
  }
}

// The one-line error contract: exit code 2, one non-empty stderr line naming the problem.
// from_job: the binary ran under mpirun, which adds its own note about a non-zero exit; the
// contract is then one line from chainsaw, whichever rank failed.
inline void expect_one_line_error(const Outcome& o, const std::string& must_contain,
                                  bool from_job = false) {
  EXPECT_EQ(o.exit_code, 2) << o.err;
  std::vector<std::string> lines;
  for (const std::string& line : lines_of(o.err))
    if (!from_job || line.rfind("chainsaw:", 0) == 0) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u) << "stderr:\n" << o.err;
  EXPECT_EQ(lines[0].rfind("chainsaw: error: ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(must_contain), std::string::npos)
      << "'" << must_contain << "' not in: " << lines[0];
  EXPECT_TRUE(o.out.empty()) << o.out;
}

}  // namespace chainsaw::test
