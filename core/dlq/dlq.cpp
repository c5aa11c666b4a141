// DLQ triage: list, show, fix, discard. Replay and validate are in dlqreplay.cpp.
#include "core/dlq/dlq.h"

#include "core/dlq/dlqdialect.h"
#include "core/dlq/dlqstore.h"
#include "core/sql/privileges.h"
#include "core/util/failpoint.h"
#include "core/util/timeutil.h"
#include "core/workspace/workspace.h"

#include <QRegularExpression>
#include <QStringBuilder>
#include <nlohmann/json.hpp>
#include <tuple>

namespace rw {

namespace {

QString jsonArray(const QStringList &values) {
    nlohmann::json a = nlohmann::json::array();
    for (const QString &v : values)
        a.push_back(v.toStdString());
    return QString::fromStdString(a.dump());
}

QString jsonArray(const QList<qint64> &values) {
    nlohmann::json a = nlohmann::json::array();
    for (qint64 v : values)
        a.push_back(v);
    return QString::fromStdString(a.dump());
}

Result<QString> timeBound(const QString &text, const char *option) {
    auto t = timeutil::parseTimestamp(text);
    if (!t)
        return badInput(
            QStringLiteral("--%1 \"%2\": %3").arg(QLatin1String(option), text, t.error().message));
    return t->toUTC().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzzZ"));
}

QString idList(const QList<qint64> &ids) {
    QStringList s;
    for (qint64 id : ids)
        s << QString::number(id);
    return s.join(QStringLiteral(", "));
}

QString recordColumns(const SqlDialect &d) {
    return QStringLiteral(
               "d.dlq_id, d.source_kind, d.source_name, d.part, d.log_offset, d.event_id, "
               "d.record_key, d.error_class, d.error, d.status, "
               "d.attempts, d.first_seen, d.last_attempt_at, d.last_error_class, d.last_error, ") %
           DlqDialect::of(d).payloadLength(QStringLiteral("d.original_payload")) %
           QStringLiteral(", ") % DlqDialect::of(d).payloadLength(QStringLiteral("d.payload")) %
           QStringLiteral(", CASE WHEN ") %
           DlqDialect::of(d).nullSafeDistinct(
               DlqDialect::of(d).payloadBytes(QStringLiteral("d.payload")),
               DlqDialect::of(d).payloadBytes(QStringLiteral("d.original_payload"))) %
           QStringLiteral(" THEN 1 ELSE 0 END, ")
           // The signature as the database groups and filters by it (a text
           // read back may have lost a leading byte-order mark on the way).
           % d.dlqSignature(QStringLiteral("d.error_class"), QStringLiteral("d.error"));
}

std::optional<QString> optText(const QVariant &v) {
    return v.isNull() ? std::nullopt : std::optional<QString>(v.toString());
}

// A status read back from rewind_dlq; one Rewind does not know is refused.
Result<DlqStatus> storedStatus(const QVariant &v) {
    if (const auto known = enumFromName<DlqStatus>(v.toString()))
        return *known;
    return internalError(QStringLiteral("a DLQ record holds an unknown status \"%1\" (known: %2)")
                             .arg(v.toString(), enumNames<DlqStatus>()));
}

Result<DlqRecord> readRecord(const QSqlQuery &q) {
    DlqRecord r;
    r.id = q.value(0).toLongLong();
    r.sourceKind = q.value(1).toString();
    r.sourceName = q.value(2).toString();
    r.partition = optText(q.value(3));
    if (!q.value(4).isNull())
        r.offset = q.value(4).toLongLong();
    r.eventId = optText(q.value(5));
    r.key = optText(q.value(6));
    r.errorClass = q.value(7).toString();
    r.error = q.value(8).toString();
    auto status = storedStatus(q.value(9));
    if (!status)
        return fail(status.error());
    r.status = *status;
    r.attempts = q.value(10).toInt();
    r.firstSeen = q.value(11).toString();
    r.lastAttemptAt = optText(q.value(12));
    r.lastErrorClass = optText(q.value(13));
    r.lastError = optText(q.value(14));
    r.originalBytes = q.value(15).toLongLong();
    r.payloadBytes = q.value(16).toLongLong();
    r.payloadChanged = q.value(17).toInt() != 0;
    r.signature = q.value(18).toString();
    return r;
}

std::optional<QByteArray> optBytes(const QVariant &v) {
    return v.isNull() ? std::nullopt : std::optional<QByteArray>(v.toByteArray());
}

// Explicitly named records that a change cannot apply to.
Status refuseFinished(const Database &db, const QList<qint64> &ids, const QString &what) {
    if (ids.isEmpty())
        return {};
    auto q =
        db.exec(QStringLiteral("SELECT dlq_id, status FROM rewind_dlq WHERE dlq_id IN (") %
                    DlqDialect::of(db.dialect()).jsonArrayIntegers(QStringLiteral("?")) %
                    QStringLiteral(") AND status IN (?, ?) ORDER BY dlq_id"),
                {jsonArray(ids), enumName(DlqStatus::Replayed), enumName(DlqStatus::Discarded)});
    if (!q)
        return fail(q.error());
    QStringList refused;
    while (q->next())
        refused
            << QStringLiteral("%1 (%2)").arg(q->value(0).toLongLong()).arg(q->value(1).toString());
    if (!refused.isEmpty())
        return badInput(QStringLiteral("cannot %1 a replayed or discarded record: %2")
                            .arg(what, refused.join(QStringLiteral(", "))));
    return {};
}

// The selection, restricted to `statuses` when it names none itself.
Result<QString> openSelection(const Database &db, DlqSelection selection,
                              const QList<DlqStatus> &statuses, QVariantList &binds) {
    QStringList names;
    for (const DlqStatus s : statuses)
        names << enumName(s);
    if (selection.statuses.isEmpty())
        selection.statuses = names;
    else
        for (const QString &s : std::as_const(selection.statuses))
            if (const auto named = enumFromName<DlqStatus>(s); !named || !statuses.contains(*named))
                return badInput(
                    QStringLiteral("--status %1: only %2 records can be changed this way")
                        .arg(s, names.join(QStringLiteral(", "))));
    if (!selection.signature.isEmpty())
        if (auto s = dlqinternal::ensureFunctions(db); !s)
            return fail(s.error());
    return dlqinternal::selectionPredicate(db.dialect(), selection, binds);
}

} // namespace

namespace dlqinternal {

Result<QString> selectionPredicate(const SqlDialect &dialect, const DlqSelection &selection,
                                   QVariantList &binds) {
    const QString texts = u'(' % DlqDialect::of(dialect).jsonArrayTexts(QStringLiteral("?")) % u')';
    QStringList terms;
    if (!selection.ids.isEmpty()) {
        terms << QStringLiteral("d.dlq_id IN (") %
                     DlqDialect::of(dialect).jsonArrayIntegers(QStringLiteral("?")) % u')';
        binds << jsonArray(selection.ids);
    }
    if (!selection.statuses.isEmpty()) {
        for (const QString &s : selection.statuses)
            if (!enumFromName<DlqStatus>(s))
                return badInput(QStringLiteral("unknown DLQ status \"%1\" (statuses: %2)")
                                    .arg(s, enumNames<DlqStatus>()));
        terms << QStringLiteral("d.status IN ") % texts;
        binds << jsonArray(selection.statuses);
    }
    if (!selection.errorClasses.isEmpty()) {
        terms << QStringLiteral("(d.error_class IN ") % texts %
                     QStringLiteral(" OR d.last_error_class IN ") % texts % u')';
        binds << jsonArray(selection.errorClasses) << jsonArray(selection.errorClasses);
    }
    if (!selection.sources.isEmpty()) {
        QStringList any;
        for (const QString &source : selection.sources) {
            const qsizetype colon = source.indexOf(u':');
            const QString kind = colon > 0 ? source.left(colon) : QString();
            if (colon > 0 && kind != QLatin1String("stream") && kind != QLatin1String("dataset"))
                return badInput(
                    QStringLiteral("--source \"%1\": expected NAME, stream:NAME or dataset:NAME")
                        .arg(source));
            if (colon > 0) {
                any << QStringLiteral("(d.source_kind = ? AND d.source_name = ?)");
                binds << kind << source.mid(colon + 1);
            } else {
                any << QStringLiteral("d.source_name = ?");
                binds << source;
            }
        }
        terms << u'(' % any.join(QStringLiteral(" OR ")) % u')';
    }
    for (const auto &[bound, option, term] :
         {std::tuple{&selection.since, "since", "d.first_seen >= ?"},
          std::tuple{&selection.until, "until", "d.first_seen < ?"}}) {
        if (bound->isEmpty())
            continue;
        auto t = timeBound(*bound, option);
        if (!t)
            return fail(t.error());
        terms << QLatin1String(term);
        binds << *t;
    }
    if (!selection.signature.isEmpty()) {
        terms << dialect.dlqSignature(QStringLiteral("d.error_class"), QStringLiteral("d.error")) %
                     QStringLiteral(" = ?");
        binds << selection.signature;
    }
    return terms.isEmpty() ? QStringLiteral("1 = 1") : terms.join(QStringLiteral(" AND "));
}

Status requireIds(const Database &db, const QList<qint64> &ids) {
    if (ids.isEmpty())
        return {};
    auto q = db.exec(
        QStringLiteral("SELECT j.value FROM (") %
            DlqDialect::of(db.dialect()).jsonArrayIntegers(QStringLiteral("?")) %
            QStringLiteral(
                ") AS j WHERE NOT EXISTS (SELECT 1 FROM rewind_dlq AS d WHERE d.dlq_id = j.value)"),
        {jsonArray(ids)});
    if (!q)
        return fail(q.error());
    QList<qint64> missing;
    while (q->next())
        missing << q->value(0).toLongLong();
    if (!missing.isEmpty())
        return badInput(QStringLiteral("no DLQ record with id %1 (see rewindctl dlq list)")
                            .arg(idList(missing)));
    return {};
}

void addWriteNeeds(std::vector<privileges::Need> &needs) {
    needs.push_back({privileges::Need::On::Database, QString(), QStringLiteral("TEMPORARY"),
                     QStringLiteral("the session's functions and work tables")});
    privileges::addControl(needs, {QStringLiteral("rewind_dlq")}, QStringLiteral("SELECT, UPDATE"));
    privileges::addControl(needs,
                           {QStringLiteral("rewind_dlq_history"), QStringLiteral("rewind_audit")},
                           QStringLiteral("INSERT"));
}

} // namespace dlqinternal

Result<DlqListResult> listDlq(const Database &db, const DlqSelection &selection, int limit) {
    if (auto s = dlqinternal::ensureFunctions(db); !s)
        return fail(s.error());
    QVariantList binds;
    auto pred = dlqinternal::selectionPredicate(db.dialect(), selection, binds);
    if (!pred)
        return fail(pred.error());
    DlqListResult result;
    auto records = db.exec(QStringLiteral("SELECT ") % recordColumns(db.dialect()) %
                               QStringLiteral(" FROM rewind_dlq AS d WHERE ") % *pred %
                               QStringLiteral(" ORDER BY d.dlq_id LIMIT ?"),
                           QVariantList(binds) << qMax(0, limit));
    if (!records)
        return fail(records.error());
    while (records->next()) {
        auto record = readRecord(*records);
        if (!record)
            return fail(record.error());
        result.records.push_back(std::move(*record));
    }

    auto statuses =
        db.exec(QStringLiteral("SELECT d.status, COUNT(*) FROM rewind_dlq AS d WHERE ") % *pred %
                    QStringLiteral(" GROUP BY d.status ORDER BY d.status"),
                binds);
    if (!statuses)
        return fail(statuses.error());
    while (statuses->next()) {
        auto status = storedStatus(statuses->value(0));
        if (!status)
            return fail(status.error());
        result.byStatus.emplace_back(*status, statuses->value(1).toLongLong());
        result.total += statuses->value(1).toLongLong();
    }

    // The signature is computed once per distinct message, not once per record:
    // a million records failing the same few ways group in one pass.
    auto groups = db.exec(
        QStringLiteral("SELECT e.error_class, ") %
            db.dialect().dlqSignature(QStringLiteral("e.error_class"), QStringLiteral("e.error")) %
            QStringLiteral(" AS sig, e.status, SUM(e.n), MIN(e.error) FROM (SELECT d.error_class, "
                           "d.error, d.status, COUNT(*) AS n FROM rewind_dlq AS d WHERE ") %
            *pred %
            QStringLiteral(
                " GROUP BY d.error_class, d.error, d.status) AS e "
                "GROUP BY e.error_class, sig, e.status ORDER BY e.error_class, sig, e.status"),
        binds);
    if (!groups)
        return fail(groups.error());
    while (groups->next()) {
        auto status = storedStatus(groups->value(2));
        if (!status)
            return fail(status.error());
        const QString sig = groups->value(1).toString();
        if (result.groups.empty() || result.groups.back().signature != sig)
            result.groups.push_back(
                {groups->value(0).toString(), sig, groups->value(4).toString(), 0, {}});
        DlqGroup &g = result.groups.back();
        g.count += groups->value(3).toLongLong();
        g.byStatus.emplace_back(*status, groups->value(3).toLongLong());
    }
    std::stable_sort(result.groups.begin(), result.groups.end(),
                     [](const DlqGroup &a, const DlqGroup &b) { return a.count > b.count; });
    return result;
}

Result<std::vector<DlqRecord>> pageDlq(const Database &db, const DlqSelection &selection,
                                       qint64 afterId, int limit) {
    if (auto s = dlqinternal::ensureFunctions(db); !s) // each record's signature
        return fail(s.error());
    QVariantList binds;
    auto pred = dlqinternal::selectionPredicate(db.dialect(), selection, binds);
    if (!pred)
        return fail(pred.error());
    auto q = db.exec(QStringLiteral("SELECT ") % recordColumns(db.dialect()) %
                         QStringLiteral(" FROM rewind_dlq AS d WHERE d.dlq_id > ? AND ") % *pred %
                         QStringLiteral(" ORDER BY d.dlq_id LIMIT ?"),
                     QVariantList{afterId} + binds + QVariantList{qMax(0, limit)});
    if (!q)
        return fail(q.error());
    std::vector<DlqRecord> records;
    while (q->next()) {
        auto record = readRecord(*q);
        if (!record)
            return fail(record.error());
        records.push_back(std::move(*record));
    }
    return records;
}

Result<DlqCounts> countDlq(const Database &db, const DlqSelection &selection) {
    if (!selection.signature.isEmpty())
        if (auto s = dlqinternal::ensureFunctions(db); !s)
            return fail(s.error());
    QVariantList binds;
    auto pred = dlqinternal::selectionPredicate(db.dialect(), selection, binds);
    if (!pred)
        return fail(pred.error());
    auto q = db.exec(QStringLiteral("SELECT d.status, COUNT(*) FROM rewind_dlq AS d WHERE ") %
                         *pred % QStringLiteral(" GROUP BY d.status ORDER BY d.status"),
                     binds);
    if (!q)
        return fail(q.error());
    DlqCounts counts;
    while (q->next()) {
        auto status = storedStatus(q->value(0));
        if (!status)
            return fail(status.error());
        counts.byStatus.emplace_back(*status, q->value(1).toLongLong());
        counts.total += q->value(1).toLongLong();
    }
    return counts;
}

Result<DlqDetail> showDlq(const Database &db, qint64 id) {
    if (auto s = dlqinternal::ensureFunctions(db); !s) // the record's signature
        return fail(s.error());
    auto q = db.exec(
        QStringLiteral("SELECT ") % recordColumns(db.dialect()) % QStringLiteral(", ") %
            DlqDialect::of(db.dialect()).payloadBytes(QStringLiteral("d.original_payload")) %
            QStringLiteral(", ") %
            DlqDialect::of(db.dialect()).payloadBytes(QStringLiteral("d.payload")) %
            QStringLiteral(" FROM rewind_dlq AS d WHERE d.dlq_id = ?"),
        {id});
    if (!q)
        return fail(q.error());
    if (!q->next())
        return badInput(
            QStringLiteral("no DLQ record with id %1 (see rewindctl dlq list)").arg(id));
    auto record = readRecord(*q);
    if (!record)
        return fail(record.error());
    DlqDetail detail;
    detail.record = std::move(*record);
    detail.originalPayload = optBytes(q->value(19));
    detail.payload = optBytes(q->value(20));
    q->finish();
    auto k = db.exec(
        QStringLiteral("SELECT kafka_topic, kafka_key, kafka_headers, dlq_topic, dlq_partition, "
                       "dlq_offset, kafka_value FROM rewind_dlq WHERE dlq_id = ?"),
        {id});
    if (!k)
        return fail(k.error());
    if (k->next() && !k->value(0).isNull()) {
        DlqKafkaRecord kr;
        kr.topic = k->value(0).toString();
        kr.key = optBytes(k->value(1));
        const auto headers =
            nlohmann::json::parse(k->value(2).toString().toStdString(), nullptr, false);
        if (headers.is_array())
            for (const auto &h : headers)
                if (h.is_array() && h.size() == 2 && h[0].is_string())
                    kr.headers.emplace_back(
                        QString::fromStdString(h[0].get<std::string>()),
                        h[1].is_string() ? std::optional<QByteArray>(QByteArray::fromBase64(
                                               QByteArray::fromStdString(h[1].get<std::string>())))
                                         : std::nullopt);
        kr.dlqTopic = optText(k->value(3));
        kr.dlqPartition = k->value(4).isNull() ? -1 : k->value(4).toLongLong();
        kr.dlqOffset = k->value(5).isNull() ? -1 : k->value(5).toLongLong();
        if (!k->value(6).isNull() &&
            (!detail.originalPayload || detail.originalPayload == detail.payload))
            detail.originalPayload = k->value(6).toByteArray(); // the exact bytes
        detail.kafka = std::move(kr);
    }
    auto h = db.exec(
        QStringLiteral("SELECT history_id, at, os_user, action, from_status, to_status, reason, ") %
            DlqDialect::of(db.dialect()).payloadBytes(QStringLiteral("payload_before")) %
            QStringLiteral(", ") %
            DlqDialect::of(db.dialect()).payloadBytes(QStringLiteral("payload_after")) %
            QStringLiteral(" FROM rewind_dlq_history WHERE dlq_id = ? ORDER BY history_id"),
        {id});
    if (!h)
        return fail(h.error());
    while (h->next())
        detail.history.push_back({h->value(0).toLongLong(), h->value(1).toString(),
                                  h->value(2).toString(), h->value(3).toString(),
                                  optText(h->value(4)), optText(h->value(5)), optText(h->value(6)),
                                  optBytes(h->value(7)), optBytes(h->value(8))});
    return detail;
}

Status requireDlqWritePrivileges(const Database &db, const QString &operation) {
    std::vector<privileges::Need> needs;
    dlqinternal::addWriteNeeds(needs);
    return privileges::require(db, operation, needs);
}

Status requireDlqImportPrivileges(const Database &db, const QString &operation) {
    std::vector<privileges::Need> needs;
    privileges::addControl(needs, {QStringLiteral("rewind_dlq")}, QStringLiteral("SELECT, INSERT"));
    privileges::addControl(needs,
                           {QStringLiteral("rewind_dlq_history"), QStringLiteral("rewind_audit")},
                           QStringLiteral("INSERT"));
    return privileges::require(db, operation, needs);
}

Result<DlqFixResult> fixDlq(const Database &db, const DlqFixRequest &request) {
    if (request.execute)
        if (auto s = requireDlqWritePrivileges(db, QStringLiteral("DLQ fix")); !s)
            return fail(s.error());
    if (request.sets.empty() == !request.payload.has_value())
        return badInput(
            QStringLiteral("give either --set JSONPATH=VALUE (repeatable) or --payload-file FILE"));
    if (request.selection.isEmpty())
        return badInput(QStringLiteral("name the records to fix: --id ID, or a selection "
                                       "(--error-class C, --status S, --source S)"));
    if (request.payload && (request.selection.ids.size() != 1 || request.selection.byFilter()))
        return badInput(QStringLiteral("--payload-file replaces the payload of exactly one record: "
                                       "give one --id and no other selection"));

    if (auto s = dlqinternal::ensureFunctions(db); !s)
        return fail(s.error());

    // The new payload expression, with its binds, over alias d.
    QString expr;
    QVariantList exprBinds;
    QString description;
    if (request.payload) {
        try {
            const auto parsed =
                nlohmann::json::parse(request.payload->constBegin(), request.payload->constEnd());
            (void)parsed;
        } catch (const nlohmann::json::parse_error &e) {
            return badInput(
                QStringLiteral(
                    "the new payload is not valid JSON (at byte %1): %2; nothing changed")
                    .arg(e.byte)
                    .arg(QString::fromUtf8(e.what())));
        } catch (const nlohmann::json::exception &e) {
            // Valid syntax the parser still refuses: a number out of double's range (1e400).
            return badInput(
                QStringLiteral("the new payload is not usable JSON: %1; nothing changed")
                    .arg(QString::fromUtf8(e.what())));
        }
        auto valid = db.scalar(
            QStringLiteral("SELECT CASE WHEN ") %
                DlqDialect::of(db.dialect()).isValidJson(QStringLiteral("CAST(? AS TEXT)")) %
                QStringLiteral(" THEN 1 ELSE 0 END"),
            {DlqDialect::of(db.dialect()).payloadValue(*request.payload)});
        if (!valid)
            return fail(valid.error());
        if (valid->toInt() != 1)
            return badInput(QStringLiteral("the new payload is not valid JSON for the database's "
                                           "JSON functions; nothing changed"));
        expr = QStringLiteral("?");
        exprBinds << DlqDialect::of(db.dialect()).payloadValue(*request.payload);
        description = QStringLiteral("payload replaced (%1 bytes)").arg(request.payload->size());
    } else {
        QStringList what;
        for (const auto &[path, value] : request.sets) {
            if (!path.startsWith(u'$'))
                return badInput(
                    QStringLiteral(
                        "--set %1=…: a JSON path starts with $ (like $.amount or $.items[0].sku)")
                        .arg(path));
            // SQLite's path syntax: $, .key, ."quoted key", [N], [#-N].
            static const QRegularExpression syntax(QStringLiteral(
                "^\\$(?:\\.(?:\"[^\"]*\"|[^.\\[\\]\"]+)|\\[(?:\\d+|#(?:-\\d+)?)\\])*$"));
            if (!syntax.match(path).hasMatch())
                return badInput(
                    QStringLiteral("--set %1=…: malformed JSON path (expected $ then .key, "
                                   ".\"key\", [N] or [#-N] steps); nothing changed")
                        .arg(path));
            what << path % QStringLiteral(" = ") % value;
        }
        expr = DlqDialect::of(db.dialect())
                   .jsonSet(QStringLiteral("CAST(d.payload AS TEXT)"), request.sets, exprBinds);
        description = QStringLiteral("set ") % what.join(QStringLiteral(", "));
    }

    if (auto s = dlqinternal::requireIds(db, request.selection.ids); !s)
        return fail(s.error());
    if (auto s = refuseFinished(db, request.selection.ids, QStringLiteral("fix")); !s)
        return fail(s.error());
    QVariantList predBinds;
    auto pred = openSelection(db, request.selection,
                              {DlqStatus::New, DlqStatus::Failed, DlqStatus::Fixed}, predBinds);
    if (!pred)
        return fail(pred.error());

    if (!request.sets.empty()) {
        auto bad = db.exec(QStringLiteral("SELECT d.dlq_id FROM rewind_dlq AS d WHERE ") % *pred %
                               QStringLiteral(" AND NOT (") %
                               DlqDialect::of(db.dialect())
                                   .isValidJson(QStringLiteral("CAST(d.payload AS TEXT)")) %
                               QStringLiteral(") ORDER BY d.dlq_id LIMIT 20"),
                           predBinds);
        if (!bad)
            return fail(bad.error());
        QList<qint64> ids;
        while (bad->next())
            ids << bad->value(0).toLongLong();
        if (!ids.isEmpty())
            return badInput(
                QStringLiteral("record %1: the payload is not JSON, so --set cannot edit it; "
                               "replace it with --payload-file. Nothing changed")
                    .arg(idList(ids)));
    }

    // Whether a record's payload changes: a replaced payload by its bytes; a
    // --set by the JSON value, so a path set to the value it holds leaves the
    // record's bytes as they were (the engine's JSON text would respace them).
    const SqlDialect &d = db.dialect();
    const QString differs =
        request.payload
            ? DlqDialect::of(d).nullSafeDistinct(
                  DlqDialect::of(d).payloadBytes(expr),
                  DlqDialect::of(d).payloadBytes(QStringLiteral("d.payload")))
            : DlqDialect::of(d).jsonValuesDiffer(QStringLiteral("CAST(d.payload AS TEXT)"), expr);
    const QVariantList differsBinds = exprBinds;
    // The payload after the fix, in bytes and as stored; binds: differsBinds + exprBinds.
    const QString after = QStringLiteral("CASE WHEN ") % differs % QStringLiteral(" THEN ") %
                          DlqDialect::of(d).payloadBytes(expr) % QStringLiteral(" ELSE ") %
                          DlqDialect::of(d).payloadBytes(QStringLiteral("d.payload")) %
                          QStringLiteral(" END");
    const QString stored = QStringLiteral("CASE WHEN ") % differs % QStringLiteral(" THEN ") %
                           DlqDialect::of(d).payloadStored(expr) %
                           QStringLiteral(" ELSE d.payload END");
    const QVariantList afterBinds = differsBinds + exprBinds;
    DlqFixResult result;
    result.executed = request.execute;
    auto counts =
        db.exec(QStringLiteral("SELECT COUNT(*), COALESCE(SUM(CASE WHEN ") % differs %
                    QStringLiteral(" THEN 1 ELSE 0 END), 0) FROM rewind_dlq AS d WHERE ") % *pred,
                differsBinds + predBinds);
    if (!counts && counts.error().message.contains(QLatin1String("JSON path")))
        return badInput(QStringLiteral("--set: malformed JSON path (%1); nothing changed")
                            .arg(counts.error().message.simplified()));
    if (!counts)
        return fail(counts.error());
    if (counts->next()) {
        result.selected = counts->value(0).toLongLong();
        result.changed = counts->value(1).toLongLong();
    }
    auto samples =
        db.exec(QStringLiteral("SELECT d.dlq_id, ") %
                    DlqDialect::of(d).payloadBytes(QStringLiteral("d.payload")) %
                    QStringLiteral(", ") % after % QStringLiteral(" FROM rewind_dlq AS d WHERE ") %
                    *pred % QStringLiteral(" ORDER BY d.dlq_id LIMIT 5"),
                afterBinds + predBinds);
    if (!samples)
        return fail(samples.error());
    while (samples->next())
        result.samples.push_back({samples->value(0).toLongLong(), samples->value(1).toByteArray(),
                                  samples->value(2).toByteArray()});
    if (!request.execute || result.selected == 0)
        return result;

    const QString reason =
        request.reason.isEmpty()
            ? description
            : QString(request.reason % QStringLiteral(" (") % description % u')');
    const Status s = db.writeTransaction([&]() -> Status {
        const QString blob = db.dialect().blobType();
        if (auto r =
                db.exec(QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS rewind_dlq_fix (dlq_id ") %
                        db.dialect().bigintType() %
                        QStringLiteral(" PRIMARY KEY, from_status TEXT, p_before ") % blob %
                        QStringLiteral(", p_after ") % blob % u')');
            !r)
            return fail(r.error());
        if (auto r = db.exec(QStringLiteral("DELETE FROM rewind_dlq_fix")); !r)
            return fail(r.error());
        auto staged = db.exec(QStringLiteral("INSERT INTO rewind_dlq_fix (dlq_id, from_status, "
                                             "p_before, p_after) SELECT d.dlq_id, d.status, ") %
                                  DlqDialect::of(d).payloadStored(QStringLiteral("d.payload")) %
                                  QStringLiteral(", ") % stored %
                                  QStringLiteral(" FROM rewind_dlq AS d WHERE ") % *pred,
                              afterBinds + predBinds);
        if (!staged)
            return fail(staged.error());
        auto changed = dlqstore::applyFixes(db, QStringLiteral("rewind_dlq_fix"), reason);
        if (!changed)
            return fail(changed.error());
        result.selected = *changed;
        failpoint("dlq-fix-before-commit");
        const nlohmann::json detail = {{"records", result.selected},
                                       {"changed", result.changed},
                                       {"fix", description.toStdString()},
                                       {"reason", request.reason.toStdString()}};
        return writeAudit(db, QStringLiteral("dlq-fix"), QString(), QString(), QVariant(),
                          QString::fromStdString(detail.dump()));
    });
    if (!s)
        return fail(s.error());
    return result;
}

Result<DlqDiscardResult> discardDlq(const Database &db, const DlqSelection &selection,
                                    const QString &reason, bool execute) {
    if (execute)
        if (auto s = requireDlqWritePrivileges(db, QStringLiteral("DLQ discard")); !s)
            return fail(s.error());
    if (reason.trimmed().isEmpty())
        return badInput(
            QStringLiteral("--reason is required: say why these records are discarded"));
    if (selection.isEmpty())
        return badInput(QStringLiteral("name the records to discard: --id ID, or a selection "
                                       "(--error-class C, --status S, --source S)"));
    if (auto s = dlqinternal::requireIds(db, selection.ids); !s)
        return fail(s.error());
    if (auto s = refuseFinished(db, selection.ids, QStringLiteral("discard")); !s)
        return fail(s.error());
    QVariantList binds;
    auto pred =
        openSelection(db, selection, {DlqStatus::New, DlqStatus::Failed, DlqStatus::Fixed}, binds);
    if (!pred)
        return fail(pred.error());
    DlqDiscardResult result;
    result.executed = execute;
    auto ids = db.exec(QStringLiteral("SELECT d.dlq_id FROM rewind_dlq AS d WHERE ") % *pred %
                           QStringLiteral(" ORDER BY d.dlq_id LIMIT 100"),
                       binds);
    if (!ids)
        return fail(ids.error());
    while (ids->next())
        result.ids << ids->value(0).toLongLong();
    auto count =
        db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq AS d WHERE ") % *pred, binds);
    if (!count)
        return fail(count.error());
    result.selected = count->toLongLong();
    if (!execute || result.selected == 0)
        return result;
    const Status s = db.writeTransaction([&]() -> Status {
        if (auto r = db.exec(
                QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS rewind_dlq_discard (dlq_id ") %
                db.dialect().bigintType() % QStringLiteral(" PRIMARY KEY, from_status TEXT)"));
            !r)
            return fail(r.error());
        if (auto r = db.exec(QStringLiteral("DELETE FROM rewind_dlq_discard")); !r)
            return fail(r.error());
        if (auto r =
                db.exec(QStringLiteral("INSERT INTO rewind_dlq_discard (dlq_id, from_status) "
                                       "SELECT d.dlq_id, d.status FROM rewind_dlq AS d WHERE ") %
                            *pred,
                        binds);
            !r)
            return fail(r.error());
        auto changed = dlqstore::discard(db, QStringLiteral("rewind_dlq_discard"), reason);
        if (!changed)
            return fail(changed.error());
        result.selected = *changed;
        const nlohmann::json detail = {{"records", result.selected},
                                       {"reason", reason.toStdString()}};
        return writeAudit(db, QStringLiteral("dlq-discard"), QString(), QString(), QVariant(),
                          QString::fromStdString(detail.dump()));
    });
    if (!s)
        return fail(s.error());
    return result;
}

} // namespace rw
