// The CUDA engine's Solis-Wets applications: the chain kernel, the launches per step, CEC 2010's
// separate evaluation of a candidate, and a user objective's steps (a call per step, or a whole
// application as one conditional CUDA graph).
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/engines/cuda/cuda_engine_impl.cuh"
#include "fitness/external_objective.hpp"

namespace chainsaw {

namespace {
using device::Spread;
}  // namespace

// CEC 2010, Solis-Wets: evaluates the stored candidate of the step's move and decides.
void CudaEngine::Impl::launch_sw_decision(bool forward) {
  timeline.mark(Bucket::kFitness);
  visit_cec2010(problem.function, [&](auto fn) {
    using Fn = decltype(fn);
    device::SwDecideOp op{forward, sw_state.data(), candidate.data(), dim};
    const auto term = launch_cec_groups<Fn>(op, candidate.data(), 0, nullptr, 1);
    launch_reduce(op, term, Spread::kOneRow, 1);
  });
}
// The blocks per SM of a Solis-Wets step on a user objective: its launches draw the same dif,
// so they share one shape.
int CudaEngine::Impl::external_sw_blocks_cap() {
  const device::PassContext ctx = context();
  return std::min(device::blocks_per_sm<device::NoTerm, device::SwCandidatesOp>(ctx),
                  device::blocks_per_sm<device::NoTerm, device::SwSettleStepOp>(ctx));
}
device::SwCandidatesOp CudaEngine::Impl::external_sw_candidates(const real_t* x,
                                                                const real_t* bias) {
  return {sw_state.data(), x, bias, problem.lower, problem.upper, candidate.data(), pitch};
}
// A Solis-Wets application on a user objective starts with its first step's candidates
// (device::SwCandidatesOp) in the two rows of `candidate`, drawn from rng_in.
device::ReduceShape CudaEngine::Impl::launch_external_sw_candidates(const real_t* x,
                                                                   const real_t* bias,
                                                                   curandState* rng_in,
                                                                   curandState* rng_out,
                                                                   int blocks_cap) {
  timeline.mark(Bucket::kSwMoves);
  return device::launch_reduce(context(), external_sw_candidates(x, bias), device::NoTerm{},
                               Spread::kOneRow, 1, rng_in, rng_out, blocks_cap);
}
// Then a step is `evaluate`, which enqueues the objective's call on the candidates (values
// into user.values), and device::SwSettleStepOp: the decision, the accepted move and the
// next step's candidates, drawn from rng_in; rng_out holds the states this step's were drawn
// from. `loop`: see SwSettleStepOp.
template <class Evaluate>
void CudaEngine::Impl::launch_external_sw_step(real_t* x, real_t* bias, curandState* rng_in,
                                               curandState* rng_out, int blocks_cap,
                                               double* slot_fitness, int slot,
                                               const Evaluate& evaluate,
                                               cudaGraphConditionalHandle loop) {
  timeline.mark(Bucket::kFitness);
  evaluate();
  timeline.mark(Bucket::kSwMoves);
  const device::SwSettleStepOp step{external_sw_candidates(x, bias),
                                    sw_params,
                                    user.values.data(),
                                    user.invalid.data(),
                                    rng_out,
                                    slot_fitness,
                                    slot,
                                    loop};
  device::launch_reduce(context(), step, device::NoTerm{}, Spread::kOneRow, 1, rng_in, rng_out,
                        blocks_cap);
}
// The graph of a whole Solis-Wets application on a user objective given as a CUDA graph too,
// after its first candidates (launch_external_sw_candidates): a while node whose body makes
// two steps (the RNG buffers alternate per step) of launch_external_sw_step, the objective's
// graph before each SwSettleStepOp; a step that leaves no evaluations ends the loop. The same
// kernels in the same order as CudaEngine::solis_wets launches per step, so the same bits;
// the host neither launches nor waits per step. Leaves user.sw_graph empty when the objective
// gives no graph.
void CudaEngine::Impl::build_sw_graph(int blocks_cap) {
  const BatchObjective& o = *problem.external;
  const cudaStream_t s = stream.get();
  // The objective may run its function on the candidates to capture it: points of the domain.
  CHAINSAW_CUDA_TRY(cudaMemcpyAsync(candidate.data(), genes.data(), candidate.bytes(),
                                    cudaMemcpyDeviceToDevice, s));
  const DeviceGraph objective =
      o.device_graph(candidate.data(), pitch, 2, dim, user.values.data(), s);
  if (objective == nullptr) return;
  user.sw_rows = DeviceBuffer<real_t>(2 * static_cast<std::size_t>(pitch));
  user.sw_graph_fitness = DeviceBuffer<double>(1);
  real_t* const x = user.sw_rows.data();
  real_t* const bias_row = user.sw_rows.data() + pitch;
  cudaGraphNodeParams child{};
  child.type = cudaGraphNodeTypeGraph;
  child.graph.graph = objective;  // cloned into each node

  CudaGraph graph;
  cudaGraphConditionalHandle loop = 0;
  CHAINSAW_CUDA_TRY(cudaGraphConditionalHandleCreate(&loop, graph.get(), 1,
                                                     cudaGraphCondAssignDefault));
  cudaGraphNodeParams while_node{};
  while_node.type = cudaGraphNodeTypeConditional;
  while_node.conditional.handle = loop;
  while_node.conditional.type = cudaGraphCondTypeWhile;
  while_node.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  CHAINSAW_CUDA_TRY(cudaGraphAddNode(&node, graph.get(), nullptr, nullptr, 0, &while_node));
  curandState* buffers[2] = {rng.data(), rng_alt.data()};
  capture_into(s, while_node.conditional.phGraph_out[0], [&] {
    for (int step = 0; step < 2; ++step)
      launch_external_sw_step(
          x, bias_row, buffers[1 - step], buffers[step], blocks_cap, user.sw_graph_fitness.data(),
          0, [&] { add_captured_node(s, child); }, loop);
  });
  user.sw_graph = CudaGraphExec(graph.get());
}

// One Solis-Wets application (CudaEngine::solis_wets) in the form the policy and the problem
// allow: the whole application in one chain kernel launch where its grid fits, one graph launch
// on a user objective given as a CUDA graph, else launches per step (both moves in one pass, a
// launch per move, or a batch callback's call per step) with the host reading the state back
// at most log2(I_str) + 2 times.
class CudaEngine::Impl::SwApplication {
 public:
  SwApplication(Impl& engine, const LocalSearchRequest& req)
      : m(engine),
        request(req),
        s(engine.stream.get()),
        x(engine.slot_genes(req.slot)),
        bias(engine.slot_bias(req.slot)),
        h(engine.host.sw[0]),
        stored(engine.stored_evaluation),
        external(stored && engine.problem.is_external()),
        separate_moves(stored || !engine.policy.solis_wets.both_moves),
        ctx(engine.context()),
        candidate(stored ? engine.candidate.data() : nullptr),
        buffers{engine.rng.data(), engine.rng_alt.data()},
        left(req.evaluations) {
    // Short runs per lane only for both moves in one pass; the separate moves take kVec genes.
    if (separate_moves) ctx.solis_wets.lane_genes = device::kVec;
  }

  LocalSearchResult run() {
    start();
    blocks_cap = step_blocks_cap();
    if (run_chain() || (left > 0 && run_graph())) left = 0;
    if (external && left > 0)
      sw_shape = m.launch_external_sw_candidates(x, bias, buffers[0], buffers[1], blocks_cap);
    while (left > 0) run_steps();
    finish();
    LocalSearchResult result;
    result.fitness = h.f_current;
    m.host_fitness[request.slot] = h.f_current;
    result.state = SolisWetsState{h.rho, h.successes, h.failures};
    result.evaluations = h.evaluations;
    return result;
  }

 private:
  // The chain's state to the device; a new chain starts from bias = 0.
  void start() {
    m.timeline.mark(Bucket::kSwMoves);
    count_vectors(m.profile, Bucket::kSwMoves, 2.0 * static_cast<double>(request.evaluations),
                  m.own.count);
    if (!request.continue_chain)
      CHAINSAW_CUDA_TRY(cudaMemsetAsync(bias, 0, sizeof(real_t) * m.own.count, s));
    h = device::SwDeviceState{request.fitness,         request.state.rho,
                              0,                       request.evaluations,
                              request.state.successes, request.state.failures,
                              device::kSwIdle,         0,
                              1.0};
    CHAINSAW_CUDA_TRY(
        cudaMemcpyAsync(m.sw_state.data(), &h, sizeof(h), cudaMemcpyHostToDevice, s));
    m.last_ls_syncs = 0;
    m.last_chain_block_threads = 0;
  }
  // f(the apply step of a success): SwApplyOp in the lane runs of the moves.
  template <class F>
  auto with_apply(const F& f) const {
    return device::with_sw_lane(ctx, [&](auto lane) {
      return f(device::SwApplyOp<lane.value>{m.sw_state.data(), x, bias, m.problem.lower,
                                             m.problem.upper, m.sw_params, m.fitness.data(),
                                             request.slot});
    });
  }
  void launch_apply(curandState* states) const {
    with_apply([&](const auto& apply) {
      device::launch_reduce(ctx, apply, device::NoTerm{}, Spread::kOneRow, 1, states, states,
                            blocks_cap);
    });
  }
  // The moves and the apply step map genes to threads alike (they draw the same dif): one shape,
  // at the lowest of their kernels' blocks per SM.
  int step_blocks_cap() const {
    if (external) return m.external_sw_blocks_cap();
    const int apply_blocks = with_apply([&](const auto& apply) {
      return device::blocks_per_sm<device::NoTerm, std::decay_t<decltype(apply)>>(ctx);
    });
    return separate_moves
               ? std::min(m.passes->solis_wets_move_blocks_per_sm(ctx), apply_blocks)
               : std::min(m.passes->solis_wets_both_moves_blocks_per_sm(ctx), apply_blocks);
  }
  // The host's one wait: where the application stands.
  void read_state() {
    CHAINSAW_CUDA_TRY(
        cudaMemcpyAsync(&h, m.sw_state.data(), sizeof(h), cudaMemcpyDeviceToHost, s));
    m.sync();
    ++m.last_ls_syncs;
  }
  // The whole application in one launch where its grid fits; one sync to read where it ended.
  bool run_chain() {
    if (!separate_moves && m.policy.solis_wets.chain && !ctx.sliced()) {
      m.last_chain_block_threads = m.passes->solis_wets_chain(
          ctx, x, bias, m.policy.solis_wets.keeps_dif ? m.sw_dif.data() : nullptr, m.sw_params,
          request.slot, blocks_cap);
    }
    if (m.last_chain_block_threads == 0) return false;
    read_state();
    return true;
  }
  // A user objective that comes as a CUDA graph: the application is one graph launch on the
  // work rows. Not profiled: the profile times the steps' launches apart. Only with evaluations
  // to make: the graph's loop ends at a step's decision.
  bool run_graph() {
    if (!external || !m.problem.external->device_graph || m.profile ||
        !m.policy.solis_wets.chain || ctx.sliced())
      return false;
    if (!m.user.sw_graph_tried) {
      m.user.sw_graph_tried = true;
      m.build_sw_graph(blocks_cap);
    }
    if (!m.user.sw_graph) return false;
    const std::size_t row_bytes = sizeof(real_t) * static_cast<std::size_t>(m.pitch);
    real_t* const work = m.user.sw_rows.data();
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(work, x, row_bytes, cudaMemcpyDeviceToDevice, s));
    CHAINSAW_CUDA_TRY(
        cudaMemcpyAsync(work + m.pitch, bias, row_bytes, cudaMemcpyDeviceToDevice, s));
    sw_shape = m.launch_external_sw_candidates(work, work + m.pitch, buffers[0], buffers[1],
                                               blocks_cap);
    m.user.sw_graph.launch(s);
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(x, work, row_bytes, cudaMemcpyDeviceToDevice, s));
    CHAINSAW_CUDA_TRY(
        cudaMemcpyAsync(bias, work + m.pitch, row_bytes, cudaMemcpyDeviceToDevice, s));
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(m.fitness.data() + request.slot,
                                      &m.sw_state.data()->f_current, sizeof(double),
                                      cudaMemcpyDeviceToDevice, s));
    read_state();
    return true;
  }
  // Each step spends one or two evaluations, so ceil(left / 2) steps never overrun the budget
  // and at least halve what is left: few host syncs per application.
  void run_steps() {
    const std::int64_t steps = (left + 1) / 2;
    m.timeline.mark(Bucket::kSwMoves);
    for (std::int64_t k = 0; k < steps; ++k)
      launch_step(buffers[(h.rng_parity + k) & 1], buffers[(h.rng_parity + k + 1) & 1]);
    read_state();
    left = h.budget - h.evaluations;
  }
  // One step drawn from `current`, its forward move's states stored to `next`.
  void launch_step(curandState* current, curandState* next) {
    if (external) {  // the step's candidates were drawn from `current`: see above
      m.launch_external_sw_step(x, bias, next, current, blocks_cap, m.fitness.data(),
                                request.slot, [&] {
                                  m.problem.external->device(candidate, m.pitch, 2, m.dim,
                                                             m.user.values.data(), s);
                                });
      return;
    }
    if (!separate_moves) {  // both moves in one pass; apply runs only after a success
      sw_shape = m.passes->solis_wets_both_moves(ctx, x, bias, m.sw_params, current, next,
                                                 blocks_cap);
      launch_apply(current);
      return;
    }
    sw_shape =
        m.passes->solis_wets_move(ctx, true, x, bias, candidate, current, next, blocks_cap);
    // CEC 2010: the candidate's evaluation is a launch of its own.
    if (stored) {
      m.launch_sw_decision(true);
      m.timeline.mark(Bucket::kSwMoves);
    }
    m.passes->solis_wets_move(ctx, false, x, bias, candidate, current, current, blocks_cap);
    if (stored) {
      m.launch_sw_decision(false);
      m.timeline.mark(Bucket::kSwMoves);
    }
    launch_apply(current);
  }
  // The bias at scale 1 and the XORWOW states back in their own buffer.
  void finish() {
    if (h.bias_scale != 1.0) {  // failures since the last success halved the bias as a scale
      m.timeline.mark(Bucket::kSwMoves);
      m.launch_reduce(device::SwScaleBiasOp{m.sw_state.data(), bias}, device::NoTerm{},
                      Spread::kOneRow, 1);
      h.bias_scale = 1.0;
    }
    if (h.rng_parity == 1) {  // the current states ended in the spare buffer: bring them home
      m.timeline.mark(Bucket::kSwMoves);
      const std::size_t stride = sizeof(curandState) * m.launch.rng_states;  // per slice
      CHAINSAW_CUDA_TRY(cudaMemcpy2DAsync(
          m.rng.data(), stride, m.rng_alt.data(), stride,
          sizeof(curandState) * static_cast<std::size_t>(sw_shape.blocks_x) * device::kThreads,
          static_cast<std::size_t>(m.layout.held), cudaMemcpyDeviceToDevice, s));
      m.sync();  // the profile's window ends here, not after the host's next decisions
    }
  }

  Impl& m;
  const LocalSearchRequest& request;
  const cudaStream_t s;
  real_t* const x;
  real_t* const bias;
  device::SwDeviceState& h;
  const bool stored;          // the candidate is stored and evaluated apart
  const bool external;        // a batch callback's steps: both candidates, one call
  const bool separate_moves;  // a launch per move
  device::PassContext ctx;
  real_t* const candidate;
  curandState* const buffers[2];
  int blocks_cap = 0;
  std::int64_t left;
  device::ReduceShape sw_shape;
};

LocalSearchResult CudaEngine::solis_wets(const LocalSearchRequest& request) {
  return Impl::SwApplication(*impl_, request).run();
}

}  // namespace chainsaw
