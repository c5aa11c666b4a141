#pragma once

#include <QColor>
#include <QIcon>
#include <QString>
#include <QStringList>

namespace rw {

// How partition statuses look everywhere in the console: one colour per
// status, a light tint for cell backgrounds, and a dot icon. GUI thread only
// (icons are cached).
class StatusStyle {
public:
    // unloaded, loaded, provisional, final, stale, failed: the order an operator reads them in.
    static const QStringList &statuses();

    static QColor color(const QString &status);
    static QColor tint(const QString &status);
    static QIcon icon(const QString &status);
    static QString description(const QString &status);
    // Sort rank: higher needs more attention (failed first when descending).
    static int severity(const QString &status);
    // True for statuses an operator should act on.
    static bool needsAttention(const QString &status);
};

} // namespace rw
