// The ask/tell optimiser: any algorithm driven from outside, one batch of rows at a time, for
// objectives that chainsaw cannot call itself (a simulator on a cluster, a lab experiment).
// The run is the library's optimize (io/api/optimize.hpp) on a worker thread, whose objective
// hands its rows to ask() and waits for tell(): a run through ask/tell is therefore the run
// with a batch callback, bit for bit, and has its checkpoints, stopping rules and Result.
// ask() gives the rows the algorithm has to have evaluated before it can go on (docs/
// library.md, "Ask and tell", says how many per algorithm).
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "io/api/optimize.hpp"

namespace chainsaw {

class AskTell {
 public:
  // `objective` gives the name, dim and bounds (its callbacks are not used); `options` are
  // optimize's (CPU backend; progress, stop_requested and at_safe_point are the optimiser's
  // own). With options.resume_from the run continues that checkpoint. Throws UserError for what
  // optimize would refuse, once the run has started (by the first ask()).
  AskTell(const BatchObjective& objective, const Options& options);
  ~AskTell();  // an unfinished run is abandoned (its rows never told)
  AskTell(const AskTell&) = delete;
  AskTell& operator=(const AskTell&) = delete;

  // The rows to evaluate, rows() of them, dim genes each, row-major; the same rows again until
  // they are told. Empty when the run is done. Blocks while the algorithm works.
  const std::vector<real_t>& ask();
  int rows() const { return rows_; }
  Dim dim() const { return dim_; }
  // The fitness of the rows of the last ask(), `rows` of them (must be rows()). Returns once
  // the algorithm needs more rows, is between two units, or is done.
  void tell(const double* fitness, int rows);
  bool done();
  // Between two units, where a checkpoint can be written (after the tell() that ends a
  // unit: a generation, a crossover batch, a Solis-Wets application).
  bool at_safe_point();
  // Writes the run's checkpoint to `path` (the format of --checkpoint; resumed by an AskTell
  // with options.resume_from = path, or by optimize). UserError unless at_safe_point().
  void save(const std::string& path);
  // The run's result once done(); rethrows what stopped the run.
  Result result();

 private:
  enum class Phase { kRunning, kAsking, kParked, kFinished };
  void work(BatchObjective objective, Options options);
  void hand_rows(const real_t* genes, Dim pitch, int rows, Dim dim, double* fitness);
  void park(Algorithm& algorithm);
  void wait_while_running(std::unique_lock<std::mutex>& lock);

  Dim dim_ = 0;
  Backend backend_ = Backend::kCpu;
  std::mutex mutex_;
  std::condition_variable changed_;
  Phase phase_ = Phase::kRunning;
  bool abandon_ = false;
  std::vector<real_t> asked_;    // the rows handed out
  std::vector<double> told_;     // their values
  int rows_ = 0;
  std::string save_path_;        // a save() the worker has still to do
  std::exception_ptr save_error_;
  std::optional<Result> result_;
  std::exception_ptr error_;
  std::thread worker_;  // last: it starts once the rest is built
};

}  // namespace chainsaw
