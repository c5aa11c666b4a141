#include "core/streams/offsetstore.h"

#include "core/sql/timejson.h"
#include "core/streams/streamsdialect.h"

#include <QStringBuilder>
#include <nlohmann/json.hpp>

namespace rw::offsetstore {

namespace {

const QString kInsert = QStringLiteral(
    "INSERT INTO rewind_offsets (stream, group_id, partition_id, committed_offset, updated_at) ");

// ON CONFLICT of a group's partition: the newer commit wins.
QString upsert(const SqlDialect &d) {
    return QStringLiteral(" WHERE true") %
           d.upsertSet({QStringLiteral("stream"), QStringLiteral("group_id"),
                        QStringLiteral("partition_id")},
                       {QStringLiteral("committed_offset"), QStringLiteral("updated_at")});
}

} // namespace

Status commit(const Database &db, const QString &stream, const QString &group,
              const std::vector<std::pair<qint64, qint64>> &offsets) {
    if (offsets.empty())
        return {};
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto &[partition, offset] : offsets)
        pairs.push_back({partition, offset});
    const SqlDialect &d = db.dialect();
    auto r = db.exec(kInsert %
                         StreamsDialect::of(db).jsonIntegerRows(QStringLiteral("?, ?, "), 2,
                                                                QStringLiteral(", ") %
                                                                    TimeJson::of(d).nowUtcText()) %
                         upsert(d),
                     {stream, group, QString::fromStdString(pairs.dump())});
    if (!r)
        return fail(r.error());
    return {};
}

Status commitReached(const Database &db, const QString &stream, const QString &group,
                     const QString &relation) {
    const SqlDialect &d = db.dialect();
    auto r =
        db.exec(kInsert % QStringLiteral("SELECT ?, ?, p, hi, ") % TimeJson::of(d).nowUtcText() %
                    QStringLiteral(" FROM ") % relation % upsert(d),
                {stream, group});
    if (!r)
        return fail(r.error());
    return {};
}

Status recordHistory(const Database &db, const QString &select, const QVariantList &binds) {
    auto r = db.exec(kInsert % select, binds);
    if (!r)
        return fail(r.error());
    return {};
}

} // namespace rw::offsetstore
