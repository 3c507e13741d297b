#include "core/algorithms/shade_population.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/algorithms/population_ops.hpp"
#include "core/error.hpp"

namespace chainsaw {

namespace {

// Draws of a trial stream: the memory slot, CR's normal (draws 2, 3), F's Cauchy tries, p, the
// p-best's rank, r1's and r2's rejection windows, j_rand, then one draw per gene.
constexpr std::uint64_t kSlotDraw = 0;
constexpr std::uint64_t kCrNormal = 1;  // normal_at index: draws 2 and 3
constexpr std::uint64_t kFDraws = 8, kFTries = 64;
constexpr std::uint64_t kPDraw = 80, kPbestDraw = 81;
constexpr std::uint64_t kR1Draws = 96, kR2Draws = 160, kIndexTries = 64;
constexpr std::uint64_t kJrandDraw = 240, kGeneDraws = 256;
constexpr double kPi = 3.14159265358979323846;

// Uniform over [0, n) without the excluded values: rejection over a window of draws, then the
// smallest free index (reached with probability < (3/4)^64 when n >= 4).
int pick_excluding(std::uint64_t key, std::uint64_t first_draw, int n, int a, int b) {
  for (std::uint64_t k = 0; k < kIndexTries; ++k) {
    const int c = static_cast<int>(below_from(u64_at(key, first_draw + k),
                                              static_cast<std::uint32_t>(n)));
    if (c != a && c != b) return c;
  }
  for (int c = 0; c < n; ++c)
    if (c != a && c != b) return c;
  return 0;
}

// F ~ Cauchy(location, 0.1), redrawn while <= 0 and cut at 1. After kFTries non-positive draws
// (probability < 0.5^64) F is the location itself, at least 0.01: never silently non-positive.
double draw_f(std::uint64_t key, double location) {
  for (std::uint64_t t = 0; t < kFTries; ++t) {
    const double u = uniform_at(key, kFDraws + t);
    const double f = location + 0.1 * std::tan(kPi * (u - 0.5));
    if (f > 0.0) return std::min(f, 1.0);
  }
  return std::min(1.0, std::max(location, 0.01));
}

}  // namespace

std::uint64_t shade_key(std::uint64_t seed, ShadePurpose purpose, std::uint64_t operation,
                        std::uint64_t index) {
  return derive_key(seed, static_cast<std::uint64_t>(purpose), operation, index);
}

MemoryUpdate shade_memory_update(const std::vector<double>& s_f, const std::vector<double>& s_cr,
                                 const std::vector<double>& improvements, bool lshade,
                                 double current_cr) {
  double total = 0.0;
  for (double w : improvements) total += w;
  double f_num = 0.0, f_den = 0.0, cr_mean = 0.0, cr_num = 0.0, cr_max = 0.0;
  for (std::size_t k = 0; k < s_f.size(); ++k) {
    const double w = improvements[k] / total;
    f_num += w * s_f[k] * s_f[k];
    f_den += w * s_f[k];
    cr_mean += w * s_cr[k];
    cr_num += w * s_cr[k] * s_cr[k];
    cr_max = std::max(cr_max, s_cr[k]);
  }
  MemoryUpdate u{f_num / f_den, cr_mean};
  if (lshade)
    u.cr = current_cr == kTerminalCr || cr_max == 0.0 ? kTerminalCr : cr_num / cr_mean;
  return u;
}

ShadePopulation::ShadePopulation(const ShadeSettings& settings, int capacity, Dim dim)
    : settings_(settings), capacity_(capacity), dim_(dim), size_(capacity) {
  const auto n = static_cast<std::size_t>(capacity);
  const auto d = static_cast<std::size_t>(dim);
  genes_.resize(n * d);
  trials_.resize(n * d);
  fitness_.assign(n, 0.0);
  trial_fitness_.assign(n, 0.0);
  trial_f_.assign(n, 0.0);
  trial_cr_.assign(n, 0.0);
  const long rows = std::lround(settings_.archive_rate * capacity);
  archive_.resize(static_cast<std::size_t>(std::max(1L, rows)) * d);
  reset_memories();
}

int ShadePopulation::archive_capacity() const {
  return static_cast<int>(std::lround(settings_.archive_rate * size_));
}

void ShadePopulation::set_memories(double f, double cr) {
  memory_f_.assign(static_cast<std::size_t>(settings_.memory_size), f);
  memory_cr_.assign(static_cast<std::size_t>(settings_.memory_size), cr);
  memory_index_ = 0;
}

void ShadePopulation::randomize(std::uint64_t seed, std::uint64_t operation, double lower,
                                double upper) {
  size_ = capacity_;
  const double width = upper - lower;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < size_; ++i) {
    const std::uint64_t key =
        shade_key(seed, ShadePurpose::kInitial, operation, static_cast<std::uint64_t>(i));
    real_t* x = row(i);
    for (Dim j = 0; j < dim_; ++j)
      x[j] = static_cast<real_t>(lower + width * uniform_at(key, static_cast<std::uint64_t>(j)));
  }
}

int ShadePopulation::best() const {
  return static_cast<int>(std::min_element(fitness_.begin(), fitness_.begin() + size_) -
                          fitness_.begin());
}

void ShadePopulation::make_trials(int count, std::uint64_t seed, std::uint64_t generation,
                                  double lower, double upper) {
  // The ranking of the generation (ties: the lower index), for the p-best choice.
  std::vector<int> ranking(static_cast<std::size_t>(size_));
  std::iota(ranking.begin(), ranking.end(), 0);
  std::stable_sort(ranking.begin(), ranking.end(),
                   [this](int a, int b) { return fitness_[a] < fitness_[b]; });
#pragma omp parallel for schedule(static)
  for (int i = 0; i < count; ++i)
    make_trial(i, shade_key(seed, ShadePurpose::kTrial, generation, static_cast<std::uint64_t>(i)),
               ranking, lower, upper);
}

void ShadePopulation::make_trial(int i, std::uint64_t key, const std::vector<int>& ranking,
                                 double lower, double upper) {
  const int slot = static_cast<int>(
      below_from(u64_at(key, kSlotDraw), static_cast<std::uint32_t>(settings_.memory_size)));
  const double m_cr = memory_cr_[slot];
  const double cr =
      m_cr == kTerminalCr ? 0.0 : std::min(1.0, std::max(0.0, m_cr + 0.1 * normal_at(key, kCrNormal)));
  const double f = draw_f(key, memory_f_[slot]);
  const double p = settings_.fixed_p ? settings_.p
                                     : 2.0 / size_ + uniform_at(key, kPDraw) *
                                                         (settings_.p_max - 2.0 / size_);
  const int top = std::min(size_, std::max(2, static_cast<int>(std::lround(p * size_))));
  const int pbest = ranking[below_from(u64_at(key, kPbestDraw), static_cast<std::uint32_t>(top))];
  const int r1 = pick_excluding(key, kR1Draws, size_, i, i);
  const int r2 = pick_excluding(key, kR2Draws, size_ + archive_size_, i, r1);
  const real_t* x = row(i);
  const real_t* best = row(pbest);
  const real_t* a = row(r1);
  const real_t* b = r2 < size_ ? row(r2) : archive_.data() + static_cast<Dim>(r2 - size_) * dim_;
  const Dim jrand = below_from(u64_at(key, kJrandDraw), static_cast<std::uint32_t>(dim_));
  real_t* u = trials_.data() + static_cast<Dim>(i) * dim_;
  for (Dim j = 0; j < dim_; ++j) {
    if (!(uniform_at(key, kGeneDraws + static_cast<std::uint64_t>(j)) < cr || j == jrand)) {
      u[j] = x[j];
      continue;
    }
    const double xj = static_cast<double>(x[j]);
    const double v = xj + f * (static_cast<double>(best[j]) - xj) +
                     f * (static_cast<double>(a[j]) - static_cast<double>(b[j]));
    u[j] = static_cast<real_t>(v < lower ? 0.5 * (lower + xj) : v > upper ? 0.5 * (upper + xj) : v);
  }
  trial_f_[i] = f;
  trial_cr_[i] = cr;
}

// Appends x, or once the archive is full replaces a random member (Tanabe's reference code).
void ShadePopulation::archive_insert(const real_t* x, std::uint64_t key, std::uint64_t& draws) {
  const int cap = archive_capacity();
  if (cap <= 0) return;
  int slot = archive_size_;
  if (archive_size_ < cap) {
    ++archive_size_;
  } else {
    slot = static_cast<int>(below_from(u64_at(key, draws++), static_cast<std::uint32_t>(cap)));
  }
  std::copy_n(x, dim_, archive_.data() + static_cast<Dim>(slot) * dim_);
}

void ShadePopulation::select(int count, std::uint64_t seed, std::uint64_t generation) {
  std::vector<double> s_f, s_cr, improvements;
  const std::uint64_t key = shade_key(seed, ShadePurpose::kArchive, generation, 0);
  std::uint64_t draws = 0;
  for (int i = 0; i < count; ++i) {
    const double ft = trial_fitness_[i];
    if (!(ft <= fitness_[i])) continue;
    if (ft < fitness_[i]) {
      archive_insert(row(i), key, draws);
      s_f.push_back(trial_f_[i]);
      s_cr.push_back(trial_cr_[i]);
      improvements.push_back(fitness_[i] - ft);
    }
    std::copy_n(trials_.data() + static_cast<Dim>(i) * dim_, dim_, row(i));
    fitness_[i] = ft;
  }
  if (s_f.empty()) return;
  const MemoryUpdate m = shade_memory_update(s_f, s_cr, improvements, settings_.lshade,
                                             memory_cr_[memory_index_]);
  memory_f_[memory_index_] = m.f;
  memory_cr_[memory_index_] = m.cr;
  memory_index_ = (memory_index_ + 1) % settings_.memory_size;
}

void ShadePopulation::shrink(int size, std::uint64_t seed, std::uint64_t generation) {
  if (size >= size_) return;
  std::vector<int> ranking(static_cast<std::size_t>(size_));
  std::iota(ranking.begin(), ranking.end(), 0);
  std::stable_sort(ranking.begin(), ranking.end(),
                   [this](int a, int b) { return fitness_[a] < fitness_[b]; });
  std::vector<char> keep(static_cast<std::size_t>(size_), 0);
  for (int r = 0; r < size; ++r) keep[ranking[r]] = 1;
  int next = 0;
  for (int i = 0; i < size_; ++i) {  // the survivors keep their order
    if (!keep[i]) continue;
    if (next != i) {
      std::copy_n(row(i), dim_, row(next));
      fitness_[next] = fitness_[i];
    }
    ++next;
  }
  size_ = size;
  // The archive follows the population: random members leave (swapped with the last).
  const std::uint64_t key = shade_key(seed, ShadePurpose::kArchive, generation, 1);
  for (std::uint64_t k = 0; archive_size_ > std::max(0, archive_capacity()); ++k) {
    const int gone = static_cast<int>(
        below_from(u64_at(key, k), static_cast<std::uint32_t>(archive_size_)));
    --archive_size_;
    if (gone != archive_size_)
      std::copy_n(archive_.data() + static_cast<Dim>(archive_size_) * dim_, dim_,
                  archive_.data() + static_cast<Dim>(gone) * dim_);
  }
}

void ShadePopulation::save(AlgorithmState& s, const std::string& prefix) const {
  s.genes[prefix + "population"] = genes_;
  s.reals[prefix + "fitness"] = fitness_;
  s.genes[prefix + "archive"] = archive_;
  s.reals[prefix + "memory_f"] = memory_f_;
  s.reals[prefix + "memory_cr"] = memory_cr_;
  s.integers[prefix + "population_size"] = size_;
  s.integers[prefix + "archive_size"] = archive_size_;
  s.integers[prefix + "memory_index"] = memory_index_;
}

void ShadePopulation::restore(const AlgorithmState& s, const std::string& prefix) {
  genes_ = state_genes(s, prefix + "population", genes_.size());
  fitness_ = state_reals(s, prefix + "fitness", fitness_.size());
  archive_ = state_genes(s, prefix + "archive", archive_.size());
  memory_f_ = state_reals(s, prefix + "memory_f", memory_f_.size());
  memory_cr_ = state_reals(s, prefix + "memory_cr", memory_cr_.size());
  size_ = static_cast<int>(state_integer(s, prefix + "population_size"));
  archive_size_ = static_cast<int>(state_integer(s, prefix + "archive_size"));
  memory_index_ = static_cast<int>(state_integer(s, prefix + "memory_index"));
  if (size_ < 1 || size_ > capacity_ || archive_size_ < 0 ||
      static_cast<std::size_t>(archive_size_) * static_cast<std::size_t>(dim_) > archive_.size() ||
      memory_index_ < 0 || memory_index_ >= static_cast<int>(memory_f_.size()))
    throw UserError("the checkpoint's SHADE population has sizes outside the run's");
}

}  // namespace chainsaw
