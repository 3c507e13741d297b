// The root of every checkpoint file (io/checkpoint/checkpoint_writer.cpp writes it,
// checkpoint_reader.cpp reads it): the format's name, the genes' type, and the summary
// attributes that `chainsaw inspect` and h5dump read, with their checksum.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <string>

#include <fmt/format.h>

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
  // The attributes' order is the summary's (summary_text reads them by name).
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
  h5::write_attribute(root, "algorithm", std::string(algorithm_name(config.algorithm)));
}

// The summary attributes (HDF5's Fletcher-32 covers datasets, not attributes), as text: each
// name and its stored value, doubles by their bits.
inline std::string summary_text(hid_t root) {
  static const char* const kStrings[] = {"format", "chainsaw_version", "written_at", "reason",
                                         "backend", "genes_type", "function", "config",
                                         "algorithm"};
  static const char* const kIntegers[] = {"format_version", "dim", "capacity", "evaluations",
                                          "budget"};
  std::string text;
  for (const char* name : kStrings) text += fmt::format("{}={}\n", name, h5::read_string_attribute(root, name));
  for (const char* name : kIntegers) text += fmt::format("{}={}\n", name, h5::read_int_attribute(root, name));
  const double best = h5::read_double_attribute(root, "best_fitness");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &best, sizeof bits);
  return text + fmt::format("best_fitness={:016x}\n", bits);
}

// FNV-1a (64 bits) of summary_text, in hex: a flipped or edited attribute fails it.
inline std::string summary_checksum(hid_t root) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const unsigned char c : summary_text(root)) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

// Written after every other root attribute.
inline void write_summary_checksum(hid_t root) {
  h5::write_attribute(root, "summary_checksum", summary_checksum(root));
}

// Throws UserError unless the file's summary attributes match their checksum.
inline void verify_summary_checksum(const std::string& path, hid_t root) {
  try {
    if (!h5::has_attribute(root, "summary_checksum"))
      damaged(path, "has no summary_checksum attribute");
    if (h5::read_string_attribute(root, "summary_checksum") != summary_checksum(root))
      damaged(path, "its summary attributes (best_fitness, evaluations, ...) fail their checksum: "
                    "the file was changed after it was written");
  } catch (const h5::Error& e) {
    damaged(path, std::string("summary attributes: ") + e.what());
  }
}

}  // namespace chainsaw::checkpoint_file
