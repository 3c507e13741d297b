// The population-parallel GPU path of DE, jDE and PSO (docs/algorithms.md): a block per
// individual, and a whole generation of it (mutation, crossover, evaluation, selection) in one
// fused kernel. The per-gene math and the keyed random streams are the CPU's
// (core/algorithms/population_ops.hpp), so a GPU run draws exactly the CPU run's numbers; only
// the fitness reduction's order (and the device's transcendental functions) differ, which is
// why the backends agree statistically rather than bit for bit.
//
// Double buffering makes a generation a single launch without races: every block reads the
// generation's population (in) and writes only its own row of the next one (out): the trial
// when f(trial) <= f(target), else the target copied. The host swaps the buffers per launch and
// queues many generations before it waits once (population_cuda.cu).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "core/algorithms/population_ops.hpp"
#include "core/types.hpp"
#include "fitness/device_block_reduce.cuh"
#include "fitness/janssen/device_janssen.cuh"
#include "fitness/problem.hpp"
#include "localsearch/solis_wets.hpp"
#include "ssga/blx_alpha.hpp"

namespace chainsaw::device {

// The Janssen functions (fitness/janssen/janssen.hpp) read the row whole: the kernels make and
// store its genes as for the per-gene functions (accumulating nothing), then the block
// evaluates the stored row together (janssen_block_value). DE, jDE and PSO take this; Scatter
// Search, whose fused improvement never stores its candidates, takes their batch kernel.
struct JanssenRow : GenesOnly {};

// The functions of generated data (Schwefel 2.6 and 2.13, task scheduling): the kernels make and
// store the rows without evaluating them; the function's own batch kernel (a block per row,
// fitness/matrix_functions, fitness/scheduling) then evaluates them all, and a selection kernel
// (de_select_kernel, pso_select_kernel) finishes the generation. Three launches instead of one.
struct BatchRow : GenesOnly {};
template <class Fn>
inline constexpr bool kEvaluatedApart = std::is_same_v<Fn, BatchRow>;

// f of the block's row: the per-gene partials reduced, or (JanssenRow) the stored row evaluated.
template <class Fn>
__device__ double row_fitness(typename Fn::Partial mine, typename Fn::Partial* parts, Dim dim,
                              const real_t* row, const JanssenView& janssen) {
  if constexpr (std::is_same_v<Fn, JanssenRow>) {
    __syncthreads();  // every thread's genes of the row are stored
    return janssen_block_value(janssen, row);
  } else {
    return block_fitness<Fn>(mine, parts, dim);
  }
}

struct DeGeneration {
  const real_t* in;
  real_t* out;
  const double* fitness_in;
  double* fitness_out;
  const double* f_in;  // per individual (plain DE: all --de-f)
  const double* cr_in;
  double* f_out;
  double* cr_out;
  int np, count;  // individuals; those < count make a trial (the budget's last generation)
  Dim dim;
  double lower, upper;
  Shift shift;
  std::uint64_t seed, generation;
  bool adaptive, exponential;
  double tau1, tau2;
  JanssenView janssen;  // JanssenRow only
};

// Row i of the next generation: the trial (already in out) when f(trial) <= f(target), else the
// target put back, each thread its own range of genes. f is the block's; trial_f and trial_cr
// are read by thread 0 only.
__device__ inline void de_select(const DeGeneration& a, int i, double f, double trial_f,
                                 double trial_cr) {
  const Dim row = static_cast<Dim>(i) * a.dim;
  const GeneRange g = thread_genes(a.dim);
  if (f <= a.fitness_in[i]) {
    if (threadIdx.x == 0) {
      a.fitness_out[i] = f;
      a.f_out[i] = trial_f;
      a.cr_out[i] = trial_cr;
    }
  } else {  // the target survives: each thread puts back its own range
    for (Dim j = g.begin; j < g.end; ++j) a.out[row + j] = a.in[row + j];
    if (threadIdx.x == 0) {
      a.fitness_out[i] = a.fitness_in[i];
      a.f_out[i] = a.f_in[i];
      a.cr_out[i] = a.cr_in[i];
    }
  }
}

template <class Fn>
__global__ void de_generation_kernel(DeGeneration a) {
  extern __shared__ unsigned char shared_raw[];
  auto* parts = reinterpret_cast<typename Fn::Partial*>(shared_raw);
  __shared__ int r[3];
  __shared__ double f_cr[2];
  __shared__ Dim start, length;
  __shared__ std::uint64_t key;
  const int i = blockIdx.x;
  const Dim row = static_cast<Dim>(i) * a.dim;
  const GeneRange g = thread_genes(a.dim);
  if (i >= a.count) {  // no trial: the target carries over
    for (Dim j = g.begin; j < g.end; ++j) a.out[row + j] = a.in[row + j];
    if (threadIdx.x == 0) {
      a.fitness_out[i] = a.fitness_in[i];
      a.f_out[i] = a.f_in[i];
      a.cr_out[i] = a.cr_in[i];
    }
    return;
  }
  if (threadIdx.x == 0) {
    const auto individual = static_cast<std::uint64_t>(i);
    key = population_key(a.seed, PopulationPurpose::kGeneration, a.generation, individual);
    JdeParameters p{a.f_in[i], a.cr_in[i]};
    if (a.adaptive)
      p = jde_adapt(population_key(a.seed, PopulationPurpose::kJdeParameters, a.generation,
                                   individual),
                    p, a.tau1, a.tau2);
    f_cr[0] = p.f;
    f_cr[1] = p.cr;
    int picked[3];
    de_pick_indices(key, a.np, i, picked);
    r[0] = picked[0];
    r[1] = picked[1];
    r[2] = picked[2];
    start = below_from(u64_at(key, kDeStartDraw), static_cast<std::uint32_t>(a.dim));
    length = a.exponential ? de_exponential_length(key, p.cr, a.dim) : 0;
  }
  __syncthreads();
  const real_t* x = a.in + row;
  const real_t* xa = a.in + static_cast<Dim>(r[0]) * a.dim;
  const real_t* xb = a.in + static_cast<Dim>(r[1]) * a.dim;
  const real_t* xc = a.in + static_cast<Dim>(r[2]) * a.dim;
  real_t* trial = a.out + row;
  typename Fn::Partial partial{};
  for (Dim j = g.begin; j < g.end; ++j) {
    const bool take =
        a.exponential
            ? de_exponential_takes(j, start, length, a.dim)
            : de_binomial_takes(uniform_at(key, kDeGeneDraws + static_cast<std::uint64_t>(j)),
                                f_cr[1], j, start);
    const real_t gene =
        take ? de_mutant_gene(xa[j], xb[j], xc[j], f_cr[0], x[j], a.lower, a.upper) : x[j];
    trial[j] = gene;
    Fn::accumulate(partial, shifted_gene(gene, a.shift, j), j + 1);
  }
  if constexpr (kEvaluatedApart<Fn>) {  // de_select_kernel decides once the trial has its f
    if (threadIdx.x == 0) {
      a.f_out[i] = f_cr[0];
      a.cr_out[i] = f_cr[1];
    }
  } else {
    const double f = row_fitness<Fn>(partial, parts, a.dim, trial, a.janssen);
    de_select(a, i, f, f_cr[0], f_cr[1]);
  }
}

// The trials of a generation whose f the batch kernel wrote into trial_fitness (BatchRow): the
// same selection, with the F and CR the generation kernel left in f_out and cr_out.
__global__ void de_select_kernel(DeGeneration a, const double* trial_fitness) {
  const int i = blockIdx.x;
  if (i >= a.count) return;
  const double f = trial_fitness[i];
  const double trial_f = threadIdx.x == 0 ? a.f_out[i] : 0.0;  // only thread 0 writes them
  const double trial_cr = threadIdx.x == 0 ? a.cr_out[i] : 0.0;
  de_select(a, i, f, trial_f, trial_cr);
}

struct PsoStep {
  real_t* x;
  real_t* v;
  real_t* pbest;
  double* fitness;
  double* pbest_fitness;
  const real_t* gbest;  // a copy of the global best's genes, made before the step
  int count;
  Dim dim;
  double lower, upper, w, c1, c2, vmax;
  Shift shift;
  std::uint64_t seed, step;
  JanssenView janssen;  // JanssenRow only
};

// A particle's personal best becomes its position when f <= its f (f: the block's).
__device__ inline void pso_keep_best(const PsoStep& a, int i, double f) {
  const Dim row = static_cast<Dim>(i) * a.dim;
  const GeneRange g = thread_genes(a.dim);
  if (f <= a.pbest_fitness[i]) {
    for (Dim j = g.begin; j < g.end; ++j) a.pbest[row + j] = a.x[row + j];
    __syncthreads();  // every thread has read pbest_fitness[i] before it changes
    if (threadIdx.x == 0) a.pbest_fitness[i] = f;
  }
}

template <class Fn>
__global__ void pso_step_kernel(PsoStep a) {
  extern __shared__ unsigned char shared_raw[];
  auto* parts = reinterpret_cast<typename Fn::Partial*>(shared_raw);
  const int i = blockIdx.x;
  if (i >= a.count) return;
  const Dim row = static_cast<Dim>(i) * a.dim;
  const GeneRange g = thread_genes(a.dim);
  const std::uint64_t key = population_key(a.seed, PopulationPurpose::kGeneration, a.step,
                                           static_cast<std::uint64_t>(i));
  typename Fn::Partial partial{};
  for (Dim j = g.begin; j < g.end; ++j) {
    const auto k = static_cast<std::uint64_t>(j);
    const double velocity =
        pso_velocity_gene(a.v[row + j], a.x[row + j], a.pbest[row + j], a.gbest[j], a.w, a.c1,
                          a.c2, uniform_at(key, 2 * k), uniform_at(key, 2 * k + 1), a.vmax);
    const PsoGene moved = pso_move_gene(a.x[row + j], velocity, a.lower, a.upper);
    a.x[row + j] = moved.x;
    a.v[row + j] = moved.v;
    Fn::accumulate(partial, shifted_gene(moved.x, a.shift, j), j + 1);
  }
  if constexpr (!kEvaluatedApart<Fn>) {  // else pso_select_kernel, after the batch kernel
    const double f = row_fitness<Fn>(partial, parts, a.dim, a.x + row, a.janssen);
    if (threadIdx.x == 0) a.fitness[i] = f;
    pso_keep_best(a, i, f);
  }
}

// The moved particles whose f the batch kernel wrote into a.fitness (BatchRow).
__global__ void pso_select_kernel(PsoStep a) {
  const int i = blockIdx.x;
  if (i < a.count) pso_keep_best(a, i, a.fitness[i]);
}

// Scatter Search's steps 3 and 4 (core/algorithms/scatter_search.hpp) for one pool member per
// block: its BLX-alpha child of two reference-set members, evaluated, then its Solis-Wets
// improvement (ss_improve's steps, every candidate evaluated by the block). The deviates are
// drawn again from their keyed streams where ss_improve keeps them (dif), so neither dif nor
// the candidates are stored: a step reads x and the bias once per move.
struct SsIteration {
  const real_t* ref;  // the reference set, rows of dim
  const int* parent_a;
  const int* parent_b;
  real_t* pool;   // count rows
  real_t* bias;   // count rows of scratch
  double* fitness;
  long long* spent;
  int count, iterations;
  long long cap;  // evaluations each member's improvement may spend
  Dim dim;
  double lower, upper, lambda;
  SolisWetsParams params;
  Shift shift;
  std::uint64_t seed, iteration;
};

struct SquaredDistance {  // a block sum through block_fitness
  static constexpr double kBias = 0.0;
  using Partial = SumPartial;
  __device__ static double finish(const Partial& p, Dim) { return p.sum; }
};

// Member m's combination: x (bias 0) from its two parents, each thread its range g; the
// parents' squared distances and, through accumulate(j, gene), the child's f terms go to the
// caller.
template <class Accumulate>
__device__ void ss_combine(const SsIteration& a, int m, const GeneRange& g, SumPartial& squares,
                           const Accumulate& accumulate) {
  const Dim row = static_cast<Dim>(m) * a.dim;
  const real_t* xa = a.ref + static_cast<Dim>(a.parent_a[m]) * a.dim;
  const real_t* xb = a.ref + static_cast<Dim>(a.parent_b[m]) * a.dim;
  const std::uint64_t combination =
      population_key(a.seed, PopulationPurpose::kCombination, a.iteration,
                     static_cast<std::uint64_t>(m));
  const double alpha = ss_child_alpha(m % 2, a.lambda);
  for (Dim j = g.begin; j < g.end; ++j) {
    const real_t gene = blx_alpha_gene(xa[j], xb[j], alpha, a.lower, a.upper,
                                       uniform_at(combination, static_cast<std::uint64_t>(j)));
    a.pool[row + j] = gene;
    a.bias[row + j] = real_t{0};
    accumulate(j, gene);
    const double d = static_cast<double>(xa[j]) - static_cast<double>(xb[j]);
    squares.sum += d * d;
  }
}

// A Solis-Wets step's keyed stream, and its deviate and candidate for gene j (drawn again where
// ss_improve keeps them).
__device__ inline std::uint64_t ss_step_key(const SsIteration& a, int m, int step) {
  return derive_key(population_key(a.seed, PopulationPurpose::kImprovement, a.iteration,
                                   static_cast<std::uint64_t>(m)),
                    static_cast<std::uint64_t>(step));
}
__device__ inline real_t ss_dif(std::uint64_t key, double rho, Dim j) {
  return static_cast<real_t>(rho * normal_at(key, static_cast<std::uint64_t>(j)));
}
__device__ inline real_t ss_candidate(const SsIteration& a, bool forward, real_t x, real_t bias,
                                      real_t dif) {
  return forward ? sw_forward_gene(x, bias, dif, a.lower, a.upper)
                 : sw_backward_gene(x, bias, dif, a.lower, a.upper);
}
// The move taken: x becomes the candidate, the bias follows the move.
__device__ inline void ss_take_move(const SsIteration& a, bool forward, real_t& x, real_t& bias,
                                    real_t dif) {
  x = ss_candidate(a, forward, x, bias, dif);
  bias = forward ? sw_bias_after_forward_success(bias, dif)
                 : sw_bias_after_backward_success(bias, dif);
}

template <class Fn>
__global__ void ss_combine_improve_kernel(SsIteration a) {
  extern __shared__ unsigned char shared_raw[];
  auto* parts = reinterpret_cast<typename Fn::Partial*>(shared_raw);
  const int m = blockIdx.x;
  const Dim row = static_cast<Dim>(m) * a.dim;
  const GeneRange g = thread_genes(a.dim);
  real_t* x = a.pool + row;
  real_t* bias = a.bias + row;
  typename Fn::Partial partial{};
  SumPartial squares{};
  ss_combine(a, m, g, squares, [&](Dim j, real_t gene) {
    Fn::accumulate(partial, shifted_gene(gene, a.shift, j), j + 1);
  });
  double fx = block_fitness<Fn>(partial, parts, a.dim);
  const double distance =
      sqrt(block_fitness<SquaredDistance>(squares, reinterpret_cast<SumPartial*>(parts), a.dim));
  SolisWetsState state;  // every thread takes the same decisions from the same block values
  state.rho = ss_first_rho(distance, a.dim, a.upper - a.lower);
  long long spent = 0;
  for (int step = 0; step < a.iterations && spent < a.cap; ++step) {
    const std::uint64_t key = ss_step_key(a, m, step);
    // A move: its candidate evaluated; if better, taken (x and the bias updated).
    auto try_move = [&](bool forward) {
      typename Fn::Partial moved{};
      for (Dim j = g.begin; j < g.end; ++j)
        Fn::accumulate(moved,
                       shifted_gene(ss_candidate(a, forward, x[j], bias[j], ss_dif(key, state.rho, j)),
                                    a.shift, j),
                       j + 1);
      const double f = block_fitness<Fn>(moved, parts, a.dim);
      ++spent;
      if (!(f < fx)) return false;
      fx = f;
      for (Dim j = g.begin; j < g.end; ++j)
        ss_take_move(a, forward, x[j], bias[j], ss_dif(key, state.rho, j));
      return true;
    };
    SwOutcome outcome = SwOutcome::kNoDecision;
    if (try_move(true)) {
      outcome = SwOutcome::kForwardSuccess;
    } else if (spent < a.cap) {
      if (try_move(false)) {
        outcome = SwOutcome::kBackwardSuccess;
      } else {
        outcome = SwOutcome::kFailure;
        for (Dim j = g.begin; j < g.end; ++j) bias[j] = sw_bias_after_failure(bias[j]);
      }
    }
    sw_adapt(state, outcome, a.params);
  }
  if (threadIdx.x == 0) {
    a.fitness[m] = fx;
    a.spent[m] = spent;
  }
}

// Scatter Search on a function evaluated apart (BatchRow: a batch kernel per evaluation, as
// DE's generations there): the same steps as ss_combine_improve_kernel, cut where an
// evaluation falls. The host runs ss_combine_kernel, evaluates the pool, then per Solis-Wets
// step: ss_candidates_kernel for every member's forward move, an evaluation of the candidates,
// ss_decide_kernel, and the same for the backward move of the members whose forward move
// failed (`pending`). Each member's state lives in memory between the launches. The
// improvement's cap (2 iterations) never binds: a step spends at most 2.
struct SsApart {
  SolisWetsState* state;      // per member
  real_t* candidate;          // count rows
  double* candidate_fitness;  // per member, written by the batch kernel
  int* pending;               // per member: its forward move failed, the backward one is due
};

__global__ void ss_combine_kernel(SsIteration a, SsApart p) {
  extern __shared__ unsigned char shared_raw[];
  auto* parts = reinterpret_cast<SumPartial*>(shared_raw);
  const int m = blockIdx.x;
  SumPartial squares{};
  ss_combine(a, m, thread_genes(a.dim), squares, [](Dim, real_t) {});
  const double distance = sqrt(block_fitness<SquaredDistance>(squares, parts, a.dim));
  if (threadIdx.x == 0) {
    SolisWetsState state;
    state.rho = ss_first_rho(distance, a.dim, a.upper - a.lower);
    p.state[m] = state;
    a.spent[m] = 0;
  }
}

// The step's candidate of every member (forward) or of the pending ones (backward).
__global__ void ss_candidates_kernel(SsIteration a, SsApart p, int step, bool forward) {
  const int m = blockIdx.x;
  if (!forward && !p.pending[m]) return;
  const Dim row = static_cast<Dim>(m) * a.dim;
  const std::uint64_t key = ss_step_key(a, m, step);
  const double rho = p.state[m].rho;
  for (Dim j = threadIdx.x; j < a.dim; j += blockDim.x)
    p.candidate[row + j] =
        ss_candidate(a, forward, a.pool[row + j], a.bias[row + j], ss_dif(key, rho, j));
}

// The evaluated move: taken if better (the step's success); a failed forward move leaves the
// member pending for the backward one, a failed backward move is the step's failure (the bias
// decays). A decided step adapts rho.
__global__ void ss_decide_kernel(SsIteration a, SsApart p, int step, bool forward) {
  const int m = blockIdx.x;
  if (!forward && !p.pending[m]) return;
  const double f = p.candidate_fitness[m];
  const bool better = f < a.fitness[m];
  SolisWetsState state = p.state[m];
  __syncthreads();  // every thread has read what thread 0 changes below
  const Dim row = static_cast<Dim>(m) * a.dim;
  const std::uint64_t key = ss_step_key(a, m, step);
  for (Dim j = threadIdx.x; j < a.dim; j += blockDim.x) {
    if (better)
      ss_take_move(a, forward, a.pool[row + j], a.bias[row + j], ss_dif(key, state.rho, j));
    else if (!forward)
      a.bias[row + j] = sw_bias_after_failure(a.bias[row + j]);
  }
  if (threadIdx.x != 0) return;
  ++a.spent[m];
  if (better) a.fitness[m] = f;
  p.pending[m] = forward && !better;
  if (better || !forward) {
    sw_adapt(state,
             better ? (forward ? SwOutcome::kForwardSuccess : SwOutcome::kBackwardSuccess)
                    : SwOutcome::kFailure,
             a.params);
    p.state[m] = state;
  }
}

// One block: the lowest-index best of `fitness` (n values), and a copy of its row into `best`.
__global__ void best_row_kernel(const double* fitness, int n, const real_t* rows, Dim dim,
                                int* best_index, real_t* best) {
  __shared__ int index;
  if (threadIdx.x == 0) {
    int b = 0;
    for (int i = 1; i < n; ++i)
      if (fitness[i] < fitness[b]) b = i;
    index = b;
    *best_index = b;
  }
  __syncthreads();
  for (Dim j = threadIdx.x; j < dim; j += blockDim.x) best[j] = rows[static_cast<Dim>(index) * dim + j];
}

// The initial population: gene j of row i is draw j of stream (seed, kInitial, 0, i), as on the
// CPU; evaluated in the same launch. velocity (may be null): PSO's, draws D + j.
template <class Fn>
__global__ void initialize_kernel(real_t* genes, real_t* velocity, double* fitness, Dim dim,
                                  double lower, double width, double vmax, Shift shift,
                                  std::uint64_t seed, JanssenView janssen) {
  extern __shared__ unsigned char shared_raw[];
  auto* parts = reinterpret_cast<typename Fn::Partial*>(shared_raw);
  const int i = blockIdx.x;
  const Dim row = static_cast<Dim>(i) * dim;
  const GeneRange g = thread_genes(dim);
  const std::uint64_t key =
      population_key(seed, PopulationPurpose::kInitial, 0, static_cast<std::uint64_t>(i));
  typename Fn::Partial partial{};
  for (Dim j = g.begin; j < g.end; ++j) {
    const auto k = static_cast<std::uint64_t>(j);
    const auto gene = static_cast<real_t>(lower + width * uniform_at(key, k));
    genes[row + j] = gene;
    if (velocity)
      velocity[row + j] = static_cast<real_t>(vmax * (2.0 * uniform_at(key, dim + k) - 1.0));
    Fn::accumulate(partial, shifted_gene(gene, shift, j), j + 1);
  }
  if constexpr (!kEvaluatedApart<Fn>) {  // else the batch kernel evaluates the rows
    const double f = row_fitness<Fn>(partial, parts, dim, genes + row, janssen);
    if (threadIdx.x == 0) fitness[i] = f;
  }
}

}  // namespace chainsaw::device
