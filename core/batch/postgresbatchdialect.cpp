#include "core/batch/batchdialect.h"

#include <QRegularExpression>
#include <QStringBuilder>
#include <algorithm>

namespace rw {

namespace {

// A numeric or character type as format_type spells it, placed on the
// ladder widening climbs: integers (by decimal digits), numeric (precision
// and scale; unbounded when bare), floats (by mantissa bits), character
// varying (by length; text and bare varchar unbounded). Other types (dates,
// json, character(n) with its padding) are not on it.
struct Rung {
    enum Family { None, Integer, Numeric, Float, Varchar } family = None;
    int size = 0;  // integer digits, numeric precision, float bits, varchar length
    int scale = 0; // numeric
    bool unbounded = false;
};

Rung rungOf(const QString &type) {
    static const QRegularExpression shape(
        QStringLiteral("^([a-z ]+?)\\s*(?:\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\))?$"));
    const auto m = shape.match(type.simplified().toLower());
    if (!m.hasMatch())
        return {};
    const QString base = m.captured(1);
    const bool sized = m.hasCaptured(2) && !m.captured(2).isEmpty();
    const int n = m.captured(2).toInt();
    if (base == QLatin1String("smallint"))
        return {Rung::Integer, 5};
    if (base == QLatin1String("integer"))
        return {Rung::Integer, 10};
    if (base == QLatin1String("bigint"))
        return {Rung::Integer, 19};
    if (base == QLatin1String("numeric"))
        return {Rung::Numeric, n, m.captured(3).toInt(), !sized};
    if (base == QLatin1String("real"))
        return {Rung::Float, 24};
    if (base == QLatin1String("double precision"))
        return {Rung::Float, 53};
    if (base == QLatin1String("character varying"))
        return {Rung::Varchar, n, 0, !sized};
    if (base == QLatin1String("text") && !sized)
        return {Rung::Varchar, 0, 0, true};
    return {};
}

// Every value of type `a` is a value of type `b`.
bool holds(const Rung &b, const Rung &a) {
    // Decimal digits an integer type takes, mantissa bits a float keeps.
    const auto floatDigits = [](int bits) { return bits == 24 ? 6 : 15; };
    switch (a.family) {
    case Rung::Integer:
        if (b.family == Rung::Integer)
            return a.size <= b.size;
        if (b.family == Rung::Numeric)
            return b.unbounded || b.size - b.scale >= a.size;
        return b.family == Rung::Float && a.size <= floatDigits(b.size);
    case Rung::Numeric:
        return b.family == Rung::Numeric && (b.unbounded || (!a.unbounded && a.scale <= b.scale &&
                                                             a.size - a.scale <= b.size - b.scale));
    case Rung::Float:
        return b.family == Rung::Float && a.size <= b.size;
    case Rung::Varchar:
        return b.family == Rung::Varchar && (b.unbounded || (!a.unbounded && a.size <= b.size));
    case Rung::None:
        break;
    }
    return false;
}

// PostgreSQL 15.
class PostgresBatchDialect final : public BatchDialect {
public:
    // pg_typeof of a column of an empty outer-joined row: its declared type,
    // without a modifier (numeric, not numeric(12,2)).
    QString selectColumnTypes(const QString &select,
                              const QStringList &quotedColumns) const override {
        QStringList types;
        for (const QString &c : quotedColumns)
            types << QStringLiteral("CAST(pg_typeof(s.") % c % QStringLiteral(") AS TEXT)");
        return QStringLiteral("SELECT ") % types.join(u", ") %
               QStringLiteral(" FROM (SELECT 1) AS rewind_one LEFT JOIN (SELECT * FROM (") %
               select % QStringLiteral(") AS x LIMIT 0) AS s ON true");
    }
    // Types that differ beyond their modifier: text against a date, say,
    // which PostgreSQL neither compares nor assigns implicitly.
    bool needsCast(const QString &from, const QString &to) const override {
        static const QRegularExpression modifier(QStringLiteral("\\([0-9, ]*\\)"));
        QString base = to;
        base.remove(modifier);
        return !from.isEmpty() && !to.isEmpty() &&
               from.simplified().compare(base.simplified(), Qt::CaseInsensitive) != 0;
    }
    bool typesHaveWidths() const override { return true; }
    TypeChange typeChange(const QString &from, const QString &to) const override {
        const Rung a = rungOf(from), b = rungOf(to);
        if (a.family == Rung::None || b.family == Rung::None ||
            from.simplified().compare(to.simplified(), Qt::CaseInsensitive) == 0)
            return TypeChange::Same;
        const bool widens = holds(b, a), narrows = holds(a, b);
        if (widens && narrows) // spelled differently, the same values (text, varchar)
            return TypeChange::Same;
        if (widens)
            return TypeChange::Widens;
        if (narrows)
            return TypeChange::Narrows;
        // A string against a number: a cast, as before (raw text read into a
        // typed column).
        if ((a.family == Rung::Varchar) != (b.family == Rung::Varchar))
            return TypeChange::Same;
        return TypeChange::Incompatible;
    }

    // One statement: measured on 19,000 staged rows of a 570,000-row
    // target, about 150 ms against 250 ms for stage then match (one write
    // and one read of the staged rows less).
    bool stagesJoinedToTarget() const override { return true; }
    // Hash joins: on a 95,000-row stage the index took 51 ms to build and
    // the diff and publish that followed took as long with it as without.
    bool indexesStageForJoins() const override { return false; }
    bool createdTableReportsRows() const override { return true; }
    bool swapsPartitions() const override { return true; }
    // Measured on a 100,000-row partition (95,000 keys): 75-100 ms against
    // 175-185 ms for ROW_NUMBER() in a window, the same rows chosen.
    QString latestPerKey(const QString &outer, const QString &inner, const QStringList &partitionBy,
                         const QStringList &orderBy, const QString &from) const override {
        return QStringLiteral("SELECT ") % outer % QStringLiteral(" FROM (SELECT DISTINCT ON (") %
               partitionBy.join(u", ") % QStringLiteral(") ") % inner % QStringLiteral(" FROM (") %
               from % QStringLiteral(") AS s ORDER BY ") % (partitionBy + orderBy).join(u", ") %
               QStringLiteral(") AS ranked");
    }
    // IS NOT DISTINCT FROM is no operator: PostgreSQL can neither hash nor
    // merge join on it, so a diff would compare every staged row with every
    // target row. COALESCE(a, x) = COALESCE(b, x) is an equality it hashes;
    // the second term keeps a NULL apart from a real x, so any x of the
    // column's type will do.
    QString nullSafeKeyEqual(const QString &a, const QString &b,
                             const QString &type) const override {
        const QString t = type.toLower();
        QString x;
        if (t.startsWith(QLatin1String("integer")) || t.startsWith(QLatin1String("bigint")) ||
            t.startsWith(QLatin1String("smallint")) || t.startsWith(QLatin1String("numeric")) ||
            t.startsWith(QLatin1String("real")) || t.startsWith(QLatin1String("double")))
            x = QStringLiteral("0");
        else if (t == QLatin1String("text") || t.startsWith(QLatin1String("character")))
            x = QStringLiteral("''");
        else if (t == QLatin1String("date") || t.startsWith(QLatin1String("timestamp")))
            x = QStringLiteral("CAST('1970-01-01' AS ") % type % u')';
        else if (t == QLatin1String("boolean"))
            x = QStringLiteral("false");
        else
            return a % QStringLiteral(" IS NOT DISTINCT FROM ") % b;
        return QStringLiteral("(COALESCE(") % a % QStringLiteral(", ") % x %
               QStringLiteral(") = COALESCE(") % b % QStringLiteral(", ") % x %
               QStringLiteral(") AND (") % a % QStringLiteral(" IS NULL) = (") % b %
               QStringLiteral(" IS NULL))");
    }
    QString rowIdentity(const QString &alias) const override {
        return alias.isEmpty() ? QStringLiteral("ctid") : alias % QStringLiteral(".ctid");
    }
    // Measured at 10M rows, 189,999 changed rows of a day (each on a fresh
    // copy, alternating): 1,110-1,159 ms hashed against 1,280-1,362 ms for
    // the same UPDATE joined by key; a TID scan per row was slower than both.
    // RESET: back to the session's own value (a connection's ?options= too).
    std::pair<QString, QString> aroundHashedIdentityJoin() const override {
        return {QStringLiteral("SET LOCAL enable_tidscan = off"),
                QStringLiteral("RESET enable_tidscan")};
    }
    // PostgreSQL multiplies the columns' distinct counts, capped at a tenth
    // of the rows: at 10,000 days of 95 keys it estimated 95,001 groups for
    // 950,000, hashed them at Rewind's 64 MB work_mem and spilled (1.0 s),
    // where the server's default 4 MB chose the (partition, key) index in
    // order (0.3 s). Without such an index, sorting took what hashing did
    // (0.91 s against 1.0 s). Hashing is off for the statement only.
    std::pair<QString, QString> aroundKeyGrouping() const override {
        return {QStringLiteral("SET enable_hashagg = off"), QStringLiteral("RESET enable_hashagg")};
    }
    // The text form, an untyped literal the column's type reads back exactly
    // (a date, timestamp or numeric read into C++ would come back converted:
    // a timestamp into local time, a numeric into a double).
    // The type is known only to the engine (a transform's column, a cast
    // to the target's type), so the label picks its form by pg_typeof; each
    // branch reads the value through its text form, which every type has,
    // so the CASE compiles whatever the column's type. to_json writes an
    // instant in ISO-8601 (T, fractions only when there are any); AT TIME
    // ZONE 'UTC' makes it independent of the session's zone. The types by
    // their fixed OIDs (timestamptz 1184, timestamp 1114): a
    // CAST('...' AS regtype) is looked up again for every group (about
    // 1.5 us each, measured on 150,000 groups; the OIDs cost 0.4 us).
    // A timestamp without time zone (or text without an offset) is read as
    // UTC: Rewind's sessions run in UTC.
    QString timeGrain(const QString &expr, const QString &grain) const override {
        const QString format = grain == QLatin1String("hour")
                                   ? QStringLiteral("YYYY-MM-DD\"T\"HH24\":00:00Z\"")
                               : grain == QLatin1String("month") ? QStringLiteral("YYYY-MM-01")
                                                                 : QStringLiteral("YYYY-MM-DD");
        return QStringLiteral("to_char(CAST(") % expr %
               QStringLiteral(" AS TIMESTAMP WITH TIME ZONE) AT TIME ZONE 'UTC', '") % format %
               QStringLiteral("')");
    }
    QString partitionText(const QString &expr) const override {
        const QString text = QStringLiteral("CAST(") % expr % QStringLiteral(" AS TEXT)");
        return QStringLiteral("CASE CAST(pg_typeof(") % expr %
               QStringLiteral(") AS oid) WHEN 1184 THEN (to_json(CAST(") % text %
               QStringLiteral(" AS TIMESTAMP WITH TIME ZONE) AT TIME ZONE 'UTC') #>> '{}') || CASE "
                              "WHEN isfinite(CAST(") %
               text %
               QStringLiteral(" AS TIMESTAMP WITH TIME ZONE)) THEN 'Z' ELSE '' END "
                              "WHEN 1114 THEN to_json(CAST(") %
               text % QStringLiteral(" AS TIMESTAMP WITHOUT TIME ZONE)) #>> '{}' ELSE ") % text %
               QStringLiteral(" END");
    }
    // The label is bound as an untyped literal, which the column's type
    // reads exactly (ISO-8601 into a timestamptz included).
    QVariant partitionBind(const QVariant &, const QString &text) const override { return text; }
    // hashtext of the row's text form: NULL and '' differ ("(,)" against
    // "(\"\")"), and the result is a 32-bit integer, as on SQLite.
    QString rowHash(const QStringList &quotedExpressions) const override {
        return QStringLiteral("CAST(hashtext(CAST(ROW(") % quotedExpressions.join(u", ") %
               QStringLiteral(", 0) AS TEXT)) AS BIGINT)");
    }
    // hash_record of the row, when every column's type (by OID) has a hash
    // function: the binary values are hashed, no text form of every number
    // and date is built (about half the time of hashtext's on 20,000 rows).
    // NULL and '' still differ (a NULL field adds 0, '' its hash); a value
    // change the type's own equality calls equal (numeric 1.0 and 1.00)
    // keeps the hash, as the diff's IS NOT DISTINCT FROM does. Types
    // without a hash function (json, point, xml, ...) or unknown ones keep
    // the text form.
    QString rowHash(const QStringList &quotedExpressions,
                    const QList<int> &nativeTypes) const override {
        // bool, bytea, char, name, int8, int2, int4, text, oid, float4, float8,
        // bpchar, varchar, date, time, timestamp, timestamptz, interval, timetz,
        // numeric, uuid, jsonb.
        static const QList<int> hashable{16,   17,   18,   19,   20,   21,   23,   25,
                                         26,   700,  701,  1042, 1043, 1082, 1083, 1114,
                                         1184, 1186, 1266, 1700, 2950, 3802};
        if (nativeTypes.size() != quotedExpressions.size() ||
            !std::all_of(nativeTypes.begin(), nativeTypes.end(),
                         [](int t) { return hashable.contains(t); }))
            return rowHash(quotedExpressions);
        return QStringLiteral("CAST(hash_record(ROW(") % quotedExpressions.join(u", ") %
               QStringLiteral(", 0)) AS BIGINT)");
    }
};

} // namespace

const BatchDialect &postgresBatchDialect() {
    static const PostgresBatchDialect dialect;
    return dialect;
}

} // namespace rw
