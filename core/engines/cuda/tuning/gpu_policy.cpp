#include "core/engines/cuda/tuning/gpu_policy.hpp"

#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

bool gpu_evaluates_apart(const Problem& problem) {
  return problem.evaluates_stored_vectors() &&
         !(problem.is_external() && problem.external->device_passes);
}

GpuWorkload GpuWorkload::of(const Problem& problem, int slices, bool sharded) {
  GpuWorkload w;
  w.dim = problem.dim;
  w.evaluated_apart = gpu_evaluates_apart(problem);
  w.built_in_term = !problem.is_cec2010() && !problem.is_external();
  w.user_objective = problem.is_external();
  w.slices = slices;
  w.sharded = sharded;
  return w;
}

GpuPolicy select_gpu_policy(const GpuWorkload& workload, const DeviceProperties& device) {
  return {select_reduce_policy(workload, device), select_evaluation_policy(workload, device),
          select_nam_batch_policy(workload, device), select_solis_wets_policy(workload, device)};
}

GpuPolicy supported_gpu_policy(GpuPolicy policy, const GpuWorkload& workload) {
  CHAINSAW_EXPECTS(policy.solis_wets.lane_genes == device::kVec ||
                       policy.solis_wets.lane_genes == device::kShortLane,
                   "a Solis-Wets lane takes kVec or kShortLane genes");
  policy.evaluation.reads_stored_shift &= workload.stored_shift_possible();
  policy.nam_batch.graphs &= workload.batch_graphs_possible();
  policy.solis_wets.keeps_dif &= workload.sw_chain_possible();
  // The dif and o are staged beside the genes only.
  policy.solis_wets.stages_dif &= policy.solis_wets.stages_genes;
  policy.solis_wets.stages_shift &= policy.solis_wets.stages_genes;
  return policy;
}

namespace {

// A setting's values, each as what it does to the policy.
using Setting = std::map<std::string, std::function<void(GpuPolicy&)>>;

std::map<std::string, Setting> settings() {
  return {
      {"pdl", {{"on", [](GpuPolicy& p) { p.reduce.programmatic_launch = true; }},
               {"off", [](GpuPolicy& p) { p.reduce.programmatic_launch = false; }}}},
      {"interleave", {{"on", [](GpuPolicy& p) { p.reduce.interleave_rows = true; }},
                      {"off", [](GpuPolicy& p) { p.reduce.interleave_rows = false; }}}},
      {"nam_distances", {{"rows", [](GpuPolicy& p) { p.nam_batch.child_rows = true; }},
                         {"pairs", [](GpuPolicy& p) { p.nam_batch.child_rows = false; }}}},
      {"batch_graphs", {{"on", [](GpuPolicy& p) { p.nam_batch.graphs = true; }},
                        {"off", [](GpuPolicy& p) { p.nam_batch.graphs = false; }}}},
      {"stored_o", {{"on", [](GpuPolicy& p) { p.evaluation.reads_stored_shift = true; }},
                    {"off", [](GpuPolicy& p) { p.evaluation.reads_stored_shift = false; }}}},
      {"sw_moves", {{"both", [](GpuPolicy& p) { p.solis_wets.both_moves = true; }},
                    {"separate", [](GpuPolicy& p) { p.solis_wets.both_moves = false; }}}},
      {"sw_launch", {{"chain", [](GpuPolicy& p) { p.solis_wets.chain = true; }},
                     {"steps", [](GpuPolicy& p) { p.solis_wets.chain = false; }}}},
      {"sw_lane", {{"short", [](GpuPolicy& p) { p.solis_wets.lane_genes = device::kShortLane; }},
                   {"whole", [](GpuPolicy& p) { p.solis_wets.lane_genes = device::kVec; }}}},
      {"sw_dif", {{"kept", [](GpuPolicy& p) { p.solis_wets.keeps_dif = true; }},
                  {"drawn", [](GpuPolicy& p) { p.solis_wets.keeps_dif = false; }}}},
      {"sw_stage",
       {{"all", [](GpuPolicy& p) { p.solis_wets.stages_genes = p.solis_wets.stages_dif = true; }},
        {"genes",
         [](GpuPolicy& p) {
           p.solis_wets.stages_genes = true;
           p.solis_wets.stages_dif = false;
         }},
        {"off",
         [](GpuPolicy& p) { p.solis_wets.stages_genes = p.solis_wets.stages_dif = false; }}}},
      {"sw_shift",
       {{"row",
         [](GpuPolicy& p) { p.solis_wets.stages_shift = p.solis_wets.reads_stored_shift = true; }},
        {"stored",
         [](GpuPolicy& p) {
           p.solis_wets.stages_shift = false;
           p.solis_wets.reads_stored_shift = true;
         }},
        {"hash",
         [](GpuPolicy& p) {
           p.solis_wets.stages_shift = p.solis_wets.reads_stored_shift = false;
         }}}},
      {"sw_blocks", {{"paired", [](GpuPolicy& p) { p.solis_wets.pairs_blocks = true; }},
                     {"single", [](GpuPolicy& p) { p.solis_wets.pairs_blocks = false; }}}},
  };
}

// "a, b, c": the keys of a setting table or of a setting's values.
template <class Map>
std::string keys_of(const Map& map) {
  std::string s;
  for (const auto& entry : map) s += (s.empty() ? "" : ", ") + entry.first;
  return s;
}

}  // namespace

GpuPolicy apply_gpu_policy_override(GpuPolicy policy, const std::string& spec) {
  const std::map<std::string, Setting> all = settings();
  std::istringstream items(spec);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    const auto setting = all.find(key);
    if (eq == std::string::npos || setting == all.end())
      throw UserError("CHAINSAW_GPU_POLICY: unknown setting '" + item + "' (key=value with key " +
                      "one of " + keys_of(all) + ")");
    const std::string value = item.substr(eq + 1);
    const auto apply = setting->second.find(value);
    if (apply == setting->second.end())
      throw UserError("CHAINSAW_GPU_POLICY: " + key + "=" + value + " is not one of " +
                      keys_of(setting->second));
    apply->second(policy);
  }
  return policy;
}

GpuPolicy default_gpu_policy(const GpuWorkload& workload, const DeviceProperties& device) {
  GpuPolicy policy = select_gpu_policy(workload, device);
  if (const char* spec = std::getenv("CHAINSAW_GPU_POLICY"))
    policy = apply_gpu_policy_override(policy, spec);
  return supported_gpu_policy(policy, workload);
}

}  // namespace chainsaw
