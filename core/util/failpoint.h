#pragma once

#include <functional>

namespace rw {

// Crash-testing hook. When the environment variable REWIND_FAILPOINT is
// "NAME" or "NAME:N", the N-th time (default 1st) the code passes failpoint
// NAME, the process kills itself with SIGKILL: no destructor, no rollback,
// exactly like a power cut of the process. Just before, it writes
// "rewind: failpoint NAME:N reached" to stderr. Unset, it costs one getenv.
// Used by the crash-resume tests (tests/tst_crash.cpp, tst_scd2, tst_replay,
// tst_dlqreplay). A batch chunk passes chunk-start, after-stage, after-checks,
// before-publish, (scd2: scd2-after-images, scd2-after-close), after-write,
// before-commit and after-commit, in that order; a rollback passes
// after-rollback-partition after each partition it restored.
void failpoint(const char *name);

// In-process tests: `hook` is called with the name at every failpoint passed
// (before REWIND_FAILPOINT is looked at), e.g. to end a database session
// mid-publish. Set it before the code under test runs; an empty function
// removes it.
void setFailpointHook(std::function<void(const char *name)> hook);

} // namespace rw
