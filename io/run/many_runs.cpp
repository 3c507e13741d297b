#include "io/run/many_runs.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/algorithms/population_algorithm.hpp"
#include "core/gpu/device_info.hpp"
#include "core/error.hpp"
#include "fitness/problem.hpp"
#include "io/instance_file.hpp"
#include "io/results/output_file.hpp"
#include "io/run/run_driver.hpp"
#include "io/version.hpp"

namespace chainsaw {

namespace {

void emit(const std::string& output, const nlohmann::ordered_json& json) {
  write_file_atomically("--output", output.empty() ? "-" : output, json.dump(2) + "\n");
}

std::string where(const RunEnvironment& env) {
  return env.backend == Backend::kCuda ? "cuda: " + env.device
                                       : fmt::format("cpu, {} threads", env.threads);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Where the members of one wave of time-limited --runs wait for each other: all are built
// before any starts its clock, and none frees its memory before all have stopped.
class Barrier {
 public:
  explicit Barrier(int parties) : parties_(parties) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const int generation = generation_;
    if (++arrived_ == parties_) {
      arrived_ = 0;
      ++generation_;
      all_arrived_.notify_all();
      return;
    }
    all_arrived_.wait(lock, [&] { return generation != generation_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  int parties_;
  int arrived_ = 0;
  int generation_ = 0;
};

// A member of a fenced wave passes `wave` twice whatever happens: once built (or failed), once
// stopped (or failed), with its GPU memory still held.
class Fences {
 public:
  explicit Fences(Barrier* wave) : wave_(wave) {}
  void built() {
    if (wave_ && !built_) {
      built_ = true;
      wave_->arrive_and_wait();
    }
  }
  void stopped() {
    built();
    if (wave_ && !stopped_) {
      stopped_ = true;
      wave_->arrive_and_wait();
    }
  }

 private:
  Barrier* wave_;
  bool built_ = false, stopped_ = false;
};

// One run of any algorithm without progress line, signals or checkpoints: a member of --runs.
// `wave` (null: none) fences it with the other members of its wave (run_many).
nlohmann::ordered_json one_of_many(const Config& config, const RunEnvironment& env, bool profile,
                                   Barrier* wave = nullptr) {
  Fences fences(wave);
  DriveOptions o;
  o.profile = profile;
  o.on_built = [&fences] { fences.built(); };
  o.on_stopped = [&fences] { fences.stopped(); };
  const DrivenRun run = drive_run(config, env.backend, [&config] { return make_problem(config); }, o);
  RunEnvironment run_env = env;
  run_env.setup_seconds = run.setup_seconds;
  return result_to_json(config, run_env, run.result, &run.trace,
                        run.profile ? &*run.profile : nullptr);
}

// Loads the kernels that the runs of `config` launch, by running the first of them untimed: two
// units of a population algorithm (each as the timed runs take it: Scatter Search improves its
// whole pool at once only when the budget covers it), 5,000 evaluations of MA-SW-Chains (its
// initial population, crossover batches and Solis-Wets applications).
void load_kernels(const Config& config, const RunEnvironment& env) {
  Config warm = config;
  warm.runs = 1;
  warm.time_limit_seconds = 0.0;
  if (config.algorithm == AlgorithmKind::kMaSwChains) {
    warm.max_evaluations = std::min<std::int64_t>(config.max_evaluations, 5000);
    (void)one_of_many(warm, env, false);
    return;
  }
  const Problem problem = make_problem(warm);
  const std::unique_ptr<PopulationAlgorithm> algorithm =
      make_population_algorithm(warm, problem, env.backend);
  algorithm->initialize();
  algorithm->advance();
  algorithm->advance();
}

struct Statistics {
  double mean = 0.0, sd = 0.0, median = 0.0;
};

Statistics statistics(std::vector<double> v) {
  Statistics s;
  if (v.empty()) return s;
  double sum = 0.0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double squares = 0.0;
  for (double x : v) squares += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(squares / static_cast<double>(v.size() - 1)) : 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.median = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return s;
}

}  // namespace

nlohmann::ordered_json summarize_runs(const std::vector<nlohmann::ordered_json>& runs) {
  nlohmann::ordered_json summary;
  auto measure = [&](const char* name, const std::function<nlohmann::json(const nlohmann::ordered_json&)>& get) {
    std::vector<double> values;
    for (const auto& r : runs) {
      const nlohmann::json v = get(r);
      if (v.is_number()) values.push_back(v.get<double>());
    }
    const Statistics s = statistics(values);
    // NaN (a user objective's unknown optimum) is not JSON: such a measure is null.
    auto number = [](double x) {
      return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json();
    };
    summary[name] = values.empty() ? nlohmann::ordered_json()
                                   : nlohmann::ordered_json({{"mean", number(s.mean)},
                                                             {"sd", number(s.sd)},
                                                             {"median", number(s.median)}});
  };
  measure("best_fitness", [](const auto& r) { return r.at("best_fitness"); });
  measure("best_error", [](const auto& r) { return r.at("best_error"); });
  measure("distance_to_optimum", [](const auto& r) { return r.at("distance_to_optimum"); });
  measure("evaluations", [](const auto& r) { return r.at("evaluations").at("total"); });
  measure("wall_seconds", [](const auto& r) { return r.at("wall_seconds"); });
  int reached = 0;
  std::vector<nlohmann::ordered_json> reached_runs;
  for (const auto& r : runs)
    if (!r.at("target_reached").is_null()) {
      ++reached;
      reached_runs.push_back(r);
    }
  summary["target_reached_runs"] = reached;
  summary["target_reached_rate"] =
      runs.empty() ? 0.0 : static_cast<double>(reached) / static_cast<double>(runs.size());
  // Over the runs that reached the target only (CEC's "FEs to reach").
  auto reached_measure = [&](const char* name, const char* field) {
    std::vector<double> values;
    for (const auto& r : reached_runs) values.push_back(r.at("target_reached").at(field).get<double>());
    const Statistics s = statistics(values);
    summary[name] = values.empty() ? nlohmann::ordered_json()
                                   : nlohmann::ordered_json({{"mean", s.mean},
                                                             {"sd", s.sd},
                                                             {"median", s.median}});
  };
  reached_measure("target_evaluations", "evaluations");
  reached_measure("target_seconds", "seconds");
  return summary;
}

namespace {
// The result file of --runs K: the runs' shared settings, the summary and every run's result.
nlohmann::ordered_json runs_document(const Config& config, const RunEnvironment& env,
                                     const std::vector<nlohmann::ordered_json>& results,
                                     double total) {
  const int k = config.runs;
  nlohmann::ordered_json j;
  j["chainsaw_version"] = kVersion;
  j["genes"] = sizeof(real_t) == 8 ? "float64" : "float32";
  j["algorithm"] = algorithm_name(config.algorithm);
  j["runs"] = k;
  nlohmann::ordered_json seeds = nlohmann::ordered_json::array();
  for (int i = 0; i < k; ++i) seeds.push_back(config.seed + static_cast<std::uint64_t>(i));
  j["seeds"] = seeds;
  j["vary_instance"] = config.vary_instance;
  j["config"] = config_to_json(config);
  j["backend"] = backend_name(env.backend);
  j["device"] = env.device.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(env.device);
  j["threads"] = env.threads;
  j["wall_seconds"] = total;  // all runs, as they ran (concurrently)
  j["summary"] = summarize_runs(results);
  j["results"] = results;
  return j;
}

// The line on stderr after --runs K.
void print_runs_line(const Config& config, const RunEnvironment& env,
                     const nlohmann::ordered_json& j, double total, const std::string& output) {
  const int k = config.runs;
  const auto& best = j.at("summary").at("best_error");
  std::fprintf(stderr,
               "chainsaw: %s %s D=%lld: %d runs (seeds %llu..%llu), best error mean %s, "
               "median %s in %.2f s (%s)%s\n",
               algorithm_name(config.algorithm), config.function.c_str(),
               static_cast<long long>(config.dim), k,
               static_cast<unsigned long long>(config.seed),
               static_cast<unsigned long long>(config.seed + static_cast<std::uint64_t>(k - 1)),
               best.is_null() ? "n/a" : fmt::format("{:.6e}", best.at("mean").get<double>()).c_str(),
               best.is_null() ? "n/a" : fmt::format("{:.6e}", best.at("median").get<double>()).c_str(),
               total, where(env).c_str(), output.empty() ? "" : (" -> " + output).c_str());
}

}  // namespace

int run_many(const Config& config, RunEnvironment env, const RunsOptions& o) {
  if (config.threads > 0) omp_set_num_threads(config.threads);
  env.threads = omp_get_max_threads();
  const int k = config.runs;
  std::vector<nlohmann::ordered_json> results(static_cast<std::size_t>(k));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(k));
  const auto start = std::chrono::steady_clock::now();
  auto run_one = [&](int i, Barrier* wave) {
    try {
      Config c = config;
      c.seed = config.seed + static_cast<std::uint64_t>(i);
      // One instance for all K runs (the first run's) unless --vary-instance.
      if (!config.vary_instance) c.problem_seed = config.effective_problem_seed();
      c.runs = 1;
      results[static_cast<std::size_t>(i)] = one_of_many(c, env, o.profile, wave);
    } catch (...) {
      errors[static_cast<std::size_t>(i)] = std::current_exception();
    }
  };
  const int width = std::min(k, env.threads);
  // How the runs' threads wait for the GPU (CHAINSAW_RUNS_WAIT=auto|spin|yield|blocking, to
  // measure; CUDA's own choice otherwise).
  if (env.backend == Backend::kCuda && k > 1)
    if (const char* wait = std::getenv("CHAINSAW_RUNS_WAIT")) set_cuda_host_wait(wait);
  if (config.time_limit_seconds > 0.0) {
    // Under a wall-clock budget the runs go in waves of `width`, fenced: all of a wave are
    // built before any clock starts, and none frees its memory before all have stopped. On
    // the GPU a cudaMalloc or cudaFree stalls the other threads' launches, and the first
    // launch of each kernel loads it (lazily, under a lock): unfenced, the first runs spent
    // their time on loading and later ones overran theirs
    // (bench/results/2026-11-26-h100-seed-tables). A short run first loads the kernels outside
    // every clock.
    if (env.backend == Backend::kCuda) load_kernels(config, env);
    for (int first = 0; first < k; first += width) {
      const int members = std::min(width, k - first);
      Barrier wave(members);
      std::vector<std::thread> threads;
      for (int m = 0; m < members; ++m)
        threads.emplace_back([&, i = first + m] {
          omp_set_num_threads(1);  // as a run inside the parallel loop below: serial inside
          run_one(i, &wave);
        });
      for (std::thread& t : threads) t.join();
    }
  } else {
    // A run per thread; each run's own parallel loops then run serially (nested regions are
    // inactive), and its result does not depend on the thread count. On the GPU each run's
    // engine has its own stream: the runs' small launches and host round trips overlap.
#pragma omp parallel for schedule(dynamic, 1) num_threads(width)
    for (int i = 0; i < k; ++i) run_one(i, nullptr);
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  const double total = seconds_since(start);

  const nlohmann::ordered_json j = runs_document(config, env, results, total);
  emit(o.output, j);
  if (!o.quiet) print_runs_line(config, env, j, total, o.output);
  return 0;
}

}  // namespace chainsaw
