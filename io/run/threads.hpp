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

// How idle OpenMP threads wait. Spinning (libgomp's default) is faster on processors the run has
// to itself, by up to 1.8x on an idle 16-core machine; where other tasks want the processors too,
// spinning threads take their turns and a 2-thread run on a loaded 2-core machine is 16-44x slower
// than with sleeping threads (bench/results/2026-12-02-cpu-wait-policy). So a run sleeps (passive)
// when its threads and the tasks running beside it would oversubscribe the processors.
bool oversubscribed(int others_running, int threads, int processors);

// The threads a command line asks for: `--threads N` or `--threads=N`, else the first value of
// OMP_NUM_THREADS, else 0 (OpenMP's default: every processor).
int requested_threads(char** argv);

// libgomp reads OMP_WAIT_POLICY once, as it loads, before main: a process that wants to sleep
// must start with it in its environment. Where neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set
// and the run would oversubscribe the processors (the tasks running now, read from /proc/stat),
// sets OMP_WAIT_POLICY=passive and re-executes the program once. Returns only when no
// re-execution happened.
void choose_wait_policy(char** argv);

}  // namespace chainsaw
