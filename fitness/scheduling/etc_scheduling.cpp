#include "fitness/scheduling/etc_scheduling.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace chainsaw {

namespace {

const char* consistency_letter(EtcConsistency c) {
  switch (c) {
    case EtcConsistency::kConsistent: return "c";
    case EtcConsistency::kInconsistent: return "i";
    default: return "s";
  }
}

std::vector<EtcClass> all_etc_classes() {
  std::vector<EtcClass> classes;
  for (EtcConsistency c : {EtcConsistency::kConsistent, EtcConsistency::kInconsistent,
                           EtcConsistency::kSemiConsistent})
    for (bool task_high : {true, false})
      for (bool machine_high : {true, false}) classes.push_back({task_high, machine_high, c});
  return classes;
}

std::string lower_case(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

std::string EtcClass::braun_name() const {
  return std::string("u_") + consistency_letter(consistency) + "_" + (task_high ? "hi" : "lo") +
         (machine_high ? "hi" : "lo");
}

std::string EtcClass::paper_name() const {
  return std::string("T") + (task_high ? "h" : "l") + "M" + (machine_high ? "h" : "l") + "C" +
         consistency_letter(consistency);
}

EtcClass parse_etc_class(const std::string& flag, const std::string& text) {
  const std::string wanted = lower_case(text);
  for (const EtcClass& c : all_etc_classes())
    if (wanted == c.braun_name() || wanted == lower_case(c.paper_name())) return c;
  throw UserError(flag + " = " + text +
                  ": not an ETC class (Braun's u_c_hihi .. u_s_lolo or the paper's ThMhCc .. "
                  "TlMlCs: task and machine heterogeneity hi/lo, consistency c, i or s)");
}

EtcFlowtime parse_etc_flowtime(const std::string& flag, const std::string& text) {
  for (EtcFlowtime f : {EtcFlowtime::kCompletionTimes, EtcFlowtime::kLoads})
    if (text == etc_flowtime_name(f)) return f;
  throw UserError(flag + " = " + text +
                  ": not a flowtime (completion: the sum of the tasks' completion times; loads: "
                  "the sum of the machines' loads)");
}

const char* etc_flowtime_name(EtcFlowtime flowtime) {
  return flowtime == EtcFlowtime::kLoads ? "loads" : "completion";
}

EtcInstance EtcInstance::generate(const EtcClass& etc_class, std::int64_t tasks, int machines,
                                  double lambda, std::uint64_t seed, EtcFlowtime flowtime) {
  std::vector<double> etc(static_cast<std::size_t>(tasks) * static_cast<std::size_t>(machines));
  const double phi_b = etc_class.task_range(), phi_r = etc_class.machine_range();
  const std::uint64_t key = derive_key(seed, static_cast<std::uint64_t>(RngPurpose::kEtcMatrix));
#pragma omp parallel for schedule(static) if (tasks > 4096)
  for (std::int64_t t = 0; t < tasks; ++t) {
    CounterRng rng(derive_key(key, static_cast<std::uint64_t>(t)));
    double* row = etc.data() + t * machines;
    const double tau = 1.0 + (phi_b - 1.0) * rng.uniform();
    for (int i = 0; i < machines; ++i) row[i] = tau * (1.0 + (phi_r - 1.0) * rng.uniform());
    if (etc_class.consistency == EtcConsistency::kConsistent) {
      std::sort(row, row + machines);
    } else if (etc_class.consistency == EtcConsistency::kSemiConsistent) {
      std::vector<double> even;
      for (int i = 0; i < machines; i += 2) even.push_back(row[i]);
      std::sort(even.begin(), even.end());
      for (int i = 0; i < machines; i += 2) row[i] = even[static_cast<std::size_t>(i / 2)];
    }
  }
  return from_matrix(std::move(etc), tasks, machines, lambda, flowtime);
}

EtcInstance EtcInstance::from_matrix(std::vector<double> etc, std::int64_t tasks, int machines,
                                     double lambda, EtcFlowtime flowtime) {
  CHAINSAW_EXPECTS(etc.size() == static_cast<std::size_t>(tasks) * static_cast<std::size_t>(machines),
                   "an ETC matrix of the wrong size");
  EtcInstance inst;
  inst.tasks = tasks;
  inst.machines = machines;
  inst.lambda = lambda;
  inst.flowtime_kind = flowtime;
  inst.etc = std::move(etc);
  const auto n = static_cast<std::size_t>(tasks);
  inst.order.resize(n * static_cast<std::size_t>(machines));
  inst.sorted_time.resize(inst.order.size());
#pragma omp parallel for schedule(static) if (machines > 1 && tasks > 4096)
  for (int i = 0; i < machines; ++i) {
    std::int32_t* order = inst.order.data() + static_cast<std::size_t>(i) * n;
    std::iota(order, order + n, 0);
    const double* etc_data = inst.etc.data();
    auto time = [&](std::int32_t t) { return etc_data[static_cast<std::size_t>(t) * machines + i]; };
    std::sort(order, order + n, [&](std::int32_t a, std::int32_t b) {
      return time(a) < time(b) || (time(a) == time(b) && a < b);
    });
    for (std::size_t k = 0; k < n; ++k)
      inst.sorted_time[static_cast<std::size_t>(i) * n + k] = time(order[k]);
  }
  return inst;
}

EtcView EtcInstance::view() const {
  return {tasks, machines, lambda, flowtime_kind, order.data(), sorted_time.data()};
}

void EtcInstance::schedule_times(const real_t* genes, double& makespan, double& flowtime) const {
  const auto n = static_cast<std::size_t>(tasks);
  std::vector<int> machine(n);
  for (std::size_t t = 0; t < n; ++t) machine[t] = etc_machine_of(genes[t], machines);
  makespan = 0.0;
  flowtime = 0.0;
  for (int i = 0; i < machines; ++i) {
    const std::int32_t* o = order.data() + static_cast<std::size_t>(i) * n;
    const double* time = sorted_time.data() + static_cast<std::size_t>(i) * n;
    double completion = 0.0, sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      if (machine[static_cast<std::size_t>(o[k])] != i) continue;
      completion += time[k];
      sum += completion;
    }
    makespan = std::max(makespan, completion);
    flowtime += etc_machine_flowtime(flowtime_kind, sum, completion);
  }
}

double EtcInstance::evaluate(const real_t* genes) const {
  double makespan = 0.0, flowtime = 0.0;
  schedule_times(genes, makespan, flowtime);
  return etc_fitness(makespan, flowtime, machines, lambda);
}

#if !defined(CHAINSAW_CUDA)
DeviceBatchFn etc_device_batch(std::shared_ptr<const EtcInstance>) { return {}; }
#endif

}  // namespace chainsaw
