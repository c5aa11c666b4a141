#pragma once

#include <QString>

// Small text formatters shared by the console's pages and models.
namespace rw::fmt {

// 41230 -> "41,230" (group separators always on).
QString number(qint64 n);
// 3725 -> "1 h 2 min", 42 -> "42 s", 0.4 -> "0.4 s".
QString duration(double seconds);
// "2025-05-06T10:20:00.123Z" -> "2025-05-06 10:20:00".
QString timestamp(const QString &iso);
// Seconds between two ISO timestamps; -1 when either is missing.
double secondsBetween(const QString &fromIso, const QString &toIso);

} // namespace rw::fmt
