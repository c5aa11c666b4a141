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

bool isIntegerType(const QString &type) {
    return type == QLatin1String("smallint") || type == QLatin1String("integer") ||
           type == QLatin1String("bigint");
}

// Not character(n): its values print padded in a bound, and trimmed as labels.
bool isTextType(const QString &type) {
    return type == QLatin1String("text") || type.startsWith(QLatin1String("character varying"));
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
                        : QStringLiteral("a merge changes rows in place");
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
            "EXISTS (SELECT 1 FROM pg_trigger AS g WHERE g.tgrelid = c.oid AND NOT "
            "g.tgisinternal), "
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
        const QDate day = dayOf(*label);
        const auto number = integerOf(*label);
        for (const Leaf &leaf : m_leaves) {
            if (leaf.isDefault || m_strategy != 'r')
                continue;
            const QString &lo = leaf.from.value(0), &hi = leaf.to.value(0);
            const bool minLo = lo == QLatin1String("MINVALUE"),
                       maxHi = hi == QLatin1String("MAXVALUE");
            bool holds = false;
            if (day.isValid() && (minLo || dayOf(lo).isValid()) && (maxHi || dayOf(hi).isValid()))
                holds = (minLo || dayOf(lo) <= day) && (maxHi || day < dayOf(hi));
            else if (number && (minLo || integerOf(lo)) && (maxHi || integerOf(hi)))
                holds = (minLo || *integerOf(lo) <= *number) && (maxHi || *number < *integerOf(hi));
            if (holds)
                return std::pair{leaf.name, leaf.bound};
        }
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
    c.leaf = {
        created.schema, created.name, created.bound, checkFor(created), false, {}, {}, {}, {}};
    return c;
}

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
