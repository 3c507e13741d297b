// Uses the installed chainsaw: a per-gene objective and a batch callback, on the CPU.
#include <chainsaw/chainsaw.hpp>

#include <cstdio>

struct Sphere {  // f(x) = sum (x_i - 1)^2, minimum 0 at x = 1
  using Partial = chainsaw::SumPartial;
  CHAINSAW_HD void accumulate(Partial& p, double x, chainsaw::Dim) const {
    p.sum += (x - 1.0) * (x - 1.0);
  }
  CHAINSAW_HD double finish(const Partial& p, chainsaw::Dim) const { return p.sum; }
  double lower() const { return -5.0; }
  double upper() const { return 5.0; }
  double optimum_value() const { return 0.0; }
  std::string name() const { return "sphere"; }
};

int main() {
  chainsaw::Options options;
  options.dim = 200;
  options.max_evaluations = 4000;
  options.backend = chainsaw::Backend::kCpu;
  const chainsaw::Result a = chainsaw::optimize(Sphere{}, options);

  chainsaw::BatchObjective batch;  // the same function as a batch callback
  batch.name = "sphere-batch";
  batch.lower = -5.0;
  batch.upper = 5.0;
  batch.host = [](const chainsaw::real_t* genes, chainsaw::Dim pitch, int rows, chainsaw::Dim dim,
                  double* fitness) {
    for (int r = 0; r < rows; ++r) {
      double sum = 0.0;
      for (chainsaw::Dim j = 0; j < dim; ++j) {
        const double d = genes[r * pitch + j] - 1.0;
        sum += d * d;
      }
      fitness[r] = sum;
    }
  };
  const chainsaw::Result b = chainsaw::optimize(batch, options);
  // A random point of [-5, 5]^200 has f near 200 * (25/3 + 1) = 1867: both must do far better.
  const bool ok = a.best_fitness < 100.0 && b.best_fitness < 100.0 &&
                  a.evaluations.evaluations == 4000 && a.best_genes.size() == 200;
  std::printf("outside project: per-gene best %.6g, batch best %.6g, %lld evaluations: %s\n",
              a.best_fitness, b.best_fitness, static_cast<long long>(a.evaluations.evaluations),
              ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
