// The MPI tests' main: every rank runs the same GoogleTest cases, which are collective (every
// rank makes the same calls). Started by ctest under mpiexec (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include "core/distributed/mpi_communicator.hpp"

int main(int argc, char** argv) {
  chainsaw::MpiSession session(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
