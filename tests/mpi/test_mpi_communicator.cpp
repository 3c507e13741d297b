// MpiCommunicator on real data, under `mpiexec -np 2` (or more): every collective, in one
// MPI call and in pieces (a message limit of a few bytes forces the pieces that buffers beyond
// 2^30 bytes take), and MPI errors thrown rather than aborting the job.
#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/distributed/mpi_communicator.hpp"

namespace chainsaw {
namespace {

// The byte rank r puts at position i of its part: distinct for every (r, i).
std::uint8_t byte_of(int rank, std::size_t i) { return static_cast<std::uint8_t>(31 * rank + 7 * i + 1); }

class MpiCommunicatorTest : public ::testing::TestWithParam<std::size_t> {
 protected:
  MpiCommunicator comm{GetParam()};
};

TEST_P(MpiCommunicatorTest, RanksAreDistinctAndSizeIsTheJobs) {
  ASSERT_GE(comm.size(), 2) << "run under mpiexec -np 2 or more";
  std::vector<std::size_t> ones(static_cast<std::size_t>(comm.size()), 1);
  const int mine = comm.rank();
  const std::vector<int> ranks = comm.allgather(&mine, ones);
  std::vector<int> expected(ranks.size());
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(ranks, expected);
  EXPECT_EQ(comm.is_root(), comm.rank() == 0);
}

// Rank r contributes 3r + 5 bytes (rank 1 of a larger job: none at all).
TEST_P(MpiCommunicatorTest, AllgathervConcatenatesEveryRanksPartInRankOrder) {
  std::vector<std::size_t> counts;
  for (int r = 0; r < comm.size(); ++r) counts.push_back(r == 1 && comm.size() > 2 ? 0 : 3 * r + 5);
  std::vector<std::uint8_t> in(counts[comm.rank()]);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = byte_of(comm.rank(), i);
  const std::vector<std::uint8_t> out = comm.allgather(in.data(), counts);
  std::size_t at = 0;
  for (int r = 0; r < comm.size(); ++r)
    for (std::size_t i = 0; i < counts[r]; ++i, ++at) ASSERT_EQ(out[at], byte_of(r, i)) << r << " " << i;
  EXPECT_EQ(at, out.size());
}

TEST_P(MpiCommunicatorTest, BroadcastCopiesTheRootsBytesToEveryRank) {
  for (int root = 0; root < comm.size(); ++root) {
    std::vector<std::uint8_t> data(37, 0);
    if (comm.rank() == root)
      for (std::size_t i = 0; i < data.size(); ++i) data[i] = byte_of(root, i);
    comm.broadcast(data.data(), data.size(), root);
    for (std::size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], byte_of(root, i));
  }
}

// A ring, as migration uses it: even ranks send first, odd ranks receive first.
TEST_P(MpiCommunicatorTest, SendAndReceiveCarryAMessageAroundTheRing) {
  const int p = comm.size(), r = comm.rank();
  const int next = (r + 1) % p, previous = (r + p - 1) % p;
  std::vector<float> mine(1001), theirs(1001);
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = static_cast<float>(r * 10000 + i) + 0.5f;
  const std::size_t bytes = mine.size() * sizeof(float);
  if (r % 2 == 0) {
    comm.send(mine.data(), bytes, next, 7);
    comm.receive(theirs.data(), bytes, previous, 7);
  } else {
    comm.receive(theirs.data(), bytes, previous, 7);
    comm.send(mine.data(), bytes, next, 7);
  }
  for (std::size_t i = 0; i < theirs.size(); ++i)
    ASSERT_EQ(theirs[i], static_cast<float>(previous * 10000 + i) + 0.5f);
}

TEST_P(MpiCommunicatorTest, AllreduceTakesTheMinimumAndTheSumOfEveryRanksValues) {
  const int p = comm.size(), r = comm.rank();
  double low[3] = {10.0 - r, 1.5 * r, r == p - 1 ? -1e300 : 2.0};
  comm.allreduce_min(low, 3);
  EXPECT_EQ(low[0], 10.0 - (p - 1));
  EXPECT_EQ(low[1], 0.0);
  EXPECT_EQ(low[2], -1e300);
  double sum[2] = {1.0, static_cast<double>(r)};
  comm.allreduce_sum(sum, 2);
  EXPECT_EQ(sum[0], p);
  EXPECT_EQ(sum[1], p * (p - 1) / 2.0);
}

TEST_P(MpiCommunicatorTest, AnyIsTrueOnEveryRankWhenOneRankFailed) {
  EXPECT_FALSE(comm.any(false));
  for (int failing = 0; failing < comm.size(); ++failing)
    EXPECT_TRUE(comm.any(comm.rank() == failing)) << failing;
  EXPECT_TRUE(comm.any(true));
  comm.barrier();
}

// One MPI call per collective, and pieces of at most 3 bytes.
INSTANTIATE_TEST_SUITE_P(MessageLimits, MpiCommunicatorTest,
                         ::testing::Values(MpiCommunicator::kMaxMessageBytes, std::size_t{3}));

// A message longer than the receive buffer is MPI_ERR_TRUNCATE: thrown, not a job abort.
TEST(MpiCommunicatorErrors, AnMpiErrorIsThrownWithMpisMessage) {
  MpiCommunicator comm;
  if (comm.rank() > 1) return;
  const double values[2] = {1.0, 2.0};
  if (comm.rank() == 0) {
    comm.send(values, sizeof values, 1, 3);
  } else {
    double one = 0.0;
    try {
      comm.receive(&one, sizeof one, 0, 3);
      ADD_FAILURE() << "a truncated message was accepted";
    } catch (const InternalError& e) {
      EXPECT_NE(std::string(e.what()).find("MPI_Recv"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace chainsaw
