#include "fitness/janssen/janssen_instance.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"

namespace chainsaw {

namespace {

using B = JanssenBasic;
using K = JanssenKind;

// Table 2 with the parameters of the official codes (cec17_func.cpp, cec14_func.cpp): where the
// table prints other values (F7's shares, F10's first lambda) the codes' are here, and
// docs/functions.md says so.
const JanssenSpec kSpecs[kJanssenFunctions] = {
    {K::kBasic, 1, {B::kZakharov}, {}, {}, {}, {}, 2017, 3, 300.0},
    {K::kBasic, 1, {B::kRosenbrock}, {}, {}, {}, {}, 2017, 4, 400.0},
    {K::kBasic, 1, {B::kRastrigin}, {}, {}, {}, {}, 2017, 5, 500.0},
    {K::kBasic, 1, {B::kSchwefel}, {}, {}, {}, {}, 2017, 10, 1000.0},
    {K::kHybrid, 3, {B::kBentCigar, B::kHgbat, B::kRastrigin}, {0.3, 0.3, 0.4}, {}, {}, {},
     2014, 18, 1800.0},
    {K::kHybrid, 4, {B::kScaffer, B::kHgbat, B::kRosenbrock, B::kSchwefel},
     {0.2, 0.2, 0.3, 0.3}, {}, {}, {}, 2017, 16, 1600.0},
    {K::kHybrid, 5,
     {B::kKatsuura, B::kHappyCat, B::kGriewankRosenbrock, B::kSchwefel, B::kAckley},
     {0.1, 0.2, 0.2, 0.2, 0.3}, {}, {}, {}, 2014, 22, 2200.0},
    {K::kComposition, 3, {B::kRastrigin, B::kGriewank, B::kSchwefel}, {}, {10, 20, 30},
     {1.0, 10.0, 1.0}, {0, 100, 200}, 2017, 22, 2200.0},
    {K::kComposition, 4, {B::kAckley, B::kElliptic, B::kGriewank, B::kRastrigin}, {},
     {10, 20, 30, 40}, {10.0, 1.0e-6, 10.0, 1.0}, {0, 100, 200, 300}, 2017, 24, 2400.0},
    {K::kComposition, 5, {B::kScaffer, B::kSchwefel, B::kGriewank, B::kRosenbrock, B::kRastrigin},
     {}, {10, 20, 20, 30, 40}, {5.0e-4, 1.0, 10.0, 1.0, 10.0}, {0, 100, 200, 300, 400}, 2017, 26,
     2600.0},
};

// The shifts of the official data lie in [-80, 80]; generated ones too.
constexpr double kShiftBound = 80.0;
constexpr double kDomainBound = 100.0;

// Optima and rotations: one per component of a composition, one for the others (a hybrid rotates
// z once, before its shuffle).
std::size_t optima_of(const JanssenSpec& s) {
  return s.kind == JanssenKind::kComposition ? static_cast<std::size_t>(s.components) : 1;
}

// One official data file, its numbers by line.
struct DataFile {
  std::string name;
  std::vector<std::vector<double>> lines;  // blank lines left out
  std::size_t count() const {
    std::size_t n = 0;
    for (const auto& l : lines) n += l.size();
    return n;
  }
  // The first `count` numbers, across lines, as fscanf reads them.
  std::vector<double> first(std::size_t count) const {
    std::vector<double> out;
    for (const auto& l : lines)
      for (double v : l) {
        if (out.size() == count) return out;
        out.push_back(v);
      }
    return out;
  }
};

class DataReader {
 public:
  DataReader(std::string directory) : directory_(std::move(directory)) {}

  [[noreturn]] void fail(const std::string& file, const std::string& what) const {
    throw UserError("--instance = " + directory_ + ": " + file + ": " + what);
  }

  DataFile read(const std::string& name) const {
    const std::string path = directory_ + "/" + name;
    std::ifstream in(path);
    if (!in)
      throw UserError("--instance = " + directory_ + ": cannot read " + name + " (" +
                      std::strerror(errno) + "; the official input_data of CEC'14 or CEC'17)");
    DataFile file{name, {}};
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      std::istringstream tokens(line);
      std::vector<double> values;
      std::string token;
      while (tokens >> token) {
        char* end = nullptr;
        const double v = std::strtod(token.c_str(), &end);
        if (end == token.c_str() || *end != '\0' || !std::isfinite(v))
          fail(name, "line " + std::to_string(number) + ": '" + token + "' is not a finite number");
        values.push_back(v);
      }
      if (!values.empty()) file.lines.push_back(std::move(values));
    }
    return file;
  }

  std::vector<double> numbers(const DataFile& file, std::size_t needed,
                              const std::string& what) const {
    if (file.count() < needed)
      fail(file.name, "has " + std::to_string(file.count()) + " values, " + what + " needs " +
                          std::to_string(needed));
    return file.first(needed);
  }

 private:
  std::string directory_;
};

void check_shift(const DataReader& reader, const std::string& file, const std::vector<double>& o) {
  for (std::size_t i = 0; i < o.size(); ++i)
    if (!(std::fabs(o[i]) <= kDomainBound))
      reader.fail(file, "shift value " + std::to_string(i + 1) + " = " + std::to_string(o[i]) +
                            " is outside [-100, 100]");
}

}  // namespace

const JanssenSpec& janssen_spec(int index) {
  CHAINSAW_EXPECTS(index >= 0 && index < kJanssenFunctions, "no such Janssen function");
  return kSpecs[index];
}

JanssenView JanssenInstance::view() const {
  JanssenView v;
  v.spec = spec();
  v.dim = dim;
  v.o = o.data();
  v.rotation = rotation.data();
  v.row_stride = static_cast<int>(dim);
  v.column_stride = 1;
  v.perm = perm.empty() ? nullptr : perm.data();
  return v;
}

void check_janssen_dimension(int index, Dim dim, const std::string& name) {
  const std::string prefix = "--dim = " + std::to_string(dim) + ": " + name;
  if (dim < 2 || dim > kJanssenMaxDim)
    throw UserError(prefix + " is defined for 2 <= D <= 100 (the dimensions of CEC'14/'17)");
  const JanssenSpec& s = janssen_spec(index);
  if (s.kind != JanssenKind::kHybrid) return;
  int sizes[kJanssenMaxComponents];
  janssen_part_sizes(s, static_cast<int>(dim), sizes);
  for (int c = 0; c < s.components; ++c)
    if (sizes[c] < 1)
      throw UserError(prefix + " is a hybrid whose parts (ceil(p D) variables each, the rest "
                               "last) would leave part " + std::to_string(c + 1) +
                      " empty; D = 10, 20, 30, 50 and 100 split well");
}

JanssenInstance JanssenInstance::generate(int index, Dim dim, std::uint64_t seed) {
  const JanssenSpec& s = janssen_spec(index);
  JanssenInstance inst;
  inst.index = index;
  inst.dim = dim;
  const auto n = static_cast<std::size_t>(dim);
  for (std::size_t c = 0; c < optima_of(s); ++c) {
    CounterRng rng(derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kShift), c));
    // Rounded to the genes' precision: x = o is then a point the search can reach, f(o) = f*.
    for (std::size_t j = 0; j < n; ++j)
      inst.o.push_back(static_cast<real_t>(-kShiftBound + 2.0 * kShiftBound * rng.uniform()));
    const std::vector<double> m = random_rotation(
        static_cast<int>(dim),
        derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCecRotation), c));
    inst.rotation.insert(inst.rotation.end(), m.begin(), m.end());
  }
  if (s.kind == JanssenKind::kHybrid)
    inst.perm = random_permutation(
        dim, derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCecPermutation)));
  inst.optimum.assign(inst.o.begin(), inst.o.begin() + static_cast<std::ptrdiff_t>(n));
  return inst;
}

JanssenInstance JanssenInstance::load(int index, Dim dim, const std::string& directory) {
  const JanssenSpec& s = janssen_spec(index);
  const DataReader reader(directory);
  const std::string number = std::to_string(s.number), d = std::to_string(dim);
  const auto n = static_cast<std::size_t>(dim);
  const std::string for_d = "D = " + d;
  JanssenInstance inst;
  inst.index = index;
  inst.dim = dim;

  // M first: a D without official data fails on its missing M file.
  const DataFile rotation = reader.read("M_" + number + "_D" + d + ".txt");
  inst.rotation = reader.numbers(rotation, optima_of(s) * n * n,
                                 optima_of(s) > 1 ? std::to_string(optima_of(s)) + " matrices of " +
                                                        d + " x " + d
                                                  : d + " x " + d);

  const DataFile shift = reader.read("shift_data_" + number + ".txt");
  if (s.kind == JanssenKind::kComposition) {
    // One optimum per line (the first D values of each of the first lines), as the codes read
    // them.
    if (shift.lines.size() < optima_of(s))
      reader.fail(shift.name, "has " + std::to_string(shift.lines.size()) + " lines, the " +
                                  std::to_string(s.components) +
                                  " components need one optimum each");
    for (std::size_t c = 0; c < optima_of(s); ++c) {
      const std::vector<double>& line = shift.lines[c];
      if (line.size() < n)
        reader.fail(shift.name, "line " + std::to_string(c + 1) + " has " +
                                    std::to_string(line.size()) + " values, " + for_d +
                                    " needs " + d);
      inst.o.insert(inst.o.end(), line.begin(), line.begin() + static_cast<std::ptrdiff_t>(n));
    }
  } else {
    inst.o = reader.numbers(shift, n, for_d);
  }
  check_shift(reader, shift.name, inst.o);

  if (s.kind == JanssenKind::kHybrid) {
    const DataFile shuffle = reader.read("shuffle_data_" + number + "_D" + d + ".txt");
    const std::vector<double> given = reader.numbers(shuffle, n, for_d);
    std::vector<char> seen(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
      const double v = given[k];
      if (!(v == std::floor(v) && v >= 1.0 && v <= static_cast<double>(n)) ||
          seen[static_cast<std::size_t>(v) - 1])
        reader.fail(shuffle.name, "is not a permutation of 1.." + d + ": value " +
                                      std::to_string(k + 1) + " = " + std::to_string(v));
      seen[static_cast<std::size_t>(v) - 1] = 1;
      inst.perm.push_back(static_cast<std::int32_t>(v) - 1);
    }
  }
  inst.optimum.assign(inst.o.begin(), inst.o.begin() + static_cast<std::ptrdiff_t>(n));
  return inst;
}

void evaluate_janssen_host(const JanssenInstance& instance, const real_t* genes, Dim pitch,
                           int rows, double* out) {
  const JanssenView view = instance.view();
#pragma omp parallel for schedule(static) if (rows > 1)
  for (int r = 0; r < rows; ++r) out[r] = janssen_value(view, genes + static_cast<Dim>(r) * pitch);
}

std::shared_ptr<const BatchObjective> janssen_objective(
    const std::string& name, std::shared_ptr<const JanssenInstance> instance) {
  auto objective = std::make_shared<BatchObjective>();
  objective->name = name;
  objective->dim = instance->dim;
  objective->lower = -kDomainBound;
  objective->upper = kDomainBound;
  objective->optimum_value = instance->spec().optimum_value;
  objective->host = [instance](const real_t* genes, Dim pitch, int rows, Dim /*dim*/,
                               double* fitness) {
    evaluate_janssen_host(*instance, genes, pitch, rows, fitness);
  };
#if defined(CHAINSAW_CUDA)
  objective->device = janssen_device_batch(instance);
#endif
  return objective;
}

}  // namespace chainsaw
