// What a run needs in memory against what the machine has: refused up front (check_host_memory),
// or printed as a plan (--dry-run).
#pragma once

#include "core/config.hpp"

namespace chainsaw::cli {

// UserError when the CPU backend's allocations do not fit the machine's memory. shard_ranks > 1:
// one rank of a sharded run.
void check_host_memory(const Config& c, int shard_ranks = 1);
// --dry-run: prints the plan (when `print`); returns 0 when it fits, kExitUserError otherwise.
int dry_run(const Config& c, Backend backend, bool print = true, int shard_ranks = 1);

}  // namespace chainsaw::cli
