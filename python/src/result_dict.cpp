#include "python/src/result_dict.hpp"

#include <vector>

namespace chainsaw::python {

py::array_t<double> new_vector(py::ssize_t n) {
  return py::array_t<double>(std::vector<py::ssize_t>{n},
                             std::vector<py::ssize_t>{static_cast<py::ssize_t>(sizeof(double))});
}

py::dict result_dict(const Result& r, const std::string& checkpoint) {
  py::dict d;
  py::array_t<double> x = new_vector(static_cast<py::ssize_t>(r.best_genes.size()));
  double* xp = x.mutable_data();
  for (std::size_t i = 0; i < r.best_genes.size(); ++i) xp[i] = static_cast<double>(r.best_genes[i]);
  d["x"] = x;
  d["fun"] = r.best_fitness;
  d["best_error"] = r.best_error;
  d["nfev"] = r.evaluations.evaluations;
  d["distance_to_optimum"] = r.distance_to_optimum;
  d["invalid_evaluations"] = r.invalid_evaluations;
  d["stopped"] = r.stopped;
  d["nit"] = r.iterations;
  d["stop_reason"] = std::string(stop_reason_name(r.stop.reason));
  d["backend"] = std::string(backend_name(r.backend));
  d["device"] = r.device;
  d["threads"] = r.threads;
  d["wall_seconds"] = r.wall_seconds;
  d["setup_seconds"] = r.setup_seconds;
  d["checkpoint"] = checkpoint;
  d["json"] = r.json;
  py::list trace;
  for (const TracePoint& p : r.trace) trace.append(py::make_tuple(p.evaluations, p.seconds, p.best_fitness));
  d["trace"] = trace;
  return d;
}

}  // namespace chainsaw::python
