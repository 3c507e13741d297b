#include "io/parse_value.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "core/error.hpp"

namespace chainsaw {

namespace {

[[noreturn]] void reject(const std::string& flag, const std::string& text, const std::string& rule) {
  throw UserError(flag + " = " + (text.empty() ? std::string("''") : text) + ": " + rule);
}

// The whole text as a finite double, or false.
bool to_double(const std::string& text, double& out) {
  // Plain decimal only: strtod would also take hex ("0x10"), leading spaces, "inf" and "nan".
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(out);
}

template <class T>
T parse_integer(const std::string& flag, const std::string& text) {
  const char* first = text.c_str();
  const char* last = first + text.size();
  if (first != last && *first == '+') ++first;  // from_chars takes no '+'
  T value{};
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc() && ptr == last && first != last) return value;

  constexpr T lo = std::numeric_limits<T>::min();
  constexpr T hi = std::numeric_limits<T>::max();
  const std::string range = "must be an integer from " + std::to_string(lo) + " to " +
                            std::to_string(hi);
  if (ec == std::errc::result_out_of_range && ptr == last) reject(flag, text, range);

  // Exact scientific notation (--dim 1e6) is convenient for the sizes this tool runs at.
  double d = 0.0;
  if (!to_double(text, d)) {
    reject(flag, text, std::is_signed<T>::value ? "must be an integer" : "must be a non-negative integer");
  }
  if (std::floor(d) != d) reject(flag, text, "must be a whole number");
  if (!std::is_signed<T>::value && d < 0.0) reject(flag, text, "must be a non-negative integer");
  // hi + 1 = 2^digits is an exact double; hi itself may round up to it.
  const double limit = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (d >= limit || d < static_cast<double>(lo)) reject(flag, text, range);
  return static_cast<T>(d);
}

}  // namespace

std::int64_t parse_int64(const std::string& flag, const std::string& text) {
  return parse_integer<std::int64_t>(flag, text);
}
std::uint64_t parse_uint64(const std::string& flag, const std::string& text) {
  return parse_integer<std::uint64_t>(flag, text);
}
int parse_int(const std::string& flag, const std::string& text) {
  return parse_integer<int>(flag, text);
}

double parse_real(const std::string& flag, const std::string& text) {
  double d = 0.0;
  if (!to_double(text, d)) reject(flag, text, "must be a finite number");
  return d;
}

std::vector<std::int64_t> parse_int64_list(const std::string& flag, const std::string& text) {
  std::vector<std::int64_t> values;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string item = text.substr(begin, comma == std::string::npos ? comma : comma - begin);
    if (item.empty()) reject(flag, text, "must be integers separated by commas");
    values.push_back(parse_int64(flag, item));
    if (comma == std::string::npos) return values;
    begin = comma + 1;
  }
}

CheckpointInterval parse_checkpoint_interval(const std::string& flag, const std::string& text) {
  CheckpointInterval interval;
  const char unit = text.empty() ? '\0' : text.back();
  const double scale = unit == 's' ? 1.0 : unit == 'm' ? 60.0 : unit == 'h' ? 3600.0 : 0.0;
  if (scale > 0.0) {
    double amount = 0.0;
    if (!to_double(text.substr(0, text.size() - 1), amount) || !(amount > 0.0))
      reject(flag, text, "must be a positive duration such as 90s, 10m or 2h, or a number of "
                         "evaluations");
    interval.seconds = amount * scale;
    return interval;
  }
  interval.evaluations = parse_int64(flag, text);
  if (interval.evaluations <= 0)
    reject(flag, text, "must be a positive number of evaluations or a duration such as 10m");
  return interval;
}

Backend parse_backend(const std::string& flag, const std::string& text) {
  for (Backend b : {Backend::kAuto, Backend::kCpu, Backend::kCuda})
    if (text == backend_name(b)) return b;
  reject(flag, text, "must be one of auto, cpu, cuda");
}

const char* rho_init_name(RhoInit r) {
  switch (r) {
    case RhoInit::kNearestRms: return "nearest-rms";
    case RhoInit::kReference: return "reference";
    default: return "fixed";
  }
}

RhoInit parse_rho_init(const std::string& flag, const std::string& text) {
  for (RhoInit r : {RhoInit::kFixed, RhoInit::kNearestRms, RhoInit::kReference})
    if (text == rho_init_name(r)) return r;
  // The former name of nearest-rms, which was described as the reference's rule and is not
  // (README "Our choices"); still read from command lines, config files and checkpoints.
  if (text == kRhoInitDeprecatedNeighbour) return RhoInit::kNearestRms;
  reject(flag, text, "must be one of fixed, nearest-rms, reference");
}

Distribute parse_distribute(const std::string& flag, const std::string& text) {
  for (Distribute d : {Distribute::kNone, Distribute::kShard, Distribute::kIslands})
    if (text == distribute_name(d)) return d;
  reject(flag, text, "must be one of none, shard, islands");
}

AlgorithmKind parse_algorithm(const std::string& flag, const std::string& text) {
  for (AlgorithmKind a : {AlgorithmKind::kMaSwChains, AlgorithmKind::kDe, AlgorithmKind::kJde,
                          AlgorithmKind::kPso, AlgorithmKind::kScatterSearch,
                          AlgorithmKind::kSepCmaEs, AlgorithmKind::kShade, AlgorithmKind::kLshade,
                          AlgorithmKind::kMtsLs1, AlgorithmKind::kShadeIls})
    if (text == algorithm_name(a)) return a;
  reject(flag, text,
         "must be one of ma-sw-chains, de, jde, pso, ss, sep-cma-es, shade, lshade, mts-ls1, "
         "shade-ils");
}

DeCrossover parse_de_crossover(const std::string& flag, const std::string& text) {
  for (DeCrossover c : {DeCrossover::kBinomial, DeCrossover::kExponential})
    if (text == de_crossover_name(c)) return c;
  reject(flag, text, "must be one of bin, exp");
}

double parse_duration_seconds(const std::string& flag, const std::string& text) {
  const char unit = text.empty() ? '\0' : text.back();
  const double scale = unit == 's' ? 1.0 : unit == 'm' ? 60.0 : unit == 'h' ? 3600.0 : 0.0;
  double amount = 0.0;
  const std::string number = scale > 0.0 ? text.substr(0, text.size() - 1) : text;
  if (!to_double(number, amount) || !(amount >= 0.0))
    reject(flag, text, "must be a duration >= 0 such as 30s, 10m or 2h (0: no limit)");
  return amount * (scale > 0.0 ? scale : 1.0);
}

}  // namespace chainsaw
