#include "io/api/ask_tell.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "io/checkpoint/checkpoint.hpp"

namespace chainsaw {

namespace {
// Thrown in the worker when the optimiser is destroyed with rows outstanding.
struct Abandoned {};
}  // namespace

AskTell::AskTell(const BatchObjective& objective, const Options& options) {
  if (options.backend == Backend::kCuda)
    // The caller evaluates the rows in its own memory: a GPU would only copy them there and back.
    throw UserError("ask/tell: backend cuda: the rows are evaluated outside chainsaw, on the "
                    "host: use the CPU backend");
  BatchObjective o = objective;
  o.device = nullptr;
  o.device_graph = nullptr;
  o.device_passes = nullptr;
  dim_ = options.dim != 0 ? options.dim : objective.dim;
  worker_ = std::thread(&AskTell::work, this, std::move(o), options);
}

AskTell::~AskTell() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandon_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void AskTell::work(BatchObjective objective, Options options) {
  objective.host = [this](const real_t* genes, Dim pitch, int rows, Dim dim, double* fitness) {
    hand_rows(genes, pitch, rows, dim, fitness);
  };
  options.backend = Backend::kCpu;
  options.progress = nullptr;
  options.at_safe_point = [this](Algorithm& a) { park(a); };
  options.stop_requested = [this] {
    std::lock_guard<std::mutex> lock(mutex_);
    return abandon_;
  };
  std::optional<Result> result;
  std::exception_ptr error;
  try {
    result = optimize(objective, options);
  } catch (const Abandoned&) {
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  result_ = std::move(result);
  error_ = error;
  phase_ = Phase::kFinished;
  rows_ = 0;
  asked_.clear();
  changed_.notify_all();
}

void AskTell::hand_rows(const real_t* genes, Dim pitch, int rows, Dim dim, double* fitness) {
  std::unique_lock<std::mutex> lock(mutex_);
  asked_.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(dim));
  for (int r = 0; r < rows; ++r)
    std::copy_n(genes + static_cast<Dim>(r) * pitch, dim,
                asked_.begin() + static_cast<Dim>(r) * dim);
  rows_ = rows;
  dim_ = dim;
  phase_ = Phase::kAsking;
  changed_.notify_all();
  changed_.wait(lock, [this] { return phase_ != Phase::kAsking || abandon_; });
  if (abandon_) throw Abandoned{};
  std::copy(told_.begin(), told_.end(), fitness);
}

void AskTell::park(Algorithm& algorithm) {
  std::unique_lock<std::mutex> lock(mutex_);
  phase_ = Phase::kParked;
  changed_.notify_all();
  for (;;) {
    changed_.wait(lock, [this] {
      return phase_ != Phase::kParked || abandon_ || !save_path_.empty();
    });
    if (save_path_.empty()) return;  // resumed by ask(), or abandoned (stop_requested says so)
    try {
      write_checkpoint("save", save_path_, algorithm, Backend::kCpu, "save");
    } catch (...) {
      save_error_ = std::current_exception();
    }
    save_path_.clear();
    changed_.notify_all();
  }
}

void AskTell::wait_while_running(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [this] { return phase_ != Phase::kRunning; });
}

const std::vector<real_t>& AskTell::ask() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wait_while_running(lock);
    if (phase_ == Phase::kFinished && error_) std::rethrow_exception(error_);
    if (phase_ != Phase::kParked) return asked_;  // asking, or finished (no rows)
    phase_ = Phase::kRunning;  // on to the next unit
    changed_.notify_all();
  }
}

void AskTell::tell(const double* fitness, int rows) {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_while_running(lock);
  if (phase_ != Phase::kAsking)
    throw UserError(phase_ == Phase::kFinished ? "tell: the run is done; nothing was asked"
                                               : "tell: no rows are asked; call ask() first");
  if (rows != rows_)
    throw UserError("tell: " + std::to_string(rows) + " values for the " +
                    std::to_string(rows_) + " rows asked");
  told_.assign(fitness, fitness + rows);
  phase_ = Phase::kRunning;
  changed_.notify_all();
  wait_while_running(lock);
}

bool AskTell::done() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_while_running(lock);
  return phase_ == Phase::kFinished;
}

bool AskTell::at_safe_point() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_while_running(lock);
  return phase_ == Phase::kParked;
}

void AskTell::save(const std::string& path) {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_while_running(lock);
  if (phase_ != Phase::kParked)
    throw UserError("save: " + std::to_string(rows_) +
                    " rows are asked and not told: a checkpoint is taken between two units "
                    "(at_safe_point), after the tell() that ends one");
  save_path_ = path;
  save_error_ = nullptr;
  changed_.notify_all();
  changed_.wait(lock, [this] { return save_path_.empty(); });
  if (save_error_) std::rethrow_exception(save_error_);
}

Result AskTell::result() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_while_running(lock);
  if (phase_ != Phase::kFinished) throw UserError("result: the run is not done; ask() and tell() on");
  if (error_) std::rethrow_exception(error_);
  if (!result_) throw UserError("result: the run was abandoned");
  return *result_;
}

}  // namespace chainsaw
