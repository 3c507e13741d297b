// Where a run's time goes, at two levels, and the NVTX ranges that show the same phases in
// Nsight Systems/Compute:
//  - PhaseTimers: host wall time per phase of the host loop, always on (`phases` in the result
//    file). Every engine call is synchronous from the host's point of view, so host time around
//    it is the phase's time on either backend.
//  - KernelProfile (`chainsaw run --profile`): time per pass inside the engines, in the buckets of
//    the paper's Table 14, measured per window of GPU work between two host syncs on the GPU (CUDA events where a
//    window holds several buckets) and with the steady clock around each pass on the CPU
//    (`profile` in the result file).
// NVTX is compiled only when the build has CUDA (NVTX3 is header-only and ships with the
// toolkit); elsewhere the ranges are empty inline functions.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/types.hpp"

#if defined(CHAINSAW_CUDA)
#include <nvtx3/nvToolsExt.h>
#endif

namespace chainsaw {

// A range on the NVTX stack of this thread: without a tool attached a push costs a few
// nanoseconds, so the host-loop phases carry one whether or not the run profiles.
class NvtxRange {
 public:
  explicit NvtxRange([[maybe_unused]] const char* name) {
#if defined(CHAINSAW_CUDA)
    nvtxRangePushA(name);
#endif
  }
  ~NvtxRange() {
#if defined(CHAINSAW_CUDA)
    nvtxRangePop();
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

enum class Phase : std::size_t {
  kInitialization,  // random genes and their first evaluation
  kDistances,       // NAM distances
  kCrossover,       // BLX-alpha + BGA + the children's evaluation (fused)
  kLocalSearch,     // Solis-Wets moves and their evaluations
  kSort,            // index sort of (fitness, slot)
  kSelection,       // host decisions: parents, mutation draws, the LS individual
  kCheckpoint,      // writing checkpoints
  kMigration,       // --distribute islands: the exchange of migrants and their evaluation
  kCount
};

inline const char* phase_name(Phase p) {
  static constexpr const char* names[] = {"initialization", "distances", "crossover",
                                          "local_search",   "sort",      "selection",
                                          "checkpoint_io",  "migration"};
  return names[static_cast<std::size_t>(p)];
}

class PhaseTimers {
 public:
  void add(Phase p, double seconds) { seconds_[static_cast<std::size_t>(p)] += seconds; }
  void set(Phase p, double seconds) { seconds_[static_cast<std::size_t>(p)] = seconds; }
  double seconds(Phase p) const { return seconds_[static_cast<std::size_t>(p)]; }
  double total() const {
    double t = 0.0;
    for (double s : seconds_) t += s;
    return t;
  }

 private:
  std::array<double, static_cast<std::size_t>(Phase::kCount)> seconds_{};
};

// Times a host-loop phase and marks it for Nsight: call sites mark a phase once.
class ScopedPhase {
 public:
  ScopedPhase(PhaseTimers& timers, Phase phase)
      : range_(phase_name(phase)),
        timers_(timers),
        phase_(phase),
        start_(std::chrono::steady_clock::now()) {}
  ~ScopedPhase() {
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
    timers_.add(phase_, d.count());
  }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  NvtxRange range_;
  PhaseTimers& timers_;
  Phase phase_;
  std::chrono::steady_clock::time_point start_;
};

// The paper's Table 14 buckets. A pass that makes genes and evaluates them in one sweep (the
// fused passes) is counted where the genes are made; `kFitness` holds the passes that only
// evaluate. Whatever no bucket holds is "other" (host decisions, launch gaps, set-up).
enum class Bucket : std::size_t {
  kFitness,       // evaluation-only passes; the initial population (random genes + f, fused)
  kCrossover,     // BLX-alpha + BGA + their random numbers, children's f fused
  kDistances,     // NAM distances, distance to the optimum
  kSwMoves,       // Solis-Wets candidate moves, their f fused, bias updates
  kSort,          // (fitness, slot) sort
  kTransfers,     // host<->device copies of whole individuals (small per-launch copies of
                  // indices, specs, results go with their kernel: cuda_engine.cu)
  kRngInit,       // cuRAND state initialisation (once, when the engine is built)
  kCheckpointIo,  // writing (and, on resume, reading) checkpoints
  kCommunication, // sharded runs: the exchange of partials between the ranks
  kCount
};

struct BucketInfo {
  const char* key;    // the result file's name
  const char* label;  // the table's
};

inline BucketInfo bucket_info(Bucket b) {
  static constexpr BucketInfo info[] = {
      {"fitness", "fitness"},
      {"crossover_rng", "crossover + RNG (+ children's f, fused)"},
      {"distances", "distances"},
      {"solis_wets_moves", "Solis-Wets moves (+ candidates' f, fused)"},
      {"sort", "sort"},
      {"transfers", "host<->device transfers"},
      {"rng_init", "RNG init"},
      {"checkpoint_io", "checkpoint I/O"},
      {"communication", "communication (all-gathers)"},
  };
  return info[static_cast<std::size_t>(b)];
}

class KernelProfile {
 public:
  static constexpr std::size_t kBuckets = static_cast<std::size_t>(Bucket::kCount);
  void add(Bucket b, double seconds) { seconds_[static_cast<std::size_t>(b)] += seconds; }
  double seconds(Bucket b) const { return seconds_[static_cast<std::size_t>(b)]; }
  // The roofline column: each bucket's essential bytes (count_vectors) over its seconds, against
  // the engine's memory copy bandwidth (bytes read + written per second; 0: not measured).
  void add_bytes(Bucket b, double bytes) { bytes_[static_cast<std::size_t>(b)] += bytes; }
  double bytes(Bucket b) const { return bytes_[static_cast<std::size_t>(b)]; }
  void set_copy_bandwidth(double bytes_per_second) { copy_bandwidth_ = bytes_per_second; }
  double copy_bandwidth() const { return copy_bandwidth_; }
  double total() const {
    double t = 0.0;
    for (double s : seconds_) t += s;
    return t;
  }
  // All the time ScopedBuckets have added so far: a scope subtracts what its nested scopes
  // added meanwhile, so that each second lands in one bucket only.
  double scoped_seconds() const { return scoped_; }
  void add_scoped(Bucket b, double seconds) {
    add(b, seconds);
    scoped_ += seconds;
  }

 private:
  std::array<double, kBuckets> seconds_{};
  std::array<double, kBuckets> bytes_{};
  double copy_bandwidth_ = 0.0;
  double scoped_ = 0.0;
};

// The distinct rows among the pairs (from[i], to[i]): a batch of distances must read each once.
inline double distinct_rows(const int* from, const int* to, int count) {
  std::vector<int> rows(from, from + count);
  rows.insert(rows.end(), to, to + count);
  std::sort(rows.begin(), rows.end());
  return static_cast<double>(std::unique(rows.begin(), rows.end()) - rows.begin());
}

// A pass's essential traffic: `vectors` rows of `genes` genes (individuals or bias vectors) that
// the algorithm must read or write once, whatever the backend does beyond them. A child is 3
// (two parents read, the child written), a batch of distances its distinct rows, an evaluation
// 1, a Solis-Wets evaluation 2 (x and the bias read; a success's writes are not counted).
// Nothing when not profiling.
inline void count_vectors(KernelProfile* profile, Bucket bucket, double vectors,
                          std::int64_t genes) {
  if (profile)
    profile->add_bytes(bucket, vectors * static_cast<double>(genes) * sizeof(real_t));
}

// Steady-clock time of a host pass into a bucket, and its NVTX range; nothing at all when the
// profile is null (profiling off). Scopes nest: an inner scope's time (a sharded pass's
// exchange, in `communication`) is its bucket's, not the enclosing one's.
class ScopedBucket {
 public:
  ScopedBucket(KernelProfile* profile, Bucket bucket) : profile_(profile), bucket_(bucket) {
    if (!profile_) return;
#if defined(CHAINSAW_CUDA)
    nvtxRangePushA(bucket_info(bucket).key);
#endif
    nested_start_ = profile_->scoped_seconds();
    start_ = std::chrono::steady_clock::now();
  }
  ~ScopedBucket() {
    if (!profile_) return;
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
    const double nested = profile_->scoped_seconds() - nested_start_;
    profile_->add_scoped(bucket_, std::max(0.0, d.count() - nested));
#if defined(CHAINSAW_CUDA)
    nvtxRangePop();
#endif
  }
  ScopedBucket(const ScopedBucket&) = delete;
  ScopedBucket& operator=(const ScopedBucket&) = delete;

 private:
  KernelProfile* profile_;
  Bucket bucket_;
  double nested_start_ = 0.0;
  std::chrono::steady_clock::time_point start_{};
};

}  // namespace chainsaw
