// validateSpec: checks a parsed spec against the database catalog.
#include "core/sql/controlschema.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"

#include <QSet>
#include <QStringBuilder>
#include <algorithm>

namespace rw {

namespace {

// Finds the first keyword and any statement separator outside literals,
// quoted identifiers and comments.
struct SqlShape {
    QString firstWord;
    bool moreThanOneStatement = false;
};

SqlShape shapeOf(const QString &sql) {
    SqlShape shape;
    bool sawSeparator = false;
    const qsizetype n = sql.size();
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = sql.at(i);
        if (c == u'-' && i + 1 < n && sql.at(i + 1) == u'-') {
            while (i < n && sql.at(i) != u'\n')
                ++i;
            continue;
        }
        if (c == u'/' && i + 1 < n && sql.at(i + 1) == u'*') {
            const qsizetype end = sql.indexOf(QLatin1String("*/"), i + 2);
            i = end < 0 ? n : end + 1;
            continue;
        }
        if (c.isSpace())
            continue;
        if (sawSeparator) { // anything but blanks and comments after a ';'
            if (c != u';')
                shape.moreThanOneStatement = true;
            continue;
        }
        if (c == u'\'' || c == u'"' || c == u'`' || c == u'[') {
            const QChar close = c == u'[' ? u']' : c;
            ++i;
            while (i < n && sql.at(i) != close)
                ++i;
            continue;
        }
        if (c == u';') {
            sawSeparator = true;
            continue;
        }
        if (shape.firstWord.isEmpty() && c.isLetter()) {
            qsizetype j = i;
            while (j < n && (sql.at(j).isLetterOrNumber() || sql.at(j) == u'_'))
                ++j;
            shape.firstWord = sql.mid(i, j - i).toUpper();
            i = j - 1;
        } else if (shape.firstWord.isEmpty()) {
            shape.firstWord = c;
        }
    }
    return shape;
}

// The engine's complaint without our "SQL error:" prefix or the statement.
QString firstLine(const QString &message) {
    QString line = message.section(u'\n', 0, 0);
    if (line.startsWith(QLatin1String("SQL error: ")))
        line = line.mid(11);
    return line;
}

class Validator {
public:
    Validator(const Spec &spec, const Database &db)
        : m_spec(spec)
        , m_db(db) {}

    // Every problem, by "dataset:NAME" / "stream:NAME".
    Result<QMap<QString, QStringList>> problems() {
        if (auto s = check(); !s)
            return fail(s.error());
        return m_byItem;
    }

    Status run() {
        if (auto s = check(); !s)
            return s;
        if (m_errors.isEmpty())
            return {};
        QStringList lines;
        for (const QString &e : m_errors)
            lines << QStringLiteral("spec ") % m_spec.path % QStringLiteral(": ") % e;
        return badInput(lines.join(u'\n'));
    }

private:
    Status check() {
        auto relations = m_db.relations();
        if (!relations)
            return fail(relations.error());
        m_relations = QSet<QString>(relations->begin(), relations->end());
        for (const auto &d : m_spec.datasets) {
            m_current = QStringLiteral("dataset:") % d.name;
            dataset(d);
        }
        for (const auto &s : m_spec.streams) {
            m_current = QStringLiteral("stream:") % s.name;
            stream(s);
        }
        return {};
    }

    void error(const QString &context, const QString &field, const QString &what) {
        m_errors << context % QStringLiteral(": \"") % field % QStringLiteral("\": ") % what;
        // Per item, without the item's own name but with where in it
        // ("checks[2] \"table\": ..."), as the reason shown beside it.
        const QString kind = m_current.section(u':', 0, 0), name = m_current.section(u':', 1);
        const QString own = kind % QStringLiteral(" \"") % name % QStringLiteral("\": ");
        const QString where = context.startsWith(own) ? context.mid(own.size()) % u' ' : QString();
        m_byItem[m_current] << where % QStringLiteral("\"") % field % QStringLiteral("\": ") % what;
    }

    // `databaseFilled`: also those the database fills itself (a DEFAULT,
    // an identity, a generated column).
    QStringList columnsOf(const QString &relation, bool databaseFilled = true) {
        auto cols = m_db.columns(relation);
        QStringList names;
        if (cols)
            for (const auto &c : *cols)
                if (databaseFilled || !c.databaseFilled)
                    names << c.name;
        return names;
    }

    static QString listed(const QStringList &names) {
        return QStringLiteral(" (columns: ") % names.join(u", ") % u')';
    }

    // Listed by the catalog, or a name that means a relation some other way
    // (public.fact_sales on PostgreSQL).
    bool exists(const QString &name) const {
        return m_relations.contains(name) || m_db.hasRelation(name).value_or(false);
    }

    // Checks that `relation` exists and is not one of Rewind's own tables.
    bool relation(const QString &context, const QString &field, const QString &name) {
        if (controlschema::isControlTable(name)) {
            error(context, field,
                  QStringLiteral("\"") % name %
                      QStringLiteral("\" is one of Rewind's own control tables"));
            return false;
        }
        if (!exists(name)) {
            QString why;
            if (auto home = m_db.newTableHome(name);
                home && *home && !(*home)->schemaExists && !(*home)->schema.isEmpty())
                why = QStringLiteral(": schema \"") % (*home)->schema %
                      QStringLiteral("\" does not exist");
            error(context, field,
                  QStringLiteral("no table or view named \"") % name %
                      QStringLiteral("\" in the database") % why);
            return false;
        }
        return true;
    }

    // A table a first run creates (a target, a sink) that is not there yet:
    // where it would go must exist, else the first write would fail on the
    // engine's own error, after the run began.
    void creatable(const QString &context, const QString &field, const QString &name) {
        auto home = m_db.newTableHome(name);
        if (!home) {
            error(context, field,
                  QStringLiteral("cannot tell where table \"") % name %
                      QStringLiteral("\" would be created: ") % firstLine(home.error().message));
            return;
        }
        if (!*home)
            return; // no schemas: any name can be created
        const QString table = QStringLiteral("table \"") % name %
                              QStringLiteral("\" does not exist and cannot be created: ");
        if ((*home)->schema.isEmpty())
            error(context, field,
                  table % QStringLiteral("no schema of the search path exists to create it in"));
        else if (!(*home)->schemaExists)
            error(context, field,
                  table % QStringLiteral("schema \"") % (*home)->schema %
                      QStringLiteral("\" does not exist (create it first)"));
        // A role without CREATE there still browses and previews it: the
        // write that would create it is refused before it starts, naming the
        // privilege (core/sql/privileges.h).
    }

    void column(const QString &context, const QString &field, const QString &name,
                const QStringList &available, const QString &where) {
        if (!name.isEmpty() && !available.contains(name))
            error(context, field,
                  QStringLiteral("column \"") % name % QStringLiteral("\" is not in ") % where %
                      listed(available));
    }

    void dataset(const DatasetSpec &d) {
        const QString ctx = QStringLiteral("dataset \"") % d.name % u'"';
        QStringList cols;
        bool haveColumns = false;
        QString where;
        if (!d.source.isEmpty() && relation(ctx, QStringLiteral("source"), d.source) &&
            d.transform.isEmpty()) {
            cols = columnsOf(d.source);
            haveColumns = true;
            where = QStringLiteral("source \"") % d.source % u'"';
        }
        if (!d.transform.isEmpty()) {
            const SqlShape shape = shapeOf(d.transform);
            if (shape.firstWord != QLatin1String("SELECT") &&
                shape.firstWord != QLatin1String("WITH")) {
                error(ctx, QStringLiteral("transform"),
                      QStringLiteral("must be a single SELECT, but starts with \"") %
                          shape.firstWord % u'"');
            } else if (shape.moreThanOneStatement) {
                error(ctx, QStringLiteral("transform"),
                      QStringLiteral("must be a single SELECT, but holds more than one statement"));
            } else {
                QString select = sourceSelect(d, m_db).trimmed();
                while (select.endsWith(u';'))
                    select.chop(1);
                auto names = m_db.selectColumns(select);
                if (!names) {
                    error(ctx, QStringLiteral("transform"),
                          QStringLiteral("does not compile as a SELECT: ") %
                              firstLine(names.error().message));
                } else {
                    cols = *names;
                    haveColumns = true;
                    where = QStringLiteral("the transform's output");
                }
            }
        }
        if (!d.target.isEmpty()) {
            if (controlschema::isControlTable(d.target))
                error(ctx, QStringLiteral("target"),
                      QStringLiteral("\"") % d.target %
                          QStringLiteral("\" is one of Rewind's own control tables"));
            else if (!exists(d.target))
                creatable(ctx, QStringLiteral("target"), d.target);
            else if (haveColumns) {
                const QStringList targetCols = columnsOf(d.target);
                newColumns(ctx, d, cols, targetCols);
                droppedColumns(ctx, d, cols, columnsOf(d.target, false));
            }
        }
        if (!haveColumns)
            return;
        column(ctx, QStringLiteral("partition_column"), d.partitionColumn, cols, where);
        for (const QString &k : d.key)
            column(ctx, QStringLiteral("key"), k, cols, where);
        column(ctx, QStringLiteral("order_by"), d.orderBy, cols, where);
        for (const auto &[field, list] :
             {std::pair{QStringLiteral("merge_update_columns"), &d.mergeUpdateColumns},
              std::pair{QStringLiteral("merge_exclude_columns"), &d.mergeExcludeColumns}})
            for (const QString &c : *list) {
                column(ctx, field, c, cols, where);
                if (d.key.contains(c) || c == d.partitionColumn)
                    error(ctx, field,
                          QStringLiteral("\"") % c %
                              QStringLiteral("\" is part of the key or the partition: a match "
                                             "never changes it"));
            }
        column(ctx, QStringLiteral("event_time"), d.eventTime, cols, where);
        column(ctx, QStringLiteral("ingest_time"), d.ingestTime, cols, where);
        if (d.scd2) {
            for (const QString &t : d.scd2->tracked) {
                column(ctx, QStringLiteral("scd2.tracked"), t, cols, where);
                if (d.key.contains(t))
                    error(
                        ctx, QStringLiteral("scd2.tracked"),
                        QStringLiteral("\"") % t %
                            QStringLiteral("\" is part of the key; a tracked attribute cannot be"));
            }
            for (const QString &c : d.scd2->notTracked)
                column(ctx, QStringLiteral("scd2.not_tracked"), c, cols, where);
            for (const QString &c : d.scd2->versionColumns())
                if (cols.contains(c))
                    error(ctx, QStringLiteral("scd2"),
                          QStringLiteral("\"") % c %
                              QStringLiteral(
                                  "\" is written by Rewind but the source already yields it"));
        }
        for (std::size_t i = 0; i < d.checks.size(); ++i)
            check(ctx % QStringLiteral(": checks[") % QString::number(i) % u']', d, d.checks[i],
                  cols, where);
    }

    // Columns the source yields that the target lacks: a schema change, which
    // "on_schema_change" allows (append_new_columns) or refuses (fail, naming
    // them and the option). A new key or partition column never: it would
    // change which rows are the same row.
    void newColumns(const QString &ctx, const DatasetSpec &d, const QStringList &cols,
                    const QStringList &targetCols) {
        QStringList added;
        for (const QString &c : cols)
            if (!targetCols.contains(c))
                added << c;
        if (added.isEmpty())
            return;
        const QString which = added.size() == 1 ? QStringLiteral("column \"") % added.front() %
                                                      QStringLiteral("\", which the source yields")
                                                : QStringLiteral("columns \"") %
                                                      added.join(QStringLiteral("\", \"")) %
                                                      QStringLiteral("\", which the source yields");
        for (const QString &c : added)
            if (d.key.contains(c) || c == d.partitionColumn)
                error(ctx, QStringLiteral("target"),
                      QStringLiteral("table \"") % d.target %
                          QStringLiteral("\" has no column \"") % c %
                          QStringLiteral("\", which is part of the key or the partition: a schema "
                                         "change cannot add it (it would change which rows are "
                                         "the same row)"));
        if (d.onSchemaChange != SchemaChangePolicy::Fail)
            return;
        error(ctx, QStringLiteral("target"),
              QStringLiteral("table \"") % d.target % QStringLiteral("\" has no ") % which %
                  listed(targetCols) %
                  QStringLiteral("; \"on_schema_change\": \"append_new_columns\" would add ") %
                  (added.size() == 1 ? QStringLiteral("it") : QStringLiteral("them")) %
                  QStringLiteral(" in the run's first publish"));
    }

    // Target columns the source no longer yields (an scd2 dimension's own
    // columns aside): "sync_all_columns" drops them, in a run over every
    // partition; "fail" and "append_new_columns" refuse, naming them.
    void droppedColumns(const QString &ctx, const DatasetSpec &d, const QStringList &cols,
                        const QStringList &targetCols) {
        if (d.onSchemaChange == SchemaChangePolicy::SyncAllColumns)
            return;
        QStringList gone;
        for (const QString &c : targetCols)
            if (!cols.contains(c) && !(d.scd2 && d.scd2->versionColumns().contains(c)))
                gone << c;
        if (gone.isEmpty())
            return;
        error(ctx, QStringLiteral("target"),
              QStringLiteral("table \"") % d.target %
                  (gone.size() == 1
                       ? QStringLiteral("\" has column \"") % gone.front() %
                             QStringLiteral("\", which the source no longer yields")
                       : QStringLiteral("\" has columns \"") % gone.join(QStringLiteral("\", \"")) %
                             QStringLiteral("\", which the source no longer yields")) %
                  QStringLiteral("; \"on_schema_change\": \"") % enumName(d.onSchemaChange) %
                  QStringLiteral("\" keeps every column; \"sync_all_columns\" would drop ") %
                  (gone.size() == 1 ? QStringLiteral("it") : QStringLiteral("them")) %
                  QStringLiteral(" in a run over every partition (its before-images keep the "
                                 "values)"));
    }

    // A gate on the size of a change: its columns in the source and, where
    // it exists, the target (whose values it compares); a delta's a number.
    void changeSize(const QString &ctx, const DatasetSpec &d, const CheckSpec &c,
                    const QStringList &cols, const QString &where) {
        const QStringList named =
            c.type == QLatin1String("unchanged") ? c.columns : QStringList{c.column};
        const QString field = c.type == QLatin1String("unchanged") ? QStringLiteral("columns")
                                                                   : QStringLiteral("column");
        if (c.type != QLatin1String("unchanged"))
            column(ctx, field, c.column, cols, where);
        std::optional<std::vector<ColumnInfo>> target;
        if (!d.target.isEmpty() && exists(d.target))
            if (auto listed = m_db.columns(d.target))
                target = *listed;
        for (const QString &name : named) {
            if (name.isEmpty() || !cols.contains(name))
                continue;
            if (d.key.contains(name) || name == d.partitionColumn)
                error(ctx, field,
                      QStringLiteral("\"") % name %
                          QStringLiteral("\" is part of the key or the partition: a match never "
                                         "changes it"));
            QString type;
            bool inTarget = !target;
            if (target)
                for (const ColumnInfo &t : *target)
                    if (t.name == name) {
                        inTarget = true;
                        type = t.type;
                    }
            if (!inTarget) {
                error(ctx, field,
                      QStringLiteral("column \"") % name %
                          QStringLiteral("\" is not in target \"") % d.target %
                          QStringLiteral("\": nothing to compare it with"));
                continue;
            }
            if (c.type != QLatin1String("delta"))
                continue;
            if (!target && d.transform.isEmpty() && !d.source.isEmpty())
                if (auto source = m_db.columns(d.source))
                    for (const ColumnInfo &sc : *source)
                        if (sc.name == name)
                            type = sc.type;
            if (!type.isEmpty() && !isNumberType(type))
                error(ctx, field,
                      QStringLiteral("\"") % name % QStringLiteral("\" is ") % type %
                          QStringLiteral(": a delta compares the column's totals, so it must be a "
                                         "number"));
        }
    }

    void check(const QString &ctx, const DatasetSpec &d, const CheckSpec &c,
               const QStringList &cols, const QString &where) {
        for (const QString &col : c.columns)
            column(ctx, QStringLiteral("columns"), col, cols, where);
        if (c.type == QLatin1String("references")) {
            column(ctx, QStringLiteral("column"), c.column, cols, where);
            // Another dataset's target not built yet (a dbt model and the
            // model its relationships test names): its first run makes it;
            // until then the gate fails, saying so.
            const bool builtByAnother =
                !exists(c.refTable) && std::any_of(m_spec.datasets.begin(), m_spec.datasets.end(),
                                                   [&](const DatasetSpec &o) {
                                                       return o.name != d.name &&
                                                              o.target == c.refTable;
                                                   });
            if (!builtByAnother && relation(ctx, QStringLiteral("table"), c.refTable))
                column(ctx, QStringLiteral("to"), c.refColumn, columnsOf(c.refTable),
                       QStringLiteral("table \"") % c.refTable % u'"');
        } else if (c.type == QLatin1String("total")) {
            column(ctx, QStringLiteral("column"), c.column, cols, where);
        } else if (c.type == QLatin1String("max_changed") || c.type == QLatin1String("delta") ||
                   c.type == QLatin1String("unchanged")) {
            changeSize(ctx, d, c, cols, where);
        } else if (c.type == QLatin1String("sql")) {
            QString select = sourceSelect(d, m_db).trimmed();
            while (select.endsWith(u';'))
                select.chop(1);
            QString probe = c.query;
            probe.replace(QLatin1String("{staged}"),
                          QStringLiteral("(") % select % QStringLiteral(") AS staged"));
            const SqlShape shape = shapeOf(probe);
            if ((shape.firstWord != QLatin1String("SELECT") &&
                 shape.firstWord != QLatin1String("WITH")) ||
                shape.moreThanOneStatement) {
                error(ctx, QStringLiteral("query"),
                      QStringLiteral("must be a single SELECT returning one number"));
                return;
            }
            auto names = m_db.selectColumns(probe);
            if (!names)
                error(ctx, QStringLiteral("query"),
                      QStringLiteral("does not compile: ") % firstLine(names.error().message));
            else if (names->size() != 1)
                error(ctx, QStringLiteral("query"),
                      QStringLiteral("must return exactly one column, returns ") %
                          QString::number(names->size()));
        }
    }

    void stream(const StreamSpec &s) {
        const QString ctx = QStringLiteral("stream \"") % s.name % u'"';
        // A Kafka topic is checked against the cluster when a command reads it.
        if (!s.kafka && relation(ctx, QStringLiteral("log"), s.log)) {
            const QStringList cols = columnsOf(s.log);
            const LogColumns &lc = s.logColumns;
            const QString where = QStringLiteral("log \"") % s.log % u'"';
            column(ctx, QStringLiteral("log_columns.partition_id"), lc.partitionId, cols, where);
            column(ctx, QStringLiteral("log_columns.log_offset"), lc.logOffset, cols, where);
            column(ctx, QStringLiteral("log_columns.event_id"), lc.eventId, cols, where);
            column(ctx, QStringLiteral("log_columns.record_ts"), lc.recordTs, cols, where);
            column(ctx, QStringLiteral("log_columns.payload"), lc.payload, cols, where);
        }
        if (controlschema::isControlTable(s.sink)) {
            error(ctx, QStringLiteral("sink"),
                  QStringLiteral("\"") % s.sink %
                      QStringLiteral("\" is one of Rewind's own control tables"));
        } else if (!exists(s.sink)) {
            creatable(ctx, QStringLiteral("sink"), s.sink);
        } else {
            const QStringList cols = columnsOf(s.sink);
            const QString where = QStringLiteral("sink \"") % s.sink % u'"';
            column(ctx, QStringLiteral("sink"), QStringLiteral("event_id"), cols, where);
            // A field the sink has no column for: a schema change of the sink.
            QStringList added;
            for (const auto &[field, path] : s.fields)
                if (!cols.contains(field))
                    added << field;
            if (!added.isEmpty() && s.onSchemaChange == SchemaChangePolicy::Fail)
                error(ctx, QStringLiteral("fields"),
                      QStringLiteral("sink \"") % s.sink % QStringLiteral("\" has no column for ") %
                          (added.size() == 1 ? QStringLiteral("field \"")
                                             : QStringLiteral("fields \"")) %
                          added.join(QStringLiteral("\", \"")) % u'"' % listed(cols) %
                          QStringLiteral("; \"on_schema_change\": \"append_new_columns\" would "
                                         "add ") %
                          (added.size() == 1 ? QStringLiteral("it") : QStringLiteral("them")) %
                          QStringLiteral(" before the replay's first batch"));
        }
    }

    const Spec &m_spec;
    const Database &m_db;
    QSet<QString> m_relations;
    QStringList m_errors;
    QString m_current; // the dataset or stream being checked
    QMap<QString, QStringList> m_byItem;
};

} // namespace

Status validateSpec(const Spec &spec, const Database &db) {
    return Validator(spec, db).run();
}

Result<QMap<QString, QString>> catalogProblems(const Spec &spec, const Database &db) {
    auto byItem = Validator(spec, db).problems();
    if (!byItem)
        return fail(byItem.error());
    QMap<QString, QString> out;
    for (auto it = byItem->cbegin(); it != byItem->cend(); ++it)
        out.insert(it.key(), it.value().join(QStringLiteral("; ")));
    return out;
}

} // namespace rw
