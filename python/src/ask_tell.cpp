// chainsaw._core.AskTell: the ask/tell optimiser (io/api/ask_tell.hpp) for chainsaw.Optimizer
// (python/chainsaw/_ask_tell.py). The waits release the GIL: the run's worker thread never
// calls Python.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/api/ask_tell.hpp"
#include "io/cli/cli.hpp"
#include "python/src/result_dict.hpp"

namespace chainsaw::python {
namespace {

class PyAskTell {
 public:
  // args: `chainsaw run` options (function, problem_seed, instance refused by the caller).
  PyAskTell(const std::vector<std::string>& args, const std::string& name, double lower,
            double upper, Dim dim, const std::string& resume_from,
            const std::vector<double>& initial) {
    RunRequest request = parse_run_request(args);
    if (!initial.empty())
      request.config.initial_population = std::make_shared<const std::vector<double>>(initial);
    if (request.config.distribute != Distribute::kNone)
      throw UserError("--distribute: an ask/tell run is one process");
    BatchObjective objective;
    objective.name = name;
    objective.dim = dim;
    objective.lower = lower;
    objective.upper = upper;
    Options o;
    static_cast<Config&>(o) = request.config;
    o.dim = dim;
    o.checkpoint = request.checkpoint;
    o.checkpoint_every = request.checkpoint_every;
    o.resume_from = resume_from;
    checkpoint_ = o.checkpoint;
    impl_ = std::make_unique<AskTell>(objective, o);
  }

  // A copy of the rows (rows x dim, the genes' type); 0 rows when done.
  py::array ask() {
    std::vector<real_t> rows;
    {
      py::gil_scoped_release release;
      rows = impl().ask();
    }
    const Dim dim = impl().dim();
    const py::ssize_t count = dim == 0 ? 0 : static_cast<py::ssize_t>(rows.size() / dim);
    py::array_t<real_t> out(std::vector<py::ssize_t>{count, static_cast<py::ssize_t>(dim)},
                            std::vector<py::ssize_t>{static_cast<py::ssize_t>(dim * sizeof(real_t)),
                                                     static_cast<py::ssize_t>(sizeof(real_t))});
    std::copy(rows.begin(), rows.end(), out.mutable_data());
    return out;
  }

  void tell(py::array_t<double, py::array::c_style | py::array::forcecast> f) {
    if (f.ndim() != 1) throw UserError("tell: f must be 1-D, one value per row asked");
    const std::vector<double> values(f.data(), f.data() + f.shape(0));
    py::gil_scoped_release release;
    impl().tell(values.data(), static_cast<int>(values.size()));
  }

  bool done() {
    py::gil_scoped_release release;
    return impl().done();
  }
  bool at_safe_point() {
    py::gil_scoped_release release;
    return impl().at_safe_point();
  }
  void save(const std::string& path) {
    py::gil_scoped_release release;
    impl().save(path);
  }
  py::dict result() {
    Result r;
    {
      py::gil_scoped_release release;
      r = impl().result();
    }
    return result_dict(r, checkpoint_);
  }
  void close() {
    py::gil_scoped_release release;
    impl_.reset();  // joins the worker
  }

 private:
  AskTell& impl() {
    if (!impl_) throw UserError("the optimiser is closed");
    return *impl_;
  }
  std::unique_ptr<AskTell> impl_;
  std::string checkpoint_;
};

}  // namespace

void bind_ask_tell(py::module_& m) {
  py::class_<PyAskTell>(m, "AskTell")
      .def(py::init<const std::vector<std::string>&, const std::string&, double, double, Dim,
                    const std::string&, const std::vector<double>&>())
      .def("ask", &PyAskTell::ask)
      .def("tell", &PyAskTell::tell)
      .def("done", &PyAskTell::done)
      .def("at_safe_point", &PyAskTell::at_safe_point)
      .def("save", &PyAskTell::save)
      .def("result", &PyAskTell::result)
      .def("close", &PyAskTell::close);
}

}  // namespace chainsaw::python
