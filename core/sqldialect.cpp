#include "sqldialect.h"

#include <QStringBuilder>

namespace rw {

QString SqlDialect::quote(const QString &identifier) const
{
    QString escaped = identifier;
    escaped.replace(u'"', QStringLiteral("\"\""));
    return u'"' % escaped % u'"';
}

namespace {

class SqliteDialect final : public SqlDialect {
public:
    Kind kind() const override { return Kind::Sqlite; }
    QString name() const override { return QStringLiteral("sqlite"); }
    QString driverName() const override { return QStringLiteral("QSQLITE"); }

    QStringList sessionSetup() const override
    {
        return {QStringLiteral("PRAGMA journal_mode=WAL"),
                QStringLiteral("PRAGMA synchronous=NORMAL"),
                QStringLiteral("PRAGMA foreign_keys=ON"),
                QStringLiteral("PRAGMA temp_store=MEMORY")};
    }
    QString beginWrite() const override { return QStringLiteral("BEGIN IMMEDIATE"); }

    QString listRelations() const override
    {
        return QStringLiteral("SELECT name FROM sqlite_schema WHERE type IN ('table','view') "
                              "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
    }
    QString listColumns() const override
    {
        return QStringLiteral("SELECT name, type FROM pragma_table_info(?) ORDER BY cid");
    }

    QString listIndexColumns() const override
    {
        return QStringLiteral("SELECT il.name, ii.seqno, ii.name FROM pragma_index_list(?) AS il "
                              "JOIN pragma_index_info(il.name) AS ii ORDER BY il.name, ii.seqno");
    }

    QString autoIdColumn() const override { return QStringLiteral("INTEGER PRIMARY KEY AUTOINCREMENT"); }
    QString blobType() const override { return QStringLiteral("BLOB"); }
    QString bigintType() const override { return QStringLiteral("INTEGER"); }
    QString doubleType() const override { return QStringLiteral("REAL"); }

    QString nullSafeEqual(const QString &a, const QString &b) const override
    {
        return a % QStringLiteral(" IS ") % b;
    }
    QString rowIdentity(const QString &alias) const override { return alias % QStringLiteral(".rowid"); }
    QString castText(const QString &expr) const override
    {
        return QStringLiteral("CAST(") % expr % QStringLiteral(" AS TEXT)");
    }
    QString nowUtcText() const override
    {
        return QStringLiteral("strftime('%Y-%m-%dT%H:%M:%fZ','now')");
    }
    QString dropTempTable(const QString &name) const override
    {
        return QStringLiteral("DROP TABLE IF EXISTS temp.") % quote(name);
    }
    QString createTempIndex(const QString &index, const QString &table, const QStringList &columns) const override
    {
        QStringList cols;
        for (const auto &c : columns)
            cols << quote(c);
        return QStringLiteral("CREATE INDEX temp.") % quote(index) % QStringLiteral(" ON ") % quote(table) % QStringLiteral(" (")
               % cols.join(u", ") % u')';
    }
    QString rowHash(const QStringList &quotedExpressions) const override
    {
        return QStringLiteral("rewind_hash(") % quotedExpressions.join(u", ") % u')';
    }
    QString jsonObject(const QStringList &namesAndExpressions) const override
    {
        return QStringLiteral("json_object(") % namesAndExpressions.join(u", ") % u')';
    }
    QString upsertSet(const QStringList &conflictColumns,
                      const QStringList &updateColumns) const override
    {
        QStringList target;
        for (const auto &c : conflictColumns)
            target << quote(c);
        QStringList sets;
        for (const auto &c : updateColumns)
            sets << quote(c) % QStringLiteral(" = excluded.") % quote(c);
        if (sets.isEmpty())
            return QStringLiteral(" ON CONFLICT (") % target.join(u", ") % QStringLiteral(") DO NOTHING");
        return QStringLiteral(" ON CONFLICT (") % target.join(u", ") % QStringLiteral(") DO UPDATE SET ")
               % sets.join(u", ");
    }
};

} // namespace

std::shared_ptr<const SqlDialect> makeDialect(SqlDialect::Kind kind)
{
    switch (kind) {
    case SqlDialect::Kind::Sqlite:
        return std::make_shared<SqliteDialect>();
    case SqlDialect::Kind::Postgres:
        break;
    }
    return nullptr;
}

} // namespace rw
