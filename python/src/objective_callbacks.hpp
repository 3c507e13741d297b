// The user objectives of the Python module's runs (python/src/objective_callbacks.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "fitness/external_objective.hpp"

namespace chainsaw::python {

namespace py = pybind11;

// fun(x) -> float for one row, or fun(X) -> array of rows' values with `batch`; NaN or -inf
// raise ValueError naming the row.
HostBatchFn host_callback(py::object fun, bool batch);

// The C++ batch callbacks the tests and bench/experiments/python_overhead.py hold the Python
// ones against: "maxabs" or "rastrigin" (UserError for another name).
HostBatchFn reference_callback(const std::string& kind);

#if defined(CHAINSAW_CUDA)
// `call(capsule, rows, stream, device)` (python/chainsaw/_device.py): a device objective over
// DLPack rows on the engine's stream.
DeviceBatchFn device_callback(py::object call);

// The same objective captured as CUDA graphs, one per call site, replayed after the first call.
std::pair<DeviceBatchFn, DeviceGraphFn> device_graph_callbacks(py::object capture);
#endif

}  // namespace chainsaw::python
