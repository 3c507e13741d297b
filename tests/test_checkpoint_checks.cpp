// What a resume checks before it trusts a checkpoint, and what a failed checkpoint write keeps:
// a relabelled algorithm, a changed summary attribute, an injected full disk
// (CHAINSAW_FAIL_WRITE, io/results/write_faults.hpp), through the real binary.
#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <filesystem>
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"

namespace chainsaw {
namespace {

using test::CliTest;
using test::expect_one_line_error;
using test::Outcome;
using test::read_file;
namespace fs = std::filesystem;

constexpr const char* kDe =
    "run --algorithm de --function rastrigin --dim 30 --evals 3000 --seed 4 --backend cpu -q";
constexpr const char* kMa = "run --function rastrigin --dim 30 --evals 3000 --seed 4 --backend cpu -q";

// Replaces a root attribute of `path` by a string (as h5py's attrs[name] = value would).
void set_string_attribute(const std::string& path, const char* name, const std::string& value) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  ASSERT_GE(H5Adelete(file, name), 0);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size());
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attribute = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  EXPECT_GE(H5Awrite(attribute, type, value.c_str()), 0);
  H5Aclose(attribute);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(file);
}

void set_double_attribute(const std::string& path, const char* name, double value) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t attribute = H5Aopen(file, name, H5P_DEFAULT);
  ASSERT_GE(attribute, 0);
  EXPECT_GE(H5Awrite(attribute, H5T_NATIVE_DOUBLE, &value), 0);
  H5Aclose(attribute);
  H5Fclose(file);
}

class CheckpointChecks : public CliTest {
 protected:
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
};

TEST_F(CheckpointChecks, ARelabelledAlgorithmIsRefusedInOnePlainLine) {
  ASSERT_EQ(chainsaw(std::string(kDe) + " --checkpoint " + p("de.h5")).exit_code, 0);
  fs::copy_file(p("de.h5"), p("ma.h5"));
  set_string_attribute(p("de.h5"), "algorithm", "pso");
  expect_one_line_error(chainsaw("resume " + p("de.h5")),
                        "its algorithm attribute says pso but run/state holds a de run");
  set_string_attribute(p("ma.h5"), "algorithm", "ma-sw-chains");
  const Outcome o = chainsaw("resume " + p("ma.h5"));
  expect_one_line_error(o, "its algorithm attribute says ma-sw-chains but run/state holds a de run");
  EXPECT_EQ(o.err.find("json"), std::string::npos) << o.err;
}

TEST_F(CheckpointChecks, AChangedSummaryAttributeFailsItsChecksum) {
  ASSERT_EQ(chainsaw(std::string(kMa) + " --checkpoint " + p("c.h5")).exit_code, 0);
  ASSERT_EQ(chainsaw("inspect " + p("c.h5")).exit_code, 0);
  set_double_attribute(p("c.h5"), "best_fitness", -1.0e9);
  expect_one_line_error(chainsaw("inspect " + p("c.h5")), "fail their checksum");
  expect_one_line_error(chainsaw("resume " + p("c.h5")), "fail their checksum");
  // The same for a population algorithm's file and another attribute.
  ASSERT_EQ(chainsaw(std::string(kDe) + " --checkpoint " + p("de.h5")).exit_code, 0);
  const Outcome inspected = chainsaw("inspect " + p("de.h5"));
  EXPECT_NE(inspected.out.find("algorithm         de\n"), std::string::npos) << inspected.out;
  set_string_attribute(p("de.h5"), "written_at", "1999-01-01T00:00:00Z");
  expect_one_line_error(chainsaw("resume " + p("de.h5")), "fail their checksum");
}

// For every write point of the second checkpoint on, a failure keeps the first: the run
// stops in one line naming the cause and what is kept, and that file resumes to the
// uninterrupted run's result.
TEST_F(CheckpointChecks, AFailedCheckpointWriteKeepsTheLastGoodOneAndSaysSo) {
  const std::string args = std::string(kMa) + " --checkpoint-every 1000";
  ASSERT_EQ(chainsaw(args + " --checkpoint " + p("ref.h5") + " -o " + p("ref.json")).exit_code,
            0);
  const double reference =
      nlohmann::json::parse(read_file(p("ref.json"))).at("best_fitness").get<double>();
  int tried = 0;
  for (int n = 1; n < 400; ++n) {
    fs::remove(p("c.h5"));
    const Outcome o = chainsaw(args + " --checkpoint " + p("c.h5") + " -o " + p("r.json"),
                               "env CHAINSAW_FAIL_WRITE=" + std::to_string(n));
    ASSERT_NE(o.exit_code, 0) << "write point " << n << " is past the run's last";
    if (o.err.find("keeps the last good checkpoint") == std::string::npos) continue;
    expect_one_line_error(o, "No space left on device");
    EXPECT_FALSE(fs::exists(p("r.json")));
    const Outcome resumed = chainsaw("resume " + p("c.h5") + " -q -o " + p("r.json"));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_EQ(nlohmann::json::parse(read_file(p("r.json"))).at("best_fitness").get<double>(),
              reference);
    fs::remove(p("r.json"));
    if (++tried == 3) break;
  }
  EXPECT_EQ(tried, 3);
}

TEST_F(CheckpointChecks, TheFirstCheckpointFailingSaysNothingWasWrittenYet) {
  const Outcome o = chainsaw(std::string(kMa) + " --checkpoint " + p("c.h5"),
                             "env CHAINSAW_FAIL_WRITE=1");
  expect_one_line_error(o, "this run wrote no checkpoint yet");
  EXPECT_NE(o.err.find("No space left on device"), std::string::npos) << o.err;
  EXPECT_TRUE(fs::is_empty(dir_));
}

bool has_temporary(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) return true;
  return false;
}

// The second SIGINT lands while a checkpoint (200000 genes a slot, one after every unit) is
// being written.
TEST_F(CheckpointChecks, ASecondSigintDuringTheWriteSaysSoAndLeavesNoTemporaryFile) {
  const std::string err = p("err.txt");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDERR_FILENO);
    ::setenv("OMP_NUM_THREADS", "1", 1);
    const std::string checkpoint = p("c.h5");
    ::execl(CHAINSAW_BINARY, "chainsaw", "run", "--function", "sphere", "--dim", "200000",
            "--evals", "1000000000", "--backend", "cpu", "-q", "--checkpoint",
            checkpoint.c_str(), "--checkpoint-every", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto wait_until = [&](const std::function<bool()>& ready) {
    while (!ready() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ready();
  };
  // A first checkpoint on disk: the run loop, and its signal handler, have started.
  EXPECT_TRUE(wait_until([&] { return fs::exists(p("c.h5")); }));
  ::kill(child, SIGINT);
  const bool writing = wait_until([&] { return has_temporary(dir_); });
  ::kill(child, SIGINT);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(writing) << "the first SIGINT's checkpoint was never seen being written";
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_EQ(read_file(err),
            "chainsaw: second SIGINT: stopped at once, without a new checkpoint (the last one "
            "written is kept)\n");
  EXPECT_FALSE(has_temporary(dir_));
  EXPECT_FALSE(fs::exists(p(".c.h5.lock")));
}

TEST_F(CheckpointChecks, RefusalsOfTheRunLine) {
  expect_one_line_error(chainsaw(std::string(kDe) + " --restart"),
                        "--restart: applies to --algorithm ma-sw-chains only, not to de");
  expect_one_line_error(chainsaw(std::string(kMa) + " --threads 100000"), "at most");
  expect_one_line_error(chainsaw(std::string(kMa) + " --checkpoint-every 10s"),
                        "--checkpoint-every: needs --checkpoint");
  expect_one_line_error(chainsaw(std::string(kMa) + " --checkpoint ''"), "--checkpoint");
  expect_one_line_error(chainsaw(std::string(kMa) + " -o ''"), "--output");
  expect_one_line_error(
      chainsaw(std::string(kMa) + " --checkpoint " + p("x") + " -o " + p("x")), "the same file");
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace chainsaw
