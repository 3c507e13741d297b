// The data of a Janssen benchmark function (fitness/janssen/janssen.hpp): each component's
// optimum o and rotation M, and a hybrid's permutation, in host memory. Read from the official
// CEC'14/CEC'17 input data (`--instance DIR`) or generated from the problem seed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fitness/external_objective.hpp"
#include "fitness/janssen/janssen.hpp"

namespace chainsaw {

struct JanssenInstance {
  int index = 0;  // 0..9: janssen-f1 .. janssen-f10
  Dim dim = 0;
  // A composition has an optimum and a rotation per component, the others one (a hybrid
  // rotates z once, before its shuffle).
  std::vector<double> o;             // optima x D
  std::vector<double> rotation;      // optima x D x D, row-major
  std::vector<std::int32_t> perm;    // hybrids: D values, 0-based; empty otherwise
  std::vector<real_t> optimum;       // the global optimum (the first component's o) as genes

  const JanssenSpec& spec() const { return janssen_spec(index); }
  // Host pointers.
  JanssenView view() const;

  // o_i uniform in [-80, 80]^D (the range of the official shifts; rounded to real_t, so that
  // x = o is reachable), M_i a random orthogonal
  // matrix, the permutation a random one: each from its own stream keyed by the problem seed.
  static JanssenInstance generate(int index, Dim dim, std::uint64_t seed);
  // The official files of the function's competition in `directory` (its input_data):
  // shift_data_N.txt, M_N_D{D}.txt and, for a hybrid, shuffle_data_N_D{D}.txt, read as the
  // official codes read them. Throws UserError "--instance = DIR: FILE: what is wrong".
  static JanssenInstance load(int index, Dim dim, const std::string& directory);
};

// Throws UserError when function `index` is not defined for D variables: D outside 2..100, or a
// hybrid whose split into parts would leave one empty.
void check_janssen_dimension(int index, Dim dim, const std::string& name);

// f of `rows` stored rows (row r at genes + r * pitch), rows in parallel.
void evaluate_janssen_host(const JanssenInstance& instance, const real_t* genes, Dim pitch,
                           int rows, double* out);

// The batch objective the engines evaluate the function through: the host evaluation above and,
// in a CUDA build, a kernel with a block per row (fitness/janssen/device_janssen.cu), which
// copies the instance to a device the first time it runs there.
std::shared_ptr<const BatchObjective> janssen_objective(
    const std::string& name, std::shared_ptr<const JanssenInstance> instance);

#if defined(CHAINSAW_CUDA)
DeviceBatchFn janssen_device_batch(std::shared_ptr<const JanssenInstance> instance);
#endif

}  // namespace chainsaw
