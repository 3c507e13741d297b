// The data files of the CEC 2013 functions (docs/functions.md): the official data folder
// (cdatafiles of the official code, github dmolina/cec2013lsgo) and chainsaw's own instance
// files, text or HDF5 (told apart by HDF5's signature), which `chainsaw instance export` writes
// and `--instance FILE` reads back. What the data must satisfy is checked once, by
// Cec2013Instance::from_data (fitness/).
#pragma once

#include <cstdint>
#include <string>

#include "fitness/cec2013/cec2013_instance.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

constexpr const char* kCec2013InstanceFormat = "chainsaw cec2013 instance";
constexpr std::int64_t kCec2013InstanceFormatVersion = 1;

// F<number>'s files in `directory`, read as the official code reads them (numbers separated by
// commas or line breaks): F<n>-xopt.txt and, for the grouped functions, F<n>-p.txt (1-based),
// -s.txt, -w.txt and the -R25/-R50/-R100.txt of the sizes in s. Throws UserError
// "--instance = DIR: FILE ..." naming the file that is missing, unreadable or wrong.
Cec2013Instance read_cec2013_directory(const std::string& directory, int number, Dim dim);

// A chainsaw instance file of F<number> at D = dim. Throws UserError "--instance = PATH: ...".
Cec2013Instance read_cec2013_file(const std::string& path, int number, Dim dim);

// Writes the instance whole or not at all: HDF5 when the name ends in .h5 or .hdf5, text
// otherwise; `source` says where it came from. Throws UserError naming `flag` and `path`.
void write_cec2013_file(const std::string& flag, const std::string& path,
                        const Cec2013Instance& instance, const std::string& source);

// The problem of a CEC 2013 function on `path`: the official folder when it is a directory, an
// instance file otherwise.
Problem make_cec2013_problem(const FunctionInfo& info, Dim dim, const std::string& path);

}  // namespace chainsaw
