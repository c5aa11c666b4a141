#include "core/streams/streams.h"

#include <QStringBuilder>

namespace rw {

Result<std::vector<StreamPartitionInfo>> listStreamPartitions(const Database &db, const StreamSpec &stream)
{
    const LogColumns &c = stream.logColumns;
    const QString p = db.quote(c.partitionId);
    const QString o = db.quote(c.logOffset);
    const QString ts = db.quote(c.recordTs);
    auto q = db.exec(QStringLiteral("SELECT ") % p % QStringLiteral(", MIN(") % o % QStringLiteral("), MAX(") % o
                     % QStringLiteral(") + 1, COUNT(*), ") % db.dialect().castText(QStringLiteral("MIN(") % ts % u')')
                     % QStringLiteral(", ") % db.dialect().castText(QStringLiteral("MAX(") % ts % u')')
                     % QStringLiteral(" FROM ") % db.quoteTable(stream.log) % QStringLiteral(" GROUP BY ") % p
                     % QStringLiteral(" ORDER BY ") % p);
    if (!q)
        return fail(q.error());
    std::vector<StreamPartitionInfo> out;
    while (q->next())
        out.push_back({q->value(0).toLongLong(), q->value(1).toLongLong(), q->value(2).toLongLong(),
                       q->value(3).toLongLong(), q->value(4).toString(), q->value(5).toString()});
    return out;
}

Result<qint64> sinkRowCount(const Database &db, const StreamSpec &stream)
{
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

} // namespace rw
