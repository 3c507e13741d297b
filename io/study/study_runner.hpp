// `chainsaw study FILE` (docs/study.md): the study's runs that have no result yet, each through
// the run driver (io/run/run_driver.hpp) with a checkpoint that an interrupted run resumes from,
// each result written whole into FOLDER/runs/; then the table of all runs (FOLDER/runs.csv) and
// the report (python/chainsaw/study.py).
#pragma once

#include <string>

#include "io/study/study_file.hpp"

namespace chainsaw {

struct StudyOptions {
  int shard = 0;   // this process runs the runs i with i % shards == shard
  int shards = 1;  // > 1: a job array's part; it writes no table and no report
  bool report = true;
  std::string python;  // the interpreter of the report; empty: /usr/bin/python3, else python3
  bool quiet = false;  // no line per run
  bool list = false;   // print the runs (this shard's) and whether each is done; run nothing
};

// Parses --shard's "i/n" (1 <= i <= n) into options.shard (0-based) and options.shards.
void parse_shard(const std::string& text, StudyOptions& options);

// Runs what is left of `study`; returns the exit code (0; 128 + the signal that stopped it,
// the runs in progress checkpointed; the report's code when it failed).
int run_study(const Study& study, const StudyOptions& options);

// FOLDER/runs.csv from the results in FOLDER/runs: one row per run of the study that has one.
// Returns the number of rows.
int write_study_table(const Study& study);

}  // namespace chainsaw
