#include "core/streams/streams.h"

#include "core/streams/streamlog.h"

#include <QMap>
#include <QStringBuilder>

namespace rw {

Result<std::vector<StreamPartitionInfo>> listStreamPartitions(const Database &db,
                                                              const StreamSpec &stream) {
    return openStreamLog(db, stream)->partitions();
}

Result<qint64> sinkRowCount(const Database &db, const StreamSpec &stream) {
    auto exists = db.hasRelation(stream.sink);
    if (!exists)
        return fail(exists.error());
    if (!*exists)
        return 0;
    auto n = db.scalar(QStringLiteral("SELECT COUNT(*) FROM ") % db.quoteTable(stream.sink));
    if (!n)
        return fail(n.error());
    return n->toLongLong();
}

Result<QList<QStringList>> relationIndexColumns(const Database &db, const QString &catalogSql,
                                                const QString &relation) {
    auto q = db.exec(catalogSql, {relation});
    if (!q)
        return fail(q.error());
    QMap<QString, QStringList> byIndex;
    while (q->next())
        byIndex[q->value(0).toString()] << q->value(2).toString();
    return byIndex.values();
}

} // namespace rw
