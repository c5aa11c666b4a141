#include "core/sql/sqldialect.h"
#include "core/sql/trinodriver.h"

#include <QStringBuilder>

namespace rw {

namespace {

// Trino over Apache Iceberg tables (its iceberg connector): the session's
// catalog and schema are the URL's (trino://user@host:port/catalog/schema),
// unqualified names resolve in that schema. Trino has no temporary tables,
// no indexes and no transaction that spans two writes of an Iceberg table:
// Rewind's control tables live in a transactional store of their own (the
// spec's "control_db"), never in Trino.
class TrinoDialect final : public SqlDialect {
public:
    Kind kind() const override { return Kind::Trino; }
    QString name() const override { return QStringLiteral("trino"); }
    QString driverName() const override { return QString::fromLatin1(kTrinoDriver); }
    bool inProcessFunctions() const override { return false; }
    bool keepsControlApart() const override { return true; }
    QStringList sessionSetup() const override { return {}; }
    // Trino commits each statement on its own (Iceberg: one snapshot per
    // statement); a write's atomicity is that of its one statement.
    QString beginWrite() const override { return QStringLiteral("START TRANSACTION"); }

    // The session schema's tables and views (information_schema of the
    // session's catalog).
    QString listRelations() const override {
        return QStringLiteral("SELECT table_name AS name FROM information_schema.tables WHERE "
                              "table_schema = current_schema ORDER BY table_name");
    }
    QString listColumns() const override {
        return QStringLiteral("SELECT column_name AS name, data_type AS type, 0 AS strict, 0 AS "
                              "filled FROM information_schema.columns WHERE table_schema = "
                              "current_schema AND table_name = ? ORDER BY ordinal_position");
    }
    QString findRelation() const override {
        return QStringLiteral("SELECT 1 FROM information_schema.tables WHERE table_schema = "
                              "current_schema AND table_name = ?");
    }
    // Iceberg keeps no indexes: none to list.
    QString listIndexColumns() const override {
        return QStringLiteral("SELECT CAST(NULL AS VARCHAR) AS \"index\", 0 AS position, "
                              "CAST(NULL AS VARCHAR) AS \"column\" FROM (VALUES 1) AS v (x) "
                              "WHERE x = 0 AND CAST(? AS VARCHAR) IS NOT NULL");
    }

    QString autoIdColumn() const override { return QStringLiteral("BIGINT"); }
    QString blobType() const override { return QStringLiteral("VARBINARY"); }
    QString bigintType() const override { return QStringLiteral("BIGINT"); }
    QString doubleType() const override { return QStringLiteral("DOUBLE"); }

    QString nullSafeEqual(const QString &a, const QString &b) const override {
        return a % QStringLiteral(" IS NOT DISTINCT FROM ") % b;
    }
    QString castText(const QString &expr) const override {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS VARCHAR)");
    }
    // No temporary tables: work tables are tables of the session's scratch
    // schema, which the driver names for each connection in place of
    // kTrinoSessionSchema, creates on first use and drops with the session.
    QString workTable(const QString &name) const override {
        return quote(QString::fromLatin1(kTrinoSessionSchema)) % u'.' % quote(name);
    }
    QString createWorkTableAs(const QString &name) const override {
        return QStringLiteral("CREATE TABLE ") % workTable(name) % QStringLiteral(" AS ");
    }
    QString dropTempTable(const QString &name) const override {
        return QStringLiteral("DROP TABLE IF EXISTS ") % workTable(name);
    }
    // Nothing to index: a statement that does nothing, so callers need no case.
    QString createTempIndex(const QString &, const QString &, const QStringList &) const override {
        return QStringLiteral("SELECT 1 WHERE 1 = 0");
    }

    // errorSignature() in SQL, as on PostgreSQL (Trino's regexp_replace is
    // Java's: the same patterns).
    QString dlqSignature(const QString &errorClass, const QString &error) const override {
        return errorClass %
               QStringLiteral(
                   R"sql( || ': ' || trim(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace()sql") %
               error %
               QStringLiteral(
                   R"sql(, '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', '<id>'))sql"
                   R"sql(, '''[^'']*''', '''<v>'''))sql"
                   R"sql(, '(?<![A-Za-z0-9_])(?:0x[0-9a-fA-F]+|(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,})(?![A-Za-z0-9_])', '<id>'))sql"
                   R"sql(, '(?<![A-Za-z_0-9.])[-+]?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?', '<n>'))sql"
                   R"sql(, '\s+', ' '))sql");
    }

    // TRY_CAST: NULL where the value does not convert.
    QString valueFitsType(const QString &v, const QString &type, bool) const override {
        return QStringLiteral("(") % v % QStringLiteral(" IS NULL OR TRY_CAST(") % v %
               QStringLiteral(" AS ") % type % QStringLiteral(") IS NOT NULL)");
    }
};

} // namespace

std::shared_ptr<const SqlDialect> makeTrinoDialect() {
    registerTrinoDriver();
    return std::make_shared<TrinoDialect>();
}

} // namespace rw
