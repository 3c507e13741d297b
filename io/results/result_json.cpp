#include "io/results/result_json.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/types.hpp"
#include "fitness/problem.hpp"
#include "io/parse_value.hpp"
#include "io/version.hpp"

namespace chainsaw {

// The algorithm fields (docs/algorithms.md); all optional on reading, so that files written
// before --algorithm load as MA-SW-Chains runs.
static void add_algorithm_config(nlohmann::ordered_json& j, const Config& c) {
  j["algorithm"] = algorithm_name(c.algorithm);
  j["de_np"] = c.de_np;
  j["de_f"] = c.de_f;
  j["de_cr"] = c.de_cr;
  j["de_crossover"] = de_crossover_name(c.de_crossover);
  j["jde_tau1"] = c.jde_tau1;
  j["jde_tau2"] = c.jde_tau2;
  j["pso_particles"] = c.pso_particles;
  j["pso_w"] = c.pso_w;
  j["pso_c1"] = c.pso_c1;
  j["pso_c2"] = c.pso_c2;
  j["pso_vmax"] = c.pso_vmax;
  j["ss_population"] = c.ss_population;
  j["ss_ref_best"] = c.ss_ref_best;
  j["ss_ref_diverse"] = c.ss_ref_diverse;
  j["ss_lambda"] = c.ss_lambda;
  j["ss_ls_iterations"] = c.ss_ls_iterations;
  j["cma_lambda"] = c.cma_lambda;
  j["cma_sigma0"] = c.cma_sigma0;
  j["cma_ipop"] = c.cma_ipop;
  j["cma_ipop_factor"] = c.cma_ipop_factor;
  j["shade_np"] = c.shade_np;
  j["shade_h"] = c.shade_h;
  j["shade_archive_rate"] = c.shade_archive_rate;
  j["shade_p_max"] = c.shade_p_max;
  j["lshade_np_per_dim"] = c.lshade_np_per_dim;
  j["lshade_np_max"] = c.lshade_np_max;
  j["lshade_np_min"] = c.lshade_np_min;
  j["lshade_h"] = c.lshade_h;
  j["lshade_archive_rate"] = c.lshade_archive_rate;
  j["lshade_p"] = c.lshade_p;
  j["mts_sr"] = c.mts_sr;
  j["mts_evals"] = c.mts_evals;
  j["shade_ils_de_evals"] = c.shade_ils_de_evals;
  j["shade_ils_global_evals"] = c.shade_ils_global_evals;
  j["shade_ils_ls_evals"] = c.shade_ils_ls_evals;
  j["shade_ils_threshold"] = c.shade_ils_threshold;
  j["time_limit_seconds"] = c.time_limit_seconds;
  j["target_error"] = c.target_error >= 0.0 ? nlohmann::ordered_json(c.target_error)
                                            : nlohmann::ordered_json();
  j["runs"] = c.runs;
  j["vary_instance"] = c.vary_instance;
  j["milestones"] = c.milestones;
}

static void read_algorithm_config(const nlohmann::json& j, Config& c) {
  auto optional = [&j](const char* key, auto& target) {
    if (!j.contains(key) || j.at(key).is_null()) return;
    try {
      j.at(key).get_to(target);
    } catch (const nlohmann::json::exception&) {
      throw UserError(std::string("configuration field '") + key + "' has the wrong type");
    }
  };
  std::string algorithm = algorithm_name(c.algorithm), crossover = de_crossover_name(c.de_crossover);
  optional("algorithm", algorithm);
  c.algorithm = parse_algorithm("algorithm", algorithm);
  optional("de_np", c.de_np);
  optional("de_f", c.de_f);
  optional("de_cr", c.de_cr);
  optional("de_crossover", crossover);
  c.de_crossover = parse_de_crossover("de_crossover", crossover);
  optional("jde_tau1", c.jde_tau1);
  optional("jde_tau2", c.jde_tau2);
  optional("pso_particles", c.pso_particles);
  optional("pso_w", c.pso_w);
  optional("pso_c1", c.pso_c1);
  optional("pso_c2", c.pso_c2);
  optional("pso_vmax", c.pso_vmax);
  optional("ss_population", c.ss_population);
  optional("ss_ref_best", c.ss_ref_best);
  optional("ss_ref_diverse", c.ss_ref_diverse);
  optional("ss_lambda", c.ss_lambda);
  optional("ss_ls_iterations", c.ss_ls_iterations);
  optional("cma_lambda", c.cma_lambda);  // since sep-cma-es: earlier files have none
  optional("cma_sigma0", c.cma_sigma0);
  optional("cma_ipop", c.cma_ipop);
  optional("cma_ipop_factor", c.cma_ipop_factor);
  // Since the SHADE family: earlier files have none.
  optional("shade_np", c.shade_np);
  optional("shade_h", c.shade_h);
  optional("shade_archive_rate", c.shade_archive_rate);
  optional("shade_p_max", c.shade_p_max);
  optional("lshade_np_per_dim", c.lshade_np_per_dim);
  optional("lshade_np_max", c.lshade_np_max);
  optional("lshade_np_min", c.lshade_np_min);
  optional("lshade_h", c.lshade_h);
  optional("lshade_archive_rate", c.lshade_archive_rate);
  optional("lshade_p", c.lshade_p);
  optional("mts_sr", c.mts_sr);
  optional("mts_evals", c.mts_evals);
  optional("shade_ils_de_evals", c.shade_ils_de_evals);
  optional("shade_ils_global_evals", c.shade_ils_global_evals);
  optional("shade_ils_ls_evals", c.shade_ils_ls_evals);
  optional("shade_ils_threshold", c.shade_ils_threshold);
  optional("time_limit_seconds", c.time_limit_seconds);
  optional("target_error", c.target_error);
  optional("runs", c.runs);
  optional("vary_instance", c.vary_instance);  // since --vary-instance: earlier files have none
  optional("milestones", c.milestones);  // since --milestones: earlier files have none
  // Written since the `etc` function: earlier files have none.
  optional("etc_class", c.etc_class);
  optional("etc_machines", c.etc_machines);
  optional("etc_lambda", c.etc_lambda);
  optional("etc_flowtime", c.etc_flowtime);  // since --etc-flowtime: earlier files have none
}

nlohmann::ordered_json config_to_json(const Config& c) {
  nlohmann::ordered_json j;
  j["function"] = c.function;
  j["dim"] = c.dim;
  j["evals"] = c.max_evaluations;
  j["seed"] = c.seed;
  // The effective value, so that passing it back reproduces the same optimum.
  j["problem_seed"] = c.effective_problem_seed();
  j["instance"] =
      c.instance.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(c.instance);
  j["etc_class"] = c.etc_class;
  j["etc_machines"] = c.etc_machines;
  j["etc_lambda"] = c.etc_lambda;
  j["etc_flowtime"] = c.etc_flowtime;
  // null: the function's conventional domain.
  j["domain"] = c.search_box().conventional_domain()
                    ? nlohmann::ordered_json()
                    : nlohmann::ordered_json::array({c.domain_lower, c.domain_upper});
  j["shift_range"] = shift_range_name(c.shift_range);
  j["population"] = c.population_size;
  j["batch"] = c.batch;
  j["blx_alpha"] = c.blx_alpha;
  j["nam_candidates"] = c.nam_candidates;
  j["mutation_probability"] = c.mutation_probability;
  j["ls_intensity"] = c.ls_intensity;
  j["ls_ratio"] = c.ls_ratio;
  j["ls_threshold"] = c.ls_improvement_threshold;
  j["rho0"] = c.solis_wets.rho0;
  j["sw_successes"] = c.solis_wets.max_successes;
  j["sw_failures"] = c.solis_wets.max_failures;
  j["sw_expand"] = c.solis_wets.expand;
  j["sw_contract"] = c.solis_wets.contract;
  j["rho_init"] = rho_init_name(c.rho_init);
  j["restart"] = c.restart;
  j["backend"] = backend_name(c.backend);
  j["threads"] = c.threads;
  j["distribute"] = distribute_name(c.distribute);
  j["migration_every"] = c.migration_interval;
  j["gpu_slices"] = c.gpu_slices;
  add_algorithm_config(j, c);
  return j;
}

Config config_from_json(const nlohmann::json& j) {
  Config c;
  auto get = [&j](const char* key, auto& target) {
    if (!j.contains(key)) throw UserError(std::string("configuration field '") + key + "' is missing");
    try {
      j.at(key).get_to(target);
    } catch (const nlohmann::json::exception&) {
      throw UserError(std::string("configuration field '") + key + "' has the wrong type");
    }
  };
  std::string rho_init, backend;
  get("function", c.function);
  get("dim", c.dim);
  get("evals", c.max_evaluations);
  get("seed", c.seed);
  get("problem_seed", c.problem_seed);
  // Optional (null or absent: none), so that files written before CEC 2010 still load.
  if (j.contains("instance") && !j.at("instance").is_null()) get("instance", c.instance);
  // Optional too (absent: the conventional box), so that files written before --domain load.
  if (j.contains("domain") && !j.at("domain").is_null()) {
    std::vector<double> box;
    get("domain", box);
    if (box.size() != 2) throw UserError("configuration field 'domain' is not [lower, upper]");
    c.domain_lower = box[0];
    c.domain_upper = box[1];
  }
  if (j.contains("shift_range")) {
    std::string range;
    get("shift_range", range);
    c.shift_range = parse_shift_range("shift_range", range);
  }
  get("population", c.population_size);
  get("batch", c.batch);
  get("blx_alpha", c.blx_alpha);
  get("nam_candidates", c.nam_candidates);
  get("mutation_probability", c.mutation_probability);
  get("ls_intensity", c.ls_intensity);
  get("ls_ratio", c.ls_ratio);
  get("ls_threshold", c.ls_improvement_threshold);
  get("rho0", c.solis_wets.rho0);
  get("sw_successes", c.solis_wets.max_successes);
  get("sw_failures", c.solis_wets.max_failures);
  get("sw_expand", c.solis_wets.expand);
  get("sw_contract", c.solis_wets.contract);
  get("rho_init", rho_init);
  get("restart", c.restart);
  get("backend", backend);
  get("threads", c.threads);
  // Optional (absent: a one-process run), so that files written before --distribute still load.
  if (j.contains("distribute")) {
    std::string distribute;
    get("distribute", distribute);
    c.distribute = parse_distribute("distribute", distribute);
  }
  if (j.contains("migration_every")) get("migration_every", c.migration_interval);
  if (j.contains("gpu_slices")) get("gpu_slices", c.gpu_slices);  // absent: written before it
  c.rho_init = parse_rho_init("rho_init", rho_init);
  c.backend = parse_backend("backend", backend);
  read_algorithm_config(j, c);
  return c;
}

namespace {

const char* total_key(CountersSchema schema) {
  return schema == CountersSchema::kResultFile ? "total" : "evaluations";
}

}  // namespace

nlohmann::ordered_json counters_to_json(const RunCounters& n, CountersSchema schema) {
  return {{total_key(schema), n.evaluations},
          {"ga", n.ga_evaluations},
          {"ls", n.ls_evaluations},
          {"ls_applications", n.ls_applications},
          {"ls_random_choices", n.ls_random_choices},
          {"restarts", n.restarts}};
}

RunCounters counters_from_json(const nlohmann::json& j, CountersSchema schema) {
  RunCounters n;
  n.evaluations = j.at(total_key(schema)).get<std::int64_t>();
  n.ga_evaluations = j.at("ga").get<std::int64_t>();
  n.ls_evaluations = j.at("ls").get<std::int64_t>();
  n.ls_applications = j.at("ls_applications").get<std::int64_t>();
  n.ls_random_choices = j.at("ls_random_choices").get<std::int64_t>();
  n.restarts = j.at("restarts").get<std::int64_t>();
  return n;
}

namespace {

nlohmann::ordered_json distributed_to_json(const Config& config, const DistributedRun& d) {
  nlohmann::ordered_json j;
  j["mode"] = distribute_name(d.mode);
  j["ranks"] = d.ranks;
  if (d.mode != Distribute::kIslands) return j;
  j["migration_every"] = config.migration_interval;
  // Every island takes part in every exchange: rank 0's count is the run's.
  j["migrations"] = d.islands.empty() ? 0 : d.islands.front().state.migrations;
  j["best_rank"] = d.best_rank;
  nlohmann::ordered_json islands = nlohmann::ordered_json::array();
  for (const IslandSummary& i : d.islands) {
    const double best_immigrant = i.state.best_immigrant;
    islands.push_back({{"rank", i.rank},
                       {"seed", i.seed},
                       {"best_fitness", i.best_fitness},
                       {"distance_to_optimum", i.distance_to_optimum},
                       {"evaluations", counters_to_json(i.counters, CountersSchema::kResultFile)},
                       {"migrations", i.state.migrations},
                       {"immigrants_improved", i.state.immigrants_improved},
                       {"best_immigrant_fitness", std::isfinite(best_immigrant)
                                                      ? nlohmann::ordered_json(best_immigrant)
                                                      : nlohmann::ordered_json()}});
  }
  j["islands"] = islands;
  return j;
}

}  // namespace

nlohmann::ordered_json result_to_json(const Config& config, const RunEnvironment& env,
                                      const RunResult& r, const ConvergenceTrace* trace,
                                      const ProfileReport* profile,
                                      const DistributedRun* distributed) {
  nlohmann::ordered_json j;
  j["chainsaw_version"] = kVersion;
  j["genes"] = sizeof(real_t) == 8 ? "float64" : "float32";
  j["config"] = config_to_json(config);
  j["backend"] = backend_name(env.backend);
  j["device"] = env.device.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(env.device);
  j["threads"] = env.threads;
  auto path_or_null = [](const std::string& path) {
    return path.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(path);
  };
  j["checkpoint"] = path_or_null(env.checkpoint);
  j["resumed_from"] = path_or_null(env.resumed_from);
  if (!env.resumed_from.empty()) j["resumed_at_evaluations"] = env.resumed_at_evaluations;

  j["algorithm"] = algorithm_name(config.algorithm);
  j["stopped_by"] = stop_reason_name(r.stop.reason);
  j["target_reached"] = r.stop.target_reached
                            ? nlohmann::ordered_json({{"evaluations", r.stop.target_evaluations},
                                                      {"seconds", r.stop.target_seconds}})
                            : nlohmann::ordered_json();
  j["best_fitness"] = r.best_fitness;
  // Distance in f to the optimum value: -330 for the paper's functions, 0 for CEC 2010.
  // null for a user objective (chainsaw::optimize), whose optimum is unknown here.
  j["best_error"] = is_user_objective_name(config.function)
                        ? nlohmann::ordered_json()
                        : nlohmann::ordered_json(r.best_fitness -
                                                 function_optimum_value(config.function));
  j["distance_to_optimum"] = r.distance_to_optimum;

  const RunCounters& n = r.counters;
  j["evaluations"] = counters_to_json(n, CountersSchema::kResultFile);
  j["ls_share"] = n.evaluations > 0 ? static_cast<double>(n.ls_evaluations) /
                                          static_cast<double>(n.evaluations)
                                    : 0.0;

  j["wall_seconds"] = r.wall_seconds;
  j["setup_seconds"] = env.setup_seconds;
  auto share = [&](double seconds) { return r.wall_seconds > 0.0 ? seconds / r.wall_seconds : 0.0; };
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  for (std::size_t p = 0; p < static_cast<std::size_t>(Phase::kCount); ++p) {
    const double s = r.phases.seconds(static_cast<Phase>(p));
    phases[phase_name(static_cast<Phase>(p))] = {{"seconds", s}, {"share", share(s)}};
  }
  j["phases"] = phases;
  // Host bookkeeping between the timed phases (progress reports, S_LS scans).
  const double other = r.wall_seconds - r.phases.total();
  j["other_seconds"] = other > 0.0 ? other : 0.0;
  // [evaluations, seconds, best fitness] per point, compact: a curve, not a record per round.
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  if (trace)
    for (const ConvergenceTrace::Point& p : trace->points())
      points.push_back({p.evaluations, p.seconds, p.best_fitness});
  j["trace"] = points;
  // --milestones: the best after exactly that many evaluations, the same compact form.
  nlohmann::ordered_json milestones = nlohmann::ordered_json::array();
  for (const MilestonePoint& m : r.milestones)
    milestones.push_back({m.evaluations, m.seconds, m.best_fitness});
  j["milestones"] = milestones;
  j["profile"] = profile ? profile_to_json(*profile) : nlohmann::ordered_json();
  j["distribute"] =
      distributed ? distributed_to_json(config, *distributed) : nlohmann::ordered_json();
  return j;
}

}  // namespace chainsaw
