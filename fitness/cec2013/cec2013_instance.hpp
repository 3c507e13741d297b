// The data of a CEC 2013 instance (fitness/cec2013/cec2013.hpp): o, the permutation P, the group
// sizes s, the weights w and the rotations R25/R50/R100, in host memory. Generated from the
// problem seed at any admissible D (docs/functions.md gives the rule), or made from the sections
// the official data folder or an instance file gives (io/cec2013_files.hpp reads them: fitness/
// knows no file format) and validated here, whatever the source.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fitness/cec2013/cec2013.hpp"
#include "fitness/external_objective.hpp"

namespace chainsaw {

// The sections of an instance as a source holds them, not yet validated; empty: not given.
struct Cec2013InstanceData {
  std::vector<double> o;
  std::vector<std::int64_t> perm;  // 0-based
  std::vector<std::int64_t> sizes;
  std::vector<double> weights;
  std::array<std::vector<double>, kCec2013Rotations> rotation;  // s x s row-major: w = R z
};

// How a source names its sections in messages: "F4-p.txt" in the official folder (prefix "F4-",
// suffix ".txt"), "section p" in an instance file.
struct Cec2013Sections {
  std::string prefix = "section ";
  std::string suffix;
  std::string name(const std::string& section) const { return prefix + section + suffix; }
};

struct Cec2013Instance {
  int number = 0;  // 1..15
  Dim dim = 0;
  std::vector<double> o;               // D values (F14: one segment per group, sum of s)
  std::vector<std::int32_t> perm;      // empty for F1-F3, F12, F15
  std::vector<std::int32_t> sizes;     // s_g; empty without groups
  std::vector<double> weights;         // w_g
  std::array<std::vector<double>, kCec2013Rotations> rotation;  // empty where no group has the size
  std::vector<Cec2013Group> groups;    // made from sizes and weights
  // The optimum x* as genes (F12: o + 1; the others o), rounded to real_t; empty for F14, whose
  // overlapping groups want different values of their shared variables.
  std::vector<real_t> optimum;

  // Host pointers, R row-major.
  Cec2013View view() const;
  // The sections as given, for writing (every section, o widened to double).
  Cec2013InstanceData data() const;

  // o uniform in the domain, rounded to real_t (F12: x* = o + 1 is); P by Fisher-Yates; the
  // official sequences of group sizes repeated; w_g = 10^(3 N(0,1)); R random orthogonal: each
  // from its own stream keyed by `seed`, the same for any thread count.
  static Cec2013Instance generate(int number, Dim dim, std::uint64_t seed);
  // The one validation of given data: counts against D and the groups, finite values, P a
  // permutation, sizes 25/50/100 that fit D, every needed R orthogonal to 1e-6. Throws
  // UserError "<source>: <section> <what is wrong>". The sections are xopt (o), p (P, 0-based
  // here), s, w, R25, R50, R100: the official files' names.
  static Cec2013Instance from_data(const Cec2013InstanceData& data, int number, Dim dim,
                                   const std::string& source, const Cec2013Sections& names = {});
  bool same_as(const Cec2013Instance& other) const;
};

// 1..15 from the function's name ("cec2013-f4" -> 4) is problem.hpp's cec2013_number.
// Throws UserError when F<number> is not defined for D variables: D >= 2 for F1-F3, F12, F15;
// a multiple of 1000 for F4-F11; 900 k + 5 for F13, F14 (905 = the official D).
void check_cec2013_dimension(int number, Dim dim, const std::string& name);

// The group sizes of the generated instance of F<number> at D (the official sequences, repeated).
std::vector<std::int32_t> cec2013_generated_sizes(int number, Dim dim);

// f of `rows` stored rows (row r at genes + r * pitch): every item of every row in parallel,
// combined in order (the same bits for any thread count).
void evaluate_cec2013_host(const Cec2013Instance& instance, const real_t* genes, Dim pitch,
                           int rows, double* out);

// The batch objective the engines evaluate the function through: the host evaluation above
// and, in a CUDA build, the GPU's item and finish passes (fitness/cec2013/device_cec2013.cu).
std::shared_ptr<const BatchObjective> cec2013_objective(
    const std::string& name, double lower, double upper,
    std::shared_ptr<const Cec2013Instance> instance);

#if defined(CHAINSAW_CUDA)
DeviceBatchFn cec2013_device_batch(std::shared_ptr<const Cec2013Instance> instance);
#endif

}  // namespace chainsaw
