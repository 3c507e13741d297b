// Errors in a distributed run, where ranks must not part ways: a rank that throws alone while
// the others wait in a collective would hang the job. Steps that can fail on one rank only (a
// file, memory, a checkpoint) run inside agree(), which makes every rank fail together.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include "core/distributed/communicator.hpp"

namespace chainsaw {

// Thrown on every rank when a step failed on some: the lowest failing rank's error. Only that
// rank reports it (`reporter`), so the job prints it once; every rank exits with its code.
class AgreedFailure : public std::runtime_error {
 public:
  AgreedFailure(const std::string& message, bool user_error, bool reporter)
      : std::runtime_error(message), user_error(user_error), reporter(reporter) {}
  bool user_error;  // a UserError (exit code 2), else an internal error (1)
  bool reporter;
};

// Runs `step` on every rank (collective); when it throws on any rank, throws AgreedFailure on
// every rank. `step` itself must make no collective calls.
void agree(Communicator& comm, const std::function<void()>& step);

}  // namespace chainsaw
