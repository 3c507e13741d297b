#include "fitness/problem.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/matrix_functions/schwefel_matrix.hpp"
#include "fitness/scheduling/etc_scheduling.hpp"
#include "fitness/cec2013/cec2013_instance.hpp"
#include "fitness/janssen/janssen_instance.hpp"

namespace chainsaw {

const std::vector<FunctionInfo>& all_functions() {
  // Domains: the conventional ones of the benchmark literature (Jamil & Yang 2013 survey, the
  // CEC 2005/2008 suites); Lastra et al. 2014 do not print them.
  static const std::vector<FunctionInfo> functions = {
      {FunctionId::kRastrigin, "rastrigin", -5.12, 5.12, "separable",
       "sum (z_i^2 - 10 cos(2 pi z_i) + 10) - 330"},
      {FunctionId::kGriewank, "griewank", -600.0, 600.0, "non-separable",
       "sum z_i^2/4000 - prod cos(z_i/sqrt(i)) + 1 - 330"},
      {FunctionId::kSalomon, "salomon", -100.0, 100.0, "non-separable",
       "1 - cos(2 pi sqrt(g)) + 0.1 sqrt(g) - 330, g = sum z_i^2"},
      {FunctionId::kDiscus, "discus", -100.0, 100.0, "separable",
       "10^6 z_1^2 + sum_{i>=2} z_i^2 - 330"},
      {FunctionId::kSumSquares, "sumsquares", -10.0, 10.0, "separable",
       "sum i z_i^2 - 330"},
      {FunctionId::kSchwefel12, "schwefel12", -100.0, 100.0, "non-separable",
       "sum_i (sum_{j<=i} z_j)^2 - 330"},
  };
  return functions;
}

// Rosenbrock and Zakharov on [-100, 100] as Janssen et al. ran them, and Nashed et al.'s Table 3
// on its ranges, with its names as aliases (nashed-f0 ... nashed-f19; f7 and f17, Schwefel 2.6
// and 2.13, need their A, B data and are in data_functions(); f1 is cec2010-f1). Where Nashed's function
// is one of the six or another one here on another range it is a name of its own (nashed-fN).
const std::vector<FunctionInfo>& classic_functions() {
  using F = FunctionId;
  static const std::vector<FunctionInfo> functions = {
      {F::kRosenbrock, "rosenbrock", -100.0, 100.0, "non-separable",
       "sum_{i<D} 100 (u_i^2 - u_{i+1})^2 + (u_i - 1)^2, u = z + 1", "nashed-f13"},
      {F::kZakharov, "zakharov", -100.0, 100.0, "non-separable",
       "sum z_i^2 + s^2 + s^4, s = sum 0.5 i z_i"},
      {F::kSphere, "sphere", -100.0, 100.0, "separable", "sum z_i^2", "nashed-f0"},
      {F::kNashedSumSquares, "nashed-f2", -1.0, 1.0, "separable", "sumsquares - 330"},
      {F::kHyperEllipsoid, "hyperellipsoid", -1.0, 1.0, "separable", "sum i^2 z_i^2",
       "nashed-f3"},
      {F::kSchwefel222, "schwefel222", -10.0, 10.0, "non-separable",
       "sum |z_i| + prod |z_i|", "nashed-f4"},
      {F::kNashedZakharov, "nashed-f5", -10.0, 10.0, "non-separable", "zakharov"},
      {F::kNashedSchwefel12, "nashed-f6", -100.0, 100.0, "non-separable", "schwefel12 - 330"},
      {F::kDixonPrice, "dixon-price", -10.0, 10.0, "non-separable",
       "(u_1 - 1)^2 + sum_{i>=2} i (2 u_i^2 - u_{i-1})^2, u_i = z_i + 2^(2^(1-i) - 1)",
       "nashed-f8"},
      {F::kNashedRastrigin, "nashed-f9", -5.12, 5.12, "separable", "rastrigin - 330"},
      {F::kSchwefel226, "schwefel226", -500.0, 500.0, "separable",
       "sum (418.98 - u_i sin sqrt|u_i|), u = z + 420.97, CEC 2014's |u| > 500 penalty",
       "nashed-f10"},
      {F::kKatsuura, "katsuura", -1000.0, 1000.0, "non-separable",
       "prod (1 + i sum_{k=1}^{32} |2^k z_i - round(2^k z_i)| 2^-k) - 1", "nashed-f11"},
      {F::kNashedGriewank, "nashed-f12", -600.0, 600.0, "non-separable", "griewank - 330"},
      {F::kAckley, "ackley", -32.0, 32.0, "non-separable",
       "-20 exp(-0.2 sqrt(sum z_i^2 / D)) - exp(sum cos(2 pi z_i) / D) + 20 + e", "nashed-f14"},
      {F::kGriewankRosenbrock, "griewank-rosenbrock", -5.12, 5.12, "non-separable",
       "sum g(r(u_i, u_{i+1})), u_{D+1} = u_1, u = z + 1, g Griewank's, r Rosenbrock's term",
       "nashed-f15"},
      {F::kScaffer, "scaffer", -100.0, 100.0, "non-separable",
       "sum F(z_i, z_{i+1}), z_{D+1} = z_1, F expanded Schaffer F6", "nashed-f16"},
      {F::kNashedSalomon, "nashed-f18", -10.0, 10.0, "non-separable", "salomon - 330"},
      {F::kLevy, "levy", -10.0, 10.0, "non-separable",
       "sin^2(pi w_1) + sum_{i<D} (w_i-1)^2 (1 + 10 sin^2(pi w_i + 1)) + (w_D-1)^2 (1 + "
       "sin^2(2 pi w_D)), w = 1 + z/4",
       "nashed-f19"},
  };
  return functions;
}

const std::vector<FunctionInfo>& data_functions() {
  using F = FunctionId;
  static const std::vector<FunctionInfo> functions = {
      {F::kSchwefel26, "schwefel26", -100.0, 100.0, "non-separable",
       "max_i |A_i x - B_i|, B = A o, A integers in [-500, 500] (CEC 2005 F5); D <= 10^4",
       "nashed-f7"},
      {F::kSchwefel213, "schwefel213", -3.141592653589793, 3.141592653589793, "non-separable",
       "sum_i (A_i - B_i(x))^2, B_i(x) = sum_j a_ij sin x_j + b_ij cos x_j, A_i = B_i(o), "
       "a, b integers in [-100, 100] (CEC 2005 F12); D <= 10^4",
       "nashed-f17"},
      {F::kEtcScheduling, "etc", 0.0, 16.0, "non-separable",
       "lambda makespan + (1 - lambda) flowtime / m, task t on machine floor(x_t); "
       "D = tasks, domain [0, m)"},
  };
  return functions;
}

// Tang et al. 2009, Table 1 and §2. "m-nonseparable": one group of m = 50 variables.
const std::vector<FunctionInfo>& cec2010_functions() {
  using F = FunctionId;
  static const std::vector<FunctionInfo> functions = {
      {F::kCec2010F1, "cec2010-f1", -100.0, 100.0, "separable", "shifted Elliptic", "nashed-f1"},
      {F::kCec2010F2, "cec2010-f2", -5.0, 5.0, "separable", "shifted Rastrigin"},
      {F::kCec2010F3, "cec2010-f3", -32.0, 32.0, "separable", "shifted Ackley"},
      {F::kCec2010F4, "cec2010-f4", -100.0, 100.0, "single-group",
       "10^6 rotated Elliptic(1 group) + Elliptic(rest)"},
      {F::kCec2010F5, "cec2010-f5", -5.0, 5.0, "single-group",
       "10^6 rotated Rastrigin(1 group) + Rastrigin(rest)"},
      {F::kCec2010F6, "cec2010-f6", -32.0, 32.0, "single-group",
       "10^6 rotated Ackley(1 group) + Ackley(rest)"},
      {F::kCec2010F7, "cec2010-f7", -100.0, 100.0, "single-group",
       "10^6 Schwefel 1.2(1 group) + Sphere(rest)"},
      {F::kCec2010F8, "cec2010-f8", -100.0, 100.0, "single-group",
       "10^6 Rosenbrock(1 group) + Sphere(rest)"},
      {F::kCec2010F9, "cec2010-f9", -100.0, 100.0, "D/2m-group",
       "sum rotated Elliptic(D/2m groups) + Elliptic(rest)"},
      {F::kCec2010F10, "cec2010-f10", -5.0, 5.0, "D/2m-group",
       "sum rotated Rastrigin(D/2m groups) + Rastrigin(rest)"},
      {F::kCec2010F11, "cec2010-f11", -32.0, 32.0, "D/2m-group",
       "sum rotated Ackley(D/2m groups) + Ackley(rest)"},
      {F::kCec2010F12, "cec2010-f12", -100.0, 100.0, "D/2m-group",
       "sum Schwefel 1.2(D/2m groups) + Sphere(rest)"},
      {F::kCec2010F13, "cec2010-f13", -100.0, 100.0, "D/2m-group",
       "sum Rosenbrock(D/2m groups) + Sphere(rest)"},
      {F::kCec2010F14, "cec2010-f14", -100.0, 100.0, "D/m-group",
       "sum rotated Elliptic(D/m groups)"},
      {F::kCec2010F15, "cec2010-f15", -5.0, 5.0, "D/m-group",
       "sum rotated Rastrigin(D/m groups)"},
      {F::kCec2010F16, "cec2010-f16", -32.0, 32.0, "D/m-group", "sum rotated Ackley(D/m groups)"},
      {F::kCec2010F17, "cec2010-f17", -100.0, 100.0, "D/m-group", "sum Schwefel 1.2(D/m groups)"},
      {F::kCec2010F18, "cec2010-f18", -100.0, 100.0, "D/m-group", "sum Rosenbrock(D/m groups)"},
      {F::kCec2010F19, "cec2010-f19", -100.0, 100.0, "non-separable", "shifted Schwefel 1.2"},
      {F::kCec2010F20, "cec2010-f20", -100.0, 100.0, "non-separable",
       "shifted Rosenbrock (z = x - o + 1)"},
  };
  return functions;
}

// Seed gpu-de-review-janssen, Table 2, named after the CEC function each one is.
const std::vector<FunctionInfo>& janssen_functions() {
  using F = FunctionId;
  static const std::vector<FunctionInfo> functions = {
      {F::kJanssenF1, "cec17-zakharov", -100.0, 100.0, "non-separable",
       "CEC'17 F3: Zakharov(M (x - o)) + 300", "janssen-f1"},
      {F::kJanssenF2, "cec17-rosenbrock", -100.0, 100.0, "non-separable",
       "CEC'17 F4: Rosenbrock(M (x - o) 2.048/100 + 1) + 400", "janssen-f2"},
      {F::kJanssenF3, "cec17-rastrigin", -100.0, 100.0, "non-separable",
       "CEC'17 F5: Rastrigin(M (x - o) 5.12/100) + 500", "janssen-f3"},
      {F::kJanssenF4, "cec17-schwefel", -100.0, 100.0, "non-separable",
       "CEC'17 F10: modified Schwefel(M (x - o) 10) + 1000", "janssen-f4"},
      {F::kJanssenF5, "cec14-hybrid2", -100.0, 100.0, "non-separable",
       "CEC'14 F18: Bent Cigar, HGBat, Rastrigin on 30/30/40% of shuffled M (x - o) + 1800",
       "janssen-f5"},
      {F::kJanssenF6, "cec17-hybrid6", -100.0, 100.0, "non-separable",
       "CEC'17 F16: exp. Schaffer F6, HGBat, Rosenbrock, mod. Schwefel on 20/20/30/30% + 1600",
       "janssen-f6"},
      {F::kJanssenF7, "cec14-hybrid6", -100.0, 100.0, "non-separable",
       "CEC'14 F22: Katsuura, HappyCat, Griewank-Rosenbrock, mod. Schwefel, Ackley on "
       "10/20/20/20/30% + 2200",
       "janssen-f7"},
      {F::kJanssenF8, "cec17-composition2", -100.0, 100.0, "non-separable",
       "CEC'17 F22: Rastrigin, Griewank, mod. Schwefel; sigma 10,20,30; lambda 1,10,1 + 2200",
       "janssen-f8"},
      {F::kJanssenF9, "cec17-composition4", -100.0, 100.0, "non-separable",
       "CEC'17 F24: Ackley, Elliptic, Griewank, Rastrigin; sigma 10..40; lambda 10,1e-6,10,1 + "
       "2400",
       "janssen-f9"},
      {F::kJanssenF10, "cec17-composition6", -100.0, 100.0, "non-separable",
       "CEC'17 F26: exp. Schaffer F6, mod. Schwefel, Griewank, Rosenbrock, Rastrigin; lambda "
       "5e-4,1,10,1,10 + 2600",
       "janssen-f10"},
  };
  return functions;
}

// Li et al. 2013, Table 1, with the domains of the official code's Python wrapper (its C++
// constructors of F9-F11 carry F10's and F11's; compute() never reads them).
const std::vector<FunctionInfo>& cec2013_functions() {
  using F = FunctionId;
  static const std::vector<FunctionInfo> functions = {
      {F::kCec2013F1, "cec2013-f1", -100.0, 100.0, "separable", "Elliptic(T_osz(z))"},
      {F::kCec2013F2, "cec2013-f2", -5.0, 5.0, "separable", "Rastrigin(Lambda T_asy T_osz(z))"},
      {F::kCec2013F3, "cec2013-f3", -32.0, 32.0, "separable", "Ackley(Lambda T_asy T_osz(z))"},
      {F::kCec2013F4, "cec2013-f4", -100.0, 100.0, "partial",
       "sum w_g Elliptic(R z_g) + Elliptic(rest), 7 groups"},
      {F::kCec2013F5, "cec2013-f5", -5.0, 5.0, "partial",
       "sum w_g Rastrigin(R z_g) + Rastrigin(rest), 7 groups"},
      {F::kCec2013F6, "cec2013-f6", -32.0, 32.0, "partial",
       "sum w_g Ackley(R z_g) + Ackley(rest), 7 groups"},
      {F::kCec2013F7, "cec2013-f7", -100.0, 100.0, "partial",
       "sum w_g Schwefel 1.2(R z_g) + Sphere(rest), 7 groups"},
      {F::kCec2013F8, "cec2013-f8", -100.0, 100.0, "groups", "sum w_g Elliptic(R z_g), 20 groups"},
      {F::kCec2013F9, "cec2013-f9", -5.0, 5.0, "groups", "sum w_g Rastrigin(R z_g), 20 groups"},
      {F::kCec2013F10, "cec2013-f10", -32.0, 32.0, "groups", "sum w_g Ackley(R z_g), 20 groups"},
      {F::kCec2013F11, "cec2013-f11", -100.0, 100.0, "groups",
       "sum w_g Schwefel 1.2(R z_g), 20 groups"},
      {F::kCec2013F12, "cec2013-f12", -100.0, 100.0, "overlapping",
       "Rosenbrock(z), optimum at x = o + 1"},
      {F::kCec2013F13, "cec2013-f13", -100.0, 100.0, "overlapping",
       "sum w_g Schwefel 1.2(R z_g), groups share 5 (conforming)"},
      {F::kCec2013F14, "cec2013-f14", -100.0, 100.0, "overlapping",
       "sum w_g Schwefel 1.2(R (x_g - o_g)), groups share 5 (conflicting)"},
      {F::kCec2013F15, "cec2013-f15", -100.0, 100.0, "non-separable",
       "Schwefel 1.2(T_asy T_osz(z))"},
  };
  return functions;
}

const std::vector<const std::vector<FunctionInfo>*>& function_tables() {
  static const std::vector<const std::vector<FunctionInfo>*> tables = {
      &all_functions(), &classic_functions(), &data_functions(), &cec2010_functions(),
      &janssen_functions(), &cec2013_functions()};
  return tables;
}

const FunctionInfo& function_info(const std::string& name) {
  for (const auto* table : function_tables()) {
    for (const auto& info : *table) {
      if (name == info.name || (info.alias != nullptr && name == info.alias)) return info;
    }
  }
  std::string known;
  for (const auto* table : {&all_functions(), &classic_functions(), &data_functions()})
    for (const auto& info : *table)
      if (std::string(info.name).rfind("nashed-", 0) != 0) known += std::string(info.name) + ", ";
  throw UserError("unknown function '" + name + "' (known: " + known +
                  "cec2010-f1 .. cec2010-f20, nashed-f0 .. nashed-f19, janssen-f1 .. janssen-f10, "
                  "cec2013-f1 .. cec2013-f15)");
}

const FunctionInfo& function_info(FunctionId id) {
  for (const auto* table : function_tables())
    for (const auto& info : *table)
      if (info.id == id) return info;
  throw InternalError("function id without a table entry", __FILE__, __LINE__);
}

double function_optimum_value(FunctionId id) {
  if (id == FunctionId::kEtcScheduling) return std::numeric_limits<double>::quiet_NaN();
  if (const int n = janssen_number(id)) return janssen_spec(n - 1).optimum_value;
  // The bias is the function type's (CEC 2010 and user objectives: GenesOnly's 0).
  return visit_function(id, [](auto fn) { return decltype(fn)::kBias; });
}

double function_optimum_value(const std::string& function_name) {
  return function_optimum_value(function_info(function_name).id);
}

void check_dimension(const FunctionInfo& info, Dim dim) {
  if (const int j = janssen_number(info.id))
    return check_janssen_dimension(j - 1, dim, std::string(info.name) + " (" + info.alias + ")");
  if (const int n = cec2013_number(info.id)) return check_cec2013_dimension(n, dim, info.name);
  const int n = cec2010_number(info.id);
  const std::string prefix = "--dim = " + std::to_string(dim) + ": " + info.name;
  if (n >= 4 && n <= 8 && dim < kCecGroup)
    throw UserError(prefix + " needs at least m = 50 variables (one group of m)");
  if (n >= 9 && n <= 18 && dim % (2 * kCecGroup) != 0)
    throw UserError(prefix + " needs a multiple of 2m = 100 (groups of m = 50)");
  if ((info.id == FunctionId::kSchwefel26 || info.id == FunctionId::kSchwefel213) &&
      dim > kSchwefelMatrixMaxDim)
    throw UserError(prefix + " is limited to 10000 variables (its matrices hold D^2 entries)");
  if (info.id == FunctionId::kEtcScheduling && dim > std::numeric_limits<std::int32_t>::max())
    throw UserError(prefix + ": at most 2^31 - 1 tasks");
}

const char* shift_range_name(ShiftRange r) { return r == ShiftRange::kWhole ? "whole" : "middle"; }

ShiftRange parse_shift_range(const std::string& flag, const std::string& text) {
  for (const ShiftRange r : {ShiftRange::kMiddle, ShiftRange::kWhole})
    if (text == shift_range_name(r)) return r;
  throw UserError(flag + " = " + text + ": must be middle or whole");
}

SearchBox parse_domain(const std::string& flag, const std::string& text) {
  const auto comma = text.find(',');
  auto number = [&](const std::string& part, double& value) {
    char* end = nullptr;
    value = std::strtod(part.c_str(), &end);
    return !part.empty() && end == part.c_str() + part.size() &&
           std::isfinite(static_cast<float>(value));
  };
  SearchBox box;
  if (comma == std::string::npos || !number(text.substr(0, comma), box.lower) ||
      !number(text.substr(comma + 1), box.upper) || !(box.lower < box.upper))
    throw UserError(flag + " = " + text +
                    ": must be LOWER,UPPER, two finite numbers with LOWER < UPPER (--domain=-1,1)");
  return box;
}

void check_search_box(const FunctionInfo& info, const SearchBox& box) {
  if (box.is_default()) return;
  // A per-gene term on a hashed shift can take any box; instances and data keep their own.
  for (const auto* table : {&all_functions(), &classic_functions()})
    for (const auto& entry : *table)
      if (entry.id == info.id) return;
  throw UserError(std::string(box.conventional_domain() ? "--shift-range" : "--domain") + ": " +
                  info.name + " keeps its own domain and shift (only the paper's six and the "
                  "classic functions take another box)");
}

namespace {

// A function of generated data as a built-in objective over stored vectors: the host callback
// evaluates the rows in parallel, one row per thread (so f does not depend on the thread count).
template <class Instance>
std::shared_ptr<const BatchObjective> data_objective(const FunctionInfo& info, Dim dim,
                                                     double lower, double upper,
                                                     std::shared_ptr<const Instance> instance,
                                                     DeviceBatchFn device) {
  auto o = std::make_shared<BatchObjective>();
  o->name = info.name;
  o->dim = dim;
  o->lower = lower;
  o->upper = upper;
  if (info.id != FunctionId::kEtcScheduling) o->optimum_value = 0.0;
  o->host = [instance](const real_t* genes, Dim pitch, int rows, Dim, double* fitness) {
#pragma omp parallel for schedule(dynamic, 1) if (rows > 1)
    for (int r = 0; r < rows; ++r) fitness[r] = instance->evaluate(genes + r * pitch);
  };
  o->device = std::move(device);
  return o;
}

Problem make_schwefel_matrix(const FunctionInfo& info, Dim dim, std::uint64_t problem_seed) {
  Problem p;
  p.function = info.id;
  p.dim = dim;
  p.lower = info.lower;
  p.upper = info.upper;
  p.optimum_value = 0.0;
  p.shift = benchmark_shift(info.lower, info.upper, problem_seed);
  std::vector<real_t> o(static_cast<std::size_t>(dim));
  for (Dim j = 0; j < dim; ++j) o[static_cast<std::size_t>(j)] = p.shift(j);
  auto instance = std::make_shared<const SchwefelMatrixInstance>(SchwefelMatrixInstance::generate(
      info.id == FunctionId::kSchwefel26 ? SchwefelMatrixKind::k26 : SchwefelMatrixKind::k213, o,
      problem_seed));
  p.matrix = instance;
  p.external = data_objective(info, dim, info.lower, info.upper, instance,
                              schwefel_matrix_device_batch(instance));
  return p;
}

}  // namespace

void check_etc_options(const EtcOptions& options) {
  parse_etc_class("--etc-class", options.etc_class);
  if (options.machines < 1 || options.machines > 65536)
    throw UserError("--etc-machines = " + std::to_string(options.machines) +
                    ": must be in [1, 65536]");
  if (!(options.lambda >= 0.0 && options.lambda <= 1.0))
    throw UserError("--etc-lambda = " + std::to_string(options.lambda) + ": must be in [0, 1]");
  parse_etc_flowtime("--etc-flowtime", options.flowtime);
}

Problem Problem::make_etc(std::shared_ptr<const EtcInstance> instance) {
  CHAINSAW_EXPECTS(instance && instance->tasks >= 1 && instance->machines >= 1,
                   "an empty ETC instance");
  const FunctionInfo& info = function_info(FunctionId::kEtcScheduling);
  Problem p;
  p.function = info.id;
  p.dim = instance->tasks;
  p.lower = 0.0;
  p.upper = static_cast<double>(instance->machines);
  p.optimum_value = std::numeric_limits<double>::quiet_NaN();
  p.etc = instance;
  p.external = data_objective(info, p.dim, p.lower, p.upper, instance, etc_device_batch(instance));
  return p;
}

Problem Problem::make(const std::string& function_name, Dim dim, std::uint64_t problem_seed,
                      std::shared_ptr<const CecInstance> instance, const EtcOptions& etc_options,
                      const SearchBox& box) {
  const FunctionInfo& info = function_info(function_name);
  check_dimension(info, dim);
  check_search_box(info, box);
  if (info.id == FunctionId::kSchwefel26 || info.id == FunctionId::kSchwefel213)
    return make_schwefel_matrix(info, dim, problem_seed);
  if (info.id == FunctionId::kEtcScheduling) {
    check_etc_options(etc_options);
    return make_etc(std::make_shared<const EtcInstance>(EtcInstance::generate(
        parse_etc_class("--etc-class", etc_options.etc_class), dim, etc_options.machines,
        etc_options.lambda, problem_seed,
        parse_etc_flowtime("--etc-flowtime", etc_options.flowtime))));
  }
  CHAINSAW_EXPECTS(!instance || (cec2010_number(info.id) != 0 && instance->dim == dim),
                   "an instance for a function or dimension it was not made for");
  if (const int j = janssen_number(info.id))
    return make_janssen(info, std::make_shared<const JanssenInstance>(
                                  JanssenInstance::generate(j - 1, dim, problem_seed)));
  if (const int n = cec2013_number(info.id))
    return make_cec2013(info, std::make_shared<const Cec2013Instance>(
                                  Cec2013Instance::generate(n, dim, problem_seed)));
  Problem p;
  p.function = info.id;
  p.dim = dim;
  p.lower = box.conventional_domain() ? info.lower : box.lower;
  p.upper = box.conventional_domain() ? info.upper : box.upper;
  p.optimum_value = function_optimum_value(info.id);
  p.shift = benchmark_shift(p.lower, p.upper, problem_seed, box.shift_range);
  if (p.shift.levels < 2) {  // a box narrower than float steps at its distance from 0
    char text[64];
    std::snprintf(text, sizeof text, "%.17g,%.17g", p.lower, p.upper);
    throw UserError(std::string("--domain = ") + text +
                    ": too narrow for float genes so far from 0");
  }
  if (cec2010_number(info.id) != 0) {
    p.cec = instance ? std::move(instance)
                     : std::make_shared<const CecInstance>(
                           CecInstance::generate(info, dim, problem_seed));
    p.shift.stored = p.cec->o.data();
  }
  return p;
}

Problem Problem::make_janssen(const FunctionInfo& info,
                              std::shared_ptr<const JanssenInstance> instance) {
  CHAINSAW_EXPECTS(instance && janssen_number(info.id) == instance->index + 1,
                   "a Janssen instance for another function");
  check_dimension(info, instance->dim);
  Problem p = make_external(janssen_objective(info.name, instance), instance->dim);
  p.function = info.id;
  p.optimum_value = instance->spec().optimum_value;
  p.shift.stored = instance->optimum.data();
  p.janssen = std::move(instance);
  return p;
}

Problem Problem::make_cec2013(const FunctionInfo& info,
                              std::shared_ptr<const Cec2013Instance> instance) {
  CHAINSAW_EXPECTS(instance && cec2013_number(info.id) == instance->number,
                   "a CEC 2013 instance for another function");
  check_dimension(info, instance->dim);
  Problem p = make_external(cec2013_objective(info.name, info.lower, info.upper, instance),
                            instance->dim);
  p.function = info.id;
  p.optimum_value = 0.0;
  p.shift.stored = instance->optimum.empty() ? nullptr : instance->optimum.data();
  p.cec2013 = std::move(instance);
  return p;
}

const std::vector<real_t>* Problem::stored_optimum() const {
  if (janssen) return &janssen->optimum;
  if (cec2013 && !cec2013->optimum.empty()) return &cec2013->optimum;
  return nullptr;
}

Problem Problem::make_external(std::shared_ptr<const BatchObjective> objective, Dim dim) {
  if (!objective) throw UserError("the objective is null");
  const BatchObjective& o = *objective;
  if (o.name.empty()) throw UserError("the objective has no name (BatchObjective::name)");
  const std::string who = "objective '" + o.name + "'";
  if (dim < 1 && o.dim < 1)
    throw UserError(who + ": the number of variables is not set (Options::dim = " +
                    std::to_string(dim) + ")");
  if (dim >= 1 && o.dim >= 1 && dim != o.dim)
    throw UserError(who + " is defined for " + std::to_string(o.dim) +
                    " variables, Options::dim = " + std::to_string(dim));
  if (!(std::isfinite(o.lower) && std::isfinite(o.upper) && o.lower < o.upper))
    throw UserError(who + ": the domain [" + std::to_string(o.lower) + ", " +
                    std::to_string(o.upper) + "] is not a finite interval with lower < upper");
  if (!o.host && !o.device)
    throw UserError(who + " has neither a host nor a device callback");
  Problem p;
  p.function = FunctionId::kUser;
  p.dim = dim >= 1 ? dim : o.dim;
  p.lower = o.lower;
  p.upper = o.upper;
  p.optimum_value = o.optimum_value.value_or(std::numeric_limits<double>::quiet_NaN());
  p.external = std::move(objective);
  return p;
}

}  // namespace chainsaw
