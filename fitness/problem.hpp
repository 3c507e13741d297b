// A problem instance: which function, how many variables, the search domain, and where the
// optimum o lies. o is not stored: o_j is a hash of (problem seed, j), computed where it is
// needed. On the GPU this halves the bytes of every evaluation (x is read, o is not), and both
// backends see bit-identical o for the same seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"

namespace chainsaw {

enum class FunctionId { kRastrigin, kGriewank, kSalomon, kDiscus, kSumSquares, kSchwefel12 };

struct FunctionInfo {
  FunctionId id;
  const char* name;
  double lower;  // conventional search domain, the same for every variable
  double upper;
  const char* separability;
  const char* formula;
};

const std::vector<FunctionInfo>& all_functions();
// Throws UserError naming the known functions when `name` is not one of them.
const FunctionInfo& function_info(const std::string& name);
const FunctionInfo& function_info(FunctionId id);

// o_j uniform in the middle 60% of the domain (20% away from each bound, algorithm.md), from a
// 32-bit hash of j: a handful of 32-bit multiplies, cheap next to the gene's own memory access
// on the GPU. The arithmetic uses explicitly rounded operations so that nvcc's FMA contraction
// cannot make the device's o differ from the host's by one ulp.
struct Shift {
  std::uint64_t key = 0;
  double lower = 0.0;
  double width = 0.0;
  CHAINSAW_HD static std::uint32_t hash32(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ (x >> 16);
  }
  CHAINSAW_HD static double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
  }
  CHAINSAW_HD static double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
  }
  CHAINSAW_HD real_t operator()(Dim j) const {
    const auto index = static_cast<std::uint64_t>(j);
    const std::uint32_t h =
        hash32(hash32(static_cast<std::uint32_t>(index) ^ static_cast<std::uint32_t>(key)) ^
               static_cast<std::uint32_t>(index >> 32) ^ static_cast<std::uint32_t>(key >> 32));
    const double u = static_cast<double>(h) * 0x1.0p-32;
    return static_cast<real_t>(add_rn(lower, mul_rn(width, add_rn(0.2, mul_rn(0.6, u)))));
  }
};

struct Problem {
  FunctionId function = FunctionId::kRastrigin;
  Dim dim = 0;
  double lower = 0.0;
  double upper = 0.0;
  Shift shift;

  static Problem make(const std::string& function_name, Dim dim, std::uint64_t problem_seed);
  double width() const { return upper - lower; }
};

// Calls f(Rastrigin{}), f(Griewank{}), ... for the function id: the one place that turns the
// run-time choice into a compile-time type, so inner loops are specialised per function.
template <class F>
decltype(auto) visit_function(FunctionId id, F&& f);

}  // namespace chainsaw

#include "fitness/functions.hpp"

namespace chainsaw {

template <class F>
decltype(auto) visit_function(FunctionId id, F&& f) {
  switch (id) {
    case FunctionId::kRastrigin: return f(Rastrigin{});
    case FunctionId::kGriewank: return f(Griewank{});
    case FunctionId::kSalomon: return f(Salomon{});
    case FunctionId::kDiscus: return f(Discus{});
    case FunctionId::kSumSquares: return f(SumSquares{});
    case FunctionId::kSchwefel12: return f(Schwefel12{});
  }
  return f(Rastrigin{});  // unreachable: every enumerator is handled above
}

}  // namespace chainsaw
