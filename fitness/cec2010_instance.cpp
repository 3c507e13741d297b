#include "fitness/cec2010_instance.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "fitness/host_fitness.hpp"

namespace chainsaw {

namespace {

constexpr int kM = kCecGroup;

// Orthonormalises the columns of a row-major n x n matrix in place: modified Gram-Schmidt,
// applied twice ("twice is enough", Giraud et al. 2005), in double.
void orthonormalise_columns(std::vector<double>& a, int n) {
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

std::vector<double> generate_rotation(std::uint64_t seed) {
  CounterRng rng(derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCecRotation)));
  std::vector<double> m(static_cast<size_t>(kM * kM));
  for (double& v : m) v = rng.normal();
  orthonormalise_columns(m, kM);
  return m;
}

// Fisher-Yates from one counter-based stream: sequential, so it does not depend on threads.
std::vector<std::int32_t> generate_permutation(Dim dim, std::uint64_t seed) {
  std::vector<std::int32_t> p(static_cast<size_t>(dim));
  for (Dim k = 0; k < dim; ++k) p[k] = static_cast<std::int32_t>(k);
  CounterRng rng(derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kCecPermutation)));
  for (Dim k = dim - 1; k > 0; --k)
    std::swap(p[k], p[static_cast<Dim>(rng.below(static_cast<std::uint64_t>(k + 1)))]);
  return p;
}

// o_j uniform in the whole domain, as in the CEC 2010 reference code; one stream per 4096
// variables, so it can be drawn in parallel.
std::vector<real_t> generate_shift(const FunctionInfo& info, Dim dim, std::uint64_t seed) {
  std::vector<real_t> o(static_cast<size_t>(dim));
  const Dim chunks = host_chunk_count(dim);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (Dim c = 0; c < chunks; ++c) {
    CounterRng rng(derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kShift), c));
    const Dim end = std::min(dim, (c + 1) * kHostChunk);
    for (Dim j = c * kHostChunk; j < end; ++j)
      o[j] = static_cast<real_t>(
          clamp_to(info.lower + (info.upper - info.lower) * rng.uniform(), info.lower, info.upper));
  }
  return o;
}

std::vector<std::int32_t> inverse_of(const std::vector<std::int32_t>& perm) {
  std::vector<std::int32_t> inv(perm.size());
  for (size_t k = 0; k < perm.size(); ++k)
    inv[static_cast<size_t>(perm[k])] = static_cast<std::int32_t>(k);
  return inv;
}

bool has_groups(CecLayout layout) {
  return layout != CecLayout::kSeparable && layout != CecLayout::kNonSeparable;
}

// Whitespace-separated tokens; '#' starts a comment that runs to the end of the line.
class TokenReader {
 public:
  explicit TokenReader(const std::string& path) : path_(path), in_(path) {
    if (!in_) throw UserError("--instance = " + path + ": cannot be opened");
  }
  bool next(std::string& token) {
    while (true) {
      if (line_ >> token) {
        if (token[0] != '#') return true;
        line_.clear();
        line_.str("");
      }
      std::string text;
      if (!std::getline(in_, text)) return false;
      line_.clear();
      line_.str(text);
    }
  }
  template <class T>
  T number(const char* section, Dim index) {
    std::string token;
    if (!next(token))
      fail(std::string(section) + " ends after " + std::to_string(index) + " values");
    std::istringstream s(token);
    T value{};
    if (!(s >> value) || !s.eof())
      fail(std::string(section) + " value " + std::to_string(index + 1) + " '" + token +
           "' is not a number");
    return value;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError("--instance = " + path_ + ": " + what);
  }

 private:
  std::string path_;
  std::ifstream in_;
  std::istringstream line_;
};

}  // namespace

CecLayout cec2010_layout(FunctionId id) {
  return visit_cec2010(id, [](auto fn) { return decltype(fn)::kLayout; });
}

CecView CecInstance::view() const {
  CecView v;
  v.dim = dim;
  v.groups = groups;
  v.rest_begin = groups * kM;
  v.o = o.data();
  v.perm = perm.empty() ? nullptr : perm.data();
  v.inverse = inverse.empty() ? nullptr : inverse.data();
  v.rotation = rotation.empty() ? nullptr : rotation.data();
  return v;
}

CecInstance CecInstance::generate(const FunctionInfo& info, Dim dim, std::uint64_t seed) {
  const CecLayout layout = cec2010_layout(info.id);
  CecInstance inst;
  inst.dim = dim;
  inst.groups = cec_groups(layout, dim);
  inst.o = generate_shift(info, dim, seed);
  if (has_groups(layout)) {
    inst.perm = generate_permutation(dim, seed);
    inst.inverse = inverse_of(inst.perm);
    inst.rotation = generate_rotation(seed);
  }
  return inst;
}

CecInstance CecInstance::load(const std::string& path, const FunctionInfo& info, Dim dim,
                              std::uint64_t seed) {
  const CecLayout layout = cec2010_layout(info.id);
  TokenReader in(path);
  std::vector<real_t> o;
  std::vector<std::int64_t> perm;
  std::vector<double> rotation;
  std::string section;
  while (in.next(section)) {
    if (section == "dim") {
      const auto d = in.number<std::int64_t>("dim", 0);
      if (d != dim)
        in.fail("dim " + std::to_string(d) + " does not match --dim = " + std::to_string(dim));
    } else if (section == "shift") {
      o.resize(static_cast<size_t>(dim));
      for (Dim j = 0; j < dim; ++j) {
        const double v = in.number<double>("shift", j);
        if (!(v >= info.lower && v <= info.upper))
          in.fail("shift value " + std::to_string(j + 1) + " = " + std::to_string(v) +
                  " is outside the domain of " + info.name);
        o[j] = static_cast<real_t>(v);
      }
    } else if (section == "permutation") {
      perm.resize(static_cast<size_t>(dim));
      for (Dim k = 0; k < dim; ++k) perm[k] = in.number<std::int64_t>("permutation", k);
    } else if (section == "rotation") {
      rotation.resize(static_cast<size_t>(kM * kM));
      for (Dim k = 0; k < kM * kM; ++k) rotation[k] = in.number<double>("rotation", k);
    } else {
      in.fail("unknown section '" + section + "' (known: dim, shift, permutation, rotation)");
    }
  }

  CecInstance inst = generate(info, dim, seed);
  if (!o.empty()) inst.o = std::move(o);
  if (!has_groups(layout)) return inst;
  if (!perm.empty()) {
    // 0-based (0..D-1) or 1-based (1..D, MATLAB's): a permutation holds exactly one of 0 and D.
    std::int64_t lo = perm[0], hi = perm[0];
    for (auto v : perm) lo = std::min(lo, v), hi = std::max(hi, v);
    const std::int64_t base = lo == 1 && hi == dim ? 1 : 0;
    std::vector<char> seen(static_cast<size_t>(dim), 0);
    for (Dim k = 0; k < dim; ++k) {
      const std::int64_t j = perm[k] - base;
      if (j < 0 || j >= dim || seen[j])
        in.fail("permutation is not a permutation of 0..D-1 (or 1..D): value " +
                std::to_string(k + 1) + " = " + std::to_string(perm[k]));
      seen[j] = 1;
      inst.perm[k] = static_cast<std::int32_t>(j);
    }
    inst.inverse = inverse_of(inst.perm);
  }
  if (!rotation.empty()) {
    const double error = orthogonality_error(rotation, kM);
    if (!(error <= 1e-6))
      in.fail("rotation is not orthogonal: max |M M^T - I| = " + std::to_string(error));
    inst.rotation = std::move(rotation);
  }
  return inst;
}

double orthogonality_error(const std::vector<double>& m, int n) {
  double worst = 0.0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      double dot = 0.0;
      for (int c = 0; c < n; ++c) dot += m[i * n + c] * m[k * n + c];
      const double e = std::fabs(dot - (i == k ? 1.0 : 0.0));
      if (!(e <= worst)) worst = e;  // NaN propagates as the worst
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
