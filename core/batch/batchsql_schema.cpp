// The statements of a schema change (on_schema_change): applying it in a
// publish, undoing it in a rollback, reading the target as it will be, and
// the before-images it keeps. The rest of BatchSql is in batchsql.cpp.
#include "core/batch/batchsql.h"

#include <QCryptographicHash>
#include <QStringBuilder>
#include <algorithm>

namespace rw {

std::vector<std::pair<QString, QVariantList>>
BatchSql::applySchemaChange(const QVariant &runId, const std::vector<ColumnInfo> &targetColumns,
                            const std::vector<ColumnInfo> &imagesColumns) const {
    const SchemaChange &change = m_cat.schemaChange;
    const QString target = qt(m_dataset->target);
    const QString images = q(imagesTable());
    const auto imagesHave = [&](const QString &c) {
        return std::any_of(imagesColumns.begin(), imagesColumns.end(),
                           [&](const ColumnInfo &i) { return i.name == c; });
    };
    std::vector<std::pair<QString, QVariantList>> out;
    if (!change.dropped.empty()) {
        // Every column the target has now, each row as it is: what the
        // rollback puts back.
        QStringList held;
        for (const ColumnInfo &c : targetColumns) {
            held << c.name;
            if (!imagesHave(c.name))
                out.push_back({QStringLiteral("ALTER TABLE ") % images %
                                   QStringLiteral(" ADD COLUMN ") % q(c.name) %
                                   (c.type.isEmpty() ? QString() : QString(u' ' % c.type)),
                               {}});
        }
        out.push_back({QStringLiteral("INSERT INTO ") % images % QStringLiteral(" (") %
                           columnList(QString(), held) %
                           QStringLiteral(", rewind_run_id, rewind_op) SELECT ") %
                           columnList(QString(), held) % QStringLiteral(", ?, 'dropped' FROM ") %
                           target,
                       {runId}});
        for (const SchemaColumn &c : change.dropped)
            out.push_back({QStringLiteral("ALTER TABLE ") % target %
                               QStringLiteral(" DROP COLUMN ") % q(c.column),
                           {}});
    }
    for (const SchemaColumn &a : change.added)
        out.push_back({QStringLiteral("ALTER TABLE ") % target % QStringLiteral(" ADD COLUMN ") %
                           q(a.column) % (a.type.isEmpty() ? QString() : QString(u' ' % a.type)),
                       {}});
    for (const WidenedColumn &w : change.widened) {
        out.push_back({QStringLiteral("ALTER TABLE ") % target % QStringLiteral(" ALTER COLUMN ") %
                           q(w.column) % QStringLiteral(" TYPE ") % w.to,
                       {}});
        const auto held = std::find_if(imagesColumns.begin(), imagesColumns.end(),
                                       [&](const ColumnInfo &i) { return i.name == w.column; });
        if (held != imagesColumns.end() &&
            engine().typeChange(held->type, w.to) == BatchDialect::TypeChange::Widens)
            out.push_back({QStringLiteral("ALTER TABLE ") % images %
                               QStringLiteral(" ALTER COLUMN ") % q(w.column) %
                               QStringLiteral(" TYPE ") % w.to,
                           {}});
    }
    return out;
}

QStringList BatchSql::alignImages(const std::vector<ColumnInfo> &imagesColumns) const {
    QStringList out;
    for (const QString &c : m_cat.columns) {
        const QString type = m_cat.targetTypes.value(c);
        const auto held = std::find_if(imagesColumns.begin(), imagesColumns.end(),
                                       [&](const ColumnInfo &i) { return i.name == c; });
        if (held == imagesColumns.end())
            out << QStringLiteral("ALTER TABLE ") % q(imagesTable()) %
                       QStringLiteral(" ADD COLUMN ") % q(c) %
                       (type.isEmpty() ? QString() : QString(u' ' % type));
        else if (!type.isEmpty() &&
                 engine().typeChange(held->type, type) == BatchDialect::TypeChange::Widens)
            out << QStringLiteral("ALTER TABLE ") % q(imagesTable()) %
                       QStringLiteral(" ALTER COLUMN ") % q(c) % QStringLiteral(" TYPE ") % type;
    }
    return out;
}

std::vector<std::pair<QString, QVariantList>>
BatchSql::revertSchemaChange(const SchemaChange &change, const QVariant &runId, bool imagesExist,
                             const QStringList &columns) const {
    const QString target = qt(m_dataset->target);
    std::vector<std::pair<QString, QVariantList>> out;
    for (const SchemaColumn &a : change.added) {
        out.push_back({QStringLiteral("ALTER TABLE ") % target % QStringLiteral(" DROP COLUMN ") %
                           q(a.column),
                       {}});
        if (imagesExist)
            out.push_back({QStringLiteral("ALTER TABLE ") % q(imagesTable()) %
                               QStringLiteral(" DROP COLUMN ") % q(a.column),
                           {}});
    }
    if (!change.dropped.empty()) {
        for (const SchemaColumn &c : change.dropped)
            out.push_back({QStringLiteral("ALTER TABLE ") % target %
                               QStringLiteral(" ADD COLUMN ") % q(c.column) %
                               (c.type.isEmpty() ? QString() : QString(u' ' % c.type)),
                           {}});
        out.push_back({QStringLiteral("DELETE FROM ") % target, {}});
        out.push_back({QStringLiteral("INSERT INTO ") % target % QStringLiteral(" (") %
                           columnList(QString(), columns) % QStringLiteral(") SELECT ") %
                           columnList(QString(), columns) % QStringLiteral(" FROM ") %
                           q(imagesTable()) %
                           QStringLiteral(" WHERE rewind_run_id = ? AND rewind_op = 'dropped'"),
                       {runId}});
    }
    for (const WidenedColumn &w : change.widened)
        out.push_back({QStringLiteral("ALTER TABLE ") % target % QStringLiteral(" ALTER COLUMN ") %
                           q(w.column) % QStringLiteral(" TYPE ") % w.from %
                           QStringLiteral(" USING CAST(") % q(w.column) % QStringLiteral(" AS ") %
                           w.from % u')',
                       {}});
    return out;
}

QStringList BatchSql::targetHeldColumns() const {
    QStringList out;
    for (const QString &c : m_cat.columns)
        if (!m_cat.schemaChange.isAdded(c) && (!m_imagesColumns || m_imagesColumns->contains(c)))
            out << c;
    return out;
}

void BatchSql::schemaChangeApplied() {
    for (const SchemaColumn &a : m_cat.schemaChange.added)
        m_cat.targetTypes.insert(a.column, a.type);
    for (const SchemaColumn &c : m_cat.schemaChange.dropped)
        m_cat.targetTypes.remove(c.column);
    for (const WidenedColumn &w : m_cat.schemaChange.widened)
        m_cat.targetTypes.insert(w.column, w.to);
    m_cat.schemaChange = {};
}

QStringList BatchSql::readTarget(const QString &qualifier, const QStringList &columns) const {
    const QString prefix = qualifier.isEmpty() ? QString() : QString(qualifier % u'.');
    QStringList read;
    for (const QString &c : columns) {
        const auto added =
            std::find_if(m_cat.schemaChange.added.begin(), m_cat.schemaChange.added.end(),
                         [&](const SchemaColumn &a) { return a.column == c; });
        if (const WidenedColumn *w = m_cat.schemaChange.widening(c))
            read << QStringLiteral("CAST(") % prefix % q(c) % QStringLiteral(" AS ") % w->to %
                        QStringLiteral(") AS ") % q(c);
        else if (added == m_cat.schemaChange.added.end())
            read << prefix % q(c);
        else if (added->type.isEmpty())
            read << QStringLiteral("NULL AS ") % q(c);
        else
            read << QStringLiteral("CAST(NULL AS ") % added->type % QStringLiteral(") AS ") % q(c);
    }
    return read;
}

QString BatchSql::indexImages() const {
    QStringList cols{QStringLiteral("rewind_run_id"), QStringLiteral("rewind_op")};
    if (isScd2())
        cols << QStringLiteral("rewind_part");
    else if (m_dataset->partitioned() && m_dataset->partitionGranularity.isEmpty())
        cols << m_dataset->partitionColumn;
    // A merge's restores match keys; a dataset without one (every column
    // its key) is looked up by partition alone: its values may be long
    // texts or types a B-tree cannot order.
    if ((m_dataset->write == WriteMode::Merge || m_dataset->write == WriteMode::DeleteInsert) &&
        !m_dataset->key.isEmpty())
        for (const QString &k : m_dataset->key.mid(0, 8))
            if (!cols.contains(k) && (!m_imagesColumns || m_imagesColumns->contains(k)))
                cols << k;
    // Short whatever the dataset's name (PostgreSQL cuts names at 63 bytes).
    const QString name = QStringLiteral("rewind_images_ix_") %
                         QString::fromLatin1(QCryptographicHash::hash(imagesTable().toUtf8(),
                                                                      QCryptographicHash::Sha1)
                                                 .toHex()
                                                 .left(12));
    return QStringLiteral("CREATE INDEX IF NOT EXISTS ") % q(name) % QStringLiteral(" ON ") %
           q(imagesTable()) % QStringLiteral(" (") % columnList(QString(), cols) % u')';
}

} // namespace rw
