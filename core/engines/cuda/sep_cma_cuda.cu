#include "core/engines/cuda/sep_cma_cuda.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "core/algorithms/sep_cma_es.hpp"
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/engines/cuda/sep_cma_kernels.cuh"
#include "core/error.hpp"
#include "core/gpu/cuda_check.hpp"
#include "core/gpu/device_buffer.hpp"

namespace chainsaw {

namespace {

// Blocks of the element-wise passes: enough to fill an H200 several times over; the passes
// are grid-stride loops, so their results do not depend on it.
constexpr int kElementBlocks = 4096;

int element_blocks(Dim n) {
  const Dim blocks = (n + device::kSepCmaThreads - 1) / device::kSepCmaThreads;
  return static_cast<int>(std::min<Dim>(blocks, kElementBlocks));
}

// The engine's configuration for `lambda` offspring: a slot and a launch row per offspring
// (capacity = population_size + batch), whole individuals.
Config engine_config(const Config& config, int lambda) {
  Config c = config;
  c.population_size = 0;
  c.batch = lambda;
  c.nam_candidates = 1;
  c.gpu_slices = 1;
  return c;
}

class CudaSepCmaEs final : public SepCmaEs {
 public:
  CudaSepCmaEs(const Config& config, const Problem& problem) : SepCmaEs(config, problem) {
    const auto n = static_cast<std::size_t>(dim());
    for (DeviceBuffer<double>* v : {&mean_, &c_, &path_c_, &path_sigma_, &y_w_, &rank_mu_})
      *v = DeviceBuffer<double>(n);
    best_ = DeviceBuffer<real_t>(n);
    scalars_ = DeviceBuffer<device::SepCmaScalars>(1);
    partials_ = DeviceBuffer<double>(device::kUpdateBlocks);
    checks_ = DeviceBuffer<device::SepCmaDeviceChecks>(1);
    fit_engine(parameters().lambda);
  }

  std::vector<real_t> best_genes() const override {
    std::vector<real_t> out(static_cast<std::size_t>(dim()));
    CHAINSAW_CUDA_TRY(cudaStreamSynchronize(stream()));
    CHAINSAW_CUDA_TRY(cudaMemcpy(out.data(), best_.data(), best_.bytes(), cudaMemcpyDeviceToHost));
    return out;
  }

 protected:
  void start_distribution(std::uint64_t key) override {
    fit_engine(parameters().lambda);
    device::sep_cma_start_kernel<<<element_blocks(dim()), device::kSepCmaThreads, 0, stream()>>>(
        vectors(), dim(), problem_.lower, problem_.width(), key);
    CHAINSAW_CUDA_CHECK_LAUNCH();
    upload_sigma(sigma0());
  }

  void sample_and_evaluate(int count) override {
    std::vector<double>& fitness = offspring_fitness();
    if (fitness.size() < static_cast<std::size_t>(count)) fitness.resize(count);
    {
      ScopedPhase phase(timers_, Phase::kCrossover);
      ScopedBucket timer(profile_, Bucket::kCrossover);
      const CudaEngine::SlotRows rows = engine_->slot_rows();
      device::sep_cma_sample_kernel<<<element_blocks((dim() + 1) / 2), device::kSepCmaThreads,
                                      0, stream()>>>(
          vectors(), scalars_.data(), rows.genes, rows.pitch, dim(), count, config_.seed,
          static_cast<std::uint64_t>(generation_count()), problem_.lower, problem_.upper);
      CHAINSAW_CUDA_CHECK_LAUNCH();
      const std::vector<int> slots(slots_.begin(), slots_.begin() + count);
      engine_->evaluate(slots, fitness.data());
    }
    count_ga_evaluations(fitness.data(), count);
  }

  void keep_best_sample(int k) override {
    const CudaEngine::SlotRows rows = engine_->slot_rows();
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(best_.data(), rows.genes + static_cast<Dim>(k) * rows.pitch,
                                      best_.bytes(), cudaMemcpyDeviceToDevice, stream()));
  }

  void update_distribution(const std::vector<int>& order) override {
    const SepCmaParameters& p = parameters();
    SepCmaDistribution& host = distribution_on_host();
    ++host.generation;
    // From pinned memory, asynchronously: the next generation's evaluation waits for the
    // stream before `order` is written there again.
    std::copy(order.begin(), order.begin() + p.mu, host_selected_.data());
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(selected_.data(), host_selected_.data(), p.mu * sizeof(int),
                                      cudaMemcpyHostToDevice, stream()));
    const CudaEngine::SlotRows rows = engine_->slot_rows();
    const int blocks = device::update_blocks(dim());
    device::sep_cma_before_norm_kernel<<<blocks, device::kSepCmaThreads, 0, stream()>>>(
        vectors(), scalars_.data(), rows.genes, rows.pitch, selected_.data(), weights_.data(),
        p.mu, dim(), p.c_sigma, p.sigma_gain, partials_.data());
    CHAINSAW_CUDA_CHECK_LAUNCH();
    const device::SepCmaRates rates{p.c_sigma, p.d_sigma, p.c_c, p.c_1, p.c_mu, p.mu_eff, p.chi_n};
    device::sep_cma_step_kernel<<<1, device::kSepCmaThreads, 0, stream()>>>(
        scalars_.data(), partials_.data(), blocks, rates, static_cast<double>(dim()),
        static_cast<double>(host.generation));
    CHAINSAW_CUDA_CHECK_LAUNCH();
    device::sep_cma_after_norm_kernel<<<element_blocks(dim()), device::kSepCmaThreads, 0,
                                        stream()>>>(vectors(), scalars_.data(), dim(), p.c_c,
                                                    p.c_1, p.c_mu);
    CHAINSAW_CUDA_CHECK_LAUNCH();
  }

  SepCmaCoordinateChecks coordinate_checks() const override {
    device::SepCmaDeviceChecks start{};
    const double inf = std::numeric_limits<double>::infinity();
    std::memcpy(&start.c_min_bits, &inf, sizeof(inf));
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(checks_.data(), &start, sizeof(start),
                                      cudaMemcpyHostToDevice, stream()));
    const Dim axis = static_cast<Dim>((distribution_on_host().generation - 1) % dim());
    device::sep_cma_checks_kernel<<<element_blocks(dim()), device::kSepCmaThreads, 0, stream()>>>(
        vectors(), scalars_.data(), dim(), kSepCmaTolX * sigma0(), axis, checks_.data());
    CHAINSAW_CUDA_CHECK_LAUNCH();
    device::SepCmaDeviceChecks got{};
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(&got, checks_.data(), sizeof(got), cudaMemcpyDeviceToHost,
                                      stream()));
    CHAINSAW_CUDA_TRY(cudaStreamSynchronize(stream()));
    SepCmaCoordinateChecks k;
    std::memcpy(&k.c_min, &got.c_min_bits, sizeof(double));
    std::memcpy(&k.c_max, &got.c_max_bits, sizeof(double));
    k.no_effect_coord = got.no_effect_coord != 0;
    k.no_effect_axis = got.no_effect_axis != 0;
    k.below_tol_x = got.above_tol_x == 0;
    return k;
  }

  const SepCmaDistribution& host_distribution() const override {
    copy_ = distribution_on_host();
    const auto n = static_cast<std::size_t>(dim());
    CHAINSAW_CUDA_TRY(cudaStreamSynchronize(stream()));
    const std::pair<std::vector<double>*, const DeviceBuffer<double>*> arrays[] = {
        {&copy_.mean, &mean_}, {&copy_.c, &c_}, {&copy_.path_c, &path_c_},
        {&copy_.path_sigma, &path_sigma_}};
    for (const auto& [host, device] : arrays) {
      host->resize(n);
      CHAINSAW_CUDA_TRY(cudaMemcpy(host->data(), device->data(), device->bytes(),
                                   cudaMemcpyDeviceToHost));
    }
    device::SepCmaScalars s{};
    CHAINSAW_CUDA_TRY(cudaMemcpy(&s, scalars_.data(), sizeof(s), cudaMemcpyDeviceToHost));
    copy_.sigma = s.sigma;
    return copy_;
  }

  void distribution_restored() override {
    fit_engine(parameters().lambda);
    const SepCmaDistribution& d = distribution_on_host();
    const std::pair<const std::vector<double>*, DeviceBuffer<double>*> arrays[] = {
        {&d.mean, &mean_}, {&d.c, &c_}, {&d.path_c, &path_c_}, {&d.path_sigma, &path_sigma_}};
    for (const auto& [host, device] : arrays)
      CHAINSAW_CUDA_TRY(cudaMemcpyAsync(device->data(), host->data(), device->bytes(),
                                        cudaMemcpyHostToDevice, stream()));
    const std::vector<real_t>& best = best_on_host();
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(best_.data(), best.data(), best_.bytes(),
                                      cudaMemcpyHostToDevice, stream()));
    upload_sigma(d.sigma);
  }

 private:
  cudaStream_t stream() const { return engine_->slot_rows().stream; }
  device::SepCmaVectors vectors() const {
    return {mean_.data(), c_.data(), path_c_.data(), path_sigma_.data(), y_w_.data(),
            rank_mu_.data()};
  }

  // An engine with a slot per offspring of `lambda`, and the update's weights: made again when
  // an IPOP restart grows lambda past the slots (the distribution is kept in this class).
  void fit_engine(int lambda) {
    const SepCmaParameters& p = parameters();
    if (!engine_ || lambda > engine_lambda_) {
      if (engine_) CHAINSAW_CUDA_TRY(cudaStreamSynchronize(stream()));
      engine_.reset();
      engine_ = std::make_unique<CudaEngine>(engine_config(config_, lambda), problem_);
      engine_lambda_ = lambda;
      slots_.resize(static_cast<std::size_t>(lambda));
      std::iota(slots_.begin(), slots_.end(), 0);
      selected_ = DeviceBuffer<int>(static_cast<std::size_t>(lambda));
      host_selected_ = PinnedBuffer<int>(static_cast<std::size_t>(lambda));
      weights_ = DeviceBuffer<double>(static_cast<std::size_t>(lambda));
    }
    CHAINSAW_CUDA_TRY(cudaMemcpyAsync(weights_.data(), p.weights.data(),
                                      p.weights.size() * sizeof(double), cudaMemcpyHostToDevice,
                                      stream()));
  }
  void upload_sigma(double sigma) {
    device::SepCmaScalars s{};
    s.sigma = sigma;
    CHAINSAW_CUDA_TRY(
        cudaMemcpyAsync(scalars_.data(), &s, sizeof(s), cudaMemcpyHostToDevice, stream()));
    CHAINSAW_CUDA_TRY(cudaStreamSynchronize(stream()));  // `s` leaves scope
  }

  std::unique_ptr<CudaEngine> engine_;
  int engine_lambda_ = 0;
  std::vector<int> slots_;  // 0, 1, ..., the engine's slots
  DeviceBuffer<double> mean_, c_, path_c_, path_sigma_, y_w_, rank_mu_;
  DeviceBuffer<real_t> best_;
  DeviceBuffer<device::SepCmaScalars> scalars_;
  DeviceBuffer<double> partials_;
  DeviceBuffer<device::SepCmaDeviceChecks> checks_;
  DeviceBuffer<int> selected_;
  PinnedBuffer<int> host_selected_;
  DeviceBuffer<double> weights_;
  mutable SepCmaDistribution copy_;  // host_distribution()'s
};

}  // namespace

std::unique_ptr<PopulationAlgorithm> make_cuda_sep_cma_es(const Config& config,
                                                          const Problem& problem) {
  return std::make_unique<CudaSepCmaEs>(config, problem);
}

}  // namespace chainsaw
