#include "io/study/study_file.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "core/engines/engine_factory.hpp"
#include "core/error.hpp"
#include "io/cli/cli.hpp"
#include "io/results/result_json.hpp"

namespace chainsaw {

namespace {

namespace fs = std::filesystem;

// The flags a study sets itself (its axes, where results and checkpoints go): not in a table.
const std::set<std::string> kStudyOwnedFlags = {
    "function", "dim",     "evals",      "seed",       "problem-seed",     "backend",
    "threads",  "output",  "quiet",      "profile",    "dry-run",          "checkpoint",
    "checkpoint-every",    "runs",       "distribute", "migration-every"};

const std::set<std::string> kTopLevelKeys = {
    "folder",   "algorithms", "functions", "dims",    "seeds",   "evals",            "instances",
    "backend",  "threads",    "parallel",  "baseline", "measure", "checkpoint-every", "options",
    "algorithm", "function", "published"};

const std::set<std::string> kMeasures = {"best_error", "best_fitness", "distance_to_optimum"};

// TOML keys as chainsaw run's flags: `de_np` and `de-np` are the same key.
std::string dashed(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

class StudyReader {
 public:
  explicit StudyReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(file_ + ": " + what);
  }

  toml::table parse() const {
    try {
      return toml::parse_file(file_);
    } catch (const toml::parse_error& e) {
      const auto& at = e.source().begin;
      if (at.line == 0) fail(std::string(e.description()));
      throw UserError(fmt::format("{}:{}:{}: {}", file_, at.line, at.column, e.description()));
    }
  }

  // A string, or the default when absent.
  std::string text(const toml::table& t, const std::string& key, const std::string& def) const {
    const toml::node* node = find(t, key);
    if (!node) return def;
    if (!node->is_string()) fail(key + " must be a string");
    return node->value<std::string>().value();
  }

  // An integer or a list of integers, each >= minimum, none twice; `list_only` refuses a
  // single integer (seeds = 5 reads like five seeds).
  std::vector<std::int64_t> integers(const toml::table& t, const std::string& key,
                                     std::int64_t minimum, bool list_only,
                                     std::vector<std::int64_t> def = {}) const {
    const toml::node* node = find(t, key);
    if (!node) {
      if (def.empty()) fail(key + " is missing");
      return def;
    }
    std::vector<std::int64_t> out;
    auto take = [&](const toml::node& n) {
      if (!n.is_integer())
        fail(fmt::format("{} = {}: must be {}", key, describe(n),
                         list_only ? "a list of integers" : "an integer or a list of integers"));
      const std::int64_t v = n.value<std::int64_t>().value();
      if (v < minimum) fail(fmt::format("{} = {}: must be >= {}", key, v, minimum));
      if (std::find(out.begin(), out.end(), v) != out.end())
        fail(fmt::format("{} lists {} twice", key, v));
      out.push_back(v);
    };
    if (const toml::array* a = node->as_array()) {
      for (const toml::node& n : *a) take(n);
      if (out.empty()) fail(key + " = []: must list at least one value");
    } else if (list_only) {
      fail(fmt::format("{} = {}: must be a list, e.g. [1, 2, 3]", key, describe(*node)));
    } else {
      take(*node);
    }
    return out;
  }

  // A non-empty list of names, none twice.
  std::vector<std::string> names(const toml::table& t, const std::string& key) const {
    const toml::node* node = find(t, key);
    if (!node) fail(key + " is missing");
    const toml::array* a = node->as_array();
    if (!a || a->empty()) fail(key + " must be a non-empty list of names");
    std::vector<std::string> out;
    for (const toml::node& n : *a) {
      if (!n.is_string()) fail(fmt::format("{} = {}: must list names (strings)", key, describe(n)));
      const std::string name = n.value<std::string>().value();
      if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                                                 "TUVWXYZ0123456789._+-") != std::string::npos)
        fail(fmt::format("{}: '{}' is not a name (letters, digits, . _ + -)", key, name));
      if (std::find(out.begin(), out.end(), name) != out.end())
        fail(fmt::format("{} lists '{}' twice", key, name));
      out.push_back(name);
    }
    return out;
  }

  // A table's keys as `chainsaw run` arguments; `own` are keys the table reads itself.
  std::vector<std::string> flags(const toml::table& t, const std::string& where,
                                 const std::set<std::string>& own) const {
    std::vector<std::string> args;
    for (auto&& [k, node] : t) {
      const std::string key = dashed(std::string(k.str()));
      if (own.count(key)) continue;
      const OptionSpec* spec = option(key);
      if (!spec || kStudyOwnedFlags.count(key))
        fail(fmt::format("{}: unknown key '{}' (the keys are chainsaw run's flags without "
                         "dashes, less those the study sets: function, dim, evals, seed, ...)",
                         where, std::string(k.str())));
      append_flag(args, *spec, node, where);
    }
    return args;
  }

  // The number a TOML integer or float holds.
  double number(const toml::node& n, const std::string& where) const {
    if (n.is_integer()) return static_cast<double>(n.value<std::int64_t>().value());
    if (n.is_floating_point()) return n.value<double>().value();
    fail(fmt::format("{} = {}: must be a number", where, describe(n)));
  }

  void check_keys(const toml::table& t, const std::set<std::string>& allowed,
                  const std::string& where) const {
    for (auto&& [k, node] : t) {
      (void)node;
      if (!allowed.count(dashed(std::string(k.str()))))
        fail(fmt::format("{}unknown key '{}'", where, std::string(k.str())));
    }
  }

  const toml::node* find(const toml::table& t, const std::string& key) const {
    if (const toml::node* n = t.get(key)) return n;
    std::string underscored = key;
    std::replace(underscored.begin(), underscored.end(), '-', '_');
    return t.get(underscored);
  }

 private:
  static std::string describe(const toml::node& n) {
    if (n.is_string()) return "'" + n.value<std::string>().value() + "'";
    if (n.is_integer()) return std::to_string(n.value<std::int64_t>().value());
    if (n.is_floating_point()) return fmt::format("{}", n.value<double>().value());
    if (n.is_boolean()) return n.value<bool>().value() ? "true" : "false";
    if (n.is_array()) return "a list";
    if (n.is_table()) return "a table";
    return "a date";
  }

  const OptionSpec* option(const std::string& name) const {
    if (specs_.empty()) specs_ = run_option_specs();
    for (const OptionSpec& s : specs_)
      if (s.name == name) return &s;
    return nullptr;
  }

  void append_flag(std::vector<std::string>& args, const OptionSpec& spec, const toml::node& node,
                   const std::string& where) const {
    const std::string flag = "--" + spec.name;
    if (spec.flag) {
      if (!node.is_boolean()) fail(fmt::format("{}: {} = {}: must be true or false", where, spec.name, describe(node)));
      if (node.value<bool>().value()) args.push_back(flag);
      return;
    }
    std::string value;
    if (node.is_string()) {
      value = node.value<std::string>().value();
      // A path is read from where the study file is, not from where chainsaw runs.
      if (spec.name == "instance" && fs::path(value).is_relative())
        value = (fs::path(file_).parent_path() / value).lexically_normal().string();
    } else if (node.is_integer()) {
      value = std::to_string(node.value<std::int64_t>().value());
    } else if (node.is_floating_point()) {
      value = fmt::format("{}", node.value<double>().value());  // shortest exact text
    } else if (const toml::array* a = node.as_array()) {  // --milestones
      for (const toml::node& n : *a) {
        if (!n.is_integer()) fail(fmt::format("{}: {} must list integers", where, spec.name));
        value += (value.empty() ? "" : ",") + std::to_string(n.value<std::int64_t>().value());
      }
    } else {
      fail(fmt::format("{}: {} = {}: must be a number or a string", where, spec.name,
                       describe(node)));
    }
    args.push_back(flag);
    args.push_back(value);
  }

  std::string file_;
  mutable std::vector<OptionSpec> specs_;
};

// A [algorithm.NAME] or [function.NAME] table, or none for a plain name.
const toml::table* entry(const StudyReader& r, const toml::table& root, const char* kind,
                         const std::string& name) {
  const toml::node* group = root.get(kind);
  if (!group) return nullptr;
  const toml::table* tables = group->as_table();
  if (!tables) r.fail(fmt::format("{} must be a table of [{}.NAME] tables", kind, kind));
  const toml::node* node = tables->get(name);
  if (!node) return nullptr;
  if (!node->is_table()) r.fail(fmt::format("{}.{} must be a table", kind, name));
  return node->as_table();
}

// Every [algorithm.NAME] and [function.NAME] is named in `algorithms` or `functions`.
void check_tables_used(const StudyReader& r, const toml::table& root, const char* kind,
                       const std::vector<std::string>& listed) {
  const toml::node* group = root.get(kind);
  if (!group || !group->is_table()) return;
  for (auto&& [k, node] : *group->as_table()) {
    (void)node;
    const std::string name(k.str());
    if (std::find(listed.begin(), listed.end(), name) == listed.end())
      r.fail(fmt::format("[{}.{}] is not in {}s", kind, name, kind));
  }
}

std::string file_stem(const Config& c, const std::string& key) {
  return fmt::format("{}_{}_D{}_s{}_{}", algorithm_name(c.algorithm), c.function, c.dim, c.seed,
                     key);
}

struct Axes {
  std::vector<std::int64_t> dims, evals, instances, seeds;
};

// The runs of one algorithm on one function, in D, budget, instance, seed order.
void expand(const StudyReader& r, const toml::table& root, const Study& study,
            const std::string& algorithm, const std::string& function, const Axes& axes,
            std::vector<StudyRun>& runs) {
  const toml::table* a = entry(r, root, "algorithm", algorithm);
  const toml::table* f = entry(r, root, "function", function);
  const std::string a_where = "[algorithm." + algorithm + "]";
  const std::string f_where = "[function." + function + "]";
  std::vector<std::string> options;  // [options]: every run
  if (const toml::node* o = root.get("options")) {
    if (!o->is_table()) r.fail("options must be a table");
    options = r.flags(*o->as_table(), "[options]", {"algorithm"});
  }
  const std::string base_algorithm = a ? r.text(*a, "algorithm", algorithm) : algorithm;
  const std::string base_function = f ? r.text(*f, "function", function) : function;
  const std::vector<std::int64_t> dims = f ? r.integers(*f, "dims", 1, false, axes.dims) : axes.dims;
  const std::vector<std::string> a_flags = a ? r.flags(*a, a_where, {"algorithm"}) : std::vector<std::string>{};
  const std::vector<std::string> f_flags = f ? r.flags(*f, f_where, {"function", "dims"}) : std::vector<std::string>{};
  for (std::int64_t dim : dims)
    for (std::int64_t evals : axes.evals)
      for (std::int64_t instance : axes.instances)
        for (std::int64_t seed : axes.seeds) {
          std::vector<std::string> args = {
              "--algorithm", base_algorithm, "--function", base_function,
              "--dim", std::to_string(dim), "--evals", std::to_string(evals),
              "--seed", std::to_string(seed), "--problem-seed", std::to_string(instance),
              "--backend", backend_name(study.backend), "--threads", std::to_string(study.threads)};
          // The last occurrence wins: the algorithm's table over the function's over [options].
          for (const std::vector<std::string>* extra :
               std::initializer_list<const std::vector<std::string>*>{&options, &f_flags, &a_flags})
            args.insert(args.end(), extra->begin(), extra->end());
          StudyRun run;
          run.algorithm = algorithm;
          run.function = function;
          try {
            run.config = parse_run_request(args).config;
            run.config.validate();
          } catch (const UserError& e) {
            r.fail(fmt::format("algorithm '{}' on function '{}': {}", algorithm, function, e.what()));
          }
          run.key_json = run_key_json(run.config, study.backend);
          run.key = run_key(run.key_json);
          run.name = file_stem(run.config, run.key);
          runs.push_back(std::move(run));
        }
}

// Two labels that name the same configuration would share their results.
void check_distinct(const StudyReader& r, const std::vector<StudyRun>& runs) {
  std::map<std::string, const StudyRun*> seen;
  for (const StudyRun& run : runs) {
    const auto [it, fresh] = seen.emplace(run.key, &run);
    if (!fresh)
      r.fail(fmt::format("algorithm '{}' on '{}' and algorithm '{}' on '{}' are the same "
                         "configuration (seed {}, D {}): give them different parameters",
                         it->second->algorithm, it->second->function, run.algorithm,
                         run.function, run.config.seed, run.config.dim));
  }
}

const std::set<std::string> kPublishedKeys = {"citation", "measure", "evaluations", "dims", "mean",
                                              "sd"};

// A [published.NAME] table's `mean` or `sd`: function -> a number, or with `dims` a list of one
// number per D.
nlohmann::ordered_json published_values(const StudyReader& r, const toml::table& t,
                                        const std::string& key, const std::string& where,
                                        const Study& study, std::size_t dims) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  const toml::node* node = t.get(key);
  if (!node) return out;
  const toml::table* values = node->as_table();
  if (!values) r.fail(fmt::format("{}: {} must be a table of function = value", where, key));
  for (auto&& [k, v] : *values) {
    const std::string function(k.str()), at = fmt::format("{}: {}.{}", where, key, function);
    if (std::find(study.functions.begin(), study.functions.end(), function) ==
        study.functions.end())
      r.fail(fmt::format("{}: '{}' is not in functions", where, function));
    if (dims == 0) {
      out[function] = r.number(v, at);
      continue;
    }
    const toml::array* list = v.as_array();
    if (!list || list->size() != dims)
      r.fail(fmt::format("{}: must be a list of {} numbers, one per D of dims", at, dims));
    for (const toml::node& n : *list) out[function].push_back(r.number(n, at));
  }
  return out;
}

// A published value at `at` evaluations needs the runs to record their best there: it is their
// budget or one of their milestones (a distance is known at the end of a run only).
void check_published_point(const StudyReader& r, const Study& study, const std::string& where,
                           const nlohmann::ordered_json& p) {
  if (p["evaluations"].is_null()) return;
  const std::int64_t at = p["evaluations"].get<std::int64_t>();
  for (const StudyRun& run : study.runs) {
    if (!p["mean"].contains(run.function)) continue;
    const std::vector<std::int64_t>& marks = run.config.milestones;
    if (at == run.config.max_evaluations) continue;
    if (p["measure"] == "distance_to_optimum")
      r.fail(fmt::format("{}: evaluations = {}: a distance to the optimum is known at a run's "
                         "end only (its budget, {})", where, at, run.config.max_evaluations));
    if (std::find(marks.begin(), marks.end(), at) == marks.end())
      r.fail(fmt::format("{}: evaluations = {} is neither the budget nor a milestone of {}'s "
                         "runs (milestones = [..., {}, ...])", where, at, run.function, at));
  }
}

// [published.NAME]: a paper's means (and sds) per function (and D), the report's comparison.
std::string read_published(const StudyReader& r, const toml::table& root, const Study& study) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  const toml::node* group = root.get("published");
  if (!group) return out.dump();
  const toml::table* tables = group->as_table();
  if (!tables) r.fail("published must be a table of [published.NAME] tables");
  for (auto&& [k, node] : *tables) {
    const std::string where = "[published." + std::string(k.str()) + "]";
    const toml::table* t = node.as_table();
    if (!t) r.fail(where + " must be a table");
    r.check_keys(*t, kPublishedKeys, where + ": ");
    nlohmann::ordered_json p;
    p["name"] = std::string(k.str());
    p["citation"] = r.text(*t, "citation", "");
    if (p["citation"] == "") r.fail(where + ": citation is missing (the paper and its table)");
    p["measure"] = r.text(*t, "measure", study.measure);
    if (!kMeasures.count(p["measure"].get<std::string>()))
      r.fail(where + ": measure must be best_error, best_fitness or distance_to_optimum");
    p["evaluations"] = nullptr;  // null: at the runs' budget
    if (t->get("evaluations")) {
      const std::vector<std::int64_t> at = r.integers(*t, "evaluations", 1, false);
      if (at.size() != 1) r.fail(where + ": evaluations must be one integer");
      p["evaluations"] = at.front();
    }
    std::vector<std::int64_t> dims;
    if (t->get("dims")) dims = r.integers(*t, "dims", 1, false);
    p["dims"] = dims.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(dims);
    p["mean"] = published_values(r, *t, "mean", where, study, dims.size());
    if (p["mean"].empty()) r.fail(where + ": mean is missing (a table of function = mean)");
    p["sd"] = published_values(r, *t, "sd", where, study, dims.size());
    for (const auto& item : p["sd"].items())
      if (!p["mean"].contains(item.key())) r.fail(where + ": sd." + item.key() + " has no mean");
    check_published_point(r, study, where, p);
    out.push_back(p);
  }
  return out.dump();
}

void read_settings(const StudyReader& r, const toml::table& root, Study& study) {
  study.algorithms = r.names(root, "algorithms");
  study.functions = r.names(root, "functions");
  const std::string backend = r.text(root, "backend", "cpu");
  try {
    // auto is resolved here, as it names the run; cuda is checked when the runs start, so that
    // --list works on a machine without a GPU.
    study.backend = parse_backend("backend", backend);
    if (study.backend == Backend::kAuto) study.backend = resolve_backend(Backend::kAuto);
  } catch (const UserError& e) {
    r.fail(e.what());
  }
  const std::string parallel = r.text(root, "parallel", "within");
  if (parallel != "within" && parallel != "across")
    r.fail("parallel = '" + parallel + "': must be within (OpenMP inside each run) or across (a run per thread)");
  study.parallel = parallel == "across" ? StudyParallel::kAcross : StudyParallel::kWithin;
  if (study.parallel == StudyParallel::kAcross && study.backend == Backend::kCuda)
    r.fail("parallel = 'across': on the cuda backend the runs go one after another (a shard per "
           "GPU: --shard i/n)");
  study.threads = static_cast<int>(r.integers(root, "threads", 0, false, {0}).front());
  study.baseline = r.text(root, "baseline", study.algorithms.front());
  if (std::find(study.algorithms.begin(), study.algorithms.end(), study.baseline) ==
      study.algorithms.end())
    r.fail("baseline = '" + study.baseline + "': not in algorithms");
  study.measure = r.text(root, "measure", "best_error");
  if (!kMeasures.count(study.measure))
    r.fail("measure = '" + study.measure + "': must be best_error, best_fitness or distance_to_optimum");
  try {
    study.checkpoint_every =
        parse_checkpoint_interval("checkpoint-every", r.text(root, "checkpoint-every", "10m"));
  } catch (const UserError& e) {
    r.fail(e.what());
  }
}

}  // namespace

std::string run_key_json(const Config& config, Backend backend) {
  nlohmann::ordered_json j = config_to_json(config);
  j.erase("threads");
  j.erase("runs");
  j["backend"] = backend_name(backend);
  j["genes"] = sizeof(real_t) == 8 ? "float64" : "float32";
  return j.dump();
}

std::string run_key(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

Study read_study(const std::string& path, const std::string& folder) {
  const StudyReader r(path);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw UserError(path + ": no such study file");
  const toml::table root = r.parse();
  r.check_keys(root, kTopLevelKeys, "");
  Study study;
  study.file = path;
  read_settings(r, root, study);
  const fs::path stem = fs::path(path).replace_extension();
  const std::string in_file = r.text(root, "folder", stem.filename().string());
  study.folder = !folder.empty() ? folder
                 : fs::path(in_file).is_absolute()
                     ? in_file
                     : (fs::path(path).parent_path() / in_file).lexically_normal().string();
  Axes axes;
  axes.dims = r.integers(root, "dims", 1, false);
  axes.evals = r.integers(root, "evals", 1, false);
  axes.instances = r.integers(root, "instances", 1, false, {1});
  axes.seeds = r.integers(root, "seeds", 0, true);
  check_tables_used(r, root, "algorithm", study.algorithms);
  check_tables_used(r, root, "function", study.functions);
  for (const std::string& algorithm : study.algorithms)
    for (const std::string& function : study.functions)
      expand(r, root, study, algorithm, function, axes, study.runs);
  check_distinct(r, study.runs);
  study.published_json = read_published(r, root, study);
  return study;
}

}  // namespace chainsaw
