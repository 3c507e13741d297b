#include "io/run/stop_signals.hpp"

#include <unistd.h>

#include "io/checkpoint/checkpoint_lock.hpp"
#include "io/results/output_file.hpp"

namespace chainsaw {

namespace {
volatile std::sig_atomic_t g_stop_signal = 0;
// A progress line may be on a terminal's stderr: the message then starts a line of its own.
bool g_stderr_is_terminal = false;

// Async-signal-safe: write(2), unlink(2) and _exit only.
void say(const char* text) {
  std::size_t n = 0;
  while (text[n] != '\0') ++n;
  [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, text, n);
}

// The first signal asks for a stop at the next safe point; a second one ends the process at
// once, removing the checkpoint's temporary file if one is being written (the last good
// checkpoint stays as it was) and the checkpoint's lock file.
extern "C" void note_stop_signal(int signal_number) {
  if (g_stop_signal == 0) {
    g_stop_signal = signal_number;
    return;
  }
  remove_unfinished_temporary();
  remove_held_lock_file();
  if (g_stderr_is_terminal) say("\n");
  say(signal_number == SIGINT ? "chainsaw: second SIGINT: stopped at once, without a new "
                                "checkpoint (the last one written is kept)\n"
                              : "chainsaw: second SIGTERM: stopped at once, without a new "
                                "checkpoint (the last one written is kept)\n");
  ::_exit(128 + signal_number);
}
}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  g_stderr_is_terminal = ::isatty(STDERR_FILENO) != 0;
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  // Both signals blocked while the handler runs: the two are one "stop" to it.
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

int StopSignals::received() const { return g_stop_signal; }

}  // namespace chainsaw
