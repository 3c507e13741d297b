// counters_to_json / counters_from_json: RunCounters in the result file and in a checkpoint's
// run/state, whose keys are published (docs/results-format.md, docs/checkpoints.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "io/results/result_json.hpp"

namespace chainsaw {
namespace {

RunCounters some_counters() {
  RunCounters n;
  n.evaluations = 3000;
  n.ga_evaluations = 1700;
  n.ls_evaluations = 1300;
  n.ls_applications = 3;
  n.ls_random_choices = 1;
  n.restarts = 2;
  return n;
}

TEST(CountersJson, TheResultFileNamesTheTotalTotal) {
  const nlohmann::json expected = nlohmann::json::parse(
      R"({"total": 3000, "ga": 1700, "ls": 1300, "ls_applications": 3, "ls_random_choices": 1,
          "restarts": 2})");
  EXPECT_EQ(nlohmann::json(counters_to_json(some_counters(), CountersSchema::kResultFile)),
            expected);
}

// The key of format 4 checkpoints, which must keep loading.
TEST(CountersJson, TheCheckpointNamesTheTotalEvaluations) {
  const nlohmann::json expected = nlohmann::json::parse(
      R"({"evaluations": 3000, "ga": 1700, "ls": 1300, "ls_applications": 3,
          "ls_random_choices": 1, "restarts": 2})");
  EXPECT_EQ(nlohmann::json(counters_to_json(some_counters(), CountersSchema::kCheckpoint)),
            expected);
}

TEST(CountersJson, EachSchemaReadsBackWhatItWrote) {
  for (CountersSchema schema : {CountersSchema::kResultFile, CountersSchema::kCheckpoint}) {
    const RunCounters n =
        counters_from_json(nlohmann::json(counters_to_json(some_counters(), schema)), schema);
    const RunCounters e = some_counters();
    EXPECT_EQ(n.evaluations, e.evaluations);
    EXPECT_EQ(n.ga_evaluations, e.ga_evaluations);
    EXPECT_EQ(n.ls_evaluations, e.ls_evaluations);
    EXPECT_EQ(n.ls_applications, e.ls_applications);
    EXPECT_EQ(n.ls_random_choices, e.ls_random_choices);
    EXPECT_EQ(n.restarts, e.restarts);
  }
}

TEST(CountersJson, AMissingKeyThrows) {
  nlohmann::json j = counters_to_json(some_counters(), CountersSchema::kResultFile);
  EXPECT_THROW(counters_from_json(j, CountersSchema::kCheckpoint), nlohmann::json::exception);
  j.erase("restarts");
  EXPECT_THROW(counters_from_json(j, CountersSchema::kResultFile), nlohmann::json::exception);
}

}  // namespace
}  // namespace chainsaw
