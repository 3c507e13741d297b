// The CPU backend's per-gene passes over one chunk: make its genes (random, BLX-alpha children,
// Solis-Wets candidates) in branch-free loops the compiler vectorises, then evaluate them while
// they are in L1. On x86-64 with GCC each pass is compiled for AVX-512 (x86-64-v4), AVX2
// (x86-64-v3) and the baseline, and the loader picks the widest the CPU has (target_clones):
// no -march needed, and every version gives the same bits (no FMA contraction, no reordered
// sums), so results do not depend on the machine's vector width either.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/types.hpp"
#include "fitness/problem.hpp"
#include "localsearch/solis_wets.hpp"

namespace chainsaw {

// A chunk's partial of any built-in function, as bytes: the passes are plain functions (one
// entry point per pass for the loader to choose), the engine knows the Partial type.
struct ChunkPartial {
  alignas(8) unsigned char bytes[64];
  template <class Partial>
  Partial as() const {
    static_assert(sizeof(Partial) <= sizeof(bytes), "a function's partial outgrew ChunkPartial");
    Partial p;
    std::memcpy(&p, bytes, sizeof p);
    return p;
  }
};

// Global genes [begin, end) of one chunk; o_values: o from gene begin on (a host copy of the
// problem's shift), or null to hash it.
struct ChunkSpan {
  Dim begin = 0;
  Dim end = 0;
  const real_t* o_values = nullptr;
  Dim size() const { return end - begin; }
};

// Every pointer is at the chunk's first gene. The passes of a CEC 2010 function or a user
// objective only make the genes (visit_function's GenesOnly).

// x = uniform in the domain, draws of stream `key`.
ChunkPartial random_genes_chunk(const Problem& problem, const ChunkSpan& span, std::uint64_t key,
                                real_t* x);

// child = BLX-alpha of a and b; mutated (chunk-local, or -1): that gene moves by mutation_step.
ChunkPartial crossover_chunk(const Problem& problem, const ChunkSpan& span, std::uint64_t key,
                             const real_t* a, const real_t* b, double alpha, Dim mutated,
                             double mutation_step, real_t* child);

// dif = rho N(0, 1) from stream `key`, candidate = clip(x + bias + dif).
ChunkPartial sw_forward_chunk(const Problem& problem, const ChunkSpan& span, std::uint64_t key,
                              double rho, const real_t* x, const real_t* bias, real_t* dif,
                              real_t* candidate);

// candidate = clip(x - bias - dif).
ChunkPartial sw_backward_chunk(const Problem& problem, const ChunkSpan& span, const real_t* x,
                               const real_t* bias, const real_t* dif, real_t* candidate);

// Sum of (a_j - b_j)^2 over n genes, in the lane order of every chunk sum (fitness/host_fitness.hpp).
double squared_distance_chunk(const real_t* a, const real_t* b, Dim n);

// The bias vector after a Solis-Wets step's outcome (not kNoDecision), over n genes.
void sw_update_bias_chunk(SwOutcome outcome, const real_t* dif, real_t* bias, Dim n);

}  // namespace chainsaw
