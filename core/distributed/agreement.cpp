#include "core/distributed/agreement.hpp"

#include <exception>
#include <new>

#include "core/error.hpp"

namespace chainsaw {

void agree(Communicator& comm, const std::function<void()>& step) {
  bool failed = true, user_error = false;
  std::string message;
  try {
    step();
    failed = false;
  } catch (const AgreedFailure&) {
    throw;  // already agreed: a step that nests agree() must not call it again
  } catch (const UserError& e) {
    user_error = true;
    message = e.what();
  } catch (const std::bad_alloc&) {
    message = "out of memory";
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "unknown exception";
  }
  double first = failed ? comm.rank() : comm.size();
  comm.allreduce_min(&first, 1);
  const int lowest = static_cast<int>(first);
  if (lowest == comm.size()) return;
  int user = user_error ? 1 : 0;
  comm.broadcast(&user, sizeof user, lowest);
  throw AgreedFailure(message, user != 0, comm.rank() == lowest);
}

}  // namespace chainsaw
