// HDF5 checkpoints of a run of any algorithm: one writer (checkpoint_writer.cpp) and one reader
// (checkpoint_reader.cpp) of one layout (docs/checkpoints.md):
//   /                      attributes: a summary for `chainsaw inspect`, h5dump and h5py
//   /run/state             the Config and the algorithm's counters and loop state (JSON text)
//   /algorithm/<name>      the algorithm's arrays (saved_state.hpp): MA-SW-Chains' population
//                          streamed out of its engine in blocks, the others' AlgorithmState
//   /instance              CEC 2010 only: o, P, M (io/instance_file.hpp's layout), so that a
//                          resume needs no instance file and cannot meet a changed one
// Every dataset is chunked with HDF5's Fletcher-32 checksum. A checkpoint is written to a
// temporary file next to the target and renamed over it, so the last good one survives any
// failure, SIGKILL included.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/config.hpp"
#include "core/distributed/islands.hpp"
#include "core/algorithms/algorithm.hpp"
#include "io/results/output_file.hpp"

namespace chainsaw {

// Version 4 puts every algorithm's arrays under /algorithm; files of versions 1 to 3 are refused
// with one line naming their version and the chainsaw that wrote them.
constexpr std::int64_t kCheckpointFormatVersion = 4;

// What `chainsaw inspect` prints: the root attributes, no dataset is read.
struct CheckpointSummary {
  std::int64_t format_version = 0;
  std::string chainsaw_version;
  std::string written_at;  // UTC, ISO 8601
  std::string reason;      // periodic | signal | final
  std::string backend;     // cpu | cuda
  std::string genes_type;  // float32 | float64
  std::string function;
  std::int64_t dim = 0;
  std::int64_t capacity = 0;
  std::int64_t evaluations = 0;
  std::int64_t budget = 0;
  double best_fitness = 0.0;
  std::string algorithm;
  // CEC 2010: where the instance is ("embedded (generated from problem seed 3)"); empty for the
  // paper's functions.
  std::string instance;
};

// Writes the state of `algorithm` (between two units) crash-safely to `path`. Throws UserError
// naming `flag` and `path` when it cannot; `path` then still holds the previous checkpoint.
// `islands`: an island's migration record (MA-SW-Chains under --distribute islands), kept in
// run/state. A sharded engine's (--distribute shard): collective, one ordinary file written by
// rank 0 from the slices all ranks send it; a failure on rank 0 throws AgreedFailure on every
// rank.
void write_checkpoint(const std::string& flag, const std::string& path, Algorithm& algorithm,
                      Backend backend, const std::string& reason,
                      const IslandState* islands = nullptr);
// The same, up to the rename: the ranks of an islands run stage their files, agree that all
// succeeded, and only then commit them. Not for a sharded engine (write_checkpoint is).
StagedFile stage_checkpoint(const std::string& flag, const std::string& path,
                            Algorithm& algorithm, Backend backend, const std::string& reason,
                            const IslandState* islands = nullptr);

// Island r's file of an islands run checkpointing to `path`: run.h5 -> run.island<r>.h5 (each
// a complete checkpoint of its island; there is no file at `path` itself).
std::string island_checkpoint_path(const std::string& path, int rank);

// Reads the summary and verifies its checksum; throws UserError for a file that is not a
// chainsaw checkpoint of this format version or whose summary was changed.
CheckpointSummary inspect_checkpoint(const std::string& path);

// Everything a resume needs before it builds the engine: the run's Config (its budget as
// recorded), the backend it ran on and the CEC 2010 instance it embeds. Validates the whole
// structure (shapes, types, versions, the state's consistency, the instance as an instance
// file's) without reading the population.
struct CheckpointHeader {
  CheckpointSummary summary;
  Config config;
  Backend backend = Backend::kCpu;
  // Null for the paper's functions.
  std::shared_ptr<const CecInstance> instance;
  // An island of a --distribute islands run: its rank, the job's size, its migration record.
  std::optional<IslandState> islands;
};
CheckpointHeader read_checkpoint_header(const std::string& path);

// The problem a resume runs on, with the embedded instance.
Problem checkpoint_problem(const CheckpointHeader& header);

// Restores the algorithm's state (MA-SW-Chains: population, loop state, engine arrays and RNG)
// into `algorithm`, which must have been built from the header's Config (a larger budget
// allowed) and problem. Every dataset's checksum is verified on the way. Throws UserError for a
// damaged or mismatching file; the file is only read. A sharded engine reads only its slice, so
// a checkpoint resumes on any number of ranks; not collective, and a damaged block may lie in
// one rank's slice only: a distributed caller runs it inside agree()
// (core/distributed/agreement.hpp).
void load_checkpoint(const std::string& path, Algorithm& algorithm);

}  // namespace chainsaw
