#include "core/dbt/dbtmap.h"

#include "core/dbt/jinja.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QStringBuilder>

namespace rw::dbt {

namespace {

using OJson = nlohmann::ordered_json;

std::string s(const QString &text) {
    return text.toStdString();
}

// A column name as dbt configs spell one: a bare name (folded to lower case
// on PostgreSQL, as the server folds it) or a quoted one, kept as it is;
// empty for an expression.
QString columnName(const QString &text, bool fold) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z_][A-Za-z0-9_$]*$"));
    const QString t = text.trimmed();
    if (plain.match(t).hasMatch())
        return fold ? t.toLower() : t;
    if (t.size() > 2 && (t.front() == u'"' || t.front() == u'`') && t.back() == t.front()) {
        QString inner = t.mid(1, t.size() - 2);
        const QString doubled = QString(2, t.front());
        if (!QString(inner).replace(doubled, QString()).contains(t.front()))
            return inner.replace(doubled, QString(t.front()));
    }
    return {};
}

QString quoted(const QString &column) {
    return u'"' % QString(column).replace(u'"', QStringLiteral("\"\"")) % u'"';
}

// relation_name split into its parts, quotes removed ("db"."schema"."name",
// `db`.`schema`.`name`, or bare).
QStringList relationParts(const QString &relation) {
    QStringList parts;
    QString part;
    QChar quote;
    for (qsizetype i = 0; i < relation.size(); ++i) {
        const QChar c = relation[i];
        if (!quote.isNull()) {
            if (c == quote && i + 1 < relation.size() && relation[i + 1] == quote)
                part += relation[++i]; // "" inside quotes: one "
            else if (c == quote)
                quote = QChar();
            else
                part += c;
        } else if (c == u'"' || c == u'`') {
            quote = c;
        } else if (c == u'.') {
            parts << part;
            part.clear();
        } else if (!c.isSpace()) {
            part += c;
        }
    }
    parts << part;
    return parts;
}

// The table a relation name is, as the spec names tables on the engine
// (empty with `why` set where it cannot be one); in `sql`, as SQL names it.
QString tableOfRelation(const QString &relation, const MapOptions &o, QString &why,
                        QString *sql = nullptr) {
    if (relation.isEmpty()) {
        why = QStringLiteral("it has no relation_name (no table of its own)");
        return {};
    }
    QStringList parts = relationParts(relation);
    if (o.engine == QLatin1String("sqlite")) {
        parts = parts.mid(parts.size() - 1);
    } else if (parts.size() == 3 && !o.database.isEmpty() && parts[0] != o.database) {
        why = QStringLiteral("its relation %1 is in database \"%2\", the connection's is \"%3\"")
                  .arg(relation, parts[0], o.database);
        return {};
    } else {
        parts = parts.mid(std::max<qsizetype>(0, parts.size() - 2));
    }
    if (sql) {
        QStringList quotedParts;
        for (const QString &p : parts)
            quotedParts << u'"' % QString(p).replace(u'"', QStringLiteral("\"\"")) % u'"';
        *sql = quotedParts.join(u'.');
    }
    return parts.join(u'.');
}

QString tableOf(const Node &n, const MapOptions &o, QString &why) {
    return tableOfRelation(n.relationName, o, why);
}

// The node ref(package, name, v=version) names: the latest version where
// there are several; null when none.
const Node *refNode(const QString &package, const QString &name, const QString &version,
                    const Manifest &m) {
    for (const Node &n : m.nodes) {
        if (n.name != name || (!package.isEmpty() && n.packageName != package))
            continue;
        const QString wanted = !version.isEmpty() ? version : n.latestVersion;
        if (!n.version.isEmpty() && n.version != wanted)
            continue;
        return &n;
    }
    return nullptr;
}

QString renderedRawCode(const Node &n, const Manifest &m, const MapOptions &o, QString &why);

// The SELECT a dataset runs: the compiled code, or the raw code with its
// Jinja rendered (the common subset; jinja.h).
// dbt's compiled SQL names relations "database"."schema"."name"; PostgreSQL
// refuses a database other than the connection's. The connection's own is
// left out, so that the spec also runs on a copy of the warehouse (a
// restored backup, a staging database) under another name.
QString withoutDatabase(const QString &sql, const Node &n, const MapOptions &o) {
    if (n.database.isEmpty() || o.engine == QLatin1String("sqlite") || n.database != o.database)
        return sql;
    const QRegularExpression qualifier(QStringLiteral("(?<![\\w.\"`])\"") +
                                       QRegularExpression::escape(n.database) +
                                       QStringLiteral("\"\\.(?=\")"));
    return QString(sql).remove(qualifier);
}

QString transformOf(const Node &n, const Manifest &m, const MapOptions &o, QString &why) {
    if (n.compiled) {
        // Compiled while the table existed, is_incremental() was true: the
        // SQL selects only rows newer than the table's.
        const QRegularExpression own(QStringLiteral("(?<![\\w.\"`])") +
                                     QRegularExpression::escape(n.relationName) +
                                     QStringLiteral("(?![\\w\"`])"));
        if (n.relationName.isEmpty() || !own.match(n.compiledCode).hasMatch())
            return withoutDatabase(n.compiledCode.trimmed(), n, o);
        // The raw code rendered with is_incremental() false is the backfill's
        // logic, where Rewind can render it.
        QString renderWhy;
        const QString rendered = renderedRawCode(n, m, o, renderWhy);
        if (!rendered.isEmpty())
            return rendered;
        why = QStringLiteral("its compiled_code reads its own table %1 (compiled as an "
                             "incremental run), and its raw_code cannot be rendered instead (%2): "
                             "give the project folder to --dbt, or run `dbt compile "
                             "--full-refresh`")
                  .arg(n.relationName, renderWhy);
        return {};
    }
    return renderedRawCode(n, m, o, why);
}

// The raw code with its Jinja rendered (jinja.h); empty with `why` set where
// it cannot be.
QString renderedRawCode(const Node &n, const Manifest &m, const MapOptions &o, QString &why) {
    JinjaNames names;
    names.ref = [&](const QString &package, const QString &name,
                    const QString &version) -> std::optional<QString> {
        const Node *target = refNode(package, name, version, m);
        QString unused, sql;
        if (!target || tableOfRelation(target->relationName, o, unused, &sql).isEmpty())
            return std::nullopt;
        return sql;
    };
    names.source = [&](const QString &sourceName, const QString &table) -> std::optional<QString> {
        for (const Source &s : m.sources) {
            if (s.sourceName != sourceName || s.name != table)
                continue;
            QString unused, sql;
            if (tableOfRelation(s.relationName, o, unused, &sql).isEmpty())
                return std::nullopt;
            return sql;
        }
        return std::nullopt;
    };
    QString unused;
    tableOfRelation(n.relationName, o, unused, &names.self);
    auto rendered = renderJinja(n.rawCode, names, why);
    if (!rendered)
        return {};
    if (rendered->isEmpty()) {
        why = QStringLiteral("it has neither compiled_code nor raw_code");
        return {};
    }
    // {{ this }} outside is_incremental(): the model reads its own table.
    if (!names.self.isEmpty() && rendered->contains(names.self)) {
        why = QStringLiteral("its code reads its own table %1 even on a full refresh: Rewind "
                             "rebuilds a partition from sources only")
                  .arg(names.self);
        return {};
    }
    return *rendered;
}

QString sqlLiteral(const nlohmann::json &v, bool quote) {
    if (quote && !v.is_string()) // dbt quotes every value, numbers too
        return u'\'' % QString::fromStdString(v.dump()).replace(u'\'', QStringLiteral("''")) %
               u'\'';
    if (v.is_string())
        return quote ? u'\'' %
                           QString::fromStdString(v.get<std::string>())
                               .replace(u'\'', QStringLiteral("''")) %
                           u'\''
                     : QString::fromStdString(v.get<std::string>());
    return QString::fromStdString(v.dump());
}

// ref('name'), ref('package', 'name'), ref('name', v=2) / version=2 in a
// test's `to`: that node's table (the latest version where there are
// several). source() is not mapped: empty.
QString refTarget(const QString &to, const Manifest &m, const MapOptions &o) {
    static const QRegularExpression ref(
        QStringLiteral("^\\s*ref\\(\\s*['\"]([^'\"]+)['\"]\\s*(?:,\\s*['\"]([^'\"]+)['\"]\\s*)?(?:,"
                       "\\s*(?:v|version)"
                       "\\s*=\\s*['\"]?([^'\"\\s)]+)['\"]?\\s*)?\\)\\s*$"));
    const auto match = ref.match(to);
    if (!match.hasMatch())
        return {};
    const QString package = match.captured(2).isEmpty() ? QString() : match.captured(1);
    const QString name = match.captured(2).isEmpty() ? match.captured(1) : match.captured(2);
    const Node *n = refNode(package, name, match.captured(3), m);
    QString why;
    return n ? tableOf(*n, o, why) : QString();
}

bool folds(const MapOptions &o) {
    return o.engine != QLatin1String("sqlite");
}

// The gates of a node's tests; the others in `unmapped`, with the reason.
// `written`: columns Rewind writes after staging (a snapshot's validity),
// which the staged rows do not hold.
OJson checksOf(const Node &n, const QStringList &key, const Manifest &m, const MapOptions &o,
               std::vector<std::pair<QString, QString>> &unmapped,
               const QStringList &written = {}) {
    OJson checks = OJson::array();
    for (const Test &t : n.tests) {
        const auto skip = [&](const QString &why) { unmapped.emplace_back(t.uniqueId, why); };
        const QString column = columnName(t.column, folds(o));
        const QString name = t.name % (t.column.isEmpty() ? QString() : u':' % t.column);
        if (t.severity == QLatin1String("warn")) {
            skip(
                QStringLiteral("severity warn: dbt only warns, a gate would hold partitions back"));
            continue;
        }
        if (!t.where.isEmpty()) {
            skip(QStringLiteral("filtered by where (%1)").arg(t.where));
            continue;
        }
        if (!t.errorIf.isEmpty() && t.errorIf != QLatin1String("!= 0") &&
            t.errorIf != QLatin1String("!=0")) {
            skip(QStringLiteral("error_if %1").arg(t.errorIf));
            continue;
        }
        if (!t.nameSpace.isEmpty()) {
            skip(QStringLiteral("%1.%2, a package's test").arg(t.nameSpace, t.name));
            continue;
        }
        if (column.isEmpty()) {
            skip(QStringLiteral("no column (or an expression) to test"));
            continue;
        }
        if (written.contains(column)) {
            skip(QStringLiteral("on %1, which Rewind writes as it applies the versions: not in "
                                "the staged rows a gate reads")
                     .arg(column));
            continue;
        }
        if (t.name == QLatin1String("not_null")) {
            checks.push_back({{"type", "not_null"}, {"name", s(name)}, {"columns", {s(column)}}});
        } else if (t.name == QLatin1String("unique")) {
            if (key == QStringList{column}) {
                // The stage keeps one row per key: a gate on it cannot fail.
                skip(QStringLiteral("unique on the key: Rewind keeps one row per key"));
                continue;
            }
            checks.push_back(
                {{"type", "sql"},
                 {"name", s(name)},
                 {"query", s(QStringLiteral("SELECT COUNT(%1) - COUNT(DISTINCT %1) FROM {staged}")
                                 .arg(quoted(column)))},
                 {"max", 0}});
        } else if (t.name == QLatin1String("accepted_values")) {
            const auto values = t.kwargs.find("values");
            if (values == t.kwargs.end() || !values->is_array() || values->empty()) {
                skip(QStringLiteral("accepted_values without values"));
                continue;
            }
            const bool quote = !t.kwargs.contains("quote") || !t.kwargs["quote"].is_boolean() ||
                               t.kwargs["quote"].get<bool>();
            QStringList list;
            for (const auto &v : *values)
                if (!v.is_null()) // NULLs pass anyway: only non-NULL values are tested
                    list << sqlLiteral(v, quote);
            if (list.isEmpty()) {
                skip(QStringLiteral("accepted_values lists only null"));
                continue;
            }
            checks.push_back(
                {{"type", "sql"},
                 {"name", s(name)},
                 {"query", s(QStringLiteral("SELECT COUNT(*) FROM {staged} WHERE %1 IS NOT NULL "
                                            "AND %1 NOT IN (%2)")
                                 .arg(quoted(column), list.join(QStringLiteral(", "))))},
                 {"max", 0}});
        } else if (t.name == QLatin1String("relationships")) {
            const QString to = t.kwargs.contains("to") && t.kwargs["to"].is_string()
                                   ? QString::fromStdString(t.kwargs["to"].get<std::string>())
                                   : QString();
            const QString field =
                t.kwargs.contains("field") && t.kwargs["field"].is_string()
                    ? columnName(QString::fromStdString(t.kwargs["field"].get<std::string>()),
                                 folds(o))
                    : QString();
            const QString table = refTarget(to, m, o);
            if (table.isEmpty() || field.isEmpty()) {
                skip(QStringLiteral("relationships to %1: not a model of this manifest")
                         .arg(to.isEmpty() ? QStringLiteral("(nothing)") : to));
                continue;
            }
            checks.push_back({{"type", "references"},
                              {"name", s(name)},
                              {"column", s(column)},
                              {"table", s(table)},
                              {"to", s(field)}});
        } else {
            skip(QStringLiteral("no gate stands for dbt's %1 test").arg(t.name));
        }
    }
    return checks;
}

// A snapshot as an scd2 dataset: partitions are the updated_at values (a
// version's valid_from is its row's updated_at, as dbt's is), applied in
// order. The transform adds dbt's dbt_scd_id and dbt_updated_at as dbt
// computes them, so that dbt's next snapshot run continues the history.
MappedNode mapSnapshot(const Node &n, const Manifest &m, const MapOptions &o, MappedNode out) {
    const auto leaveOut = [&](const QString &why) {
        out.reason = why;
        return out;
    };
    QStringList key;
    for (const QString &k : n.uniqueKey) {
        key << columnName(k, folds(o));
        if (key.back().isEmpty())
            return leaveOut(
                QStringLiteral("its unique_key \"%1\" is an expression, not a column").arg(k));
    }
    if (key.isEmpty())
        return leaveOut(QStringLiteral("a snapshot with no unique_key"));
    const QString strategy =
        n.snapshotStrategy.isEmpty() ? QStringLiteral("timestamp") : n.snapshotStrategy;
    if (strategy != QLatin1String("timestamp") && strategy != QLatin1String("check"))
        return leaveOut(
            QStringLiteral("snapshot strategy %1 is not one Rewind maps").arg(strategy));
    if (n.updatedAt.isEmpty() && strategy != QLatin1String("check"))
        return leaveOut(QStringLiteral("a timestamp snapshot without updated_at"));
    // A check snapshot without updated_at dates each version by the run that
    // took it, as dbt does: the dataset is dated by its run ({snapshot_time}).
    const bool byRun = n.updatedAt.isEmpty();
    const QString updatedAt = byRun ? n.updatedAtColumn : columnName(n.updatedAt, folds(o));
    if (updatedAt.isEmpty())
        return leaveOut(QStringLiteral("its updated_at \"%1\" is an expression, not a column")
                            .arg(n.updatedAt));
    if (n.hardDeletes == QLatin1String("new_record"))
        return leaveOut(QStringLiteral("hard_deletes new_record: Rewind closes the versions of "
                                       "keys gone from the source (invalidate), it adds no "
                                       "deletion records"));
    if (n.hardDeletes == QLatin1String("invalidate") && !byRun)
        return leaveOut(QStringLiteral("hard_deletes invalidate with updated_at: dbt dates an "
                                       "invalidation by its run, Rewind this snapshot's versions "
                                       "by %1")
                            .arg(updatedAt));
    if (!n.validToCurrent.isEmpty())
        return leaveOut(QStringLiteral("dbt_valid_to_current %1: Rewind's current versions have "
                                       "a NULL valid_to")
                            .arg(n.validToCurrent));
    OJson tracked;
    if (strategy == QLatin1String("timestamp")) {
        // A new version exactly when updated_at moves, as dbt's strategy.
        tracked = OJson::array({s(updatedAt)});
    } else if (n.checkAll) {
        tracked = "all";
    } else {
        tracked = OJson::array();
        for (const QString &c : n.checkCols) {
            const QString col = columnName(c, folds(o));
            if (col.isEmpty())
                return leaveOut(
                    QStringLiteral("its check_cols \"%1\" is an expression, not a column").arg(c));
            tracked.push_back(s(col));
        }
        if (tracked.empty())
            return leaveOut(QStringLiteral("a check snapshot with no check_cols"));
    }

    QString why;
    const QString target = tableOf(n, o, why);
    if (target.isEmpty())
        return leaveOut(why);
    const QString select = transformOf(n, m, o, why);
    if (select.isEmpty())
        return leaveOut(why);
    // dbt's snapshot_hash_arguments: md5 of the key and updated_at (or the
    // run's time) as text.
    // (SQLite keeps a time as ISO text; its CAST to TIMESTAMP would make a number.)
    const QString at = !byRun ? QStringLiteral("s.") % quoted(updatedAt)
                       : o.engine == QLatin1String("sqlite")
                           ? QStringLiteral("{snapshot_time}")
                           : QStringLiteral("CAST({snapshot_time} AS TIMESTAMP)");
    QStringList hashed;
    for (const QString &c : key)
        hashed << QStringLiteral("COALESCE(CAST(s.%1 AS VARCHAR), '')").arg(quoted(c));
    hashed << QStringLiteral("COALESCE(CAST(%1 AS VARCHAR), '')").arg(at);
    const QString transform =
        QStringLiteral("SELECT s.*, md5(%1) AS %2, %3 AS %4 FROM (\n%5\n) AS s")
            .arg(hashed.join(QStringLiteral(" || '|' || ")), quoted(n.scdIdColumn), at,
                 quoted(n.updatedAtColumn), select);

    OJson keyJson = OJson::array();
    for (const QString &c : key)
        keyJson.push_back(s(c));
    OJson spec{{"transform", s(transform)},
               {"target", s(target)},
               {"partition_column", s(updatedAt)},
               {"key", keyJson},
               {"order_by", s(updatedAt)},
               {"write", "scd2"},
               {"scd2",
                {{"tracked", tracked},
                 {"valid_from", s(n.validFromColumn)},
                 {"valid_to", s(n.validToColumn)}}}};
    if (n.hardDeletes == QLatin1String("invalidate"))
        spec["scd2"]["hard_deletes"] = "invalidate";
    // dbt's check of all columns compares the model's own: not the scd id,
    // which a version dated by its run changes each run.
    if (byRun && n.checkAll)
        spec["scd2"]["not_tracked"] = OJson::array({s(n.scdIdColumn)});
    OJson checks = checksOf(n, key, m, o, out.unmappedTests, {n.validFromColumn, n.validToColumn});
    out.checks = int(checks.size());
    if (!checks.empty())
        spec["checks"] = checks;
    spec["dbt"] = {{"unique_id", s(n.uniqueId)}};
    if (!n.checksum.isEmpty())
        spec["dbt"]["checksum"] = s(n.checksum);
    out.mapped = true;
    out.write = QStringLiteral("scd2");
    out.key = key;
    out.partition = updatedAt;
    out.spec = std::move(spec);
    return out;
}

MappedNode mapNode(const Node &n, const Manifest &m, const MapOptions &o) {
    MappedNode out;
    out.uniqueId = n.uniqueId;
    out.resourceType = n.resourceType;
    out.dataset = n.name;
    const auto leaveOut = [&](const QString &why) {
        out.reason = why;
        return out;
    };
    if (n.resourceType == QLatin1String("seed"))
        return leaveOut(QStringLiteral("a seed: loaded from its CSV by dbt seed, not built from a "
                                       "source"));
    if (n.resourceType == QLatin1String("snapshot"))
        return mapSnapshot(n, m, o, out);
    if (n.materialized == QLatin1String("view"))
        return leaveOut(QStringLiteral("a view: it stores nothing to backfill"));
    if (n.materialized == QLatin1String("ephemeral"))
        return leaveOut(QStringLiteral("ephemeral: inlined into the models that use it, no table "
                                       "of its own"));
    for (const QString &k : n.uniqueKey)
        if (columnName(k, folds(o)).isEmpty())
            return leaveOut(
                QStringLiteral("its unique_key \"%1\" is an expression, not a column").arg(k));
    QStringList key;
    for (const QString &k : n.uniqueKey)
        key << columnName(k, folds(o));

    QString partition, grain;
    if (n.materialized == QLatin1String("table")) {
        out.write = QStringLiteral("overwrite_partition"); // one whole-table partition
    } else if (n.materialized == QLatin1String("incremental")) {
        // dbt-postgres's default with a unique_key is delete+insert.
        const QString strategy = !n.incrementalStrategy.isEmpty() ? n.incrementalStrategy
                                 : key.isEmpty()                  ? QStringLiteral("append")
                                                                  : QStringLiteral("delete+insert");
        if (strategy == QLatin1String("merge") || strategy == QLatin1String("delete+insert")) {
            if (key.isEmpty())
                return leaveOut(
                    QStringLiteral("incremental strategy %1 with no unique_key").arg(strategy));
            // delete+insert keeps every row of a key (a key may be a day):
            // Rewind's delete_insert, as dbt runs it. (merge: the database
            // refuses two source rows for one key; Rewind keeps the latest.)
            out.write = strategy == QLatin1String("merge") ? QStringLiteral("merge")
                                                           : QStringLiteral("delete_insert");
            // dbt's predicates narrow the rows of the target a run reads
            // (SQL on DBT_INTERNAL_DEST); Rewind narrows by partition.
            if (!n.incrementalPredicates.isEmpty())
                return leaveOut(QStringLiteral("incremental_predicates (%1): Rewind narrows a run "
                                               "by its partitions, not by SQL on the target")
                                    .arg(n.incrementalPredicates.join(QStringLiteral("; "))));
        } else if (strategy == QLatin1String("insert_overwrite") ||
                   strategy == QLatin1String("microbatch")) {
            out.write = QStringLiteral("overwrite_partition");
        } else if (strategy == QLatin1String("append")) {
            out.write = QStringLiteral("append"); // a re-run appends its rows again, as dbt's
        } else {
            return leaveOut(
                QStringLiteral("incremental strategy %1 is not one Rewind maps").arg(strategy));
        }
        const bool microbatch = strategy == QLatin1String("microbatch");
        const QString field = microbatch      ? n.eventTime
                              : n.partitionBy ? n.partitionBy->field
                                              : QString();
        const QString granularity = microbatch      ? n.batchSize
                                    : n.partitionBy ? n.partitionBy->granularity
                                                    : QString();
        const QString type = n.partitionBy ? n.partitionBy->dataType : QString();
        if (!field.isEmpty()) {
            // A date's (or an integer's) own values are partitions; a
            // timestamp's hour, day or month (BigQuery's default grain is a
            // day; microbatch's is its batch_size) is partition_granularity.
            const bool byValue = !microbatch && (type.isEmpty() || type == QLatin1String("date") ||
                                                 type == QLatin1String("int64"));
            if (!byValue) {
                grain = granularity.isEmpty() ? QStringLiteral("day") : granularity;
                if (grain != QLatin1String("hour") && grain != QLatin1String("day") &&
                    grain != QLatin1String("month"))
                    return leaveOut(QStringLiteral("partitioned by the %1 of %2: Rewind's "
                                                   "partitions are hours, days or months")
                                        .arg(grain, field));
            } else if (!granularity.isEmpty() && granularity != QLatin1String("day")) {
                return leaveOut(QStringLiteral("partitioned by the %1 of %2, a %3: Rewind takes "
                                               "the hour, day or month of a timestamp")
                                    .arg(granularity, field, type));
            }
            partition = columnName(field, folds(o));
            if (partition.isEmpty())
                return leaveOut(
                    QStringLiteral("its partition \"%1\" is an expression, not a column")
                        .arg(field));
            // A merge or a delete+insert matches keys across the table:
            // partitions only where the partition is part of the key (a
            // row cannot move).
            if ((out.write == QLatin1String("merge") ||
                 out.write == QLatin1String("delete_insert")) &&
                !key.contains(partition)) {
                partition.clear();
                grain.clear();
            }
        } else if (out.write == QLatin1String("overwrite_partition")) {
            return leaveOut(
                QStringLiteral("incremental strategy %1 without partition_by").arg(strategy));
        }
    } else {
        return leaveOut(
            QStringLiteral("materialized as %1, which Rewind does not map")
                .arg(n.materialized.isEmpty() ? QStringLiteral("(nothing)") : n.materialized));
    }

    QString why;
    const QString target = tableOf(n, o, why);
    if (target.isEmpty())
        return leaveOut(why);
    const QString transform = transformOf(n, m, o, why);
    if (transform.isEmpty())
        return leaveOut(why);

    OJson spec{{"transform", s(transform)}, {"target", s(target)}};
    if (!partition.isEmpty())
        spec["partition_column"] = s(partition);
    if (!grain.isEmpty())
        spec["partition_granularity"] = s(grain);
    const bool keyed =
        out.write == QLatin1String("merge") || out.write == QLatin1String("delete_insert");
    if (keyed) { // overwrites and appends keep every row, as dbt does
        OJson k = OJson::array();
        for (const QString &c : key)
            k.push_back(s(c));
        spec["key"] = k;
    }
    if (out.write == QLatin1String("merge"))
        for (const auto &[field, list] :
             {std::pair{"merge_update_columns", &n.mergeUpdateColumns},
              std::pair{"merge_exclude_columns", &n.mergeExcludeColumns}})
            if (!list->isEmpty()) {
                OJson cols = OJson::array();
                for (const QString &c : *list)
                    cols.push_back(s(columnName(c, folds(o))));
                spec[field] = cols;
            }
    spec["write"] = s(out.write);
    if (n.onSchemaChange == QLatin1String("append_new_columns") ||
        n.onSchemaChange == QLatin1String("sync_all_columns") ||
        n.onSchemaChange == QLatin1String("fail"))
        spec["on_schema_change"] = s(n.onSchemaChange);
    // Only a merge keeps one staged row per key (a unique test on its key cannot fail).
    OJson checks = checksOf(n, out.write == QLatin1String("merge") ? key : QStringList(), m, o,
                            out.unmappedTests);
    out.checks = int(checks.size());
    if (!checks.empty())
        spec["checks"] = checks;
    spec["dbt"] = {{"unique_id", s(n.uniqueId)}};
    if (!n.checksum.isEmpty())
        spec["dbt"]["checksum"] = s(n.checksum);
    out.mapped = true;
    if (keyed)
        out.key = key;
    out.partition = partition;
    out.granularity = grain;
    out.spec = std::move(spec);
    return out;
}

} // namespace

std::vector<MappedNode> mapManifest(const Manifest &manifest, const MapOptions &options) {
    std::vector<MappedNode> out;
    QHash<QString, int> names;
    for (const Node &n : manifest.nodes)
        ++names[n.name % (n.version.isEmpty() ? QString() : QStringLiteral("_v") % n.version)];
    QSet<QString> taken;
    for (const Node &n : manifest.nodes) {
        MappedNode m = mapNode(n, manifest, options);
        // A versioned model is name_vN; the same name in two packages is
        // package_name; a name still taken is left out.
        m.dataset = n.name % (n.version.isEmpty() ? QString() : QStringLiteral("_v") % n.version);
        if (names.value(m.dataset) > 1)
            m.dataset = n.packageName % u'_' % m.dataset;
        if (m.mapped && taken.contains(m.dataset)) {
            m.mapped = false;
            m.reason = QStringLiteral("another node already became dataset \"%1\"").arg(m.dataset);
            m.spec = {};
        }
        if (m.mapped)
            taken.insert(m.dataset);
        out.push_back(std::move(m));
    }
    return out;
}

nlohmann::ordered_json specOf(const std::vector<MappedNode> &nodes) {
    OJson datasets = OJson::object();
    for (const MappedNode &n : nodes)
        if (n.mapped)
            datasets[s(n.dataset)] = n.spec;
    return {{"datasets", datasets}};
}

OJson updateSpec(const OJson &existing, const std::vector<MappedNode> &nodes, SpecUpdate &report) {
    QHash<QString, const MappedNode *> byId;
    for (const MappedNode &n : nodes)
        byId.insert(n.uniqueId, &n);
    QSet<QString> placed; // unique_ids already in the spec
    OJson out = existing;
    OJson datasets = OJson::object();
    const OJson &old = existing.contains("datasets") && existing["datasets"].is_object()
                           ? existing["datasets"]
                           : OJson::object();
    for (const auto &[name, d] : old.items()) {
        const QString dataset = QString::fromStdString(name);
        const bool fromDbt = d.is_object() && d.contains("dbt") && d["dbt"].is_object() &&
                             d["dbt"].contains("unique_id") && d["dbt"]["unique_id"].is_string();
        if (!fromDbt) {
            datasets[name] = d;
            report.kept << dataset;
            continue;
        }
        const QString id = QString::fromStdString(d["dbt"]["unique_id"].get<std::string>());
        placed.insert(id);
        const MappedNode *n = byId.value(id);
        if (!n) {
            report.removed.emplace_back(dataset,
                                        QStringLiteral("%1 is no longer in the manifest").arg(id));
        } else if (!n->mapped) {
            report.removed.emplace_back(dataset,
                                        QStringLiteral("%1 no longer maps: %2").arg(id, n->reason));
        } else {
            datasets[name] = n->spec; // under the name the spec gave it
            report.replaced << dataset;
        }
    }
    for (const MappedNode &n : nodes) {
        if (!n.mapped || placed.contains(n.uniqueId))
            continue;
        const std::string name = s(n.dataset);
        if (datasets.contains(name)) {
            report.skipped.emplace_back(
                n.uniqueId, QStringLiteral("the spec already has a dataset \"%1\"").arg(n.dataset));
            continue;
        }
        datasets[name] = n.spec;
        report.added << n.dataset;
    }
    out["datasets"] = datasets;
    return out;
}

} // namespace rw::dbt
