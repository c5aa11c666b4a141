#include "core/batch/partitionswap.h"

#include "core/batch/batchdialect.h"
#include "core/batch/batchsql.h"
#include "core/batch/partitions.h"
#include "core/batch/partitionswapdetail.h"

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

using namespace swapdetail;

namespace {

// The SQL literal of a bound value as the catalog prints it, unquoted.
QString literal(const QString &value) {
    QString escaped = value;
    escaped.replace(u'\'', QLatin1String("''"));
    return u'\'' % escaped % u'\'';
}

// The values of "(v1, v2, ...)" from `at` (its '('), unquoted: '...' with
// '' for a quote, or a bare word (MINVALUE, MAXVALUE, NULL, a number).
// A bare NULL (not the text 'NULL') is left out and `nullListed` set.
std::optional<QStringList> parseValues(const QString &text, qsizetype &at, bool &nullListed) {
    if (at >= text.size() || text[at] != u'(')
        return std::nullopt;
    ++at;
    QStringList out;
    while (at < text.size()) {
        while (at < text.size() && text[at] == u' ')
            ++at;
        QString value;
        bool bare = true;
        if (at < text.size() && text[at] == u'\'') {
            bare = false;
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
        if (bare && value == QLatin1String("NULL"))
            nullListed = true;
        else
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

// Whether the RANGE bound [lo, hi) holds `value`, comparing dates or
// integers (MINVALUE, MAXVALUE open); false when they do not compare so.
bool rangeHolds(const QString &lo, const QString &hi, const QString &value) {
    const bool minLo = lo == QLatin1String("MINVALUE"), maxHi = hi == QLatin1String("MAXVALUE");
    const QDate day = dayOf(value);
    if (day.isValid() && (minLo || dayOf(lo).isValid()) && (maxHi || dayOf(hi).isValid()))
        return (minLo || dayOf(lo) <= day) && (maxHi || day < dayOf(hi));
    const auto number = integerOf(value);
    if (number && (minLo || integerOf(lo)) && (maxHi || integerOf(hi)))
        return (minLo || *integerOf(lo) <= *number) && (maxHi || *number < *integerOf(hi));
    return false;
}

bool isIntegerType(const QString &type) {
    return type == QLatin1String("smallint") || type == QLatin1String("integer") ||
           type == QLatin1String("bigint");
}

// Not character(n): its values print padded in a bound, and trimmed as labels.
bool isTextType(const QString &type) {
    return type == QLatin1String("text") || type.startsWith(QLatin1String("character varying"));
}

} // namespace

Result<PartitionLayout> PartitionLayout::resolve(const Database &db, const DatasetSpec &dataset,
                                                 bool targetExists, bool compareTypes) {
    return resolve(db, dataset, targetExists, compareTypes, false);
}

Result<PartitionLayout> PartitionLayout::leaves(const Database &db, const DatasetSpec &dataset,
                                                bool targetExists) {
    return resolve(db, dataset, targetExists, true, true);
}

Result<PartitionLayout> PartitionLayout::resolve(const Database &db, const DatasetSpec &dataset,
                                                 bool targetExists, bool compareTypes,
                                                 bool boundsOnly) {
    PartitionLayout l;
    if (dataset.write != WriteMode::OverwritePartition && !boundsOnly) {
        l.m_whole = dataset.write == WriteMode::Scd2
                        ? QStringLiteral("an scd2 dimension's versions are reconciled in place")
                    : dataset.write == WriteMode::Merge
                        ? QStringLiteral("a merge changes rows in place")
                        : QStringLiteral("a %1 changes rows in place").arg(enumName(dataset.write));
        return l;
    }
    if (!BatchDialect::of(db.dialect()).swapsPartitions()) {
        l.m_whole = QStringLiteral("a partition swap needs a partitioned PostgreSQL table; this "
                                   "workspace is on %1")
                        .arg(db.dialect().name());
        return l;
    }
    if (qEnvironmentVariable("REWIND_PARTITION_SWAP") == QLatin1String("0") && !boundsOnly) {
        l.m_whole = QStringLiteral("REWIND_PARTITION_SWAP=0 turns partition swaps off");
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
    // One round trip: the parent's facts, then each leaf's as JSON.
    auto q = db.exec(
        QStringLiteral(
            "SELECT c.relkind::text, n.nspname, c.relname, pt.partstrat::text, pt.partnatts, "
            "a.attname, format_type(a.atttypid, NULL), "
            "EXISTS (SELECT 1 FROM pg_attribute AS x WHERE x.attrelid = c.oid AND x.attnum > 0 "
            "AND NOT x.attisdropped AND x.attidentity <> ''), "
            "EXISTS (SELECT 1 FROM pg_constraint AS f WHERE f.contype = 'f' AND (f.confrelid = "
            "c.oid OR f.conrelid = c.oid)), "
            "pg_has_role(c.relowner, 'USAGE') AND has_schema_privilege(n.oid, 'CREATE'), "
            // Rewind's own freeze trigger (a recovery's) refuses other
            // writers, which a swap keeps out as well: it stays on the parent.
            "EXISTS (SELECT 1 FROM pg_trigger AS g WHERE g.tgrelid = c.oid AND NOT "
            "g.tgisinternal AND g.tgname NOT IN ('rewind_freeze', 'rewind_freeze_rows')), "
            // In a publication: all tables, its schema, itself or a leaf
            // (the catalogs, not the view pg_publication_tables: its plan alone took 3 ms).
            "EXISTS (SELECT 1 FROM pg_publication AS pb WHERE pb.puballtables) OR EXISTS (SELECT "
            "1 FROM pg_publication_namespace AS pn WHERE pn.pnnspid = n.oid) OR EXISTS (SELECT 1 "
            "FROM pg_publication_rel AS pr WHERE pr.prrelid = c.oid OR pr.prrelid IN (SELECT "
            "i.inhrelid FROM pg_inherits AS i WHERE i.inhparent = c.oid)), "
            "current_setting('standard_conforming_strings') = 'on', "
            "(SELECT json_agg(json_build_array(ln.nspname, lc.relname, lc.relkind::text, "
            "pg_get_expr(lc.relpartbound, lc.oid)) ORDER BY lc.relname) "
            "FROM pg_inherits AS i JOIN pg_class AS lc ON lc.oid = i.inhrelid JOIN pg_namespace "
            "AS ln ON ln.oid = lc.relnamespace WHERE i.inhparent = c.oid)::text "
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
    l.m_key = q->value(5).toString();
    l.m_quotedKey = db.quote(l.m_key);
    l.m_keyType = q->value(6).toString();
    // Swaps only where a leaf's bound says exactly which values it holds, as
    // the key's type compares them: a date or an integer range, or a list of
    // dates, integers or text. A text range admits other values than its
    // lower bound (a swap would carry another partition's rows with it).
    const bool discrete = l.m_keyType == QLatin1String("date") || isIntegerType(l.m_keyType);
    const QString why =
        strategy == QLatin1String("h") ? QStringLiteral("the target is partitioned by HASH")
        : q->value(4).toInt() != 1
            ? QStringLiteral("the target's partition key has %1 columns").arg(q->value(4).toInt())
        : q->value(5).isNull() ? QStringLiteral("the target's partition key is an expression")
        : l.m_key != dataset.partitionColumn
            ? QStringLiteral("the target is partitioned by \"%1\", not by the partition column "
                             "\"%2\"")
                  .arg(l.m_key, dataset.partitionColumn)
        : !dataset.partitionGranularity.isEmpty()
            ? QStringLiteral("the dataset's partitions are the %1 of \"%2\", which Rewind does "
                             "not match to leaf bounds")
                  .arg(dataset.partitionGranularity, l.m_key)
        : strategy == QLatin1String("r") && !discrete
            ? QStringLiteral("the target's key \"%1\" is %2: a range of it holds more values "
                             "than one partition's")
                  .arg(l.m_key, l.m_keyType)
        : strategy == QLatin1String("l") && !discrete && !isTextType(l.m_keyType)
            ? QStringLiteral("the target's key \"%1\" is %2, whose values Rewind cannot match "
                             "to the list bounds")
                  .arg(l.m_key, l.m_keyType)
        : q->value(7).toBool() ? QStringLiteral("the target has an identity column, whose "
                                                "sequence a table built beside it would not share")
        : q->value(8).toBool() ? QStringLiteral("foreign keys reference the target or leave it "
                                                "(ATTACH would check them with the parent locked)")
        : !q->value(9).toBool()
            ? QStringLiteral("a swap needs the target's owner (or a member of its role) and "
                             "CREATE on its schema")
        : q->value(10).toBool()
            ? QStringLiteral("the target has triggers, which a swap would not fire")
        : q->value(11).toBool()  ? QStringLiteral("the target is in a publication (logical "
                                                   "replication would not see a swap)")
        : !q->value(12).toBool() ? QStringLiteral("standard_conforming_strings is off")
                                 : QString();
    l.m_whole = why;
    // Labels are compared with the bounds where the key is the partition
    // column itself, and a date, an integer, or (in a list) text.
    l.m_boundsComparable =
        q->value(4).toInt() == 1 && !q->value(5).isNull() && l.m_key == dataset.partitionColumn &&
        dataset.partitionGranularity.isEmpty() &&
        (discrete || (strategy == QLatin1String("l") && isTextType(l.m_keyType)));
    if (!why.isEmpty() && !boundsOnly)
        return l;
    l.m_strategy = strategy == QLatin1String("l") ? 'l' : 'r';
    const auto leaves =
        nlohmann::json::parse(q->value(13).toString().toStdString(), nullptr, false);
    const auto text = [](const nlohmann::json &v) {
        return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString();
    };
    if (leaves.is_array())
        for (const auto &e : leaves) {
            if (!e.is_array() || e.size() != 4 || !e[3].is_string())
                continue;
            Leaf leaf;
            leaf.schema = text(e[0]);
            leaf.name = text(e[1]);
            leaf.kind = text(e[2]).isEmpty() ? 'r' : char(text(e[2])[0].toLatin1());
            leaf.bound = text(e[3]);
            if (leaf.bound == QLatin1String("DEFAULT")) {
                leaf.isDefault = true;
                l.m_default = int(l.m_leaves.size());
                l.m_leaves.push_back(leaf);
                continue;
            }
            static const QString from = QStringLiteral("FOR VALUES FROM ");
            static const QString in = QStringLiteral("FOR VALUES IN ");
            qsizetype at = 0;
            bool nullListed = false;
            if (leaf.bound.startsWith(from)) {
                at = from.size();
                auto lo = parseValues(leaf.bound, at, nullListed);
                static const QString to = QStringLiteral(" TO ");
                if (!lo || leaf.bound.mid(at, to.size()) != to)
                    continue;
                at += to.size();
                auto hi = parseValues(leaf.bound, at, nullListed);
                if (!hi || lo->size() != 1 || hi->size() != 1)
                    continue;
                leaf.from = *lo;
                leaf.to = *hi;
            } else if (leaf.bound.startsWith(in)) {
                at = in.size();
                auto values = parseValues(leaf.bound, at, nullListed);
                if (!values)
                    continue;
                leaf.from = *values;
                leaf.holdsNull = nullListed;
            } else {
                continue;
            }
            const int index = int(l.m_leaves.size());
            for (const QString &v : leaf.from)
                l.m_byValue.insert(v, index);
            l.m_leaves.push_back(leaf);
        }
    if (l.m_default >= 0)
        l.m_defaultLeaf = qualified(db, l.m_leaves[std::size_t(l.m_default)].schema,
                                    l.m_leaves[std::size_t(l.m_default)].name);
    // What one range leaf spans, when every leaf spans the same: one day
    // (a date key) or one (an integer key). It gives the bounds of a leaf the
    // publish creates.
    if (l.m_strategy == 'r') {
        const bool date = l.m_keyType == QLatin1String("date");
        bool same = true;
        for (const Leaf &leaf : l.m_leaves) {
            if (leaf.isDefault)
                continue;
            const QDate lo = dayOf(leaf.from.value(0)), hi = dayOf(leaf.to.value(0));
            const auto a = integerOf(leaf.from.value(0)), b = integerOf(leaf.to.value(0));
            same = same && (date ? lo.isValid() && hi.isValid() && lo.addDays(1) == hi
                                 : a && b && *a + 1 == *b);
        }
        l.m_step = !same ? Step::None : date ? Step::Day : Step::Integer;
    }
    return l;
}

std::optional<std::pair<QString, QString>>
PartitionLayout::leafOf(const std::optional<QString> &label) const {
    if (m_leaves.empty() || !m_boundsComparable)
        return std::nullopt;
    if (label) {
        if (const auto found = m_byValue.constFind(*label); found != m_byValue.cend())
            return std::pair{m_leaves[std::size_t(*found)].name,
                             m_leaves[std::size_t(*found)].bound};
        // Inside a range that does not start at it (a month of days).
        for (const Leaf &leaf : m_leaves)
            if (!leaf.isDefault && m_strategy == 'r' &&
                rangeHolds(leaf.from.value(0), leaf.to.value(0), *label))
                return std::pair{leaf.name, leaf.bound};
    } else {
        for (const Leaf &leaf : m_leaves)
            if (leaf.holdsNull)
                return std::pair{leaf.name, leaf.bound};
    }
    if (m_default >= 0)
        return std::pair{m_leaves[std::size_t(m_default)].name, QStringLiteral("DEFAULT")};
    return std::nullopt;
}

Status PartitionLayout::inspect(const Database &db,
                                const std::vector<std::optional<QString>> &labels) const {
    if (!m_whole.isEmpty())
        return {};
    QStringList marks;
    QVariantList binds;
    QHash<QString, int> asked; // by the leaf's oid::regclass text, once read
    QList<int> indexes;
    for (const auto &label : labels) {
        if (!label)
            continue;
        const auto found = m_byValue.constFind(*label);
        if (found == m_byValue.cend() || m_leaves[std::size_t(*found)].inspected ||
            indexes.contains(*found))
            continue;
        const Leaf &leaf = m_leaves[std::size_t(*found)];
        indexes << *found;
        marks << QStringLiteral("(?, to_regclass(?))");
        binds << *found << qualified(db, leaf.schema, leaf.name);
    }
    if (indexes.isEmpty())
        return {};
    // Per leaf: why it cannot be swapped (or ''), its owner, tablespace,
    // storage options, and grants to others than its owner.
    auto q =
        db.exec(QStringLiteral(
                    "SELECT w.i, "
                    "CASE WHEN NOT pg_has_role(lc.relowner, 'USAGE') OR NOT "
                    "has_schema_privilege(ln.oid, 'CREATE') THEN 'this role may not replace it' "
                    "WHEN lc.relrowsecurity THEN 'it has row security of its own' "
                    "WHEN EXISTS (SELECT 1 FROM pg_index AS x WHERE x.indrelid = lc.oid AND NOT "
                    "EXISTS (SELECT 1 FROM pg_inherits AS ih WHERE ih.inhrelid = x.indexrelid)) "
                    "THEN 'it has indexes of its own' "
                    "WHEN EXISTS (SELECT 1 FROM pg_constraint AS k WHERE k.conrelid = lc.oid AND "
                    "k.coninhcount = 0 AND k.conparentid = 0) THEN 'it has constraints of its own' "
                    "WHEN EXISTS (SELECT 1 FROM pg_trigger AS g WHERE g.tgrelid = lc.oid AND NOT "
                    "g.tgisinternal AND g.tgparentid = 0) THEN 'it has triggers of its own' "
                    "WHEN EXISTS (SELECT 1 FROM pg_depend AS d JOIN pg_rewrite AS r ON r.oid = "
                    "d.objid WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = lc.oid "
                    "AND d.classid = 'pg_rewrite'::regclass AND r.ev_class <> lc.oid) THEN "
                    "'views read it' ELSE '' END, "
                    "pg_get_userbyid(lc.relowner), (SELECT t.spcname FROM pg_tablespace AS t "
                    "WHERE t.oid = lc.reltablespace), array_to_string(lc.reloptions, ', '), "
                    "(SELECT json_agg(json_build_array(g.privilege_type, CASE WHEN g.grantee = 0 "
                    "THEN '' ELSE pg_get_userbyid(g.grantee) END, g.is_grantable)) FROM "
                    "aclexplode(lc.relacl) AS g WHERE g.grantee <> lc.relowner)::text "
                    "FROM (VALUES ") %
                    marks.join(QStringLiteral(", ")) %
                    QStringLiteral(") AS w (i, leaf) JOIN pg_class AS lc ON lc.oid = w.leaf JOIN "
                                   "pg_namespace AS ln ON ln.oid = lc.relnamespace"),
                binds);
    if (!q)
        return fail(q.error());
    for (int index : indexes) {
        Leaf &leaf = m_leaves[std::size_t(index)];
        leaf.inspected = true;
        leaf.refusal = QStringLiteral("it is gone"); // unless the catalog lists it below
    }
    while (q->next()) {
        const int index = q->value(0).toInt();
        if (!indexes.contains(index))
            continue;
        Leaf &leaf = m_leaves[std::size_t(index)];
        leaf.refusal = q->value(1).toString();
        leaf.owner = q->value(2).toString();
        leaf.tablespace = q->value(3).toString();
        leaf.options = q->value(4).toString();
        const auto grants =
            nlohmann::json::parse(q->value(5).toString().toStdString(), nullptr, false);
        if (grants.is_array())
            for (const auto &g : grants)
                if (g.is_array() && g.size() == 3 && g[0].is_string() && g[1].is_string())
                    leaf.grants.push_back({QString::fromStdString(g[0].get<std::string>()),
                                           QString::fromStdString(g[1].get<std::string>()),
                                           g[2].is_boolean() && g[2].get<bool>()});
    }
    return {};
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
            if (const qsizetype at = leaf.name.lastIndexOf(forms[i]); at >= 0) {
                name = leaf.name.left(at) % mine[i] % leaf.name.mid(at + forms[i].size());
                break;
            }
        if (!name.isEmpty())
            break;
    }
    if (name.isEmpty()) {
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_]"));
        QString clean = value;
        clean.replace(unsafe, QStringLiteral("_"));
        // Values that differ only where characters were replaced get names apart.
        name = m_parentName % u'_' % clean % (clean == value ? QString() : u'_' % tag(value));
    }
    const auto taken = [&](const QString &n) {
        return std::any_of(m_leaves.begin(), m_leaves.end(),
                           [&](const Leaf &leaf) { return leaf.name == n; });
    };
    if (name.toUtf8().size() > 63 || taken(name)) {
        QString head = m_parentName.left(40);
        while (head.toUtf8().size() > 40)
            head.chop(1);
        name = head % QStringLiteral("_rw_") % tag(value);
    }
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
        bool single = false;
        if (m_strategy == 'l') {
            single = leaf.from.size() == 1 && !leaf.holdsNull;
        } else if (m_keyType == QLatin1String("date")) {
            const QDate lo = dayOf(leaf.from.value(0)), hi = dayOf(leaf.to.value(0));
            single = lo.isValid() && hi.isValid() && lo.addDays(1) == hi;
        } else {
            const auto a = integerOf(leaf.from.value(0)), b = integerOf(leaf.to.value(0));
            single = a && b && *a + 1 == *b;
        }
        if (!single)
            return rows(QStringLiteral("its leaf %1 holds more than this partition (%2)")
                            .arg(leaf.name, leaf.bound));
        if (targetRows == 0)
            return rows(QStringLiteral("its leaf %1 is empty: the rows are inserted, no row "
                                       "is replaced")
                            .arg(leaf.name));
        if (!leaf.inspected)
            return rows(QStringLiteral("its leaf %1 was not inspected").arg(leaf.name));
        if (!leaf.refusal.isEmpty())
            return rows(
                QStringLiteral("its leaf %1 cannot be swapped: %2").arg(leaf.name, leaf.refusal));

        c.method = PublishMethod::Swap;
        c.leaf = {leaf.schema, leaf.name,       leaf.bound,   checkFor(leaf), true,
                  leaf.owner,  leaf.tablespace, leaf.options, leaf.grants};
        return c;
    }
    // No leaf starts at the value: one may still hold it.
    const QDate day = dayOf(value);
    const auto number = integerOf(value);
    for (const Leaf &leaf : m_leaves)
        if (!leaf.isDefault && m_strategy == 'r' &&
            rangeHolds(leaf.from.value(0), leaf.to.value(0), value))
            return rows(QStringLiteral("its leaf %1 holds more than this partition (%2)")
                            .arg(leaf.name, leaf.bound));
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
    c.leaf = {
        created.schema, created.name, created.bound, checkFor(created), false, {}, {}, {}, {}};
    return c;
}

} // namespace rw
