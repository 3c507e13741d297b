#include "io/study/study_runner.hpp"

#include <omp.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/gpu/device_info.hpp"
#include "core/engines/engine_factory.hpp"
#include "core/error.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/cli/memory_check.hpp"
#include "io/instance_file.hpp"
#include "io/results/output_file.hpp"
#include "io/run/run_driver.hpp"
#include "io/run/stop_signals.hpp"

extern char** environ;

namespace chainsaw {

namespace {

namespace fs = std::filesystem;

std::string runs_folder(const Study& s) { return (fs::path(s.folder) / "runs").string(); }
std::string result_path(const Study& s, const StudyRun& r) {
  return (fs::path(runs_folder(s)) / (r.name + ".json")).string();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(path + ": cannot be read");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw UserError(path + ": not a result file (delete it to run it again)");
  }
}

// A result file of this study holds the run its name says (a renamed or foreign file is refused).
bool has_result(const Study& s, const StudyRun& run) {
  const std::string path = result_path(s, run);
  if (!fs::exists(path)) return false;
  const nlohmann::json j = read_json(path);
  if (!j.contains("study") || j["study"].value("key", "") != run.key)
    throw UserError(path + ": holds another configuration than its name says (delete it)");
  return true;
}

// The trace of an interrupted run's earlier segments (the result's trace is the whole run's).
nlohmann::json earlier_trace(const std::string& path) {
  return fs::exists(path) ? read_json(path) : nlohmann::json::array();
}

// One run, fresh or from its checkpoint; true when it finished (its result written), false when
// `stop` ended it (its checkpoint and trace so far written).
bool run_one(const Study& s, const StudyRun& run, const std::function<bool()>& stop) {
  const fs::path base = fs::path(runs_folder(s)) / run.name;
  const std::string checkpoint = base.string() + ".h5", trace_file = base.string() + ".trace.json";
  RunEnvironment env;
  env.backend = s.backend;
  env.threads = omp_get_max_threads();
  if (s.backend == Backend::kCuda) env.device = query_cuda_device().name;
  DriveOptions d;
  d.checkpoint = checkpoint;
  d.checkpoint_flag = "study checkpoint";
  d.checkpoint_every = s.checkpoint_every;
  d.final_checkpoint = false;
  d.stop_requested = stop;
  std::function<Problem()> make = [&run] { return make_problem(run.config); };
  CheckpointHeader header;
  if (fs::exists(checkpoint)) {
    header = read_checkpoint_header(checkpoint);
    if (run_key(run_key_json(header.config, header.backend)) != run.key)
      throw UserError(checkpoint + ": the checkpoint of another configuration (delete it)");
    d.resume_from = checkpoint;
    env.resumed_from = checkpoint;
    env.resumed_at_evaluations = header.summary.evaluations;
    make = [&header] { return checkpoint_problem(header); };  // its embedded instance
  } else if (s.backend == Backend::kCpu) {
    cli::check_host_memory(run.config);
  }
  const DrivenRun out = drive_run(run.config, s.backend, make, d);
  env.setup_seconds = out.setup_seconds;
  nlohmann::json trace = earlier_trace(trace_file);
  for (const ConvergenceTrace::Point& p : out.trace.points())
    // A resumed segment may report again the point where the last one stopped.
    if (trace.empty() || p.evaluations > trace.back()[0].get<std::int64_t>())
      trace.push_back({p.evaluations, p.seconds, p.best_fitness});
  if (!out.finished) {
    write_file_atomically("study trace", trace_file, trace.dump() + "\n");
    return false;
  }
  nlohmann::ordered_json j = result_to_json(run.config, env, out.result, &out.trace);
  j["trace"] = trace;
  j["study"] = {{"key", run.key}, {"algorithm", run.algorithm}, {"function", run.function},
                {"file", s.file}};
  write_file_atomically("study result", result_path(s, run), j.dump(2) + "\n");
  fs::remove(checkpoint);
  fs::remove(trace_file);
  return true;
}

// The runs in `todo` (indices into study.runs), one after another or a run per thread; stops
// starting runs once `stop` says so. Returns how many finished.
int run_all(const Study& s, const std::vector<std::size_t>& todo, const StudyOptions& o,
            const std::function<bool()>& stop) {
  std::mutex log;
  std::atomic<int> finished{0};
  std::vector<std::exception_ptr> errors(todo.size());
  auto one = [&](std::size_t i) {
    if (stop()) return;
    const StudyRun& run = s.runs[todo[i]];
    try {
      const auto start = std::chrono::steady_clock::now();
      if (!run_one(s, run, stop)) return;
      const int n = ++finished;
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::lock_guard<std::mutex> lock(log);
      if (!o.quiet)
        std::fprintf(stderr, "chainsaw: study: [%d/%zu] %s %s D=%lld seed %llu: %.2f s\n", n,
                     todo.size(), run.algorithm.c_str(), run.function.c_str(),
                     static_cast<long long>(run.config.dim),
                     static_cast<unsigned long long>(run.config.seed), seconds);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  const long count = static_cast<long>(todo.size());
  if (s.parallel == StudyParallel::kAcross) {
    // As --runs: a run per thread, each serial inside (nested regions are inactive), so a result
    // does not depend on the thread count.
#pragma omp parallel for schedule(dynamic, 1)
    for (long i = 0; i < count; ++i) one(static_cast<std::size_t>(i));
  } else {
    for (long i = 0; i < count; ++i) {
      one(static_cast<std::size_t>(i));
      if (errors[static_cast<std::size_t>(i)]) break;  // the first failure ends the study
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return finished;
}

std::string csv_number(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) return fmt::format("{:.17g}", v.get<double>());
  return v.dump();
}

void write_study_description(const Study& s, int rows) {
  nlohmann::ordered_json j;
  j["file"] = s.file;
  j["algorithms"] = s.algorithms;
  j["functions"] = s.functions;
  j["baseline"] = s.baseline;
  j["measure"] = s.measure;
  j["backend"] = backend_name(s.backend);
  j["runs"] = s.runs.size();
  j["runs_done"] = rows;
  j["published"] = nlohmann::ordered_json::parse(s.published_json);
  write_file_atomically("study", (fs::path(s.folder) / "study.json").string(), j.dump(2) + "\n");
}

// The report's interpreter: the option, else Debian's (with its SciPy, pandas, matplotlib).
std::string report_python(const StudyOptions& o) {
  if (!o.python.empty()) return o.python;
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

// python/chainsaw/study.py: installed next to the binary's share/, else in the source tree.
std::string report_script() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "chainsaw" / "study.py";
    if (fs::exists(installed)) return installed.string();
  }
  return CHAINSAW_STUDY_SCRIPT;
}

int run_report(const Study& s, const StudyOptions& o) {
  const std::string python = report_python(o), script = report_script();
  std::vector<std::string> args = {python, script, "report", s.folder};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw UserError("the report needs " + python + " (--python names another interpreter)");
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  std::fprintf(stderr,
               "chainsaw: error: the report failed (%s %s report %s); the runs and %s/runs.csv "
               "are complete\n",
               python.c_str(), script.c_str(), s.folder.c_str(), s.folder.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

void parse_shard(const std::string& text, StudyOptions& o) {
  const std::size_t slash = text.find('/');
  auto bad = [&] { return UserError("--shard = " + text + ": must be i/n with 1 <= i <= n"); };
  if (slash == std::string::npos) throw bad();
  try {
    const int i = parse_int("--shard", text.substr(0, slash));
    const int n = parse_int("--shard", text.substr(slash + 1));
    if (n < 1 || i < 1 || i > n) throw bad();
    o.shard = i - 1;
    o.shards = n;
  } catch (const UserError&) {
    throw bad();
  }
}

int write_study_table(const Study& s) {
  std::ostringstream csv;
  csv << "algorithm,function,dim,evals,instance,seed,backend,genes,algorithm_kind,"
         "function_name,best_fitness,best_error,distance_to_optimum,evaluations,wall_seconds,"
         "stopped_by,target_evaluations,key,file\n";
  int rows = 0;
  for (const StudyRun& run : s.runs) {
    const std::string path = result_path(s, run);
    if (!fs::exists(path)) continue;
    const nlohmann::json j = read_json(path);
    const Config& c = run.config;
    const nlohmann::json& target = j.at("target_reached");
    csv << run.algorithm << ',' << run.function << ',' << c.dim << ',' << c.max_evaluations << ','
        << c.effective_problem_seed() << ',' << c.seed << ',' << j.at("backend").get<std::string>()
        << ',' << j.at("genes").get<std::string>() << ',' << algorithm_name(c.algorithm) << ','
        << c.function << ',' << csv_number(j.at("best_fitness")) << ','
        << csv_number(j.at("best_error")) << ',' << csv_number(j.at("distance_to_optimum")) << ','
        << csv_number(j.at("evaluations").at("total")) << ','
        << csv_number(j.at("wall_seconds")) << ',' << j.at("stopped_by").get<std::string>() << ','
        << (target.is_null() ? "" : csv_number(target.at("evaluations"))) << ',' << run.key << ','
        << "runs/" << run.name << ".json\n";
    ++rows;
  }
  write_file_atomically("study table", (fs::path(s.folder) / "runs.csv").string(), csv.str());
  write_study_description(s, rows);
  return rows;
}

int run_study(const Study& s, const StudyOptions& o) {
  std::vector<std::size_t> todo;
  std::size_t mine = 0;
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(o.shards)) != o.shard) continue;
    ++mine;
    if (!has_result(s, s.runs[i])) todo.push_back(i);
  }
  if (o.list) {
    for (std::size_t i = 0, t = 0; i < s.runs.size(); ++i) {
      if (static_cast<int>(i % static_cast<std::size_t>(o.shards)) != o.shard) continue;
      const bool pending = t < todo.size() && todo[t] == i;
      t += pending ? 1 : 0;
      std::printf("%s %s\n", pending ? "todo" : "done", result_path(s, s.runs[i]).c_str());
    }
    std::printf("%zu runs, %zu done, %zu to run\n", mine, mine - todo.size(), todo.size());
    return 0;
  }
  if (s.backend == Backend::kCuda && !todo.empty()) (void)resolve_backend(Backend::kCuda);
  std::error_code ec;
  fs::create_directories(runs_folder(s), ec);
  if (ec) throw UserError(s.folder + ": cannot create the study's folder (" + ec.message() + ")");
  if (s.threads > 0) omp_set_num_threads(s.threads);
  StopSignals signals;
  const auto stop = [&signals] { return signals.received() != 0; };
  const int ran = run_all(s, todo, o, stop);
  if (signals.received() != 0) {
    std::fprintf(stderr, "chainsaw: study: interrupted after %d of %zu runs; the runs in progress "
                         "are checkpointed in %s; the same command continues them\n",
                 ran, todo.size(), runs_folder(s).c_str());
    return 128 + signals.received();
  }
  const std::string part = o.shards > 1 ? fmt::format(" (shard {}/{})", o.shard + 1, o.shards) : "";
  if (o.shards > 1) {
    std::fprintf(stderr, "chainsaw: study: %d runs ran, %zu were done%s; once every shard is, "
                         "`chainsaw study %s` writes the table and the report\n",
                 ran, mine - todo.size(), part.c_str(), s.file.c_str());
    return 0;
  }
  const int rows = write_study_table(s);
  std::fprintf(stderr, "chainsaw: study: %d runs ran, %zu were done -> %s/runs.csv (%d rows)\n",
               ran, mine - todo.size(), s.folder.c_str(), rows);
  return o.report ? run_report(s, o) : 0;
}

}  // namespace chainsaw
