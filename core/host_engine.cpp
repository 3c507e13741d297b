#include "core/host_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "fitness/host_fitness.hpp"
#include "localsearch/solis_wets.hpp"
#include "ssga/blx_alpha.hpp"

namespace chainsaw {

namespace {
Dim chunk_end(Dim chunk, Dim dim) { return std::min(dim, (chunk + 1) * kHostChunk); }

// f of genes x just made by a fused make-and-evaluate pass: its partials, or for CEC 2010 (whose
// pass only made the genes, see visit_function) the stored vector evaluated.
template <class Fn>
double fused_fitness(const Problem& problem, const typename Fn::Partial* partials, Dim chunks,
                     const real_t* x) {
  return problem.is_cec2010() ? evaluate_host(problem, x)
                              : finish_chunks<Fn>(partials, chunks, problem.dim);
}
}  // namespace

// A user objective takes rows with a pitch: slots that follow each other in memory go to it
// in one call (the whole initial population; children where their padding slots are adjacent).
void HostEngine::evaluate_external_slots(const int* slots, int count, double* fitness) {
  for (int first = 0; first < count;) {
    int rows = 1;
    while (first + rows < count && slots[first + rows] == slots[first] + rows) ++rows;
    invalid_ += evaluate_external_host(problem_, genes_of(slots[first]), dim_, rows,
                                       fitness + first);
    for (int r = 0; r < rows; ++r) fitness_[slots[first + r]] = fitness[first + r];
    first += rows;
  }
}

// Every parallel region has an `if`: a region costs microseconds to open (milliseconds on a
// loaded machine), more than a single 4096-gene chunk takes to compute.

HostEngine::HostEngine(const Config& config, const Problem& problem, Communicator* comm)
    : problem_(problem),
      comm_(comm),
      dim_(problem.dim),
      capacity_(config.capacity()),
      blx_alpha_(config.blx_alpha),
      sw_params_(config.solis_wets),
      seed_(config.seed),
      genes_(static_cast<size_t>(capacity_) * dim_),
      bias_(static_cast<size_t>(capacity_) * dim_),
      fitness_(static_cast<size_t>(capacity_), std::numeric_limits<double>::infinity()),
      current_(static_cast<size_t>(dim_)),
      candidate_(static_cast<size_t>(dim_)),
      dif_(static_cast<size_t>(dim_)) {
  if (comm_ && comm_->size() > 1) throw UserError("--distribute shard: not built yet");
}

std::uint64_t HostEngine::chunk_key(RngPurpose purpose, std::uint64_t operation,
                                    Dim chunk) const {
  return derive_key(seed_, static_cast<std::uint64_t>(purpose), operation,
                    static_cast<std::uint64_t>(chunk));
}

void HostEngine::initialize(const std::vector<int>& slots, double* fitness) {
  const auto count = static_cast<Dim>(slots.size());
  const Dim chunks = host_chunk_count(dim_);
  const std::uint64_t first_op = operation_;
  operation_ += static_cast<std::uint64_t>(count);
  const double lower = problem_.lower, width = problem_.width();
  // Random genes and their f in one sweep: the initial population counts as fitness.
  ScopedBucket timer(profile_, Bucket::kFitness);
  visit_function(problem_.function, [&](auto fn) {
    using Fn = decltype(fn);
    std::vector<typename Fn::Partial> partials(static_cast<size_t>(count * chunks));
#pragma omp parallel for collapse(2) schedule(static) if (count * chunks > 1)
    for (Dim i = 0; i < count; ++i) {
      for (Dim c = 0; c < chunks; ++c) {
        real_t* x = genes_of(slots[static_cast<size_t>(i)]);
        CounterRng rng(chunk_key(RngPurpose::kInitialGenes, first_op + i, c));
        partials[i * chunks + c] =
            accumulate_chunk<Fn>(problem_.shift, c * kHostChunk, chunk_end(c, dim_), [&](Dim j) {
              x[j] = static_cast<real_t>(
                  clamp_to(lower + width * rng.uniform(), problem_.lower, problem_.upper));
              return x[j];
            });
      }
    }
    if (problem_.is_external())
      return evaluate_external_slots(slots.data(), static_cast<int>(count), fitness);
    for (Dim i = 0; i < count; ++i) {
      fitness[i] = fused_fitness<Fn>(problem_, &partials[i * chunks], chunks, genes_of(slots[i]));
      fitness_[slots[i]] = fitness[i];
    }
  });
}

void HostEngine::distances(const int* from, const int* to, int count, double* out) {
  ScopedBucket timer(profile_, Bucket::kDistances);
  const Dim chunks = host_chunk_count(dim_);
  std::vector<double> partials(static_cast<size_t>(count * chunks));
#pragma omp parallel for collapse(2) schedule(static) if (count * chunks > 1)
  for (Dim i = 0; i < count; ++i) {
    for (Dim c = 0; c < chunks; ++c) {
      const real_t* a = genes_of(from[i]);
      const real_t* b = genes_of(to[i]);
      double sum = 0.0;
      for (Dim j = c * kHostChunk, end = chunk_end(c, dim_); j < end; ++j) {
        const double d = static_cast<double>(a[j]) - static_cast<double>(b[j]);
        sum += d * d;
      }
      partials[i * chunks + c] = sum;
    }
  }
  for (Dim i = 0; i < count; ++i) {
    double sum = 0.0;
    for (Dim c = 0; c < chunks; ++c) sum += partials[i * chunks + c];
    out[i] = std::sqrt(sum);
  }
}

void HostEngine::make_children(const ChildSpec* children, int count, double* fitness) {
  const Dim chunks = host_chunk_count(dim_);
  const std::uint64_t first_op = operation_;
  operation_ += static_cast<std::uint64_t>(count);
  const double lower = problem_.lower, upper = problem_.upper;
  visit_function(problem_.function, [&](auto fn) {
    using Fn = decltype(fn);
    std::vector<typename Fn::Partial> partials(static_cast<size_t>(count * chunks));
    std::optional<ScopedBucket> timer(std::in_place, profile_, Bucket::kCrossover);
#pragma omp parallel for collapse(2) schedule(static) if (count * chunks > 1)
    for (Dim i = 0; i < count; ++i) {
      for (Dim c = 0; c < chunks; ++c) {
        const ChildSpec& spec = children[i];
        const real_t* a = genes_of(spec.mother);
        const real_t* b = genes_of(spec.father);
        real_t* child = genes_of(spec.slot);
        CounterRng rng(chunk_key(RngPurpose::kCrossover, first_op + i, c));
        partials[i * chunks + c] =
            accumulate_chunk<Fn>(problem_.shift, c * kHostChunk, chunk_end(c, dim_), [&](Dim j) {
              real_t g = blx_alpha_gene(a[j], b[j], blx_alpha_, lower, upper, rng.uniform());
              if (j == spec.mutated_gene) g = bga_mutate_gene(g, spec.mutation_step, lower, upper);
              child[j] = g;
              return g;
            });
      }
    }
    // CEC 2010's and a user objective's pass only made the genes: their evaluation is a fitness pass of its own.
    if (problem_.evaluates_stored_vectors()) timer.emplace(profile_, Bucket::kFitness);
    if (problem_.is_external()) {
      std::vector<int> slots(static_cast<size_t>(count));
      for (int i = 0; i < count; ++i) slots[i] = children[i].slot;
      return evaluate_external_slots(slots.data(), count, fitness);
    }
    for (Dim i = 0; i < count; ++i) {
      fitness[i] =
          fused_fitness<Fn>(problem_, &partials[i * chunks], chunks, genes_of(children[i].slot));
      fitness_[children[i].slot] = fitness[i];
    }
  });
}

LocalSearchResult HostEngine::solis_wets(const LocalSearchRequest& request) {
  const Dim chunks = host_chunk_count(dim_);
  const double lower = problem_.lower, upper = problem_.upper;
  real_t* x = genes_of(request.slot);
  real_t* bias = bias_of(request.slot);
  {
    ScopedBucket timer(profile_, Bucket::kSwMoves);
    if (!request.continue_chain) std::fill(bias, bias + dim_, real_t{0});
    std::copy(x, x + dim_, current_.begin());
  }

  LocalSearchResult result;
  result.state = request.state;
  double f_current = request.fitness;

  visit_function(problem_.function, [&](auto fn) {
    using Fn = decltype(fn);
    std::vector<typename Fn::Partial> partials(static_cast<size_t>(chunks));
    // One candidate: forward (draws dif) or backward (reuses it); returns its fitness.
    auto evaluate_move = [&](bool forward, std::uint64_t op, double rho) {
      real_t* cur = current_.data();
      real_t* cand = candidate_.data();
      real_t* dif = dif_.data();
      std::optional<ScopedBucket> timer(std::in_place, profile_, Bucket::kSwMoves);
#pragma omp parallel for schedule(static) if (chunks > 1)
      for (Dim c = 0; c < chunks; ++c) {
        CounterRng rng(chunk_key(RngPurpose::kSolisWets, op, c));
        partials[c] =
            accumulate_chunk<Fn>(problem_.shift, c * kHostChunk, chunk_end(c, dim_), [&](Dim j) {
              if (forward) {
                dif[j] = static_cast<real_t>(rho * rng.normal());
                cand[j] = sw_forward_gene(cur[j], bias[j], dif[j], lower, upper);
              } else {
                cand[j] = sw_backward_gene(cur[j], bias[j], dif[j], lower, upper);
              }
              return cand[j];
            });
      }
      if (problem_.evaluates_stored_vectors()) timer.emplace(profile_, Bucket::kFitness);
      if (problem_.is_external()) {
        double f = 0.0;
        invalid_ += evaluate_external_host(problem_, candidate_.data(), dim_, 1, &f);
        return f;
      }
      return fused_fitness<Fn>(problem_, partials.data(), chunks, candidate_.data());
    };
    auto update_bias = [&](SwOutcome outcome) {
      const real_t* dif = dif_.data();
      ScopedBucket timer(profile_, Bucket::kSwMoves);
#pragma omp parallel for schedule(static) if (dim_ > kHostChunk)
      for (Dim j = 0; j < dim_; ++j) {
        if (outcome == SwOutcome::kForwardSuccess)
          bias[j] = sw_bias_after_forward_success(bias[j], dif[j]);
        else if (outcome == SwOutcome::kBackwardSuccess)
          bias[j] = sw_bias_after_backward_success(bias[j], dif[j]);
        else
          bias[j] = sw_bias_after_failure(bias[j]);
      }
    };

    while (result.evaluations < request.evaluations) {
      const std::uint64_t op = operation_++;
      SwOutcome outcome = SwOutcome::kNoDecision;
      const double f_forward = evaluate_move(true, op, result.state.rho);
      ++result.evaluations;
      if (f_forward < f_current) {
        outcome = SwOutcome::kForwardSuccess;
        f_current = f_forward;
        current_.swap(candidate_);
      } else if (result.evaluations < request.evaluations) {
        const double f_backward = evaluate_move(false, op, result.state.rho);
        ++result.evaluations;
        if (f_backward < f_current) {
          outcome = SwOutcome::kBackwardSuccess;
          f_current = f_backward;
          current_.swap(candidate_);
        } else {
          outcome = SwOutcome::kFailure;
        }
      }
      if (outcome != SwOutcome::kNoDecision) update_bias(outcome);
      sw_adapt(result.state, outcome, sw_params_);
    }
  });

  if (f_current < request.fitness) {
    ScopedBucket timer(profile_, Bucket::kSwMoves);
    std::copy(current_.begin(), current_.end(), x);
    fitness_[request.slot] = f_current;
  }
  result.fitness = std::min(f_current, request.fitness);
  return result;
}

void HostEngine::sort_slots(int* order) {
  ScopedBucket timer(profile_, Bucket::kSort);
  std::iota(order, order + capacity_, 0);
  std::sort(order, order + capacity_, [this](int a, int b) {
    return fitness_[a] < fitness_[b] || (fitness_[a] == fitness_[b] && a < b);
  });
}

void HostEngine::read_genes(int slot, real_t* out) {
  const real_t* x = genes_of(slot);
  std::copy(x, x + dim_, out);
}

void HostEngine::write_genes(int slot, const real_t* genes) {
  ScopedBucket timer(profile_, Bucket::kFitness);
  std::copy(genes, genes + dim_, genes_of(slot));
  if (problem_.is_external()) {
    double f = 0.0;
    evaluate_external_slots(&slot, 1, &f);
    return;
  }
  fitness_[slot] = evaluate_host(problem_, genes_of(slot));
}

double HostEngine::distance_to_optimum(int slot) {
  ScopedBucket timer(profile_, Bucket::kDistances);
  if (problem_.is_external()) return std::numeric_limits<double>::quiet_NaN();  // o unknown
  const real_t* x = genes_of(slot);
  const Dim chunks = host_chunk_count(dim_);
  std::vector<double> partials(static_cast<size_t>(chunks));
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (Dim c = 0; c < chunks; ++c) {
    double sum = 0.0;
    for (Dim j = c * kHostChunk, end = chunk_end(c, dim_); j < end; ++j) {
      const double d = static_cast<double>(x[j]) - static_cast<double>(problem_.shift(j));
      sum += d * d;
    }
    partials[c] = sum;
  }
  return std::sqrt(std::accumulate(partials.begin(), partials.end(), 0.0));
}

void HostEngine::read_slot_array(SlotArray array, int slot, Dim first, Dim count, real_t* out) {
  const real_t* src = array_of(array, slot) + first;
  std::copy(src, src + count, out);
}

void HostEngine::write_slot_array(SlotArray array, int slot, Dim first, Dim count,
                                  const real_t* in) {
  std::copy(in, in + count, array_of(array, slot) + first);
}

void HostEngine::restore_fitness(const double* fitness) {
  std::copy(fitness, fitness + capacity_, fitness_.begin());
}

// The operation counter is the whole generator state: every stream is keyed by it.
namespace {
constexpr const char* kHostRngLayout = "splitmix64-counter/v1";
}

RngSnapshot HostEngine::save_rng() {
  RngSnapshot s{kHostRngLayout, std::vector<std::uint8_t>(sizeof(operation_))};
  std::memcpy(s.bytes.data(), &operation_, sizeof(operation_));
  return s;
}

void HostEngine::restore_rng(const RngSnapshot& snapshot) {
  if (snapshot.layout != kHostRngLayout || snapshot.bytes.size() != sizeof(operation_))
    throw UserError("the checkpoint's random-number state (" + snapshot.layout +
                    ") is not the CPU backend's (" + kHostRngLayout + ")");
  std::memcpy(&operation_, snapshot.bytes.data(), sizeof(operation_));
}

}  // namespace chainsaw
