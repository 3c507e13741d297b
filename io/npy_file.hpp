// NumPy's .npy file (numpy.save; the format of numpy.lib.format, versions 1-3), read for
// --init: a C-ordered array of little-endian float64 or float32, 1-D (one point) or 2-D (a point
// a row). The format is a magic string, a length and a Python dict literal of three keys before
// the raw values, which is a few lines to read; no Debian package reads it from C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace chainsaw {

struct NpyArray {
  std::int64_t rows = 0;     // 1 for a 1-D array
  std::int64_t columns = 0;
  std::vector<double> values;  // rows x columns, row-major
};

// Throws UserError naming `flag` and `path` for a file that is not such an array.
NpyArray read_npy_file(const std::string& flag, const std::string& path);

}  // namespace chainsaw
