// Checkpoints through the real binary: resume with a larger budget, SIGINT and SIGTERM, SIGKILL
// in the middle of a write, and damaged, foreign or mismatching files.
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "io/version.hpp"

namespace chainsaw {
namespace {

using test::CliTest;
using test::expect_one_line_error;
using test::lines_of;
using test::Outcome;
using test::read_file;
namespace fs = std::filesystem;

constexpr const char* kRun = "run --function rastrigin --dim 2000 --seed 5 --backend cpu -q";

double best_of(const fs::path& json) {
  return nlohmann::json::parse(read_file(json)).at("best_fitness").get<double>();
}

// A child process running the binary with `args` (split on spaces), stdout and stderr to files.
// Killed and reaped when it goes out of scope, so a failing assertion leaves no process behind.
class Child {
 public:
  Child(const std::string& args, const fs::path& err);
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  void signal(int signal_number) const { ::kill(pid_, signal_number); }
  // Waits for the exit; the code as the shell reports it (128 + signal when killed).
  int wait_exit_code() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
};

Child::Child(const std::string& args, const fs::path& err) {
  pid_ = ::fork();
  if (pid_ == 0) {
    std::vector<std::string> words;
    std::istringstream in(args);
    for (std::string w; in >> w;) words.push_back(w);
    std::vector<char*> argv{const_cast<char*>(CHAINSAW_BINARY)};
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    std::freopen("/dev/null", "w", stdout);
    std::freopen(err.c_str(), "w", stderr);
    ::execv(CHAINSAW_BINARY, argv.data());
    std::_Exit(127);
  }
}

bool wait_for(const std::function<bool()>& condition, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

class CheckpointCli : public CliTest {
 protected:
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  bool has_partial_file(const std::string& target) const {
    for (const auto& entry : fs::directory_iterator(dir_))
      if (entry.path().filename().string().rfind("." + target + ".tmp.", 0) == 0) return true;
    return false;
  }
};

// The property through the CLI: N evaluations checkpointed, resumed to 2N, equal the
// run of 2N; resumed without a new budget, equal the run of N. N cuts units at the budget.
TEST_F(CheckpointCli, ResumeExtendsTheBudgetExactly) {
  ASSERT_EQ(chainsaw(std::string(kRun) + " --evals 4000 -o " + p("whole.json")).exit_code, 0);
  for (int n : {1234, 2000}) {
    SCOPED_TRACE(n);
    const std::string ck = p("n" + std::to_string(n) + ".h5");
    ASSERT_EQ(chainsaw(std::string(kRun) + " --evals " + std::to_string(n) + " --checkpoint " +
                       ck + " -o " + p("part.json"))
                  .exit_code,
              0);
    const Outcome longer = chainsaw("resume " + ck + " --evals 4000 -q --checkpoint " +
                                    p("longer.h5") + " -o " + p("longer.json"));
    ASSERT_EQ(longer.exit_code, 0) << longer.err;
    EXPECT_EQ(best_of(p("whole.json")), best_of(p("longer.json")));
    const Outcome same = chainsaw("resume " + ck + " -q --checkpoint " + p("same.h5") + " -o " +
                                  p("same.json"));
    ASSERT_EQ(same.exit_code, 0) << same.err;
    EXPECT_EQ(best_of(p("part.json")), best_of(p("same.json")));
    const auto resumed = nlohmann::json::parse(read_file(p("longer.json")));
    EXPECT_EQ(resumed.at("resumed_from").get<std::string>(), ck);
    EXPECT_EQ(resumed.at("evaluations").at("total").get<std::int64_t>(), 4000);
  }
}

TEST_F(CheckpointCli, InspectPrintsTheSummary) {
  ASSERT_EQ(chainsaw(std::string(kRun) + " --evals 1500 --checkpoint " + p("a.h5") + " -o " +
                     p("a.json"))
                .exit_code,
            0);
  const Outcome o = chainsaw("inspect " + p("a.h5"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* field : {"layout version    4", "algorithm         ma-sw-chains",
                            "function          rastrigin",
                            "dim               2000", "evaluations done  1500 of a budget of 1500",
                            "backend           cpu", "best fitness"})
    EXPECT_NE(o.out.find(field), std::string::npos) << field << " not in\n" << o.out;
}

// SIGINT and SIGTERM: a checkpoint at the next safe point, one message, exit 128 + signal; the
// resumed run ends where the uninterrupted one does.
TEST_F(CheckpointCli, StopSignalsCheckpointAndResumeExactly) {
  const std::string args = "run --function sumsquares --dim 1000 --seed 9 --backend cpu -q "
                           "--evals 100000";
  ASSERT_EQ(chainsaw(args + " -o " + p("whole.json")).exit_code, 0);
  for (int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig);
    const std::string ck = p("sig" + std::to_string(sig) + ".h5");
    Child child(args + " --checkpoint " + ck + " --checkpoint-every 5000 -o " + p("never.json"),
                p("err.txt"));
    ASSERT_TRUE(wait_for([&] { return fs::exists(ck); }, 60.0)) << "no periodic checkpoint";
    child.signal(sig);
    EXPECT_EQ(child.wait_exit_code(), 128 + sig);
    const auto err = lines_of(read_file(p("err.txt")));
    ASSERT_EQ(err.size(), 1u) << read_file(p("err.txt"));
    EXPECT_NE(err[0].find(sig == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM"),
              std::string::npos)
        << err[0];
    EXPECT_NE(err[0].find("chainsaw resume " + ck), std::string::npos) << err[0];
    EXPECT_FALSE(fs::exists(p("never.json")));
    const Outcome inspect = chainsaw("inspect " + ck);
    EXPECT_NE(inspect.out.find("(signal)"), std::string::npos) << inspect.out;
    const Outcome resumed = chainsaw("resume " + ck + " -q -o " + p("resumed.json"));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_EQ(best_of(p("whole.json")), best_of(p("resumed.json")));
  }
}

// SIGKILL while a checkpoint is being written (its temporary file exists): the previous
// checkpoint is intact and resumes.
TEST_F(CheckpointCli, SigkillDuringAWriteLeavesThePreviousCheckpoint) {
  const std::string ck = p("run.h5");
  bool killed_mid_write = false;
  for (int attempt = 0; attempt < 10 && !killed_mid_write; ++attempt) {
    fs::remove(ck);
    // 100,000 genes x 70 slots x 2 arrays: each write takes a while, and one is due every batch.
    Child child("run --function rastrigin --dim 100000 --evals 100000000 --seed 2 --backend cpu "
                "-q --checkpoint " + ck + " --checkpoint-every 20",
                p("err.txt"));
    ASSERT_TRUE(wait_for([&] { return fs::exists(ck); }, 60.0));
    killed_mid_write = wait_for([&] { return has_partial_file("run.h5"); }, 10.0);
    child.signal(SIGKILL);
    child.wait_exit_code();
    killed_mid_write = killed_mid_write && has_partial_file("run.h5");
  }
  ASSERT_TRUE(killed_mid_write) << "never caught a write in progress";
  const Outcome inspect = chainsaw("inspect " + ck);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const std::string marker = "evaluations done  ";
  const std::size_t at = inspect.out.find(marker);
  ASSERT_NE(at, std::string::npos) << inspect.out;
  const long long done = std::stoll(inspect.out.substr(at + marker.size()));
  const Outcome resumed = chainsaw("resume " + ck + " --evals " + std::to_string(done + 100) +
                                   " -q --checkpoint " + p("after.h5") + " -o " + p("r.json"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(p("r.json"))).at("evaluations").at("total"),
            done + 100);
}

// The file's format_version attribute set to `version` (the summary checksum then fails too, but
// the version is read first and named).
void set_format_version(const std::string& path, std::int64_t version) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t attribute = H5Aopen(file, "format_version", H5P_DEFAULT);
  EXPECT_GE(H5Awrite(attribute, H5T_NATIVE_INT64, &version), 0);
  H5Aclose(attribute);
  H5Fclose(file);
}

// A CEC run's checkpoint embeds its instance: the resume needs no file, and neither a deleted
// nor a changed --instance file changes the problem.
TEST_F(CheckpointCli, Cec2010CheckpointEmbedsTheInstance) {
  const std::string inst = p("inst.h5");
  auto exported = [&](int seed) {
    return chainsaw("instance export --function cec2010-f14 --dim 1000 --problem-seed " +
                    std::to_string(seed) + " -o " + inst)
        .exit_code;
  };
  ASSERT_EQ(exported(11), 0);
  const std::string run =
      "run --function cec2010-f14 --dim 1000 --seed 2 --backend cpu -q --instance " + inst;
  ASSERT_EQ(chainsaw(run + " --evals 3000 -o " + p("whole.json")).exit_code, 0);
  ASSERT_EQ(chainsaw(run + " --evals 1300 --checkpoint " + p("part.h5") + " -o " + p("part.json"))
                .exit_code,
            0);
  const Outcome inspect = chainsaw("inspect " + p("part.h5"));
  EXPECT_NE(inspect.out.find("instance          embedded (read from --instance " + inst + ")"),
            std::string::npos)
      << inspect.out;

  fs::remove(inst);
  const Outcome resumed = chainsaw("resume " + p("part.h5") + " --evals 3000 -q --checkpoint " +
                                   p("longer.h5") + " -o " + p("longer.json"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(best_of(p("whole.json")), best_of(p("longer.json")));

  ASSERT_EQ(exported(12), 0);  // another instance under the same name
  const Outcome changed = chainsaw("resume " + p("part.h5") + " --evals 3000 -q --checkpoint " +
                                   p("changed.h5") + " -o " + p("changed.json"));
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_EQ(best_of(p("whole.json")), best_of(p("changed.json")));
  ASSERT_EQ(chainsaw(run + " --evals 3000 -o " + p("other.json")).exit_code, 0);
  EXPECT_NE(best_of(p("whole.json")), best_of(p("other.json")));

  // A checkpoint is an instance file too: --instance reads its /instance.
  ASSERT_EQ(chainsaw("run --function cec2010-f14 --dim 1000 --seed 2 --backend cpu -q --evals "
                     "3000 --instance " + p("part.h5") + " -o " + p("from_checkpoint.json"))
                .exit_code,
            0);
  EXPECT_EQ(best_of(p("whole.json")), best_of(p("from_checkpoint.json")));
}

// Files of the format versions before 4 (and after) are refused in one line that names their
// version and the chainsaw that wrote them (the one that reads them). v3-ma-sw-chains.h5 is a version 3 file
// as chainsaw 0.7.0 wrote it (rastrigin, D = 10, 300 evaluations, seed 1).
TEST_F(CheckpointCli, OlderFormatVersionsAreRefusedByName) {
  const std::string v3 = p("v3.h5");
  fs::copy_file(std::string(CHAINSAW_TEST_DATA) + "/checkpoints/v3-ma-sw-chains.h5", v3);
  const std::string before = read_file(v3);
  for (const std::string& command :
       {"resume " + v3 + " -q --checkpoint " + p("new.h5"), "inspect " + v3}) {
    expect_one_line_error(chainsaw(command),
                          "checkpoint " + v3 + ": format version 3 (written by chainsaw 0.7.0); "
                          "this chainsaw reads format version 4 only: resume it with the "
                          "chainsaw that wrote it");
  }
  EXPECT_EQ(before, read_file(v3)) << "the file was modified";
  EXPECT_FALSE(fs::exists(p("new.h5")));

  // A version 1 file and one from a later chainsaw (version 5) are named alike.
  ASSERT_EQ(chainsaw(std::string(kRun) + " --evals 300 --checkpoint " + p("v1.h5") + " -o " +
                     p("v1.json"))
                .exit_code,
            0);
  fs::copy_file(p("v1.h5"), p("v5.h5"));
  set_format_version(p("v1.h5"), 1);
  set_format_version(p("v5.h5"), 5);
  expect_one_line_error(chainsaw("resume " + p("v1.h5") + " -q"),
                        "format version 1 (written by chainsaw");
  expect_one_line_error(chainsaw("inspect " + p("v5.h5")),
                        "format version 5 (written by chainsaw " + std::string(kVersion) +
                            "); this chainsaw reads format version 4 only");
}

// The embedded instance is checked as an instance file is: a version 2 checkpoint without it,
// or with a rotation that is not orthogonal, is refused in one line.
TEST_F(CheckpointCli, ABadEmbeddedInstanceIsRefused) {
  ASSERT_EQ(chainsaw("run --function cec2010-f9 --dim 200 --seed 1 --backend cpu -q --evals 500 "
                     "--checkpoint " + p("good.h5") + " -o " + p("good.json"))
                .exit_code,
            0);
  fs::copy_file(p("good.h5"), p("none.h5"));
  {
    const hid_t file = H5Fopen(p("none.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(H5Ldelete(file, "instance", H5P_DEFAULT), 0);
    H5Fclose(file);
  }
  expect_one_line_error(chainsaw("resume " + p("none.h5") + " -q"),
                        "checkpoint " + p("none.h5") + ": has no group instance");
  fs::copy_file(p("good.h5"), p("skew.h5"));
  {
    const hid_t file = H5Fopen(p("skew.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t m = H5Dopen2(file, "instance/M", H5P_DEFAULT);
    std::vector<double> skew(2500, 0.0);
    for (int i = 0; i < 50; ++i) skew[i * 51] = i == 3 ? 2.0 : 1.0;
    ASSERT_GE(H5Dwrite(m, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, skew.data()), 0);
    H5Dclose(m);
    H5Fclose(file);
  }
  expect_one_line_error(chainsaw("resume " + p("skew.h5") + " -q"),
                        "checkpoint " + p("skew.h5") + ": instance: rotation is not orthogonal");
}

// Every bad file gives one error line and exit 2, and is left exactly as it was.
class DamagedCheckpoint : public CheckpointCli {
 protected:
  void SetUp() override {
    CheckpointCli::SetUp();
    ASSERT_EQ(chainsaw(std::string(kRun) + " --evals 1500 --checkpoint " + p("good.h5") +
                       " -o " + p("good.json"))
                  .exit_code,
              0);
  }
  void expect_refused(const std::string& file, const std::string& must_contain,
                      const std::string& extra = "") {
    const std::string before = read_file(file);
    expect_one_line_error(chainsaw("resume " + file + " -q " + extra), must_contain);
    if (extra.empty()) expect_one_line_error(chainsaw("inspect " + file), must_contain);
    EXPECT_EQ(before, read_file(file)) << "the file was modified";
  }
};

TEST_F(DamagedCheckpoint, TruncatedFile) {
  fs::copy_file(p("good.h5"), p("cut.h5"));
  fs::resize_file(p("cut.h5"), fs::file_size(p("cut.h5")) / 2);
  expect_refused(p("cut.h5"), "cut.h5");
}

// A flipped byte inside a chunk of genes fails that chunk's Fletcher-32 checksum.
TEST_F(DamagedCheckpoint, FlippedBytesInTheGenes) {
  fs::copy_file(p("good.h5"), p("flipped.h5"));
  haddr_t address = 0;
  hsize_t size = 0;
  {
    const hid_t file = H5Fopen(p("flipped.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t genes = H5Dopen2(file, "/algorithm/genes", H5P_DEFAULT);
    const hid_t space = H5Dget_space(genes);
    hsize_t offset[2];
    unsigned filter_mask = 0;
    ASSERT_GE(H5Dget_chunk_info(genes, space, 7, offset, &filter_mask, &address, &size), 0);
    H5Sclose(space);
    H5Dclose(genes);
    H5Fclose(file);
  }
  ASSERT_GT(size, 100u);
  test::flip_byte(p("flipped.h5"), address + size / 2, 0x5a);
  // inspect reads no dataset, so only resume can notice.
  const std::string before = read_file(p("flipped.h5"));
  expect_one_line_error(chainsaw("resume " + p("flipped.h5") + " -q"), "algorithm/genes");
  EXPECT_EQ(before, read_file(p("flipped.h5")));
}

// The named arrays under /algorithm are checked by name, shape and content before any is
// restored: slots out of fitness order, a missing array, an array of another length.
TEST_F(DamagedCheckpoint, ArraysOutOfOrderMissingOrResizedAreRefused) {
  const auto edited = [&](const std::string& name, const std::function<void(hid_t)>& edit) {
    fs::copy_file(p("good.h5"), p(name));
    const hid_t file = H5Fopen(p(name).c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    EXPECT_GE(file, 0);
    edit(file);
    H5Fclose(file);
    return p(name);
  };
  const std::string swapped = edited("swapped.h5", [](hid_t file) {
    const hid_t order = H5Dopen2(file, "algorithm/order", H5P_DEFAULT);
    const hid_t space = H5Dget_space(order);
    std::vector<std::int32_t> slots(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    H5Sclose(space);
    ASSERT_GE(H5Dread(order, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, slots.data()), 0);
    std::swap(slots[0], slots[1]);
    ASSERT_GE(H5Dwrite(order, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, slots.data()), 0);
    H5Dclose(order);
  });
  expect_one_line_error(chainsaw("resume " + swapped + " -q"),
                        "algorithm/order is not the fitness order of the slots");
  const std::string missing = edited("missing.h5", [](hid_t file) {
    ASSERT_GE(H5Ldelete(file, "algorithm/bias", H5P_DEFAULT), 0);
  });
  expect_one_line_error(chainsaw("resume " + missing + " -q"), "dataset algorithm/bias");
  const std::string resized = edited("resized.h5", [](hid_t file) {
    ASSERT_GE(H5Ldelete(file, "algorithm/fitness", H5P_DEFAULT), 0);
    const hsize_t three[1] = {3};
    const hid_t space = H5Screate_simple(1, three, nullptr);
    const hid_t data = H5Dcreate2(file, "algorithm/fitness", H5T_NATIVE_DOUBLE, space,
                                  H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const double values[3] = {1.0, 2.0, 3.0};
    EXPECT_GE(H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0);
    H5Dclose(data);
    H5Sclose(space);
  });
  expect_one_line_error(chainsaw("resume " + resized + " -q"),
                        "dataset algorithm/fitness does not hold 70 values");
}

TEST_F(DamagedCheckpoint, ForeignHdf5File) {
  {
    const hid_t file = H5Fcreate(p("other.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[1] = {16};
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    const hid_t data = H5Dcreate2(file, "x", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT);
    std::vector<double> v(16, 1.5);
    H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(data);
    H5Sclose(space);
    H5Fclose(file);
  }
  expect_refused(p("other.h5"), "not a chainsaw checkpoint");
}

TEST_F(DamagedCheckpoint, TextFile) {
  std::ofstream(p("notes.txt")) << "function rastrigin\ndim 2000\n";
  expect_refused(p("notes.txt"), "not an HDF5 file");
}

TEST_F(DamagedCheckpoint, MissingFile) {
  expect_one_line_error(chainsaw("resume " + p("absent.h5")), "no such file");
}

TEST_F(DamagedCheckpoint, MismatchingFlags) {
  expect_refused(p("good.h5"), "--dim = 999", "--dim 999");
  expect_refused(p("good.h5"), "--function = griewank", "--function griewank");
  expect_refused(p("good.h5"), "--evals = 100", "--evals 100");
}

}  // namespace
}  // namespace chainsaw
