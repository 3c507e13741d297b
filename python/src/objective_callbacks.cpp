// The user objectives of the Python module's runs: a Python function over NumPy rows of the
// engine's genes (a row or a batch a call), a device function over DLPack rows on the engine's
// stream, the same captured as CUDA graphs, and the C++ reference callbacks the tests compare with.
#include "python/src/objective_callbacks.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
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

#include "core/error.hpp"
#include "fitness/host_fitness.hpp"
#include "python/src/result_dict.hpp"

namespace chainsaw::python {

namespace {

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

}  // namespace

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
namespace {
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

}  // namespace

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

namespace {
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

}  // namespace

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

}  // namespace chainsaw::python
