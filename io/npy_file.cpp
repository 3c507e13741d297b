#include "io/npy_file.hpp"

#include <cstring>
#include <fstream>
#include <regex>

#include "core/error.hpp"

namespace chainsaw {

namespace {

std::uint32_t little_endian(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The value of `key` in the header's dict literal ('descr': '<f8', 'shape': (3, 4), ...).
std::string header_field(const std::string& header, const std::string& key,
                         const std::string& value_pattern, const std::string& where) {
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'" + key + "'\\s*:\\s*(" + value_pattern + ")")))
    throw UserError(where + "the header has no readable '" + key + "'");
  return m[1].str();
}

}  // namespace

NpyArray read_npy_file(const std::string& flag, const std::string& path) {
  const std::string where = flag + " = " + path + ": ";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(where + "cannot be opened");
  unsigned char preamble[12] = {};
  in.read(reinterpret_cast<char*>(preamble), 10);
  if (!in || std::memcmp(preamble, "\x93NUMPY", 6) != 0)
    throw UserError(where + "not a NumPy .npy file (numpy.save writes one)");
  const int major = preamble[6];
  if (major < 1 || major > 3) throw UserError(where + "an .npy format version this reader lacks");
  std::uint32_t length = little_endian(preamble + 8, 2);
  if (major >= 2) {
    in.read(reinterpret_cast<char*>(preamble + 10), 2);
    length = little_endian(preamble + 8, 4);
  }
  std::string header(length, '\0');
  in.read(header.data(), static_cast<std::streamsize>(length));
  if (!in) throw UserError(where + "the header is cut short");

  const std::string descr = header_field(header, "descr", "'[^']*'", where);
  if (!std::regex_match(descr, std::regex("'[<|=]?f[48]'")))
    throw UserError(where + "values of type " + descr + "; expected little-endian float64 or "
                    "float32 ('<f8', '<f4')");
  if (header_field(header, "fortran_order", "True|False", where) != "False")
    throw UserError(where + "a Fortran-ordered array; save a C-ordered one (np.ascontiguousarray)");
  const std::string shape = header_field(header, "shape", "\\([0-9, ]*\\)", where);
  std::vector<std::int64_t> dims;
  const std::regex number("[0-9]+");
  for (std::sregex_iterator it(shape.begin(), shape.end(), number), end; it != end; ++it)
    dims.push_back(std::stoll(it->str()));
  if (dims.empty() || dims.size() > 2)
    throw UserError(where + "an array of shape " + shape + "; expected (D,) or (points, D)");
  NpyArray a;
  a.rows = dims.size() == 1 ? 1 : dims[0];
  a.columns = dims.back();
  const bool is_double = descr.find('8') != std::string::npos;
  const std::size_t count = static_cast<std::size_t>(a.rows * a.columns);
  a.values.resize(count);
  if (is_double) {
    in.read(reinterpret_cast<char*>(a.values.data()),
            static_cast<std::streamsize>(count * sizeof(double)));
  } else {
    std::vector<float> values(count);
    in.read(reinterpret_cast<char*>(values.data()),
            static_cast<std::streamsize>(count * sizeof(float)));
    for (std::size_t i = 0; i < count; ++i) a.values[i] = values[i];
  }
  if (!in) throw UserError(where + "fewer values than its shape " + shape + " holds");
  return a;
}

}  // namespace chainsaw
