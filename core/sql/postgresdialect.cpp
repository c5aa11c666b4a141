#include "core/sql/sqldialect.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QStringBuilder>
#include <QStringDecoder>
#include <algorithm>
#include <nlohmann/json.hpp>

namespace rw {

namespace {

// PostgreSQL 15. The control tables live in the schema `rewind`, which the
// session's search path lists after the user's own schemas: unqualified
// control-table names resolve there, unqualified user tables (and tables
// Rewind creates for the user, like replay sinks) resolve as they would in
// psql. Temporary tables live in pg_temp, searched first as always.

class PostgresDialect final : public SqlDialect {
public:
    Kind kind() const override { return Kind::Postgres; }
    QString name() const override { return QStringLiteral("postgresql"); }
    QString driverName() const override { return QStringLiteral("QPSQL"); }

    // The server cannot call into this process: TimeJson::epochMs, dlqSignature and
    // the PL/pgSQL helpers do that work in SQL.
    bool inProcessFunctions() const override { return false; }

    QStringList sessionSetup() const override {
        return {
            QStringLiteral("SET search_path = \"$user\", public, rewind"),
            QStringLiteral("SET client_min_messages = warning"),
            QStringLiteral("SET TIME ZONE 'UTC'"),
            // Stages, dedupes and diffs sort and hash a partition's rows: at
            // the server's default 4 MB they spill to disk (100k rows: the
            // stage 139 ms against 90 ms at 64 MB, the diff 260-330 ms against
            // 177 ms). Raised for Rewind's own sessions only, and only over the
            // default or the server's file: a role's, a database's or a
            // connection option's value stays.
            QStringLiteral("SELECT set_config('work_mem', '64MB', false) FROM pg_settings WHERE "
                           "name = 'work_mem' "
                           "AND source IN ('default', 'configuration file') AND "
                           "pg_size_bytes(current_setting('work_mem')) < pg_size_bytes('64MB')")};
    }
    // Writers are serialised, as on SQLite, by one transaction-scoped
    // advisory lock taken first: the checks a run makes inside its
    // transaction (is another run of this dataset live?) then see every
    // committed writer. Readers never wait (MVCC, READ COMMITTED).
    QString beginWrite() const override {
        return QStringLiteral("BEGIN ISOLATION LEVEL READ COMMITTED");
    }
    QStringList afterBeginWrite() const override {
        // rewind.writer: Rewind's own write, let through a frozen target's
        // trigger (controlschema step 13).
        return {QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(kWriterLock),
                QStringLiteral("SET LOCAL rewind.writer = 'on'")};
    }
    QStringList controlSchemaSetup() const override {
        // Created only when missing: CREATE SCHEMA IF NOT EXISTS would ask
        // for CREATE on the database even when the schema is there.
        return {QStringLiteral("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname "
                               "= 'rewind') THEN CREATE SCHEMA rewind; END IF; END $$"),
                QStringLiteral("SET LOCAL search_path = rewind")};
    }

    // User relations: visible ones (through the search path) by their bare
    // name, the others as schema.name. Not the partitions of a partitioned
    // table (a warehouse may hold thousands: 3,650 made the listing 32 ms
    // instead of 1): a spec naming one is checked by name (findRelation).
    QString listRelations() const override {
        return QStringLiteral("SELECT CASE WHEN pg_table_is_visible(c.oid) THEN c.relname ELSE "
                              "n.nspname || '.' || c.relname END "
                              "FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
                              "WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT "
                              "c.relispartition AND n.nspname NOT IN "
                              "('pg_catalog', 'information_schema') "
                              "AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE "
                              "'pg\\_temp\\_%' ORDER BY 1");
    }
    QString listColumns() const override {
        return QStringLiteral("SELECT a.attname, format_type(a.atttypid, a.atttypmod), 0, CASE "
                              "WHEN a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '' "
                              "THEN 1 ELSE 0 END FROM pg_attribute AS a WHERE a.attrelid = (") %
               relationOid() %
               QStringLiteral(") AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum");
    }
    QString findRelation() const override { return relationOid(); }
    QString visibleRelationNamed() const override {
        return QStringLiteral("SELECT 1 FROM pg_class AS c WHERE c.relname = CAST(? AS TEXT) AND "
                              "c.relkind IN ") %
               relationKinds() % QStringLiteral(" AND pg_table_is_visible(c.oid)");
    }
    // An unqualified name is created in current_schema(): the first schema
    // of the search path that exists (NULL when none does). CREATE on the
    // schema is what CREATE TABLE needs (PostgreSQL 15 no longer grants it
    // on public to every role).
    QString schemaForNewTable() const override {
        return QStringLiteral("SELECT r.s, CASE WHEN n.oid IS NULL THEN 0 ELSE 1 END, "
                              "CASE WHEN n.oid IS NOT NULL AND has_schema_privilege(n.oid, "
                              "'CREATE') THEN 1 ELSE 0 END "
                              "FROM (SELECT COALESCE(CAST(? AS TEXT), current_schema()) AS s) AS r "
                              "LEFT JOIN pg_namespace AS n ON n.nspname = r.s");
    }
    QString listIndexColumns() const override {
        return QStringLiteral(
                   "SELECT i.relname, k.n - 1, a.attname FROM pg_index AS x JOIN pg_class AS i ON "
                   "i.oid = x.indexrelid "
                   "CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) "
                   "JOIN pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = k.attnum "
                   "WHERE x.indrelid = (") %
               relationOid() % QStringLiteral(") ORDER BY i.relname, k.n");
    }

    QString autoIdColumn() const override {
        return QStringLiteral("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY");
    }
    // Payloads: a PostgreSQL source holds them as text (which is valid
    // UTF-8 by construction), and the JSON functions read text.
    QString blobType() const override { return QStringLiteral("TEXT"); }
    QString bigintType() const override { return QStringLiteral("BIGINT"); }
    QString doubleType() const override { return QStringLiteral("DOUBLE PRECISION"); }

    QString nullSafeEqual(const QString &a, const QString &b) const override {
        return a % QStringLiteral(" IS NOT DISTINCT FROM ") % b;
    }
    QString castText(const QString &expr) const override {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS TEXT)");
    }
    // The driver hands a timestamptz over in the process's local time and a
    // timestamp as its wall time, both as local QDateTimes: tell them apart
    // by the column's type oid, so an instant shows in UTC with its Z.
    QJsonValue jsonValue(const QSqlField &field) const override {
        constexpr int kTimestamptzOid = 1184;
        if (field.typeID() == kTimestamptzOid && !field.isNull() &&
            field.value().typeId() == QMetaType::QDateTime) {
            const QDateTime t = field.value().toDateTime().toUTC();
            return t.toString(t.time().msec() ? Qt::ISODateWithMs : Qt::ISODate);
        }
        return SqlDialect::jsonValue(field);
    }
    QString dropTempTable(const QString &name) const override {
        return QStringLiteral("DROP TABLE IF EXISTS pg_temp.") % quote(name);
    }
    QString createTempIndex(const QString &index, const QString &table,
                            const QStringList &columns) const override {
        QStringList cols;
        for (const auto &c : columns)
            cols << quote(c);
        return QStringLiteral("CREATE INDEX ") % quote(index) % QStringLiteral(" ON pg_temp.") %
               quote(table) % QStringLiteral(" (") % cols.join(u", ") % u')';
    }
    // rewind.epoch_ms, one per kind of column a timestamp comes in. Text
    // reads as SQLite's rewind_epoch_ms does: epoch seconds (at most 13
    // integer digits, fraction to the millisecond), or an ISO-8601 date and
    // time (no zone: UTC), else NULL; the cast of a text that merely looks
    // like a date (2025-02-30) fails inside its own block and gives NULL.
    // That block is a subtransaction, which a parallel worker cannot start:
    // the text form is not PARALLEL SAFE (the others are).
    QStringList controlFunctions() const override {
        // Years 0000 to 9999 only, as on SQLite: epoch milliseconds among
        // epoch seconds land outside and read as unparseable.
        const QString inRange =
            QStringLiteral("CASE WHEN ms BETWEEN -62167219200000 AND 253402300799999 THEN ms END");
        auto fromNumber = [&](const QString &type) -> QString {
            return QStringLiteral("CREATE OR REPLACE FUNCTION rewind.epoch_ms(v ") % type %
                   QStringLiteral(
                       ") RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$ SELECT ") %
                   inRange %
                   QStringLiteral(
                       " FROM (SELECT CASE WHEN abs(v) < 1e13 THEN CAST(trunc(CAST(CAST(v AS text) "
                       "AS numeric) * 1000) AS bigint) END AS ms) AS x $f$");
        };
        return {
            // ISO text as the C++ parser reads it: the pattern admits hours
            // 00-23, minutes and seconds 00-59 and offsets to +-15:59 (so
            // timestamptz never rolls 24:00 or a leap second over); digits
            // past the millisecond are dropped before the cast (it would
            // round them to the microsecond). The cast refuses what the
            // pattern cannot (2025-02-30, year 0000).
            QStringLiteral(
                R"sql(CREATE OR REPLACE FUNCTION rewind.epoch_ms(v text) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE t text := btrim(v, E' \t\n\r\f\v'); ms bigint;
BEGIN
  IF t IS NULL OR t = '' THEN RETURN NULL; END IF;
  IF t ~ '^-?[0-9]{1,13}(\.[0-9]+)?$' THEN
    ms := CAST(trunc(CAST(t AS numeric) * 1000) AS bigint);
  ELSIF t ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9]([.,][0-9]+)?)?)?[ \t\n\r\f\v]*([Zz]|[+-](0[0-9]|1[0-5])(:?[0-5][0-9])?)?$' THEN
    IF substr(t, 20, 1) IN ('.', ',') AND length(t) >= 24 AND translate(substr(t, 21, 4), '0123456789', '') = '' THEN
      t := left(t, 23) || regexp_replace(substr(t, 24), '^[0-9]+', '');
    END IF;
    BEGIN
      ms := CAST(floor(extract(epoch FROM CAST(replace(t, ',', '.') AS timestamptz)) * 1000) AS bigint);
    EXCEPTION WHEN others THEN RETURN NULL;
    END;
  ELSE
    RETURN NULL;
  END IF;
  RETURN )sql") %
                inRange % QStringLiteral(R"sql(;
END $f$)sql"),
            fromNumber(QStringLiteral("numeric")),
            fromNumber(QStringLiteral("double precision")),
            QStringLiteral("CREATE OR REPLACE FUNCTION rewind.epoch_ms(v timestamptz) RETURNS "
                           "bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE "
                           "AS $f$ SELECT CAST(floor(extract(epoch FROM v) * 1000) AS bigint) $f$"),
            QStringLiteral("CREATE OR REPLACE FUNCTION rewind.epoch_ms(v timestamp) RETURNS bigint "
                           "LANGUAGE sql IMMUTABLE PARALLEL SAFE "
                           "AS $f$ SELECT CAST(floor(extract(epoch FROM v AT TIME ZONE 'UTC') * "
                           "1000) AS bigint) $f$"),
        };
    }
    // errorSignature() step by step with the same patterns (\b spelled as the
    // ASCII word-character lookarounds it means there, \d as [0-9]), each
    // replaced everywhere, then simplified(): QChar::isSpace runs become one
    // space, trimmed.
    QString dlqSignature(const QString &errorClass, const QString &error) const override {
        return errorClass %
               QStringLiteral(
                   R"sql( || ': ' || btrim(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace()sql") %
               error %
               QStringLiteral(
                   R"sql(, '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', '<id>', 'g'))sql"
                   R"sql(, '''[^'']*''', '''<v>''', 'g'))sql"
                   R"sql(, '(?<![A-Za-z0-9_])(?:0x[0-9a-fA-F]+|(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,})(?![A-Za-z0-9_])', '<id>', 'g'))sql"
                   R"sql(, '(?<![A-Za-z_0-9.])[-+]?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?', '<n>', 'g'))sql"
                   R"sql(, '[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+', ' ', 'g'), ' '))sql");
    }

private:
    static constexpr qint64 kWriterLock = 7305467101; // "rewind" writers
    // The oid of the relation named by the bound parameter: a visible bare
    // name, or schema.name.
    static QString relationKinds() { return QStringLiteral("('r', 'v', 'm', 'p', 'f')"); }
    // The user table or view a name means: a visible one of that name, else
    // schema.relation.
    static QString relationOid() {
        return QStringLiteral("SELECT c.oid FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = "
                              "c.relnamespace, "
                              "(SELECT CAST(? AS TEXT) AS name) AS r WHERE c.relkind IN ") %
               relationKinds() %
               QStringLiteral(" AND ((c.relname = r.name AND pg_table_is_visible(c.oid)) "
                              "OR n.nspname || '.' || c.relname = r.name) ORDER BY "
                              "pg_table_is_visible(c.oid) DESC LIMIT 1");
    }

public:
    // Streams (the rest: core/streams/postgresstreamsdialect.cpp)
    QStringList valueFitsSetup() const override { return {fitsFunction()}; }
    // valueFitsType()'s cast attempt: whether the text `v` casts to the type
    // named `t` (a catalog type name, as listColumns gives it). Only data
    // exceptions (bad syntax, out of range, overflow) and a domain's CHECK
    // mean "does not fit": anything else, like an unknown type, still fails
    // the statement.
    static QString fitsFunction() {
        return QStringLiteral(
            "CREATE OR REPLACE FUNCTION pg_temp.rewind_fits(v text, t text) RETURNS boolean "
            "LANGUAGE plpgsql STABLE AS $rw$ "
            "BEGIN IF v IS NULL THEN RETURN true; END IF; EXECUTE 'SELECT CAST($1 AS ' || t || ')' "
            "USING v; RETURN true; "
            "EXCEPTION WHEN data_exception OR check_violation THEN RETURN false; END $rw$");
    }
    // The text fits a character(n) column when what is past n is blanks
    // (which the assignment drops). Any other type that sinkValue() casts
    // to: the cast is tried by rewind_fits (valueFitsSetup()) in its own
    // exception block, after a pattern that only values of that type match
    // has let the common ones through without it (a subtransaction each).
    QString valueFitsType(const QString &v, const QString &type, bool) const override {
        const QString t = type.toLower().simplified();
        static const QRegularExpression sized(
            QStringLiteral("^(character varying|character|varchar|char|bpchar)\\(([0-9]+)\\)$"));
        if (const auto m = sized.match(t); m.hasMatch())
            return QStringLiteral("(") % v % QStringLiteral(" IS NULL OR char_length(rtrim(") % v %
                   QStringLiteral(", ' ')) <= ") % m.captured(2) % u')';
        if (t.isEmpty() || t == QLatin1String("text") || t.startsWith(QLatin1String("character")))
            return QString();
        if (t == QLatin1String("boolean")) // JSON's true and false, without a pattern
            return QStringLiteral("(CASE WHEN ") % v % QStringLiteral(" IS NULL OR ") % v %
                   QStringLiteral(" IN ('true', 'false') THEN true ELSE pg_temp.rewind_fits(") % v %
                   QStringLiteral(", 'boolean') END)");
        // A pattern every match of which the cast reads, with a length limit
        // (PostgreSQL's regular expressions are slow with bounded repeats:
        // digits are counted apart).
        QString sure, limit;
        const QString digits = QStringLiteral("char_length(split_part(ltrim(") % v %
                               QStringLiteral(", '-'), '.', 1)) <= ");
        const QString numberPattern = QStringLiteral("^-?[0-9]+(\\.[0-9]+)?$");
        if (t == QLatin1String("smallint") || t == QLatin1String("integer") ||
            t == QLatin1String("bigint")) {
            sure = QStringLiteral("^-?[0-9]+$");
            limit = digits % QString::number(t == QLatin1String("smallint")  ? 4
                                             : t == QLatin1String("integer") ? 9
                                                                             : 18);
        } else if (t == QLatin1String("numeric")) {
            sure = numberPattern; // numeric reads 131072 digits before the point, 16383 after
            limit = QStringLiteral("char_length(") % v % QStringLiteral(") <= 16000");
        } else if (t == QLatin1String("real") || t == QLatin1String("double precision")) {
            sure = numberPattern; // 30 characters stay within real's range and above its smallest
                                  // value
            limit = QStringLiteral("char_length(") % v % QStringLiteral(") <= 30");
        } else if (t == QLatin1String("date") || t.startsWith(QLatin1String("timestamp")))
            // Days up to 28: every month has them.
            sure = QStringLiteral("^[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])"
                                  "([T "
                                  "]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|["
                                  "+-](0[0-9]|1[0-5])(:[0-5][0-9])?)?)?$");
        else {
            // numeric(p,s): at most p-s-1 integer digits stay within p-s after rounding to s
            // places.
            static const QRegularExpression numeric(
                QStringLiteral("^numeric\\(([0-9]+),(-?[0-9]+)\\)$"));
            if (const auto m = numeric.match(t); m.hasMatch()) {
                const int integerDigits = m.captured(1).toInt() - m.captured(2).toInt() - 1;
                if (integerDigits >= 1) {
                    sure = numberPattern;
                    limit = digits % QString::number(integerDigits) %
                            QStringLiteral(" AND char_length(") % v % QStringLiteral(") <= 16000");
                }
            }
        }
        QString literal = type;
        literal.replace(u'\'', QStringLiteral("''"));
        return QStringLiteral("(CASE WHEN ") % v % QStringLiteral(" IS NULL THEN true ") %
               (sure.isEmpty()
                    ? QString()
                    : QString(
                          QStringLiteral("WHEN ") % v % QStringLiteral(" ~ '") % sure % u'\'' %
                          (limit.isEmpty() ? QString() : QString(QStringLiteral(" AND ") % limit)) %
                          QStringLiteral(" THEN true "))) %
               QStringLiteral("ELSE pg_temp.rewind_fits(") % v % QStringLiteral(", '") % literal %
               QStringLiteral("') END)");
    }
};

} // namespace

std::shared_ptr<const SqlDialect> makePostgresDialect() {
    return std::make_shared<PostgresDialect>();
}

} // namespace rw
