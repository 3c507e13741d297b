// A separable user objective in ~20 lines: Styblinski-Tang, sum (x^4 - 16 x^2 + 5 x) / 2,
// minimum -39.16617 D at x_i = -2.903534. Runs on the GPU when built by nvcc and one is present.
#include <chainsaw/chainsaw.hpp>

#include <cstdio>
#include <cstdlib>

struct StyblinskiTang {
  using Partial = chainsaw::SumPartial;
  chainsaw::Dim n;
  CHAINSAW_HD void accumulate(Partial& p, double x, chainsaw::Dim) const {
    p.sum += 0.5 * (x * x * x * x - 16.0 * x * x + 5.0 * x);
  }
  CHAINSAW_HD double finish(const Partial& p, chainsaw::Dim) const { return p.sum; }
  double lower() const { return -5.0; }
  double upper() const { return 5.0; }
  double optimum_value() const { return -39.16616570377142 * static_cast<double>(n); }
  std::string name() const { return "styblinski-tang"; }
};

int main(int argc, char** argv) {
  chainsaw::Options options;  // the algorithm's defaults; backend auto
  options.dim = argc > 1 ? std::atoll(argv[1]) : 100000;
  options.max_evaluations = argc > 2 ? std::atoll(argv[2]) : 100000;
  const chainsaw::Result r = chainsaw::optimize(StyblinskiTang{options.dim}, options);
  std::printf("%s: D = %lld, best %.6e (error %.6e) after %lld evaluations, %.2f s\n",
              chainsaw::backend_name(r.backend), static_cast<long long>(options.dim),
              r.best_fitness, r.best_error, static_cast<long long>(r.evaluations.evaluations),
              r.wall_seconds);
}
