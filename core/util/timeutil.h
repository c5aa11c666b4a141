#pragma once

#include "core/util/error.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QString>
#include <array>
#include <functional>
#include <string_view>

namespace rw::timeutil {

// Epoch seconds of 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the
// range an epoch number may name, the same years as ISO-8601 text.
inline constexpr qint64 kMinEpochSeconds = -62167219200LL;
inline constexpr qint64 kMaxEpochSeconds = 253402300799LL;

// "90s", "15m", "2h", "1d" (also combined, "1h30m") to seconds; at most 100
// years (BadInput beyond).
Result<qint64> parseDuration(const QString &text);
// Seconds back to the shortest of those forms ("2h", "90s", "1d2h").
QString formatDuration(qint64 seconds);

// Velocity: sleeps, in steps of at most 50 ms, until `clock` has run
// `dueSeconds` or `cancelled()` says so (a batch of N items at R items a
// second is due N / R seconds after the first started).
void waitUntil(const QElapsedTimer &clock, double dueSeconds,
               const std::function<bool()> &cancelled);

// ISO-8601 text (with or without zone; none means UTC; fractions allowed; a
// space or T between date and time) or Unix epoch seconds within
// kMinEpochSeconds..kMaxEpochSeconds (BadInput outside).
Result<QDateTime> parseTimestamp(const QString &text);

// Epoch milliseconds as ISO-8601 UTC text with milliseconds ("2025-05-06T10:00:00.000Z").
QString isoUtcMs(qint64 ms);
// The same text as UTF-8 in `buf`, without a QString or QDateTime (a Kafka
// replay writes one per record); the view is of `buf`.
std::string_view isoUtcMsUtf8(qint64 ms, std::array<char, 48> &buf);

} // namespace rw::timeutil
