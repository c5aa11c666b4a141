#include "core/util/timeutil.h"

#include <QRegularExpression>
#include <QStringBuilder>
#include <QThread>
#include <algorithm>

namespace rw::timeutil {

Result<qint64> parseDuration(const QString &text) {
    static const QRegularExpression whole(QStringLiteral("^(?:\\d+[smhd])+$"));
    static const QRegularExpression part(QStringLiteral("(\\d+)([smhd])"));
    const QString t = text.trimmed();
    if (!whole.match(t).hasMatch())
        return badInput(
            QStringLiteral("\"%1\" is not a duration (use a number and a unit: 90s, 15m, 2h, 1d)")
                .arg(text));
    // At most 100 years: anything longer is a typo, and the sum stays far
    // from overflowing when it is turned into milliseconds.
    constexpr qint64 kMaxSeconds = 100LL * 366 * 86400;
    const auto tooLong = [&] {
        return badInput(
            QStringLiteral("\"%1\" is too long a duration (at most 100 years)").arg(text));
    };
    qint64 seconds = 0;
    auto it = part.globalMatch(t);
    while (it.hasNext()) {
        const auto m = it.next();
        bool ok = false;
        const qint64 n = m.captured(1).toLongLong(&ok);
        qint64 unit = 1;
        switch (m.captured(2).at(0).toLatin1()) {
        case 'm':
            unit = 60;
            break;
        case 'h':
            unit = 3600;
            break;
        case 'd':
            unit = 86400;
            break;
        default:
            break;
        }
        if (!ok || n > kMaxSeconds / unit || seconds + n * unit > kMaxSeconds)
            return tooLong();
        seconds += n * unit;
    }
    return seconds;
}

QString formatDuration(qint64 seconds) {
    if (seconds == 0)
        return QStringLiteral("0s");
    QString out;
    const qint64 d = seconds / 86400, h = seconds % 86400 / 3600, m = seconds % 3600 / 60,
                 s = seconds % 60;
    if (d)
        out += QString::number(d) % u'd';
    if (h)
        out += QString::number(h) % u'h';
    if (m)
        out += QString::number(m) % u'm';
    if (s)
        out += QString::number(s) % u's';
    return out;
}

namespace {

// Milliseconds of a fraction of a second's digits ("1236" is 123): digits
// past the millisecond are dropped, never rounded up, so an instant just
// before T never reads as T.
qint64 fractionMillis(const QString &digits) {
    qint64 ms = 0;
    for (int i = 0; i < 3; ++i)
        ms = ms * 10 + (i < digits.size() ? digits.at(i).digitValue() : 0);
    return ms;
}

} // namespace

Result<QDateTime> parseTimestamp(const QString &text) {
    const QString t = text.trimmed();
    static const QRegularExpression epoch(QStringLiteral("^-?\\d+(\\.\\d+)?$"));
    if (epoch.match(t).hasMatch()) {
        // Epoch seconds within years 0000-9999, to the millisecond, as the
        // engines' rewind_epoch_ms reads them in the data (digits past the
        // millisecond dropped); a milliseconds value (13 digits) is out of
        // range, not silently read.
        const auto outOfRange = [&] {
            return badInput(QStringLiteral("\"%1\" is out of range for epoch seconds (years 0000 "
                                           "to 9999; milliseconds are not accepted)")
                                .arg(text));
        };
        const QString whole = t.section(u'.', 0, 0).remove(u'-');
        if (whole.size() > 13)
            return outOfRange();
        const qint64 ms = (whole.toLongLong() * 1000 + fractionMillis(t.section(u'.', 1))) *
                          (t.startsWith(u'-') ? -1 : 1);
        if (ms < kMinEpochSeconds * 1000 || ms > kMaxEpochSeconds * 1000 + 999)
            return outOfRange();
        return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    }
    static const QRegularExpression iso(
        QStringLiteral(
            "^(\\d{4}-\\d{2}-\\d{2})(?:[T "
            "](\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?))?\\s*(Z|[+-]\\d{2}(?::?\\d{2})?)?$"),
        QRegularExpression::CaseInsensitiveOption);
    const auto m = iso.match(t);
    if (!m.hasMatch())
        return badInput(QStringLiteral("\"%1\" is not a timestamp (use ISO-8601 such as "
                                       "2025-05-06T10:20:00Z, or epoch seconds)")
                            .arg(text));
    QString timePart = m.captured(2).isEmpty() ? QStringLiteral("00:00:00") : m.captured(2);
    timePart.replace(u',', u'.');
    if (timePart.size() == 5)
        timePart += QStringLiteral(":00");
    const QDate date = QDate::fromString(m.captured(1), Qt::ISODate);
    QString whole = timePart.section(u'.', 0, 0);
    const QString fraction = timePart.section(u'.', 1);
    const QTime time = QTime::fromString(whole, QStringLiteral("HH:mm:ss"));
    if (!date.isValid() || !time.isValid())
        return badInput(QStringLiteral("\"%1\" is not a valid date and time").arg(text));
    const qint64 ms = fractionMillis(fraction);
    int offsetSeconds = 0;
    const QString zone = m.captured(3);
    if (!zone.isEmpty() && zone.compare(QLatin1String("Z"), Qt::CaseInsensitive) != 0) {
        const int sign = zone.at(0) == u'-' ? -1 : 1;
        QString digits = zone.mid(1);
        digits.remove(u':');
        const int hh = digits.left(2).toInt();
        const int mm = digits.size() >= 4 ? digits.mid(2, 2).toInt() : 0;
        // As the data's timestamps are read (latenessfunctions.cpp, rewind.epoch_ms).
        if (hh > 15 || mm > 59)
            return badInput(
                QStringLiteral("\"%1\": the zone offset %2 is out of range (at most +-15:59)")
                    .arg(text, zone));
        offsetSeconds = sign * (hh * 3600 + mm * 60);
    }
    QDateTime local(date, time, Qt::UTC);
    return local.addMSecs(ms).addSecs(-offsetSeconds);
}

QString isoUtcMs(qint64 ms) {
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

std::string_view isoUtcMsUtf8(qint64 ms, std::array<char, 48> &buf) {
    // Years 1970 to 9999 by arithmetic (days to civil date, proleptic
    // Gregorian, as QDate counts); QDateTime's own text outside them.
    constexpr qint64 kLast = 253402300799999; // 9999-12-31T23:59:59.999Z
    if (ms < 0 || ms > kLast) {
        const QByteArray text = isoUtcMs(ms).toUtf8();
        const auto n = std::min<std::size_t>(std::size_t(text.size()), buf.size());
        std::copy_n(text.constData(), n, buf.data());
        return {buf.data(), n};
    }
    const qint64 days = ms / 86400000, inDay = ms % 86400000;
    const qint64 z = days + 719468, era = z / 146097, doe = z - era * 146097;
    const qint64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const qint64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    const qint64 day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
    const qint64 year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    char *p = buf.data();
    const auto put = [&p](qint64 v, int width) {
        for (int i = width - 1; i >= 0; --i, v /= 10)
            p[i] = char('0' + v % 10);
        p += width;
    };
    put(year, 4);
    *p++ = '-';
    put(month, 2);
    *p++ = '-';
    put(day, 2);
    *p++ = 'T';
    put(inDay / 3600000, 2);
    *p++ = ':';
    put(inDay / 60000 % 60, 2);
    *p++ = ':';
    put(inDay / 1000 % 60, 2);
    *p++ = '.';
    put(inDay % 1000, 3);
    *p++ = 'Z';
    return {buf.data(), std::size_t(p - buf.data())};
}

void waitUntil(const QElapsedTimer &clock, double dueSeconds,
               const std::function<bool()> &cancelled) {
    while (clock.nsecsElapsed() / 1e9 < dueSeconds && !cancelled())
        QThread::msleep(std::clamp<unsigned long>(
            static_cast<unsigned long>((dueSeconds - clock.nsecsElapsed() / 1e9) * 1000) + 1, 1,
            50));
}

} // namespace rw::timeutil
