#include "io/run/stop_signals.hpp"

namespace chainsaw {

namespace {
volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void note_stop_signal(int signal_number) { g_stop_signal = signal_number; }
}  // namespace

StopSignals::StopSignals() {
  g_stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, &old_int_);
  sigaction(SIGTERM, &action, &old_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

int StopSignals::received() const { return g_stop_signal; }

}  // namespace chainsaw
