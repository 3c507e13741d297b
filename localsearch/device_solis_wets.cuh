// Solis-Wets on the GPU with the success/failure decision taken on the device. A step is three
// launches that read and update a small device-resident state; the host enqueues steps without
// waiting and reads the state back only to learn how many evaluations are left (at most
// log2(I_str) times per application, see CudaEngine::solis_wets).
//
//   forward  : x' = clip(x + bias + dif), evaluated; decides success or asks for the backward move
//   backward : only if asked: x'' = clip(x - bias - dif), evaluated; decides success/failure
//   apply    : moves x and updates bias as decided, then adapts rho and the counters
//
// Launched per step, dif is never stored: every launch of a step restores the same per-thread
// XORWOW states and draws the same normals (the chain kernel below keeps its dif in one row).
// `forward` stores the advanced states into the other of two buffers (the host alternates them
// per step; the device counts the flips in rng_parity), so `apply` needs no normals after a
// failure. A candidate is never stored either: `apply` recomputes the accepted move from x,
// bias and dif (clipping is deterministic), so a step moves 2 vectors per evaluation plus the
// update instead of 4-5.
#pragma once

#include <cooperative_groups.h>
#include <cstdint>
#include <type_traits>

#include "localsearch/solis_wets.hpp"
#include "ssga/device_ops.cuh"

namespace chainsaw::device {

// Whole lanes of float genes clip their candidates as a max and a min (sw_clip): faster there,
// slower in the short-lane kernels (runs of 4); float64 genes were not measured.
// Measured: bench/results/2026-11-28-h200-sw-normals-clip.
template <int L>
inline constexpr bool kSwClipsByMinMax = L == kVec && std::is_same_v<real_t, float>;

enum SwPhase : int {
  kSwIdle = 0,
  kSwForwardSuccess,
  kSwBackwardSuccess,
  kSwFailure,
  kSwNeedBackward,
  kSwNoDecision,
  kSwCandidatesMade,  // a user objective's step: both candidates wait for their values
};

struct SwDeviceState {
  double f_current;
  double rho;
  long long evaluations;
  long long budget;
  int successes;
  int failures;
  int phase;
  int rng_parity;  // how many forward moves ran, mod 2: which RNG buffer is current
  // The stored bias times this is the chain's bias. A failure halves the bias: with both moves
  // in one pass (SwBothMovesOp) that is this power of two, exact, instead of a pass over the
  // vector; a success's apply writes the whole bias and resets it to 1, and an application
  // that ends below 1 scales the vector once (SwScaleBiasOp).
  double bias_scale;
};

// Whether the forward (backward) move of a step runs: read by every launch of that move.
__device__ inline bool sw_move_active(bool forward, const SwDeviceState* state) {
  return forward ? state->evaluations < state->budget && state->phase == kSwIdle
                 : state->phase == kSwNeedBackward;
}

// The decision after a move's evaluation f.
__device__ inline void sw_decide(bool forward, SwDeviceState* state, double f) {
  SwDeviceState s = *state;
  ++s.evaluations;
  if (forward) s.rng_parity ^= 1;
  if (f < s.f_current) {
    s.f_current = f;
    s.phase = forward ? kSwForwardSuccess : kSwBackwardSuccess;
  } else if (forward) {
    s.phase = s.evaluations < s.budget ? kSwNeedBackward : kSwNoDecision;
  } else {
    s.phase = kSwFailure;
  }
  *state = s;
}

// candidate == nullptr: the candidate is evaluated as it is made and the move decides.
// Otherwise (CEC 2010, whose groups gather from the whole vector) the candidate is stored there
// and SwDecideOp evaluates it and decides, in the next launch.
struct SwMoveOp {
  static constexpr bool kUsesRng = true;
  __device__ bool stores_rng() const { return forward; }
  bool forward;
  SwDeviceState* state;
  const real_t* x;
  const real_t* bias;
  double lower, upper;
  Dim dim;
  real_t* candidate = nullptr;
  unsigned long long* invalid = nullptr;  // the count of NaN and -inf values (MayBeInvalid terms)
  __device__ bool active() const { return sw_move_active(forward, state); }
  __device__ void produce(int, Dim j0, int n, double (&v)[kVec], curandState& rng) const {
    real_t xs[kVec], bs[kVec], c[kVec];
    load_genes(x + j0, n, xs);
    load_genes(bias + j0, n, bs);
    const real_t rho = static_cast<real_t>(state->rho);
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) {
      const real_t dif = mul_rn(rho, normal01(rng));
      c[k] = forward ? sw_forward_gene(xs[k], bs[k], dif, lower, upper)
                     : sw_backward_gene(xs[k], bs[k], dif, lower, upper);
      v[k] = c[k];
    }
    if (candidate != nullptr) store_genes(candidate + j0, n, c);
  }
  template <class Term>
  __device__ void finish(int, const Term& term, const typename Term::Partial& p) const {
    if (candidate == nullptr) sw_decide(forward, state, ranked_value(term, p, dim, invalid));
  }
};

// Evaluates a stored candidate (pair with a CecTerm on it) and decides, as SwMoveOp would.
struct SwDecideOp {
  static constexpr bool kUsesRng = false;
  __device__ bool stores_rng() const { return false; }
  bool forward;
  SwDeviceState* state;
  const real_t* candidate;
  Dim dim;
  __device__ bool active() const { return sw_move_active(forward, state); }
  __device__ void produce(int, Dim j0, int n, double (&v)[kVec], curandState&) const {
    real_t c[kVec];
    load_genes(candidate + j0, n, c);
    #pragma unroll
    for (int k = 0; k < kVec; ++k)  // unrolled: v[] stays in registers
      if (k < n) v[k] = c[k];
  }
  template <class Term>
  __device__ void finish(int, const Term& term, const typename Term::Partial& p) const {
    sw_decide(forward, state, term.value(p, dim));
  }
};

// A lane's run of n stored bias values times `scale`, a power of two <= 1 (bias_scale), each
// rounded to real_t as static_cast<real_t>(scale * b) rounds it. Where real_t holds the scale
// exactly the product is taken in real_t: it is exact, or (below real_t's normal range) rounded
// once, as the double product rounded to real_t is, so the bits are the same without the two
// float64 conversions per gene of the double form (a quarter-rate unit on the GPU).
template <int L>
__device__ __forceinline__ void scale_genes(double scale, int n, real_t (&bs)[L]) {
  const real_t scale_in_genes = static_cast<real_t>(scale);
  if (static_cast<double>(scale_in_genes) == scale) {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: the array stays in registers
      if (k < n) bs[k] = mul_rn(bs[k], scale_in_genes);
  } else {  // a scale below real_t's range: 150 failures in a row for float genes
    #pragma unroll
    for (int k = 0; k < L; ++k)
      if (k < n) bs[k] = static_cast<real_t>(scale * bs[k]);
  }
}

// A lane's run of n genes of both candidates of a step from x and the bias b in registers (b
// at scale 1, or times the step's scale already): x' = clip(x + b + dif) and
// x'' = clip(x - b - dif), dif = rho N(0, 1) drawn from rng. Out: real_t to store them, double
// for a reduction (SwBothMovesOp: written in place, which keeps its kernels' registers).
// dif_out, where given, receives the run's dif (the chain kernel applies a success from it
// instead of drawing the normals again).
template <class Out, int L>
__device__ __forceinline__ void sw_both_candidates_of(const real_t (&xs)[L], const real_t (&bs)[L],
                                                      double step_rho, int n, curandState& rng,
                                                      double lower, double upper,
                                                      Out (&forward)[L], Out (&backward)[L],
                                                      real_t* dif_out) {
  real_t dif[L];
  normal01_run(rng, n, dif);
  const real_t rho = static_cast<real_t>(step_rho);
  #pragma unroll
  for (int k = 0; k < L; ++k)  // unrolled: the arrays stay in registers
    if (k < n) dif[k] = mul_rn(rho, dif[k]);
  // Stored before the candidates are made: dif takes the normals' registers, no more.
  if (dif_out != nullptr) store_genes(dif_out, n, dif);
  #pragma unroll
  for (int k = 0; k < L; ++k)
    if (k < n) {
    forward[k] = sw_forward_gene<kSwClipsByMinMax<L>>(xs[k], bs[k], dif[k], lower, upper);
    backward[k] = sw_backward_gene<kSwClipsByMinMax<L>>(xs[k], bs[k], dif[k], lower, upper);
  }
}
// The same from x and the stored bias at `scale` in memory.
template <class Out, int L>
__device__ __forceinline__ void sw_both_candidates_run(double step_rho, double scale,
                                                       const real_t* x, const real_t* bias, int n,
                                                       curandState& rng, double lower,
                                                       double upper, Out (&forward)[L],
                                                       Out (&backward)[L],
                                                       real_t* dif_out = nullptr) {
  real_t xs[L], bs[L];
  load_genes(x, n, xs);
  load_genes(bias, n, bs);
  scale_genes(scale, n, bs);
  sw_both_candidates_of(xs, bs, step_rho, n, rng, lower, upper, forward, backward, dif_out);
}

// Settles in s a step whose two candidates were both evaluated; value(forward) gives a
// candidate's f. The forward value counts as an evaluation, the backward one (asked for only
// then) when the forward move failed and the application has one left. A success sets the phase
// (the caller moves x and the bias, then adapts: sw_adapt_after_apply); a failure halves
// bias_scale and adapts.
template <class Value>
__device__ void sw_settle_both(SwDeviceState& s, const SolisWetsParams& params,
                               const Value& value) {
  s.rng_parity ^= 1;
  ++s.evaluations;
  const double f_forward = value(true);
  SwOutcome outcome = SwOutcome::kNoDecision;
  if (f_forward < s.f_current) {
    s.f_current = f_forward;
    s.phase = kSwForwardSuccess;
    return;
  }
  if (s.evaluations < s.budget) {
    ++s.evaluations;
    const double f_backward = value(false);
    if (f_backward < s.f_current) {
      s.f_current = f_backward;
      s.phase = kSwBackwardSuccess;
      return;
    }
    outcome = SwOutcome::kFailure;
    s.bias_scale *= 0.5;  // sw_bias_after_failure, exact for a power of two
  }
  SolisWetsState scalar{s.rho, s.successes, s.failures};
  sw_adapt(scalar, outcome, params);
  s.rho = scalar.rho;
  s.successes = scalar.successes;
  s.failures = scalar.failures;
  s.phase = kSwIdle;
}

// Both moves of a step in one pass: the forward candidate x' and the backward one x'' share the
// loads of x and bias and the normals of dif, each reduced in the tree it would have alone. The
// backward value counts as an evaluation only when the forward move fails and the application
// has one left. A failure is settled here (bias_scale halves, rho and the counters adapt), so
// SwApplyOp runs only after a success. Functions whose candidate is evaluated apart (stored)
// keep the separate moves. L genes per lane's run: kVec, or kShortLane where the step's grid
// would otherwise leave SMs idle (sw_lane_genes); SwApplyOp<L> maps genes to threads alike.
template <int L = kVec>
struct SwBothMovesOp {
  static constexpr bool kUsesRng = true;
  static constexpr int kLaneGenes = L;
  using Values = double[2][L];
  __device__ bool stores_rng() const { return true; }
  SwDeviceState* state;
  const real_t* x;
  const real_t* bias;
  double lower, upper;
  Dim dim;
  SolisWetsParams params;
  unsigned long long* invalid = nullptr;  // the count of NaN and -inf values (MayBeInvalid terms)
  __device__ bool active() const { return sw_move_active(true, state); }
  // The chain kernel's step makes the same candidates with its rho and scale from registers
  // (SwChainStepOp).
  __device__ void produce(int, Dim j0, int n, Values& v, curandState& rng) const {
    sw_both_candidates_run(state->rho, state->bias_scale, x + j0, bias + j0, n, rng, lower,
                           upper, v[0], v[1]);
  }
  // Settles the step in s from its two partials: the forward value counts as an evaluation,
  // the backward one only when the forward move failed and the application has one left. A
  // success sets the phase (the caller moves x and the bias, then adapts); a failure halves
  // bias_scale and adapts.
  template <class Term>
  __device__ void settle(SwDeviceState& s, const PairTerm<Term>& pair,
                         const typename PairTerm<Term>::Partial& p) const {
    sw_settle_both(s, params, [&](bool forward) {
      return ranked_value(pair.term, forward ? p.part[0] : p.part[1], dim, invalid);
    });
  }
  template <class Term>
  __device__ void finish(int, const PairTerm<Term>& pair,
                         const typename PairTerm<Term>::Partial& p) const {
    SwDeviceState s = *state;
    settle(s, pair, p);
    *state = s;  // after a success SwApplyOp moves x and the bias, then adapts
  }
};

template <int L = kVec>
__device__ inline void sw_scale_bias_run(double scale, real_t* bias, int n) {
  real_t bs[L];
  load_genes(bias, n, bs);
  scale_genes(scale, n, bs);
  store_genes(bias, n, bs);
}

// Brings a bias left at bias_scale != 1 by SwBothMovesOp's failures back to scale 1.
struct SwScaleBiasOp {
  static constexpr bool kUsesRng = false;
  __device__ bool stores_rng() const { return false; }
  SwDeviceState* state;
  real_t* bias;
  __device__ bool active() const { return state->bias_scale != 1.0; }
  __device__ void produce(int, Dim j0, int n, double (&)[kVec], curandState&) const {
    sw_scale_bias_run(state->bias_scale, bias + j0, n);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    state->bias_scale = 1.0;
  }
};

// A lane's run of n genes after a successful step (phase), in registers: x moves and the bias
// bs (at scale 1) updates with the step's dif. x moves to the candidate, clipped as it was made.
template <int L>
__device__ __forceinline__ void sw_success_move(int phase, real_t (&xs)[L], real_t (&bs)[L],
                                                const real_t (&dif)[L], int n, double lower,
                                                double upper) {
  const bool fwd = phase == kSwForwardSuccess;
  #pragma unroll
  for (int k = 0; k < L; ++k)  // unrolled: the arrays stay in registers
    if (k < n) {
    xs[k] = fwd ? sw_forward_gene<kSwClipsByMinMax<L>>(xs[k], bs[k], dif[k], lower, upper)
                : sw_backward_gene<kSwClipsByMinMax<L>>(xs[k], bs[k], dif[k], lower, upper);
    bs[k] = fwd ? sw_bias_after_forward_success(bs[k], dif[k])
                : sw_bias_after_backward_success(bs[k], dif[k]);
  }
}
// The same on x in memory: x and the bias written.
template <int L>
__device__ __forceinline__ void sw_success_run(int phase, real_t* x, real_t* bias,
                                               real_t (&bs)[L], const real_t (&dif)[L], int n,
                                               double lower, double upper) {
  real_t xs[L];
  load_genes(x, n, xs);
  sw_success_move(phase, xs, bs, dif, n, lower, upper);
  store_genes(x, n, xs);
  store_genes(bias, n, bs);
}
// The last step's success (phase) applied to a lane's run in memory from the dif that step kept
// and the bias at that step's scale: x and the bias move, and stay in xs and bs (the bias at
// scale 1) for the caller (the chain kernel that keeps dif: its next pass, or its end).
template <int L>
__device__ __forceinline__ void sw_apply_kept_dif(int phase, double scale, real_t* x,
                                                  real_t* bias, const real_t* dif, int n,
                                                  double lower, double upper, real_t (&xs)[L],
                                                  real_t (&bs)[L]) {
  real_t kept[L];
  load_genes(x, n, xs);
  load_genes(bias, n, bs);
  load_genes(dif, n, kept);
  scale_genes(scale, n, bs);
  sw_success_move(phase, xs, bs, kept, n, lower, upper);
  store_genes(x, n, xs);
  store_genes(bias, n, bs);
}

// A lane's run of n genes after a step decided `phase` with rho and bias scale as they were
// in the step: a success moves x and updates the bias with the step's dif, drawn again from the
// state the step started with (rng); a failure halves the bias. The bias is written at scale 1.
// Runs of L genes, as the step's.
template <int L = kVec>
__device__ inline void sw_apply_run(int phase, double step_rho, double scale, real_t* x,
                                    real_t* bias, int n, curandState& rng, double lower,
                                    double upper) {
  if (phase == kSwNoDecision) return;
  real_t bs[L], dif[L];
  load_genes(bias, n, bs);
  if (scale != 1.0) scale_genes(scale, n, bs);  // below 1 only after SwBothMovesOp's failures
  if (phase == kSwFailure) {
    #pragma unroll
    for (int k = 0; k < L; ++k)  // unrolled: v[] stays in registers
      if (k < n) bs[k] = sw_bias_after_failure(bs[k]);
    store_genes(bias, n, bs);
    return;
  }
  const real_t rho = static_cast<real_t>(step_rho);
  normal01_run(rng, n, dif);  // the step's normals, drawn again
  #pragma unroll
  for (int k = 0; k < L; ++k)
    if (k < n) dif[k] = mul_rn(dif[k], rho);
  sw_success_run(phase, x, bias, bs, dif, n, lower, upper);
}

// The scalar part after the step's move was applied: rho and the counters adapt to its outcome,
// and the bias was written at its scale.
__device__ inline void sw_adapt_after_apply(SwDeviceState& s, const SolisWetsParams& params) {
  SolisWetsState scalar{s.rho, s.successes, s.failures};
  const SwOutcome outcome = s.phase == kSwForwardSuccess    ? SwOutcome::kForwardSuccess
                            : s.phase == kSwBackwardSuccess ? SwOutcome::kBackwardSuccess
                            : s.phase == kSwFailure         ? SwOutcome::kFailure
                                                            : SwOutcome::kNoDecision;
  sw_adapt(scalar, outcome, params);
  s.rho = scalar.rho;
  s.successes = scalar.successes;
  s.failures = scalar.failures;
  s.phase = kSwIdle;
  s.bias_scale = 1.0;
}

template <int L = kVec>
struct SwApplyOp {
  static constexpr bool kUsesRng = true;
  static constexpr int kLaneGenes = L;
  __device__ bool stores_rng() const { return false; }
  SwDeviceState* state;
  real_t* x;
  real_t* bias;
  double lower, upper;
  SolisWetsParams params;
  double* slot_fitness;
  int slot;
  __device__ bool active() const { return state->phase != kSwIdle; }
  __device__ void produce(int, Dim j0, int n, double (&)[L], curandState& rng) const {
    sw_apply_run<L>(state->phase, state->rho, state->bias_scale, x + j0, bias + j0, n, rng,
                    lower, upper);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    SwDeviceState s = *state;
    sw_adapt_after_apply(s, params);
    *state = s;
    slot_fitness[slot] = s.f_current;
  }
};

// Solis-Wets on a user objective (a batch callback, fitness/external_objective.hpp). Both
// candidates of a step are evaluated, as SwBothMovesOp evaluates both: one call of the objective
// on two rows instead of a call, a decision and a condition per move; the backward value counts
// only when the forward move failed. An application is SwCandidatesOp, then per step the
// objective's call and SwSettleStepOp, which settles the step, applies it and makes the next
// step's candidates: two launches per step.

// Writes both candidates of the step, x' to row 0 of `candidates` and x'' to row `pitch`, and
// sets the phase kSwCandidatesMade.
struct SwCandidatesOp {
  static constexpr bool kUsesRng = true;
  static constexpr bool kStagesRng = true;  // as SwSettleStepOp's, which draw the same dif
  __device__ bool stores_rng() const { return true; }
  SwDeviceState* state;
  const real_t* x;
  const real_t* bias;
  double lower, upper;
  real_t* candidates;
  Dim pitch;
  __device__ bool active() const { return sw_move_active(true, state); }
  __device__ void produce(int, Dim j0, int n, double (&)[kVec], curandState& rng) const {
    write_candidates(state->rho, state->bias_scale, j0, n, rng);
  }
  __device__ void write_candidates(double rho, double scale, Dim j0, int n,
                                   curandState& rng) const {
    real_t forward[kVec], backward[kVec];
    sw_both_candidates_run(rho, scale, x + j0, bias + j0, n, rng, lower, upper, forward,
                           backward);
    store_genes(candidates + j0, n, forward);
    store_genes(candidates + pitch + j0, n, backward);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    state->phase = kSwCandidatesMade;
  }
};

// The step's decision on the objective's values (values[0] of x', values[1] of x''), its
// accepted move, and the next step's candidates while evaluations are left. Every thread
// settles the step for itself (the same decision everywhere); after a success it moves its
// genes with the step's dif, drawn again from the states the step drew from (step_states: this
// launch's rng_out, read before the launch overwrites them). The last block writes the state.
// In a graph, `loop` (non-zero) is the while node's condition: candidates made.
struct SwSettleStepOp {
  static constexpr bool kUsesRng = true;
  static constexpr bool kStagesRng = true;  // a short launch of few genes per thread
  __device__ bool stores_rng() const { return true; }
  SwCandidatesOp next;  // its state, x, bias (which this step moves), domain and candidates
  SolisWetsParams params;
  const double* values;
  unsigned long long* invalid;  // NaN and -inf values that count as evaluations
  const curandState* step_states;
  double* slot_fitness;
  int slot;
  cudaGraphConditionalHandle loop = 0;
  // After a success: the block's states of step_states in shared memory, each thread's advanced
  // over its runs (prepare_block).
  curandState* replay = nullptr;

  __device__ bool active() const { return next.state->phase == kSwCandidatesMade; }
  // The state after the step, adapted; step_phase: how the step ended (kSwIdle: no success).
  // Counts invalid values where count_invalid is given.
  __device__ SwDeviceState settled(const SwDeviceState& before, unsigned long long* count_invalid,
                                   int& step_phase) const {
    SwDeviceState s = before;
    sw_settle_both(s, params, [&](bool forward) {
      const double f = values[forward ? 0 : 1];
      if (count_invalid != nullptr && is_invalid_fitness(f)) atomicAdd(count_invalid, 1ull);
      return rankable_fitness(f);
    });
    step_phase = s.phase;
    if (s.phase != kSwIdle) sw_adapt_after_apply(s, params);
    return s;
  }
  // Every thread of the block, before its runs: after a success, the block's states that the
  // step drew from are staged, read as whole lines (the kernel stages rng alike).
  __device__ void prepare_block(std::size_t first_state) {
    int phase = kSwIdle;
    settled(*next.state, nullptr, phase);
    if (phase == kSwIdle) return;  // the same decision in every thread
    replay = staged_states<SwSettleStepOp, 1>();
    copy_block_states(step_states + first_state, replay);
    __syncthreads();
  }
  __device__ void produce(int, Dim j0, int n, double (&)[kVec], curandState& rng) const {
    const SwDeviceState before = *next.state;
    int phase = kSwIdle;
    const SwDeviceState s = settled(before, nullptr, phase);
    if (phase != kSwIdle) {  // a success: x and the bias move
      curandState r = replay[threadIdx.x];
      sw_apply_run(phase, before.rho, before.bias_scale, const_cast<real_t*>(next.x) + j0,
                   const_cast<real_t*>(next.bias) + j0, n, r, next.lower, next.upper);
      replay[threadIdx.x] = r;  // the thread's next run draws on
    }
    if (s.evaluations < s.budget) next.write_candidates(s.rho, s.bias_scale, j0, n, rng);
  }
  template <class Term>
  __device__ void finish(int, const Term&, const SumPartial&) const {
    int phase = kSwIdle;
    SwDeviceState s = settled(*next.state, invalid, phase);
    const bool more = s.evaluations < s.budget;
    if (more) s.phase = kSwCandidatesMade;
    *next.state = s;
    slot_fitness[slot] = s.f_current;
    if (loop != 0) cudaGraphSetConditional(loop, more);
  }
};

// T's words at p, read from L2 as Words (ld.global.cg).
template <class Word, class T>
__device__ __forceinline__ T words_from_l2(const T* p) {
  T value;
  Word* dst = reinterpret_cast<Word*>(&value);
  const Word* src = reinterpret_cast<const Word*>(p);
  #pragma unroll
  for (std::size_t i = 0; i < sizeof(T) / sizeof(Word); ++i) dst[i] = __ldcg(src + i);
  return value;
}
// Reads what another block wrote before a grid-wide barrier: from L2, never from a line this
// SM's L1 may still hold from an earlier step. In the widest words the address allows: after
// the barrier every block reads all the step's partials at once, and 4-byte loads multiplied
// the requests to those same lines of L2 (four per 16-byte partial).
template <class T>
__device__ T load_from_l2(const T* p) {
  static_assert(sizeof(T) % sizeof(int) == 0, "read as ints");
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  if constexpr (sizeof(T) % sizeof(int4) == 0)
    if (address % sizeof(int4) == 0) return words_from_l2<int4>(p);
  if constexpr (sizeof(T) % sizeof(int2) == 0)
    if (address % sizeof(int2) == 0) return words_from_l2<int2>(p);
  return words_from_l2<int>(p);
}
template <class Partial>
struct L2Items {
  const Partial* items;
  __device__ Partial operator()(int i) const { return load_from_l2(items + i); }
};

// The chain kernel's exchange where it may pair (whole lanes; partials of sums and products):
// warp 0 alone combines the block's warp partials and thread 0 alone arrives at the grid
// barrier, so a step passes four __syncthreads instead of seven
// (bench/results/2026-11-29-h200-sw-step-barriers).
//
// A partial combined with the identity: itself, but for a -0.0 sum, which it makes +0.0; more
// such combinations leave that as it is. So one stands for the several of a tree whose later
// levels combine only identities, to the bit.
template <class Partial>
__device__ __forceinline__ Partial with_identity(const Partial& p) {
  return Partial::combine(p, Partial{});
}
// The block's partial in lane 0 of warp 0, as block_reduce_ordered<true> over each half's
// kWarps warp partials, then the two halves' combination, give it in thread 0: the first half's
// in lanes [0, kWarps), the second's in lanes [16, 16 + kWarps), the tree's levels that combine
// them as warp_reduce_ordered takes them, and one combination with the identity for the levels
// and the block's second level after them.
template <class Partial>
__device__ __forceinline__ Partial warp0_block_total(const Partial* warp_results, int halves) {
  static_assert(2 * kWarps <= 32, "both halves' warps in one warp");
  const int lane = threadIdx.x & 31;
  Partial p{};
  if ((lane & 15) < kWarps && (lane < 16 || halves == 2))
    p = warp_results[(lane & 15) + (lane < 16 ? 0 : kWarps)];
  p = with_identity(warp_reduce_ordered<kWarps>(p));
  const Partial upper = shuffle_down(p, 16);
  return halves == 2 ? Partial::combine(p, upper) : p;
}
// Cooperative groups' grid barrier in one thread of each block: its protocol on the launch's
// own barrier word (its grid syncs in the same launch stay valid), without the __syncthreads
// before and after, which the block's threads need only where all of them wrote or read.
__device__ __forceinline__ void grid_barrier_one_thread() {
  unsigned int* const word = &cooperative_groups::details::get_grid_workspace()->barrier;
  // Every round adds 2^31 in all: the top bit flips once every block has arrived.
  const unsigned int add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
  unsigned int before, now;
  asm volatile("atom.add.release.gpu.u32 %0,[%1],%2;"
               : "=r"(before) : "l"(word), "r"(add) : "memory");
  do {
    asm volatile("ld.acquire.gpu.u32 %0,[%1];" : "=r"(now) : "l"(word) : "memory");
  } while (((before ^ now) & 0x80000000u) == 0);
}

// The address that gene 0 would have in a row of T whose first element is gene `first`: an
// integer, for it may lie outside the row (a block's staged rows start at its first gene).
template <class T>
__device__ std::uintptr_t row_origin(const T* row, Dim first) {
  return reinterpret_cast<std::uintptr_t>(row) - static_cast<std::uintptr_t>(first) * sizeof(T);
}

// The rows a Solis-Wets application moves, as a step's runs address them by gene: x, the bias
// and the kept dif in device memory, or a block's own genes of a row staged in shared memory for
// the whole application (gene `first` at the start of each staged row; the dif's `dif_first`,
// 0 where its row stays in memory). Each thread reads and writes only its own runs, so the
// staged rows need no barrier. Held as the address gene 0 would have (an integer: outside the
// staged rows): one register pair per row, as the rows themselves.
class SwRows {
 public:
  __device__ SwRows(real_t* x, real_t* bias, Dim first, real_t* dif, Dim dif_first)
      : x_(row_origin(x, first)), bias_(row_origin(bias, first)),
        dif_(row_origin(dif, dif_first)) {}
  __device__ real_t* x_at(Dim j0) const { return at(x_, j0); }
  __device__ real_t* bias_at(Dim j0) const { return at(bias_, j0); }
  __device__ real_t* dif_at(Dim j0) const { return at(dif_, j0); }

 private:
  __device__ static real_t* at(std::uintptr_t origin, Dim j0) {
    return reinterpret_cast<real_t*>(origin + static_cast<std::uintptr_t>(j0) * sizeof(real_t));
  }
  std::uintptr_t x_, bias_, dif_;
};

// The same rows where all three are a block's, staged in shared memory (the whole-lane kernel
// that stages o): pointers into the staged rows themselves, gene `first` at their start, which
// the compiler addresses as shared memory (LDS and STS, 32-bit addresses) where SwRows'
// integers leave it generic loads, which wait as long as loads from memory.
class SwSharedRows {
 public:
  __device__ SwSharedRows(real_t* rows, Dim block_genes, Dim first)
      : x_(rows), bias_(rows + block_genes), dif_(rows + 2 * block_genes), first_(first) {}
  __device__ real_t* x_at(Dim j0) const { return x_ + (j0 - first_); }
  __device__ real_t* bias_at(Dim j0) const { return bias_ + (j0 - first_); }
  __device__ real_t* dif_at(Dim j0) const { return dif_ + (j0 - first_); }

 private:
  real_t* x_;
  real_t* bias_;
  real_t* dif_;
  Dim first_;
};

// Copies a thread's runs (those of its warp's tiles [first_tile, end_tile)) of x and the bias
// between memory and their staged rows: kIn at an application's start, back at its end.
template <bool kIn, int L, class Rows>
__device__ __forceinline__ void sw_copy_staged_runs(real_t* x, real_t* bias, const Rows& staged,
                                                    Dim first_tile, Dim end_tile, Dim dim) {
  for_lane_runs<L>(first_tile, end_tile, dim, [&](Dim j0, int n) {
    real_t run[L];
    load_genes(kIn ? x + j0 : staged.x_at(j0), n, run);
    store_genes(kIn ? staged.x_at(j0) : x + j0, n, run);
    load_genes(kIn ? bias + j0 : staged.bias_at(j0), n, run);
    store_genes(kIn ? staged.bias_at(j0) : bias + j0, n, run);
  });
}

// The chain kernel's step: SwBothMovesOp's pass on `rows` with the step's rho and bias scale
// from registers, kKeepsDif storing the step's dif in rows.dif. Where it keeps dif, the last
// step's success (`pending`: its phase, else kSwIdle) is applied here, to each run before its
// candidates are made, from the dif that step kept and the bias at that step's scale: x and the
// bias are read once for the move and the new candidates, not once more by a pass of their own.
// The bias is at scale 1 after a success, so the candidates take it as moved.
template <int L, bool kKeepsDif, class Rows = SwRows>
struct SwChainStepOp {
  const SwBothMovesOp<L>& moves;
  Rows rows;
  double rho, scale;
  int pending = kSwIdle;
  double pending_scale = 1.0;
  static constexpr int kLaneGenes = L;
  static constexpr bool kSplitsWholeRuns = true;
  using Values = typename SwBothMovesOp<L>::Values;
  __device__ void produce(int, Dim j0, int n, Values& v, curandState& r) const {
    real_t* const x = rows.x_at(j0);
    real_t* const bias = rows.bias_at(j0);
    real_t* const dif = kKeepsDif ? rows.dif_at(j0) : nullptr;
    if constexpr (kKeepsDif) {
      // A row's address is never null: without this, each run made the staged dif's generic
      // address only for sw_both_candidates_of's test of it, eight instructions.
      __builtin_assume(dif != nullptr);
      if (pending != kSwIdle) {
        real_t xs[L], bs[L];
        sw_apply_kept_dif(pending, pending_scale, x, bias, dif, n, moves.lower, moves.upper, xs,
                          bs);
        sw_both_candidates_of(xs, bs, rho, n, r, moves.lower, moves.upper, v[0], v[1], dif);
        return;
      }
    }
    sw_both_candidates_run(rho, scale, x, bias, n, r, moves.lower, moves.upper, v[0], v[1], dif);
  }
};

// The genes of each block of a chain kernel launch of `shape`: its warps' tiles of 32 runs of L.
template <int L>
__host__ __device__ inline Dim sw_chain_block_genes(const ReduceShape& shape) {
  return static_cast<Dim>(kWarps) * shape.tiles_per_warp * 32 * L;
}
// The rows that each block of a chain kernel launch stages in shared memory for the application:
// none, its genes of x and the bias, or those and of the kept dif. Their number is the value.
enum class SwStaged : int { kNone = 0, kGenes = 2, kGenesAndDif = 3 };
// The dynamic shared memory of a chain kernel launch of `shape` whose blocks stage those rows,
// and with stages_shift a row of o, in doubles, after them; each block holds `halves` of the
// shape's blocks (paired blocks: 2).
template <int L>
inline std::size_t sw_chain_staged_bytes(const ReduceShape& shape, SwStaged staged,
                                         bool stages_shift = false, int halves = 1) {
  return (static_cast<std::size_t>(staged) * sizeof(real_t) +
          (stages_shift ? sizeof(double) : 0)) *
         static_cast<std::size_t>(sw_chain_block_genes<L>(shape)) *
         static_cast<std::size_t>(halves);
}

// The chain kernel in whole lanes is bounded to two blocks per SM (128 registers; declared as
// one block of 2 x kThreads, the same bound, so that it may run in paired blocks), the
// residency that holds its grid at 10^6-D and 3*10^6-D. Unbounded, the fold of the apply into
// the pass and the staged genes took Griewank's and Salomon's kernels past it, and each fell back
// to a slower form (bench/results/2026-11-28-h100-nam-rows-sw-fold). Not for ordered partials
// (Schwefel 1.2): bounded, its kernel spilled and ran slower than its fallback. Where not
// bounded, no minimum at all:
// `__launch_bounds__(kThreads, 1)` is not the same as none (docs/what-we-tried.md).
template <class Term, int L>
inline constexpr bool kChainTwoBlocksPerSm = L == kVec && !Term::Partial::kOrdered;

// Whether a chain kernel launch of `shape` may run as paired blocks: blocks of 2 x kThreads,
// each two of the shape's blocks, one per SM where the shape has two (the same 128 registers
// per thread). Each block combines its two halves' partials as the grid's tree combines them
// first, two by two, where the shape has more blocks than kThreads and at most twice as many
// (block_reduce_ordered: two partials per thread): the same total, to the bit, from half the
// partials. The grid barrier then waits for half the blocks, and each block reads half the
// partials after it. Only the kernels bounded to two blocks per SM, whose bound of 128
// registers a paired block keeps.
template <class Term, int L>
inline bool sw_chain_pairs_blocks(const ReduceShape& shape) {
  return kChainTwoBlocksPerSm<Term, L> && shape.blocks_x > kThreads &&
         shape.blocks_x <= 2 * kThreads && shape.blocks_x % 2 == 0;
}

// A whole Solis-Wets application in one launch (the chain kernel): each step is SwBothMovesOp's
// pass; every block publishes its partial, a grid-wide barrier, then every block combines all
// the partials in order and settles the step for itself (the same decision everywhere: no block
// waits on another's reduction, and no state goes through memory); every thread applies an
// accepted move to its own genes: kKeepsDif, in the next step's pass (SwChainStepOp), with the
// dif it stored in step_dif (one row) as it made the candidates; otherwise right after the
// decision, drawing dif again from its state at the step's start. No
// host launch, copy or decision per step. The stored dif pays where the row stays in L2 (beside
// x and the bias where they are not staged), and costs where it pushes them out
// (bench/results/2026-11-27-h100-kept-dif); two variants, for a branch between the two applies
// took more registers, which halved the co-resident grid.
//
// The grid must be co-resident (a cooperative launch). Genes map to threads, XORWOW states to
// genes, and partials to trees exactly as in produce_reduce_kernel's one-row launch of the same
// shape: the steps take the same decisions, to the bit, as SwBothMovesOp and SwApplyOp launched
// per step. *op.state holds the application's state before and after; each block keeps one
// copy in shared memory in between. The partials alternate between two halves of
// block_partials (2 x grid pairs), so a block's next step never overwrites a partial that a
// slower block still reads.
// A grid of one block needs no barrier beyond the block's. A block of 2 x kThreads threads
// holds two of the shape's blocks (sw_chain_pairs_blocks): its genes, states and warps are
// theirs, in order, and it publishes the combination of their two partials.
//
// staged (not kNone): the launch gave each block dynamic shared memory for its genes of x and
// the bias, and with kGenesAndDif of the dif (sw_chain_staged_bytes). x and the bias are read
// once, the steps move them there, and they are written back at the end: a step's pass then
// reads no row from L2, where the whole grid asked for the same 8-12 bytes per gene at once
// after each barrier. Otherwise the steps move x and the bias in memory; step_dif holds the dif
// unless it is staged (kKeepsDif and kGenes: x and the bias staged, the dif row in memory, where
// the three rows would leave one block per SM: 3*10^6-D on the H100).
// kShift, how a built-in function's kernel takes o (the same z, to the bit, every way): kRow
// (with kGenesAndDif) computes each block's o once, as doubles in a row after the staged ones
// (sw_chain_staged_bytes), and the steps read it there (RowShiftTerm); kStored reads the
// engine's device copy of o, floats in 16-byte loads beside each run (StoredShiftTerm, from L2,
// where the row does not fit: 3*10^6-D); kHashed hashes o for every gene of every step, a dozen
// integer instructions per gene that the other two save
// (bench/results/2026-11-28-h200-sw-shift-row).
enum class SwShift : int { kHashed, kRow, kStored };
template <class Term, bool kKeepsDif, int L, SwShift kShift = SwShift::kHashed>
__global__ void __launch_bounds__(kChainTwoBlocksPerSm<Term, L> ? 2 * kThreads : kThreads,
                                  kChainTwoBlocksPerSm<Term, L> ? 1 : 0)
    sw_chain_kernel(SwBothMovesOp<L> op, Term term, ReduceShape shape, curandState* rng_states,
                    PairPartial<typename Term::Partial>* block_partials, real_t* step_dif,
                    SwStaged staged, const real_t* stored_o, double* slot_fitness, int slot) {
  constexpr bool kStagesShift = kShift == SwShift::kRow;
  using StepTerm = std::conditional_t<
      kStagesShift, typename ShiftForms<Term>::Row,
      std::conditional_t<kShift == SwShift::kStored, typename ShiftForms<Term>::Stored, Term>>;
  using Pair = PairTerm<StepTerm>;
  using Partial = typename Pair::Partial;
  static_assert(std::is_same_v<Partial, PairPartial<typename Term::Partial>>);
  // The shape's blocks that this block holds: 2 in a paired block, which only a kernel bounded
  // to two blocks per SM may run as (the others keep their code as it is without pairs).
  constexpr bool kMayPair = kChainTwoBlocksPerSm<Term, L>;
  const int halves = kMayPair ? static_cast<int>(blockDim.x) / kThreads : 1;
  const int warp = threadIdx.x / 32;
  const int block_warps = kWarps * halves;
  const std::size_t thread_id =
      static_cast<std::size_t>(blockIdx.x) * (halves * kThreads) + threadIdx.x;
  curandState rng = rng_states[thread_id];
  const Dim tiles = (shape.dim + 32 * L - 1) / (32 * L);
  const Dim first_tile =
      (static_cast<Dim>(blockIdx.x) * block_warps + warp) * shape.tiles_per_warp;
  // The block's genes, staged: [first, first + block_genes).
  const Dim block_genes = sw_chain_block_genes<L>(shape) * halves;
  const Dim first = static_cast<Dim>(blockIdx.x) * block_genes;
  const Dim end_tile = first_tile + shape.tiles_per_warp < tiles
                           ? first_tile + shape.tiles_per_warp : tiles;
  const bool one_block = gridDim.x == 1;
  real_t* const x = const_cast<real_t*>(op.x);
  real_t* const bias = const_cast<real_t*>(op.bias);
  extern __shared__ uint4 staged_words[];  // 16-byte aligned, as the runs' loads need
  real_t* const staged_row = reinterpret_cast<real_t*>(staged_words);
  // kStagesShift: staged is kGenesAndDif (the launch checked). In whole lanes only: the
  // short-lane kernel ran slower so (docs/what-we-tried.md).
  constexpr bool kSharedRows = kStagesShift && L == kVec;
  using Rows = std::conditional_t<kSharedRows, SwSharedRows, SwRows>;
  const Rows rows = [&]() -> Rows {
    if constexpr (kSharedRows) {
      return {staged_row, block_genes, first};
    } else {
      if (staged == SwStaged::kNone) return {x, bias, 0, step_dif, 0};
      if (staged == SwStaged::kGenesAndDif)
        return {staged_row, staged_row + block_genes, first, staged_row + 2 * block_genes, first};
      return {staged_row, staged_row + block_genes, first, step_dif, 0};
    }
  }();
  if (staged != SwStaged::kNone)
    sw_copy_staged_runs<true, L>(x, bias, rows, first_tile, end_tile, shape.dim);
  // kStagesShift: each thread writes the o of its own genes, which only it reads.
  const StepTerm step_term = [&]() -> StepTerm {
    if constexpr (kStagesShift) {  // staged is kGenesAndDif (the launch checked)
      double* const o_row =
          reinterpret_cast<double*>(staged_row + static_cast<int>(staged) * block_genes);
      for_lane_runs<L>(first_tile, end_tile, shape.dim, [&](Dim j0, int n) {
        for (int k = 0; k < n; ++k)
          o_row[StepTerm::template at<L>(j0 - first + k)] = term.shift.value(j0 + k);
      });
      return {o_row, first};
    } else if constexpr (kShift == SwShift::kStored) {
      return {stored_o};
    } else {
      return term;
    }
  }();
  const Pair pair{step_term};

  __shared__ Partial warp_results[(kMayPair ? 2 : 1) * kWarps];  // a paired block's two halves'
  __shared__ Partial scratch[(kMayPair ? 2 : 1) * kWarps];
  // The application's state, one copy per block: thread 0 settles each step in it, and the
  // other threads read the fields they need (a per-thread copy held more registers:
  // bench/results/2026-11-27-h100-chain-settle).
  __shared__ SwDeviceState state;
  __shared__ int step_phase;  // how the last step ended
  if (threadIdx.x == 0) state = load_from_l2(op.state);
  __syncthreads();
  int half = 0;  // which half of block_partials this step's partials go to
  int pending = kSwIdle;  // kKeepsDif: the last step's success, applied by the next pass
  double pending_scale = 1.0;
  while (state.evaluations < state.budget) {
    const double rho = state.rho, scale = state.bias_scale;  // the step's
    const curandState step_start = rng;
    const Partial warp_partial = reduce_warp_tiles(
        SwChainStepOp<L, kKeepsDif, Rows>{op, rows, rho, scale, pending, pending_scale},
        pair, 0, first_tile, end_tile, 0, shape.dim, 0, rng);
    if ((threadIdx.x & 31) == 0) warp_results[warp] = warp_partial;
    __syncthreads();  // also: every thread has read the step's state
    Partial* const step_partials = block_partials + half * gridDim.x;
    Partial total{};  // the step's, in thread 0
    if constexpr (kMayPair) {  // four __syncthreads a step, with the one above (one block: two)
      if (warp == 0) {
        total = warp0_block_total(warp_results, halves);
        if (!one_block && threadIdx.x == 0) {
          step_partials[blockIdx.x] = total;
          grid_barrier_one_thread();
        }
      }
      if (!one_block) __syncthreads();  // thread 0 has seen every block's partial published
    } else {
      total = block_reduce_ordered(ContiguousItems<Partial>{warp_results}, kWarps, scratch);
      if (!one_block) {
        if (threadIdx.x == 0) step_partials[blockIdx.x] = total;
        cooperative_groups::this_grid().sync();  // every partial is published
      }
    }
    if (!one_block) {
      // Read from L2: this SM's L1 may hold the same addresses from two steps ago. The first
      // kThreads of a paired block combine them.
      total = block_reduce_ordered<kMayPair>(
          L2Items<Partial>{step_partials},
          !kMayPair || threadIdx.x < kThreads ? static_cast<int>(gridDim.x) : 0, scratch);
      half ^= 1;
    }
    if (threadIdx.x == 0) {
      SwDeviceState next = state;
      op.settle(next, pair, total);
      step_phase = next.phase;
      if (next.phase != kSwIdle) sw_adapt_after_apply(next, op.params);  // the move follows
      state = next;
    }
    __syncthreads();
    const int phase = step_phase;
    const bool success = phase == kSwForwardSuccess || phase == kSwBackwardSuccess;
    if constexpr (kKeepsDif) {  // the next pass moves each run first (the thread's own dif)
      pending = success ? phase : kSwIdle;
      pending_scale = scale;
    } else if (success) {
      curandState replay = step_start;
      for_lane_runs<L>(first_tile, end_tile, shape.dim, [&](Dim j0, int n) {
        sw_apply_run<L>(phase, rho, scale, rows.x_at(j0), rows.bias_at(j0), n, replay, op.lower,
                        op.upper);
      });
    }
  }
  if constexpr (kKeepsDif) {  // the last step's success, with no pass after it
    if (pending != kSwIdle)
      for_lane_runs<L>(first_tile, end_tile, shape.dim, [&](Dim j0, int n) {
        real_t xs[L], bs[L];
        sw_apply_kept_dif(pending, pending_scale, rows.x_at(j0), rows.bias_at(j0),
                          rows.dif_at(j0), n, op.lower, op.upper, xs, bs);
      });
  }
  const double final_scale = state.bias_scale;
  if (final_scale != 1.0)
    for_lane_runs<L>(first_tile, end_tile, shape.dim, [&](Dim j0, int n) {
      sw_scale_bias_run<L>(final_scale, rows.bias_at(j0), n);
    });
  if (staged != SwStaged::kNone)
    sw_copy_staged_runs<false, L>(x, bias, rows, first_tile, end_tile, shape.dim);
  rng_states[thread_id] = rng;
  // Every block has read the application's state (an application with no step left reads it
  // only at the start) before block 0 overwrites it with the final one.
  if (!one_block) cooperative_groups::this_grid().sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    SwDeviceState s = state;
    s.bias_scale = 1.0;
    s.rng_parity = 0;  // the states went back where they came from
    s.phase = kSwIdle;
    *op.state = s;
    slot_fitness[slot] = s.f_current;
  }
}

}  // namespace chainsaw::device
