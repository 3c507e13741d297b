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

// ---- User objectives.

// NumPy rows over the engine's genes: a read-only view, no copy.
py::array rows_view(const real_t* genes, Dim pitch, int rows, Dim dim) {
  py::array view(py::dtype::of<real_t>(),
                 std::vector<py::ssize_t>{rows, static_cast<py::ssize_t>(dim)},
                 std::vector<py::ssize_t>{static_cast<py::ssize_t>(pitch * sizeof(real_t)),
                                          static_cast<py::ssize_t>(sizeof(real_t))},
                 genes, py::none());
  py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return view;
}

std::string shape_text(const py::array& a) {
  std::string t = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) t += (i ? ", " : "") + std::to_string(a.shape(i));
  return t + (a.ndim() == 1 ? ",)" : ")");
}

void check_fitness(double f, int row) {
  if (is_invalid_fitness(f)) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "fun returned %g for row %d: NaN and -inf are not fitness values", f, row);
    throw py::value_error(text);
  }
}

HostBatchFn host_callback(py::object fun, bool batch) {
  return [fun = std::move(fun), batch](const real_t* genes, Dim pitch, int rows, Dim dim,
                                        double* fitness) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // a second SIGINT
    if (!batch) {
      for (int r = 0; r < rows; ++r) {
        py::object value = fun(rows_view(genes + static_cast<Dim>(r) * pitch, pitch, 1, dim)[py::int_(0)]);
        double f = 0.0;
        try {
          f = value.cast<double>();
        } catch (const py::cast_error&) {
          throw py::type_error("fun returned " + std::string(py::str(value.get_type())) +
                               ", not a number (batch=False: one fitness per call)");
        }
        check_fitness(f, r);
        fitness[r] = f;
      }
      return;
    }
    py::object out = fun(rows_view(genes, pitch, rows, dim));
    auto f = py::array_t<double, py::array::forcecast>::ensure(out);
    if (!f) {
      PyErr_Clear();
      throw py::type_error("fun returned " + std::string(py::str(out.get_type())) +
                           ", not an array of fitness values");
    }
    if (f.ndim() != 1 || f.shape(0) != rows)
      throw py::value_error("fun returned an array of shape " + shape_text(f) + " for " +
                            std::to_string(rows) + " rows; expected (" + std::to_string(rows) +
                            ",): one fitness per row");
    const auto v = f.unchecked<1>();
    for (int r = 0; r < rows; ++r) {
      check_fitness(v(r), r);
      fitness[r] = v(r);
    }
  };
}

#if defined(CHAINSAW_CUDA)
// DLPack (dlpack.h, ABI version 0.x, the "dltensor" capsule every array library takes).
struct DLDevice {
  std::int32_t device_type;  // kDLCUDA = 2
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;  // kDLFloat = 2
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct RowsTensor {
  DLManagedTensor managed;
  std::int64_t shape[2];
  std::int64_t strides[2];
};

void delete_rows_tensor(DLManagedTensor* self) {
  delete static_cast<RowsTensor*>(self->manager_ctx);
}

extern "C" void dltensor_capsule_destructor(PyObject* capsule) {
  // A consumer renames the capsule "used_dltensor" and owns the tensor from then on.
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    managed->deleter(managed);
  }
}

// A device array as a DLPack capsule: 2-D (shape[0] x shape[1], row stride `row_stride`) or
// 1-D (shape[1] == 0), floats of `bits` bits.
py::object device_capsule(const void* data, std::int64_t rows, std::int64_t columns,
                          std::int64_t row_stride, int bits, int device) {
  auto* t = new RowsTensor{};
  t->shape[0] = rows;
  t->shape[1] = columns;
  t->strides[0] = columns == 0 ? 1 : row_stride;
  t->strides[1] = 1;
  DLTensor& d = t->managed.dl_tensor;
  d.data = const_cast<void*>(data);
  d.device = {2, device};
  d.ndim = columns == 0 ? 1 : 2;
  d.dtype = {2, static_cast<std::uint8_t>(bits), 1};
  d.shape = t->shape;
  d.strides = t->strides;
  d.byte_offset = 0;
  t->managed.manager_ctx = t;
  t->managed.deleter = delete_rows_tensor;
  PyObject* capsule = PyCapsule_New(&t->managed, "dltensor", dltensor_capsule_destructor);
  if (capsule == nullptr) {
    delete t;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(capsule);
}

// The device rows: rows x dim genes, row stride pitch, read only by contract.
py::object rows_capsule(const real_t* genes, Dim pitch, int rows, Dim dim, int device) {
  return device_capsule(genes, rows, dim, pitch, 8 * sizeof(real_t), device);
}

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// `call(capsule, rows, stream, device)` (python/chainsaw/_device.py) runs fun on the engine's
// stream and returns (keep, pointer): `rows` float64 fitness values in device memory at
// `pointer`, alive while `keep` is.
DeviceBatchFn device_callback(py::object call) {
  return [call = std::move(call)](const real_t* genes, Dim pitch, int rows, Dim dim,
                                  double* fitness, DeviceStream stream) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    int device = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    py::tuple out = call(rows_capsule(genes, pitch, rows, dim, device), rows,
                         reinterpret_cast<std::uintptr_t>(stream), device);
    const auto pointer = out[1].cast<std::uintptr_t>();
    // Enqueued before `out` (the fitness tensor) is released: an allocator that reuses its
    // memory on this stream orders the reuse after the copy.
    check_cuda(cudaMemcpyAsync(fitness, reinterpret_cast<const void*>(pointer),
                               static_cast<std::size_t>(rows) * sizeof(double),
                               cudaMemcpyDeviceToDevice, stream),
               "copying the fitness values");
  };
}

// A user objective captured into CUDA graphs (python/chainsaw/_device.py, device_capture) and
// replayed here with no Python call. A call site that comes back with the same rows and
// fitness addresses (the Solis-Wets candidate, every step) gets a graph of its own that reads
// and writes them in place; other calls (children in slots that change) copy their rows into
// a graph's static input, one graph per row count, and its values out.
class CapturedObjective {
 public:
  // input/output 0: the graph reads the call's rows and writes its fitness itself.
  CapturedObjective(py::object keep, std::uintptr_t graph, std::uintptr_t input, Dim input_pitch,
                    std::uintptr_t output)
      : keep_(std::move(keep)),
        graph_(reinterpret_cast<cudaGraph_t>(graph)),
        input_(reinterpret_cast<real_t*>(input)),
        input_pitch_(input_pitch),
        output_(reinterpret_cast<const double*>(output)) {
    check_cuda(cudaGraphInstantiate(&exec_, reinterpret_cast<cudaGraph_t>(graph), 0),
               "instantiating the objective's CUDA graph");
  }
  CapturedObjective(const CapturedObjective&) = delete;
  CapturedObjective& operator=(const CapturedObjective&) = delete;
  ~CapturedObjective() {
    cudaGraphExecDestroy(exec_);
    py::gil_scoped_acquire gil;  // the graph, its pool and static tensors are Python objects
    keep_ = py::object();
  }

  // The captured graph itself (PyTorch's, alive while keep_ is): an in-place one is what
  // BatchObjective::device_graph hands the engine.
  cudaGraph_t graph() const { return graph_; }

  void evaluate(const real_t* genes, Dim pitch, int rows, Dim dim, double* fitness,
                DeviceStream stream) const {
    if (input_ != nullptr)
      check_cuda(cudaMemcpy2DAsync(input_, input_pitch_ * sizeof(real_t), genes,
                                   pitch * sizeof(real_t), dim * sizeof(real_t),
                                   static_cast<std::size_t>(rows), cudaMemcpyDeviceToDevice,
                                   stream),
                 "copying the rows into the objective's graph");
    check_cuda(cudaGraphLaunch(exec_, stream), "launching the objective's CUDA graph");
    if (output_ != nullptr)
      check_cuda(cudaMemcpyAsync(fitness, output_, static_cast<std::size_t>(rows) * sizeof(double),
                                 cudaMemcpyDeviceToDevice, stream),
                 "copying the fitness values");
  }

 private:
  py::object keep_;
  cudaGraph_t graph_;
  cudaGraphExec_t exec_ = nullptr;
  real_t* input_;
  Dim input_pitch_;
  const double* output_;
};

// In-place graphs at most: each holds fun's intermediates for its row count.
constexpr std::size_t kInPlaceGraphs = 8;

// `capture(rows_capsule | None, rows, dim, pitch, gene_bytes, fitness_capsule | None, device)`
// returns (keep, graph, input, pitch, output); called under the GIL on a call site's second
// visit (in place), on a row count's first (static input), or when the engine asks for the
// graph of a call site (device_graph).
struct CapturedGraphs {
  using Site = std::tuple<const real_t*, Dim, int, double*>;
  py::object capture;
  std::map<Site, int> visits;
  std::map<Site, std::unique_ptr<CapturedObjective>> in_place;
  std::map<int, std::unique_ptr<CapturedObjective>> by_rows;

  CapturedObjective& make(const Site& site, Dim dim, bool in_place_graph, DeviceStream stream) {
    const auto& [genes, pitch, rows, fitness] = site;
    py::gil_scoped_acquire gil;
    int device = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    // The capture synchronises its device; the rows of this call must be ready first.
    check_cuda(cudaStreamSynchronize(stream), "waiting for the engine's stream");
    const int gene_bytes = static_cast<int>(sizeof(real_t));
    py::tuple out =
        in_place_graph
            ? capture(rows_capsule(genes, pitch, rows, dim, device), rows, dim, pitch,
                      gene_bytes, device_capsule(fitness, rows, 0, 1, 64, device), device)
            : capture(py::none(), rows, dim, pitch, gene_bytes, py::none(), device);
    auto graph = std::make_unique<CapturedObjective>(
        out[0], out[1].cast<std::uintptr_t>(), out[2].cast<std::uintptr_t>(), out[3].cast<Dim>(),
        out[4].cast<std::uintptr_t>());
    auto& slot = in_place_graph ? in_place[site] : by_rows[rows];
    slot = std::move(graph);
    return *slot;
  }
};

std::pair<DeviceBatchFn, DeviceGraphFn> device_graph_callbacks(py::object capture) {
  auto graphs = std::make_shared<CapturedGraphs>();
  graphs->capture = std::move(capture);
  DeviceBatchFn evaluate = [graphs](const real_t* genes, Dim pitch, int rows, Dim dim,
                                    double* fitness, DeviceStream stream) {
    const CapturedGraphs::Site site{genes, pitch, rows, fitness};
    if (auto found = graphs->in_place.find(site); found != graphs->in_place.end())
      return found->second->evaluate(genes, pitch, rows, dim, fitness, stream);
    const bool in_place =
        ++graphs->visits[site] >= 2 && graphs->in_place.size() < kInPlaceGraphs;
    auto by_rows = graphs->by_rows.find(rows);
    if (!in_place && by_rows != graphs->by_rows.end())
      return by_rows->second->evaluate(genes, pitch, rows, dim, fitness, stream);
    graphs->make(site, dim, in_place, stream).evaluate(genes, pitch, rows, dim, fitness, stream);
  };
  DeviceGraphFn graph = [graphs](const real_t* genes, Dim pitch, int rows, Dim dim,
                                 double* fitness, DeviceStream stream) -> DeviceGraph {
    const CapturedGraphs::Site site{genes, pitch, rows, fitness};
    if (auto found = graphs->in_place.find(site); found != graphs->in_place.end())
      return found->second->graph();
    if (graphs->in_place.size() >= kInPlaceGraphs) return nullptr;
    return graphs->make(site, dim, true, stream).graph();
  };
  return {std::move(evaluate), std::move(graph)};
}
#endif

// The C++ batch callbacks the tests and bench/experiments/python_overhead.py hold the Python ones
// against.
HostBatchFn reference_callback(const std::string& kind) {
  if (kind == "maxabs")  // max_j |x_j - 0.25|: exact in any order, so NumPy gives the same bits
    return [](const real_t* genes, Dim pitch, int rows, Dim dim, double* fitness) {
      for (int r = 0; r < rows; ++r) {
        const real_t* x = genes + static_cast<Dim>(r) * pitch;
        double m = 0.0;
        for (Dim j = 0; j < dim; ++j) m = std::max(m, std::abs(static_cast<double>(x[j]) - 0.25));
        fitness[r] = m;
      }
    };
  if (kind == "rastrigin")  // unshifted, one thread: what the NumPy benchmark objective computes
    return [](const real_t* genes, Dim pitch, int rows, Dim dim, double* fitness) {
      for (int r = 0; r < rows; ++r) {
        const real_t* x = genes + static_cast<Dim>(r) * pitch;
        double s = 0.0;
        for (Dim j = 0; j < dim; ++j) {
          const double z = static_cast<double>(x[j]);
          s += z * z - 10.0 * std::cos(2.0 * 3.141592653589793 * z) + 10.0;
        }
        fitness[r] = s;
      }
    };
  throw UserError("unknown reference objective '" + kind + "'");
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
