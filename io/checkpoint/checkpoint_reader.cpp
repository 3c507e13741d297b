// The one checkpoint reader: the summary (`chainsaw inspect`), the header a resume builds its
// run from, and the algorithm's state (saved_state.hpp), every part validated on the way.
#include <sys/stat.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_file.hpp"
#include "io/checkpoint/saved_state.hpp"
#include "io/instance_file.hpp"
#include "io/parse_value.hpp"
#include "io/results/result_json.hpp"

namespace chainsaw {

namespace {

using checkpoint_file::damaged;
using checkpoint_file::genes_type_name;

h5::Handle open_checkpoint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) damaged(path, "no such file");
  if (!S_ISREG(st.st_mode)) damaged(path, "not a regular file");
  h5::silence_library_errors();
  if (H5Fis_hdf5(path.c_str()) <= 0) damaged(path, "not an HDF5 file");
  try {
    return h5::open_file_read_only(path);
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
}

// A file of another format version (older, or from a later chainsaw) is named as such, with
// the chainsaw that reads it: the one that wrote it.
void check_format_version(const std::string& path, hid_t root, std::int64_t version) {
  if (version == kCheckpointFormatVersion) return;
  const std::string writer = h5::has_attribute(root, "chainsaw_version")
                                 ? h5::read_string_attribute(root, "chainsaw_version")
                                 : std::string("unknown");
  damaged(path, fmt::format("format version {} (written by chainsaw {}); this chainsaw reads "
                            "format version {} only: resume it with the chainsaw that wrote it",
                            version, writer, kCheckpointFormatVersion));
}

CheckpointSummary read_summary(const std::string& path, hid_t root) {
  if (!h5::has_attribute(root, "format"))
    damaged(path, "an HDF5 file, but not a chainsaw checkpoint (no 'format' attribute)");
  CheckpointSummary s;
  try {
    if (h5::read_string_attribute(root, "format") != checkpoint_file::kFormat)
      damaged(path, "an HDF5 file, but not a chainsaw checkpoint");
    s.format_version = h5::read_int_attribute(root, "format_version");
    check_format_version(path, root, s.format_version);
    s.chainsaw_version = h5::read_string_attribute(root, "chainsaw_version");
    s.written_at = h5::read_string_attribute(root, "written_at");
    s.reason = h5::read_string_attribute(root, "reason");
    s.backend = h5::read_string_attribute(root, "backend");
    s.genes_type = h5::read_string_attribute(root, "genes_type");
    s.function = h5::read_string_attribute(root, "function");
    s.dim = h5::read_int_attribute(root, "dim");
    s.capacity = h5::read_int_attribute(root, "capacity");
    s.evaluations = h5::read_int_attribute(root, "evaluations");
    s.budget = h5::read_int_attribute(root, "budget");
    s.best_fitness = h5::read_double_attribute(root, "best_fitness");
    s.algorithm = h5::read_string_attribute(root, "algorithm");
    if (h5::has_link(root, "instance")) {
      h5::Handle instance = h5::open_group(root, "instance");
      s.instance = "embedded (" + instance_source(instance.get()) + ")";
    }
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
  return s;
}

nlohmann::json read_state(const std::string& path, hid_t root) {
  std::vector<std::uint8_t> bytes;
  try {
    h5::Handle run = h5::open_group(root, "run");
    state_arrays::read_arrays(path, run.get(), "run", {state_arrays::in_memory("state", bytes, true)});
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
  try {
    return nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::exception&) {
    damaged(path, "run/state is not valid JSON");
  }
}

// The embedded CEC 2010 instance, checked as an instance file's; null for other functions.
std::shared_ptr<const CecInstance> read_instance(const std::string& path, hid_t root,
                                                 const Config& c) {
  // A user objective's run (the library's) has no instance; its function is "user:NAME".
  if (is_user_objective_name(c.function)) return nullptr;
  const FunctionInfo& info = function_info(c.function);
  if (cec2010_number(info.id) == 0) return nullptr;
  if (!h5::has_link(root, "instance"))
    damaged(path, "has no group instance (the CEC 2010 instance of " + c.function + ")");
  const std::string source = "checkpoint " + path + ": instance";
  try {
    h5::Handle group = h5::open_group(root, "instance");
    const CecInstanceData data = read_instance_group(group.get(), info, c.dim, source);
    auto instance = std::make_shared<const CecInstance>(
        CecInstance::from_data(data, info, c.dim, c.effective_problem_seed(), source));
    // Every part is restored, none generated: a checkpoint is independent of the generator.
    if (data.o.empty() || (instance->groups > 0 && (data.perm.empty() || data.rotation.empty())))
      damaged(path, "instance lacks o, P or M");
    return instance;
  } catch (const h5::Error& e) {
    damaged(path, std::string("instance: ") + e.what());
  }
}

Config config_from_state(const std::string& path, const nlohmann::json& state) {
  try {
    Config config = config_from_json(state.at("config"));
    config.validate();
    return config;
  } catch (const nlohmann::json::exception&) {
    damaged(path, "run/state has no configuration");
  } catch (const UserError& e) {
    damaged(path, e.what());
  }
}

// The header of an open checkpoint, validated, and the state it was checked against.
struct ValidatedHeader {
  CheckpointHeader header;
  nlohmann::json state;
  std::int64_t evaluations = 0;
};

ValidatedHeader validate_header(const std::string& path, const h5::Handle& file) {
  ValidatedHeader v;
  CheckpointHeader& h = v.header;
  h.summary = read_summary(path, file.get());
  v.state = read_state(path, file.get());
  h.config = config_from_state(path, v.state);
  const CheckpointSummary& s = h.summary;
  // A file relabelled by hand (or by a flipped byte) is named as such, before the state is read
  // as the other algorithm's.
  const char* algorithm = algorithm_name(h.config.algorithm);
  if (s.algorithm != algorithm || v.state.value("algorithm", "") != algorithm)
    damaged(path, fmt::format("its algorithm attribute says {} but run/state holds a {} run",
                              s.algorithm, algorithm));
  const checkpoint_state::StateHeader state = checkpoint_state::read_state_header(path, v.state, h.config);
  h.islands = state.islands;
  v.evaluations = state.evaluations;
  const bool capacity_ok =
      h.config.algorithm != AlgorithmKind::kMaSwChains || s.capacity == h.config.capacity();
  if (v.state.value("backend", "") != s.backend || s.function != h.config.function ||
      s.dim != h.config.dim || !capacity_ok || s.evaluations != state.evaluations ||
      s.budget != h.config.max_evaluations || v.state.value("genes", "") != s.genes_type)
    damaged(path, "the summary attributes disagree with run/state");
  checkpoint_file::verify_summary_checksum(path, file.get());
  if (s.genes_type != genes_type_name())
    damaged(path, "written by a " + s.genes_type + " build; this chainsaw stores " +
                      genes_type_name() + " genes");
  try {
    h.backend = parse_backend("backend", s.backend);
  } catch (const UserError&) {
    damaged(path, "unknown backend " + s.backend);
  }
  h.instance = read_instance(path, file.get(), h.config);
  return v;
}

}  // namespace

CheckpointSummary inspect_checkpoint(const std::string& path) {
  h5::Handle file = open_checkpoint(path);
  CheckpointSummary s = read_summary(path, file.get());
  checkpoint_file::verify_summary_checksum(path, file.get());
  return s;
}

CheckpointHeader read_checkpoint_header(const std::string& path) {
  return validate_header(path, open_checkpoint(path)).header;
}

Problem checkpoint_problem(const CheckpointHeader& header) {
  const Config& c = header.config;
  if (header.instance)
    return Problem::make(c.function, c.dim, c.effective_problem_seed(), header.instance);
  return make_problem(c);
}

void load_checkpoint(const std::string& path, Algorithm& algorithm) {
  h5::Handle file = open_checkpoint(path);
  const ValidatedHeader v = validate_header(path, file);
  const Config& config = algorithm.config();
  CHAINSAW_EXPECTS(config.dim == v.header.config.dim &&
                       config.algorithm == v.header.config.algorithm &&
                       config.capacity() == v.header.config.capacity(),
                   "the algorithm was not built from the checkpoint's configuration");
  const Problem& problem = algorithm.problem();
  if (v.header.instance && !(problem.cec && v.header.instance->same_as(*problem.cec)))
    damaged(path, "the run's CEC 2010 instance is not the one the checkpoint embeds");
  if (v.evaluations > config.max_evaluations)
    throw UserError(fmt::format("checkpoint {}: {} evaluations are done already, more than the "
                                "budget of {}",
                                path, v.evaluations, config.max_evaluations));
  h5::Handle group;
  try {
    group = h5::open_group(file.get(), "algorithm");
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
  checkpoint_state::load_state(path, group.get(), v.state, algorithm);
}

}  // namespace chainsaw
