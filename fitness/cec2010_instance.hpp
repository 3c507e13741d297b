// The data of a CEC 2010 instance: the optimum o, the permutation P and the rotation M, in host
// memory. Generated from the problem seed (deterministic, independent of the thread count) or
// read from a text file (`--instance FILE`, format in the README); what a file leaves out is
// generated. The CUDA backend copies it to the device once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fitness/cec2010.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

struct CecInstance {
  Dim dim = 0;
  Dim groups = 0;
  // o rounded to the genes' precision: x = o is then a point the search can reach, with f = 0.
  std::vector<real_t> o;
  std::vector<std::int32_t> perm;     // empty when the function has no groups (F1-F3, F19, F20)
  std::vector<std::int32_t> inverse;  // inverse[perm[k]] = k
  std::vector<double> rotation;       // m x m row-major; empty when it has no groups

  // Host pointers.
  CecView view() const;

  static CecInstance generate(const FunctionInfo& info, Dim dim, std::uint64_t seed);
  // Sections missing from the file are generated from `seed` as above.
  static CecInstance load(const std::string& path, const FunctionInfo& info, Dim dim,
                          std::uint64_t seed);
};

CecLayout cec2010_layout(FunctionId id);

// max |(M M^T)_ik - delta_ik| of an n x n row-major matrix.
double orthogonality_error(const std::vector<double>& m, int n);

// f(x) of a stored individual on the host: kHostChunk items per chunk, in parallel, combined in
// order (the same tree for any thread count).
double evaluate_cec2010_host(const Problem& problem, const real_t* x);

}  // namespace chainsaw
