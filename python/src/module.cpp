// chainsaw._core: the Python module's native part (python/chainsaw/__init__.py is its face).
// The command line's option parsing and checks (io/cli/cli.hpp) and the library's runs
// (io/api/optimize.hpp) with Python hooks: NumPy rows for a host objective, DLPack rows for a
// device objective, progress and stop at the host loop's safe points, SIGINT as a stop request.
#include <omp.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#if defined(CHAINSAW_CUDA)
#include <cuda_runtime_api.h>
#endif

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/types.hpp"
#include "fitness/external_objective.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"
#include "io/api/optimize.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/cli/cli.hpp"
#include "io/instance_file.hpp"
#include "io/results/output_file.hpp"
#include "io/run/many_runs.hpp"
#include "io/version.hpp"
#include "python/src/objective_callbacks.hpp"
#include "python/src/result_dict.hpp"

namespace py = pybind11;

namespace chainsaw::python {
namespace {

// ---- SIGINT: the first one asks the run to stop at its next safe point (a checkpoint is
// written there); it also gives Python its handler back, so that a second one raises
// KeyboardInterrupt at once (in `fun`, or at the next callback).
volatile std::sig_atomic_t g_sigint = 0;
struct sigaction g_python_action {};

extern "C" void on_sigint(int) {
  g_sigint = 1;
  sigaction(SIGINT, &g_python_action, nullptr);
}

class SigintGuard {
 public:
  explicit SigintGuard(bool install) : installed_(install) {
    g_sigint = 0;
    if (!installed_) return;
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &g_python_action);
  }
  ~SigintGuard() {
    if (installed_) sigaction(SIGINT, &g_python_action, nullptr);
  }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  bool installed_;
};

// What a run hands back to Python besides the result, and what Python hands the run.
struct Session {
  py::object progress;  // None or progress(evaluations, budget, best_fitness, seconds) -> bool
  bool handle_sigint = true;
  bool stop_by_callback = false;
  // A Python exception raised where the run cannot take it (a signal handler's, seen at a safe
  // point): kept until the run has stopped, after its checkpoint.
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  ~Session() {
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
  }
};

void add_hooks(Options& o, Session& s) {
  o.progress_best_genes = !s.progress.is_none();  // the callback's x
  o.progress = [&s](const Progress& p) {
    if (s.progress.is_none()) return;
    py::gil_scoped_acquire gil;
    py::array_t<double> x = new_vector(static_cast<py::ssize_t>(p.best_genes.size()));
    std::copy(p.best_genes.begin(), p.best_genes.end(), x.mutable_data());
    if (py::object stop =
            s.progress(p.evaluations, p.budget, p.best_fitness, p.elapsed_seconds, x);
        stop.ptr() != nullptr && PyObject_IsTrue(stop.ptr()) == 1)
      s.stop_by_callback = true;
  };
  o.stop_requested = [&s]() -> bool {
    if (g_sigint || s.stop_by_callback || s.type != nullptr) return true;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Fetch(&s.type, &s.value, &s.traceback);
      return true;
    }
    return false;
  };
}

// Runs `run` (which calls optimize) with the GIL released and the hooks in place; raises the
// KeyboardInterrupt of a SIGINT or the exception a hook kept; writes `output` after a whole run.
template <class Run>
py::dict run_session(Options& o, Session& s, const std::string& output, const Run& run) {
  add_hooks(o, s);
  Result r;
  {
    // threads > 0 sets OpenMP's thread count for the process (as the command line does): only
    // for this run here, so that a later run with threads = 0 gets OpenMP's default again.
    struct RestoreThreads {
      int threads = omp_get_max_threads();
      ~RestoreThreads() { omp_set_num_threads(threads); }
    } restore_threads;
    SigintGuard guard(s.handle_sigint);
    py::gil_scoped_release release;
    r = run(o);
  }
  const std::string saved =
      o.checkpoint.empty()
          ? "no checkpoint was asked for, nothing is saved"
          : "checkpoint written to " + o.checkpoint + "; continue with chainsaw.resume('" +
                o.checkpoint + "', ...)";
  if (s.type != nullptr) {
    PyErr_Restore(s.type, s.value, s.traceback);
    s.type = s.value = s.traceback = nullptr;
    throw py::error_already_set();
  }
  if (r.stopped && g_sigint) {
    char best[64];
    std::snprintf(best, sizeof best, "%.6e", r.best_fitness);
    PyErr_SetString(PyExc_KeyboardInterrupt,
                    ("interrupted by SIGINT after " + std::to_string(r.evaluations.evaluations) +
                     " evaluations (best " + best + "); " + saved)
                        .c_str());
    throw py::error_already_set();
  }
  // NaN or -inf values make the run an error (Python raises after it: the GPU counts them on the
  // device instead of checking each call), so they leave no output either.
  if (!r.stopped && r.invalid_evaluations == 0 && !output.empty())
    write_file_atomically("output", output, r.json);
  return result_dict(r, o.checkpoint);
}

Options options_from(const RunRequest& request) {
  Options o;
  static_cast<Config&>(o) = request.config;
  o.checkpoint = request.checkpoint;
  o.checkpoint_every = request.checkpoint_every;
  o.profile = request.profile;
  return o;
}

// x0= and population= (float64 rows, the engine's coordinates): the run's --init points.
void set_initial_population(Config& config, const std::vector<double>& initial) {
  if (!initial.empty()) config.initial_population = std::make_shared<const std::vector<double>>(initial);
}

// Runs a user objective: args are `chainsaw run` options (function, problem_seed, instance
// and dry_run refused by the caller).
py::dict run_objective(const std::vector<std::string>& args, const std::string& name,
                       double lower, double upper, Dim dim, py::object host, bool batch,
                       py::object device, bool device_graph, const std::string& reference,
                       const std::string& resume_from, py::object progress, bool handle_sigint,
                       const std::vector<double>& initial) {
  RunRequest request = parse_run_request(args);
  set_initial_population(request.config, initial);
  if (request.config.distribute != Distribute::kNone)
    throw UserError("--distribute: a distributed run starts under mpirun with the chainsaw "
                    "command line");
  BatchObjective objective;
  objective.name = name;
  objective.dim = dim;
  objective.lower = lower;
  objective.upper = upper;
  if (!reference.empty()) {
    objective.host = reference_callback(reference);
  } else if (!host.is_none()) {
    objective.host = host_callback(host, batch);
  }
  if (!device.is_none()) {
#if defined(CHAINSAW_CUDA)
    if (device_graph) {
      std::tie(objective.device, objective.device_graph) = device_graph_callbacks(device);
    } else {
      objective.device = device_callback(device);
    }
#else
    (void)device_graph;
    throw UserError("array_module: this chainsaw was built without CUDA; a GPU objective "
                    "needs the CUDA backend");
#endif
  }
  Options o = options_from(request);
  o.dim = dim;
  o.resume_from = resume_from;
  if (!resume_from.empty() && request.checkpoint.empty()) o.checkpoint = resume_from;
  Session s;
  s.progress = std::move(progress);
  s.handle_sigint = handle_sigint;
  return run_session(o, s, request.output,
                     [&objective](const Options& opts) { return optimize(objective, opts); });
}

py::dict run_builtin(const std::vector<std::string>& args, py::object progress,
                     bool handle_sigint, const std::vector<double>& initial) {
  RunRequest request = parse_run_request(args);
  set_initial_population(request.config, initial);
  const RunEnvironment env = check_run_request(request);
  if (request.dry_run) {
    py::dict d;
    d["dry_run"] = dry_run_request(request, env.backend);
    std::fflush(stdout);
    return d;
  }
  Options o = options_from(request);
  Session s;
  s.progress = std::move(progress);
  s.handle_sigint = handle_sigint;
  return run_session(o, s, request.output, [](const Options& opts) { return optimize(opts); });
}

py::dict resume_builtin(const std::vector<std::string>& args, py::object progress,
                        bool handle_sigint) {
  const ResumeRequest request = parse_resume_request(args);
  Options o = options_from(request.run);
  o.resume_from = request.file;
  Session s;
  s.progress = std::move(progress);
  s.handle_sigint = handle_sigint;
  return run_session(o, s, request.run.output,
                     [](const Options& opts) { return optimize(opts); });
}

py::list specs(const std::string& command) {
  py::list out;
  if (command != "run" && command != "resume") throw UserError("no command '" + command + "'");
  for (const OptionSpec& s : command == "run" ? run_option_specs() : resume_option_specs()) {
    py::dict d;
    d["name"] = s.name;
    d["default"] = s.default_text;
    d["type"] = s.type;
    d["flag"] = s.flag;
    d["help"] = s.help;
    out.append(d);
  }
  return out;
}

py::list functions() {
  py::list out;
  for (const auto* list : function_tables())
    for (const FunctionInfo& f : *list) {
      py::dict d;
      d["name"] = f.name;
      d["lower"] = f.lower;
      d["upper"] = f.upper;
      d["separability"] = f.separability;
      d["formula"] = f.formula;
      d["alias"] = f.alias != nullptr ? py::object(py::str(f.alias)) : py::object(py::none());
      d["optimum_value"] = function_optimum_value(f.id);
      d["cec2010"] = cec2010_number(f.id) != 0;
      d["janssen"] = janssen_number(f.id) != 0;
      d["cec2013"] = cec2013_number(f.id) != 0;
      out.append(d);
    }
  return out;
}

py::dict inspect(const std::string& path) {
  const CheckpointSummary s = inspect_checkpoint(path);
  py::dict d;
  d["path"] = path;
  d["format_version"] = s.format_version;
  d["chainsaw_version"] = s.chainsaw_version;
  d["algorithm"] = s.algorithm;
  d["written_at"] = s.written_at;
  d["reason"] = s.reason;
  d["backend"] = s.backend;
  d["genes"] = s.genes_type;
  d["function"] = s.function;
  d["dim"] = s.dim;
  d["slots"] = s.capacity;
  d["evaluations"] = s.evaluations;
  d["budget"] = s.budget;
  d["best_fitness"] = s.best_fitness;
  d["instance"] = s.instance;
  return d;
}

// instance: a run's --instance ("" for none).
Problem builtin_problem(const std::string& function, Dim dim, std::uint64_t problem_seed,
                        const std::string& instance = "") {
  if (problem_seed == 0) throw UserError("problem_seed = 0: give the run's seed");
  return make_problem(function, dim, problem_seed, instance);
}

py::array_t<double> shift(const std::string& function, Dim dim, std::uint64_t problem_seed) {
  const Problem p = builtin_problem(function, dim, problem_seed);
  if (p.is_cec2010() || p.is_cec2013())
    throw UserError("shift: the cec2010-* and cec2013-* functions have instances, not a shift");
  py::array_t<double> o = new_vector(static_cast<py::ssize_t>(dim));
  double* out = o.mutable_data();
  for (Dim j = 0; j < dim; ++j) out[j] = p.shift.value(j);
  return o;
}

py::array_t<double> evaluate(const std::string& function,
                             py::array_t<real_t, py::array::c_style | py::array::forcecast> x,
                             std::uint64_t problem_seed, const std::string& instance) {
  if (x.ndim() != 2) throw UserError("evaluate: x must be 2-D (points x variables)");
  const Problem p =
      builtin_problem(function, static_cast<Dim>(x.shape(1)), problem_seed, instance);
  py::array_t<double> f = new_vector(x.shape(0));
  double* out = f.mutable_data();
  for (py::ssize_t r = 0; r < x.shape(0); ++r) out[r] = evaluate_host(p, x.data(r, 0));
  return f;
}

}  // namespace
}  // namespace chainsaw::python

PYBIND11_MODULE(_core, m) {
  using namespace chainsaw;
  using namespace chainsaw::python;
  m.doc() = "chainsaw's native part; use the chainsaw package";
  static py::exception<UserError> error(m, "ChainsawError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      error(e.what());
    }
  });
  m.attr("version") = kVersion;
  m.attr("genes") = sizeof(real_t) == 8 ? "float64" : "float32";
#if defined(CHAINSAW_CUDA)
  m.attr("cuda_built") = true;
#else
  m.attr("cuda_built") = false;
#endif
  m.def("option_specs", &specs);
  m.def("functions", &functions);
  m.def("inspect", &inspect);
  m.def("shift", &shift);
  m.def("evaluate", &evaluate);
  m.def("run_builtin", &run_builtin);
  m.def("resume_builtin", &resume_builtin);
  m.def("run_objective", &run_objective);
  // runs=K: the summary `chainsaw run --runs K` writes, of the K result files' texts.
  m.def("summarize_runs", [](const std::vector<std::string>& results) {
    std::vector<nlohmann::ordered_json> runs;
    for (const std::string& r : results) runs.push_back(nlohmann::ordered_json::parse(r));
    return summarize_runs(runs).dump();
  });
  bind_ask_tell(m);
}
