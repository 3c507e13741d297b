// CEC 2010 instance files (docs/functions.md documents both formats): the optimum
// o, the permutation P and the rotation M as whitespace-separated text or as HDF5, told apart by
// HDF5's signature, not by the file's name. This is the only place that reads or writes them;
// what the data must satisfy is checked once, by CecInstance::from_data (fitness/), for every
// format and for the copy a checkpoint embeds (its /instance group has the HDF5 file's layout).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/problem.hpp"
#include "io/checkpoint/hdf5_file.hpp"

namespace chainsaw {

constexpr const char* kInstanceFormat = "chainsaw cec2010 instance";
constexpr std::int64_t kInstanceFormatVersion = 1;

// The instance of `info` with D = dim in `path` (text or HDF5; an HDF5 file may also be a
// chainsaw checkpoint, whose /instance is read); sections it leaves out are generated from
// `seed`. Throws UserError "--instance = PATH: ..." for a file that cannot be used.
CecInstance read_instance_file(const std::string& path, const FunctionInfo& info, Dim dim,
                               std::uint64_t seed);

// Problem::make with the CEC 2010 instance read from `instance_file` when one is given, in `box`
// (the default: the function's own domain and shift rule).
Problem make_problem(const std::string& function_name, Dim dim, std::uint64_t problem_seed,
                     const std::string& instance_file, const SearchBox& box = {});
// The problem a configuration names: as above (with its --domain and --shift-range), and for
// `etc` its options and ETC matrix file.
Problem make_problem(const Config& config);

// Where an instance comes from, for the `source` attribute and comment of what is written:
// "generated from problem seed S" or "read from --instance FILE".
std::string instance_origin(const std::string& instance_file, std::uint64_t problem_seed);

// Writes `instance` of `info` to `path` whole or not at all: HDF5 when the name ends in .h5 or
// .hdf5, text otherwise. `source` says where it came from (a comment, an attribute). Throws
// UserError naming `flag` and `path` when it cannot.
void write_instance_file(const std::string& flag, const std::string& path,
                         const CecInstance& instance, const FunctionInfo& info,
                         const std::string& source);

// The HDF5 layout inside `group`: a file's root, or a checkpoint's /instance. o float64 [D],
// P int32 [D] (0-based, attribute base = 0), M float64 [50, 50]; chunked along D in blocks of
// at most `chunk` values, each chunk with a Fletcher-32 checksum.
void write_instance_group(hid_t group, const CecInstance& instance, const FunctionInfo& info,
                          const std::string& source, hsize_t chunk);
// Reads what `group` holds, checking the attributes it has against `info` and `dim`; errors
// are h5::Error, or UserError "<source>: ...". Validation is CecInstance::from_data's.
CecInstanceData read_instance_group(hid_t group, const FunctionInfo& info, Dim dim,
                                    const std::string& source);
// The `source` attribute of an instance group ("" when it has none).
std::string instance_source(hid_t group);

// Whether an output name asks for HDF5 (.h5, .hdf5, any case): text otherwise.
bool is_hdf5_name(const std::string& path);
// A dataset's dimensions, checked to have `rank` of them and values of `value_class`; throws
// UserError "<source>: dataset NAME ..." otherwise.
std::vector<hsize_t> checked_dims(hid_t dataset, const std::string& name, std::size_t rank,
                                  H5T_class_t value_class, const std::string& source);

}  // namespace chainsaw
