#include "core/sql/sqlitefunctions.h"

#include "core/sql/sqliteapi.h"

#include <QCryptographicHash>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rw {

namespace {

constexpr quint32 kFnvOffset = 2166136261u;
constexpr quint32 kFnvPrime = 16777619u;

inline quint32 fnv(quint32 h, const unsigned char *bytes, int n) {
    for (int i = 0; i < n; ++i) {
        h ^= bytes[i];
        h *= kFnvPrime;
    }
    return h;
}

void rewindHash(sqlite::sqlite3_context *context, int argc, sqlite::sqlite3_value **argv) {
    const sqlite::Api &a = sqlite::api();
    quint32 h = kFnvOffset;
    for (int i = 0; i < argc; ++i) {
        int type = a.valueType(argv[i]);
        long long integer = 0;
        double real = 0;
        if (type == sqlite::kInteger) {
            integer = a.valueInt64(argv[i]);
        } else if (type == sqlite::kFloat) {
            // Integral reals hash like integers, so 3 and 3.0 match as SQL compares them.
            real = a.valueDouble(argv[i]);
            if (real >= -9.0e18 && real <= 9.0e18 &&
                real == static_cast<double>(static_cast<long long>(real))) {
                integer = static_cast<long long>(real);
                type = sqlite::kInteger;
            }
        }
        const unsigned char tag = static_cast<unsigned char>(type);
        h = fnv(h, &tag, 1);
        switch (type) {
        case sqlite::kInteger:
            h = fnv(h, reinterpret_cast<const unsigned char *>(&integer), sizeof integer);
            break;
        case sqlite::kFloat:
            h = fnv(h, reinterpret_cast<const unsigned char *>(&real), sizeof real);
            break;
        case sqlite::kText: {
            // Text (or blob) first, then its size, as the SQLite API requires.
            const unsigned char *text = a.valueText(argv[i]);
            h = fnv(h, text, a.valueBytes(argv[i]));
            break;
        }
        case sqlite::kBlob: {
            const auto *blob = static_cast<const unsigned char *>(a.valueBlob(argv[i]));
            h = fnv(h, blob, a.valueBytes(argv[i]));
            break;
        }
        case sqlite::kNull:
        default:
            break;
        }
        const unsigned char separator = 0x1f;
        h = fnv(h, &separator, 1);
    }
    a.resultInt64(context, static_cast<long long>(h));
}

// A JSON number token as an exact decimal: sign, digits without leading or
// trailing zeros, exponent ("-1234e-2" for -12.340, "0" for any zero), so
// that equal values, however spelled, compare equal and no two values merge
// (as a double would merge 12345678901234567890123 and ...124). nullopt for
// an exponent too long to add up here.
std::optional<std::string> exactNumber(std::string_view token) {
    const bool negative = !token.empty() && token.front() == '-';
    if (negative)
        token.remove_prefix(1);
    const size_t e = token.find_first_of("eE");
    const std::string_view mantissa = token.substr(0, e);
    long long exponent = 0;
    if (e != std::string_view::npos) {
        std::string_view digits = token.substr(e + 1);
        const bool down = !digits.empty() && digits.front() == '-';
        if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
            digits.remove_prefix(1);
        while (digits.size() > 1 && digits.front() == '0')
            digits.remove_prefix(1);
        if (digits.size() > 15)
            return std::nullopt;
        for (const char c : digits)
            exponent = exponent * 10 + (c - '0');
        if (down)
            exponent = -exponent;
    }
    const size_t dot = mantissa.find('.');
    std::string digits(mantissa.substr(0, dot));
    if (dot != std::string_view::npos) {
        digits += mantissa.substr(dot + 1);
        exponent -= static_cast<long long>(mantissa.size() - dot - 1);
    }
    const size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos)
        return std::string("0");
    digits.erase(0, first);
    const size_t last = digits.find_last_not_of('0');
    exponent += static_cast<long long>(digits.size() - 1 - last);
    digits.erase(last + 1);
    return (negative ? "-" : "") + digits + 'e' + std::to_string(exponent);
}

// Builds the value of a JSON text for comparing values (nlohmann's SAX
// interface): numbers as their exactNumber (held as binary, which no JSON
// string can be), and of a repeated key in an object the first value, which
// SQLite's json_extract reads and json_set sets.
class ValueBuilder {
public:
    using json = nlohmann::json;
    json root;

    bool null() { return put(nullptr); }
    bool boolean(bool v) { return put(v); }
    bool number_integer(json::number_integer_t v) { return number(std::to_string(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return number(std::to_string(v)); }
    bool number_float(json::number_float_t, const std::string &token) { return number(token); }
    bool string(std::string &v) { return put(std::move(v)); }
    bool binary(json::binary_t &) { return false; }
    bool start_object(std::size_t) { return open(json::object()); }
    bool start_array(std::size_t) { return open(json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(std::string &k) {
        if (m_skipping > 0)
            return true;
        if (m_open.back()->contains(k))
            m_skipNext = true; // a repeated key: its value is left out
        else
            m_key = std::move(k);
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) {
        return false;
    }

private:
    std::vector<json *> m_open; // the containers from the root to the current one
    std::string m_key;
    int m_skipping = 0; // depth inside a left-out value
    bool m_skipNext = false;

    bool number(const std::string &token) {
        const auto exact = exactNumber(token);
        if (!exact)
            return false;
        return put(json::binary(std::vector<std::uint8_t>(exact->begin(), exact->end())));
    }
    json *place(json value) {
        if (m_open.empty()) {
            root = std::move(value);
            return &root;
        }
        json &parent = *m_open.back();
        if (parent.is_array()) {
            parent.push_back(std::move(value));
            return &parent.back();
        }
        return &(parent[m_key] = std::move(value));
    }
    bool put(json value) {
        if (m_skipping > 0)
            return true;
        if (m_skipNext) {
            m_skipNext = false;
            return true;
        }
        place(std::move(value));
        return true;
    }
    bool open(json container) {
        if (m_skipping > 0 || m_skipNext) {
            m_skipNext = false;
            ++m_skipping;
            return true;
        }
        m_open.push_back(place(std::move(container)));
        return true;
    }
    bool close() {
        if (m_skipping > 0)
            --m_skipping;
        else
            m_open.pop_back();
        return true;
    }
};

std::optional<nlohmann::json> jsonValue(std::string_view text) {
    ValueBuilder builder;
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), &builder))
        return std::nullopt;
    return std::move(builder.root);
}

// The text without the spacing between tokens (what SQLite's json() takes
// out; strings are left as they are).
std::string withoutSpacing(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    bool inString = false, escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false; // this character is escaped, a quote too
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            continue;
        } else if (c == '"') {
            inString = true;
        }
        out += c;
    }
    return out;
}

// rewind_json_differ(a, b): 1 when two JSON texts hold different values, as
// PostgreSQL's jsonb compares them: numbers by exact value (1.0 = 1 = 1e0),
// strings after their escapes, objects whatever their key order (of a
// repeated key the first value, which SQLite reads, where jsonb keeps the
// last). NULL differs from anything but NULL. A text the strict parser
// refuses (a number past double's range, a lone surrogate, bytes that are
// not UTF-8 in a string) is compared as json() would write it: spacing aside.
void rewindJsonDiffer(sqlite::sqlite3_context *context, int, sqlite::sqlite3_value **argv) {
    const sqlite::Api &a = sqlite::api();
    const bool nullA = a.valueType(argv[0]) == sqlite::kNull,
               nullB = a.valueType(argv[1]) == sqlite::kNull;
    if (nullA || nullB) {
        a.resultInt64(context, nullA == nullB ? 0 : 1);
        return;
    }
    const auto bytes = [&](sqlite::sqlite3_value *v) {
        const auto *text =
            reinterpret_cast<const char *>(a.valueText(v)); // text first, then its size
        return std::string_view(text ? text : "", static_cast<size_t>(a.valueBytes(v)));
    };
    const std::string_view textA = bytes(argv[0]), textB = bytes(argv[1]);
    if (textA == textB) {
        a.resultInt64(context, 0);
        return;
    }
    const auto valueA = jsonValue(textA), valueB = jsonValue(textB);
    if (!valueA || !valueB) {
        a.resultInt64(context, withoutSpacing(textA) == withoutSpacing(textB) ? 0 : 1);
        return;
    }
    a.resultInt64(context, *valueA == *valueB ? 0 : 1);
}

// md5(text): the hex MD5 of the text's UTF-8 bytes, as PostgreSQL's md5()
// gives it (NULL for NULL). SQL written for PostgreSQL uses it (dbt's
// snapshot ids, for one).
void md5Hex(sqlite::sqlite3_context *context, int, sqlite::sqlite3_value **argv) {
    const sqlite::Api &a = sqlite::api();
    if (a.valueType(argv[0]) == sqlite::kNull) {
        a.resultNull(context);
        return;
    }
    const auto *text = reinterpret_cast<const char *>(a.valueText(argv[0])); // then its size
    const QByteArray hex =
        QCryptographicHash::hash(QByteArrayView(text ? text : "", a.valueBytes(argv[0])),
                                 QCryptographicHash::Md5)
            .toHex();
    a.resultText(context, hex.constData(), int(hex.size()), sqlite::transient());
}

} // namespace

std::span<const sqlite::Function> sqlSqliteFunctions() {
    static constexpr sqlite::Function functions[] = {
        {.name = "rewind_hash", .arguments = -1, .scalar = rewindHash},
        {.name = "rewind_json_differ", .arguments = 2, .scalar = rewindJsonDiffer},
        {.name = "md5", .arguments = 1, .scalar = md5Hex},
    };
    return functions;
}

Status registerSqliteFunctions(QSqlDatabase &connection) {
    for (const SqliteFunctionSet &set : sqliteFunctionSets())
        if (auto registered = sqlite::createFunctions(connection, set()); !registered)
            return registered;
    return {};
}

} // namespace rw
