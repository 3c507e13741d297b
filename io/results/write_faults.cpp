#include "io/results/write_faults.hpp"

#include <atomic>
#include <cerrno>
#include <cstdlib>

namespace chainsaw {

namespace {

long long failing_write() {
  const char* text = std::getenv("CHAINSAW_FAIL_WRITE");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long long n = std::strtoll(text, &end, 10);
  return *end == '\0' && n > 0 ? n : 0;
}

}  // namespace

bool write_fault_injected() {
  static const long long failing = failing_write();
  static std::atomic<long long> count{0};
  if (failing == 0) return false;
  if (++count != failing) return false;
  errno = ENOSPC;
  return true;
}

}  // namespace chainsaw
