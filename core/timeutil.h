#pragma once

#include "error.h"

#include <QDateTime>
#include <QString>

namespace rw::timeutil {

// "90s", "15m", "2h", "1d" (also combined, "1h30m") to seconds.
Result<qint64> parseDuration(const QString &text);
// Seconds back to the shortest of those forms ("2h", "90s", "1d2h").
QString formatDuration(qint64 seconds);

// ISO-8601 text (with or without zone; none means UTC; fractions allowed; a
// space or T between date and time) or Unix epoch seconds.
Result<QDateTime> parseTimestamp(const QString &text);

} // namespace rw::timeutil
