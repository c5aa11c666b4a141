#include "core/lateness/latenessfunctions.h"

#include "core/sql/sqliteapi.h"
#include "core/sql/sqliteepoch.h"
#include "core/util/timeutil.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>

namespace rw {

namespace {

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
        const bool parsed = sqliteEpochMs(a, argv[0], missing, event);
        if (parsed && sqliteEpochMs(a, argv[1], missing, ingest)) {
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

} // namespace

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
        {.name = "rewind_lateness", .arguments = 3, .step = latenessStep, .final = latenessFinal},
    };
    return functions;
}

} // namespace rw
