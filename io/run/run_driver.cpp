#include "io/run/run_driver.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include "core/algorithms/algorithm_factory.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "core/error.hpp"
#include "io/checkpoint/checkpoint_lock.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/cli/progress.hpp"
#include "io/run/stop_signals.hpp"

namespace chainsaw {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Calls `call` once when it goes out of scope unless called already: the --runs fences are
// passed also when a run fails.
class Once {
 public:
  explicit Once(const std::function<void()>& call) : call_(call) {}
  ~Once() { (*this)(); }
  Once(const Once&) = delete;
  Once& operator=(const Once&) = delete;
  void operator()() {
    if (call_ && !called_) {
      called_ = true;
      call_();
    }
  }

 private:
  const std::function<void()>& call_;
  bool called_ = false;
};

// The island hook needs MA-SW-Chains' population; Config refuses islands for the others.
MaSwChains& island_algorithm(Algorithm& algorithm) {
  auto* ma = dynamic_cast<MaSwChains*>(&algorithm);
  if (ma == nullptr)
    throw UserError(std::string("--distribute islands: --algorithm ") +
                    algorithm_name(algorithm.config().algorithm) +
                    " does not run as islands (only ma-sw-chains does)");
  return *ma;
}

// The profile's clock: the GPU engine's CUDA event windows, or the host's steady clock.
const char* profile_clock(const Algorithm& algorithm, Backend backend) {
  const bool engine_windows = dynamic_cast<const MaSwChains*>(&algorithm) != nullptr;
  return backend == Backend::kCuda && engine_windows ? "gpu_windows" : "steady_clock";
}

// The problem, the algorithm (restored where resumed) and the checkpoint's lock, made by all
// ranks together: one failing fails them all.
struct BuiltRun {
  std::optional<Problem> problem;  // the algorithm refers to it: it stays in place
  std::unique_ptr<Algorithm> algorithm;
  CheckpointLock lock;  // held until the run returns: one live run per checkpoint path
};

void build_run(BuiltRun& b, const Config& config, Backend backend,
               const std::function<Problem()>& make_problem, const DriveOptions& o,
               const Ranks& ranks, KernelProfile* buckets) {
  ranks.agree([&] {
    // A sharded run's file is rank 0's alone; an island's is its rank's.
    if (!o.checkpoint.empty() && (ranks.root() || ranks.islands()))
      b.lock = CheckpointLock(o.checkpoint_flag, o.checkpoint);
    b.problem.emplace(make_problem());
    b.algorithm = make_algorithm(config, *b.problem, backend, ranks.shard_comm());
    if (buckets) b.algorithm->set_profile(buckets);
    if (ranks.islands()) b.algorithm->disable_stop_rule();  // the islands end together
    if (!o.resume_from.empty()) {
      ScopedBucket timer(buckets, Bucket::kCheckpointIo);
      load_checkpoint(o.resume_from, *b.algorithm);
    }
  });
}

// A finished run's distribution; an islands run's result becomes the best island's.
void record_distribution(DrivenRun& out, const Config& config, const Ranks& ranks,
                         const Islands* islands) {
  out.distributed.mode = ranks.mode;
  out.distributed.ranks = ranks.size();
  if (islands == nullptr) return;
  const RunResult& r = out.result;
  const IslandSummary mine{ranks.rank(), config.seed, r.best_fitness, r.distance_to_optimum,
                           r.counters, islands->state()};
  out.distributed.islands = gather_islands(*ranks.comm, mine);
  out.result = combine_islands(r, out.distributed.islands, out.distributed.best_rank);
}

}  // namespace

DrivenRun drive_run(const Config& config, Backend backend,
                    const std::function<Problem()>& make_problem, const DriveOptions& o,
                    const Ranks& ranks) {
  Once built(o.on_built);
  Once stopped(o.on_stopped);
  DrivenRun out;
  ProfileReport* const profile = o.profile ? &out.profile.emplace() : nullptr;
  KernelProfile* const buckets = profile ? &profile->buckets : nullptr;

  const auto setup_start = Clock::now();
  BuiltRun built_run;
  build_run(built_run, config, backend, make_problem, o, ranks, buckets);
  std::unique_ptr<Algorithm>& algorithm = built_run.algorithm;
  std::optional<Islands> islands;
  if (ranks.islands()) {
    island_algorithm(*algorithm);
    islands.emplace(*ranks.comm, config.migration_interval,
                    o.restored_islands ? *o.restored_islands
                                       : IslandState{ranks.rank(), ranks.size()});
  }
  out.setup_seconds = seconds_since(setup_start);
  built();

  std::optional<StopSignals> signals;
  if (o.catch_signals) signals.emplace();
  auto stop_now = [&] {
    return (signals && signals->received() != 0) || (o.stop_requested && o.stop_requested());
  };
  CheckpointSchedule schedule(o.checkpoint_flag, o.checkpoint, o.checkpoint_every, backend,
                              stop_now, buckets);
  if (!o.final_checkpoint) schedule.skip_final();
  if (ranks.comm) schedule.distribute(ranks.comm, islands ? &*islands : nullptr);
  const auto run_start = Clock::now();
  {
    ProgressLine progress(stderr, o.progress_line && ranks.root());
    out.result = algorithm->run(
        [&](const Progress& p) {
          Progress all = p;
          // The islands report at the same units (their counts move in step): the best of all.
          if (islands) ranks.comm->allreduce_min(&all.best_fitness, 1);
          if (o.progress_best_genes) all.best_genes = algorithm->best_genes();
          progress.update(all);
          out.trace.add(all);
          if (o.on_progress) o.on_progress(all);
        },
        [&](Algorithm& a) {
          if (islands) islands->at_safe_point(island_algorithm(a));
          if (o.at_safe_point) o.at_safe_point(a);
          return schedule.at_safe_point(a);
        });
    out.finished = algorithm->done();
    // A signal during the last unit comes too late to stop anything: the run is complete.
    if (out.finished) schedule.at_end(*algorithm);
  }
  if (profile) {
    algorithm->flush_profile();
    profile->clock = profile_clock(*algorithm, backend);
    profile->setup_seconds = out.setup_seconds;
    profile->run_seconds = seconds_since(run_start);
  }
  out.invalid_evaluations = algorithm->invalid_evaluations();
  // Also of a stopped run: a callback that stops it still gets its best point.
  if (o.best_genes) out.best_genes = algorithm->best_genes();
  if (!out.finished) {
    // The ranks agreed on the stop and leave together, with the lowest signal received.
    double received = signals && signals->received() ? signals->received() : SIGTERM;
    if (ranks.comm) ranks.comm->allreduce_min(&received, 1);
    out.signal = signals ? static_cast<int>(received) : 0;
    stopped();
    return out;
  }
  record_distribution(out, config, ranks, islands ? &*islands : nullptr);
  stopped();
  return out;
}

}  // namespace chainsaw
