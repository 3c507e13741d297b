#include "fitness/problem.hpp"

#include "core/error.hpp"

namespace chainsaw {

const std::vector<FunctionInfo>& all_functions() {
  // Domains: the conventional ones of the benchmark literature (Jamil & Yang 2013 survey, the
  // CEC 2005/2008 suites); seed 003 does not print them.
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

const FunctionInfo& function_info(const std::string& name) {
  std::string known;
  for (const auto& info : all_functions()) {
    if (name == info.name) return info;
    known += (known.empty() ? "" : ", ") + std::string(info.name);
  }
  throw UserError("unknown function '" + name + "' (known: " + known + ")");
}

const FunctionInfo& function_info(FunctionId id) {
  for (const auto& info : all_functions())
    if (info.id == id) return info;
  throw InternalError("function id without a table entry", __FILE__, __LINE__);
}

Problem Problem::make(const std::string& function_name, Dim dim, std::uint64_t problem_seed) {
  const FunctionInfo& info = function_info(function_name);
  Problem p;
  p.function = info.id;
  p.dim = dim;
  p.lower = info.lower;
  p.upper = info.upper;
  p.shift = Shift{derive_key(problem_seed, static_cast<std::uint64_t>(RngPurpose::kShift)),
                  info.lower, info.upper - info.lower};
  return p;
}

}  // namespace chainsaw
