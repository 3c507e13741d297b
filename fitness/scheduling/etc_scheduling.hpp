// Scheduling independent tasks on heterogeneous machines (Kromer et al., seed gpu-de-kromer §4.1):
// an ETC matrix (expected time to compute, tasks x machines) from Braun et al.'s range-based
// generator (J. Parallel Distrib. Comput. 61, 2001) or a file, a real gene per task truncated to
// its machine, and
//   fit(S) = lambda makespan(S) + (1 - lambda) flowtime(S) / m.
// Choices the paper leaves open (docs/functions.md, "Task scheduling"):
//  - genes live in [0, m); gene g maps to machine min(floor(g), m - 1), so the domain's top edge
//    (which clipping can reach) is the last machine;
//  - no previous workload (W_i = 0);
//  - each machine runs its tasks shortest first (the order that minimises its flowtime, as in
//    the paper's [4], Carretero, Xhafa & Abraham 2007), ties by task index;
//  - lambda = 0.75, [4]'s weight (the paper does not print its own);
//  - flowtime is the sum of the tasks' completion times, as in [4] (EtcFlowtime::kCompletionTimes),
//    or, on request, the sum of the machines' loads (kLoads): the paper's equations (3) and (4)
//    read literally, which is what its Table 1's values measure (docs/functions.md).
// Evaluation formulation, shared by both backends: each machine's tasks are sorted by their ETC
// on it once, at start-up (order, sorted_time). A machine's completion times are then the prefix
// sums of sorted_time over the tasks assigned to it, taken in that fixed order; its load is the
// last one and its flowtime their sum. Every machine scans all n tasks: O(n m) per evaluation,
// no sort per individual, and on the GPU a block-wide scan per machine.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "fitness/external_objective.hpp"

namespace chainsaw {

inline constexpr double kEtcDefaultLambda = 0.75;
inline constexpr int kEtcDefaultMachines = 16;
inline constexpr std::int64_t kEtcDefaultTasks = 512;  // Braun's and the paper's instances

enum class EtcConsistency { kConsistent, kInconsistent, kSemiConsistent };

// One of Braun's 12 classes: heterogeneity high or low for tasks and for machines, and a
// consistency. Braun's ranges: task phi_b = 3000 (high) / 100 (low), machine phi_r = 1000 / 10.
struct EtcClass {
  bool task_high = true;
  bool machine_high = true;
  EtcConsistency consistency = EtcConsistency::kConsistent;

  double task_range() const { return task_high ? 3000.0 : 100.0; }
  double machine_range() const { return machine_high ? 1000.0 : 10.0; }
  // Braun's file name, u_c_hihi ... u_s_lolo (u: uniform distribution).
  std::string braun_name() const;
  // Kromer's, ThMhCc ... TlMlCs.
  std::string paper_name() const;
};

// Accepts both spellings, case-insensitive for the paper's; throws UserError naming `flag` and
// the accepted forms.
EtcClass parse_etc_class(const std::string& flag, const std::string& text);

// Machine of a gene: the truncation of Kromer's encoding, clamped to [0, m - 1].
CHAINSAW_HD int etc_machine_of(double gene, int machines) {
  const double g = floor(gene);
  return g < 0.0 ? 0 : g >= static_cast<double>(machines) ? machines - 1 : static_cast<int>(g);
}
CHAINSAW_HD double etc_fitness(double makespan, double flowtime, int machines, double lambda) {
  return lambda * makespan + (1.0 - lambda) * flowtime / static_cast<double>(machines);
}

enum class EtcFlowtime { kCompletionTimes, kLoads };
// "completion" or "loads"; throws UserError naming `flag` and the accepted values.
EtcFlowtime parse_etc_flowtime(const std::string& flag, const std::string& text);
const char* etc_flowtime_name(EtcFlowtime flowtime);
// One machine's share of the flowtime: the sum of its tasks' completion times, or its load.
CHAINSAW_HD double etc_machine_flowtime(EtcFlowtime flowtime, double completion_sum, double load) {
  return flowtime == EtcFlowtime::kLoads ? load : completion_sum;
}

struct EtcView {
  std::int64_t tasks = 0;
  int machines = 0;
  double lambda = kEtcDefaultLambda;
  EtcFlowtime flowtime_kind = EtcFlowtime::kCompletionTimes;
  const std::int32_t* order = nullptr;  // machine-major: order[i * tasks + k], k-th shortest on i
  const double* sorted_time = nullptr;  // ETC of that task on machine i
};

struct EtcInstance {
  std::int64_t tasks = 0;
  int machines = 0;
  double lambda = kEtcDefaultLambda;
  EtcFlowtime flowtime_kind = EtcFlowtime::kCompletionTimes;
  std::vector<double> etc;  // task-major: etc[t * machines + i]
  std::vector<std::int32_t> order;
  std::vector<double> sorted_time;

  // Braun's range-based generator, one counter-based stream per task: a task's base time
  // tau ~ U[1, phi_b), its entries tau * U[1, phi_r); consistent rows are sorted ascending
  // (machine 0 fastest for every task), semi-consistent ones in their even columns only
  // (Braun: "the even columns are consistent"). Deterministic for any thread count.
  static EtcInstance generate(const EtcClass& etc_class, std::int64_t tasks, int machines,
                              double lambda, std::uint64_t seed,
                              EtcFlowtime flowtime = EtcFlowtime::kCompletionTimes);
  // From a given matrix (task-major, tasks * machines positive finite values; the caller has
  // validated them).
  static EtcInstance from_matrix(std::vector<double> etc, std::int64_t tasks, int machines,
                                 double lambda,
                                 EtcFlowtime flowtime = EtcFlowtime::kCompletionTimes);
  EtcView view() const;  // host pointers
  // Machine loads (makespan = their max) and the flowtime (of `flowtime`'s kind) of a schedule,
  // in double.
  void schedule_times(const real_t* genes, double& makespan, double& flowtime) const;
  double evaluate(const real_t* genes) const;
};

// The GPU evaluation (a block per individual, a block scan per machine); empty in a build
// without CUDA. The instance is copied to each device once, at its first call there.
DeviceBatchFn etc_device_batch(std::shared_ptr<const EtcInstance> instance);

}  // namespace chainsaw
