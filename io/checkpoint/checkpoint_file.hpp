// What every checkpoint file shares, whatever algorithm wrote it (io/checkpoint/checkpoint.cpp for
// MA-SW-Chains, io/checkpoint/algorithm_checkpoint.cpp for the population algorithms): the format's
// name, the genes' type, and the root attributes that `chainsaw inspect` and h5dump read.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/types.hpp"
#include "io/checkpoint/hdf5_file.hpp"
#include "io/results/result_json.hpp"
#include "io/version.hpp"

namespace chainsaw::checkpoint_file {

inline constexpr const char* kFormat = "chainsaw checkpoint";

inline const char* genes_type_name() { return sizeof(real_t) == 8 ? "float64" : "float32"; }

inline std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

[[noreturn]] inline void damaged(const std::string& path, const std::string& why) {
  throw UserError("checkpoint " + path + ": " + why);
}

// The root's attributes: what wrote the file, when and why, and the run it holds. `capacity`:
// the slots (or members) whose state the file holds.
inline void write_root_attributes(hid_t root, const std::string& reason, Backend backend,
                                  const Config& config, std::int64_t capacity,
                                  std::int64_t evaluations, double best_fitness,
                                  std::int64_t format_version) {
  h5::write_attribute(root, "format", std::string(kFormat));
  h5::write_attribute(root, "format_version", format_version);
  h5::write_attribute(root, "chainsaw_version", std::string(kVersion));
  h5::write_attribute(root, "written_at", utc_now());
  h5::write_attribute(root, "reason", reason);
  h5::write_attribute(root, "backend", std::string(backend_name(backend)));
  h5::write_attribute(root, "genes_type", std::string(genes_type_name()));
  h5::write_attribute(root, "function", config.function);
  h5::write_attribute(root, "dim", static_cast<std::int64_t>(config.dim));
  h5::write_attribute(root, "capacity", capacity);
  h5::write_attribute(root, "evaluations", evaluations);
  h5::write_attribute(root, "budget", config.max_evaluations);
  h5::write_attribute(root, "best_fitness", best_fitness);
  // For h5dump and h5py readers; loading uses the checksummed copy in /run/state.
  h5::write_attribute(root, "config", config_to_json(config).dump());
}

}  // namespace chainsaw::checkpoint_file
