// `--profile`: the engine's time per bucket of the paper's Table 14, as the table printed at the
// end of a run and as the result file's `profile` object. Shares are of this process's time
// (engine set-up + run); "other" is what no bucket holds: host decisions, launch and sync gaps,
// allocation.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/profiling.hpp"

namespace chainsaw {

struct ProfileReport {
  KernelProfile buckets;
  const char* clock = "steady_clock";  // the CPU engine's; "gpu_windows" on the GPU (core/engines/cuda/cuda_engine.cu)
  double setup_seconds = 0.0;          // building the engine (and loading a checkpoint)
  double run_seconds = 0.0;            // the host loop, final checkpoint included
  double total_seconds() const { return setup_seconds + run_seconds; }
  double other_seconds() const;
};

nlohmann::ordered_json profile_to_json(const ProfileReport& report);
// The table: one line per bucket with ms and %, "other" and the total; lines end in '\n'.
std::string profile_table(const ProfileReport& report);

}  // namespace chainsaw
