#include "io/instance_file.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "fitness/scheduling/etc_scheduling.hpp"
#include "io/cec2013_files.hpp"
#include "io/etc_file.hpp"
#include "fitness/janssen/janssen_instance.hpp"
#include "io/results/output_file.hpp"
#include "io/version.hpp"

namespace chainsaw {

namespace {

constexpr int kM = kCecGroup;
// Values per HDF5 chunk along D in an instance file: as a checkpoint's genes.
constexpr hsize_t kFileChunk = hsize_t{1} << 20;

// ---------------------------------------------------------------------------------------------
// Text: whitespace-separated tokens; '#' starts a comment that runs to the end of the line.

class TokenReader {
 public:
  TokenReader(const std::string& path, std::string source)
      : source_(std::move(source)), in_(path) {
    if (!in_) fail("cannot be opened");
  }
  bool next(std::string& token) {
    while (true) {
      if (line_ >> token) {
        if (token[0] != '#') return true;
        line_.clear();
        line_.str("");
      }
      std::string text;
      if (!std::getline(in_, text)) return false;
      line_.clear();
      line_.str(text);
    }
  }
  template <class T>
  T number(const char* section, Dim index) {
    std::string token;
    if (!next(token))
      fail(std::string(section) + " ends after " + std::to_string(index) + " values");
    std::istringstream s(token);
    T value{};
    if (!(s >> value) || !s.eof())
      fail(std::string(section) + " value " + std::to_string(index + 1) + " '" + token +
           "' is not a number");
    return value;
  }
  [[noreturn]] void fail(const std::string& what) const { throw UserError(source_ + ": " + what); }

 private:
  std::string source_;
  std::ifstream in_;
  std::istringstream line_;
};

CecInstanceData read_text(const std::string& path, Dim dim, const std::string& source) {
  TokenReader in(path, source);
  CecInstanceData data;
  std::string section;
  while (in.next(section)) {
    if (section == "dim") {
      data.dim = in.number<std::int64_t>("dim", 0);
    } else if (section == "shift") {
      data.o.resize(static_cast<std::size_t>(dim));
      for (Dim j = 0; j < dim; ++j) data.o[j] = in.number<double>("shift", j);
    } else if (section == "permutation") {
      data.perm.resize(static_cast<std::size_t>(dim));
      for (Dim k = 0; k < dim; ++k) data.perm[k] = in.number<std::int64_t>("permutation", k);
    } else if (section == "rotation") {
      data.rotation.resize(static_cast<std::size_t>(kM * kM));
      for (Dim k = 0; k < kM * kM; ++k) data.rotation[k] = in.number<double>("rotation", k);
    } else {
      in.fail("unknown section '" + section + "' (known: dim, shift, permutation, rotation)");
    }
    if (section == "dim" && data.dim != dim) break;  // from_data names the mismatch
  }
  return data;
}

// Shortest decimal that reads back as the same double: o is real_t, exact as a double, so a
// text file round-trips bit for bit.
template <class T>
void append_values(std::string& out, const std::vector<T>& values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    fmt::format_to(std::back_inserter(out), "{}{}", static_cast<double>(values[i]),
                   i % 10 == 9 || i + 1 == values.size() ? "\n" : " ");
}

std::string instance_text(const CecInstance& instance, const FunctionInfo& info,
                          const std::string& source) {
  std::string out = fmt::format(
      "# {} (format version {}), written by chainsaw {}\n# {}, D = {}; {}\n"
      "# sections: dim, shift (o), permutation (P), rotation (M); see the chainsaw README\n"
      "dim {}\nshift\n",
      kInstanceFormat, kInstanceFormatVersion, kVersion, info.name, instance.dim, source,
      instance.dim);
  append_values(out, instance.o);
  if (!instance.perm.empty()) {
    out += "permutation  # 0-based\n";
    append_values(out, instance.perm);
  }
  if (!instance.rotation.empty()) {
    out += "rotation  # 50 x 50, row-major: a rotated group is z_group M\n";
    append_values(out, instance.rotation);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// HDF5

bool has_instance_dataset(hid_t group) {
  return h5::has_link(group, "o") || h5::has_link(group, "P") || h5::has_link(group, "M");
}

template <class T>
std::vector<T> read_dataset(hid_t dataset, std::size_t count) {
  std::vector<T> values(count);
  if (count > 0) h5::read_all(dataset, h5::native_type<T>(), values.data());
  return values;
}

CecInstanceData read_hdf5(const std::string& path, const FunctionInfo& info, Dim dim,
                          const std::string& source) {
  h5::Handle file;
  try {
    file = h5::open_file_read_only(path);
  } catch (const h5::Error& e) {
    throw UserError(source + ": " + e.what());
  }
  try {
    // A chainsaw checkpoint embeds its instance in /instance: it can be read as one.
    h5::Handle embedded;
    hid_t group = file.get();
    if (!has_instance_dataset(group) && h5::has_link(group, "instance")) {
      embedded = h5::open_group(group, "instance");
      group = embedded.get();
    }
    return read_instance_group(group, info, dim, source);
  } catch (const h5::Error& e) {
    throw UserError(source + ": " + e.what());
  }
}

}  // namespace

bool is_hdf5_name(const std::string& path) {
  auto ends_with = [&path](const std::string& suffix) {
    return path.size() >= suffix.size() &&
           std::equal(suffix.rbegin(), suffix.rend(), path.rbegin(),
                      [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
  };
  return ends_with(".h5") || ends_with(".hdf5");
}

std::vector<hsize_t> checked_dims(hid_t dataset, const std::string& name, std::size_t rank,
                                  H5T_class_t value_class, const std::string& source) {
  const std::vector<hsize_t> dims = h5::dataset_dims(dataset);
  const h5::StoredType type = h5::dataset_type(dataset);
  const char* wanted = value_class == H5T_FLOAT ? "floating-point numbers" : "integers";
  if (type.type_class != value_class)
    throw UserError(source + ": dataset " + name + " does not hold " + wanted);
  if (dims.size() != rank)
    throw UserError(fmt::format("{}: dataset {} has {} dimensions, expected {}", source, name,
                                dims.size(), rank));
  return dims;
}

void write_instance_group(hid_t group, const CecInstance& instance, const FunctionInfo& info,
                          const std::string& source, hsize_t chunk) {
  h5::write_attribute(group, "format", std::string(kInstanceFormat));
  h5::write_attribute(group, "format_version", kInstanceFormatVersion);
  h5::write_attribute(group, "function", std::string(info.name));
  h5::write_attribute(group, "dim", static_cast<std::int64_t>(instance.dim));
  h5::write_attribute(group, "source", source);
  const auto d = static_cast<hsize_t>(instance.dim);
  const hsize_t along_d = std::max<hsize_t>(1, std::min(d, chunk));
  {
    // o is real_t in memory and float64 in the file (the published data's type); HDF5 widens
    // it exactly.
    h5::Handle o = h5::create_dataset(group, "o", h5::native_type<double>(), {d}, {along_d});
    h5::write_block(o.get(), h5::native_type<real_t>(), 0, 0, d, instance.o.data());
  }
  if (!instance.perm.empty()) {
    h5::Handle p =
        h5::create_dataset(group, "P", h5::native_type<std::int32_t>(), {d}, {along_d});
    h5::write_block(p.get(), h5::native_type<std::int32_t>(), 0, 0, d, instance.perm.data());
    h5::write_attribute(p.get(), "base", std::int64_t{0});
  }
  if (!instance.rotation.empty()) {
    const auto m = static_cast<hsize_t>(kM);
    h5::Handle r = h5::create_dataset(group, "M", h5::native_type<double>(), {m, m}, {m, m});
    h5::check(H5Dwrite(r.get(), h5::native_type<double>(), H5S_ALL, H5S_ALL, H5P_DEFAULT,
                       instance.rotation.data()),
              "cannot write dataset M");
  }
}

CecInstanceData read_instance_group(hid_t group, const FunctionInfo& info, Dim dim,
                                    const std::string& source) {
  auto fail = [&source](const std::string& what) { throw UserError(source + ": " + what); };
  if (h5::has_attribute(group, "format")) {
    const std::string format = h5::read_string_attribute(group, "format");
    if (format != kInstanceFormat)
      fail("an HDF5 file of format '" + format + "', not a CEC 2010 instance");
    const std::int64_t version = h5::read_int_attribute(group, "format_version");
    if (version != kInstanceFormatVersion)
      fail(fmt::format("instance format version {}, this chainsaw reads version {}", version,
                       kInstanceFormatVersion));
  }
  if (!has_instance_dataset(group))
    fail("an HDF5 file without the datasets o, P or M: not a CEC 2010 instance");
  if (h5::has_attribute(group, "function")) {
    const std::string function = h5::read_string_attribute(group, "function");
    if (function != info.name)
      fail("an instance of " + function + ", not of " + info.name);
  }
  CecInstanceData data;
  if (h5::has_attribute(group, "dim")) data.dim = h5::read_int_attribute(group, "dim");
  if (data.dim >= 0 && data.dim != dim) return data;  // from_data names the mismatch

  if (h5::has_link(group, "o")) {
    h5::Handle o = h5::open_dataset(group, "o");
    const auto dims = checked_dims(o.get(), "o", 1, H5T_FLOAT, source);
    if (dims[0] != static_cast<hsize_t>(dim))
      fail(fmt::format("dataset o has {} values, --dim = {}", dims[0], dim));
    try {
      data.o = read_dataset<double>(o.get(), dims[0]);
    } catch (const h5::Error& e) {
      fail(std::string("dataset o ") + e.what());
    }
  }
  if (h5::has_link(group, "P")) {
    h5::Handle p = h5::open_dataset(group, "P");
    const auto dims = checked_dims(p.get(), "P", 1, H5T_INTEGER, source);
    if (dims[0] != static_cast<hsize_t>(dim))
      fail(fmt::format("dataset P has {} values, --dim = {}", dims[0], dim));
    data.perm_base = 0;  // HDF5 files say 0-based unless told otherwise
    if (h5::has_attribute(p.get(), "base")) {
      const std::int64_t base = h5::read_int_attribute(p.get(), "base");
      if (base != 0 && base != 1) fail(fmt::format("P's attribute base = {}: 0 or 1", base));
      data.perm_base = static_cast<int>(base);
    }
    try {
      data.perm = read_dataset<std::int64_t>(p.get(), dims[0]);
    } catch (const h5::Error& e) {
      fail(std::string("dataset P ") + e.what());
    }
  }
  if (h5::has_link(group, "M")) {
    h5::Handle r = h5::open_dataset(group, "M");
    const std::vector<hsize_t> dims = h5::dataset_dims(r.get());
    std::string shape;
    for (hsize_t n : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(n);
    if (dims.size() != 2 || dims[0] != static_cast<hsize_t>(kM) || dims[1] != static_cast<hsize_t>(kM))
      fail("dataset M is " + shape +
           ", not 50 x 50 (one M for every group, as in the CEC 2010 code)");
    checked_dims(r.get(), "M", 2, H5T_FLOAT, source);
    try {
      data.rotation = read_dataset<double>(r.get(), kM * kM);
    } catch (const h5::Error& e) {
      fail(std::string("dataset M ") + e.what());
    }
  }
  return data;
}

std::string instance_source(hid_t group) {
  return h5::has_attribute(group, "source") ? h5::read_string_attribute(group, "source") : "";
}

CecInstance read_instance_file(const std::string& path, const FunctionInfo& info, Dim dim,
                               std::uint64_t seed) {
  const std::string source = "--instance = " + path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw UserError(source + ": cannot be opened");
  if (!S_ISREG(st.st_mode)) throw UserError(source + ": not a regular file");
  // An empty file must not fall back, without a word, to the generated instance.
  if (st.st_size == 0) throw UserError(source + ": is empty (0 bytes)");
  const CecInstanceData data = h5::has_hdf5_signature(path)
                                   ? read_hdf5(path, info, dim, source)
                                   : read_text(path, dim, source);
  const bool other_dim = data.dim >= 0 && data.dim != dim;  // from_data names the mismatch
  if (!other_dim && data.o.empty() && data.perm.empty() && data.rotation.empty())
    throw UserError(source + ": holds no instance data (none of shift, permutation, rotation)");
  return CecInstance::from_data(data, info, dim, seed, source);
}

Problem make_problem(const std::string& function_name, Dim dim, std::uint64_t problem_seed,
                     const std::string& instance_file, const SearchBox& box) {
  if (instance_file.empty())
    return Problem::make(function_name, dim, problem_seed, nullptr, {}, box);
  const FunctionInfo& info = function_info(function_name);
  check_search_box(info, box);
  if (const int j = janssen_number(info.id)) {
    // A Janssen function reads the official data files from a directory, not an instance file.
    struct stat st {};
    if (::stat(instance_file.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw UserError("--instance = " + instance_file + ": " + info.name +
                      " reads the official CEC'14/'17 input_data directory; this is not a "
                      "directory");
    check_dimension(info, dim);
    return Problem::make_janssen(info, std::make_shared<const JanssenInstance>(
                                           JanssenInstance::load(j - 1, dim, instance_file)));
  }
  if (cec2013_number(info.id) != 0) return make_cec2013_problem(info, dim, instance_file);
  if (cec2010_number(info.id) == 0)
    throw UserError("--instance = " + instance_file +
                    ": only the cec2010-*, cec2013-* and janssen-* functions (and etc, with its "
                    "options) read one, not " + info.name);
  check_dimension(info, dim);
  return Problem::make(function_name, dim, problem_seed,
                       std::make_shared<const CecInstance>(
                           read_instance_file(instance_file, info, dim, problem_seed)));
}

Problem make_problem(const Config& config) {
  const FunctionInfo& info = function_info(config.function);
  if (info.id != FunctionId::kEtcScheduling)
    return make_problem(config.function, config.dim, config.effective_problem_seed(),
                        config.instance, config.search_box());
  if (config.instance.empty())
    return Problem::make(config.function, config.dim, config.effective_problem_seed(), nullptr,
                         config.etc_options());
  check_dimension(info, config.dim);
  check_etc_options(config.etc_options());
  return Problem::make_etc(std::make_shared<const EtcInstance>(EtcInstance::from_matrix(
      read_etc_file(config.instance, config.dim, config.etc_machines), config.dim,
      config.etc_machines, config.etc_lambda,
      parse_etc_flowtime("--etc-flowtime", config.etc_flowtime))));
}

std::string instance_origin(const std::string& instance_file, std::uint64_t problem_seed) {
  return instance_file.empty() ? fmt::format("generated from problem seed {}", problem_seed)
                               : "read from --instance " + instance_file;
}

void write_instance_file(const std::string& flag, const std::string& path,
                         const CecInstance& instance, const FunctionInfo& info,
                         const std::string& source) {
  if (!is_hdf5_name(path)) {
    write_file_atomically(flag, path, instance_text(instance, info, source));
    return;
  }
  commit_atomically(flag, path, [&](const std::string& temporary) {
    try {
      h5::Handle file = h5::create_file(temporary);
      write_instance_group(file.get(), instance, info, source, kFileChunk);
      file.close("cannot finish the file");
    } catch (const h5::Error& e) {
      throw UserError(flag + " = " + path + ": cannot write the instance: " + e.what());
    }
  });
}

}  // namespace chainsaw
