#include "fitness/cec2010/cec2010_instance.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "fitness/host_fitness.hpp"

namespace chainsaw {

// Orthonormalises the columns of a row-major n x n matrix in place: modified Gram-Schmidt,
// applied twice ("twice is enough", Giraud et al. 2005), in double.
static void orthonormalise_columns(std::vector<double>& a, int n) {
  for (int pass = 0; pass < 2; ++pass) {
    for (int c = 0; c < n; ++c) {
      for (int p = 0; p < c; ++p) {
        double dot = 0.0;
        for (int r = 0; r < n; ++r) dot += a[r * n + c] * a[r * n + p];
        for (int r = 0; r < n; ++r) a[r * n + c] -= dot * a[r * n + p];
      }
      double norm = 0.0;
      for (int r = 0; r < n; ++r) norm += a[r * n + c] * a[r * n + c];
      norm = std::sqrt(norm);
      for (int r = 0; r < n; ++r) a[r * n + c] /= norm;
    }
  }
}

std::vector<double> random_rotation(int n, std::uint64_t key) {
  CounterRng rng(key);
  std::vector<double> m(static_cast<size_t>(n) * static_cast<size_t>(n));
  for (double& v : m) v = rng.normal();
  orthonormalise_columns(m, n);
  return m;
}

// Fisher-Yates from one counter-based stream: sequential, so it does not depend on threads.
std::vector<std::int32_t> random_permutation(Dim dim, std::uint64_t key) {
  std::vector<std::int32_t> p(static_cast<size_t>(dim));
  for (Dim k = 0; k < dim; ++k) p[k] = static_cast<std::int32_t>(k);
  CounterRng rng(key);
  for (Dim k = dim - 1; k > 0; --k)
    std::swap(p[k], p[static_cast<Dim>(rng.below(static_cast<std::uint64_t>(k + 1)))]);
  return p;
}

// o_j uniform in the whole domain, as in the CEC 2010 reference code; one stream per 4096
// variables, so it can be drawn in parallel.
std::vector<real_t> random_shift(Dim count, double lower, double upper, std::uint64_t seed) {
  std::vector<real_t> o(static_cast<size_t>(count));
  const Dim chunks = host_chunk_count(count);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (Dim c = 0; c < chunks; ++c) {
    CounterRng rng(derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kShift), c));
    const Dim end = std::min(count, (c + 1) * kHostChunk);
    for (Dim j = c * kHostChunk; j < end; ++j)
      o[j] = static_cast<real_t>(clamp_to(lower + (upper - lower) * rng.uniform(), lower, upper));
  }
  return o;
}

namespace {

constexpr int kM = kCecGroup;

std::vector<double> generate_rotation(std::uint64_t seed) {
  return random_rotation(kM, derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCecRotation)));
}

std::vector<std::int32_t> generate_permutation(Dim dim, std::uint64_t seed) {
  return random_permutation(
      dim, derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCecPermutation)));
}

std::vector<real_t> generate_shift(const FunctionInfo& info, Dim dim, std::uint64_t seed) {
  return random_shift(dim, info.lower, info.upper, seed);
}

std::vector<std::int32_t> inverse_of(const std::vector<std::int32_t>& perm) {
  std::vector<std::int32_t> inv(perm.size());
  for (size_t k = 0; k < perm.size(); ++k)
    inv[static_cast<size_t>(perm[k])] = static_cast<std::int32_t>(k);
  return inv;
}

}  // namespace

CecLayout cec2010_layout(FunctionId id) {
  return visit_cec2010(id, [](auto fn) { return decltype(fn)::kLayout; });
}

CecView CecInstance::view() const {
  return view_at(o.data(), perm.data(), inverse.data(), rotation.data());
}

CecView CecInstance::view_at(const real_t* o_at, const std::int32_t* perm_at,
                             const std::int32_t* inverse_at, const double* rotation_at) const {
  CecView v;
  v.dim = dim;
  v.groups = groups;
  v.rest_begin = groups * kM;
  v.o = o_at;
  v.perm = perm.empty() ? nullptr : perm_at;
  v.inverse = inverse.empty() ? nullptr : inverse_at;
  v.rotation = rotation.empty() ? nullptr : rotation_at;
  v.rest_rate = detail::elliptic_rate(dim - v.rest_begin);
  return v;
}

CecInstance CecInstance::generate(const FunctionInfo& info, Dim dim, std::uint64_t seed) {
  const CecLayout layout = cec2010_layout(info.id);
  CecInstance inst;
  inst.dim = dim;
  inst.groups = cec_groups(layout, dim);
  inst.o = generate_shift(info, dim, seed);
  if (cec_has_groups(layout)) {
    inst.perm = generate_permutation(dim, seed);
    inst.inverse = inverse_of(inst.perm);
    inst.rotation = generate_rotation(seed);
  }
  return inst;
}

CecInstance CecInstance::from_data(const CecInstanceData& data, const FunctionInfo& info,
                                   Dim dim, std::uint64_t seed, const std::string& source) {
  auto fail = [&source](const std::string& what) { throw UserError(source + ": " + what); };
  const CecLayout layout = cec2010_layout(info.id);
  if (data.dim >= 0 && data.dim != dim)
    fail("dim " + std::to_string(data.dim) + " does not match --dim = " + std::to_string(dim));
  auto check_count = [&](const char* section, std::size_t count) {
    if (count != static_cast<std::size_t>(dim))
      fail(std::string(section) + " has " + std::to_string(count) + " values, --dim = " +
           std::to_string(dim));
  };

  // Only what the data leaves out is generated (Fisher-Yates over 10^6 variables is not free).
  CecInstance inst;
  inst.dim = dim;
  inst.groups = cec_groups(layout, dim);
  if (data.o.empty()) {
    inst.o = generate_shift(info, dim, seed);
  } else {
    check_count("shift", data.o.size());
    inst.o.resize(static_cast<std::size_t>(dim));
    for (Dim j = 0; j < dim; ++j) {
      const double v = data.o[static_cast<std::size_t>(j)];
      if (!(v >= info.lower && v <= info.upper))
        fail("shift value " + std::to_string(j + 1) + " = " + std::to_string(v) +
             " is outside the domain of " + info.name);
      inst.o[static_cast<std::size_t>(j)] = static_cast<real_t>(v);
    }
  }
  if (!cec_has_groups(layout)) return inst;
  if (data.perm.empty()) {
    inst.perm = generate_permutation(dim, seed);
  } else {
    check_count("permutation", data.perm.size());
    inst.perm.resize(static_cast<std::size_t>(dim));
    std::int64_t base = data.perm_base;
    if (base < 0) {
      // A permutation of 0..D-1 or of 1..D holds exactly one of 0 and D.
      const auto [lo, hi] = std::minmax_element(data.perm.begin(), data.perm.end());
      base = *lo == 1 && *hi == dim ? 1 : 0;
    }
    std::vector<char> seen(static_cast<std::size_t>(dim), 0);
    for (Dim k = 0; k < dim; ++k) {
      const std::int64_t given = data.perm[static_cast<std::size_t>(k)];
      const std::int64_t j = given - base;
      if (j < 0 || j >= dim || seen[static_cast<std::size_t>(j)])
        fail("permutation is not a permutation of " +
             (data.perm_base < 0 ? std::string("0..D-1 (or 1..D)")
                                 : std::to_string(base) + ".." + std::to_string(dim - 1 + base)) +
             ": value " + std::to_string(k + 1) + " = " + std::to_string(given));
      seen[static_cast<std::size_t>(j)] = 1;
      inst.perm[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(j);
    }
  }
  inst.inverse = inverse_of(inst.perm);
  if (data.rotation.empty()) {
    inst.rotation = generate_rotation(seed);
  } else {
    if (data.rotation.size() != static_cast<std::size_t>(kM * kM))
      fail("rotation has " + std::to_string(data.rotation.size()) +
           " values, not 50 x 50 (one M for every group, as in the CEC 2010 code)");
    for (std::size_t k = 0; k < data.rotation.size(); ++k)
      if (!std::isfinite(data.rotation[k]))
        fail("rotation value " + std::to_string(k + 1) + " is not a finite number");
    const double error = orthogonality_error(data.rotation, kM);
    if (!(error <= 1e-6))
      fail("rotation is not orthogonal: max |M M^T - I| = " + std::to_string(error));
    inst.rotation = data.rotation;
  }
  return inst;
}

bool CecInstance::same_as(const CecInstance& other) const {
  auto bits_equal = [](const auto& a, const auto& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
  };
  return dim == other.dim && groups == other.groups && bits_equal(o, other.o) &&
         bits_equal(perm, other.perm) && bits_equal(rotation, other.rotation);
}

double orthogonality_error(const std::vector<double>& m, int n) {
  double worst = 0.0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      double dot = 0.0;
      for (int c = 0; c < n; ++c) dot += m[i * n + c] * m[k * n + c];
      const double e = std::fabs(dot - (i == k ? 1.0 : 0.0));
      if (std::isnan(e)) return e;  // NaN is the worst: no later value may replace it
      if (e > worst) worst = e;
    }
  return worst;
}

double evaluate_cec2010_host(const Problem& problem, const real_t* x) {
  const CecView view = problem.cec->view();
  return visit_cec2010(problem.function, [&](auto fn) {
    using Fn = decltype(fn);
    return reduce_host_chunks<Fn>(problem.dim, [&](Dim begin, Dim end) {
      typename Fn::Partial p{};
      for (Dim t = begin; t < end; ++t) Fn::accumulate(p, view, x, static_cast<double>(x[t]), t);
      return p;
    });
  });
}

}  // namespace chainsaw
