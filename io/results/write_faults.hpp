// A test hook for the output and checkpoint code's error paths, in every build:
// CHAINSAW_FAIL_WRITE=N makes the N-th write point of the process (a write(2), fsync, close or
// rename of an output file, an HDF5 call that writes a checkpoint or instance file) fail once
// with ENOSPC, as a full disk would. Read once, at the first write point; unset or not a
// positive integer: no failure. tests/faults/fault_suite.py drives it over every N of a run.
#pragma once

namespace chainsaw {

// Counts one write point; true (errno set to ENOSPC) at the N-th.
bool write_fault_injected();

}  // namespace chainsaw
