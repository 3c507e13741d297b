#include <cstdlib>

#include "io/cli/cli.hpp"
#include "io/run/threads.hpp"

int main(int argc, char** argv) {
  chainsaw::choose_wait_policy(argv);
  // Concurrent runs (--runs K) give each run its own stream, and CUDA maps streams onto 8
  // hardware queues unless told otherwise: there one run's Solis-Wets launch (milliseconds)
  // holds up the small launches queued behind it by other runs, which CUDA's maximum of 32 spares
  // them (bench/results/2026-11-26-h100-batch-round-trips). Read when CUDA starts, so set before
  // anything touches it; a value in the environment is kept.
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
  return chainsaw::cli_main(argc, argv);
}
