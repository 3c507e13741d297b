// The one checkpoint writer: the root summary, /run/state, the algorithm's named arrays
// (saved_state.hpp) and the embedded instance, in a temporary file renamed over the target.
#include <exception>
#include <filesystem>
#include <optional>

#include "core/distributed/agreement.hpp"
#include "core/error.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_file.hpp"
#include "io/checkpoint/saved_state.hpp"
#include "io/instance_file.hpp"
#include "io/results/result_json.hpp"

namespace chainsaw {

namespace {

using checkpoint_state::SavedState;

// /run/state: what every file holds, then the algorithm's own entries.
std::string state_text(const Algorithm& algorithm, Backend backend, const SavedState& saved) {
  nlohmann::ordered_json j;
  j["format"] = checkpoint_file::kFormat;
  j["format_version"] = kCheckpointFormatVersion;
  j["backend"] = backend_name(backend);
  j["genes"] = checkpoint_file::genes_type_name();
  j["algorithm"] = algorithm_name(algorithm.config().algorithm);
  j["config"] = config_to_json(algorithm.config());
  for (const auto& [key, value] : saved.state.items()) j[key] = value;
  return j.dump();
}

void write_file(const std::string& temporary, Algorithm& algorithm, Backend backend,
                const std::string& reason, const SavedState& saved,
                state_arrays::BlockCursor& cursor) {
  const Config& config = algorithm.config();
  h5::Handle file = h5::create_file(temporary);
  const hid_t root = file.get();
  checkpoint_file::write_root_attributes(root, reason, backend, config, saved.capacity,
                                         algorithm.counters().evaluations,
                                         algorithm.best_fitness(), kCheckpointFormatVersion);
  checkpoint_file::write_summary_checksum(root);
  {
    const std::string text = state_text(algorithm, backend, saved);
    std::vector<std::uint8_t> bytes(text.begin(), text.end());
    h5::Handle run = h5::create_group(root, "run");
    state_arrays::BlockCursor whole;
    state_arrays::write_arrays(run.get(), {state_arrays::in_memory("state", bytes)}, whole);
  }
  {
    h5::Handle group = h5::create_group(root, "algorithm");
    state_arrays::write_arrays(group.get(), saved.arrays, cursor);
  }
  if (const Problem& problem = algorithm.problem(); problem.is_cec2010()) {
    h5::Handle group = h5::create_group(root, "instance");
    write_instance_group(group.get(), *problem.cec, function_info(problem.function),
                         instance_origin(config.instance, config.effective_problem_seed()),
                         state_arrays::kBlockElements);
  }
  file.close("cannot finish the file");
}

// The checkpoint in a temporary file; `cursor` says which of the arrays' saves were made.
StagedFile stage_file(const std::string& flag, const std::string& path, Algorithm& algorithm,
                      Backend backend, const std::string& reason, const SavedState& saved,
                      state_arrays::BlockCursor& cursor) {
  return StagedFile(flag, path, [&](const std::string& temporary) {
    try {
      write_file(temporary, algorithm, backend, reason, saved, cursor);
    } catch (const h5::Error& e) {
      throw UserError(flag + " = " + path + ": cannot write the checkpoint: " + e.what());
    }
  });
}

}  // namespace

void write_checkpoint(const std::string& flag, const std::string& path, Algorithm& algorithm,
                      Backend backend, const std::string& reason, const IslandState* islands) {
  Communicator* comm = checkpoint_state::shard_communicator(algorithm);
  if (comm == nullptr)
    return stage_checkpoint(flag, path, algorithm, backend, reason, islands).commit();
  // Sharded: one ordinary file, staged by rank 0 alone from the blocks every rank sends it.
  // Rank 0 makes every save even when its file failed, so that no rank is left waiting; then
  // all agree, and only a whole file replaces the last good one.
  const SavedState saved = checkpoint_state::save_state(algorithm, islands);
  state_arrays::BlockCursor cursor;
  std::optional<StagedFile> staged;
  std::exception_ptr error;
  if (comm->is_root()) {
    try {
      staged.emplace(stage_file(flag, path, algorithm, backend, reason, saved, cursor));
    } catch (...) {
      error = std::current_exception();
    }
  }
  state_arrays::drain_saves(saved.arrays, cursor);
  agree(*comm, [&] {
    if (error) std::rethrow_exception(error);
  });
  agree(*comm, [&] {
    if (staged) staged->commit();
  });
}

StagedFile stage_checkpoint(const std::string& flag, const std::string& path,
                            Algorithm& algorithm, Backend backend, const std::string& reason,
                            const IslandState* islands) {
  CHAINSAW_EXPECTS(checkpoint_state::shard_communicator(algorithm) == nullptr,
                   "a sharded run's checkpoint is written by all ranks: write_checkpoint");
  const SavedState saved = checkpoint_state::save_state(algorithm, islands);
  state_arrays::BlockCursor cursor;
  return stage_file(flag, path, algorithm, backend, reason, saved, cursor);
}

std::string island_checkpoint_path(const std::string& path, int rank) {
  const std::filesystem::path p(path);
  const std::string island = ".island" + std::to_string(rank);
  if (!p.has_extension()) return path + island;
  return (p.parent_path() / (p.stem().string() + island + p.extension().string())).string();
}

}  // namespace chainsaw
