#include "core/batch/partitionswap.h"

#include "core/batch/batchdialect.h"
#include "core/batch/batchsql.h"
#include "core/batch/partitions.h"

#include <QCryptographicHash>
#include <QDate>
#include <QDateTime>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QStringBuilder>
#include <QThread>
#include <nlohmann/json.hpp>

Q_DECLARE_LOGGING_CATEGORY(lcBatch)

namespace rw {

namespace {

// The SQL literal of a bound value as the catalog prints it, unquoted.
QString literal(const QString &value) {
    QString escaped = value;
    escaped.replace(u'\'', QLatin1String("''"));
    return u'\'' % escaped % u'\'';
}

// The values of "(v1, v2, ...)" from `at` (its '('), unquoted: '...' with
// '' for a quote, or a bare word (MINVALUE, MAXVALUE, NULL, a number).
std::optional<QStringList> parseValues(const QString &text, qsizetype &at) {
    if (at >= text.size() || text[at] != u'(')
        return std::nullopt;
    ++at;
    QStringList out;
    while (at < text.size()) {
        while (at < text.size() && text[at] == u' ')
            ++at;
        QString value;
        if (at < text.size() && text[at] == u'\'') {
            ++at;
            for (;; ++at) {
                if (at >= text.size())
                    return std::nullopt;
                if (text[at] == u'\'') {
                    if (at + 1 < text.size() && text[at + 1] == u'\'') {
                        value += u'\'';
                        ++at;
                        continue;
                    }
                    ++at;
                    break;
                }
                value += text[at];
            }
        } else {
            while (at < text.size() && text[at] != u',' && text[at] != u')')
                value += text[at++];
            value = value.trimmed();
        }
        out << value;
        while (at < text.size() && text[at] == u' ')
            ++at;
        if (at < text.size() && text[at] == u',') {
            ++at;
            continue;
        }
        if (at < text.size() && text[at] == u')') {
            ++at;
            return out;
        }
        return std::nullopt;
    }
    return std::nullopt;
}

QDate dayOf(const QString &text) {
    return text.size() == 10 ? QDate::fromString(text, Qt::ISODate) : QDate();
}

std::optional<qint64> integerOf(const QString &text) {
    bool ok = false;
    const qint64 v = text.toLongLong(&ok);
    return ok ? std::optional<qint64>(v) : std::nullopt;
}

bool isIntegerType(const QString &type) {
    return type == QLatin1String("smallint") || type == QLatin1String("integer") ||
           type == QLatin1String("bigint");
}

bool isTextType(const QString &type) {
    return type == QLatin1String("text") || type.startsWith(QLatin1String("character"));
}

constexpr char kCheckName[] = "rewind_swap_bound";

// A short name part, the same for the same value in every process.
QString tag(const std::optional<QString> &value) {
    return QString::fromLatin1(
        QCryptographicHash::hash((value ? u'v' % *value : QStringLiteral("null")).toUtf8(),
                                 QCryptographicHash::Md5)
            .toHex()
            .left(10));
}

QString qualified(const Database &db, const QString &schema, const QString &name) {
    return db.quote(schema) % u'.' % db.quote(name);
}

} // namespace

Result<PartitionLayout> PartitionLayout::resolve(const Database &db, const DatasetSpec &dataset,
                                                 bool targetExists, bool compareTypes) {
    PartitionLayout l;
    if (dataset.write != WriteMode::OverwritePartition) {
        l.m_whole = dataset.write == WriteMode::Scd2
                        ? QStringLiteral("an scd2 dimension's versions are reconciled in place")
                        : QStringLiteral("a merge changes rows in place");
        return l;
    }
    if (!BatchDialect::of(db.dialect()).swapsPartitions()) {
        l.m_whole = QStringLiteral("a partition swap needs a partitioned PostgreSQL table; this "
                                   "workspace is on %1")
                        .arg(db.dialect().name());
        return l;
    }
    if (!dataset.partitioned()) {
        l.m_whole = QStringLiteral("the dataset has no partition column");
        return l;
    }
    if (!targetExists) {
        l.m_whole = QStringLiteral("the target does not exist yet (the run creates it)");
        return l;
    }
    if (!compareTypes) {
        l.m_whole = QStringLiteral("not resolved");
        return l;
    }
    auto q = db.exec(
        QStringLiteral(
            "SELECT c.relkind::text, n.nspname, c.relname, pt.partstrat::text, pt.partnatts, "
            "a.attname, format_type(a.atttypid, NULL), "
            "EXISTS (SELECT 1 FROM pg_attribute AS x WHERE x.attrelid = c.oid AND x.attnum > 0 "
            "AND NOT x.attisdropped AND x.attidentity <> ''), "
            "EXISTS (SELECT 1 FROM pg_constraint AS f WHERE f.confrelid = c.oid AND f.contype = "
            "'f'), "
            "(SELECT json_agg(json_build_array(ln.nspname, lc.relname, lc.relkind::text, "
            "pg_get_expr(lc.relpartbound, lc.oid)) ORDER BY lc.relname) FROM pg_inherits AS i "
            "JOIN pg_class AS lc ON lc.oid = i.inhrelid JOIN pg_namespace AS ln ON ln.oid = "
            "lc.relnamespace WHERE i.inhparent = c.oid)::text "
            "FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
            "LEFT JOIN pg_partitioned_table AS pt ON pt.partrelid = c.oid "
            "LEFT JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = pt.partattrs[0] "
            "WHERE c.oid = to_regclass(?)"),
        {db.quoteTable(dataset.target)});
    if (!q)
        return fail(q.error());
    if (!q->next()) {
        l.m_whole = QStringLiteral("the target is not a table");
        return l;
    }
    const QString kind = q->value(0).toString();
    if (kind != QLatin1String("p")) {
        l.m_whole = QStringLiteral("the target is not a partitioned table");
        return l;
    }
    l.m_parentSchema = q->value(1).toString();
    l.m_parentName = q->value(2).toString();
    l.m_parent = qualified(db, l.m_parentSchema, l.m_parentName);
    const QString strategy = q->value(3).toString();
    if (strategy == QLatin1String("h")) {
        l.m_whole = QStringLiteral("the target is partitioned by HASH");
        return l;
    }
    if (q->value(4).toInt() != 1) {
        l.m_whole =
            QStringLiteral("the target's partition key has %1 columns").arg(q->value(4).toInt());
        return l;
    }
    if (q->value(5).isNull()) {
        l.m_whole = QStringLiteral("the target's partition key is an expression");
        return l;
    }
    l.m_key = q->value(5).toString();
    l.m_quotedKey = db.quote(l.m_key);
    l.m_keyType = q->value(6).toString();
    if (l.m_key != dataset.partitionColumn) {
        l.m_whole = QStringLiteral("the target is partitioned by \"%1\", not by the partition "
                                   "column \"%2\"")
                        .arg(l.m_key, dataset.partitionColumn);
        return l;
    }
    if (q->value(7).toBool()) {
        l.m_whole = QStringLiteral("the target has an identity column, whose sequence a table "
                                   "built beside it would not share");
        return l;
    }
    if (q->value(8).toBool()) {
        l.m_whole = QStringLiteral("foreign keys reference the target");
        return l;
    }
    l.m_strategy = strategy == QLatin1String("l") ? 'l' : 'r';
    const auto leaves = nlohmann::json::parse(q->value(9).toString().toStdString(), nullptr, false);
    if (leaves.is_array())
        for (const auto &e : leaves) {
            if (!e.is_array() || e.size() != 4 || !e[3].is_string())
                continue;
            Leaf leaf;
            leaf.schema = QString::fromStdString(e[0].get<std::string>());
            leaf.name = QString::fromStdString(e[1].get<std::string>());
            leaf.kind = e[2].get<std::string>().empty() ? 'r' : e[2].get<std::string>()[0];
            leaf.bound = QString::fromStdString(e[3].get<std::string>());
            if (leaf.bound == QLatin1String("DEFAULT")) {
                leaf.isDefault = true;
                l.m_default = int(l.m_leaves.size());
                l.m_leaves.push_back(leaf);
                continue;
            }
            static const QString from = QStringLiteral("FOR VALUES FROM ");
            static const QString in = QStringLiteral("FOR VALUES IN ");
            qsizetype at = 0;
            if (leaf.bound.startsWith(from)) {
                at = from.size();
                auto lo = parseValues(leaf.bound, at);
                static const QString to = QStringLiteral(" TO ");
                if (!lo || leaf.bound.mid(at, to.size()) != to)
                    continue;
                at += to.size();
                auto hi = parseValues(leaf.bound, at);
                if (!hi || lo->size() != 1 || hi->size() != 1)
                    continue;
                leaf.from = *lo;
                leaf.to = *hi;
            } else if (leaf.bound.startsWith(in)) {
                at = in.size();
                auto values = parseValues(leaf.bound, at);
                if (!values)
                    continue;
                leaf.from = *values;
            } else {
                continue;
            }
            const int index = int(l.m_leaves.size());
            for (const QString &v : leaf.from)
                l.m_byValue.insert(v, index);
            l.m_leaves.push_back(leaf);
        }
    // What one range leaf spans, when every leaf spans the same: one day or
    // one integer. It gives the bounds of a leaf the publish creates.
    if (l.m_strategy == 'r') {
        bool days = true, integers = true, any = false;
        for (const Leaf &leaf : l.m_leaves) {
            if (leaf.isDefault)
                continue;
            any = true;
            const QDate lo = dayOf(leaf.from.value(0)), hi = dayOf(leaf.to.value(0));
            days = days && lo.isValid() && hi.isValid() && lo.addDays(1) == hi;
            const auto a = integerOf(leaf.from.value(0)), b = integerOf(leaf.to.value(0));
            integers = integers && a && b && *a + 1 == *b;
        }
        if (!any)
            days = l.m_keyType == QLatin1String("date"), integers = isIntegerType(l.m_keyType);
        l.m_step = days ? Step::Day : integers ? Step::Integer : Step::None;
    }
    return l;
}

QString PartitionLayout::checkFor(const Leaf &leaf) const {
    // As the partition constraint reads (pg_get_partition_constraintdef):
    // ATTACH then proves it from this CHECK and skips the scan.
    const QString &k = m_quotedKey;
    if (m_strategy == 'l') {
        QStringList values;
        for (const QString &v : leaf.from)
            values << literal(v);
        return k % QStringLiteral(" IS NOT NULL AND ") % k % QStringLiteral(" IN (") %
               values.join(QStringLiteral(", ")) % u')';
    }
    QString out = k % QStringLiteral(" IS NOT NULL");
    if (leaf.from.value(0) != QLatin1String("MINVALUE"))
        out += QStringLiteral(" AND ") % k % QStringLiteral(" >= ") % literal(leaf.from.value(0));
    if (leaf.to.value(0) != QLatin1String("MAXVALUE"))
        out += QStringLiteral(" AND ") % k % QStringLiteral(" < ") % literal(leaf.to.value(0));
    return out;
}

QString PartitionLayout::newLeafName(const QString &value) const {
    // After a sibling's name where it spells its lower bound (pg_partman's
    // parent_p2025_05_29, or parent_20250529), else parent_<value>.
    QString name;
    for (const Leaf &leaf : m_leaves) {
        if (leaf.isDefault || leaf.from.isEmpty())
            continue;
        const QString lo = leaf.from.value(0);
        const QDate loDay = dayOf(lo), day = dayOf(value);
        QStringList forms{lo};
        QStringList mine{value};
        if (loDay.isValid() && day.isValid()) {
            for (const QString &f : {QStringLiteral("yyyy_MM_dd"), QStringLiteral("yyyyMMdd")}) {
                forms << loDay.toString(f);
                mine << day.toString(f);
            }
        }
        for (qsizetype i = 0; i < forms.size(); ++i)
            if (leaf.name.contains(forms[i])) {
                name = QString(leaf.name).replace(forms[i], mine[i]);
                break;
            }
        if (!name.isEmpty())
            break;
    }
    if (name.isEmpty()) {
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_]"));
        name = m_parentName % u'_' % QString(value).replace(unsafe, QStringLiteral("_"));
    }
    const auto taken = [&](const QString &n) {
        return std::any_of(m_leaves.begin(), m_leaves.end(),
                           [&](const Leaf &leaf) { return leaf.name == n; });
    };
    if (name.toUtf8().size() > 63 || taken(name))
        name = m_parentName.left(40) % QStringLiteral("_rw_") % tag(value);
    return name;
}

PublishChoice PartitionLayout::choose(const std::optional<QString> &label,
                                      qint64 targetRows) const {
    PublishChoice c;
    const auto rows = [&](const QString &why) {
        c.method = PublishMethod::Rows;
        c.reason = why;
        return c;
    };
    if (!m_whole.isEmpty())
        return rows(m_whole);
    if (!label)
        return rows(QStringLiteral("a NULL partition value has no leaf partition of its own"));
    const QString &value = *label;
    const auto found = m_byValue.constFind(value);
    if (found != m_byValue.cend()) {
        const Leaf &leaf = m_leaves[std::size_t(*found)];
        if (leaf.kind == 'p')
            return rows(QStringLiteral("its leaf %1 is partitioned itself").arg(leaf.name));
        if (leaf.kind == 'f')
            return rows(QStringLiteral("its leaf %1 is a foreign table").arg(leaf.name));
        bool single = false, guarded = false;
        if (m_strategy == 'l') {
            single = leaf.from.size() == 1;
        } else {
            const QDate lo = dayOf(leaf.from.value(0)), hi = dayOf(leaf.to.value(0));
            const bool oneDay = lo.isValid() && hi.isValid() && lo.addDays(1) == hi;
            const auto a = integerOf(leaf.from.value(0)), b = integerOf(leaf.to.value(0));
            if (m_keyType == QLatin1String("date"))
                single = oneDay;
            else if (isIntegerType(m_keyType))
                single = a && b && *a + 1 == *b;
            else if (isTextType(m_keyType))
                single = guarded = true; // any text range holds more than one value
        }
        if (!single)
            return rows(QStringLiteral("its leaf %1 holds more than this partition (%2)")
                            .arg(leaf.name, leaf.bound));
        if (targetRows == 0)
            return rows(QStringLiteral("its leaf %1 is empty: the rows are inserted, no row "
                                       "is replaced")
                            .arg(leaf.name));
        c.method = PublishMethod::Swap;
        c.leaf = {leaf.schema, leaf.name, leaf.bound, checkFor(leaf), true, guarded};
        return c;
    }
    // No leaf starts at the value: one may still hold it.
    const QDate day = dayOf(value);
    const auto number = integerOf(value);
    for (const Leaf &leaf : m_leaves) {
        if (leaf.isDefault || m_strategy != 'r')
            continue;
        const QString &lo = leaf.from.value(0), &hi = leaf.to.value(0);
        bool holds = false;
        if (day.isValid() && (lo == QLatin1String("MINVALUE") || dayOf(lo).isValid()) &&
            (hi == QLatin1String("MAXVALUE") || dayOf(hi).isValid()))
            holds = (lo == QLatin1String("MINVALUE") || dayOf(lo) <= day) &&
                    (hi == QLatin1String("MAXVALUE") || day < dayOf(hi));
        else if (number && (lo == QLatin1String("MINVALUE") || integerOf(lo)) &&
                 (hi == QLatin1String("MAXVALUE") || integerOf(hi)))
            holds = (lo == QLatin1String("MINVALUE") || *integerOf(lo) <= *number) &&
                    (hi == QLatin1String("MAXVALUE") || *number < *integerOf(hi));
        if (holds)
            return rows(QStringLiteral("its leaf %1 holds more than this partition (%2)")
                            .arg(leaf.name, leaf.bound));
    }
    if (m_default >= 0)
        return rows(QStringLiteral("no leaf partition holds it but the default one, %1")
                        .arg(m_leaves[std::size_t(m_default)].name));
    Leaf created;
    created.schema = m_parentSchema;
    created.name = newLeafName(value);
    if (m_strategy == 'l') {
        created.from = {value};
        created.bound = QStringLiteral("FOR VALUES IN (") % literal(value) % u')';
    } else if (m_step == Step::Day && day.isValid()) {
        created.from = {value};
        created.to = {day.addDays(1).toString(Qt::ISODate)};
    } else if (m_step == Step::Integer && number) {
        created.from = {value};
        created.to = {QString::number(*number + 1)};
    } else {
        return rows(QStringLiteral("no leaf partition holds it, and the leaves' ranges do not "
                                   "say what range a new one takes"));
    }
    if (m_strategy == 'r')
        created.bound = QStringLiteral("FOR VALUES FROM (") % literal(created.from[0]) %
                        QStringLiteral(") TO (") % literal(created.to[0]) % u')';
    c.method = PublishMethod::Swap;
    c.leaf = {created.schema, created.name, created.bound, checkFor(created), false, false};
    return c;
}

Status lockForSwap(const Database &db, const QStringList &quotedTables) {
    const int budget = Database::busyTimeoutMs();
    QStringList only;
    for (const QString &t : quotedTables)
        only << QStringLiteral("ONLY ") % t;
    const QString lock = QStringLiteral("LOCK TABLE ") % only.join(QStringLiteral(", ")) %
                         QStringLiteral(" IN ACCESS EXCLUSIVE MODE");
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
        if (auto s = db.execAll({QStringLiteral("ROLLBACK TO SAVEPOINT rewind_swap_lock")}); !s)
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
    for (std::size_t i = 0; i < items.size(); ++i) {
        SwapItem &item = items[i];
        const QString name =
            QStringLiteral("rewind_swap_%1_%2").arg(runId.toString(), tag(item.partition.label));
        item.built = qualified(db, item.leaf.schema, name);
        QVariantList binds;
        const std::vector<PartitionRef> one{item.partition};
        const QString insert = sql.insertStaged(item.built, &one, binds);
        if (auto s = db.execAll(
                {QStringLiteral("CREATE TABLE ") % item.built % QStringLiteral(" (LIKE ") % parent %
                     QStringLiteral(" INCLUDING ALL)"),
                 QStringLiteral("ALTER TABLE ") % item.built % QStringLiteral(" ADD CONSTRAINT ") %
                     QLatin1String(kCheckName) % QStringLiteral(" CHECK (") % item.leaf.check %
                     u')'});
            !s)
            return s;
        if (auto r = db.exec(insert, binds); !r)
            return fail(r.error());
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
    QStringList toLock{parent};
    for (const SwapItem &item : items)
        if (item.leaf.exists)
            toLock << qualified(db, item.leaf.schema, item.leaf.name);
    if (auto s = lockForSwap(db, toLock); !s)
        return s;
    locked.start();
    // Every column of the target, for the rows a guarded leaf keeps.
    QStringList all;
    for (auto it = sql.catalog().targetTypes.cbegin(); it != sql.catalog().targetTypes.cend(); ++it)
        all << db.quote(it.key());
    const QString columns = all.join(QStringLiteral(", "));
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
            if (item.leaf.guarded) {
                // A text range holds other values than the partition's: the
                // rows of those stay, as a DELETE of the partition leaves them.
                QVariantList binds{item.partition.value};
                if (auto r =
                        db.exec(QStringLiteral("INSERT INTO ") % item.built % QStringLiteral(" (") %
                                    columns % QStringLiteral(") SELECT ") % columns %
                                    QStringLiteral(" FROM ") % leaf % QStringLiteral(" WHERE ") %
                                    layout.quotedKey() % QStringLiteral(" <> ?"),
                                binds);
                    !r)
                    return fail(r.error());
            }
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
    // The CHECK first, outside the parent's lock: ATTACH then skips its scan.
    if (!swap.savedTable.isEmpty())
        if (auto s = db.execAll({QStringLiteral("ALTER TABLE ") % swap.savedTable %
                                 QStringLiteral(" ADD CONSTRAINT ") % QLatin1String(kCheckName) %
                                 QStringLiteral(" CHECK (") % swap.check % u')'});
            !s)
            return s;
    if (auto s = lockForSwap(db, {swap.parent, leaf}); !s)
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
