#include "io/checkpoint/checkpoint.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <numeric>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/distributed/agreement.hpp"
#include "core/error.hpp"
#include "core/types.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "io/checkpoint/checkpoint_file.hpp"
#include "io/checkpoint/hdf5_file.hpp"
#include "io/instance_file.hpp"
#include "io/results/output_file.hpp"
#include "io/parse_value.hpp"
#include "io/results/result_json.hpp"
#include "io/version.hpp"

namespace chainsaw {

namespace {

using checkpoint_file::damaged;
using checkpoint_file::genes_type_name;
using checkpoint_file::kFormat;
using checkpoint_file::utc_now;
// Genes per streamed block and per HDF5 chunk along D: 4 MiB of float32, so that the host holds
// one block of a population of any size and every write fills whole chunks.
constexpr Dim kBlockGenes = Dim{1} << 20;

const char* stage_name(LoopStage s) { return s == LoopStage::kLocalSearch ? "ls" : "ga"; }

// +inf (nothing received yet) is not a JSON number: null.
nlohmann::ordered_json islands_to_json(const IslandState& s) {
  return {{"rank", s.rank},
          {"ranks", s.ranks},
          {"epoch", s.epoch},
          {"migrations", s.migrations},
          {"immigrants_improved", s.immigrants_improved},
          {"best_immigrant", std::isfinite(s.best_immigrant)
                                 ? nlohmann::ordered_json(s.best_immigrant)
                                 : nlohmann::ordered_json()}};
}

nlohmann::ordered_json state_to_json(const MaSwChains& algorithm, Backend backend,
                                     const IslandState* islands) {
  const LoopState s = algorithm.loop_state();
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["format_version"] = kCheckpointFormatVersion;
  j["backend"] = backend_name(backend);
  j["genes"] = genes_type_name();
  j["config"] = config_to_json(algorithm.config());
  j["counters"] = {{"evaluations", s.counters.evaluations},
                   {"ga", s.counters.ga_evaluations},
                   {"ls", s.counters.ls_evaluations},
                   {"ls_applications", s.counters.ls_applications},
                   {"ls_random_choices", s.counters.ls_random_choices},
                   {"restarts", s.counters.restarts}};
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  for (std::size_t p = 0; p < static_cast<std::size_t>(Phase::kCount); ++p)
    phases[phase_name(static_cast<Phase>(p))] = s.timers.seconds(static_cast<Phase>(p));
  j["phase_seconds"] = phases;
  // JSON numbers round-trip doubles exactly, which the pending normal deviate needs.
  j["host_rng"] = {{"state", s.rng_state}, {"has_spare", s.rng_has_spare}, {"spare", s.rng_spare}};
  j["stage"] = stage_name(s.stage);
  j["ga_phase_left"] = s.ga_phase_left;
  j["elapsed_seconds"] = s.elapsed_seconds;
  if (islands) j["islands"] = islands_to_json(*islands);
  return j;
}

template <class T>
void write_vector(hid_t group, const std::string& name, const std::vector<T>& values) {
  const auto n = static_cast<hsize_t>(values.size());
  const hsize_t chunk = std::max<hsize_t>(1, std::min<hsize_t>(n, kBlockGenes));
  h5::Handle dataset = h5::create_dataset(group, name, h5::native_type<T>(), {n}, {chunk});
  if (n > 0) h5::write_block(dataset.get(), h5::native_type<T>(), 0, 0, n, values.data());
}

// The genes, then the bias vectors, of every slot as a sequence of blocks of at most
// kBlockGenes, read out of the engine one at a time. A sharded engine's reads are collective:
// every rank makes the same reads in the same order, rank 0 writing the file and the others
// sending their parts, and rank 0 finishes the sequence (read_rest) even when its file failed.
class SlotArrayBlocks {
 public:
  struct Block {
    SlotArray array;
    int slot;
    Dim first;
    Dim count;
  };
  SlotArrayBlocks(Engine& engine, int capacity, Dim dim)
      : engine_(engine), capacity_(capacity), dim_(dim),
        per_slot_((dim + kBlockGenes - 1) / kBlockGenes),
        data_(static_cast<std::size_t>(std::min(dim, kBlockGenes))) {}
  Block read_next() {
    const Dim per_array = per_slot_ * capacity_;
    const Block b{next_ < per_array ? SlotArray::kGenes : SlotArray::kBias,
                  static_cast<int>(next_ % per_array / per_slot_), next_ % per_slot_ * kBlockGenes,
                  std::min(kBlockGenes, dim_ - next_ % per_slot_ * kBlockGenes)};
    ++next_;
    engine_.read_slot_array(b.array, b.slot, b.first, b.count, data_.data());
    return b;
  }
  void read_rest() {
    while (next_ < 2 * per_slot_ * capacity_) read_next();
  }
  const real_t* data() const { return data_.data(); }

 private:
  Engine& engine_;
  int capacity_;
  Dim dim_;
  Dim per_slot_;
  Dim next_ = 0;
  std::vector<real_t> data_;
};

// One slot-major capacity x D dataset of the blocks' next capacity x D genes.
void write_slot_arrays(hid_t group, const std::string& name, SlotArrayBlocks& blocks,
                       int capacity, Dim dim) {
  const hid_t type = h5::native_type<real_t>();
  const auto width = static_cast<hsize_t>(std::min(dim, kBlockGenes));
  h5::Handle dataset = h5::create_dataset(
      group, name, type, {static_cast<hsize_t>(capacity), static_cast<hsize_t>(dim)}, {1, width});
  for (int slot = 0; slot < capacity; ++slot) {
    for (Dim first = 0; first < dim; first += kBlockGenes) {
      const SlotArrayBlocks::Block b = blocks.read_next();
      h5::write_block(dataset.get(), type, static_cast<hsize_t>(b.slot),
                      static_cast<hsize_t>(b.first), static_cast<hsize_t>(b.count), blocks.data());
    }
  }
}

// The checkpoint of `algorithm` in a temporary file, its slot arrays read from `blocks` and
// its engine's random-number state `rng`.
StagedFile stage_file(const std::string& flag, const std::string& path, MaSwChains& algorithm,
                      Backend backend, const std::string& reason, const IslandState* islands,
                      SlotArrayBlocks& blocks, const RngSnapshot& rng);

}  // namespace

void write_checkpoint(const std::string& flag, const std::string& path, MaSwChains& algorithm,
                      Backend backend, const std::string& reason, const IslandState* islands) {
  Engine& engine = algorithm.engine();
  Communicator* comm = engine.shard().comm;
  if (comm == nullptr)
    return stage_checkpoint(flag, path, algorithm, backend, reason, islands).commit();
  // Sharded: one ordinary file, staged by rank 0 alone from the blocks every rank sends it.
  // Rank 0 takes part in every read even when its file failed, so that no rank is left
  // waiting; then all agree, and only a whole file replaces the last good one.
  SlotArrayBlocks blocks(engine, algorithm.population().capacity(), algorithm.config().dim);
  const RngSnapshot rng = engine.save_rng();  // collective on the GPU: every slice's states
  std::optional<StagedFile> staged;
  std::exception_ptr error;
  if (comm->is_root()) {
    try {
      staged.emplace(stage_file(flag, path, algorithm, backend, reason, islands, blocks, rng));
    } catch (...) {
      error = std::current_exception();
    }
  }
  blocks.read_rest();
  agree(*comm, [&] {
    if (error) std::rethrow_exception(error);
  });
  agree(*comm, [&] {
    if (staged) staged->commit();
  });
}

std::string island_checkpoint_path(const std::string& path, int rank) {
  const std::filesystem::path p(path);
  const std::string island = ".island" + std::to_string(rank);
  if (!p.has_extension()) return path + island;
  return (p.parent_path() / (p.stem().string() + island + p.extension().string())).string();
}

StagedFile stage_checkpoint(const std::string& flag, const std::string& path,
                            MaSwChains& algorithm, Backend backend, const std::string& reason,
                            const IslandState* islands) {
  CHAINSAW_EXPECTS(algorithm.engine().shard().comm == nullptr,
                   "a sharded run's checkpoint is written by all ranks: write_checkpoint");
  SlotArrayBlocks blocks(algorithm.engine(), algorithm.population().capacity(),
                         algorithm.config().dim);
  return stage_file(flag, path, algorithm, backend, reason, islands, blocks,
                    algorithm.engine().save_rng());
}

namespace {

StagedFile stage_file(const std::string& flag, const std::string& path, MaSwChains& algorithm,
                      Backend backend, const std::string& reason, const IslandState* islands,
                      SlotArrayBlocks& blocks, const RngSnapshot& rng) {
  const Population& population = algorithm.population();
  const Config& config = algorithm.config();
  const int capacity = population.capacity();
  const std::string state = state_to_json(algorithm, backend, islands).dump();

  return StagedFile(flag, path, [&](const std::string& temporary) {
    try {
      h5::Handle file = h5::create_file(temporary);
      const hid_t root = file.get();
      checkpoint_file::write_root_attributes(
          root, reason, backend, config, capacity, algorithm.counters().evaluations,
          population.best_fitness(), kCheckpointFormatVersion);
      checkpoint_file::write_summary_checksum(root);
      {
        h5::Handle run = h5::create_group(root, "run");
        write_vector(run.get(), "state", std::vector<std::uint8_t>(state.begin(), state.end()));
      }
      {
        h5::Handle group = h5::create_group(root, "population");
        write_slot_arrays(group.get(), "genes", blocks, capacity, config.dim);
        write_slot_arrays(group.get(), "bias", blocks, capacity, config.dim);
        std::vector<std::uint8_t> has_chain(capacity), ls_failed(capacity);
        std::vector<double> rho(capacity);
        std::vector<std::int32_t> successes(capacity), failures(capacity);
        for (int slot = 0; slot < capacity; ++slot) {
          const ChainRecord& c = population.chain(slot);
          has_chain[slot] = c.has_chain;
          ls_failed[slot] = c.ls_failed;
          rho[slot] = c.state.rho;
          successes[slot] = c.state.successes;
          failures[slot] = c.state.failures;
        }
        write_vector(group.get(), "fitness", population.all_fitness());
        write_vector(group.get(), "order", population.order());
        write_vector(group.get(), "chain_has_chain", has_chain);
        write_vector(group.get(), "chain_ls_failed", ls_failed);
        write_vector(group.get(), "chain_rho", rho);
        write_vector(group.get(), "chain_successes", successes);
        write_vector(group.get(), "chain_failures", failures);
      }
      {
        h5::Handle group = h5::create_group(root, "rng");
        write_vector(group.get(), "engine", rng.bytes);
        h5::Handle dataset = h5::open_dataset(group.get(), "engine");
        h5::write_attribute(dataset.get(), "layout", rng.layout);
      }
      if (const Problem& problem = algorithm.problem(); problem.is_cec2010()) {
        h5::Handle group = h5::create_group(root, "instance");
        write_instance_group(group.get(), *problem.cec, function_info(problem.function),
                             instance_origin(config.instance, config.effective_problem_seed()),
                             kBlockGenes);
      }
      file.close("cannot finish the file");
    } catch (const h5::Error& e) {
      throw UserError(flag + " = " + path + ": cannot write the checkpoint: " + e.what());
    }
  });
}

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

CheckpointSummary read_summary(const std::string& path, hid_t root) {
  if (!h5::has_attribute(root, "format"))
    damaged(path, "an HDF5 file, but not a chainsaw checkpoint (no 'format' attribute)");
  CheckpointSummary s;
  try {
    if (h5::read_string_attribute(root, "format") != kFormat)
      damaged(path, "an HDF5 file, but not a chainsaw checkpoint");
    s.format_version = h5::read_int_attribute(root, "format_version");
    if (s.format_version < kCheckpointOldestReadableVersion ||
        s.format_version > kCheckpointFormatVersion)
      damaged(path, fmt::format("layout version {}, this chainsaw reads versions {} to {}",
                                s.format_version, kCheckpointOldestReadableVersion,
                                kCheckpointFormatVersion));
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
    s.algorithm = h5::has_attribute(root, "algorithm")
                      ? h5::read_string_attribute(root, "algorithm")
                      : std::string(algorithm_name(AlgorithmKind::kMaSwChains));
    if (h5::has_link(root, "instance")) {
      h5::Handle instance = h5::open_group(root, "instance");
      s.instance = "embedded (" + instance_source(instance.get()) + ")";
    } else if (s.format_version == 1 && s.function.rfind("cec2010-", 0) == 0) {
      // The readable copy of the configuration; resume checks it against run/state.
      const auto config = nlohmann::json::parse(h5::read_string_attribute(root, "config"),
                                                nullptr, false);
      if (config.is_object()) {
        const nlohmann::json file = config.value("instance", nlohmann::json());
        s.instance = (file.is_string() ? file.get<std::string>()
                                       : fmt::format("generated from problem seed {}",
                                                     config.value("problem_seed", 0ULL))) +
                     " (not embedded: layout version 1; read or generated again on resume)";
      }
    }
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
  return s;
}

// A 1-D dataset of exactly `count` values of T's kind, read whole.
template <class T>
std::vector<T> read_vector(const std::string& path, hid_t group, const std::string& name,
                           hsize_t count) {
  try {
    h5::Handle dataset = h5::open_dataset(group, name);
    const std::vector<hsize_t> dims = h5::dataset_dims(dataset.get());
    const h5::StoredType type = h5::dataset_type(dataset.get());
    const H5T_class_t expected_class = std::is_floating_point_v<T> ? H5T_FLOAT : H5T_INTEGER;
    if (dims.size() != 1 || dims[0] != count || type.type_class != expected_class ||
        type.size != sizeof(T))
      damaged(path, "dataset " + name + " has the wrong shape or type");
    std::vector<T> values(count);
    if (count > 0)
      h5::read_block(dataset.get(), h5::native_type<T>(), 0, 0, count, values.data());
    return values;
  } catch (const h5::Error& e) {
    damaged(path, "dataset " + name + " " + e.what());
  }
}

std::vector<std::uint8_t> read_bytes(const std::string& path, hid_t group, const std::string& name) {
  hsize_t count = 0;
  try {
    h5::Handle dataset = h5::open_dataset(group, name);
    const std::vector<hsize_t> dims = h5::dataset_dims(dataset.get());
    if (dims.size() != 1) damaged(path, "dataset " + name + " has the wrong shape");
    count = dims[0];
  } catch (const h5::Error& e) {
    damaged(path, "dataset " + name + " " + e.what());
  }
  return read_vector<std::uint8_t>(path, group, name, count);
}

void check_slot_arrays(const std::string& path, hid_t group, const std::string& name,
                       std::int64_t capacity, std::int64_t dim) {
  try {
    h5::Handle dataset = h5::open_dataset(group, name);
    const std::vector<hsize_t> dims = h5::dataset_dims(dataset.get());
    const h5::StoredType type = h5::dataset_type(dataset.get());
    if (dims.size() != 2 || dims[0] != static_cast<hsize_t>(capacity) ||
        dims[1] != static_cast<hsize_t>(dim))
      damaged(path, fmt::format("dataset population/{} is not {} x {}", name, capacity, dim));
    if (type.type_class != H5T_FLOAT || type.size != sizeof(real_t))
      damaged(path, fmt::format("dataset population/{} holds {}-byte values, this build stores "
                                "{} genes",
                                name, type.size, genes_type_name()));
  } catch (const h5::Error& e) {
    damaged(path, "dataset population/" + name + " " + e.what());
  }
}

// Genes [begin, end) of every slot, the engine's (a sharded rank's slice), one HDF5 chunk
// (kBlockGenes along D) per read.
void read_slot_arrays(const std::string& path, hid_t group, const std::string& name,
                      Engine& engine, SlotArray array, int capacity, Dim begin, Dim end,
                      std::vector<real_t>& block) {
  try {
    h5::Handle dataset = h5::open_dataset(group, name);
    for (int slot = 0; slot < capacity; ++slot) {
      for (Dim chunk = begin / kBlockGenes * kBlockGenes; chunk < end; chunk += kBlockGenes) {
        const Dim first = std::max(chunk, begin);
        const Dim count = std::min(chunk + kBlockGenes, end) - first;
        h5::read_block(dataset.get(), h5::native_type<real_t>(), static_cast<hsize_t>(slot),
                       static_cast<hsize_t>(first), static_cast<hsize_t>(count), block.data());
        engine.write_slot_array(array, slot, first, count, block.data());
      }
    }
  } catch (const h5::Error& e) {
    damaged(path, "dataset population/" + name + " " + e.what());
  }
}

nlohmann::json read_state(const std::string& path, hid_t root) {
  h5::Handle run;
  try {
    run = h5::open_group(root, "run");
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
  const std::vector<std::uint8_t> bytes = read_bytes(path, run.get(), "state");
  try {
    return nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::exception&) {
    damaged(path, "run/state is not valid JSON");
  }
}

LoopState loop_state_from_json(const std::string& path, const nlohmann::json& j) {
  try {
    LoopState s;
    const nlohmann::json& n = j.at("counters");
    s.counters.evaluations = n.at("evaluations").get<std::int64_t>();
    s.counters.ga_evaluations = n.at("ga").get<std::int64_t>();
    s.counters.ls_evaluations = n.at("ls").get<std::int64_t>();
    s.counters.ls_applications = n.at("ls_applications").get<std::int64_t>();
    s.counters.ls_random_choices = n.at("ls_random_choices").get<std::int64_t>();
    s.counters.restarts = n.at("restarts").get<std::int64_t>();
    for (std::size_t p = 0; p < static_cast<std::size_t>(Phase::kCount); ++p) {
      const Phase phase = static_cast<Phase>(p);
      const auto& seconds = j.at("phase_seconds");
      if (seconds.contains(phase_name(phase)))  // phases added later start at zero
        s.timers.set(phase, seconds.at(phase_name(phase)).get<double>());
    }
    const nlohmann::json& rng = j.at("host_rng");
    s.rng_state = rng.at("state").get<std::uint64_t>();
    s.rng_has_spare = rng.at("has_spare").get<bool>();
    s.rng_spare = rng.at("spare").get<double>();
    const std::string stage = j.at("stage").get<std::string>();
    if (stage != "ga" && stage != "ls") damaged(path, "run/state has an unknown stage " + stage);
    s.stage = stage == "ls" ? LoopStage::kLocalSearch : LoopStage::kGeneticAlgorithm;
    s.ga_phase_left = j.at("ga_phase_left").get<std::int64_t>();
    s.elapsed_seconds = j.at("elapsed_seconds").get<double>();
    return s;
  } catch (const nlohmann::json::exception& e) {
    damaged(path, std::string("run/state is incomplete (") + e.what() + ")");
  }
}

std::optional<IslandState> islands_from_json(const std::string& path, const nlohmann::json& j) {
  if (!j.contains("islands")) return std::nullopt;
  try {
    const nlohmann::json& i = j.at("islands");
    IslandState s;
    s.rank = i.at("rank").get<int>();
    s.ranks = i.at("ranks").get<int>();
    s.epoch = i.at("epoch").get<std::int64_t>();
    s.migrations = i.at("migrations").get<std::int64_t>();
    s.immigrants_improved = i.at("immigrants_improved").get<std::int64_t>();
    if (!i.at("best_immigrant").is_null()) s.best_immigrant = i.at("best_immigrant").get<double>();
    if (s.ranks < 1 || s.rank < 0 || s.rank >= s.ranks || s.epoch < 0 || s.migrations < 0)
      damaged(path, "run/state has an impossible islands record");
    return s;
  } catch (const nlohmann::json::exception& e) {
    damaged(path, std::string("run/state has an incomplete islands record (") + e.what() + ")");
  }
}

}  // namespace

CheckpointSummary inspect_checkpoint(const std::string& path) {
  h5::Handle file = open_checkpoint(path);
  CheckpointSummary s = read_summary(path, file.get());
  checkpoint_file::verify_summary_checksum(path, file.get(), s.format_version);
  return s;
}

CheckpointSummary read_checkpoint_summary(const std::string& path) {
  h5::Handle file = open_checkpoint(path);
  return read_summary(path, file.get());
}

namespace {

// The header of an open checkpoint, validated, and the loop state it was checked against.
struct ValidatedHeader {
  CheckpointHeader header;
  LoopState loop;
};

ValidatedHeader validate_header(const std::string& path, const h5::Handle& file) {
  CheckpointHeader h;
  h.summary = read_summary(path, file.get());
  const nlohmann::json state = read_state(path, file.get());
  try {
    h.config = config_from_json(state.at("config"));
    h.config.validate();
  } catch (const nlohmann::json::exception&) {
    damaged(path, "run/state has no configuration");
  } catch (const UserError& e) {
    damaged(path, e.what());
  }
  // A file relabelled by hand (or by a flipped byte) is named as such, before the state is read
  // as the other algorithm's.
  if (h.summary.algorithm != algorithm_name(AlgorithmKind::kMaSwChains) ||
      h.config.algorithm != AlgorithmKind::kMaSwChains)
    damaged(path, fmt::format("its algorithm attribute says {} but run/state holds a {} run",
                              h.summary.algorithm, algorithm_name(h.config.algorithm)));
  const LoopState loop = loop_state_from_json(path, state);
  h.islands = islands_from_json(path, state);
  if (h.islands.has_value() != (h.config.distribute == Distribute::kIslands))
    damaged(path, "run/state's islands record does not match its configuration");
  const CheckpointSummary& s = h.summary;
  if (state.value("backend", "") != s.backend || s.function != h.config.function ||
      s.dim != h.config.dim || s.capacity != h.config.capacity() ||
      s.evaluations != loop.counters.evaluations || s.budget != h.config.max_evaluations ||
      state.value("genes", "") != s.genes_type)
    damaged(path, "the summary attributes disagree with run/state");
  checkpoint_file::verify_summary_checksum(path, file.get(), s.format_version);
  if (s.genes_type != genes_type_name())
    damaged(path, "written by a " + s.genes_type + " build; this chainsaw stores " +
                      genes_type_name() + " genes");
  try {
    h.backend = parse_backend("backend", s.backend);
  } catch (const UserError&) {
    damaged(path, "unknown backend " + s.backend);
  }
  const RunCounters& n = loop.counters;
  if (n.evaluations != n.ga_evaluations + n.ls_evaluations ||
      n.evaluations < h.config.population_size || n.evaluations > h.config.max_evaluations ||
      loop.ga_phase_left < 0)
    damaged(path, "the evaluation counters are inconsistent");

  // A user objective's run (the library's) has no instance; its function is "user:NAME".
  const FunctionInfo* info_or_null =
      is_user_objective_name(h.config.function) ? nullptr : &function_info(h.config.function);
  if (info_or_null != nullptr && cec2010_number(info_or_null->id) != 0) {
    const FunctionInfo& info = *info_or_null;
    if (h5::has_link(file.get(), "instance")) {
      const std::string source = "checkpoint " + path + ": instance";
      try {
        h5::Handle group = h5::open_group(file.get(), "instance");
        const CecInstanceData data =
            read_instance_group(group.get(), info, h.config.dim, source);
        h.instance = std::make_shared<const CecInstance>(CecInstance::from_data(
            data, info, h.config.dim, h.config.effective_problem_seed(), source));
        // Every part is restored, none generated: a checkpoint is independent of the generator.
        const bool grouped = h.instance->groups > 0;
        if (data.o.empty() || (grouped && (data.perm.empty() || data.rotation.empty())))
          damaged(path, "instance lacks o, P or M");
      } catch (const h5::Error& e) {
        damaged(path, std::string("instance: ") + e.what());
      }
    } else if (s.format_version >= 2) {
      damaged(path, "has no group instance (the CEC 2010 instance of " + s.function + ")");
    }
  }
  try {
    h5::Handle population = h5::open_group(file.get(), "population");
    check_slot_arrays(path, population.get(), "genes", s.capacity, s.dim);
    check_slot_arrays(path, population.get(), "bias", s.capacity, s.dim);
    h5::Handle rng = h5::open_group(file.get(), "rng");
    h5::Handle engine = h5::open_dataset(rng.get(), "engine");
    h5::read_string_attribute(engine.get(), "layout");
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
  return {h, loop};
}

}  // namespace

CheckpointHeader read_checkpoint_header(const std::string& path) {
  return validate_header(path, open_checkpoint(path)).header;
}

Problem checkpoint_problem(const CheckpointHeader& header) {
  const Config& c = header.config;
  if (header.instance)
    return Problem::make(c.function, c.dim, c.effective_problem_seed(), header.instance);
  return make_problem(c);
}

void load_checkpoint(const std::string& path, MaSwChains& algorithm) {
  h5::Handle file = open_checkpoint(path);
  const auto [header, loop] = validate_header(path, file);
  const Config& config = algorithm.config();
  CHAINSAW_EXPECTS(config.dim == header.config.dim &&
                       config.capacity() == header.config.capacity(),
                   "the algorithm was not built from the checkpoint's configuration");
  const Problem& problem = algorithm.problem();
  if (header.instance && !(problem.cec && header.instance->same_as(*problem.cec)))
    damaged(path, "the run's CEC 2010 instance is not the one the checkpoint embeds");
  const int capacity = config.capacity();
  if (loop.counters.evaluations > config.max_evaluations)
    throw UserError(fmt::format("checkpoint {}: {} evaluations are done already, more than the "
                                "budget of {}",
                                path, loop.counters.evaluations, config.max_evaluations));

  h5::Handle group;
  h5::Handle rng_group;
  try {
    group = h5::open_group(file.get(), "population");
    rng_group = h5::open_group(file.get(), "rng");
  } catch (const h5::Error& e) {
    damaged(path, e.what());
  }
  const auto n = static_cast<hsize_t>(capacity);
  const hid_t g = group.get();
  Population population(config.population_size, config.batch);
  const auto fitness = read_vector<double>(path, g, "fitness", n);
  const auto order = read_vector<std::int32_t>(path, g, "order", n);
  const auto has_chain = read_vector<std::uint8_t>(path, g, "chain_has_chain", n);
  const auto ls_failed = read_vector<std::uint8_t>(path, g, "chain_ls_failed", n);
  const auto rho = read_vector<double>(path, g, "chain_rho", n);
  const auto successes = read_vector<std::int32_t>(path, g, "chain_successes", n);
  const auto failures = read_vector<std::int32_t>(path, g, "chain_failures", n);

  // Between two units `order` is the sort of every slot by (fitness, slot).
  std::vector<int> expected(static_cast<std::size_t>(capacity));
  std::iota(expected.begin(), expected.end(), 0);
  std::sort(expected.begin(), expected.end(), [&](int a, int b) {
    return fitness[a] < fitness[b] || (fitness[a] == fitness[b] && a < b);
  });
  if (!std::equal(expected.begin(), expected.end(), order.begin()))
    damaged(path, "population/order is not the fitness order of the slots");
  for (int slot = 0; slot < capacity; ++slot) {
    if (std::isnan(fitness[slot])) damaged(path, "population/fitness holds NaN");
    population.fitness(slot) = fitness[slot];
    population.order()[slot] = order[slot];
    ChainRecord& c = population.chain(slot);
    c.has_chain = has_chain[slot] != 0;
    c.ls_failed = ls_failed[slot] != 0;
    c.state = SolisWetsState{rho[slot], successes[slot], failures[slot]};
    if (!(rho[slot] > 0.0) || !std::isfinite(rho[slot]))
      damaged(path, "population/chain_rho holds a step size that is not positive");
  }

  Engine& engine = algorithm.engine();
  // A sharded rank reads only its slice: the file is the one-rank layout, whatever the ranks.
  const EngineShard shard = engine.shard();
  const Dim begin = shard.comm ? shard.slice.first : 0;
  const Dim end = shard.comm ? shard.slice.end() : config.dim;
  std::vector<real_t> block(static_cast<std::size_t>(std::min(config.dim, kBlockGenes)));
  read_slot_arrays(path, g, "genes", engine, SlotArray::kGenes, capacity, begin, end, block);
  read_slot_arrays(path, g, "bias", engine, SlotArray::kBias, capacity, begin, end, block);
  engine.restore_fitness(population.all_fitness().data());
  RngSnapshot rng;
  rng.bytes = read_bytes(path, rng_group.get(), "engine");
  try {
    h5::Handle dataset = h5::open_dataset(rng_group.get(), "engine");
    rng.layout = h5::read_string_attribute(dataset.get(), "layout");
  } catch (const h5::Error& e) {
    damaged(path, std::string("rng/engine ") + e.what());
  }
  try {
    engine.restore_rng(rng);
  } catch (const UserError& e) {
    damaged(path, e.what());
  }
  algorithm.restore(population, loop);
}

}  // namespace chainsaw
