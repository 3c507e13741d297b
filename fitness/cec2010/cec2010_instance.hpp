// The data of a CEC 2010 instance: the optimum o, the permutation P and the rotation M, in host
// memory. Generated from the problem seed (deterministic, independent of the thread count) or
// made from the sections a file gives (`--instance FILE`, a checkpoint's /instance), validated
// here whatever the file's format; what a file leaves out is generated. Reading and writing the
// files is io/'s (io/instance_file.hpp): fitness/ knows no file format. The CUDA backend copies
// the instance to the device once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fitness/cec2010/cec2010.hpp"
#include "fitness/external_objective.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

// The sections of an instance as a file holds them, not yet validated; empty: not given.
struct CecInstanceData {
  std::int64_t dim = -1;  // -1: not given; otherwise a check against --dim
  std::vector<double> o;
  std::vector<std::int64_t> perm;
  int perm_base = -1;  // 0 (0..D-1) or 1 (1..D, MATLAB's); -1: told apart by which of 0, D occurs
  std::vector<double> rotation;  // m x m row-major
};

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
  // The same view with its arrays at other addresses (a device's copies of o, P, P^-1 and M);
  // the sections this instance lacks stay null.
  CecView view_at(const real_t* o_at, const std::int32_t* perm_at, const std::int32_t* inverse_at,
                  const double* rotation_at) const;

  static CecInstance generate(const FunctionInfo& info, Dim dim, std::uint64_t seed);
  // The one validation of given instance data: sizes against D, o inside the domain, P a
  // permutation, M orthogonal to 1e-6. Sections missing from `data` are generated from `seed`
  // as above. Throws UserError "<source>: <what is wrong>" (source: "--instance = FILE", ...).
  static CecInstance from_data(const CecInstanceData& data, const FunctionInfo& info, Dim dim,
                               std::uint64_t seed, const std::string& source);
  // The same o, P and M, bit for bit.
  bool same_as(const CecInstance& other) const;
};

CecLayout cec2010_layout(FunctionId id);

// The generated data of an instance, here and for the Janssen benchmark's
// (fitness/janssen/janssen_instance.hpp): a random orthogonal n x n matrix (row-major; Gram-Schmidt
// of a matrix of standard normals from one counter-based stream `key`) and a random permutation
// of 0..dim-1 (Fisher-Yates from one stream). Sequential: the same for any thread count.
std::vector<double> random_rotation(int n, std::uint64_t key);
std::vector<std::int32_t> random_permutation(Dim dim, std::uint64_t key);
// `count` values uniform in [lower, upper], rounded to real_t, from the streams of the problem
// seed's shift (one per 4096 values, so they are drawn in parallel): CEC 2010's and 2013's o.
std::vector<real_t> random_shift(Dim count, double lower, double upper, std::uint64_t seed);

// max |(M M^T)_ik - delta_ik| of an n x n row-major matrix.
double orthogonality_error(const std::vector<double>& m, int n);

// f(x) of a stored individual on the host: kHostChunk items per chunk, in parallel, combined in
// order (the same tree for any thread count).
double evaluate_cec2010_host(const Problem& problem, const real_t* x);

// Function `id` over stored rows on the GPU, a block per row (fitness/cec2010/
// device_cec2010_batch.cu): the GPU population path's evaluation. CUDA builds only.
DeviceBatchFn cec2010_device_batch(std::shared_ptr<const CecInstance> instance, FunctionId id);

}  // namespace chainsaw
