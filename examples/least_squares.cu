// A batch-callback objective on the GPU: least squares ||A x - b||^2 with a random sparse A
// (CSR, n x n, the diagonal plus 4 random columns per row) and b = A x* for a known x*.
// The callback multiplies the whole batch at once with cuSPARSE (SpMM: the engine's rows of
// genes, row-major with a pitch, are a column-major n x rows matrix) and reduces the residuals
// in a kernel, all on the engine's stream. Prints a JSON line with the residual reached and the
// error against x*.
//   example_least_squares [n = 1000000] [evaluations = 200000] [seed = 1]
#include <chainsaw/chainsaw.hpp>

#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/gpu/device_buffer.hpp"

#define CUSPARSE_TRY(call)                                                          \
  do {                                                                              \
    const cusparseStatus_t status_ = (call);                                        \
    if (status_ != CUSPARSE_STATUS_SUCCESS)                                         \
      throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(status_)); \
  } while (0)

using chainsaw::Dim;
using chainsaw::real_t;
using chainsaw::DeviceBuffer;

constexpr cudaDataType kType = sizeof(real_t) == 8 ? CUDA_R_64F : CUDA_R_32F;

struct Csr {
  Dim rows = 0, cols = 0;
  std::vector<int> row_ptr, col;
  std::vector<real_t> value;
};

Csr random_matrix(Dim n, std::mt19937_64& gen) {
  Csr a;
  a.rows = a.cols = n;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<Dim> column(0, n - 1);
  a.row_ptr.push_back(0);
  for (Dim i = 0; i < n; ++i) {
    std::vector<std::pair<int, real_t>> row = {{static_cast<int>(i), static_cast<real_t>(2.0 + u(gen))}};
    for (int k = 0; k < 4; ++k) {
      const auto j = static_cast<int>(column(gen));
      if (std::none_of(row.begin(), row.end(), [j](const auto& e) { return e.first == j; }))
        row.push_back({j, static_cast<real_t>(u(gen))});
    }
    std::sort(row.begin(), row.end());
    for (const auto& [j, v] : row) {
      a.col.push_back(j);
      a.value.push_back(v);
    }
    a.row_ptr.push_back(static_cast<int>(a.col.size()));
  }
  return a;
}

// ||A x - b||^2 in double on the host (the check of the reported value).
double residual_host(const Csr& a, const std::vector<double>& b, const real_t* x) {
  double sum = 0.0;
  for (Dim i = 0; i < a.rows; ++i) {
    double ax = 0.0;
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) ax += double(a.value[k]) * x[a.col[k]];
    sum += (ax - b[i]) * (ax - b[i]);
  }
  return sum;
}

// out[r] = sum_i (ax[r * m + i] - b_i)^2, one block per row, a fixed tree: reproducible.
// ||A x - b||^2 of each row of the batch in two deterministic passes: kPartials blocks per row
// each sum a contiguous slice (a Solis-Wets step evaluates a single row: one block per row
// would leave all but one SM idle), then one block per row adds the partials in a fixed order.
constexpr int kThreads = 256, kPartials = 256;

__device__ double block_sum(double s) {
  __shared__ double sums[kThreads];
  sums[threadIdx.x] = s;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) sums[threadIdx.x] += sums[threadIdx.x + w];
    __syncthreads();
  }
  return sums[0];
}

__global__ void residual_partials_kernel(const real_t* ax, const double* b, Dim m,
                                         double* partials) {
  const int r = blockIdx.y;
  const Dim slice = (m + kPartials - 1) / kPartials;
  const Dim begin = blockIdx.x * slice, end = begin + slice < m ? begin + slice : m;
  double s = 0.0;
  for (Dim i = begin + threadIdx.x; i < end; i += kThreads) {
    const double d = static_cast<double>(ax[r * m + i]) - b[i];
    s += d * d;
  }
  const double total = block_sum(s);
  if (threadIdx.x == 0) partials[r * kPartials + blockIdx.x] = total;
}

__global__ void residual_total_kernel(const double* partials, double* out) {
  const double total = block_sum(threadIdx.x < kPartials ? partials[blockIdx.x * kPartials + threadIdx.x] : 0.0);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// The device state of the objective: A on the GPU, b, the product A X of a batch, SpMM's buffer.
class LeastSquaresGpu {
 public:
  LeastSquaresGpu(const Csr& a, const std::vector<double>& b, int max_rows)
      : m_(a.rows), n_(a.cols), max_rows_(max_rows), row_ptr_(a.row_ptr.size()), col_(a.col.size()),
        value_(a.value.size()), b_(b.size()), ax_(static_cast<std::size_t>(a.rows) * max_rows),
        partials_(static_cast<std::size_t>(kPartials) * max_rows) {
    copy(row_ptr_, a.row_ptr);
    copy(col_, a.col);
    copy(value_, a.value);
    copy(b_, b);
    CUSPARSE_TRY(cusparseCreate(&handle_));
    CUSPARSE_TRY(cusparseCreateCsr(&a_, m_, n_, static_cast<std::int64_t>(a.col.size()),
                                   row_ptr_.data(), col_.data(), value_.data(), CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, kType));
  }
  ~LeastSquaresGpu() {
    cusparseDestroySpMat(a_);
    cusparseDestroy(handle_);
  }
  LeastSquaresGpu(const LeastSquaresGpu&) = delete;
  LeastSquaresGpu& operator=(const LeastSquaresGpu&) = delete;

  // The batch callback: genes are rows x n, row-major with a pitch = column-major n x rows.
  void operator()(const real_t* genes, Dim pitch, int rows, Dim, double* out, cudaStream_t s) {
    if (rows > max_rows_) throw std::runtime_error("more rows than the product buffer holds");
    cusparseDnMatDescr_t x = nullptr, ax = nullptr;
    CUSPARSE_TRY(cusparseSetStream(handle_, s));
    CUSPARSE_TRY(cusparseCreateDnMat(&x, n_, rows, pitch, const_cast<real_t*>(genes), kType,
                                     CUSPARSE_ORDER_COL));
    CUSPARSE_TRY(cusparseCreateDnMat(&ax, m_, rows, m_, ax_.data(), kType, CUSPARSE_ORDER_COL));
    const real_t one = 1, zero = 0;
    std::size_t bytes = 0;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    CUSPARSE_TRY(cusparseSpMM_bufferSize(handle_, op, op, &one, a_, x, &zero, ax, kType,
                                         CUSPARSE_SPMM_CSR_ALG1, &bytes));
    if (bytes > buffer_.size()) buffer_ = DeviceBuffer<unsigned char>(bytes);  // first calls only
    CUSPARSE_TRY(cusparseSpMM(handle_, op, op, &one, a_, x, &zero, ax, kType,
                              CUSPARSE_SPMM_CSR_ALG1, buffer_.data()));
    cusparseDestroyDnMat(x);
    cusparseDestroyDnMat(ax);
    residual_partials_kernel<<<dim3(kPartials, rows), kThreads, 0, s>>>(ax_.data(), b_.data(),
                                                                         m_, partials_.data());
    CHAINSAW_CUDA_TRY(cudaGetLastError());
    residual_total_kernel<<<rows, kThreads, 0, s>>>(partials_.data(), out);
    CHAINSAW_CUDA_TRY(cudaGetLastError());
  }

 private:
  template <class T>
  static void copy(DeviceBuffer<T>& d, const std::vector<T>& h) {
    CHAINSAW_CUDA_TRY(cudaMemcpy(d.data(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  Dim m_, n_;
  int max_rows_;
  DeviceBuffer<int> row_ptr_, col_;
  DeviceBuffer<real_t> value_;
  DeviceBuffer<double> b_;
  DeviceBuffer<real_t> ax_;
  DeviceBuffer<double> partials_;
  DeviceBuffer<unsigned char> buffer_;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t a_ = nullptr;
};

int main(int argc, char** argv) try {
  const Dim n = argc > 1 ? std::atoll(argv[1]) : 1000000;
  const std::int64_t evaluations = argc > 2 ? std::atoll(argv[2]) : 200000;
  const std::uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;

  std::mt19937_64 gen(seed);
  const Csr a = random_matrix(n, gen);
  std::vector<real_t> x_star(static_cast<std::size_t>(n));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (auto& v : x_star) v = static_cast<real_t>(u(gen));
  std::vector<double> b(static_cast<std::size_t>(n), 0.0);
  for (Dim i = 0; i < n; ++i)
    for (int k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) b[i] += double(a.value[k]) * x_star[a.col[k]];

  chainsaw::Options options;
  options.dim = n;
  options.max_evaluations = evaluations;
  options.seed = seed;
  options.backend = chainsaw::Backend::kCuda;
  options.progress = [](const chainsaw::Progress& p) {
    std::fprintf(stderr, "\r%lld / %lld evaluations, best %.6e", static_cast<long long>(p.evaluations),
                 static_cast<long long>(p.budget), p.best_fitness);
  };
  auto gpu = std::make_shared<LeastSquaresGpu>(
      a, b, std::max(options.population_size, options.batch));
  chainsaw::BatchObjective objective;
  objective.name = "least-squares-csr";
  objective.lower = -2.0;
  objective.upper = 2.0;
  objective.optimum_value = 0.0;
  objective.device = [gpu](const real_t* genes, Dim pitch, int rows, Dim dim, double* out,
                           chainsaw::DeviceStream stream) {
    (*gpu)(genes, pitch, rows, dim, out, stream);
  };
  const chainsaw::Result r = chainsaw::optimize(objective, options);
  std::fprintf(stderr, "\n");

  const double check = residual_host(a, b, r.best_genes.data());
  double b2 = 0.0, err2 = 0.0, star2 = 0.0;
  for (Dim i = 0; i < n; ++i) {
    b2 += b[i] * b[i];
    const double e = double(r.best_genes[i]) - x_star[i];
    err2 += e * e;
    star2 += double(x_star[i]) * x_star[i];
  }
  std::printf(
      "{\"example\": \"least_squares\", \"n\": %lld, \"nnz\": %zu, \"evaluations\": %lld, "
      "\"seed\": %llu, \"backend\": \"%s\", \"device\": \"%s\", \"genes\": \"%s\", "
      "\"residual_squared_at_zero\": %.9e, \"residual_squared\": %.9e, "
      "\"residual_squared_host_check\": %.9e, \"relative_residual\": %.6e, "
      "\"relative_error_vs_x_star\": %.6e, \"rms_error_vs_x_star\": %.6e, "
      "\"invalid_evaluations\": %lld, \"wall_seconds\": %.3f, \"setup_seconds\": %.3f}\n",
      static_cast<long long>(n), a.col.size(), static_cast<long long>(r.evaluations.evaluations),
      static_cast<unsigned long long>(seed), chainsaw::backend_name(r.backend), r.device.c_str(),
      sizeof(real_t) == 8 ? "float64" : "float32", b2, r.best_fitness, check,
      std::sqrt(r.best_fitness / b2), std::sqrt(err2 / star2), std::sqrt(err2 / n),
      static_cast<long long>(r.invalid_evaluations), r.wall_seconds, r.setup_seconds);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "example_least_squares: %s\n", e.what());
  return 1;
}
