// Errors. UserError is a mistake in the input (bad flag, bad file) and is reported as one
// plain line; everything else is an internal error and carries where it happened.
#pragma once

#include <stdexcept>
#include <string>

namespace chainsaw {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InternalError : public std::runtime_error {
 public:
  InternalError(const std::string& what, const char* file, int line)
      : std::runtime_error(what + " (" + file + ":" + std::to_string(line) + ")") {}
};

}  // namespace chainsaw

// Precondition check for internal invariants (not for user input: validate that in Config).
#define CHAINSAW_EXPECTS(cond, msg)                                           \
  do {                                                                        \
    if (!(cond)) throw ::chainsaw::InternalError((msg), __FILE__, __LINE__); \
  } while (0)
