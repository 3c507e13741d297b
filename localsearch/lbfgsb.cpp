#include "localsearch/lbfgsb.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"

#if defined(CHAINSAW_LBFGSB)
// L-BFGS-B 3.0's driver (liblbfgsb, Fortran 77): every argument by reference, the two
// CHARACTER*60 arguments' lengths appended by gfortran's calling convention.
extern "C" void setulb_(int* n, int* m, double* x, double* l, double* u, int* nbd, double* f,
                        double* g, double* factr, double* pgtol, double* wa, int* iwa, char* task,
                        int* iprint, char* csave, int* lsave, int* isave, double* dsave,
                        std::size_t task_length, std::size_t csave_length);
#endif

namespace chainsaw {

#if defined(CHAINSAW_LBFGSB)
namespace {

constexpr int kMemory = 10;            // m: SciPy's default
constexpr double kFactr = 1e7;         // SciPy's default: stop at a relative reduction of 1e7 eps
constexpr double kPgtol = 1e-5;        // SciPy's default: projected-gradient tolerance
constexpr int kMaxIterations = 15000;  // SciPy's default maxiter
constexpr std::size_t kTaskLength = 60;
// Rows of one batch of the difference quotients: ~4 M genes at a time.
constexpr Dim kBatchGenes = Dim{1} << 22;

bool task_is(const char* task, const char* prefix) {
  return std::strncmp(task, prefix, std::strlen(prefix)) == 0;
}

// f at x (as genes) and its forward-difference gradient into g: D + 1 evaluations. Every point
// evaluated, the difference points too, is a candidate for the best.
struct Gradient {
  const EvaluateRows& evaluate;
  Dim dim;
  double upper;
  real_t* best;
  double& best_f;
  std::vector<real_t> point, rows;
  std::vector<double> values, steps;

  void keep_if_better(const real_t* genes, double f) {
    if (!(f < best_f)) return;
    best_f = f;
    std::copy_n(genes, dim, best);
  }
  // f at x and the first min(D, limit - 1) difference quotients (limit >= 1: the evaluations
  // the run has left; a gradient cut there is not used).
  double at(const double* x, double* g, std::int64_t limit) {
    for (Dim j = 0; j < dim; ++j) point[j] = static_cast<real_t>(x[j]);
    double f0 = 0.0;
    evaluate(point.data(), 1, &f0);
    keep_if_better(point.data(), f0);
    const Dim quotients = std::min<std::int64_t>(dim, limit - 1);
    const Dim batch = std::max<Dim>(1, std::min<Dim>(dim, kBatchGenes / dim));
    rows.resize(static_cast<std::size_t>(batch * dim));
    values.resize(static_cast<std::size_t>(batch));
    steps.resize(static_cast<std::size_t>(batch));
    for (Dim first = 0; first < quotients; first += batch) {
      const Dim count = std::min(batch, quotients - first);
      for (Dim r = 0; r < count; ++r) {
        real_t* row = rows.data() + r * dim;
        std::copy(point.begin(), point.end(), row);
        const Dim j = first + r;
        const double x0 = static_cast<double>(point[j]);
        const double h = lbfgsb_difference_step(x0);
        // Backward where forward leaves the domain (SciPy's approx_derivative with bounds).
        row[j] = static_cast<real_t>(x0 + h <= upper ? x0 + h : x0 - h);
        steps[r] = static_cast<double>(row[j]) - x0;
      }
      evaluate(rows.data(), static_cast<int>(count), values.data());
      for (Dim r = 0; r < count; ++r) {
        g[first + r] = steps[r] != 0.0 ? (values[r] - f0) / steps[r] : 0.0;
        keep_if_better(rows.data() + r * dim, values[r]);
      }
    }
    return f0;
  }
};

}  // namespace
#endif

double lbfgsb_difference_step(double x) {
  if constexpr (sizeof(real_t) == sizeof(double)) return 1e-8;
  // f is computed in float64 from the genes, so a few float steps of x are enough: a larger h
  // biases the gradient by f'' h / 2 (on an elliptic with weights up to 10^6, h = 3e-4 |x|
  // stalled L-BFGS-B at errors of 10^3-10^4).
  const float a = std::abs(static_cast<float>(x));
  const double ulp =
      static_cast<double>(std::nextafter(a, std::numeric_limits<float>::infinity()) - a);
  return std::max(1e-8, 8.0 * ulp);
}

bool lbfgsb_available() {
#if defined(CHAINSAW_LBFGSB)
  return true;
#else
  return false;
#endif
}

LbfgsbOutcome lbfgsb_minimize(const EvaluateRows& evaluate, real_t* x, double& fx, Dim dim,
                              std::int64_t budget, double lower, double upper,
                              std::int64_t cut) {
  LbfgsbOutcome out;
#if !defined(CHAINSAW_LBFGSB)
  (void)evaluate, (void)x, (void)fx, (void)dim, (void)budget, (void)lower, (void)upper, (void)cut;
  throw UserError("this chainsaw was built without L-BFGS-B (Debian: liblbfgsb-dev)");
#else
  if (budget < dim + 1) return out;  // not one gradient
  CHAINSAW_EXPECTS(dim <= std::numeric_limits<int>::max() / 3, "L-BFGS-B: D too large");
  int n = static_cast<int>(dim), m = kMemory, iprint = -1;
  std::vector<double> xd(x, x + dim), l(dim, lower), u(dim, upper), g(dim, 0.0);
  std::vector<int> nbd(dim, 2), iwa(3 * dim);  // 2: both bounds
  std::vector<double> wa(2 * kMemory * dim + 5 * dim + 11 * kMemory * kMemory + 8 * kMemory);
  int lsave[4] = {0, 0, 0, 0}, isave[44] = {};
  double dsave[29] = {}, factr = kFactr, pgtol = kPgtol, f = fx;
  char task[kTaskLength], csave[kTaskLength];
  std::memset(task, ' ', kTaskLength);
  std::memset(csave, ' ', kTaskLength);
  std::memcpy(task, "START", 5);
  Gradient gradient{evaluate, dim, upper, x, fx, std::vector<real_t>(dim), {}, {}, {}};
  const double start = fx;
  int iterations = 0;
  for (;;) {
    setulb_(&n, &m, xd.data(), l.data(), u.data(), nbd.data(), &f, g.data(), &factr, &pgtol,
            wa.data(), iwa.data(), task, &iprint, csave, lsave, isave, dsave, kTaskLength,
            kTaskLength);
    if (task_is(task, "FG")) {
      if (out.evaluations + dim + 1 > budget || out.evaluations >= cut) break;
      const std::int64_t limit = std::min<std::int64_t>(dim + 1, cut - out.evaluations);
      f = gradient.at(xd.data(), g.data(), limit);
      out.evaluations += limit;
      if (limit < dim + 1) break;  // the run's budget ends inside this gradient
    } else if (task_is(task, "NEW_X")) {
      if (++iterations >= kMaxIterations) break;
    } else {
      break;  // converged, or the line search or the input failed
    }
  }
  out.improvement = start - fx;
  return out;
#endif
}

}  // namespace chainsaw
