// A study file (TOML; docs/study.md): algorithms x functions x dimensions x budgets x instances x
// seeds, each algorithm and function with its own `chainsaw run` flags. read_study expands it
// into its runs, every one a checked Config with a key naming its whole configuration.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "io/parse_value.hpp"

namespace chainsaw {

// One run of a study: the study's names for its algorithm and function, and the run itself.
struct StudyRun {
  std::string algorithm;  // the study's label: "de", or a table's name such as "de-tuned"
  std::string function;   // likewise: "rastrigin", or a [function.NAME] table's name
  Config config;          // validated, backend resolved
  std::string key;        // 16 hex digits of a hash of key_json
  std::string key_json;   // the configuration the key names (run_key_json)
  std::string name;       // the result file's stem: <algorithm>_<function>_D<dim>_s<seed>_<key>
};

// How the runs share the machine: one after another with OpenMP inside each ("within"), or a run
// per thread, each serial inside ("across", as --runs does).
enum class StudyParallel { kWithin, kAcross };

struct Study {
  std::string file;    // the study file
  std::string folder;  // where its results go
  std::vector<std::string> algorithms;  // the labels, in the file's order
  std::vector<std::string> functions;
  std::string baseline;  // the algorithm the report compares the others with
  std::string measure;   // best_error, best_fitness or distance_to_optimum
  Backend backend = Backend::kCpu;
  StudyParallel parallel = StudyParallel::kWithin;
  int threads = 0;  // 0: OpenMP's default
  CheckpointInterval checkpoint_every;
  // The [published.NAME] tables (a paper's means beside the study's in the report), as the JSON
  // array study.json carries: name, citation, measure, evaluations, dims, mean, sd.
  std::string published_json = "[]";
  std::vector<StudyRun> runs;  // algorithm-major, then function, D, budget, instance, seed
};

// Reads and checks `path`; `folder` (empty: the file's `folder`, else next to the file, named
// after it) is where the results go. Throws UserError in one line ("FILE: ...") for a TOML
// mistake, an unknown key, a bad value or a run that could not start.
Study read_study(const std::string& path, const std::string& folder = {});

// What a run's key covers: its whole Config (the thread count and --runs aside: neither changes
// a result), the resolved backend and the genes' precision, as compact JSON.
std::string run_key_json(const Config& config, Backend backend);
// 16 hex digits: FNV-1a (64 bits) of `text`.
std::string run_key(const std::string& text);

}  // namespace chainsaw
