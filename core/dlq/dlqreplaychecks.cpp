// DLQ replay: the checks a batch's records must pass (JSON, a stream's event
// id and required fields, a dataset's columns, types and row-level checks),
// the records already landed, and the write of the valid ones into their
// sink or target. The batch loop is in dlqreplay.cpp.
#include "core/dlq/dlqdialect.h"
#include "core/dlq/dlqreplayer.h"
#include "core/sql/badvalue.h"
#include "core/sql/timejson.h"

#include <QStringBuilder>

namespace rw::dlq_detail {

Status DlqReplayer::badValues(const SourcePlan &p, std::vector<FieldValue> fields) {
    QStringList extracts;
    QVariantList paths;
    std::vector<FieldValue> checked;
    for (FieldValue &f : fields) {
        if (m_db.dialect().valueFitsType(QStringLiteral("x.v"), f.type, f.strict).isEmpty())
            continue;
        const QString alias = QStringLiteral("v") % QString::number(checked.size());
        f.value = QStringLiteral("x.") % alias;
        extracts << extract() % QStringLiteral(" AS ") % alias;
        paths << f.path;
        checked.push_back(std::move(f));
    }
    if (checked.empty())
        return {};
    const QString values = QStringLiteral(" FROM (SELECT ") % extracts.join(QStringLiteral(", ")) %
                           QStringLiteral(") AS x");
    QVariantList messageBinds;
    const QString message = QStringLiteral("(SELECT ") %
                            badValueMessage(m_db.dialect(), checked, messageBinds) % values % u')';
    messageBinds << paths;
    return setError(p, QStringLiteral("bad_value"), message, messageBinds,
                    QStringLiteral("EXISTS (SELECT 1") % values % QStringLiteral(" WHERE NOT ") %
                        valuesFit(m_db.dialect(), checked) % u')',
                    paths);
}

Status DlqReplayer::validate(const SourcePlan &p) {
    if (!p.problemClass.isEmpty())
        return setError(p, p.problemClass, QStringLiteral("?"), {p.problem},
                        QStringLiteral("1 = 1"), {});
    if (p.stream) {
        if (auto s = setError(p, QStringLiteral("missing_event_id"),
                              QStringLiteral("'event_id is NULL'"), {},
                              QStringLiteral("w.event_id IS NULL"), {});
            !s)
            return s;
        if (p.stream->required.isEmpty())
            return {};
        QString message = QStringLiteral("'required field missing or null: ' || rtrim(''");
        QVariantList messageBinds;
        QStringList missing;
        QVariantList missingBinds;
        for (const QString &field : p.stream->required) {
            QString path;
            for (const auto &[name, fieldPath] : p.stream->fields)
                if (name == field)
                    path = fieldPath;
            message += QStringLiteral(" || CASE WHEN ") % extract() %
                       QStringLiteral(" IS NULL THEN ? ELSE '' END");
            messageBinds << path
                         << QString(field % QStringLiteral(" (") % path % QStringLiteral("), "));
            missing << extract() % QStringLiteral(" IS NULL");
            missingBinds << path;
        }
        message += QStringLiteral(", ', ')");
        if (auto s = setError(p, QStringLiteral("missing_field"), message, messageBinds,
                              u'(' % missing.join(QStringLiteral(" OR ")) % u')', missingBinds);
            !s)
            return s;
        std::vector<FieldValue> fields;
        for (qsizetype i = 0; i < qsizetype(p.stream->fields.size()); ++i)
            fields.push_back({p.stream->fields[i].first, p.stream->fields[i].second,
                              p.types.value(i), QString(), p.strict.value(i)});
        return badValues(p, std::move(fields));
    }
    // A dataset row: a JSON object of the target's columns passing the row-level checks.
    const DatasetSpec &d = *p.dataset;
    if (auto s = setError(p, QStringLiteral("not_an_object"),
                          QStringLiteral("'payload is not a JSON object'"), {},
                          QStringLiteral("NOT (") %
                              DlqDialect::of(m_db.dialect()).jsonIsObject(QStringLiteral("w.doc")) %
                              u')',
                          {});
        !s)
        return s;
    const QString columns = jsonArray(p.columns);
    if (auto s = setError(p, QStringLiteral("unknown_column"),
                          QStringLiteral("'not a column of ' || ? || ': ' || (SELECT ") %
                              DlqDialect::of(m_db.dialect())
                                  .stringAgg(QStringLiteral("j.key"), QStringLiteral("', '")) %
                              QStringLiteral(" FROM ") %
                              DlqDialect::of(m_db.dialect()).jsonEach(QStringLiteral("w.doc")) %
                              QStringLiteral(" AS j WHERE j.key NOT IN (") %
                              DlqDialect::of(m_db.dialect()).jsonArrayTexts(QStringLiteral("?")) %
                              QStringLiteral("))"),
                          {d.target, columns},
                          QStringLiteral("EXISTS (SELECT 1 FROM ") %
                              DlqDialect::of(m_db.dialect()).jsonEach(QStringLiteral("w.doc")) %
                              QStringLiteral(" AS j WHERE j.key NOT IN (") %
                              DlqDialect::of(m_db.dialect()).jsonArrayTexts(QStringLiteral("?")) %
                              QStringLiteral("))"),
                          {columns});
        !s)
        return s;
    std::vector<FieldValue> fields;
    for (qsizetype i = 0; i < p.columns.size(); ++i)
        fields.push_back({p.columns.at(i), columnPath(p.columns.at(i)), p.types.value(i), QString(),
                          p.strict.value(i)});
    if (auto s = badValues(p, std::move(fields)); !s)
        return s;
    for (const CheckSpec &check : d.checks) {
        if (check.type == QLatin1String("not_null")) {
            QStringList terms;
            QVariantList binds;
            for (const QString &c : check.columns) {
                terms << extract() % QStringLiteral(" IS NULL");
                binds << columnPath(c);
            }
            const QString message = QStringLiteral("NULL in ") %
                                    check.columns.join(QStringLiteral(" or ")) %
                                    QStringLiteral(" (check ") % check.name % u')';
            if (auto s = setError(p, QStringLiteral("not_null"), QStringLiteral("?"), {message},
                                  u'(' % terms.join(QStringLiteral(" OR ")) % u')', binds);
                !s)
                return s;
        } else if (check.type == QLatin1String("references")) {
            const QString message = check.column % QStringLiteral(" has no match in ") %
                                    check.refTable % u'.' % check.refColumn %
                                    QStringLiteral(" (check ") % check.name % u')';
            const QString refColumn = QStringLiteral("r.") % m_db.quote(check.refColumn);
            const QString failing =
                extract() % QStringLiteral(" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ") %
                m_db.quoteTable(check.refTable) % QStringLiteral(" AS r WHERE ") %
                TimeJson::of(m_db.dialect()).comparedWithJsonValue(refColumn) %
                QStringLiteral(" = ") % extract() % u')';
            if (auto s = setError(p, QStringLiteral("references"), QStringLiteral("?"), {message},
                                  failing, {columnPath(check.column), columnPath(check.column)});
                !s)
                return s;
        }
    }
    return {};
}

Status DlqReplayer::markLanded(const SourcePlan &p) {
    if (!p.problemClass.isEmpty())
        return {};
    QVariantList binds;
    const QString where = of(p, binds);
    if (auto s = exec(QStringLiteral("UPDATE ") % kWork %
                          QStringLiteral(" AS w SET dest = ? WHERE ") % where,
                      QVariantList{p.dest} << binds);
        !s)
        return s;
    if (p.stream) {
        auto exists = m_db.hasRelation(p.stream->sink);
        if (!exists)
            return fail(exists.error());
        QString landed = QStringLiteral("EXISTS (SELECT 1 FROM ") % kWork %
                         QStringLiteral(" AS w2 WHERE w2.kind = w.kind AND w2.name = w.name "
                                        "AND w2.event_id = w.event_id "
                                        "AND w2.error_class IS NULL AND w2.dlq_id < w.dlq_id)");
        if (*exists)
            landed += QStringLiteral(" OR EXISTS (SELECT 1 FROM ") %
                      m_db.quoteTable(p.stream->sink) %
                      QStringLiteral(" AS k WHERE k.\"event_id\" = w.event_id)");
        return exec(QStringLiteral("UPDATE ") % kWork %
                        QStringLiteral(" AS w SET landed = 1 WHERE ") % where %
                        QStringLiteral(" AND w.error_class IS NULL AND (") % landed % u')',
                    binds);
    }
    // Dataset: extract the rows, keep the last record per key, find those the target already
    // holds.
    QStringList defs{QStringLiteral("rewind_dlq_id ") % m_db.dialect().bigintType()}, cols,
        extracts;
    QVariantList extractBinds;
    for (qsizetype i = 0; i < p.columns.size(); ++i) {
        const QString &c = p.columns.at(i);
        defs << DlqDialect::of(m_db.dialect()).workColumn(m_db.quote(c), p.types.value(i));
        cols << m_db.quote(c);
        extracts << DlqDialect::of(m_db.dialect()).fromJsonText(extract(), p.types.value(i));
        extractBinds << columnPath(c);
    }
    if (auto s = exec(m_db.dialect().dropTempTable(kRows)); !s)
        return s;
    if (auto s = exec(QStringLiteral("CREATE TEMP TABLE ") % kRows % QStringLiteral(" (") %
                      defs.join(QStringLiteral(", ")) % u')');
        !s)
        return s;
    QVariantList insertBinds = extractBinds;
    const QString where2 = of(p, insertBinds);
    if (auto s = exec(QStringLiteral("INSERT INTO ") % kRows % QStringLiteral(" (rewind_dlq_id, ") %
                          cols.join(QStringLiteral(", ")) % QStringLiteral(") SELECT w.dlq_id, ") %
                          extracts.join(QStringLiteral(", ")) % QStringLiteral(" FROM ") % kWork %
                          QStringLiteral(" AS w WHERE ") % where2 %
                          QStringLiteral(" AND w.error_class IS NULL"),
                      insertBinds);
        !s)
        return s;
    if (auto s = exec(
            QStringLiteral("UPDATE ") % kWork %
            QStringLiteral(" AS w SET landed = 1 WHERE w.dlq_id IN (SELECT r.rewind_dlq_id FROM ") %
            kRows % QStringLiteral(" AS r WHERE EXISTS (SELECT 1 FROM ") %
            m_db.quoteTable(p.dataset->target) % QStringLiteral(" AS t WHERE ") %
            rowMatch(p.columns, QStringLiteral("t"), QStringLiteral("r")) % QStringLiteral("))"));
        !s)
        return s;
    // Of several records with one key, the last one wins.
    return exec(QStringLiteral("DELETE FROM ") % kRows %
                QStringLiteral(" AS r WHERE EXISTS (SELECT 1 FROM ") % kRows %
                QStringLiteral(" AS r2 WHERE ") %
                keyMatch(*p.dataset, p.columns, QStringLiteral("r2"), QStringLiteral("r")) %
                QStringLiteral(" AND r2.rewind_dlq_id > r.rewind_dlq_id)"));
}

Status DlqReplayer::write(const SourcePlan &p) {
    if (!p.problemClass.isEmpty())
        return {};
    if (p.stream) {
        QStringList cols{QStringLiteral("\"event_id\"")};
        QStringList values{QStringLiteral("w.event_id")};
        QVariantList binds;
        qsizetype i = 0;
        for (const auto &[name, path] : p.stream->fields) {
            cols << m_db.quote(name);
            values << DlqDialect::of(m_db.dialect()).fromJsonText(extract(), p.types.value(i++));
            binds << path;
        }
        const QString where = of(p, binds);
        qint64 inserted = 0;
        if (auto s = exec(QStringLiteral("INSERT INTO ") % m_db.quoteTable(p.stream->sink) %
                              QStringLiteral(" (") % cols.join(QStringLiteral(", ")) %
                              QStringLiteral(") SELECT ") % values.join(QStringLiteral(", ")) %
                              QStringLiteral(" FROM ") % kWork % QStringLiteral(" AS w WHERE ") %
                              where % QStringLiteral(" AND w.error_class IS NULL AND w.landed = 0"),
                          binds, &inserted);
            !s)
            return s;
        m_batch.inserted += inserted;
        return {};
    }
    // Merge into the target by key, null-safe: update where different, insert where missing.
    const DatasetSpec &d = *p.dataset;
    const QString target = m_db.quoteTable(d.target);
    QStringList cols, rcols, sets, valueCols;
    for (const QString &c : p.columns) {
        cols << m_db.quote(c);
        rcols << QStringLiteral("r.") % m_db.quote(c);
        if (!d.key.contains(c)) {
            sets << m_db.quote(c) % QStringLiteral(" = r.") % m_db.quote(c);
            valueCols << c;
        }
    }
    const QString fresh = QStringLiteral("(SELECT r.* FROM ") % kRows %
                          QStringLiteral(" AS r JOIN ") % kWork %
                          QStringLiteral(" AS w ON w.dlq_id = r.rewind_dlq_id WHERE w.landed = 0)");
    if (!d.key.isEmpty() && !sets.isEmpty()) {
        qint64 updated = 0;
        if (auto s = exec(QStringLiteral("UPDATE ") % target % QStringLiteral(" AS t SET ") %
                              sets.join(QStringLiteral(", ")) % QStringLiteral(" FROM ") % fresh %
                              QStringLiteral(" AS r WHERE ") %
                              keyMatch(d, p.columns, QStringLiteral("t"), QStringLiteral("r")) %
                              QStringLiteral(" AND NOT (") %
                              rowMatch(valueCols, QStringLiteral("t"), QStringLiteral("r")) % u')',
                          {}, &updated);
            !s)
            return s;
        m_batch.updated += updated;
    }
    qint64 inserted = 0;
    if (auto s = exec(QStringLiteral("INSERT INTO ") % target % QStringLiteral(" (") %
                          cols.join(QStringLiteral(", ")) % QStringLiteral(") SELECT ") %
                          rcols.join(QStringLiteral(", ")) % QStringLiteral(" FROM ") % fresh %
                          QStringLiteral(" AS r WHERE NOT EXISTS (SELECT 1 FROM ") % target %
                          QStringLiteral(" AS t WHERE ") %
                          keyMatch(d, p.columns, QStringLiteral("t"), QStringLiteral("r")) % u')',
                      {}, &inserted);
        !s)
        return s;
    m_batch.inserted += inserted;
    return {};
}

} // namespace rw::dlq_detail
