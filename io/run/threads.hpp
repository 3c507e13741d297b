// The OpenMP threads of a run: how many it may ask for, and how idle ones wait.
#pragma once

#include <string>

namespace chainsaw {

// The most threads a run may ask for here: 8 per processor OpenMP may use, and at most
// OpenMP's thread limit. Beyond it libgomp fails (a segmentation fault at 100000 threads on
// a 2-core machine) or spends its time creating stacks.
int max_thread_count();

// UserError naming `flag` for `threads` (0: OpenMP's default) beyond max_thread_count().
void check_thread_count(const std::string& flag, int threads);

// Checks `threads`, makes it the count of the next parallel regions (0: OpenMP's default) and
// returns the count they will use.
int use_threads(const std::string& flag, int threads);

// libgomp reads OMP_WAIT_POLICY once, as it loads, before main: a process that wants a passive
// default must start with it in its environment. Where neither OMP_WAIT_POLICY nor
// GOMP_SPINCOUNT is set, sets OMP_WAIT_POLICY=passive and re-executes the program once
// (docs/performance.md has the measurement). Returns only when no re-execution happened.
void start_with_passive_wait_policy(char** argv);

}  // namespace chainsaw
