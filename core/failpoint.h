#pragma once

namespace rw {

// Crash-testing hook. When the environment variable REWIND_FAILPOINT is
// "NAME" or "NAME:N", the N-th time (default 1st) the code passes failpoint
// NAME, the process kills itself with SIGKILL: no destructor, no rollback,
// exactly like a power cut of the process. Unset, it costs one getenv.
// Used by the crash-resume tests (tests/tst_crash.cpp).
void failpoint(const char *name);

} // namespace rw
