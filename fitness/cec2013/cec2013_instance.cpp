#include "fitness/cec2013/cec2013_instance.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

namespace {

// The official data's sequences of group sizes (F4-F7-s.txt, F8-F14-s.txt): the generated
// instances repeat them, one round per 1000 variables (F13, F14: per 900).
constexpr std::int32_t kSevenGroups[] = {50, 25, 25, 100, 50, 25, 25};
constexpr std::int32_t kTwentyGroups[] = {50, 50, 25, 25, 100, 100, 25, 25, 50, 25,
                                          100, 25, 100, 50, 25, 25, 25, 100, 50, 25};

const FunctionInfo& info_of(int number) {
  return function_info(
      static_cast<FunctionId>(static_cast<int>(FunctionId::kCec2013F1) + number - 1));
}

Dim sum_of(const std::vector<std::int32_t>& sizes) {
  Dim s = 0;
  for (std::int32_t v : sizes) s += v;
  return s;
}

// The positions the groups cover: their sizes, less the shared positions of overlapping ones.
Dim covered_positions(Cec2013Layout layout, const std::vector<std::int32_t>& sizes) {
  const Dim shared = cec2013_overlaps(layout) && !sizes.empty()
                         ? kCec2013Overlap * static_cast<Dim>(sizes.size() - 1)
                         : 0;
  return sum_of(sizes) - shared;
}

// Where o comes from for F14: each group its own segment of the groups' sizes summed.
Dim optimum_values(int number, Dim dim, const std::vector<std::int32_t>& sizes) {
  return cec2013_spec(number).layout == Cec2013Layout::kConflicting ? sum_of(sizes) : dim;
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw UserError(source + ": " + what);
}

// The instance from checked sections: its groups and its optimum as genes.
Cec2013Instance assemble(int number, Dim dim, Cec2013Instance inst) {
  const Cec2013Spec spec = cec2013_spec(number);
  inst.number = number;
  inst.dim = dim;
  inst.groups.clear();
  Dim position = 0, offset = 0;
  for (std::size_t g = 0; g < inst.sizes.size(); ++g) {
    Cec2013Group group;
    group.start = static_cast<std::int32_t>(position);
    group.size = inst.sizes[g];
    group.rotation = cec2013_rotation_index(group.size);
    group.o_offset = static_cast<std::int32_t>(offset);
    group.weight = inst.weights[g];
    inst.groups.push_back(group);
    offset += group.size;
    position += group.size - (cec2013_overlaps(spec.layout) ? kCec2013Overlap : 0);
  }
  inst.optimum.clear();
  if (spec.layout != Cec2013Layout::kConflicting) {
    // F12 is Rosenbrock on z itself, whose minimum is z = 1 (Li et al. 2013: x* = o + 1).
    const double step = spec.rest_base == Cec2013Base::kRosenbrock ? 1.0 : 0.0;
    inst.optimum.reserve(static_cast<std::size_t>(dim));
    for (Dim j = 0; j < dim; ++j) inst.optimum.push_back(static_cast<real_t>(inst.o[j] + step));
  }
  return inst;
}

void check_finite(const std::vector<double>& values, const std::string& source,
                  const std::string& section) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      fail(source, section + ": value " + std::to_string(i + 1) + " is not a finite number");
}

void check_count(std::size_t count, Dim wanted, const std::string& source,
                 const std::string& section, const std::string& why) {
  if (count != static_cast<std::size_t>(wanted))
    fail(source, section + " has " + std::to_string(count) + " values, " + why + " needs " +
                     std::to_string(wanted));
}

std::vector<std::int32_t> checked_sizes(const Cec2013InstanceData& data, int number, Dim dim,
                                        const std::string& source, const std::string& section) {
  const Cec2013Layout layout = cec2013_spec(number).layout;
  std::vector<std::int32_t> sizes;
  for (std::size_t g = 0; g < data.sizes.size(); ++g) {
    const std::int64_t s = data.sizes[g];
    if (s != 25 && s != 50 && s != 100)
      fail(source, section + ": value " + std::to_string(g + 1) + " = " + std::to_string(s) +
                       " is not a group size of 25, 50 or 100 (those of R25, R50, R100)");
    sizes.push_back(static_cast<std::int32_t>(s));
  }
  if (sizes.empty()) fail(source, section + " has no group sizes");
  const Dim covered = covered_positions(layout, sizes);
  const bool fits = layout == Cec2013Layout::kPartial ? covered <= dim : covered == dim;
  if (!fits)
    fail(source, section + ": " + std::to_string(sizes.size()) + " groups" +
                     (cec2013_overlaps(layout) ? " overlapping by 5" : "") + " cover " +
                     std::to_string(covered) + " positions, " +
                     (layout == Cec2013Layout::kPartial ? "more than" : "not") + " D = " +
                     std::to_string(dim));
  return sizes;
}

std::vector<std::int32_t> checked_permutation(const std::vector<std::int64_t>& perm, Dim dim,
                                              const std::string& source,
                                              const std::string& section) {
  check_count(perm.size(), dim, source, section, "D = " + std::to_string(dim));
  std::vector<std::int32_t> out(perm.size());
  std::vector<char> seen(perm.size(), 0);
  for (std::size_t k = 0; k < perm.size(); ++k) {
    const std::int64_t j = perm[k];
    if (j < 0 || j >= dim || seen[static_cast<std::size_t>(j)])
      fail(source, section + " is not a permutation of the D variables: value " +
                       std::to_string(k + 1) + " is " + std::to_string(j) +
                       (j >= 0 && j < dim ? " again" : " (0-based), outside 0..D-1"));
    seen[static_cast<std::size_t>(j)] = 1;
    out[k] = static_cast<std::int32_t>(j);
  }
  return out;
}

// R of index r when a group has its size (empty otherwise): s x s finite values, orthogonal.
std::vector<double> checked_rotation(const Cec2013InstanceData& data,
                                     const std::vector<std::int32_t>& sizes, int r,
                                     const std::string& source, const Cec2013Sections& names) {
  const int size = cec2013_rotation_size(r);
  if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) return {};
  const std::string name = names.name("R" + std::to_string(size));
  check_count(data.rotation[r].size(), Dim{size} * size, source, name,
              "a " + std::to_string(size) + " x " + std::to_string(size) + " rotation");
  check_finite(data.rotation[r], source, name);
  const double error = orthogonality_error(data.rotation[r], size);
  if (!(error <= 1e-6))
    fail(source, name + " is not orthogonal: max |R R^T - I| = " + std::to_string(error));
  return data.rotation[r];
}

}  // namespace

void check_cec2013_dimension(int number, Dim dim, const std::string& name) {
  const std::string prefix = "--dim = " + std::to_string(dim) + ": " + name;
  const Cec2013Layout layout = cec2013_spec(number).layout;
  if (dim > (Dim{1} << 31) - 1) throw UserError(prefix + ": at most 2^31 - 1 variables");
  if (layout == Cec2013Layout::kWhole && dim < 2)
    throw UserError(prefix + " needs at least 2 variables");
  if ((layout == Cec2013Layout::kPartial || layout == Cec2013Layout::kGroups) &&
      (dim < 1000 || dim % 1000 != 0))
    throw UserError(prefix + " needs a multiple of 1000 (the official " +
                    (layout == Cec2013Layout::kPartial ? "7" : "20") +
                    " groups per 1000 variables, repeated)");
  if (cec2013_overlaps(layout) && (dim < 905 || (dim - 5) % 900 != 0))
    throw UserError(prefix + " needs D = 900 k + 5 (905, 1805, ...: the official 20 groups " +
                    "overlapping by 5 in 905 variables, repeated)");
}

std::vector<std::int32_t> cec2013_generated_sizes(int number, Dim dim) {
  const Cec2013Layout layout = cec2013_spec(number).layout;
  std::vector<std::int32_t> sizes;
  if (!cec2013_has_groups(layout)) return sizes;
  const bool seven = layout == Cec2013Layout::kPartial;
  const Dim rounds = cec2013_overlaps(layout) ? (dim - 5) / 900 : dim / 1000;
  for (Dim r = 0; r < rounds; ++r) {
    if (seven) sizes.insert(sizes.end(), std::begin(kSevenGroups), std::end(kSevenGroups));
    else sizes.insert(sizes.end(), std::begin(kTwentyGroups), std::end(kTwentyGroups));
  }
  return sizes;
}

Cec2013View Cec2013Instance::view() const {
  Cec2013View v;
  v.dim = dim;
  v.o = o.data();
  v.perm = perm.empty() ? nullptr : perm.data();
  v.groups = groups.data();
  v.group_count = static_cast<int>(groups.size());
  for (int r = 0; r < kCec2013Rotations; ++r)
    v.rotation[r] = rotation[r].empty() ? nullptr : rotation[r].data();
  const Cec2013Layout layout = cec2013_spec(number).layout;
  if (layout == Cec2013Layout::kWhole) {
    v.rest_length = dim;
  } else if (layout == Cec2013Layout::kPartial) {
    v.rest_begin = sum_of(sizes);
    v.rest_length = dim - v.rest_begin;
  }
  return v;
}

Cec2013InstanceData Cec2013Instance::data() const {
  Cec2013InstanceData d;
  d.o = o;
  d.perm.assign(perm.begin(), perm.end());
  d.sizes.assign(sizes.begin(), sizes.end());
  d.weights = weights;
  d.rotation = rotation;
  return d;
}

Cec2013Instance Cec2013Instance::generate(int number, Dim dim, std::uint64_t seed) {
  const FunctionInfo& info = info_of(number);
  const Cec2013Spec spec = cec2013_spec(number);
  Cec2013Instance inst;
  inst.sizes = cec2013_generated_sizes(number, dim);
  const Dim values = optimum_values(number, dim, inst.sizes);
  const bool rosenbrock = spec.rest_base == Cec2013Base::kRosenbrock;
  // F12's x* = o + 1 is drawn in the domain (a float), so that o + 1 is exactly x*.
  for (real_t v : random_shift(values, info.lower, info.upper, seed))
    inst.o.push_back(static_cast<double>(v) - (rosenbrock ? 1.0 : 0.0));
  if (cec2013_has_groups(spec.layout)) {
    inst.perm = random_permutation(
        dim, derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCecPermutation)));
    CounterRng rng(derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCec2013Weights)));
    for (std::size_t g = 0; g < inst.sizes.size(); ++g)
      inst.weights.push_back(std::pow(10.0, 3.0 * rng.normal()));
    for (int r = 0; r < kCec2013Rotations; ++r) {
      const int size = cec2013_rotation_size(r);
      inst.rotation[r] = random_rotation(
          size, derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCecRotation),
                           static_cast<std::uint64_t>(size)));
    }
  }
  return assemble(number, dim, std::move(inst));
}

Cec2013Instance Cec2013Instance::from_data(const Cec2013InstanceData& data, int number, Dim dim,
                                           const std::string& source,
                                           const Cec2013Sections& names) {
  const Cec2013Spec spec = cec2013_spec(number);
  const bool conflicting = spec.layout == Cec2013Layout::kConflicting;
  Cec2013Instance inst;
  // o first where its count is D's (F14's follows the groups).
  auto take_o = [&] {
    check_count(data.o.size(), optimum_values(number, dim, inst.sizes), source, names.name("xopt"),
                conflicting ? "an o per position of every group" : "D = " + std::to_string(dim));
    check_finite(data.o, source, names.name("xopt"));
    inst.o = data.o;
  };
  if (!conflicting) take_o();
  if (cec2013_has_groups(spec.layout)) {
    inst.sizes = checked_sizes(data, number, dim, source, names.name("s"));
    const auto groups = static_cast<Dim>(inst.sizes.size());
    check_count(data.weights.size(), groups, source, names.name("w"),
                std::to_string(groups) + " groups");
    check_finite(data.weights, source, names.name("w"));
    inst.weights = data.weights;
    inst.perm = checked_permutation(data.perm, dim, source, names.name("p"));
    for (int r = 0; r < kCec2013Rotations; ++r)
      inst.rotation[r] = checked_rotation(data, inst.sizes, r, source, names);
  }
  if (conflicting) take_o();
  return assemble(number, dim, std::move(inst));
}

bool Cec2013Instance::same_as(const Cec2013Instance& other) const {
  auto bits_equal = [](const auto& a, const auto& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
  };
  bool same = number == other.number && dim == other.dim && bits_equal(o, other.o) &&
              bits_equal(perm, other.perm) && bits_equal(sizes, other.sizes) &&
              bits_equal(weights, other.weights);
  for (int r = 0; r < kCec2013Rotations; ++r)
    same = same && bits_equal(rotation[r], other.rotation[r]);
  return same;
}

void evaluate_cec2013_host(const Cec2013Instance& instance, const real_t* genes, Dim pitch,
                           int rows, double* out) {
  const Cec2013View v = instance.view();
  visit_cec2013(instance.number, [&](auto fn) {
    using Fn = decltype(fn);
    using Rest = typename Fn::RestPartial;
    const Dim groups = v.group_count, chunks = v.rest_chunks(), items = v.items();
    std::vector<double> group_values(static_cast<std::size_t>(rows * groups));
    std::vector<Rest> rest(static_cast<std::size_t>(rows * chunks));
    const Dim work = rows * items;
    // Threads only for work worth a parallel region (which costs more than a 1000-D row).
    const bool parallel = work > 1 && rows * instance.dim >= 4 * kHostChunk;
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
    for (Dim t = 0; t < work; ++t) {
      const Dim r = t / items, item = t % items;
      const real_t* x = genes + r * pitch;
      if (item < groups) {
        group_values[static_cast<std::size_t>(r * groups + item)] =
            Fn::group_value(v, x, static_cast<int>(item));
      } else {
        const Dim begin = (item - groups) * kCec2013RestChunk;
        const Dim end = std::min(begin + kCec2013RestChunk, v.rest_length);
        rest[static_cast<std::size_t>(r * chunks + item - groups)] =
            Fn::rest_partial(v, x, begin, end);
      }
    }
    // In cec2013_value's order: the same bits as one thread's evaluation.
    for (int r = 0; r < rows; ++r) {
      double sum = 0.0;
      for (Dim g = 0; g < groups; ++g)
        sum += group_values[static_cast<std::size_t>(r * groups + g)];
      Rest partial{};
      for (Dim c = 0; c < chunks; ++c)
        partial = Rest::combine(partial, rest[static_cast<std::size_t>(r * chunks + c)]);
      out[r] = Fn::finish(sum, partial, v.rest_length);
    }
  });
}

std::shared_ptr<const BatchObjective> cec2013_objective(
    const std::string& name, double lower, double upper,
    std::shared_ptr<const Cec2013Instance> instance) {
  auto objective = std::make_shared<BatchObjective>();
  objective->name = name;
  objective->dim = instance->dim;
  objective->lower = lower;
  objective->upper = upper;
  objective->optimum_value = 0.0;
  objective->host = [instance](const real_t* genes, Dim pitch, int rows, Dim /*dim*/,
                               double* fitness) {
    evaluate_cec2013_host(*instance, genes, pitch, rows, fitness);
  };
#if defined(CHAINSAW_CUDA)
  objective->device = cec2013_device_batch(instance);
#endif
  return objective;
}

}  // namespace chainsaw
