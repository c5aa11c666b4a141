#include "core/batch/batchdialect.h"

#include <QStringBuilder>
#include <algorithm>

namespace rw {

namespace {

// PostgreSQL 15.
class PostgresBatchDialect final : public BatchDialect {
public:
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
