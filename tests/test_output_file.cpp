// The one output path (io/results/output_file.hpp) and the checkpoint lock: regular files are
// replaced whole, special files are written in place and never replaced, every failure names
// its cause, two outputs on one file and two runs on one checkpoint are refused.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "fitness/cec2010/cec2010.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/problem.hpp"
#include "io/checkpoint/checkpoint_lock.hpp"
#include "io/results/output_file.hpp"
#include "io/run/threads.hpp"
#include "temp_dir_test.hpp"

namespace chainsaw {
namespace {

namespace fs = std::filesystem;
using test::TempDirTest;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

class OutputFile : public TempDirTest {
 protected:
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
};

TEST_F(OutputFile, ReplacesARegularFileWholeWithANewInode) {
  const std::string path = path_in_dir("r.json");
  write_file_atomically("--output", path, "old\n");
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  write_file_atomically("--output", path, "new content\n");
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(slurp(path), "new content\n");
  EXPECT_NE(before.st_ino, after.st_ino);  // renamed over, not rewritten in place
  EXPECT_EQ(entries(), 1u);                // no temporary file left
}

TEST_F(OutputFile, WritesAFifoInPlaceAndLeavesItAFifo) {
  const std::string fifo = path_in_dir("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(output_target(fifo), OutputTarget::kSpecial);
  const pid_t reader = ::fork();
  ASSERT_GE(reader, 0);
  if (reader == 0) {
    const std::string got = slurp(fifo);
    ::_exit(got == "through the pipe\n" ? 0 : 1);
  }
  write_file_atomically("--output", fifo, "through the pipe\n");
  int status = 0;
  ::waitpid(reader, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, ACommittedCallbackFileIsCopiedIntoASpecialTarget) {
  // /dev/null takes the bytes and stays the device it is.
  commit_atomically("--output", "/dev/null", [](const std::string& temporary) {
    std::ofstream(temporary) << "bytes";
  });
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(OutputFile, AFullDeviceNamesTheCause) {
  const std::string why =
      message_of([] { write_file_atomically("--output", "/dev/full", "x\n"); });
  EXPECT_NE(why.find("--output = /dev/full"), std::string::npos) << why;
  EXPECT_NE(why.find("No space left on device"), std::string::npos) << why;
  const std::string staged = message_of([] {
    commit_atomically("--checkpoint", "/dev/full",
                      [](const std::string& t) { std::ofstream(t) << "data"; });
  });
  EXPECT_NE(staged.find("No space left on device"), std::string::npos) << staged;
}

TEST_F(OutputFile, AFailedCallbackKeepsTheOldFileAndLeavesNoTemporary) {
  const std::string path = path_in_dir("c.h5");
  write_file_atomically("--checkpoint", path, "last good\n");
  EXPECT_THROW(commit_atomically("--checkpoint", path,
                                 [](const std::string& t) {
                                   std::ofstream(t) << "half";
                                   throw UserError("disk gone");
                                 }),
               UserError);
  EXPECT_EQ(slurp(path), "last good\n");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, RefusesEmptyPathsDirectoriesAndSpecialCheckpoints) {
  EXPECT_NE(message_of([] { check_output_writable("--output", ""); }).find("--output = ''"),
            std::string::npos);
  fs::create_directory(dir_ / "d");
  EXPECT_NE(message_of([&] { check_output_writable("--output", path_in_dir("d")); })
                .find("is a directory"),
            std::string::npos);
  EXPECT_NE(message_of([] { check_checkpoint_writable("--checkpoint", "/dev/null"); })
                .find("not a regular file"),
            std::string::npos);
  EXPECT_NE(message_of([] { check_checkpoint_writable("--checkpoint", "-"); })
                .find("not a regular file"),
            std::string::npos);
  EXPECT_NO_THROW(check_output_writable("--output", "-"));
  EXPECT_NO_THROW(check_output_writable("--output", "/dev/null"));
  EXPECT_EQ(entries(), 1u);  // the probes leave nothing behind
}

TEST_F(OutputFile, TwoOutputsOnOneFileAreRefusedWhateverTheSpelling) {
  const std::string a = path_in_dir("same.x");
  const std::string b = (dir_ / "sub" / ".." / "same.x").string();
  fs::create_directory(dir_ / "sub");
  const std::string why = message_of([&] {
    check_distinct_outputs({{"--output", a}, {"--checkpoint", b}});
  });
  EXPECT_NE(why.find("the same file as --checkpoint"), std::string::npos) << why;
  std::ofstream(path_in_dir("target")) << "x";
  fs::create_symlink(dir_ / "target", dir_ / "link");
  EXPECT_THROW(check_distinct_outputs({{"--output", path_in_dir("link")},
                                       {"--checkpoint", path_in_dir("target")}}),
               UserError);
  EXPECT_NO_THROW(check_distinct_outputs({{"--output", a}, {"--checkpoint", path_in_dir("c")}}));
  EXPECT_NO_THROW(check_distinct_outputs({{"--output", ""}, {"--checkpoint", ""}}));
}

TEST_F(OutputFile, ACheckpointLockRefusesASecondHolderAndGoesWithTheFirst) {
  const std::string checkpoint = path_in_dir("run.h5");
  const std::string lock_file = checkpoint_lock_path(checkpoint);
  EXPECT_EQ(fs::path(lock_file).filename(), ".run.h5.lock");
  {
    const CheckpointLock first("--checkpoint", checkpoint);
    EXPECT_TRUE(first.held());
    EXPECT_TRUE(fs::exists(lock_file));
    // Another process: flock locks belong to open files, so a child opening its own is refused.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        CheckpointLock second("--checkpoint", checkpoint);
        ::_exit(0);
      } catch (const UserError& e) {
        ::_exit(std::string(e.what()).find("another running chainsaw") != std::string::npos
                    ? 3
                    : 4);
      }
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3);
  }
  EXPECT_FALSE(fs::exists(lock_file));  // a clean end removes it
  EXPECT_NO_THROW(CheckpointLock("--checkpoint", checkpoint));
}

TEST(Threads, CountsBeyondTheMachineAreRefusedWithTheBound) {
  const int limit = max_thread_count();
  EXPECT_GE(limit, 8);
  EXPECT_NO_THROW(check_thread_count("--threads", limit));
  EXPECT_NO_THROW(check_thread_count("--threads", 0));
  const std::string why = message_of([] { check_thread_count("--threads", 100000); });
  EXPECT_NE(why.find("--threads = 100000: at most " + std::to_string(limit)), std::string::npos)
      << why;
}

TEST(Threads, IdleThreadsSleepOnlyWhereTheRunWouldOversubscribeTheProcessors) {
  EXPECT_FALSE(oversubscribed(0, 16, 16));  // a dedicated node: spin
  EXPECT_FALSE(oversubscribed(2, 2, 4));
  EXPECT_TRUE(oversubscribed(1, 16, 16));   // one other task beside a full-width run
  EXPECT_TRUE(oversubscribed(12, 2, 2));    // a loaded 2-core machine
  EXPECT_TRUE(oversubscribed(0, 32, 16));   // more threads than processors
}

TEST(Threads, TheRequestedCountIsReadFromEitherSpellingOfTheFlag) {
  ::unsetenv("OMP_NUM_THREADS");
  char prog[] = "chainsaw", run[] = "run", flag[] = "--threads", four[] = "4", eq[] = "--threads=6";
  char* spaced[] = {prog, run, flag, four, nullptr};
  char* joined[] = {prog, run, eq, nullptr};
  char* none[] = {prog, run, nullptr};
  EXPECT_EQ(requested_threads(spaced), 4);
  EXPECT_EQ(requested_threads(joined), 6);
  EXPECT_EQ(requested_threads(none), 0);
  ::setenv("OMP_NUM_THREADS", "3,2", 1);
  EXPECT_EQ(requested_threads(none), 3);
  EXPECT_EQ(requested_threads(spaced), 4);  // the flag wins, as in the run
  ::unsetenv("OMP_NUM_THREADS");
}

}  // namespace
}  // namespace chainsaw

namespace chainsaw {
namespace {

std::vector<double> identity_rotation() {
  std::vector<double> m(static_cast<std::size_t>(kCecGroup * kCecGroup), 0.0);
  for (int i = 0; i < kCecGroup; ++i) m[static_cast<std::size_t>(i * kCecGroup + i)] = 1.0;
  return m;
}

// A NaN in M once passed the orthogonality check (a later finite error replaced it) and the run
// went to `best inf`.
TEST(InstanceData, ANonFiniteRotationIsRefusedWhereverItLies) {
  const FunctionInfo& info = function_info("cec2010-f4");
  for (const std::size_t at : {std::size_t{0}, std::size_t{7}, std::size_t{kCecGroup * kCecGroup - 1}}) {
    for (const double bad : {std::nan(""), HUGE_VAL, -HUGE_VAL}) {
      CecInstanceData data;
      data.rotation = identity_rotation();
      data.rotation[at] = bad;
      try {
        CecInstance::from_data(data, info, 1000, 1, "test");
        ADD_FAILURE() << "accepted " << bad << " at " << at;
      } catch (const UserError& e) {
        EXPECT_NE(std::string(e.what()).find("is not a finite number"), std::string::npos)
            << e.what();
      }
    }
  }
  std::vector<double> m = identity_rotation();
  m[3] = std::nan("");
  EXPECT_TRUE(std::isnan(orthogonality_error(m, kCecGroup)));
  CecInstanceData good;
  good.rotation = identity_rotation();
  EXPECT_NO_THROW(CecInstance::from_data(good, info, 1000, 1, "test"));
}

}  // namespace
}  // namespace chainsaw
