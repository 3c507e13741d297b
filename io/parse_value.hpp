// Turning command-line text into numbers and enums, with one-line errors that name the flag and
// the offending text. CLI11's own integer conversion goes through strtoull/strtoll with base 0,
// so "-1" wraps to 2^64 - 1 for unsigned options, "010" is octal and overflow saturates: these
// parsers accept only decimal (and exact scientific notation such as 1e6) and reject the rest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config.hpp"

namespace chainsaw {

// Throw UserError("<flag> = <text>: ...") when `text` is not an integer that fits T.
std::int64_t parse_int64(const std::string& flag, const std::string& text);
std::uint64_t parse_uint64(const std::string& flag, const std::string& text);
int parse_int(const std::string& flag, const std::string& text);
// A finite decimal number.
double parse_real(const std::string& flag, const std::string& text);
// Comma-separated integers, each as parse_int64 reads it (1.2e5 included).
std::vector<std::int64_t> parse_int64_list(const std::string& flag, const std::string& text);

// --checkpoint-every: a duration with a unit (90s, 10m, 1.5h) or a number of evaluations.
struct CheckpointInterval {
  std::int64_t evaluations = 0;  // 0: not by evaluations
  double seconds = 0.0;          // 0: not by time
};
CheckpointInterval parse_checkpoint_interval(const std::string& flag, const std::string& text);

Backend parse_backend(const std::string& flag, const std::string& text);
// "neighbour" is accepted as the deprecated name of nearest-rms.
inline constexpr const char* kRhoInitDeprecatedNeighbour = "neighbour";
RhoInit parse_rho_init(const std::string& flag, const std::string& text);
const char* rho_init_name(RhoInit r);
Distribute parse_distribute(const std::string& flag, const std::string& text);
AlgorithmKind parse_algorithm(const std::string& flag, const std::string& text);
DeCrossover parse_de_crossover(const std::string& flag, const std::string& text);
// --time-limit: a duration with a unit (30s, 10m, 1.5h), or plain seconds; >= 0 (0: none).
double parse_duration_seconds(const std::string& flag, const std::string& text);

}  // namespace chainsaw
