#include "core/lateness/latenessfunctions.h"

#include "core/sql/sqliteapi.h"
#include "core/util/timeutil.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>

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

// --- the aggregate ---------------------------------------------------------------

// Open-addressing hash map (partition, lateness ms) -> count. Distinct
// lateness values are few next to rows, so it stays in cache.
class CountMap {
public:
    struct Slot {
        qint64 ms = 0;
        quint32 part = 0;
        quint32 used = 0;
        qint64 count = 0;
    };

    CountMap() { m_slots.resize(1u << m_bits); }

    void add(quint32 part, qint64 ms) {
        std::size_t i = index(part, ms);
        const std::size_t mask = m_slots.size() - 1;
        for (;; i = (i + 1) & mask) {
            Slot &s = m_slots[i];
            if (!s.used) {
                s = Slot{ms, part, 1, 1};
                if (++m_size * 2 > m_slots.size())
                    grow();
                return;
            }
            if (s.ms == ms && s.part == part) {
                ++s.count;
                return;
            }
        }
    }

    const std::vector<Slot> &slots() const { return m_slots; }
    std::size_t size() const { return m_size; }

private:
    std::size_t index(quint32 part, qint64 ms) const {
        const quint64 h =
            (quint64(ms) * 0x9E3779B97F4A7C15ull) ^ (quint64(part) * 0xC2B2AE3D27D4EB4Full);
        return std::size_t((h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull >> (64 - m_bits));
    }

    void grow() {
        std::vector<Slot> old(std::size_t(1) << (m_bits + 1));
        old.swap(m_slots);
        ++m_bits;
        const std::size_t mask = m_slots.size() - 1;
        for (const Slot &s : old) {
            if (!s.used)
                continue;
            std::size_t i = index(s.part, s.ms);
            while (m_slots[i].used)
                i = (i + 1) & mask;
            m_slots[i] = s;
        }
    }

    int m_bits = 10;
    std::size_t m_size = 0;
    std::vector<Slot> m_slots;
};

struct PartitionSlot {
    bool isNull = false;
    std::string text;
    qint64 unparseable = 0;
    qint64 missing = 0;
};

struct LatenessState {
    std::vector<PartitionSlot> partitions;
    std::unordered_map<std::string, quint32> byText;
    qint64 nullIndex = -1;
    // Rows usually come clustered by partition: remember the last one.
    qint64 lastIndex = -1;
    std::string lastText;
    CountMap counts;

    quint32 partitionOf(const sqlite::Api &a, sqlite::sqlite3_value *value) {
        if (a.valueType(value) == sqlite::kNull) {
            if (nullIndex < 0) {
                nullIndex = qint64(partitions.size());
                partitions.push_back({true, {}, 0, 0});
            }
            return quint32(nullIndex);
        }
        const char *text = reinterpret_cast<const char *>(a.valueText(value));
        const std::size_t size = std::size_t(a.valueBytes(value));
        if (lastIndex >= 0 && lastText.size() == size &&
            (size == 0 || std::memcmp(lastText.data(), text, size) == 0))
            return quint32(lastIndex);
        lastText.assign(text ? text : "", size);
        auto [it, inserted] = byText.try_emplace(lastText, quint32(partitions.size()));
        if (inserted)
            partitions.push_back({false, lastText, 0, 0});
        lastIndex = it->second;
        return it->second;
    }
};

// One timestamp argument in epoch milliseconds; `missing` when it is NULL.
inline bool timeOf(const sqlite::Api &a, sqlite::sqlite3_value *value, bool &missing, qint64 &out) {
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

void latenessStep(sqlite::sqlite3_context *context, int, sqlite::sqlite3_value **argv) {
    const sqlite::Api &a = sqlite::api();
    auto **slot =
        static_cast<LatenessState **>(a.aggregateContext(context, sizeof(LatenessState *)));
    if (!slot) {
        a.resultErrorNomem(context);
        return;
    }
    try {
        if (!*slot)
            *slot = new LatenessState;
        LatenessState &state = **slot;
        const quint32 part = state.partitionOf(a, argv[2]);
        bool missing = false;
        qint64 event = 0, ingest = 0;
        const bool parsed = timeOf(a, argv[0], missing, event);
        if (parsed && timeOf(a, argv[1], missing, ingest)) {
            state.counts.add(part, ingest - event);
        } else {
            PartitionSlot &p = state.partitions[part];
            ++p.unparseable;
            if (missing)
                ++p.missing;
        }
    } catch (const std::bad_alloc &) {
        a.resultErrorNomem(context);
    } catch (...) {
        a.resultError(context, "rewind_lateness: internal error", -1);
    }
}

template <typename T> void put(std::string &out, const T &value) {
    out.append(reinterpret_cast<const char *>(&value), sizeof value);
}

constexpr quint32 kMagic = 0x314c5752; // "RWL1"

void latenessFinal(sqlite::sqlite3_context *context) {
    const sqlite::Api &a = sqlite::api();
    auto **slot = static_cast<LatenessState **>(a.aggregateContext(context, 0));
    LatenessState *state = slot ? *slot : nullptr;
    try {
        std::string out;
        put(out, kMagic);
        const quint32 partitions = state ? quint32(state->partitions.size()) : 0;
        put(out, partitions);
        for (quint32 i = 0; i < partitions; ++i) {
            const PartitionSlot &p = state->partitions[i];
            put(out, quint8(p.isNull ? 1 : 0));
            put(out, quint32(p.text.size()));
            out.append(p.text);
            put(out, p.unparseable);
            put(out, p.missing);
        }
        const quint64 entries = state ? state->counts.size() : 0;
        put(out, entries);
        if (state) {
            out.reserve(out.size() + entries * 20);
            for (const auto &s : state->counts.slots()) {
                if (!s.used)
                    continue;
                put(out, s.part);
                put(out, s.ms);
                put(out, s.count);
            }
        }
        if (out.size() > 0x7fffffffu)
            a.resultError(context, "rewind_lateness: too many distinct lateness values", -1);
        else
            a.resultBlob(context, out.data(), int(out.size()),
                         sqlite::transient()); // SQLITE_TRANSIENT
    } catch (...) {
        a.resultErrorNomem(context);
    }
    delete state;
    if (slot)
        *slot = nullptr;
}

void epochMs(sqlite::sqlite3_context *context, int, sqlite::sqlite3_value **argv) {
    const sqlite::Api &a = sqlite::api();
    bool missing = false;
    qint64 ms = 0;
    if (timeOf(a, argv[0], missing, ms))
        a.resultInt64(context, ms);
    else
        a.resultNull(context);
}

} // namespace

std::optional<qint64> parseEpochMs(const char *text, qsizetype size) {
    qint64 ms = 0;
    if (!parseMs(text, size, ms))
        return std::nullopt;
    return ms;
}

Result<LatenessCounts> decodeLatenessCounts(const QByteArray &blob) {
    const char *p = blob.constData();
    const char *e = p + blob.size();
    bool ok = true;
    auto take = [&](auto &value) {
        if (e - p < qsizetype(sizeof value)) {
            ok = false;
            return;
        }
        std::memcpy(&value, p, sizeof value);
        p += sizeof value;
    };
    quint32 magic = 0, partitions = 0;
    take(magic);
    take(partitions);
    if (!ok || magic != kMagic)
        return internalError(QStringLiteral("rewind_lateness returned an unreadable result"));
    LatenessCounts out;
    out.partitions.reserve(partitions);
    for (quint32 i = 0; i < partitions && ok; ++i) {
        quint8 isNull = 0;
        quint32 size = 0;
        take(isNull);
        take(size);
        if (!ok || e - p < qsizetype(size))
            return internalError(QStringLiteral("rewind_lateness returned a truncated result"));
        LatenessCounts::Partition part;
        if (!isNull)
            part.value = QString::fromUtf8(p, qsizetype(size));
        p += size;
        take(part.unparseable);
        take(part.missing);
        out.partitions.push_back(std::move(part));
    }
    quint64 entries = 0;
    take(entries);
    if (!ok || quint64(e - p) != entries * 20)
        return internalError(QStringLiteral("rewind_lateness returned a truncated result"));
    out.entries.resize(entries);
    for (auto &entry : out.entries) {
        take(entry.partition);
        take(entry.latenessMs);
        take(entry.count);
        if (entry.partition >= partitions)
            return internalError(QStringLiteral("rewind_lateness returned an unreadable result"));
    }
    return out;
}

std::span<const sqlite::Function> latenessSqliteFunctions() {
    static constexpr sqlite::Function functions[] = {
        {.name = "rewind_epoch_ms", .arguments = 1, .scalar = epochMs},
        {.name = "rewind_lateness", .arguments = 3, .step = latenessStep, .final = latenessFinal},
    };
    return functions;
}

} // namespace rw
