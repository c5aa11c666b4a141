#include "core/streams/streamsdialect.h"

#include <QStringBuilder>

namespace rw {

namespace {

class SqliteStreamsDialect final : public StreamsDialect {
public:
    explicit SqliteStreamsDialect(std::shared_ptr<const SqlDialect> sql)
        : m_sql(std::move(sql)) {}

    QString fixedOrderJoin() const override { return QStringLiteral("CROSS JOIN"); }
    QString tempTable(const QString &name) const override {
        return QStringLiteral("temp.") % m_sql->quote(name);
    }
    QString storageOrderColumn() const override { return QStringLiteral("rowid"); }
    QString isTrue(const QString &expr) const override { return expr % QStringLiteral(" IS 1"); }
    QString isNotTrue(const QString &expr) const override {
        return expr % QStringLiteral(" IS NOT 1");
    }
    QString jsonIntegerRows(const QString &leading, int columns,
                            const QString &trailing) const override {
        QStringList items;
        for (int i = 0; i < columns; ++i)
            items << QStringLiteral("json_extract(value, '$[%1]')").arg(i);
        return QStringLiteral("SELECT ") % leading % items.join(QStringLiteral(", ")) % trailing %
               QStringLiteral(" FROM json_each(?)");
    }
    QString jsonStageSelect(const QList<QPair<QString, QString>> &passThrough,
                            const QString &payload, int paths, const QString &fromClause,
                            bool /*assumeValid: json_valid is cheap*/) const override {
        QString out = QStringLiteral("SELECT ");
        for (const auto &[expr, alias] : passThrough)
            out += expr % QStringLiteral(" AS ") % alias % QStringLiteral(", ");
        out += QStringLiteral("json_valid(") % payload % QStringLiteral(") AS jv");
        for (int i = 0; i < paths; ++i)
            out += QStringLiteral(", CASE WHEN json_valid(") % payload %
                   QStringLiteral(") THEN json_extract(") % payload %
                   QStringLiteral(", ?) END AS c") % QString::number(i);
        return out + fromClause;
    }
    QString jsonTextAt(const QString &payload, const QString &path) const override {
        return QStringLiteral("CASE WHEN json_valid(") % payload %
               QStringLiteral(") THEN CAST(json_extract(") % payload % QStringLiteral(", ") % path %
               QStringLiteral(") AS TEXT) END");
    }
    QString jsonTypeAt(const QString &payload, const QString &path) const override {
        return QStringLiteral("json_type(") % payload % QStringLiteral(", ") % path % u')';
    }
    QString sinkColumnType(const QStringList &) const override { return QString(); }
    QString sinkValue(const QString &expr, const QString &) const override { return expr; }
    // A subquery with an OFFSET is never flattened.
    QString subqueryFence() const override { return QStringLiteral(" LIMIT -1 OFFSET 0"); }
    QString listUniqueIndexColumns() const override {
        return QStringLiteral("SELECT il.name, ii.seqno, ii.name FROM pragma_index_list(?) AS il "
                              "JOIN pragma_index_info(il.name) AS ii WHERE il.\"unique\" = 1 AND "
                              "il.partial = 0 ORDER BY il.name, ii.seqno");
    }
    std::unique_ptr<ReplayScratch> replayScratch(const Database &db, bool) const override {
        return sqliteReplayScratch(db);
    }
    QString pageCacheSize() const override { return QStringLiteral("PRAGMA cache_size"); }
    QString setPageCacheSize(qint64 size) const override {
        return QStringLiteral("PRAGMA cache_size = %1").arg(size);
    }

private:
    std::shared_ptr<const SqlDialect> m_sql;
};

} // namespace

const StreamsDialect &sqliteStreamsDialect() {
    static const SqliteStreamsDialect dialect(makeSqliteDialect());
    return dialect;
}

} // namespace rw
