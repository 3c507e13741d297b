// The benchmark objective of the reference runs: chainsaw's own per-gene terms and shift
// (fitness/functions.hpp, fitness/problem.hpp), compiled into a shared object that R loads, so
// that the reference package optimises exactly the instance chainsaw does for the same problem
// seed, with no R code in the objective. Genes are double here (CHAINSAW_DOUBLE), as the
// reference's are; o is a float in both precisions, so the instance is the same one.
//
// Rmalschains calls a compiled objective through an external pointer to
// `double (*)(SEXP par, SEXP env)` (its EvalCompiled). `chainsaw_objective_xptr()` returns one;
// `chainsaw_objective_set(name, dim, problem_seed)` chooses the function first; the time spent
// inside the objective and the number of calls are kept so the harness can report them.
#include <Rcpp.h>

#include <chrono>
#include <string>

#include "fitness/functions.hpp"
#include "fitness/host_fitness.hpp"

namespace {

using namespace chainsaw;

struct Setup {
  FunctionId id = FunctionId::kRastrigin;
  Dim dim = 0;
  Shift shift;
};
Setup g_setup;
double g_seconds = 0.0;
double g_calls = 0.0;

struct Domain {
  const char* name;
  FunctionId id;
  double lower, upper;
};
// The same domains as chainsaw's function table (fitness/problem.cpp); the harness checks them
// against `chainsaw functions` before it trusts them.
const Domain kDomains[] = {
    {"rastrigin", FunctionId::kRastrigin, -5.12, 5.12},
    {"griewank", FunctionId::kGriewank, -600.0, 600.0},
    {"salomon", FunctionId::kSalomon, -100.0, 100.0},
    {"discus", FunctionId::kDiscus, -100.0, 100.0},
    {"sumsquares", FunctionId::kSumSquares, -10.0, 10.0},
    {"schwefel12", FunctionId::kSchwefel12, -100.0, 100.0},
};

template <class Fn>
double evaluate(const double* x, Dim dim) {
  // One sequential pass in chunk order: the chunked sum of evaluate_host, without OpenMP.
  typename Fn::Partial total{};
  for (Dim begin = 0; begin < dim; begin += kHostChunk) {
    const Dim end = std::min(dim, begin + kHostChunk);
    const auto part = accumulate_chunk<Fn>(g_setup.shift, begin, end, [x](Dim j) { return x[j]; });
    total = begin == 0 ? part : Fn::Partial::combine(total, part);
  }
  return Fn::finish(total, dim) + Fn::kBias;
}

double objective(SEXP par, SEXP /*env*/) {
  const auto start = std::chrono::steady_clock::now();
  const double* x = REAL(par);
  const Dim dim = Rf_xlength(par);
  double f = 0.0;
  switch (g_setup.id) {
    case FunctionId::kRastrigin: f = evaluate<Rastrigin>(x, dim); break;
    case FunctionId::kGriewank: f = evaluate<Griewank>(x, dim); break;
    case FunctionId::kSalomon: f = evaluate<Salomon>(x, dim); break;
    case FunctionId::kDiscus: f = evaluate<Discus>(x, dim); break;
    case FunctionId::kSumSquares: f = evaluate<SumSquares>(x, dim); break;
    case FunctionId::kSchwefel12: f = evaluate<Schwefel12>(x, dim); break;
    default: Rf_error("objective not set");
  }
  g_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  g_calls += 1.0;
  return f;
}

}  // namespace

typedef double (*ObjectivePtr)(SEXP, SEXP);

// Returns c(lower, upper) of the function's domain.
RcppExport SEXP chainsaw_objective_set(SEXP name, SEXP dim, SEXP problem_seed) {
  const std::string n = Rcpp::as<std::string>(name);
  for (const Domain& d : kDomains) {
    if (n != d.name) continue;
    g_setup.id = d.id;
    g_setup.dim = static_cast<Dim>(Rcpp::as<double>(dim));
    // The seed travels as a string: R has no 64-bit integers.
    const auto seed = std::stoull(Rcpp::as<std::string>(problem_seed));
    g_setup.shift = benchmark_shift(d.lower, d.upper, seed);
    g_seconds = g_calls = 0.0;
    return Rcpp::NumericVector::create(d.lower, d.upper);
  }
  Rf_error("unknown function %s", n.c_str());
}

RcppExport SEXP chainsaw_objective_xptr() {
  return Rcpp::XPtr<ObjectivePtr>(new ObjectivePtr(&objective), true);
}

// c(seconds inside the objective, calls) since the last chainsaw_objective_set.
RcppExport SEXP chainsaw_objective_stats() {
  return Rcpp::NumericVector::create(g_seconds, g_calls);
}
