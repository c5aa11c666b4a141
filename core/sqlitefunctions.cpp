#include "sqlitefunctions.h"

#include "latenessfunctions.h"

#include <QSqlDriver>
#include <QVariant>

#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace rw {

namespace {

// The few declarations of sqlite3.h this file needs; the C ABI is stable.
struct sqlite3;
struct sqlite3_context;
struct sqlite3_value;
constexpr int kSqliteOk = 0;
constexpr int kSqliteUtf8 = 1;
constexpr int kSqliteDeterministic = 0x000000800;
constexpr int kSqliteInteger = 1, kSqliteFloat = 2, kSqliteText = 3, kSqliteBlob = 4, kSqliteNull = 5;

using ScalarFn = void (*)(sqlite3_context *, int, sqlite3_value **);
using CreateFunctionFn = int (*)(sqlite3 *, const char *, int, int, void *, ScalarFn,
                                 void (*)(sqlite3_context *, int, sqlite3_value **),
                                 void (*)(sqlite3_context *), void (*)(void *));
using ValueTypeFn = int (*)(sqlite3_value *);
using ValueBlobFn = const void *(*)(sqlite3_value *);
using ValueTextFn = const unsigned char *(*)(sqlite3_value *);
using ValueBytesFn = int (*)(sqlite3_value *);
using ValueInt64Fn = long long (*)(sqlite3_value *);
using ValueDoubleFn = double (*)(sqlite3_value *);
using ResultInt64Fn = void (*)(sqlite3_context *, long long);

struct Api {
    CreateFunctionFn createFunction = nullptr;
    ValueTypeFn valueType = nullptr;
    ValueBlobFn valueBlob = nullptr;
    ValueTextFn valueText = nullptr;
    ValueBytesFn valueBytes = nullptr;
    ValueInt64Fn valueInt64 = nullptr;
    ValueDoubleFn valueDouble = nullptr;
    ResultInt64Fn resultInt64 = nullptr;

    bool complete() const
    {
        return createFunction && valueType && valueBlob && valueText && valueBytes && valueInt64 && valueDouble
               && resultInt64;
    }
};

const Api &api()
{
    static const Api resolved = [] {
        Api a;
        void *lib = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_NOLOAD);
        auto sym = [&](const char *name) {
            void *p = lib ? dlsym(lib, name) : nullptr;
            return p ? p : dlsym(RTLD_DEFAULT, name);
        };
        a.createFunction = reinterpret_cast<CreateFunctionFn>(sym("sqlite3_create_function_v2"));
        a.valueType = reinterpret_cast<ValueTypeFn>(sym("sqlite3_value_type"));
        a.valueBlob = reinterpret_cast<ValueBlobFn>(sym("sqlite3_value_blob"));
        a.valueText = reinterpret_cast<ValueTextFn>(sym("sqlite3_value_text"));
        a.valueBytes = reinterpret_cast<ValueBytesFn>(sym("sqlite3_value_bytes"));
        a.valueInt64 = reinterpret_cast<ValueInt64Fn>(sym("sqlite3_value_int64"));
        a.valueDouble = reinterpret_cast<ValueDoubleFn>(sym("sqlite3_value_double"));
        a.resultInt64 = reinterpret_cast<ResultInt64Fn>(sym("sqlite3_result_int64"));
        return a;
    }();
    return resolved;
}

constexpr quint32 kFnvOffset = 2166136261u;
constexpr quint32 kFnvPrime = 16777619u;

inline quint32 fnv(quint32 h, const unsigned char *bytes, int n)
{
    for (int i = 0; i < n; ++i) {
        h ^= bytes[i];
        h *= kFnvPrime;
    }
    return h;
}

void rewindHash(sqlite3_context *context, int argc, sqlite3_value **argv)
{
    const Api &a = api();
    quint32 h = kFnvOffset;
    for (int i = 0; i < argc; ++i) {
        int type = a.valueType(argv[i]);
        long long integer = 0;
        double real = 0;
        if (type == kSqliteInteger) {
            integer = a.valueInt64(argv[i]);
        } else if (type == kSqliteFloat) {
            // Integral reals hash like integers, so 3 and 3.0 match as SQL compares them.
            real = a.valueDouble(argv[i]);
            if (real >= -9.0e18 && real <= 9.0e18 && real == static_cast<double>(static_cast<long long>(real))) {
                integer = static_cast<long long>(real);
                type = kSqliteInteger;
            }
        }
        const unsigned char tag = static_cast<unsigned char>(type);
        h = fnv(h, &tag, 1);
        switch (type) {
        case kSqliteInteger:
            h = fnv(h, reinterpret_cast<const unsigned char *>(&integer), sizeof integer);
            break;
        case kSqliteFloat:
            h = fnv(h, reinterpret_cast<const unsigned char *>(&real), sizeof real);
            break;
        case kSqliteText: {
            // Text (or blob) first, then its size, as the SQLite API requires.
            const unsigned char *text = a.valueText(argv[i]);
            h = fnv(h, text, a.valueBytes(argv[i]));
            break;
        }
        case kSqliteBlob: {
            const auto *blob = static_cast<const unsigned char *>(a.valueBlob(argv[i]));
            h = fnv(h, blob, a.valueBytes(argv[i]));
            break;
        }
        case kSqliteNull:
        default:
            break;
        }
        const unsigned char separator = 0x1f;
        h = fnv(h, &separator, 1);
    }
    a.resultInt64(context, static_cast<long long>(h));
}

// A JSON text as SQLite's JSON functions read it: of a repeated key in an
// object, the first (json_extract reads it, json_set sets it). Discarded when
// it does not parse. Keys are tracked by depth: the parser reports where each
// object starts, not always where a skipped one ends.
nlohmann::json parseFirstKeyWins(std::string_view text)
{
    using Event = nlohmann::json::parse_event_t;
    std::vector<std::unordered_set<std::string>> seen; // per depth, the current object's keys
    const nlohmann::json::parser_callback_t firstWins = [&](int depth, Event event, nlohmann::json &parsed) {
        const auto at = static_cast<size_t>(depth);
        if (event == Event::object_start) {
            if (seen.size() < at + 2)
                seen.resize(at + 2);
            seen[at + 1].clear();
        } else if (event == Event::key) {
            if (seen.size() < at + 1)
                seen.resize(at + 1);
            return seen[at].insert(parsed.get<std::string>()).second;
        }
        return true;
    };
    return nlohmann::json::parse(text.begin(), text.end(), firstWins, false);
}

// rewind_json_differ(a, b): 1 when two JSON texts hold different values, as
// PostgreSQL's jsonb compares them: numbers by value (1.0 = 1 = 1e0), strings
// after their escapes, objects whatever their key order (a repeated key: its
// first value, which SQLite reads, where jsonb keeps the last). NULL differs from anything but NULL; a text that does not
// parse is compared by its bytes.
void rewindJsonDiffer(sqlite3_context *context, int, sqlite3_value **argv)
{
    const Api &a = api();
    const bool nullA = a.valueType(argv[0]) == kSqliteNull, nullB = a.valueType(argv[1]) == kSqliteNull;
    if (nullA || nullB) {
        a.resultInt64(context, nullA == nullB ? 0 : 1);
        return;
    }
    const auto bytes = [&](sqlite3_value *v) {
        const auto *text = reinterpret_cast<const char *>(a.valueText(v)); // text first, then its size
        return std::string_view(text ? text : "", static_cast<size_t>(a.valueBytes(v)));
    };
    const std::string_view textA = bytes(argv[0]), textB = bytes(argv[1]);
    if (textA == textB) {
        a.resultInt64(context, 0);
        return;
    }
    const auto valueA = parseFirstKeyWins(textA), valueB = parseFirstKeyWins(textB);
    if (valueA.is_discarded() || valueB.is_discarded()) {
        a.resultInt64(context, 1); // the bytes differ
        return;
    }
    a.resultInt64(context, valueA == valueB ? 0 : 1);
}

} // namespace

void configureSqliteLibrary()
{
    static std::once_flag once;
    std::call_once(once, [] {
        void *lib = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_NOLOAD);
        void *p = lib ? dlsym(lib, "sqlite3_config") : nullptr;
        if (!p)
            p = dlsym(RTLD_DEFAULT, "sqlite3_config");
        if (!p)
            return;
        constexpr int kConfigMemStatus = 9; // SQLITE_CONFIG_MEMSTATUS
        // SQLITE_MISUSE once the library is initialised: then nothing changes.
        reinterpret_cast<int (*)(int, ...)>(p)(kConfigMemStatus, 0);
    });
}

Status registerSqliteFunctions(QSqlDatabase &connection)
{
    const Api &a = api();
    if (!a.complete())
        return internalError(QStringLiteral("cannot reach the SQLite library loaded by the Qt driver to register rewind_hash"));
    const QVariant handle = connection.driver()->handle();
    if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0)
        return internalError(QStringLiteral("the Qt SQLite driver did not expose its sqlite3 handle"));
    sqlite3 *db = *static_cast<sqlite3 *const *>(handle.data());
    if (!db)
        return internalError(QStringLiteral("the SQLite connection is not open"));
    const int rc = a.createFunction(db, "rewind_hash", -1, kSqliteUtf8 | kSqliteDeterministic, nullptr, rewindHash,
                                    nullptr, nullptr, nullptr);
    if (rc != kSqliteOk)
        return internalError(QStringLiteral("cannot register rewind_hash (SQLite error %1)").arg(rc));
    if (const int jrc = a.createFunction(db, "rewind_json_differ", 2, kSqliteUtf8 | kSqliteDeterministic, nullptr, rewindJsonDiffer,
                                         nullptr, nullptr, nullptr);
        jrc != kSqliteOk)
        return internalError(QStringLiteral("cannot register rewind_json_differ (SQLite error %1)").arg(jrc));
    return registerLatenessFunctions(connection);
}

} // namespace rw
