// The native parts of the Python module share these: a run's Result as the dict the Python
// Result class reads (python/chainsaw/__init__.py), and the module's bindings beyond module.cpp.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "io/api/optimize.hpp"

namespace chainsaw::python {

namespace py = pybind11;

// A new float64 vector. Its strides are given, not derived from the dtype's item size: the
// pybind11 of Debian 12 (2.10) reads that size at NumPy 1's offset, which NumPy 2 moved (a
// zero stride then makes every element alias the first).
py::array_t<double> new_vector(py::ssize_t n);

// The result as a dict for the Python Result class; `checkpoint`: the file the run wrote.
py::dict result_dict(const Result& r, const std::string& checkpoint);

// chainsaw._core.AskTell (python/src/ask_tell.cpp).
void bind_ask_tell(py::module_& m);

}  // namespace chainsaw::python
