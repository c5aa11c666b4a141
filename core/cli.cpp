#include "cli.h"
namespace rw::cli {
int run(const QStringList &, QTextStream &, QTextStream &) { return 1; }
int run(const QStringList &a) { QTextStream o(stdout), e(stderr); return run(a, o, e); }
}
