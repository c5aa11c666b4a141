#include "core/util/failpoint.h"

#include <QByteArray>
#include <QtGlobal>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace rw {

namespace {
std::function<void(const char *)> &failpointHook() {
    static std::function<void(const char *)> hook;
    return hook;
}
} // namespace

void setFailpointHook(std::function<void(const char *name)> hook) {
    failpointHook() = std::move(hook);
}

void failpoint(const char *name) {
    if (const auto &hook = failpointHook())
        hook(name);
    static const QByteArray spec = qgetenv("REWIND_FAILPOINT");
    if (spec.isEmpty())
        return;
    static std::atomic<int> hits{0};
    const qsizetype colon = spec.indexOf(':');
    const QByteArray wanted = colon < 0 ? spec : spec.left(colon);
    const int nth = colon < 0 ? 1 : spec.mid(colon + 1).toInt();
    if (wanted != name)
        return;
    if (hits.fetch_add(1) + 1 == nth) {
        // The mark lets a crash test tell this kill from any other crash.
        std::fprintf(stderr, "rewind: failpoint %s:%d reached, killing the process\n", name, nth);
        std::fflush(stderr);
        std::raise(SIGKILL);
    }
}

} // namespace rw
