#include "io/checkpoint/algorithm_checkpoint.hpp"

#include <sys/stat.h>

#include <chrono>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "io/checkpoint/checkpoint_file.hpp"
#include "io/checkpoint/hdf5_file.hpp"
#include "io/instance_file.hpp"
#include "io/results/output_file.hpp"
#include "io/results/result_json.hpp"
#include "io/version.hpp"

namespace chainsaw {

namespace {

using checkpoint_file::damaged;
using checkpoint_file::genes_type_name;
using checkpoint_file::kFormat;
using checkpoint_file::utc_now;
constexpr hsize_t kChunk = hsize_t{1} << 20;

template <class T>
void write_array(hid_t group, const std::string& name, const std::vector<T>& values) {
  const auto n = static_cast<hsize_t>(values.size());
  const hsize_t chunk = std::max<hsize_t>(1, std::min<hsize_t>(n, kChunk));
  h5::Handle dataset = h5::create_dataset(group, name, h5::native_type<T>(), {n}, {chunk});
  if (n > 0) h5::write_block(dataset.get(), h5::native_type<T>(), 0, 0, n, values.data());
}

template <class T>
std::vector<T> read_array(const std::string& path, hid_t group, const std::string& name) {
  try {
    h5::Handle dataset = h5::open_dataset(group, name);
    const std::vector<hsize_t> dims = h5::dataset_dims(dataset.get());
    const h5::StoredType type = h5::dataset_type(dataset.get());
    const H5T_class_t expected = std::is_floating_point_v<T> ? H5T_FLOAT : H5T_INTEGER;
    if (dims.size() != 1 || type.type_class != expected || type.size != sizeof(T))
      damaged(path, "dataset " + name + " has the wrong shape or type");
    std::vector<T> values(dims[0]);
    if (dims[0] > 0) h5::read_block(dataset.get(), h5::native_type<T>(), 0, 0, dims[0], values.data());
    return values;
  } catch (const h5::Error& e) {
    damaged(path, "dataset " + name + " " + e.what());
  }
}

h5::Handle open_read_only(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) damaged(path, "no such file");
  h5::silence_library_errors();
  if (H5Fis_hdf5(path.c_str()) <= 0) damaged(path, "not an HDF5 file");
  try {
    return h5::open_file_read_only(path);
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
}

struct Read {
  CheckpointHeader header;
  nlohmann::json state;
};

Read read_header(const std::string& path, const h5::Handle& file) {
  Read r;
  r.header.summary = read_checkpoint_summary(path);
  const CheckpointSummary& s = r.header.summary;
  try {
    h5::Handle run = h5::open_group(file.get(), "run");
    const std::vector<std::uint8_t> bytes = read_array<std::uint8_t>(path, run.get(), "state");
    r.state = nlohmann::json::parse(bytes.begin(), bytes.end());
    r.header.config = config_from_json(r.state.at("config"));
    r.header.config.validate();
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  } catch (const nlohmann::json::exception&) {
    damaged(path, "run/state is not a population algorithm's state");
  } catch (const UserError& e) {
    damaged(path, e.what());
  }
  const Config& c = r.header.config;
  if (c.algorithm == AlgorithmKind::kMaSwChains ||
      r.state.value("algorithm", "") != algorithm_name(c.algorithm))
    damaged(path, "run/state's algorithm disagrees with its configuration");
  if (s.algorithm != algorithm_name(c.algorithm))
    damaged(path, fmt::format("its algorithm attribute says {} but run/state holds a {} run",
                              s.algorithm, algorithm_name(c.algorithm)));
  if (s.function != c.function || s.dim != c.dim || s.budget != c.max_evaluations ||
      r.state.value("backend", "") != s.backend)
    damaged(path, "the summary attributes disagree with run/state");
  checkpoint_file::verify_summary_checksum(path, file.get(), s.format_version);
  if (s.genes_type != genes_type_name())
    damaged(path, "written by a " + s.genes_type + " build; this chainsaw stores " +
                      genes_type_name() + " genes");
  try {
    r.header.backend = parse_backend("backend", s.backend);
  } catch (const UserError&) {
    damaged(path, "unknown backend " + s.backend);
  }
  const FunctionInfo* info =
      is_user_objective_name(c.function) ? nullptr : &function_info(c.function);
  if (info != nullptr && cec2010_number(info->id) != 0) {
    if (!h5::has_link(file.get(), "instance"))
      damaged(path, "has no group instance (the CEC 2010 instance of " + s.function + ")");
    const std::string source = "checkpoint " + path + ": instance";
    try {
      h5::Handle group = h5::open_group(file.get(), "instance");
      const CecInstanceData data = read_instance_group(group.get(), *info, c.dim, source);
      r.header.instance = std::make_shared<const CecInstance>(
          CecInstance::from_data(data, *info, c.dim, c.effective_problem_seed(), source));
    } catch (const h5::Error& e) {
      damaged(path, std::string("instance: ") + e.what());
    }
  }
  return r;
}

}  // namespace

std::string checkpoint_algorithm(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "ma-sw-chains";
  h5::silence_library_errors();
  if (H5Fis_hdf5(path.c_str()) <= 0) return "ma-sw-chains";
  try {
    h5::Handle file = h5::open_file_read_only(path);
    if (!h5::has_attribute(file.get(), "algorithm")) return "ma-sw-chains";
    return h5::read_string_attribute(file.get(), "algorithm");
  } catch (const h5::Error&) {
    return "ma-sw-chains";
  }
}

void write_algorithm_checkpoint(const std::string& flag, const std::string& path,
                                PopulationAlgorithm& algorithm, Backend backend,
                                const std::string& reason) {
  const Config& config = algorithm.config();
  const AlgorithmState state = algorithm.save_state();
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["backend"] = backend_name(backend);
  j["genes"] = genes_type_name();
  j["algorithm"] = algorithm_name(config.algorithm);
  j["config"] = config_to_json(config);
  j["integers"] = state.integers;
  const std::string text = j.dump();
  commit_atomically(flag, path, [&](const std::string& temporary) {
    try {
      h5::Handle file = h5::create_file(temporary);
      const hid_t root = file.get();
      checkpoint_file::write_root_attributes(
          root, reason, backend, config, algorithm.population_size(),
          algorithm.counters().evaluations, algorithm.best_fitness(), kCheckpointFormatVersion);
      checkpoint_file::write_summary_checksum(root);
      {
        h5::Handle run = h5::create_group(root, "run");
        write_array(run.get(), "state", std::vector<std::uint8_t>(text.begin(), text.end()));
      }
      {
        h5::Handle group = h5::create_group(root, "algorithm");
        for (const auto& [name, values] : state.genes) write_array(group.get(), name, values);
        for (const auto& [name, values] : state.reals) write_array(group.get(), name, values);
      }
      if (const Problem& problem = algorithm.problem(); problem.is_cec2010()) {
        h5::Handle group = h5::create_group(root, "instance");
        write_instance_group(group.get(), *problem.cec, function_info(problem.function),
                             instance_origin(config.instance, config.effective_problem_seed()),
                             kChunk);
      }
      file.close("cannot finish the file");
    } catch (const h5::Error& e) {
      throw UserError(flag + " = " + path + ": cannot write the checkpoint: " + e.what());
    }
  });
}

CheckpointHeader read_algorithm_checkpoint_header(const std::string& path) {
  h5::Handle file = open_read_only(path);
  return read_header(path, file).header;
}

void load_algorithm_checkpoint(const std::string& path, PopulationAlgorithm& algorithm) {
  h5::Handle file = open_read_only(path);
  const Read r = read_header(path, file);
  const Config& config = algorithm.config();
  CHAINSAW_EXPECTS(config.dim == r.header.config.dim &&
                       config.algorithm == r.header.config.algorithm,
                   "the algorithm was not built from the checkpoint's configuration");
  const Problem& problem = algorithm.problem();
  if (r.header.instance && !(problem.cec && r.header.instance->same_as(*problem.cec)))
    damaged(path, "the run's CEC 2010 instance is not the one the checkpoint embeds");
  AlgorithmState state;
  try {
    for (const auto& [name, value] : r.state.at("integers").items())
      state.integers[name] = value.get<std::int64_t>();
  } catch (const nlohmann::json::exception&) {
    damaged(path, "run/state's integers are incomplete");
  }
  if (state.integers["evaluations"] > config.max_evaluations)
    throw UserError(fmt::format("checkpoint {}: {} evaluations are done already, more than the "
                                "budget of {}",
                                path, state.integers["evaluations"], config.max_evaluations));
  // Which arrays are genes and which doubles: the stored type says.
  try {
    h5::Handle group = h5::open_group(file.get(), "algorithm");
    const AlgorithmState expected = algorithm.save_state();  // the names and kinds
    for (const auto& entry : expected.genes)
      state.genes[entry.first] = read_array<real_t>(path, group.get(), entry.first);
    for (const auto& entry : expected.reals)
      state.reals[entry.first] = read_array<double>(path, group.get(), entry.first);
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
  try {
    algorithm.restore_state(state);
  } catch (const UserError& e) {
    damaged(path, e.what());
  }
}

}  // namespace chainsaw
