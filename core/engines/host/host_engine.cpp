#include "core/engines/host/host_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>

#include "core/error.hpp"
#include "core/population.hpp"
#include "core/engines/host/host_passes.hpp"
#include "core/rng.hpp"
#include "fitness/host_fitness.hpp"
#include "core/engines/host/copy_bandwidth.hpp"
#include "localsearch/solis_wets.hpp"

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

// A user objective gets all the slots in one call, so that it can evaluate them in parallel (a
// simulator, an ask/tell loop): in place when they follow each other in memory (the initial
// population), else copied into one block first (children, whose padding slots are in the
// order the population's ranks left them). The values are those of row-by-row calls.
void HostEngine::evaluate_external_slots(const int* slots, int count, double* fitness) {
  if (count <= 0) return;
  bool adjacent = true;
  for (int i = 1; i < count; ++i) adjacent = adjacent && slots[i] == slots[0] + i;
  if (adjacent) {
    invalid_ += evaluate_external_host(problem_, genes_of(slots[0]), dim_, count, fitness);
  } else {
    const auto row = static_cast<std::size_t>(dim_);
    std::vector<real_t> block(static_cast<std::size_t>(count) * row);
    for (int i = 0; i < count; ++i)
      std::copy_n(genes_of(slots[i]), dim_, block.begin() + static_cast<std::ptrdiff_t>(i * row));
    invalid_ += evaluate_external_host(problem_, block.data(), dim_, count, fitness);
  }
  for (int i = 0; i < count; ++i) fitness_[slots[i]] = fitness[i];
}

// A sharded rank sees only its slice, so every term of f must be a function of one gene and
// its index, reduced through chunk partials: the paper's six functions.
void check_shardable(const Problem& problem) {
  if (problem.is_cec2010())
    throw UserError(std::string("--distribute shard: ") + function_info(problem.function).name +
                    " is evaluated on whole vectors (CEC 2010 functions permute, group and "
                    "rotate genes from the whole vector); use --distribute islands or one rank");
  if (problem.is_janssen())
    throw UserError(std::string("--distribute shard: ") + function_info(problem.function).name +
                    " is evaluated on whole vectors (it rotates x whole); use --distribute "
                    "islands or one rank");
  if (problem.is_external())
    throw UserError("--distribute shard: a user objective is evaluated on whole vectors; use "
                    "--distribute islands or one rank");
}

// Every parallel region has an `if`: a region costs microseconds to open (milliseconds on a
// loaded machine), more than a single 4096-gene chunk takes to compute.

HostEngine::HostEngine(const Config& config, const Problem& problem, Communicator* comm)
    : problem_(problem),
      dim_(problem.dim),
      capacity_(config.capacity()),
      blx_alpha_(config.blx_alpha),
      sw_params_(config.solis_wets),
      seed_(config.seed),
      fitness_(static_cast<size_t>(capacity_), std::numeric_limits<double>::infinity()) {
  const int ranks = comm == nullptr ? 1 : comm->size();
  if (ranks > 1) {
    check_shardable(problem);
    comm_ = comm;
  }
  for (int r = 0; r < ranks; ++r) slices_.push_back(host_shard_slice(dim_, r, ranks));
  // A rank may hold no chunk (more ranks than chunks): it then only joins the exchanges.
  slice_ = slices_[static_cast<size_t>(comm_ == nullptr ? 0 : comm_->rank())];
  chunks_ = host_chunk_count(dim_);
  own_chunks_ = host_chunk_count(slice_.count);
  genes_.resize(static_cast<size_t>(capacity_) * slice_.count);
  bias_.resize(static_cast<size_t>(capacity_) * slice_.count);
  current_.resize(static_cast<size_t>(slice_.count));
  candidate_.resize(static_cast<size_t>(slice_.count));
  dif_.resize(static_cast<size_t>(slice_.count));
  // o of the slice, read by the passes instead of hashed per gene (the same values).
  if (!problem_.evaluates_stored_vectors()) {
    o_values_.resize(static_cast<size_t>(slice_.count));
#pragma omp parallel for schedule(static) if (own_chunks_ > 1)
    for (Dim k = 0; k < own_chunks_; ++k) {
      const OwnChunk c = own_chunk(k);
      for (Dim j = c.begin; j < c.end; ++j) o_values_[c.local + (j - c.begin)] = problem_.shift(j);
    }
  }
}

ChunkSpan HostEngine::span_of(const OwnChunk& c) const {
  return {c.begin, c.end, o_values_.empty() ? nullptr : o_values_.data() + c.local};
}

HostEngine::OwnChunk HostEngine::own_chunk(Dim k) const {
  const Dim chunk = slice_.first / kHostChunk + k;
  const Dim begin = chunk * kHostChunk;
  return {chunk, begin, chunk_end(chunk, dim_), begin - slice_.first};
}

// The one exchange of a sharded pass. In: this rank's chunk partials of `items` individuals
// (item i's k-th own chunk at i * own_chunks_ + k); out: every chunk's, laid out as on one
// rank (item i's chunk c at i * chunks_ + c), to be folded exactly as there.
template <class Partial>
void HostEngine::gather_chunks(std::vector<Partial>& partials, Dim items) {
  if (comm_ == nullptr) return;
  ScopedBucket timer(profile_, Bucket::kCommunication);
  std::vector<std::size_t> counts;
  for (const GeneSlice& s : slices_)
    counts.push_back(static_cast<std::size_t>(items * host_chunk_count(s.count)));
  const std::vector<Partial> gathered = comm_->allgather(partials.data(), counts);
  partials.resize(static_cast<size_t>(items * chunks_));
  std::size_t at = 0;
  for (const GeneSlice& s : slices_) {
    const Dim first = s.first / kHostChunk, count = host_chunk_count(s.count);
    for (Dim i = 0; i < items; ++i)
      for (Dim k = 0; k < count; ++k) partials[i * chunks_ + first + k] = gathered[at++];
  }
}

std::uint64_t HostEngine::chunk_key(RngPurpose purpose, std::uint64_t operation,
                                    Dim chunk) const {
  return derive_key(seed_, static_cast<std::uint64_t>(purpose), operation,
                    static_cast<std::uint64_t>(chunk));
}

void HostEngine::initialize(const std::vector<int>& slots, double* fitness) {
  const auto count = static_cast<Dim>(slots.size());
  count_vectors(profile_, Bucket::kFitness, static_cast<double>(count), slice_.count);
  const Dim own = own_chunks_;
  const std::uint64_t first_op = operation_;
  operation_ += static_cast<std::uint64_t>(count);
  // Random genes and their f in one sweep: the initial population counts as fitness.
  ScopedBucket timer(profile_, Bucket::kFitness);
  visit_function(problem_.function, [&](auto fn) {
    using Fn = decltype(fn);
    std::vector<typename Fn::Partial> partials(static_cast<size_t>(count * own));
#pragma omp parallel for collapse(2) schedule(static) if (count * own > 1)
    for (Dim i = 0; i < count; ++i) {
      for (Dim k = 0; k < own; ++k) {
        const OwnChunk c = own_chunk(k);
        real_t* x = genes_of(slots[static_cast<size_t>(i)]) + c.local;  // gene c.begin
        partials[i * own + k] =
            random_genes_chunk(problem_, span_of(c),
                               chunk_key(RngPurpose::kInitialGenes, first_op + i, c.chunk), x)
                .as<typename Fn::Partial>();
      }
    }
    if (problem_.is_external())
      return evaluate_external_slots(slots.data(), static_cast<int>(count), fitness);
    gather_chunks(partials, count);
    for (Dim i = 0; i < count; ++i) {
      fitness[i] =
          fused_fitness<Fn>(problem_, &partials[i * chunks_], chunks_, genes_of(slots[i]));
      fitness_[slots[i]] = fitness[i];
    }
  });
}

void HostEngine::distances(const int* from, const int* to, int count, double* out) {
  ScopedBucket timer(profile_, Bucket::kDistances);
  if (profile_)
    count_vectors(profile_, Bucket::kDistances, distinct_rows(from, to, count), slice_.count);
  const Dim own = own_chunks_;
  std::vector<double> partials(static_cast<size_t>(count * own));
#pragma omp parallel for collapse(2) schedule(static) if (count * own > 1)
  for (Dim i = 0; i < count; ++i) {
    for (Dim k = 0; k < own; ++k) {
      const OwnChunk c = own_chunk(k);
      partials[i * own + k] = squared_distance_chunk(genes_of(from[i]) + c.local,
                                                     genes_of(to[i]) + c.local, c.end - c.begin);
    }
  }
  gather_chunks(partials, count);
  for (Dim i = 0; i < count; ++i) {
    double sum = 0.0;
    for (Dim c = 0; c < chunks_; ++c) sum += partials[i * chunks_ + c];
    out[i] = std::sqrt(sum);
  }
}

void HostEngine::make_children(const ChildSpec* children, int count, double* fitness) {
  count_vectors(profile_, Bucket::kCrossover, 3.0 * count, slice_.count);
  const Dim own = own_chunks_;
  const std::uint64_t first_op = operation_;
  operation_ += static_cast<std::uint64_t>(count);
  visit_function(problem_.function, [&](auto fn) {
    using Fn = decltype(fn);
    std::vector<typename Fn::Partial> partials(static_cast<size_t>(count * own));
    std::optional<ScopedBucket> timer(std::in_place, profile_, Bucket::kCrossover);
#pragma omp parallel for collapse(2) schedule(static) if (count * own > 1)
    for (Dim i = 0; i < count; ++i) {
      for (Dim k = 0; k < own; ++k) {
        const OwnChunk c = own_chunk(k);
        const ChildSpec& spec = children[i];
        const real_t* a = genes_of(spec.mother) + c.local;  // gene c.begin
        const real_t* b = genes_of(spec.father) + c.local;
        real_t* child = genes_of(spec.slot) + c.local;
        // The mutated gene lies in one rank's slice: only that rank sees its index here.
        const Dim mutated = spec.mutated_gene >= c.begin && spec.mutated_gene < c.end
                                ? spec.mutated_gene - c.begin
                                : -1;
        partials[i * own + k] =
            crossover_chunk(problem_, span_of(c),
                            chunk_key(RngPurpose::kCrossover, first_op + i, c.chunk), a, b,
                            blx_alpha_, mutated, spec.mutation_step, child)
                .as<typename Fn::Partial>();
      }
    }
    // CEC 2010's and a user objective's pass only made the genes: their evaluation is a fitness pass of its own.
    if (problem_.evaluates_stored_vectors()) timer.emplace(profile_, Bucket::kFitness);
    if (problem_.is_external()) {
      std::vector<int> slots(static_cast<size_t>(count));
      for (int i = 0; i < count; ++i) slots[i] = children[i].slot;
      return evaluate_external_slots(slots.data(), count, fitness);
    }
    gather_chunks(partials, count);
    for (Dim i = 0; i < count; ++i) {
      fitness[i] = fused_fitness<Fn>(problem_, &partials[i * chunks_], chunks_,
                                     genes_of(children[i].slot));
      fitness_[children[i].slot] = fitness[i];
    }
  });
}

namespace {
// Solis-Wets steps (sw_step) until `evaluations` are spent, each with its own operation number
// (the key of its draws). Returns f of `current`.
template <class EvaluateMove, class UpdateBias>
double solis_wets_steps(std::int64_t evaluations, const SolisWetsParams& params,
                        std::uint64_t& operation, LocalSearchResult& result, double f_current,
                        std::vector<real_t>& current, std::vector<real_t>& candidate,
                        EvaluateMove& evaluate_move, UpdateBias& update_bias) {
  while (result.evaluations < evaluations) {
    const std::uint64_t op = operation++;
    auto evaluate = [&](bool forward) { return evaluate_move(forward, op, result.state.rho); };
    auto accept = [&] { current.swap(candidate); };
    result.evaluations += sw_step(f_current, evaluations - result.evaluations > 1, result.state,
                                  params, evaluate, accept, update_bias);
  }
  return f_current;
}
}  // namespace

LocalSearchResult HostEngine::solis_wets(const LocalSearchRequest& request) {
  const Dim own = own_chunks_, genes = slice_.count;
  count_vectors(profile_, Bucket::kSwMoves, 2.0 * static_cast<double>(request.evaluations), genes);
  real_t* x = genes_of(request.slot);
  real_t* bias = bias_of(request.slot);
  {
    ScopedBucket timer(profile_, Bucket::kSwMoves);
    if (!request.continue_chain) std::fill(bias, bias + genes, real_t{0});
    std::copy(x, x + genes, current_.begin());
  }

  LocalSearchResult result;
  result.state = request.state;
  double f_current = request.fitness;

  visit_function(problem_.function, [&](auto fn) {
    using Fn = decltype(fn);
    // This rank's partials of one candidate, then (gathered) every chunk's.
    std::vector<typename Fn::Partial> partials(static_cast<size_t>(own));
    // One candidate: forward (draws dif) or backward (reuses it); returns its fitness.
    auto evaluate_move = [&](bool forward, std::uint64_t op, double rho) {
      std::optional<ScopedBucket> timer(std::in_place, profile_, Bucket::kSwMoves);
#pragma omp parallel for schedule(static) if (own > 1)
      for (Dim k = 0; k < own; ++k) {
        const OwnChunk c = own_chunk(k);
        const real_t* cur = current_.data() + c.local;  // gene c.begin
        const real_t* bias_c = bias + c.local;
        real_t* cand = candidate_.data() + c.local;
        real_t* dif = dif_.data() + c.local;
        const ChunkPartial partial =
            forward ? sw_forward_chunk(problem_, span_of(c),
                                       chunk_key(RngPurpose::kSolisWets, op, c.chunk), rho, cur,
                                       bias_c, dif, cand)
                    : sw_backward_chunk(problem_, span_of(c), cur, bias_c, dif, cand);
        partials[k] = partial.as<typename Fn::Partial>();
      }
      if (problem_.evaluates_stored_vectors()) timer.emplace(profile_, Bucket::kFitness);
      if (problem_.is_external()) {
        double f = 0.0;
        invalid_ += evaluate_external_host(problem_, candidate_.data(), genes, 1, &f);
        return f;
      }
      gather_chunks(partials, 1);
      return fused_fitness<Fn>(problem_, partials.data(), chunks_, candidate_.data());
    };
    auto update_bias = [&](SwOutcome outcome) {
      const real_t* dif = dif_.data();
      ScopedBucket timer(profile_, Bucket::kSwMoves);
#pragma omp parallel for schedule(static) if (own > 1)
      for (Dim k = 0; k < own; ++k) {
        const OwnChunk c = own_chunk(k);
        sw_update_bias_chunk(outcome, dif + c.local, bias + c.local, c.end - c.begin);
      }
    };

    f_current = solis_wets_steps(request.evaluations, sw_params_, operation_, result, f_current,
                                 current_, candidate_, evaluate_move, update_bias);
  });

  if (f_current < request.fitness) {
    ScopedBucket timer(profile_, Bucket::kSwMoves);
    std::copy(current_.begin(), current_.end(), x);
    fitness_[request.slot] = f_current;
  }
  result.fitness = std::min(f_current, request.fitness);
  return result;
}

void HostEngine::set_profile(KernelProfile* profile) {
  profile_ = profile;
  // 64 MiB a buffer: beyond the caches of the machines this runs on, a fraction of a second.
  if (profile_) profile_->set_copy_bandwidth(measure_host_copy_bandwidth(std::size_t{1} << 26, 3));
}

void HostEngine::sort_slots(int* order) {
  ScopedBucket timer(profile_, Bucket::kSort);
  sort_slots_by_fitness(fitness_.data(), capacity_, order);
}

void HostEngine::read_genes(int slot, real_t* out) {
  const real_t* x = genes_of(slot);
  if (comm_ == nullptr) {
    std::copy(x, x + dim_, out);
    return;
  }
  allgather_individual(*comm_, slices_, x, out);
}

void HostEngine::write_genes(int slot, const real_t* genes) {
  ScopedBucket timer(profile_, Bucket::kFitness);
  std::copy(genes + slice_.first, genes + slice_.end(), genes_of(slot));
  if (problem_.is_external()) {
    double f = 0.0;
    evaluate_external_slots(&slot, 1, &f);
    return;
  }
  // Every rank has the whole vector here: evaluating it alone is the one-rank f, no exchange.
  fitness_[slot] = evaluate_host(problem_, genes);
}

double HostEngine::distance_to_optimum(int slot) {
  ScopedBucket timer(profile_, Bucket::kDistances);
  count_vectors(profile_, Bucket::kDistances, 1.0, slice_.count);
  if (!problem_.optimum_position_known()) return std::numeric_limits<double>::quiet_NaN();
  const real_t* x = genes_of(slot);
  const Dim own = own_chunks_;
  std::vector<double> partials(static_cast<size_t>(own));
#pragma omp parallel for schedule(static) if (own > 1)
  for (Dim k = 0; k < own; ++k) {
    const OwnChunk c = own_chunk(k);
    const real_t* xc = x + c.local;  // gene c.begin
    double sum = 0.0;
    for (Dim j = c.begin; j < c.end; ++j) {
      const double d =
          static_cast<double>(xc[j - c.begin]) - static_cast<double>(problem_.shift(j));
      sum += d * d;
    }
    partials[k] = sum;
  }
  gather_chunks(partials, 1);
  return std::sqrt(std::accumulate(partials.begin(), partials.end(), 0.0));
}

// Sharded: rank 0, which alone writes checkpoints, receives every rank's part of the range.
void HostEngine::read_slot_array(SlotArray array, int slot, Dim first, Dim count, real_t* out) {
  const real_t* held = array_of(array, slot);  // from gene slice_.first
  gather_on_root(comm_, slices_, first, count, out,
                 [&](const GeneSlice& part, real_t*) { return held + (part.first - slice_.first); });
}

void HostEngine::write_slot_array(SlotArray array, int slot, Dim first, Dim count,
                                  const real_t* in) {
  const GeneSlice part = slice_.part(first, count);
  if (part.count > 0)
    std::copy(in + (part.first - first), in + (part.end() - first),
              array_of(array, slot) + (part.first - slice_.first));
}

void HostEngine::restore_fitness(const double* fitness) {
  std::copy(fitness, fitness + capacity_, fitness_.begin());
}

// The operation counter is the whole generator state: every stream is keyed by it. v2: the
// draws are converted in vectorised blocks (core/host_rng.hpp); a v1 state would resume with
// other numbers, so it is refused.
namespace {
constexpr const char* kHostRngLayout = "splitmix64-counter-blocks/v2";
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
