#include "core/engines/cuda/population_cuda.hpp"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>

#include "core/algorithms/scatter_search.hpp"
#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"
#include "core/engines/cuda/population_kernels.cuh"
#include "core/engines/cuda/sep_cma_cuda.hpp"
#include "core/error.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/janssen/device_janssen.cuh"

namespace chainsaw {

namespace {

// The functions of generated data and CEC 2010's, evaluated by their own batch kernel
// (device::BatchRow).
bool evaluated_by_batch_kernel(const Problem& problem) {
  return problem.is_cec2010() || (problem.has_generated_data() && problem.external->device);
}

// The batch kernel of a function that is not a per-gene term (Janssen's too): CEC 2010's is
// made here (a CEC Problem carries no objective callback).
DeviceBatchFn batch_kernel(const Problem& problem) {
  if (problem.is_cec2010()) return cec2010_device_batch(problem.cec, problem.function);
  return problem.is_janssen() || evaluated_by_batch_kernel(problem) ? problem.external->device
                                                                    : DeviceBatchFn{};
}

}  // namespace

bool population_runs_on_cuda(const Config& config, const Problem& problem, std::string* why) {
  const char* reason = nullptr;
  if (config.algorithm == AlgorithmKind::kSepCmaEs) {
    // Evaluated by a CudaEngine: what the engine evaluates, --milestones included.
    if (problem.is_external() && !problem.external->device && !problem.external->device_passes)
      reason = "the objective has no device callback";
    else if (config.gpu_slices > 1)
      reason = "sep-cma-es holds whole individuals on one GPU (--gpu-slices 1)";
  } else if (config.algorithm == AlgorithmKind::kMaSwChains)
    reason = "ma-sw-chains runs on the CUDA engine, not the population path";
  else if (problem.is_external() && !problem.is_janssen() && !evaluated_by_batch_kernel(problem))
    reason = "the GPU population path evaluates the built-in functions only, not user objectives";
  else if (!config.milestones.empty())
    reason = "the GPU population path does not record --milestones";
  if (reason && why) *why = reason;
  return reason == nullptr;
}

namespace {

// Launch shape from the device: a warp multiple covering D, at most 256 threads (a block per
// individual; more individuals than SMs keep every SM busy).
int block_threads(Dim dim) {
  int device = 0, warp = 32, max_threads = 1024;
  CHAINSAW_CUDA_TRY(cudaGetDevice(&device));
  CHAINSAW_CUDA_TRY(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device));
  CHAINSAW_CUDA_TRY(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device));
  const Dim cover = (dim + warp - 1) / warp * warp;
  return static_cast<int>(std::min<Dim>(cover, std::min(device::kMaxRowBlockThreads, max_threads)));
}

// f(Fn{}) for the problem's function: the built-in per-gene functions, the Janssen functions as
// device::JanssenRow and those of generated data and CEC 2010's as device::BatchRow.
template <class F>
void visit_per_gene_function(const Problem& problem, F&& f) {
  if (problem.is_janssen()) return f(device::JanssenRow{});
  if (evaluated_by_batch_kernel(problem)) return f(device::BatchRow{});
  visit_function(problem.function, [&](auto fn) {
    using Fn = decltype(fn);
    if constexpr (std::is_same_v<Fn, GenesOnly>) {
      throw UserError("the GPU population path evaluates the built-in functions only, not "
                      "user objectives");
    } else {
      f(fn);
    }
  });
}

// Generations queued per unit before the host waits once (for the best fitness, the stopping
// criteria and checkpoints).
constexpr int kGenerationsPerUnit = 32;

class CudaPopulation final : public PopulationAlgorithm {
 public:
  CudaPopulation(const Config& config, const Problem& problem)
      : PopulationAlgorithm(config, problem),
        pso_(config.algorithm == AlgorithmKind::kPso),
        n_(config.algorithm_population()),
        dim_(problem.dim),
        vmax_(config.pso_vmax * problem.width()) {
    threads_ = block_threads(dim_);
    // A function evaluated by its own code (Janssen's, a batch kernel) reads its o there; the
    // fused kernels' copy of the shift must not point into host memory (CEC 2010's o).
    shift_ = problem.shift;
    if (problem.is_janssen() || evaluated_by_batch_kernel(problem)) shift_.stored = nullptr;
    if (problem.is_janssen()) {
      janssen_ = std::make_unique<DeviceJanssen>(*problem.janssen);
      janssen_view_ = janssen_->view;
    }
    const std::size_t genes = static_cast<std::size_t>(n_) * static_cast<std::size_t>(dim_);
    for (int b = 0; b < 2; ++b) {
      genes_[b] = DeviceBuffer<real_t>(genes);
      fitness_[b] = DeviceBuffer<double>(static_cast<std::size_t>(n_));
      f_[b] = DeviceBuffer<double>(static_cast<std::size_t>(n_));
      cr_[b] = DeviceBuffer<double>(static_cast<std::size_t>(n_));
    }
    if (pso_) {
      velocity_ = DeviceBuffer<real_t>(genes);
      pbest_ = DeviceBuffer<real_t>(genes);
      pbest_fitness_ = DeviceBuffer<double>(static_cast<std::size_t>(n_));
      gbest_ = DeviceBuffer<real_t>(static_cast<std::size_t>(dim_));
      best_index_ = DeviceBuffer<int>(1);
    }
    if (evaluated_by_batch_kernel(problem)) {
      batch_ = batch_kernel(problem);
      trial_fitness_ = DeviceBuffer<double>(static_cast<std::size_t>(n_));
      evaluate_rows(nullptr, 0, nullptr);  // the function's data to the device, before the clock
    }
    host_fitness_.assign(static_cast<std::size_t>(n_), 0.0);
    const bool adaptive = config.algorithm == AlgorithmKind::kJde;
    const std::vector<double> f(static_cast<std::size_t>(n_), adaptive ? kJdeInitialF : config.de_f);
    const std::vector<double> cr(static_cast<std::size_t>(n_),
                                 adaptive ? kJdeInitialCr : config.de_cr);
    upload(f_[0].data(), f);
    upload(cr_[0].data(), cr);
  }

  bool next_unit_cut_by_budget() const override {
    return config_.max_evaluations - counters_.evaluations <
           static_cast<std::int64_t>(kGenerationsPerUnit) * n_;
  }
  double best_fitness() const override { return host_fitness_[static_cast<std::size_t>(best_)]; }
  std::vector<real_t> best_genes() const override {
    std::vector<real_t> out(static_cast<std::size_t>(dim_));
    const real_t* rows = pso_ ? pbest_.data() : genes_[current_].data();
    stream_.synchronize();
    CHAINSAW_CUDA_TRY(cudaMemcpy(out.data(), rows + static_cast<Dim>(best_) * dim_,
                                 out.size() * sizeof(real_t), cudaMemcpyDeviceToHost));
    return out;
  }
  int population_size() const override { return n_; }

 protected:
  void initialize_members() override {
    ScopedBucket timer(profile_, Bucket::kFitness);
    dispatch([&](auto fn) {
      using Fn = decltype(fn);
      device::initialize_kernel<Fn><<<n_, threads_, shared_bytes<Fn>(), stream_.get()>>>(
          genes_[current_].data(), pso_ ? velocity_.data() : nullptr, fitness_[current_].data(),
          dim_, problem_.lower, problem_.width(), vmax_, shift_, config_.seed,
          janssen_view_);
      CHAINSAW_CUDA_CHECK_LAUNCH();
      if constexpr (device::kEvaluatedApart<Fn>)
        evaluate_rows(genes_[current_].data(), n_, fitness_[current_].data());
    });
    if (pso_) {
      CHAINSAW_CUDA_TRY(cudaMemcpyAsync(pbest_.data(), genes_[current_].data(), genes_[0].bytes(),
                                        cudaMemcpyDeviceToDevice, stream_.get()));
      CHAINSAW_CUDA_TRY(cudaMemcpyAsync(pbest_fitness_.data(), fitness_[current_].data(),
                                        fitness_[0].bytes(), cudaMemcpyDeviceToDevice,
                                        stream_.get()));
    }
    counters_.evaluations += n_;
    counters_.ga_evaluations += n_;
    refresh_best();
  }

  // Up to kGenerationsPerUnit generations queued back to back, then one wait.
  void advance_unit(std::int64_t evaluations_left) override {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kCrossover);
    std::int64_t left = evaluations_left;
    for (int g = 0; g < kGenerationsPerUnit && left > 0; ++g) {
      const int count = static_cast<int>(std::min<std::int64_t>(n_, left));
      dispatch([&](auto fn) { launch_generation<decltype(fn)>(count); });
      ++generation_;
      left -= count;
      counters_.evaluations += count;
      counters_.ga_evaluations += count;
    }
    refresh_best();
  }

  void save_arrays(AlgorithmState& s) const override {
    s.integers["generation"] = generation_;
    if (pso_) {
      s.genes["position"] = download(genes_[current_].data(), genes_[0].size());
      s.genes["velocity"] = download(velocity_.data(), velocity_.size());
      s.genes["personal_best"] = download(pbest_.data(), pbest_.size());
      s.reals["fitness"] = download(fitness_[current_].data(), fitness_[0].size());
      s.reals["personal_best_fitness"] = download(pbest_fitness_.data(), pbest_fitness_.size());
      return;
    }
    s.genes["population"] = download(genes_[current_].data(), genes_[0].size());
    s.reals["fitness"] = download(fitness_[current_].data(), fitness_[0].size());
    s.reals["f"] = download(f_[current_].data(), f_[0].size());
    s.reals["cr"] = download(cr_[current_].data(), cr_[0].size());
  }

  void restore_arrays(const AlgorithmState& s) override {
    generation_ = integer_of(s, "generation");
    const std::size_t n = static_cast<std::size_t>(n_), genes = n * static_cast<std::size_t>(dim_);
    current_ = 0;
    if (pso_) {
      upload(genes_[0].data(), genes_of(s, "position", genes));
      upload(velocity_.data(), genes_of(s, "velocity", genes));
      upload(pbest_.data(), genes_of(s, "personal_best", genes));
      upload(fitness_[0].data(), reals_of(s, "fitness", n));
      upload(pbest_fitness_.data(), reals_of(s, "personal_best_fitness", n));
    } else {
      upload(genes_[0].data(), genes_of(s, "population", genes));
      upload(fitness_[0].data(), reals_of(s, "fitness", n));
      upload(f_[0].data(), reals_of(s, "f", n));
      upload(cr_[0].data(), reals_of(s, "cr", n));
    }
    refresh_best();
  }

 private:
  template <class F>
  void dispatch(F&& f) {
    visit_per_gene_function(problem_, std::forward<F>(f));
  }
  template <class Fn>
  std::size_t shared_bytes() const {
    return static_cast<std::size_t>(threads_) * sizeof(typename Fn::Partial);
  }

  template <class Fn>
  void launch_generation(int count) {
    if (pso_) {
      device::best_row_kernel<<<1, threads_, 0, stream_.get()>>>(
          pbest_fitness_.data(), n_, pbest_.data(), dim_, best_index_.data(), gbest_.data());
      CHAINSAW_CUDA_CHECK_LAUNCH();
      device::PsoStep a{genes_[current_].data(), velocity_.data(), pbest_.data(),
                        fitness_[current_].data(), pbest_fitness_.data(), gbest_.data(), count,
                        dim_, problem_.lower, problem_.upper, config_.pso_w, config_.pso_c1,
                        config_.pso_c2, vmax_, shift_, config_.seed,
                        static_cast<std::uint64_t>(generation_), janssen_view_};
      device::pso_step_kernel<Fn><<<count, threads_, shared_bytes<Fn>(), stream_.get()>>>(a);
      CHAINSAW_CUDA_CHECK_LAUNCH();
      if constexpr (device::kEvaluatedApart<Fn>) {
        evaluate_rows(a.x, count, a.fitness);
        device::pso_select_kernel<<<count, threads_, 0, stream_.get()>>>(a);
        CHAINSAW_CUDA_CHECK_LAUNCH();
      }
      return;
    }
    const int next = 1 - current_;
    device::DeGeneration a{genes_[current_].data(), genes_[next].data(),
                           fitness_[current_].data(), fitness_[next].data(),
                           f_[current_].data(), cr_[current_].data(), f_[next].data(),
                           cr_[next].data(), n_, count, dim_, problem_.lower, problem_.upper,
                           shift_, config_.seed, static_cast<std::uint64_t>(generation_),
                           config_.algorithm == AlgorithmKind::kJde,
                           config_.de_crossover == DeCrossover::kExponential, config_.jde_tau1,
                           config_.jde_tau2, janssen_view_};
    device::de_generation_kernel<Fn><<<n_, threads_, shared_bytes<Fn>(), stream_.get()>>>(a);
    CHAINSAW_CUDA_CHECK_LAUNCH();
    if constexpr (device::kEvaluatedApart<Fn>) {
      evaluate_rows(a.out, count, trial_fitness_.data());
      device::de_select_kernel<<<count, threads_, 0, stream_.get()>>>(a, trial_fitness_.data());
      CHAINSAW_CUDA_CHECK_LAUNCH();
    }
    current_ = next;
  }

  // BatchRow: f of rows [0, rows) of `genes` (stride D) by the function's batch kernel.
  void evaluate_rows(const real_t* genes, int rows, double* fitness) {
    batch_(genes, dim_, rows, dim_, fitness, stream_.get());
  }

  // The one wait of a unit: the fitness the host needs for the best and the stopping rules.
  void refresh_best() {
    const double* f = pso_ ? pbest_fitness_.data() : fitness_[current_].data();
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(host_fitness_.data(), f, host_fitness_.size() * sizeof(double),
                                      cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    best_ = static_cast<int>(std::min_element(host_fitness_.begin(), host_fitness_.end()) -
                             host_fitness_.begin());
  }

  template <class T>
  std::vector<T> download(const T* device, std::size_t count) const {
    std::vector<T> out(count);
    stream_.synchronize();
    CHAINSAW_CUDA_TRY(cudaMemcpy(out.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
    return out;
  }
  template <class T>
  void upload(T* device, const std::vector<T>& values) {
    // On the run's stream and waited for: a pageable cudaMemcpy may return before its DMA ends,
    // and the non-blocking stream would not wait for it.
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(device, values.data(), values.size() * sizeof(T),
                                      cudaMemcpyHostToDevice, stream_.get()));
    stream_.synchronize();
  }

  bool pso_;
  int n_;
  Dim dim_;
  double vmax_;
  int threads_ = 32;
  Shift shift_;  // o as the fused kernels see it
  CudaStream stream_;
  DeviceBuffer<real_t> genes_[2];  // DE: double-buffered generations; PSO: positions in [0]
  DeviceBuffer<double> fitness_[2], f_[2], cr_[2];
  DeviceBatchFn batch_;                 // BatchRow: the function's batch kernel
  DeviceBuffer<double> trial_fitness_;  // BatchRow DE: the trials' f before the selection
  int current_ = 0;
  DeviceBuffer<real_t> velocity_, pbest_, gbest_;
  DeviceBuffer<double> pbest_fitness_;
  DeviceBuffer<int> best_index_;
  std::unique_ptr<DeviceJanssen> janssen_;  // a Janssen function's data on the device
  JanssenView janssen_view_{};
  std::vector<double> host_fitness_;
  int best_ = 0;
  std::int64_t generation_ = 0;
};

// Scatter Search with steps 3 and 4 on the GPU: a block per pool member combines its parents
// and runs its whole Solis-Wets improvement (ss_combine_improve_kernel); the reference set (a few
// rows) stays with the host, which builds and updates it as on the CPU. An iteration whose
// budget cannot cover every member's worst case runs on the CPU, member after member, as there.
// A function that is not a per-gene term (Janssen's, CEC 2010's, those of generated data) takes
// the same steps cut at each evaluation, which its batch kernel makes for all members at once
// (improve_apart).
class CudaScatterSearch final : public ScatterSearch {
 public:
  CudaScatterSearch(const Config& config, const Problem& problem)
      : ScatterSearch(config, problem),
        threads_(block_threads(problem.dim)),
        batch_(batch_kernel(problem)) {
    const std::size_t rows = static_cast<std::size_t>(children());
    const std::size_t genes = rows * static_cast<std::size_t>(dim());
    device_reference_ = DeviceBuffer<real_t>(static_cast<std::size_t>(reference_size()) *
                                static_cast<std::size_t>(dim()));
    device_pool_ = DeviceBuffer<real_t>(genes);
    device_bias_ = DeviceBuffer<real_t>(genes);
    device_parents_ = DeviceBuffer<int>(2 * rows);
    device_fitness_ = DeviceBuffer<double>(rows);
    device_spent_ = DeviceBuffer<long long>(rows);
    if (batch_) {
      device_state_ = DeviceBuffer<SolisWetsState>(rows);
      device_candidate_ = DeviceBuffer<real_t>(genes);
      device_candidate_fitness_ = DeviceBuffer<double>(rows);
      device_pending_ = DeviceBuffer<int>(rows);
      batch_(nullptr, dim(), 0, dim(), nullptr, stream_.get());  // the data to the device now
    }
  }

 protected:
  bool combine_and_improve(const std::vector<int>& parent_a, const std::vector<int>& parent_b,
                           int count, std::uint64_t iteration,
                           std::vector<std::int64_t>& spent) override {
    cudaStream_t s = stream_.get();
    const std::vector<real_t>& ref = reference();
    std::vector<int> parents(parent_a.begin(), parent_a.begin() + count);
    parents.insert(parents.end(), parent_b.begin(), parent_b.begin() + count);
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(device_reference_.data(), ref.data(), ref.size() * sizeof(real_t),
                                      cudaMemcpyHostToDevice, s));
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(device_parents_.data(), parents.data(),
                                      parents.size() * sizeof(int), cudaMemcpyHostToDevice, s));
    device::SsIteration a{device_reference_.data(), device_parents_.data(), device_parents_.data() + count, device_pool_.data(),
                          device_bias_.data(), device_fitness_.data(), device_spent_.data(), count,
                          config_.ss_ls_iterations,
                          2 * static_cast<long long>(config_.ss_ls_iterations), dim(),
                          problem_.lower, problem_.upper, config_.ss_lambda,
                          config_.solis_wets, problem_.shift, config_.seed, iteration};
    if (batch_) {
      improve_apart(a);
    } else {
      visit_per_gene_function(problem_, [&](auto fn) {
        using Fn = decltype(fn);
        const std::size_t shared = static_cast<std::size_t>(threads_) * sizeof(typename Fn::Partial);
        device::ss_combine_improve_kernel<Fn><<<count, threads_, shared, s>>>(a);
        CHAINSAW_CUDA_CHECK_LAUNCH();
      });
    }
    const std::size_t genes = static_cast<std::size_t>(count) * static_cast<std::size_t>(dim());
    std::vector<long long> used(static_cast<std::size_t>(count));
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(pool().data(), device_pool_.data(), genes * sizeof(real_t),
                                      cudaMemcpyDeviceToHost, s));
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(pool_fitness().data(), device_fitness_.data(),
                                      static_cast<std::size_t>(count) * sizeof(double),
                                      cudaMemcpyDeviceToHost, s));
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(used.data(), device_spent_.data(), used.size() * sizeof(long long),
                                      cudaMemcpyDeviceToHost, s));
    stream_.synchronize();
    for (int m = 0; m < count; ++m) spent[static_cast<std::size_t>(m)] = used[static_cast<std::size_t>(m)];
    return true;
  }

 private:
  // ss_combine_improve_kernel's steps with the batch kernel's evaluations between them
  // (device::SsApart): the pool, then each step's forward candidates and the backward ones of
  // the members whose forward move failed (all rows are evaluated; only those are read).
  void improve_apart(const device::SsIteration& a) {
    cudaStream_t s = stream_.get();
    const device::SsApart p{device_state_.data(), device_candidate_.data(),
                            device_candidate_fitness_.data(), device_pending_.data()};
    device::ss_combine_kernel<<<a.count, threads_, threads_ * sizeof(SumPartial), s>>>(a, p);
    CHAINSAW_CUDA_CHECK_LAUNCH();
    batch_(a.pool, dim(), a.count, dim(), a.fitness, s);
    for (int step = 0; step < a.iterations; ++step) {
      for (const bool forward : {true, false}) {
        device::ss_candidates_kernel<<<a.count, threads_, 0, s>>>(a, p, step, forward);
        CHAINSAW_CUDA_CHECK_LAUNCH();
        batch_(p.candidate, dim(), a.count, dim(), p.candidate_fitness, s);
        device::ss_decide_kernel<<<a.count, threads_, 0, s>>>(a, p, step, forward);
        CHAINSAW_CUDA_CHECK_LAUNCH();
      }
    }
  }

  int threads_;
  CudaStream stream_;
  DeviceBatchFn batch_;  // the function's batch kernel; empty for per-gene functions
  DeviceBuffer<real_t> device_reference_, device_pool_, device_bias_;
  DeviceBuffer<int> device_parents_;
  DeviceBuffer<double> device_fitness_;
  DeviceBuffer<long long> device_spent_;
  DeviceBuffer<SolisWetsState> device_state_;  // improve_apart's
  DeviceBuffer<real_t> device_candidate_;
  DeviceBuffer<double> device_candidate_fitness_;
  DeviceBuffer<int> device_pending_;
};

}  // namespace

std::unique_ptr<PopulationAlgorithm> make_cuda_population_algorithm(const Config& config,
                                                                    const Problem& problem) {
  std::string why;
  if (!population_runs_on_cuda(config, problem, &why))
    throw UserError(std::string("--algorithm ") + algorithm_name(config.algorithm) +
                    " --backend cuda: " + why + "; use --backend cpu");
  if (config.algorithm == AlgorithmKind::kScatterSearch)
    return std::make_unique<CudaScatterSearch>(config, problem);
  if (config.algorithm == AlgorithmKind::kSepCmaEs) return make_cuda_sep_cma_es(config, problem);
  return std::make_unique<CudaPopulation>(config, problem);
}

}  // namespace chainsaw
