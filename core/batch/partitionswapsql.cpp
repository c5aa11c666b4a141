// The statements of a partition swap (PostgreSQL): the lock, the built
// tables, the swap itself and its rollback (partitionswap.h). The layout
// that decides which partitions swap is in partitionswap.cpp.
#include "core/batch/batchsql.h"
#include "core/batch/partitions.h"
#include "core/batch/partitionswap.h"
#include "core/batch/partitionswapdetail.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QStringBuilder>
#include <QThread>
#include <algorithm>

namespace rw {

using namespace swapdetail;

Status lockForSwap(const Database &db, const QStringList &quotedTables) {
    const int budget = Database::busyTimeoutMs();
    QStringList only;
    for (const QString &t : quotedTables)
        only << QStringLiteral("ONLY ") % t;
    const QString lock = QStringLiteral("LOCK TABLE ") % only.join(QStringLiteral(", ")) %
                         QStringLiteral(" IN ACCESS EXCLUSIVE MODE");
    if (budget == 0) // REWIND_BUSY_TIMEOUT_MS=0: lock_timeout 0, wait as long as it takes
        return db.execAll({lock});
    QElapsedTimer waited;
    waited.start();
    // Short tries: while this session waits for the lock, every reader that
    // comes after queues behind it.
    for (int attempt = 1;; ++attempt) {
        const qint64 left = budget - waited.elapsed();
        const int tryMs = int(
            std::clamp<qint64>(std::min<qint64>(50LL << std::min(attempt - 1, 4), left), 1, 800));
        if (auto s = db.execAll({QStringLiteral("SAVEPOINT rewind_swap_lock"),
                                 QStringLiteral("SET LOCAL lock_timeout = %1").arg(tryMs)});
            !s)
            return s;
        auto r = db.exec(lock);
        if (r) {
            return db.execAll({QStringLiteral("SET LOCAL lock_timeout = %1").arg(budget),
                               QStringLiteral("RELEASE SAVEPOINT rewind_swap_lock")});
        }
        if (r.error().sqlState != QLatin1String("55P03"))
            return fail(r.error());
        if (auto s = db.execAll({QStringLiteral("ROLLBACK TO SAVEPOINT rewind_swap_lock"),
                                 QStringLiteral("RELEASE SAVEPOINT rewind_swap_lock")});
            !s)
            return s;
        const qint64 now = waited.elapsed();
        if (now >= budget)
            break;
        QThread::msleep(
            ulong(std::min<qint64>(std::min(25 << std::min(attempt, 5), 500), budget - now)));
    }
    // Who holds them, for the message.
    QStringList names;
    QVariantList binds;
    for (const QString &t : quotedTables) {
        names << QStringLiteral("to_regclass(?)");
        binds << t;
    }
    QString holders;
    if (auto h = db.scalar(
            QStringLiteral("SELECT string_agg(DISTINCT format('process %s (%s, %s)', l.pid, "
                           "a.usename, l.mode), '; ') FROM pg_locks AS l JOIN pg_stat_activity AS "
                           "a ON a.pid = l.pid WHERE l.granted AND l.pid <> pg_backend_pid() AND "
                           "l.relation = ANY (ARRAY[") %
                names.join(QStringLiteral(", ")) % QStringLiteral("]::oid[])"),
            binds))
        holders = h->toString();
    Error e = Error::internal(
        QStringLiteral("the swap could not lock %1 within %2 ms (REWIND_BUSY_TIMEOUT_MS)%3; "
                       "nothing of it was published")
            .arg(quotedTables.join(QStringLiteral(", ")))
            .arg(budget)
            .arg(holders.isEmpty() ? QString() : QStringLiteral(": held by ") % holders));
    e.sqlState = QStringLiteral("55P03");
    return fail(e);
}

Status buildSwapTables(const Database &db, const BatchSql &sql, const QVariant &runId,
                       std::vector<SwapItem> &items) {
    const QString parent = sql.catalog().layout.parent();
    // The parent's indexes, made on each built table after its rows are in
    // (a sorted build, not one insertion per row: at 40,000 rows and two
    // indexes, the load took 29 ms against 51). ATTACH then finds them and
    // attaches them to the parent's. A constraint's index (primary key,
    // unique, exclusion) by its constraint's definition; another by its own,
    // from USING on.
    auto parentIndexes = db.exec(
        QStringLiteral("SELECT c.oid IS NOT NULL, COALESCE(pg_get_constraintdef(c.oid), "
                       "pg_get_indexdef(x.indexrelid)), x.indisunique, 'CREATE ' || CASE WHEN "
                       "x.indisunique THEN 'UNIQUE ' ELSE '' END || 'INDEX ' || "
                       "quote_ident(ic.relname) || ' ON ONLY ' || quote_ident(tn.nspname) || '.' "
                       "|| quote_ident(tc.relname) || ' USING ' FROM pg_index AS x JOIN pg_class "
                       "AS ic ON ic.oid = x.indexrelid JOIN pg_class AS tc ON tc.oid = x.indrelid "
                       "JOIN pg_namespace AS tn ON tn.oid = tc.relnamespace LEFT JOIN "
                       "pg_constraint AS c ON c.conindid = x.indexrelid AND c.conrelid = "
                       "x.indrelid AND c.contype IN ('p', 'u', 'x') WHERE x.indrelid = "
                       "to_regclass(?)"),
        {parent});
    if (!parentIndexes)
        return fail(parentIndexes.error());
    // Each: the statement before the table's name, and after it.
    std::vector<std::pair<QString, QString>> indexes;
    while (parentIndexes->next()) {
        const QString def = parentIndexes->value(1).toString();
        if (parentIndexes->value(0).toBool()) {
            indexes.emplace_back(QStringLiteral("ALTER TABLE "), QStringLiteral(" ADD ") % def);
            continue;
        }
        // From USING on: past the head as pg_get_indexdef spells it (names
        // quoted as quote_ident quotes them), else at the first USING.
        const QString head = parentIndexes->value(3).toString();
        const qsizetype using_ =
            def.startsWith(head) ? head.size() - 7 : def.indexOf(QLatin1String(" USING "));
        if (using_ < 0)
            return internalError(
                QStringLiteral("index definition of %1 not understood: %2").arg(parent, def));
        indexes.emplace_back(parentIndexes->value(2).toBool()
                                 ? QStringLiteral("CREATE UNIQUE INDEX ON ")
                                 : QStringLiteral("CREATE INDEX ON "),
                             def.mid(using_));
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        SwapItem &item = items[i];
        // A leaf to create whose name another table holds (a leaf pg_partman
        // detached and kept, say): the name made of the parent's and a tag.
        if (!item.leaf.exists) {
            auto taken = db.scalar(QStringLiteral("SELECT to_regclass(?) IS NOT NULL"),
                                   {qualified(db, item.leaf.schema, item.leaf.name)});
            if (!taken)
                return fail(taken.error());
            if (taken->toBool()) {
                QString head = sql.catalog().layout.parentName().left(40);
                while (head.toUtf8().size() > 40)
                    head.chop(1);
                item.leaf.name = head % QStringLiteral("_rw_") % tag(item.partition.label);
            }
        }
        const QString name =
            QStringLiteral("rewind_swap_%1_%2").arg(runId.toString(), tag(item.partition.label));
        item.built = qualified(db, item.leaf.schema, name);
        QVariantList binds;
        const std::vector<PartitionRef> one{item.partition};
        const QString insert = sql.insertStaged(item.built, &one, binds);
        // Like the parent, and like the old leaf where a leaf differs: its
        // storage options and tablespace (its owner and grants below).
        QStringList ddl{QStringLiteral("CREATE TABLE ") % item.built % QStringLiteral(" (LIKE ") %
                            parent % QStringLiteral(" INCLUDING ALL EXCLUDING INDEXES)") %
                            (item.leaf.options.isEmpty()
                                 ? QString()
                                 : QStringLiteral(" WITH (") % item.leaf.options % u')') %
                            (item.leaf.tablespace.isEmpty()
                                 ? QString()
                                 : QStringLiteral(" TABLESPACE ") % db.quote(item.leaf.tablespace)),
                        QStringLiteral("ALTER TABLE ") % item.built %
                            QStringLiteral(" ADD CONSTRAINT ") % QLatin1String(kCheckName) %
                            QStringLiteral(" CHECK (") % item.leaf.check % u')'};
        if (auto s = db.execAll(ddl); !s)
            return s;
        if (auto r = db.exec(insert, binds); !r)
            return fail(r.error());
        // Its indexes, then the old leaf's owner and grants (the load and
        // the index builds run as this role).
        QStringList made;
        for (const auto &[head, tail] : indexes)
            made << head % item.built % tail;
        if (!item.leaf.owner.isEmpty())
            made << QStringLiteral("ALTER TABLE ") % item.built % QStringLiteral(" OWNER TO ") %
                        db.quote(item.leaf.owner);
        for (const SwapGrant &g : item.leaf.grants)
            made << QStringLiteral("GRANT ") % g.privilege % QStringLiteral(" ON ") % item.built %
                        QStringLiteral(" TO ") %
                        (g.grantee.isEmpty() ? QStringLiteral("PUBLIC") : db.quote(g.grantee)) %
                        (g.grantable ? QStringLiteral(" WITH GRANT OPTION") : QString());
        if (auto s = db.execAll(made); !s)
            return s;
    }
    return {};
}

namespace {

// The indexes of `table` that are partitions of an index on the parent: by
// the parent index, the index's name.
Result<QHash<QString, QString>> indexesByParent(const Database &db, const QString &table) {
    auto q = db.exec(QStringLiteral("SELECT ih.inhparent::text, c.relname FROM pg_index AS x "
                                    "JOIN pg_class AS c ON c.oid = x.indexrelid JOIN pg_inherits "
                                    "AS ih ON ih.inhrelid = c.oid WHERE x.indrelid = "
                                    "to_regclass(?)"),
                     {table});
    if (!q)
        return fail(q.error());
    QHash<QString, QString> out;
    while (q->next())
        out.insert(q->value(0).toString(), q->value(1).toString());
    return out;
}

} // namespace

Status swapPartitions(const Database &db, const BatchSql &sql, const QString &dataset,
                      const QVariant &runId, std::vector<SwapItem> &items, QElapsedTimer &locked) {
    const PartitionLayout &layout = sql.catalog().layout;
    const QString parent = layout.parent();
    // ATTACH also locks the DEFAULT partition (and reads it for rows of the
    // attached range): locked with the others, in the same short tries.
    QStringList toLock{parent};
    if (!layout.defaultLeaf().isEmpty())
        toLock << layout.defaultLeaf();
    for (const SwapItem &item : items)
        if (item.leaf.exists)
            toLock << qualified(db, item.leaf.schema, item.leaf.name);
    if (auto s = lockForSwap(db, toLock); !s)
        return s;
    locked.start();
    // The leaves as the operation read them, checked again now that no one
    // can change them: a bound changed since (a hand ALTER, a maintenance
    // job) would lose the rows outside the old one.
    for (const SwapItem &item : items) {
        const QString leaf = qualified(db, item.leaf.schema, item.leaf.name);
        auto bound = db.scalar(
            QStringLiteral("SELECT COALESCE((SELECT pg_get_expr(c.relpartbound, c.oid) FROM "
                           "pg_class AS c JOIN pg_inherits AS i ON i.inhrelid = c.oid WHERE c.oid "
                           "= to_regclass(?) AND i.inhparent = to_regclass(?)), CASE WHEN "
                           "to_regclass(?) IS NULL THEN '' ELSE '(not a partition)' END)"),
            {leaf, parent, leaf});
        if (!bound)
            return fail(bound.error());
        const QString now = bound->toString();
        if (now != (item.leaf.exists ? item.leaf.bound : QString()))
            return internalError(
                QStringLiteral("partition %1: its leaf %2 changed since the run read the "
                               "target's partitions (%3, now %4); nothing of this chunk was "
                               "published: run again")
                    .arg(partitionLabel(item.partition.label), leaf,
                         item.leaf.exists ? item.leaf.bound : QStringLiteral("no such table"),
                         now.isEmpty() ? QStringLiteral("no such table") : now));
    }
    const QString at = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
    std::vector<swapstore::Swap> records;
    for (std::size_t i = 0; i < items.size(); ++i) {
        SwapItem &item = items[i];
        const QString leaf = qualified(db, item.leaf.schema, item.leaf.name);
        swapstore::Swap rec;
        rec.runId = runId.toLongLong();
        rec.dataset = dataset;
        rec.partition = item.partition.label;
        rec.parent = parent;
        rec.leafSchema = item.leaf.schema;
        rec.leafName = item.leaf.name;
        rec.bound = item.leaf.bound;
        rec.check = item.leaf.check;
        rec.swappedAt = at;
        QStringList statements;
        QHash<QString, QString> oldIndexes;
        if (item.leaf.exists) {
            auto indexes = indexesByParent(db, leaf);
            if (!indexes)
                return fail(indexes.error());
            oldIndexes = *indexes;
            const QString saved = QStringLiteral("rewind_saved_%1_%2")
                                      .arg(runId.toString(), tag(item.partition.label));
            statements << QStringLiteral("ALTER TABLE ") % parent %
                              QStringLiteral(" DETACH PARTITION ") % leaf;
            int n = 0;
            for (auto it = oldIndexes.cbegin(); it != oldIndexes.cend(); ++it) {
                const QString savedIndex = saved % QStringLiteral("_i") % QString::number(n++);
                statements << QStringLiteral("ALTER INDEX ") %
                                  qualified(db, item.leaf.schema, it.value()) %
                                  QStringLiteral(" RENAME TO ") % db.quote(savedIndex);
                rec.savedIndexes.emplace_back(savedIndex, it.value());
            }
            statements << QStringLiteral("ALTER TABLE ") % leaf % QStringLiteral(" RENAME TO ") %
                              db.quote(saved)
                       << QStringLiteral("ALTER TABLE ") % qualified(db, item.leaf.schema, saved) %
                              QStringLiteral(" SET SCHEMA rewind");
            rec.savedTable = qualified(db, QStringLiteral("rewind"), saved);
        }
        statements << QStringLiteral("ALTER TABLE ") % item.built % QStringLiteral(" RENAME TO ") %
                          db.quote(item.leaf.name)
                   << QStringLiteral("ALTER TABLE ") % parent %
                          QStringLiteral(" ATTACH PARTITION ") % leaf % u' ' % item.leaf.bound
                   << QStringLiteral("ALTER TABLE ") % leaf % QStringLiteral(" DROP CONSTRAINT ") %
                          QLatin1String(kCheckName);
        if (auto s = db.execAll(statements); !s)
            return s;
        if (!oldIndexes.isEmpty()) {
            // The new leaf's indexes take the names the old one's had.
            auto now = indexesByParent(db, leaf);
            if (!now)
                return fail(now.error());
            QStringList renames;
            for (auto it = now->cbegin(); it != now->cend(); ++it)
                if (oldIndexes.contains(it.key()) && oldIndexes.value(it.key()) != it.value())
                    renames << QStringLiteral("ALTER INDEX ") %
                                   qualified(db, item.leaf.schema, it.value()) %
                                   QStringLiteral(" RENAME TO ") %
                                   db.quote(oldIndexes.value(it.key()));
            if (auto s = db.execAll(renames); !s)
                return s;
        }
        records.push_back(std::move(rec));
    }
    return swapstore::record(db, records);
}

Status swapBack(const Database &db, const swapstore::Swap &swap, qint64 &removed, qint64 &restored,
                bool execute) {
    const QString leaf = qualified(db, swap.leafSchema, swap.leafName);
    auto count = [&](const QString &table) -> Result<qint64> {
        auto v = db.scalar(QStringLiteral("SELECT count(*) FROM ") % table);
        if (!v)
            return fail(v.error());
        return v->toLongLong();
    };
    auto attached = db.scalar(QStringLiteral("SELECT 1 FROM pg_inherits WHERE inhrelid = "
                                             "to_regclass(?) AND inhparent = to_regclass(?)"),
                              {leaf, swap.parent});
    if (!attached)
        return fail(attached.error());
    if (attached->isNull())
        return badInput(QStringLiteral("partition %1 was published by swap into %2, which is no "
                                       "longer a partition of %3: attach it again first")
                            .arg(partitionLabel(swap.partition), leaf, swap.parent));
    auto r = count(leaf);
    if (!r)
        return fail(r.error());
    removed = *r;
    restored = 0;
    if (!swap.savedTable.isEmpty()) {
        auto s = count(swap.savedTable);
        if (!s)
            return fail(s.error());
        restored = *s;
    }
    if (!execute)
        return {};
    // The saved leaf as the parent is now (a column added, dropped or
    // widened since, by a later run or by hand): ATTACH takes only a table
    // with the parent's columns. An added column is NULL in it, as a rows
    // publish's restore leaves it.
    if (!swap.savedTable.isEmpty()) {
        const auto columnsOf = [&](const QString &table) -> Result<QHash<QString, QString>> {
            // The type, NOT NULL (1 or 0) and the default, a line each (an
            // added column fills the saved rows as it filled the parent's).
            auto q = db.exec(
                QStringLiteral("SELECT a.attname, format_type(a.atttypid, a.atttypmod), "
                               "pg_get_expr(d.adbin, d.adrelid), a.attnotnull FROM pg_attribute "
                               "AS a LEFT JOIN "
                               "pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
                               "AND a.attgenerated = '' WHERE a.attrelid = to_regclass(?) AND "
                               "a.attnum > 0 AND NOT a.attisdropped"),
                {table});
            if (!q)
                return fail(q.error());
            QHash<QString, QString> out;
            while (q->next())
                out.insert(q->value(0).toString(), q->value(1).toString() % u'\n' %
                                                       (q->value(3).toBool() ? u'1' : u'0') %
                                                       u'\n' % q->value(2).toString());
            return out;
        };
        auto parentColumns = columnsOf(swap.parent);
        if (!parentColumns)
            return fail(parentColumns.error());
        auto savedColumns = columnsOf(swap.savedTable);
        if (!savedColumns)
            return fail(savedColumns.error());
        QStringList align;
        const QString alter = QStringLiteral("ALTER TABLE ") % swap.savedTable;
        for (auto it = parentColumns->cbegin(); it != parentColumns->cend(); ++it) {
            const QString col = db.quote(it.key());
            const QString type = it.value().section(u'\n', 0, 0);
            const bool notNull = it.value().section(u'\n', 1, 1) == QLatin1String("1");
            const QString fill = it.value().section(u'\n', 2);
            const QString saved = savedColumns->value(it.key());
            if (saved.isEmpty())
                align << alter % QStringLiteral(" ADD COLUMN ") % col % u' ' % type %
                             (fill.isEmpty() ? QString() : QStringLiteral(" DEFAULT ") % fill);
            else if (saved.section(u'\n', 0, 0) != type)
                align << alter % QStringLiteral(" ALTER COLUMN ") % col % QStringLiteral(" TYPE ") %
                             type % QStringLiteral(" USING CAST(") % col % QStringLiteral(" AS ") %
                             type % u')';
            // ATTACH wants the parent's NOT NULL on the child too.
            if (notNull && saved.section(u'\n', 1, 1) != QLatin1String("1"))
                align << alter % QStringLiteral(" ALTER COLUMN ") % col %
                             QStringLiteral(" SET NOT NULL");
        }
        // And its CHECK constraints (one a rows restore would meet as well).
        auto checks = db.exec(
            QStringLiteral("SELECT p.conname, pg_get_constraintdef(p.oid) FROM pg_constraint AS "
                           "p WHERE p.conrelid = to_regclass(?) AND p.contype = 'c' AND NOT "
                           "EXISTS (SELECT 1 FROM pg_constraint AS s WHERE s.conrelid = "
                           "to_regclass(?) AND s.contype = 'c' AND s.conname = p.conname)"),
            {swap.parent, swap.savedTable});
        if (!checks)
            return fail(checks.error());
        while (checks->next())
            align << alter % QStringLiteral(" ADD CONSTRAINT ") %
                         db.quote(checks->value(0).toString()) % u' ' % checks->value(1).toString();
        for (auto it = savedColumns->cbegin(); it != savedColumns->cend(); ++it)
            if (!parentColumns->contains(it.key()))
                align << alter % QStringLiteral(" DROP COLUMN ") % db.quote(it.key());
        if (auto s = db.execAll(align); !s)
            return s;
    }
    // The CHECK first, outside the parent's lock: ATTACH then skips its scan.
    if (!swap.savedTable.isEmpty())
        if (auto s = db.execAll({QStringLiteral("ALTER TABLE ") % swap.savedTable %
                                 QStringLiteral(" ADD CONSTRAINT ") % QLatin1String(kCheckName) %
                                 QStringLiteral(" CHECK (") % swap.check % u')'});
            !s)
            return s;
    QStringList toLock{swap.parent, leaf};
    if (auto d = db.scalar(QStringLiteral("SELECT quote_ident(n.nspname) || '.' || "
                                          "quote_ident(c.relname) FROM pg_partitioned_table AS p "
                                          "JOIN pg_class AS c ON c.oid = p.partdefid JOIN "
                                          "pg_namespace AS n ON n.oid = c.relnamespace WHERE "
                                          "p.partrelid = to_regclass(?)"),
                           {swap.parent});
        !d)
        return fail(d.error());
    else if (!d->isNull())
        toLock << d->toString();
    if (auto s = lockForSwap(db, toLock); !s)
        return s;
    QStringList statements{QStringLiteral("ALTER TABLE ") % swap.parent %
                               QStringLiteral(" DETACH PARTITION ") % leaf,
                           QStringLiteral("DROP TABLE ") % leaf};
    if (!swap.savedTable.isEmpty()) {
        const QString savedName = swap.savedTable.section(u'.', 1);
        statements << QStringLiteral("ALTER TABLE ") % swap.savedTable %
                          QStringLiteral(" SET SCHEMA ") % db.quote(swap.leafSchema);
        // The saved name, unquoted: it was made of plain characters.
        const QString moved =
            qualified(db, swap.leafSchema, savedName.mid(1, savedName.size() - 2));
        for (const auto &[saved, original] : swap.savedIndexes)
            statements << QStringLiteral("ALTER INDEX ") % qualified(db, swap.leafSchema, saved) %
                              QStringLiteral(" RENAME TO ") % db.quote(original);
        statements << QStringLiteral("ALTER TABLE ") % moved % QStringLiteral(" RENAME TO ") %
                          db.quote(swap.leafName)
                   << QStringLiteral("ALTER TABLE ") % swap.parent %
                          QStringLiteral(" ATTACH PARTITION ") % leaf % u' ' % swap.bound
                   << QStringLiteral("ALTER TABLE ") % leaf % QStringLiteral(" DROP CONSTRAINT ") %
                          QLatin1String(kCheckName);
    }
    if (auto s = db.execAll(statements); !s)
        return s;
    return swapstore::forget(db, swap);
}

} // namespace rw
