#include "io/cec2013_files.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/checkpoint/hdf5_file.hpp"
#include "io/instance_file.hpp"
#include "io/results/output_file.hpp"
#include "io/version.hpp"

namespace chainsaw {

namespace {

// Values per HDF5 chunk along a 1-D section: as a CEC 2010 instance file's.
constexpr hsize_t kFileChunk = hsize_t{1} << 20;
const char* const kRotationNames[kCec2013Rotations] = {"R25", "R50", "R100"};

// The words of a file: numbers separated by white space or commas; '#' starts a comment to the
// end of its line (chainsaw's files; the official ones have none).
std::vector<std::string> words_of(std::istream& in) {
  std::vector<std::string> words;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream tokens(line);
    for (std::string w; tokens >> w;) words.push_back(w);
  }
  return words;
}

bool parse_number(const std::string& word, double& value) {
  char* end = nullptr;
  value = std::strtod(word.c_str(), &end);
  return end != word.c_str() && *end == '\0';
}

// A section's words as numbers: finite ones, and whole numbers where `integers`.
std::vector<double> numbers_of(const std::vector<std::string>& words, bool integers,
                               const std::string& where) {
  std::vector<double> values;
  values.reserve(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    double v = 0.0;
    if (!parse_number(words[i], v) || !std::isfinite(v))
      throw UserError(where + ": value " + std::to_string(i + 1) + " '" + words[i] +
                      "' is not a finite number");
    if (integers && !(v == std::floor(v) && std::fabs(v) < 0x1p62))
      throw UserError(where + ": value " + std::to_string(i + 1) + " '" + words[i] +
                      "' is not a whole number");
    values.push_back(v);
  }
  return values;
}

std::vector<std::int64_t> as_integers(const std::vector<double>& values, std::int64_t minus = 0) {
  std::vector<std::int64_t> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(static_cast<std::int64_t>(v) - minus);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The official folder

class OfficialFolder {
 public:
  OfficialFolder(std::string directory, int number)
      : directory_(std::move(directory)), prefix_("F" + std::to_string(number) + "-") {}

  std::string source() const { return "--instance = " + directory_; }
  Cec2013Sections names() const { return {prefix_, ".txt"}; }

  std::vector<double> read(const std::string& section, bool integers = false) const {
    const std::string name = prefix_ + section + ".txt";
    std::ifstream in(directory_ + "/" + name);
    if (!in)
      throw UserError(source() + ": cannot read " + name + " (" + std::strerror(errno) +
                      "; the official cdatafiles folder of github dmolina/cec2013lsgo)");
    return numbers_of(words_of(in), integers, source() + ": " + name);
  }

 private:
  std::string directory_;
  std::string prefix_;
};

// ---------------------------------------------------------------------------------------------
// Text

bool is_section(const std::string& word) {
  static const char* const kSections[] = {"xopt", "p", "s", "w", "R25", "R50", "R100"};
  return std::find_if(std::begin(kSections), std::end(kSections),
                      [&](const char* s) { return word == s; }) != std::end(kSections);
}

Cec2013InstanceData read_text(const std::string& path, int number, Dim dim,
                              const std::string& source) {
  std::ifstream in(path);
  if (!in) throw UserError(source + ": cannot be opened");
  const std::vector<std::string> words = words_of(in);
  const std::string name = fmt::format("cec2013-f{}", number);
  std::vector<std::pair<std::string, std::vector<std::string>>> sections;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "function" || w == "dim") {
      if (i + 1 == words.size()) throw UserError(source + ": " + w + " without its value");
      const std::string& value = words[++i];
      if (w == "function" && value != name)
        throw UserError(source + ": an instance of " + value + ", not of " + name);
      if (w == "dim" && value != std::to_string(dim))
        throw UserError(source + ": dim " + value + " does not match --dim = " +
                        std::to_string(dim));
    } else if (is_section(w)) {
      for (const auto& s : sections)
        if (s.first == w) throw UserError(source + ": section " + w + " appears twice");
      sections.push_back({w, {}});
    } else if (double v = 0.0; parse_number(w, v) && !sections.empty()) {
      sections.back().second.push_back(w);
    } else {
      throw UserError(source + ": '" + w + "' is " +
                      (sections.empty() && parse_number(w, v) ? "a number before any section"
                                                              : "no section") +
                      " (sections: function, dim, xopt, p, s, w, R25, R50, R100)");
    }
  }
  Cec2013InstanceData data;
  for (const auto& [section, values] : sections) {
    const std::string where = source + ": section " + section;
    if (section == "xopt") data.o = numbers_of(values, false, where);
    if (section == "w") data.weights = numbers_of(values, false, where);
    if (section == "p") data.perm = as_integers(numbers_of(values, true, where));
    if (section == "s") data.sizes = as_integers(numbers_of(values, true, where));
    for (int r = 0; r < kCec2013Rotations; ++r)
      if (section == kRotationNames[r]) data.rotation[r] = numbers_of(values, false, where);
  }
  return data;
}

template <class T>
void append_section(std::string& out, const char* name, const char* note,
                    const std::vector<T>& values) {
  if (values.empty()) return;
  out += fmt::format("{}{}\n", name, note);
  // Shortest decimals that read back as the same double: a text file round-trips bit for bit.
  for (std::size_t i = 0; i < values.size(); ++i)
    fmt::format_to(std::back_inserter(out), "{}{}", values[i],
                   i % 10 == 9 || i + 1 == values.size() ? "\n" : " ");
}

std::string instance_text(const Cec2013Instance& inst, const std::string& source) {
  std::string out = fmt::format(
      "# {} (format version {}), written by chainsaw {}\n# cec2013-f{}, D = {}; {}\n"
      "# sections: xopt (o), p (0-based), s (group sizes), w (weights), R25, R50, R100 "
      "(row-major, w = R z); docs/functions.md\nfunction cec2013-f{}\ndim {}\n",
      kCec2013InstanceFormat, kCec2013InstanceFormatVersion, kVersion, inst.number, inst.dim,
      source, inst.number, inst.dim);
  append_section(out, "xopt", "", inst.o);
  append_section(out, "p", "  # 0-based", inst.perm);
  append_section(out, "s", "", inst.sizes);
  append_section(out, "w", "", inst.weights);
  for (int r = 0; r < kCec2013Rotations; ++r)
    append_section(out, kRotationNames[r], "", inst.rotation[r]);
  return out;
}

// ---------------------------------------------------------------------------------------------
// HDF5

template <class T>
void write_dataset(hid_t group, const char* name, const std::vector<T>& values,
                   std::vector<hsize_t> dims) {
  if (values.empty()) return;
  std::vector<hsize_t> chunk = dims;
  if (chunk.size() == 1) chunk[0] = std::min(chunk[0], kFileChunk);
  h5::Handle d = h5::create_dataset(group, name, h5::native_type<T>(), dims, chunk);
  h5::check(H5Dwrite(d.get(), h5::native_type<T>(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
            std::string("cannot write dataset ") + name);
}

template <class T>
std::vector<T> read_section(hid_t group, const std::string& name, std::size_t rank,
                            H5T_class_t value_class, const std::string& source) {
  if (!h5::has_link(group, name)) return {};
  h5::Handle d = h5::open_dataset(group, name);
  const std::vector<hsize_t> dims = checked_dims(d.get(), name, rank, value_class, source);
  if (rank == 2 && dims[0] != dims[1])
    throw UserError(fmt::format("{}: dataset {} is {} x {}, not square", source, name, dims[0],
                                dims[1]));
  std::size_t count = 1;
  for (hsize_t n : dims) count *= static_cast<std::size_t>(n);
  std::vector<T> values(count);
  try {
    if (count > 0) h5::read_all(d.get(), h5::native_type<T>(), values.data());
  } catch (const h5::Error& e) {
    throw UserError(source + ": dataset " + name + " " + e.what());
  }
  return values;
}

void check_attributes(hid_t root, int number, Dim dim, const std::string& source) {
  auto fail = [&source](const std::string& what) { throw UserError(source + ": " + what); };
  if (!h5::has_attribute(root, "format") ||
      h5::read_string_attribute(root, "format") != kCec2013InstanceFormat)
    fail("an HDF5 file that is not a CEC 2013 instance (its attribute format is not '" +
         std::string(kCec2013InstanceFormat) + "')");
  const std::int64_t version = h5::read_int_attribute(root, "format_version");
  if (version != kCec2013InstanceFormatVersion)
    fail(fmt::format("instance format version {}, this chainsaw reads version {}", version,
                     kCec2013InstanceFormatVersion));
  const std::string name = fmt::format("cec2013-f{}", number);
  if (h5::has_attribute(root, "function") && h5::read_string_attribute(root, "function") != name)
    fail("an instance of " + h5::read_string_attribute(root, "function") + ", not of " + name);
  if (h5::has_attribute(root, "dim") && h5::read_int_attribute(root, "dim") != dim)
    fail(fmt::format("dim {} does not match --dim = {}", h5::read_int_attribute(root, "dim"),
                     dim));
}

Cec2013InstanceData read_hdf5(const std::string& path, int number, Dim dim,
                              const std::string& source) {
  try {
    h5::Handle file = h5::open_file_read_only(path);
    const hid_t root = file.get();
    check_attributes(root, number, dim, source);
    Cec2013InstanceData data;
    data.o = read_section<double>(root, "xopt", 1, H5T_FLOAT, source);
    data.weights = read_section<double>(root, "w", 1, H5T_FLOAT, source);
    data.sizes = read_section<std::int64_t>(root, "s", 1, H5T_INTEGER, source);
    data.perm = read_section<std::int64_t>(root, "p", 1, H5T_INTEGER, source);
    for (int r = 0; r < kCec2013Rotations; ++r)
      data.rotation[r] = read_section<double>(root, kRotationNames[r], 2, H5T_FLOAT, source);
    return data;
  } catch (const h5::Error& e) {
    throw UserError(source + ": " + e.what());
  }
}

void write_hdf5(const std::string& path, const Cec2013Instance& inst, const std::string& source) {
  h5::Handle file = h5::create_file(path);
  const hid_t root = file.get();
  h5::write_attribute(root, "format", std::string(kCec2013InstanceFormat));
  h5::write_attribute(root, "format_version", kCec2013InstanceFormatVersion);
  h5::write_attribute(root, "function", fmt::format("cec2013-f{}", inst.number));
  h5::write_attribute(root, "dim", static_cast<std::int64_t>(inst.dim));
  h5::write_attribute(root, "source", source);
  write_dataset(root, "xopt", inst.o, {inst.o.size()});
  write_dataset(root, "p", inst.perm, {inst.perm.size()});
  write_dataset(root, "s", inst.sizes, {inst.sizes.size()});
  write_dataset(root, "w", inst.weights, {inst.weights.size()});
  for (int r = 0; r < kCec2013Rotations; ++r) {
    const auto n = static_cast<hsize_t>(cec2013_rotation_size(r));
    write_dataset(root, kRotationNames[r], inst.rotation[r], {n, n});
  }
  file.close("cannot finish the file");
}

}  // namespace

Cec2013Instance read_cec2013_directory(const std::string& directory, int number, Dim dim) {
  const OfficialFolder folder(directory, number);
  Cec2013InstanceData data;
  data.o = folder.read("xopt");
  if (cec2013_has_groups(cec2013_spec(number).layout)) {
    data.sizes = as_integers(folder.read("s", true));
    data.weights = folder.read("w");
    // The official files count the variables from 1 (Benchmarks::readPermVector).
    data.perm = as_integers(folder.read("p", true), 1);
    for (int r = 0; r < kCec2013Rotations; ++r) {
      const int size = cec2013_rotation_size(r);
      if (std::find(data.sizes.begin(), data.sizes.end(), size) != data.sizes.end())
        data.rotation[r] = folder.read(kRotationNames[r]);
    }
  }
  return Cec2013Instance::from_data(data, number, dim, folder.source(), folder.names());
}

Cec2013Instance read_cec2013_file(const std::string& path, int number, Dim dim) {
  const std::string source = "--instance = " + path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
    throw UserError(source + ": is empty (0 bytes)");
  const Cec2013InstanceData data = h5::has_hdf5_signature(path)
                                       ? read_hdf5(path, number, dim, source)
                                       : read_text(path, number, dim, source);
  return Cec2013Instance::from_data(data, number, dim, source);
}

void write_cec2013_file(const std::string& flag, const std::string& path,
                        const Cec2013Instance& instance, const std::string& source) {
  if (!is_hdf5_name(path)) {
    write_file_atomically(flag, path, instance_text(instance, source));
    return;
  }
  commit_atomically(flag, path, [&](const std::string& temporary) {
    try {
      write_hdf5(temporary, instance, source);
    } catch (const h5::Error& e) {
      throw UserError(flag + " = " + path + ": cannot write the instance: " + e.what());
    }
  });
}

Problem make_cec2013_problem(const FunctionInfo& info, Dim dim, const std::string& path) {
  const int number = cec2013_number(info.id);
  check_dimension(info, dim);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw UserError("--instance = " + path + ": cannot be opened (" + std::strerror(errno) + ")");
  auto instance = std::make_shared<const Cec2013Instance>(
      S_ISDIR(st.st_mode) ? read_cec2013_directory(path, number, dim)
                          : read_cec2013_file(path, number, dim));
  return Problem::make_cec2013(info, std::move(instance));
}

}  // namespace chainsaw
