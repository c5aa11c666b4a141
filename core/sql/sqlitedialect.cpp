#include "core/sql/sqldialect.h"

#include <QRegularExpression>
#include <QStringBuilder>

namespace rw {

namespace {

class SqliteDialect final : public SqlDialect {
public:
    Kind kind() const override { return Kind::Sqlite; }
    QString name() const override { return QStringLiteral("sqlite"); }
    QString driverName() const override { return QStringLiteral("QSQLITE"); }

    // sqlite3_create_function: the lateness aggregate is a hash map in C++,
    // one pass and no sort.
    bool inProcessFunctions() const override { return true; }
    QStringList sessionSetup() const override {
        return {
            QStringLiteral("PRAGMA journal_mode=WAL"), QStringLiteral("PRAGMA synchronous=NORMAL"),
            QStringLiteral("PRAGMA foreign_keys=ON"), QStringLiteral("PRAGMA temp_store=MEMORY")};
    }
    QString beginWrite() const override { return QStringLiteral("BEGIN IMMEDIATE"); }

    QString listRelations() const override {
        return QStringLiteral("SELECT name FROM sqlite_schema WHERE type IN ('table','view') "
                              "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
    }
    QString listColumns() const override {
        // pragma_table_info resolves the name as a query would (temp first).
        return QStringLiteral(
            "SELECT c.name, c.type, coalesce((SELECT t.strict FROM pragma_table_list(r.n) AS t "
            "ORDER BY t.schema = 'temp' DESC, t.schema = 'main' DESC LIMIT 1), 0), "
            "c.dflt_value IS NOT NULL "
            "FROM (SELECT ? AS n) AS r, pragma_table_info(r.n) AS c ORDER BY c.cid");
    }
    QString findRelation() const override {
        return QStringLiteral(
            "SELECT 1 FROM sqlite_schema WHERE type IN ('table','view') AND name = ? "
            "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
    }

    QString listIndexColumns() const override {
        return QStringLiteral("SELECT il.name, ii.seqno, ii.name FROM pragma_index_list(?) AS il "
                              "JOIN pragma_index_info(il.name) AS ii ORDER BY il.name, ii.seqno");
    }

    QString autoIdColumn() const override {
        return QStringLiteral("INTEGER PRIMARY KEY AUTOINCREMENT");
    }
    QString blobType() const override { return QStringLiteral("BLOB"); }
    QString bigintType() const override { return QStringLiteral("INTEGER"); }
    QString doubleType() const override { return QStringLiteral("REAL"); }

    QString nullSafeEqual(const QString &a, const QString &b) const override {
        return a % QStringLiteral(" IS ") % b;
    }
    QString castText(const QString &expr) const override {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS TEXT)");
    }
    QString dropTempTable(const QString &name) const override {
        return QStringLiteral("DROP TABLE IF EXISTS temp.") % quote(name);
    }
    QString createTempIndex(const QString &index, const QString &table,
                            const QStringList &columns) const override {
        QStringList cols;
        for (const auto &c : columns)
            cols << quote(c);
        return QStringLiteral("CREATE INDEX temp.") % quote(index) % QStringLiteral(" ON ") %
               quote(table) % QStringLiteral(" (") % cols.join(u", ") % u')';
    }
    QString dlqSignature(const QString &errorClass, const QString &error) const override {
        return QStringLiteral("rewind_dlq_signature(") % errorClass % QStringLiteral(", ") % error %
               u')';
    }

    // Streams (the rest: core/streams/sqlitestreamsdialect.cpp)
    // An ordinary table's columns whose declared type names a number: SQLite
    // would keep a text that is not a number as text there. Dates, booleans
    // and other names store anything and cannot be checked.
    QString valueFitsType(const QString &v, const QString &type, bool strict) const override {
        if (strict) { // a STRICT table's types: INT, INTEGER, REAL, TEXT, BLOB, ANY
            const QString t = type.trimmed().toUpper();
            if (t == QLatin1String("INT") || t == QLatin1String("INTEGER"))
                return integerFits(v);
            if (t == QLatin1String("REAL"))
                return numberFits(v);
            if (t == QLatin1String("BLOB"))
                return u'(' % v % QStringLiteral(" IS NULL OR typeof(") % v %
                       QStringLiteral(") = 'blob')");
            return QString(); // TEXT takes every value JSON gives, ANY anything
        }
        static const QRegularExpression numericName(
            QStringLiteral("^\\s*(((UNSIGNED\\s+)?(TINY|SMALL|MEDIUM|BIG)?\\s*INT(EGER)?[248]?)|"
                           "REAL|FLOAT[48]?|DOUBLE(\\s+PRECISION)?"
                           "|NUMERIC|DECIMAL|NUMBER)\\s*(\\(.*\\))?\\s*$"),
            QRegularExpression::CaseInsensitiveOption);
        if (!numericName.match(type).hasMatch())
            return QString();
        return numberFits(v);
    }
    // The text `v` is a number as SQLite's numeric affinity reads it: blanks
    // around, a sign, digits with at most one point, an exponent.
    static QString numericText(const QString &v) {
        const QString t =
            QStringLiteral("trim(") % v % QStringLiteral(", ' ' || char(9, 10, 11, 12, 13))");
        const QString s = QStringLiteral("(CASE WHEN substr(") % t %
                          QStringLiteral(", 1, 1) IN ('+', '-') THEN substr(") % t %
                          QStringLiteral(", 2) ELSE ") % t % QStringLiteral(" END)");
        const QString e = QStringLiteral("instr(upper(") % s % QStringLiteral("), 'E')");
        const QString m = QStringLiteral("(CASE WHEN ") % e % QStringLiteral(" > 0 THEN substr(") %
                          s % QStringLiteral(", 1, ") % e % QStringLiteral(" - 1) ELSE ") % s %
                          QStringLiteral(" END)");
        const QString x = QStringLiteral("(CASE WHEN ") % e % QStringLiteral(" > 0 THEN substr(") %
                          s % QStringLiteral(", ") % e % QStringLiteral(" + 1) ELSE '0' END)");
        return QStringLiteral("(instr(") % v % QStringLiteral(", char(0)) = 0 AND ") % m %
               QStringLiteral(" GLOB '*[0-9]*' AND ") % m %
               QStringLiteral(" NOT GLOB '*[^0-9.]*' AND ") % m %
               QStringLiteral(" NOT GLOB '*.*.*' AND (") % x %
               QStringLiteral(" GLOB '[0-9]*' OR ") % x %
               QStringLiteral(" GLOB '[+-][0-9]*') AND substr(") % x %
               QStringLiteral(", 2) NOT GLOB '*[^0-9]*')");
    }
    // Any value but text that is not a number.
    static QString numberFits(const QString &v) {
        return QStringLiteral("(CASE WHEN typeof(") % v %
               QStringLiteral(") <> 'text' THEN 1 WHEN ") % numericText(v) %
               QStringLiteral(" THEN 1 ELSE 0 END = 1)");
    }
    // What a STRICT INTEGER column keeps: an integer, or a real or numeric
    // text whose value is a 64-bit integer (3.0, '1e3'; not 1.5 or 2^63).
    // CAST AS NUMERIC reads text as affinity does; its real results are
    // checked for a whole value strictly inside the 64-bit range, as SQLite
    // converts them.
    static QString integerFits(const QString &v) {
        const QString n = QStringLiteral("CAST(") % v % QStringLiteral(" AS NUMERIC)");
        return QStringLiteral("(CASE WHEN typeof(") % v %
               QStringLiteral(") IN ('integer', 'null') THEN 1 WHEN typeof(") % v %
               QStringLiteral(") = 'real' OR (typeof(") % v % QStringLiteral(") = 'text' AND ") %
               numericText(v) % QStringLiteral(") THEN typeof(") % n %
               QStringLiteral(") = 'integer' OR (") % n % QStringLiteral(" = CAST(") % n %
               QStringLiteral(" AS INTEGER) AND ") % n %
               QStringLiteral(" > -9.223372036854775808e18 AND ") % n %
               QStringLiteral(" < 9.223372036854775808e18) ELSE 0 END = 1)");
    }
};

} // namespace

std::shared_ptr<const SqlDialect> makeSqliteDialect() {
    return std::make_shared<SqliteDialect>();
}

} // namespace rw
