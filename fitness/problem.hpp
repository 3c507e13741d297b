// A problem instance: which function, how many variables, the search domain, and where the
// optimum o lies. o is not stored: o_j is a hash of (problem seed, j), computed where it is
// needed. On the GPU this halves the bytes of every evaluation (x is read, o is not), and both
// backends see bit-identical o for the same seed.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/types.hpp"
#include "fitness/external_objective.hpp"

namespace chainsaw {

enum class FunctionId {
  kRastrigin, kGriewank, kSalomon, kDiscus, kSumSquares, kSchwefel12,
  // the classic functions (classic_functions()); the kNashed ids are one of the above on
  // Nashed et al.'s range
  kRosenbrock, kZakharov, kSphere, kHyperEllipsoid, kSchwefel222, kSchwefel226, kKatsuura,
  kAckley, kDixonPrice, kGriewankRosenbrock, kScaffer, kLevy, kNashedSumSquares,
  kNashedZakharov, kNashedSchwefel12, kNashedRastrigin, kNashedGriewank, kNashedSalomon,
  // functions of generated data (data_functions()): Schwefel 2.6 and 2.13, task scheduling
  kSchwefel26, kSchwefel213, kEtcScheduling,
  // CEC 2010 LSGO F1..F20, consecutive (cec2010_number relies on it)
  kCec2010F1, kCec2010F2, kCec2010F3, kCec2010F4, kCec2010F5, kCec2010F6, kCec2010F7,
  kCec2010F8, kCec2010F9, kCec2010F10, kCec2010F11, kCec2010F12, kCec2010F13, kCec2010F14,
  kCec2010F15, kCec2010F16, kCec2010F17, kCec2010F18, kCec2010F19, kCec2010F20,
  // Janssen et al.'s GPU benchmark (Table 2) F1..F10, consecutive (janssen_number relies on it)
  kJanssenF1, kJanssenF2, kJanssenF3, kJanssenF4, kJanssenF5, kJanssenF6, kJanssenF7,
  kJanssenF8, kJanssenF9, kJanssenF10,
  // CEC 2013 LSGO F1..F15, consecutive (cec2013_number relies on it)
  kCec2013F1, kCec2013F2, kCec2013F3, kCec2013F4, kCec2013F5, kCec2013F6, kCec2013F7,
  kCec2013F8, kCec2013F9, kCec2013F10, kCec2013F11, kCec2013F12, kCec2013F13, kCec2013F14,
  kCec2013F15,
  kUser,  // a user objective (Problem::external)
};

// 1..20 for a CEC 2010 function, 0 for the paper's six.
inline int cec2010_number(FunctionId id) {
  const int n = static_cast<int>(id) - static_cast<int>(FunctionId::kCec2010F1) + 1;
  return n >= 1 && n <= 20 ? n : 0;
}

// 1..10 for a function of Janssen et al.'s benchmark, 0 for the others.
inline int janssen_number(FunctionId id) {
  const int n = static_cast<int>(id) - static_cast<int>(FunctionId::kJanssenF1) + 1;
  return n >= 1 && n <= 10 ? n : 0;
}

// 1..15 for a CEC 2013 function, 0 for the others.
inline int cec2013_number(FunctionId id) {
  const int n = static_cast<int>(id) - static_cast<int>(FunctionId::kCec2013F1) + 1;
  return n >= 1 && n <= 15 ? n : 0;
}

struct FunctionInfo {
  FunctionId id;
  const char* name;
  double lower;  // conventional search domain, the same for every variable
  double upper;
  const char* separability;
  const char* formula;
  const char* alias = nullptr;  // a second name (nashed-fN), accepted wherever the name is
};

// The six functions of the paper (Lastra et al. 2014 §6.3).
const std::vector<FunctionInfo>& all_functions();
// Rosenbrock, Zakharov and Nashed et al.'s Table 3 (fitness/functions.hpp), f(o) = 0 unless
// they are one of the six.
const std::vector<FunctionInfo>& classic_functions();
// Functions defined by data generated from the problem seed, evaluated over stored vectors on
// both backends (Problem::external): Schwefel 2.6 and 2.13 (nashed-f7, nashed-f17;
// fitness/matrix_functions/) and independent-task scheduling on an ETC matrix (`etc`;
// fitness/scheduling/).
const std::vector<FunctionInfo>& data_functions();
// The twenty CEC 2010 LSGO functions, cec2010-f1 .. cec2010-f20 (fitness/cec2010/cec2010.hpp).
const std::vector<FunctionInfo>& cec2010_functions();
// Janssen et al.'s GPU benchmark, janssen-f1 .. janssen-f10 as aliases of names that say what
// each is (fitness/janssen/janssen.hpp).
const std::vector<FunctionInfo>& janssen_functions();
// The fifteen CEC 2013 LSGO functions, cec2013-f1 .. cec2013-f15 (fitness/cec2013/cec2013.hpp).
const std::vector<FunctionInfo>& cec2013_functions();
// Every table above, in the order `chainsaw functions` lists them.
const std::vector<const std::vector<FunctionInfo>*>& function_tables();
// Throws UserError naming the known functions when `name` is neither a name nor an alias.
const FunctionInfo& function_info(const std::string& name);
const FunctionInfo& function_info(FunctionId id);

// o_j uniform in the middle 60% of the domain (20% away from each bound, algorithm.md), or in the
// whole domain (ShiftRange::kWhole), from one keyed round of a 32-bit hash of j: on the GPU o is
// recomputed for every gene of every evaluation, so its cost decides whether a fitness pass is
// bound by memory or by arithmetic.
// The o_j lie on a grid first + step * m, m in [0, levels), with step a power of two chosen so
// that every grid point is a float: first + step * m is then exact in double, on the host and
// on the device alike (FMA contraction or not), and needs no rounding to real_t. m is the high
// word of hash * levels; on the GPU it becomes a double through its bits, not a conversion.
// o is a float in both gene precisions, so float32 and float64 builds solve the same instance.
// j is hashed modulo 2^32: o would repeat after 4.3e9 variables.
// A stored o (CEC 2010 instances, which may come from a file) replaces the hash.
struct Shift {
  std::uint32_t key_in = 0;   // mixed into j before the hash's first multiply
  std::uint32_t key_mid = 0;  // and after it: different seeds do not just permute the o_j
  std::uint32_t levels = 1;   // grid points, at most 2^24
  double first = 0.0;         // the lowest grid point
  double step = 0.0;          // a power of two
  double origin52 = 0.0;      // first - step * 2^52: grid_point's constant, exact
  const real_t* stored = nullptr;  // o_j = stored[j]; host or device memory, where it is used

  // span: the share of the width that o covers, centred (0.6: the middle 60%; 1: all of it).
  static Shift hashed(std::uint64_t key, double lower, double width, double span = 0.6) {
    Shift s;
    s.key_in = static_cast<std::uint32_t>(key);
    s.key_mid = static_cast<std::uint32_t>(key >> 32);
    const double centre = lower + 0.5 * width, half = 0.5 * span * width;
    // Points up to |centre| + half must be integers times step below 2^23: floats.
    int exponent = 0;
    std::frexp((std::fabs(centre) + half) / 8388608.0, &exponent);
    s.step = std::ldexp(1.0, exponent);
    const double reach = std::floor(half / s.step);  // grid points on each side of the centre
    s.first = std::nearbyint(centre / s.step) * s.step - reach * s.step;
    s.levels = static_cast<std::uint32_t>(2.0 * reach);
    s.origin52 = s.first - s.step * 0x1.0p52;
    return s;
  }
  CHAINSAW_HD std::uint32_t hash(std::uint32_t x) const {
    x ^= key_in;
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= key_mid;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ (x >> 16);
  }
  // first + step * m, from 2^52 + m (the GPU's m, made from its bits). The fused multiply-add
  // takes the 2^52 back out: origin52 is exact (first is a multiple of step, within 2^24 steps
  // of 0), and so is the sum, a float: one float64 operation per gene instead of two. The host
  // keeps its plain form, cheaper there than a library fma.
  CHAINSAW_HD double grid_point(double two52_plus_m) const {
    return fma(step, two52_plus_m, origin52);
  }
  // o_j in double, exactly the real_t value operator() returns.
  CHAINSAW_HD double value(Dim j) const {
    if (stored != nullptr) return static_cast<double>(stored[j]);
    return hashed_value(j);
  }
  // o_j from the hash alone (stored ignored): a loop that knows which form o has needs no
  // branch per gene.
  CHAINSAW_HD double hashed_value(Dim j) const {
    const std::uint32_t h = hash(static_cast<std::uint32_t>(j));
#if defined(__CUDA_ARCH__)
    const std::uint32_t m = __umulhi(h, levels);
    // 2^52 + m from its bits: m as a double without the conversion unit.
    return grid_point(__hiloint2double(0x43300000, static_cast<int>(m)));
#else
    const auto m = static_cast<std::uint32_t>((static_cast<std::uint64_t>(h) * levels) >> 32);
    // m < 2^24 converts as a signed int: x86 vectorises that conversion, not the unsigned one.
    return first + step * static_cast<double>(static_cast<std::int32_t>(m));  // exact: floats
#endif
  }
  CHAINSAW_HD real_t operator()(Dim j) const {
    if (stored != nullptr) return stored[j];
    return static_cast<real_t>(value(j));
  }
};

// z = x - o in double: a float subtraction would be cheaper on the GPU, but its rounding
// (2^-24 of |z|, up to 5e-7 in a Rastrigin cosine) breaks the 1e-6 agreement with a float64
// reference for fitness values near f(o). x is a gene (a real_t), widened exactly: the GPU's
// reductions carry genes as doubles, and narrowing one back to real_t first would only spend
// two more conversions per gene (the GPU's slowest arithmetic pipe) on the same value.
CHAINSAW_HD double shifted_gene(double x, const Shift& shift, Dim j) {
  return x - shift.value(j);
}

// Where o lies in the search box (`--shift-range`): its middle 60%, chainsaw's rule, which keeps
// the optimum away from the centre and the bounds alike; or anywhere in it, as CEC 2010 draws o.
enum class ShiftRange { kMiddle, kWhole };
const char* shift_range_name(ShiftRange r);
// Throws UserError naming `flag` for anything but "middle" or "whole".
ShiftRange parse_shift_range(const std::string& flag, const std::string& text);

// The shift o of the paper's functions for a problem seed (o_j in the middle 60% of
// [lower, upper], or in all of it). A user objective that applies it gives the built-in
// function's problem.
inline Shift benchmark_shift(double lower, double upper, std::uint64_t problem_seed,
                             ShiftRange range = ShiftRange::kMiddle) {
  return Shift::hashed(derive_key(problem_seed, static_cast<std::uint64_t>(RngPurpose::kShift)),
                       lower, upper - lower, range == ShiftRange::kWhole ? 1.0 : 0.6);
}

// The search box of a per-gene benchmark function (`--domain`, `--shift-range`;
// docs/paper-quality.md): by default the function's conventional domain with o in its middle 60%.
// Another box changes the problem, not the function: init, clipping, BGA steps and o follow it.
struct SearchBox {
  double lower = 0.0;  // lower < upper: every variable in [lower, upper]; else the function's own
  double upper = 0.0;
  ShiftRange shift_range = ShiftRange::kMiddle;
  bool conventional_domain() const { return !(lower < upper); }
  bool is_default() const { return conventional_domain() && shift_range == ShiftRange::kMiddle; }
};
// Parses --domain's "LOWER,UPPER" (finite, LOWER < UPPER); throws UserError naming `flag`.
SearchBox parse_domain(const std::string& flag, const std::string& text);
// Throws UserError when a box other than the default is given to a function that keeps its own
// (the CEC suites, Janssen et al.'s, the functions of generated data).
void check_search_box(const FunctionInfo& info, const SearchBox& box);

struct CecInstance;
struct EtcInstance;
struct SchwefelMatrixInstance;

// The task-scheduling problem's parameters beside its tasks (= the variables, Problem::dim).
struct EtcOptions {
  std::string etc_class = "u_c_hihi";  // Braun's or the paper's name (parse_etc_class)
  int machines = 16;
  double lambda = 0.75;  // fit = lambda makespan + (1 - lambda) flowtime / m
  std::string flowtime = "completion";  // or "loads" (parse_etc_flowtime)
};
// Throws UserError naming the flag (--etc-class, --etc-machines, --etc-lambda, --etc-flowtime)
// of a bad value.
void check_etc_options(const EtcOptions& options);
struct JanssenInstance;
struct Cec2013Instance;

// Config::function of a run on a user objective: this prefix and the objective's name. It is
// what checkpoints record, so that a resume can check that it is given the same objective.
inline constexpr const char* kUserObjectivePrefix = "user:";
inline bool is_user_objective_name(const std::string& function) {
  return function.rfind(kUserObjectivePrefix, 0) == 0;
}

struct Problem {
  FunctionId function = FunctionId::kRastrigin;
  Dim dim = 0;
  double lower = 0.0;
  double upper = 0.0;
  Shift shift;
  double optimum_value = kFBias;  // f(o): -330 for the paper's functions, 0 for CEC 2010
  // CEC 2010: o, P and M in host memory (shift.stored points into it); null otherwise.
  std::shared_ptr<const CecInstance> cec;
  // A user objective: the engines make the genes and hand the rows to it; null otherwise.
  // The functions of generated data (data_functions()) and Janssen et al.'s functions are
  // built-in objectives of this kind.
  std::shared_ptr<const BatchObjective> external;
  // Their data in host memory (also held by `external`'s callbacks); null otherwise.
  std::shared_ptr<const EtcInstance> etc;
  std::shared_ptr<const SchwefelMatrixInstance> matrix;
  // Janssen et al.'s functions: each component's o and M, a hybrid's permutation (shift.stored
  // points at the global optimum).
  std::shared_ptr<const JanssenInstance> janssen;
  // CEC 2013: o, P, s, w and the rotations (a built-in objective like Janssen's; shift.stored
  // points at the optimum's genes, null for F14, which has no common optimum).
  std::shared_ptr<const Cec2013Instance> cec2013;

  // instance: CEC 2010 only, already validated (a file's, io/instance_file.hpp, or a
  // checkpoint's); null = generate o, P and M from problem_seed. Throws UserError for an unknown
  // function or a dimension the function does not allow.
  // etc_options: the `etc` function only (its matrix generated from problem_seed).
  // box: another domain or shift range, for the paper's six and the classic functions only.
  static Problem make(const std::string& function_name, Dim dim, std::uint64_t problem_seed,
                      std::shared_ptr<const CecInstance> instance = nullptr,
                      const EtcOptions& etc_options = {}, const SearchBox& box = {});
  // The scheduling problem of a given ETC matrix (a file's); dim = its tasks.
  static Problem make_etc(std::shared_ptr<const EtcInstance> instance);
  // A user objective over `dim` variables; throws UserError for a null objective, a dimension
  // of 0 or other than the objective's, a domain that is not a finite lower < upper, or a name
  // that is empty.
  static Problem make_external(std::shared_ptr<const BatchObjective> objective, Dim dim);
  // A Janssen function on given data (JanssenInstance::load); Problem::make generates it.
  static Problem make_janssen(const FunctionInfo& info,
                              std::shared_ptr<const JanssenInstance> instance);
  // A CEC 2013 function on given data (the official folder's or a file's, io/cec2013_files.hpp);
  // Problem::make generates it.
  static Problem make_cec2013(const FunctionInfo& info,
                              std::shared_ptr<const Cec2013Instance> instance);
  double width() const { return upper - lower; }
  bool is_cec2010() const { return cec != nullptr; }
  bool is_external() const { return external != nullptr; }
  bool is_janssen() const { return janssen != nullptr; }
  bool is_cec2013() const { return cec2013 != nullptr; }
  // The functions with data evaluated by their objective's batch kernels (data_functions():
  // Schwefel 2.6, 2.13, task scheduling; and CEC 2013's).
  bool has_generated_data() const {
    return matrix != nullptr || etc != nullptr || cec2013 != nullptr;
  }
  // Whether f has a known minimiser o, whose distance is reported (every function but a user
  // objective, scheduling and CEC 2013's F14).
  bool optimum_position_known() const {
    return !is_external() || matrix != nullptr || is_janssen() ||
           (is_cec2013() && shift.stored != nullptr);
  }
  // The optimum as genes where it is data (Janssen's, CEC 2013's): what shift.stored points at
  // on the host, for an engine's device copy; null otherwise.
  const std::vector<real_t>* stored_optimum() const;
  // Whether the fused make-and-evaluate passes only make the genes (see visit_function).
  bool evaluates_stored_vectors() const { return is_cec2010() || is_external(); }
};

// f(o) of a function: -330 for the paper's six (on any range), 0 for the others.
double function_optimum_value(FunctionId id);
double function_optimum_value(const std::string& function_name);

// Throws UserError when the function is not defined for D variables (CEC 2010's groups, the
// matrix functions' D <= 10^4, at most 2^31 - 1 tasks).
void check_dimension(const FunctionInfo& info, Dim dim);

// Calls f(Rastrigin{}), f(Griewank{}), ... for the function id: the one place that turns the
// run-time choice into a compile-time type, so inner loops are specialised per function. A CEC
// 2010 id or a user objective gives f(GenesOnly{}): the engines' fused make-and-evaluate passes
// only make the genes, and the stored vector is evaluated afterwards (visit_cec2010, external).
template <class F>
decltype(auto) visit_function(FunctionId id, F&& f);

}  // namespace chainsaw

#include "fitness/cec2010/cec2010.hpp"
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
    case FunctionId::kRosenbrock: return f(Rosenbrock{});
    case FunctionId::kZakharov: return f(Zakharov{});
    case FunctionId::kSphere: return f(Sphere{});
    case FunctionId::kHyperEllipsoid: return f(HyperEllipsoid{});
    case FunctionId::kSchwefel222: return f(Schwefel222{});
    case FunctionId::kSchwefel226: return f(Schwefel226{});
    case FunctionId::kKatsuura: return f(Katsuura{});
    case FunctionId::kAckley: return f(Ackley{});
    case FunctionId::kDixonPrice: return f(DixonPrice{});
    case FunctionId::kGriewankRosenbrock: return f(GriewankRosenbrock{});
    case FunctionId::kScaffer: return f(Scaffer{});
    case FunctionId::kLevy: return f(Levy{});
    // Nashed et al.'s ranges of functions defined above: the same type, so the same kernels
    case FunctionId::kNashedSumSquares: return f(SumSquares{});
    case FunctionId::kNashedZakharov: return f(Zakharov{});
    case FunctionId::kNashedSchwefel12: return f(Schwefel12{});
    case FunctionId::kNashedRastrigin: return f(Rastrigin{});
    case FunctionId::kNashedGriewank: return f(Griewank{});
    case FunctionId::kNashedSalomon: return f(Salomon{});
    default: return f(GenesOnly{});
  }
}

// Calls f(CecF1{}) ... f(CecF20{}) for a CEC 2010 id.
template <class F>
decltype(auto) visit_cec2010(FunctionId id, F&& f) {
  switch (cec2010_number(id)) {
    case 1: return f(CecF1{});
    case 2: return f(CecF2{});
    case 3: return f(CecF3{});
    case 4: return f(CecF4{});
    case 5: return f(CecF5{});
    case 6: return f(CecF6{});
    case 7: return f(CecF7{});
    case 8: return f(CecF8{});
    case 9: return f(CecF9{});
    case 10: return f(CecF10{});
    case 11: return f(CecF11{});
    case 12: return f(CecF12{});
    case 13: return f(CecF13{});
    case 14: return f(CecF14{});
    case 15: return f(CecF15{});
    case 16: return f(CecF16{});
    case 17: return f(CecF17{});
    case 18: return f(CecF18{});
    case 19: return f(CecF19{});
    default: return f(CecF20{});
  }
}

}  // namespace chainsaw
