#include "core/sql/sqliteepoch.h"

#include "core/util/timeutil.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace rw {

namespace {

// --- parsing ---------------------------------------------------------------------

inline bool isDigit(char c) {
    return c >= '0' && c <= '9';
}
inline bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
inline int digits2(const char *p) {
    return (p[0] - '0') * 10 + (p[1] - '0');
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
qint64 daysFromCivil(qint64 y, int m, int d) {
    y -= m <= 2;
    const qint64 era = (y >= 0 ? y : y - 399) / 400;
    const qint64 yoe = y - era * 400;
    const qint64 doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const qint64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int daysInMonth(int y, int m) {
    static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return 29;
    return days[m - 1];
}

// Milliseconds of a fraction's digits [p, e). Digits past the millisecond
// are dropped, not rounded: 09:59:59.9996 is before 10:00:00, and reads so
// (as the command line's timestamps and PostgreSQL's rewind.epoch_ms do).
qint64 fractionMs(const char *p, const char *e) {
    qint64 ms = 0;
    int n = 0;
    for (; p < e && n < 3; ++p, ++n)
        ms = ms * 10 + (*p - '0');
    for (; n < 3; ++n)
        ms *= 10;
    return ms;
}

// Epoch numbers name seconds within years 0000-9999, as ISO-8601 text does.
// Epoch milliseconds (13 digits today) land far outside and are unparseable:
// counted apart by lag, ignored by the watermark, rather than read as a date
// some 50,000 years ahead.
inline bool inEpochRange(qint64 ms) {
    return ms >= timeutil::kMinEpochSeconds * 1000 && ms <= timeutil::kMaxEpochSeconds * 1000 + 999;
}

// Milliseconds since the epoch of ISO-8601 or epoch-seconds text. Returns
// false (rather than an optional) so the hot path keeps the value in registers.
bool parseMs(const char *text, qsizetype size, qint64 &out) {
    if (!text)
        return false;
    const char *p = text;
    const char *e = text + size;
    while (p < e && isSpace(*p))
        ++p;
    while (e > p && isSpace(e[-1]))
        --e;
    if (p == e)
        return false;

    // Epoch seconds: -?\d+(\.\d+)?
    {
        const char *q = p;
        const bool negative = *q == '-';
        if (negative)
            ++q;
        const char *intStart = q;
        while (q < e && isDigit(*q))
            ++q;
        const qsizetype intDigits = q - intStart;
        if (intDigits > 0 && (q == e || *q == '.')) {
            const char *fracStart = q < e ? q + 1 : e;
            const char *f = fracStart;
            while (f < e && isDigit(*f))
                ++f;
            if (f != e || (q < e && f == fracStart))
                return false; // "12." or "12.x"
            if (intDigits > 13)
                return false;
            qint64 seconds = 0;
            for (const char *d = intStart; d < intStart + intDigits; ++d)
                seconds = seconds * 10 + (*d - '0');
            const qint64 ms = seconds * 1000 + fractionMs(fracStart, e);
            out = negative ? -ms : ms;
            return inEpochRange(out);
        }
        if (negative)
            return false;
    }

    // ISO-8601: YYYY-MM-DD[(T| )HH:MM[:SS[(.|,)fraction]]][ ][Z|+HH[[:]MM]].
    // Read the same by PostgreSQL's rewind.epoch_ms (tst_lateness compares
    // the two): no 24:00 or leap second, an offset within PostgreSQL's
    // +-15:59.
    if (e - p < 10 || !isDigit(p[0]) || !isDigit(p[1]) || !isDigit(p[2]) || !isDigit(p[3]) ||
        p[4] != '-' || !isDigit(p[5]) || !isDigit(p[6]) || p[7] != '-' || !isDigit(p[8]) ||
        !isDigit(p[9]))
        return false;
    const int year = digits2(p) * 100 + digits2(p + 2);
    const int month = digits2(p + 5);
    const int day = digits2(p + 8);
    // Timestamps come in runs of the same day: remember the last one's day number.
    thread_local int lastDate = -1;
    thread_local qint64 lastDays = 0;
    const int date = year * 10000 + month * 100 + day;
    if (date != lastDate) {
        // Years 0001-9999: PostgreSQL's calendar has no year 0000.
        if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month))
            return false;
        lastDays = daysFromCivil(year, month, day);
        lastDate = date;
    }
    const qint64 days = lastDays;
    p += 10;
    int hour = 0, minute = 0, second = 0;
    qint64 ms = 0;
    if (p < e && (*p == 'T' || *p == 't' || *p == ' ') && e - p >= 6 && isDigit(p[1])) {
        if (!isDigit(p[2]) || p[3] != ':' || !isDigit(p[4]) || !isDigit(p[5]))
            return false;
        hour = digits2(p + 1);
        minute = digits2(p + 4);
        p += 6;
        if (p < e && *p == ':') {
            if (e - p < 3 || !isDigit(p[1]) || !isDigit(p[2]))
                return false;
            second = digits2(p + 1);
            p += 3;
            if (p < e && (*p == '.' || *p == ',')) {
                const char *fracStart = ++p;
                while (p < e && isDigit(*p))
                    ++p;
                if (p == fracStart)
                    return false;
                ms = fractionMs(fracStart, p);
            }
        }
        if (hour > 23 || minute > 59 || second > 59)
            return false;
    }
    while (p < e && isSpace(*p))
        ++p;
    qint64 offsetSeconds = 0;
    if (p < e) {
        if (*p == 'Z' || *p == 'z') {
            ++p;
        } else if (*p == '+' || *p == '-') {
            const int sign = *p == '-' ? -1 : 1;
            ++p;
            if (e - p < 2 || !isDigit(p[0]) || !isDigit(p[1]))
                return false;
            const int hh = digits2(p);
            int mm = 0;
            p += 2;
            if (p < e) {
                if (*p == ':')
                    ++p;
                if (e - p < 2 || !isDigit(p[0]) || !isDigit(p[1]))
                    return false;
                mm = digits2(p);
                p += 2;
            }
            if (hh > 15 || mm > 59)
                return false;
            offsetSeconds = sign * (hh * 3600 + mm * 60);
        }
    }
    if (p != e)
        return false;
    const qint64 seconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds;
    out = seconds * 1000 + ms;
    return true;
}

void epochMs(sqlite::sqlite3_context *context, int, sqlite::sqlite3_value **argv) {
    const sqlite::Api &a = sqlite::api();
    bool missing = false;
    qint64 ms = 0;
    if (sqliteEpochMs(a, argv[0], missing, ms))
        a.resultInt64(context, ms);
    else
        a.resultNull(context);
}

} // namespace

// One timestamp argument in epoch milliseconds; `missing` when it is NULL.
bool sqliteEpochMs(const sqlite::Api &a, sqlite::sqlite3_value *value, bool &missing, qint64 &out) {
    switch (a.valueType(value)) {
    case sqlite::kInteger: {
        const long long seconds = a.valueInt64(value);
        if (seconds > timeutil::kMaxEpochSeconds || seconds < timeutil::kMinEpochSeconds)
            return false;
        out = qint64(seconds) * 1000;
        return true;
    }
    case sqlite::kFloat: {
        const double seconds = a.valueDouble(value);
        if (!std::isfinite(seconds) || seconds > double(timeutil::kMaxEpochSeconds) ||
            seconds < double(timeutil::kMinEpochSeconds))
            return false;
        if (std::fabs(seconds) < 0.001) {
            out = 0;
            return true;
        }
        // The shortest decimal that reads back as this double (what was
        // written: 1746525599.9996), then its digits as text's are read.
        // seconds * 1000 in binary could land either side of a millisecond.
        char digits[64];
        const auto written =
            std::to_chars(digits, digits + sizeof digits, seconds, std::chars_format::fixed);
        return written.ec == std::errc() && parseMs(digits, written.ptr - digits, out);
    }
    case sqlite::kText:
        return parseMs(reinterpret_cast<const char *>(a.valueText(value)), a.valueBytes(value),
                       out);
    case sqlite::kNull:
        missing = true;
        return false;
    default: // a blob is not a timestamp
        return false;
    }
}

std::optional<qint64> parseEpochMs(const char *text, qsizetype size) {
    qint64 ms = 0;
    if (!parseMs(text, size, ms))
        return std::nullopt;
    return ms;
}

std::span<const sqlite::Function> epochSqliteFunctions() {
    static constexpr sqlite::Function functions[] = {
        {.name = "rewind_epoch_ms", .arguments = 1, .scalar = epochMs},
    };
    return functions;
}

} // namespace rw
