#include "io/etc_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sys/stat.h>

#include "core/error.hpp"

namespace chainsaw {

std::vector<double> read_etc_file(const std::string& path, std::int64_t tasks, int machines) {
  const std::string source = "--instance = " + path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw UserError(source + ": cannot be opened");
  if (!S_ISREG(st.st_mode)) throw UserError(source + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(source + ": cannot be opened");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  const auto expected = static_cast<std::size_t>(tasks) * static_cast<std::size_t>(machines);
  const std::string shape = std::to_string(tasks) + " tasks x " + std::to_string(machines) +
                            " machines (--dim x --etc-machines) = " + std::to_string(expected);
  std::vector<double> values;
  values.reserve(expected);
  std::int64_t line = 1;
  const char* p = text.c_str();
  const char* const end = p + text.size();
  while (p < end) {
    if (*p == '\n') {
      ++line;
      ++p;
    } else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == ',') {
      ++p;
    } else if (*p == '#') {
      while (p < end && *p != '\n') ++p;
    } else {
      const char* token_end = p;
      while (token_end < end && *token_end != ' ' && *token_end != '\t' && *token_end != '\r' &&
             *token_end != '\n' && *token_end != ',' && *token_end != '#')
        ++token_end;
      const std::string token(p, token_end);
      char* parsed_end = nullptr;
      errno = 0;
      const double v = std::strtod(token.c_str(), &parsed_end);
      if (token.empty() || parsed_end != token.c_str() + token.size())
        throw UserError(source + ": line " + std::to_string(line) + ": '" + token +
                        "' is not a number");
      if (!(std::isfinite(v) && v > 0.0))
        throw UserError(source + ": line " + std::to_string(line) + ": " + token +
                        " is not a positive finite time");
      if (values.size() == expected)
        throw UserError(source + ": holds more than " + shape + " values");
      values.push_back(v);
      p = token_end;
    }
  }
  if (values.size() != expected)
    throw UserError(source + ": holds " + std::to_string(values.size()) + " values, " + shape);
  return values;
}

}  // namespace chainsaw
