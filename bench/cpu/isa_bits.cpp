// The CPU passes compiled for one instruction set each give the same bits as their load-time
// versions: prints a hash of every pass's genes and partials for the six paper functions.
// bench/cpu/cpu_isa_bits.sh builds it once per instruction set and compares.
#include <cstdio>
#include <vector>
#include "core/engines/host/host_passes.hpp"
#include "core/rng.hpp"
#include "fitness/host_fitness.hpp"
using namespace chainsaw;
int main() {
  unsigned long long h = 1469598103934665603ULL;
  auto mixin = [&](const void* p, size_t n) { auto* b = (const unsigned char*)p; for (size_t i = 0; i < n; ++i) { h ^= b[i]; h *= 1099511628211ULL; } };
  for (const char* fn : {"rastrigin", "griewank", "salomon", "discus", "sumsquares", "schwefel12"}) {
    Problem p = Problem::make(fn, 5000, 3);
    const Dim n = 4096;
    std::vector<real_t> a(n), b(n), c(n), bias(n), dif(n), cand(n), cand2(n), o(n);
    for (Dim j = 0; j < n; ++j) o[j] = p.shift(j);
    ChunkSpan s{0, n, o.data()};
    ChunkPartial r = random_genes_chunk(p, s, 1, a.data()); mixin(r.bytes, 64);
    r = random_genes_chunk(p, s, 2, b.data()); mixin(r.bytes, 64);
    for (Dim j = 0; j < n; ++j) bias[j] = 0.01f * (a[j] - b[j]);
    r = crossover_chunk(p, s, 3, a.data(), b.data(), 0.5, 17, 0.3, c.data()); mixin(r.bytes, 64);
    r = sw_forward_chunk(p, s, 4, 0.2, c.data(), bias.data(), dif.data(), cand.data()); mixin(r.bytes, 64);
    r = sw_backward_chunk(p, ChunkSpan{0, n, nullptr}, c.data(), bias.data(), dif.data(), cand2.data()); mixin(r.bytes, 64);
    double d = squared_distance_chunk(a.data(), b.data(), n); mixin(&d, 8);
    sw_update_bias_chunk(SwOutcome::kForwardSuccess, dif.data(), bias.data(), n);
    for (auto* v : {&a, &b, &c, &bias, &dif, &cand, &cand2}) mixin(v->data(), n * sizeof(real_t));
  }
  printf("%016llx\n", h);
}
