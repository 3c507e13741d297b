// L-BFGS-B (Byrd, Lu, Nocedal & Zhu 1995; version 3.0, Morales & Nocedal 2011) on a black box,
// as SHADE-ILS applies it (Molina, LaTorre & Herrera 2018, through SciPy's fmin_l_bfgs_b with
// approx_grad): Debian's liblbfgsb, driven through its reverse-communication entry setulb, with
// a forward-difference gradient of D + 1 evaluations (f(x) and f(x + h e_j) for every j; a
// backward step where x_j + h leaves the domain). SciPy's settings: m = 10, factr = 1e7,
// pgtol = 1e-5. The budget is never exceeded: a gradient that does not fit in what is left of it
// is not started, so an application with fewer than D + 1 evaluations does nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

#include "core/types.hpp"

namespace chainsaw {

// f of `rows` candidates (row r at genes + r * dim) into out.
using EvaluateRows = std::function<void(const real_t* genes, int rows, double* out)>;

struct LbfgsbOutcome {
  std::int64_t evaluations = 0;
  double improvement = 0.0;  // f before - f after, >= 0
};

// The forward-difference step of gene x: SciPy's 1e-8 for float64 genes; for float32 genes the
// larger of 1e-8 and 8 float steps (ulps) of x, since 1e-8 is below a float's resolution there.
double lbfgsb_difference_step(double x);

// Whether this build links L-BFGS-B (CMake found liblbfgsb); without it lbfgsb_minimize throws.
bool lbfgsb_available();

// Improves x (dim genes, f(x) = fx) in place within [lower, upper] with at most `budget`
// evaluations; x becomes the best point evaluated, difference points included (its genes
// exactly as evaluated). Where the run's budget ends inside the application, `cut` (< budget)
// stops it after exactly the first `cut` evaluations of the uncut application, a gradient in
// part: the evaluations a longer run makes first (--milestones).
LbfgsbOutcome lbfgsb_minimize(const EvaluateRows& evaluate, real_t* x, double& fx, Dim dim,
                              std::int64_t budget, double lower, double upper,
                              std::int64_t cut = std::numeric_limits<std::int64_t>::max());

}  // namespace chainsaw
