#include "core/streams/offsets.h"

#include "core/sql/privileges.h"
#include "core/streams/lag.h"
#include "core/streams/replaylock.h"
#include "core/streams/streamlog.h"
#include "core/streams/streamsdialect.h"
#include "core/workspace/workspace.h"

#include <QFile>
#include <QLoggingCategory>
#include <QMap>
#include <QRegularExpression>
#include <QStringBuilder>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

namespace rw {

namespace {

std::string s(const QString &text) {
    return text.toStdString();
}

QString partitionList(const std::vector<PartitionOffsets> &parts) {
    QStringList names;
    for (const auto &p : parts)
        names << QString::number(p.partition);
    return names.isEmpty() ? QStringLiteral("no partitions: the log is empty") : names.join(u", ");
}

qint64 clampTo(qint64 value, const PartitionOffsets &p, bool &clamped) {
    const qint64 out = std::clamp(value, p.logStart, p.logEnd);
    clamped = out != value;
    return out;
}

Result<ResetPlan> plan(const StreamLog &log, const StreamSpec &stream, const QString &group,
                       const ResetRequest &request) {
    auto offsets = log.committedOffsets(group);
    if (!offsets)
        return fail(offsets.error());
    QMap<qint64, const PartitionOffsets *> byPartition;
    for (const auto &p : *offsets)
        byPartition.insert(p.partition, &p);
    auto known = [&](qint64 partition, const QString &where) -> Status {
        if (!byPartition.contains(partition))
            return badInput(
                QStringLiteral(
                    "%1: partition %2 is not in the log \"%3\" of stream \"%4\" (it has %5)")
                    .arg(where)
                    .arg(partition)
                    .arg(stream.source(), stream.name, partitionList(*offsets)));
        return {};
    };
    for (qint64 p : request.partitions)
        if (auto k = known(p, QStringLiteral("--partition")); !k)
            return fail(k.error());
    QMap<qint64, qint64> fromFile;
    for (const auto &[p, o] : request.fileOffsets) {
        if (auto k = known(p, QStringLiteral("--from-file")); !k)
            return fail(k.error());
        fromFile.insert(p, o);
    }
    QMap<qint64, FirstAtOrAfter> atTime;
    if (request.kind == ResetRequest::Kind::ToDatetime) {
        auto first = log.firstOffsetsAtOrAfter(request.timestampMs);
        if (!first)
            return fail(first.error());
        atTime = std::move(*first);
    }

    ResetPlan out;
    out.stream = stream.name;
    out.group = group;
    out.request = request.describe();
    for (const auto &p : *offsets) {
        if (!request.partitions.empty() &&
            std::find(request.partitions.begin(), request.partitions.end(), p.partition) ==
                request.partitions.end())
            continue;
        if (request.kind == ResetRequest::Kind::FromFile && !fromFile.contains(p.partition))
            continue;
        ResetPartition r;
        r.partition = p.partition;
        r.current = r.newOffset = p.committed;
        r.logStart = p.logStart;
        r.logEnd = p.logEnd;
        r.stored = p.stored;
        switch (request.kind) {
        case ResetRequest::Kind::ToEarliest:
            r.newOffset = p.logStart;
            break;
        case ResetRequest::Kind::ToLatest:
            r.newOffset = p.logEnd;
            break;
        case ResetRequest::Kind::ToCurrent:
            // A Kafka group with nothing committed in a partition: its log
            // end, as kafka-consumer-groups --to-current commits there.
            r.newOffset = stream.kafka && !p.stored ? p.logEnd : p.committed;
            break;
        case ResetRequest::Kind::ToOffset:
            r.newOffset = clampTo(request.value, p, r.clamped);
            break;
        case ResetRequest::Kind::ShiftBy: {
            // Where a Kafka group committed nothing, its consumers start
            // where their own auto.offset.reset says: nothing to shift from,
            // and kafka-consumer-groups refuses it too.
            if (stream.kafka && !p.stored)
                return badInput(
                    QStringLiteral("--shift-by: consumer group \"%1\" has no committed offset in "
                                   "partition %2 of topic \"%3\" (stream \"%4\") to shift from, "
                                   "as kafka-consumer-groups also says; reset that partition with "
                                   "--to-earliest, --to-offset or --to-datetime, or leave it out "
                                   "with --partition. Nothing was changed.")
                        .arg(group)
                        .arg(p.partition)
                        .arg(stream.source(), stream.name));
            qint64 shifted = 0; // past the 64-bit range: as far as it goes, then clamped
            if (__builtin_add_overflow(p.committed, request.value, &shifted))
                shifted = request.value > 0 ? std::numeric_limits<qint64>::max()
                                            : std::numeric_limits<qint64>::min();
            r.newOffset = clampTo(shifted, p, r.clamped);
            break;
        }
        case ResetRequest::Kind::ToDatetime: {
            const FirstAtOrAfter first = atTime.value(p.partition);
            r.newOffset = first.offset.value_or(p.logEnd);
            r.unreadableTimestamps = first.unreadable;
            r.newRecordMs = first.atMs;
            r.previousRecordMs = first.beforeMs;
            r.foundBy = first.foundBy;
            break;
        }
        case ResetRequest::Kind::FromFile:
            r.newOffset = clampTo(fromFile.value(p.partition), p, r.clamped);
            break;
        }
        out.partitions.push_back(r);
    }
    return out;
}

Status apply(const Database &db, const StreamLog &log, const StreamSpec &stream,
             const ResetPlan &plan) {
    std::vector<std::pair<qint64, qint64>> offsets;
    nlohmann::json detail = nlohmann::json::array();
    for (const auto &p : plan.partitions) {
        offsets.emplace_back(p.partition, p.newOffset);
        detail.push_back({{"partition", p.partition}, {"from", p.current}, {"to", p.newOffset}});
    }
    // The audit row first, the commit last: a log that commits elsewhere (a
    // Kafka group, on its cluster) is not changed unless the audit row is
    // written, and a refused commit rolls the audit row back with the rest.
    const nlohmann::json audit = {
        {"group", s(plan.group)}, {"reset", s(plan.request)}, {"partitions", detail}};
    if (auto a = writeAudit(db, QStringLiteral("offsets-reset"), QString(), stream.name, QVariant(),
                            QString::fromStdString(audit.dump()));
        !a)
        return a;
    return log.commit(plan.group, offsets);
}

} // namespace

QString ResetRequest::describe() const {
    switch (kind) {
    case Kind::ToEarliest:
        return QStringLiteral("to-earliest");
    case Kind::ToLatest:
        return QStringLiteral("to-latest");
    case Kind::ToCurrent:
        return QStringLiteral("to-current");
    case Kind::ToOffset:
        return QStringLiteral("to-offset ") % QString::number(value);
    case Kind::ShiftBy:
        return QStringLiteral("shift-by ") % QString::number(value);
    case Kind::ToDatetime:
        return QStringLiteral("to-datetime ") %
               QDateTime::fromMSecsSinceEpoch(timestampMs, Qt::UTC).toString(Qt::ISODateWithMs);
    case Kind::FromFile:
        return QStringLiteral("from-file (%1 %2)")
            .arg(fileOffsets.size())
            .arg(fileOffsets.size() == 1 ? QStringLiteral("partition")
                                         : QStringLiteral("partitions"));
    }
    return QString();
}

Result<std::vector<PartitionOffsets>> listOffsets(const Database &db, const StreamSpec &stream,
                                                  const QString &group) {
    return openStreamLog(db, stream)->committedOffsets(group);
}

namespace {

Q_LOGGING_CATEGORY(lcStreams, "rewind.streams")

void sampleLag(const Database &db, const StreamSpec &stream, const QString &group,
               const std::vector<PartitionOffsets> &offsets) {
    if (auto s =
            recordLagSamples(db, stream.name, group, offsets, QDateTime::currentMSecsSinceEpoch());
        !s)
        qCWarning(lcStreams, "stream %s, group %s: lag sample not recorded: %s",
                  qPrintable(stream.name), qPrintable(group), qPrintable(s.error().message));
}

} // namespace

Result<std::vector<PartitionOffsets>>
readOffsetsSampled(const Database &db, const StreamSpec &stream, const QString &group) {
    auto offsets = listOffsets(db, stream, group);
    if (offsets)
        sampleLag(db, stream, group, *offsets);
    return offsets;
}

Result<std::vector<ConsumerGroupInfo>> listConsumerGroups(const Database &db,
                                                          const StreamSpec &stream) {
    auto groups = openStreamLog(db, stream)->consumerGroups();
    if (!groups)
        return groups;
    for (ConsumerGroupInfo &g : *groups) {
        sampleLag(db, stream, g.group, g.offsets);
        if (!stream.kafka) { // a log table's members are Rewind's own replays
            auto live = runningReplay(db, stream.name, g.group);
            if (!live)
                return fail(live.error());
            g.hasMembers = live->has_value();
        }
        auto windows = recentLagSamples(db, stream.name, g.group);
        if (!windows)
            return fail(windows.error());
        g.status = lagStatusName(
            groupLagStatus(*windows, QDateTime::currentMSecsSinceEpoch(), g.hasMembers));
    }
    return groups;
}

void addGroupNeeds(std::vector<privileges::Need> &needs, const StreamSpec &stream, bool execute) {
    needs.push_back({privileges::Need::On::Database, QString(), QStringLiteral("TEMPORARY"),
                     QStringLiteral("the session's functions and work tables")});
    if (!stream.kafka)
        privileges::addTable(needs, stream.log, QStringLiteral("SELECT"),
                             QStringLiteral("the log"));
    privileges::addControl(needs, {QStringLiteral("rewind_replays")}, QStringLiteral("SELECT"));
    if (!execute)
        return;
    privileges::addControl(needs, {QStringLiteral("rewind_offsets")},
                           QStringLiteral("SELECT, INSERT, UPDATE"));
    if (stream.kafka)
        privileges::addControl(needs, {QStringLiteral("rewind_kafka_offsets")},
                               QStringLiteral("SELECT, INSERT, UPDATE"));
    privileges::addControl(needs, {QStringLiteral("rewind_audit")}, QStringLiteral("INSERT"));
}

Status requireResetPrivileges(const Database &db, const StreamSpec &stream, const QString &group,
                              bool execute) {
    std::vector<privileges::Need> needs;
    addGroupNeeds(needs, stream, execute);
    return privileges::require(
        db, QStringLiteral("offset reset of group %1 on %2").arg(group, stream.name), needs);
}

Result<ResetPlan> resetOffsets(const Database &db, const StreamSpec &stream, const QString &group,
                               const ResetRequest &request, bool execute) {
    if (auto s = requireResetPrivileges(db, stream, group, execute); !s)
        return fail(s.error());
    if (auto setup = prepareStreamSession(db); !setup)
        return fail(setup.error());
    const std::unique_ptr<StreamLog> log = openStreamLog(db, stream);
    // As kafka-consumer-groups refuses to plan a reset for an active group,
    // dry run or not: the offsets a running replay moves make any plan stale.
    const auto idle = [&]() -> Status {
        auto live = runningReplay(db, stream.name, group);
        if (!live)
            return fail(live.error());
        if (*live)
            return badInput(QStringLiteral("refused: %1 of group \"%2\" on stream \"%3\" is "
                                           "running; reset the offsets once it has finished")
                                .arg((*live)->describe(), group, stream.name));
        return {};
    };
    if (!execute) {
        if (auto s = idle(); !s)
            return fail(s.error());
        return plan(*log, stream, group, request);
    }
    ResetPlan result;
    const Status s = db.writeTransaction([&]() -> Status {
        if (auto i = idle(); !i)
            return i;
        auto p = plan(*log, stream, group, request);
        if (!p)
            return fail(p.error());
        result = std::move(*p);
        if (result.partitions.empty())
            return Status{}; // nothing to commit, nothing to audit
        result.executed = true;
        return apply(db, *log, stream, result);
    });
    if (!s)
        return fail(s.error());
    return result;
}

namespace {

QString csvField(const QString &text) {
    if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n') &&
        text.trimmed() == text)
        return text;
    return u'"' % QString(text).replace(QStringLiteral("\""), QStringLiteral("\"\"")) % u'"';
}

// One CSV line's fields (RFC 4180 quoting: "a,b" and "" inside quotes);
// nullopt where a quote is left open.
std::optional<QStringList> csvFields(const QString &line) {
    QStringList fields;
    QString field;
    bool quoted = false, wasQuoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        if (quoted) {
            if (c == u'"' && i + 1 < line.size() && line.at(i + 1) == u'"') {
                field += u'"';
                ++i;
            } else if (c == u'"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == u'"' && field.trimmed().isEmpty()) {
            quoted = wasQuoted = true;
            field.clear();
        } else if (c == u',') {
            fields << (wasQuoted ? field : field.trimmed());
            field.clear();
            wasQuoted = false;
        } else if (!wasQuoted) {
            field += c;
        } else if (!c.isSpace()) {
            return std::nullopt; // text after a closing quote: "2"1 is not 21
        }
    }
    if (quoted)
        return std::nullopt;
    fields << (wasQuoted ? field : field.trimmed());
    return fields;
}

} // namespace

QString resetPlanCsv(const ResetPlan &plan, const QString &topic) {
    QString out;
    const QString t = csvField(topic);
    for (const auto &p : plan.partitions)
        out +=
            t % u',' % QString::number(p.partition) % u',' % QString::number(p.newOffset) % u'\n';
    return out;
}

Result<std::vector<std::pair<qint64, qint64>>>
readResetCsv(const QString &path, const QString &group, const QString &topic) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return badInput(
            QStringLiteral("--from-file %1: cannot read it (%2)").arg(path, file.errorString()));
    std::vector<std::pair<qint64, qint64>> out;
    QStringList others; // what the skipped rows name
    int lineNo = 0, rows = 0;
    while (!file.atEnd()) {
        ++lineNo;
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (line.isEmpty() || line.startsWith(u'#'))
            continue;
        const QString where = QStringLiteral("--from-file %1 line %2").arg(path).arg(lineNo);
        const auto fields = csvFields(line);
        if (!fields)
            return badInput(where %
                            QStringLiteral(": a quoted field is not closed, or has text after its "
                                           "closing quote, in \"") %
                            line % u'"');
        if (fields->size() != 3 && fields->size() != 4)
            return badInput(
                where %
                QStringLiteral(
                    ": expected \"topic,partition,offset\", \"group,topic,partition,offset\" or "
                    "\"group,partition,offset\", got \"") %
                line % u'"');
        const qsizetype n = fields->size();
        bool okP = false, okO = false;
        const qint64 partition = fields->at(n - 2).toLongLong(&okP);
        const qint64 offset = fields->at(n - 1).toLongLong(&okO);
        if (!okP || !okO) {
            if (rows == 0 && !okP && !okO)
                continue; // a header line
            return badInput(where %
                            QStringLiteral(": partition and offset must be integers, got \"") %
                            line % u'"');
        }
        ++rows;
        // Whose row it is. Kafka's one-group form names the topic, Rewind's
        // earlier one the group; the first field tells them apart.
        bool mine = false;
        QString whose;
        if (n == 4) {
            mine = fields->at(0) == group && fields->at(1) == topic;
            whose = QStringLiteral("group %1 topic %2").arg(fields->at(0), fields->at(1));
        } else {
            mine = fields->at(0) == topic || fields->at(0) == group;
            whose = fields->at(0);
        }
        if (!mine) {
            if (!others.contains(whose))
                others << whose;
            continue;
        }
        if (std::any_of(out.begin(), out.end(),
                        [&](const auto &e) { return e.first == partition; }))
            return badInput(where % QStringLiteral(": partition ") % QString::number(partition) %
                            QStringLiteral(" appears twice"));
        out.emplace_back(partition, offset);
    }
    if (out.empty() && !others.isEmpty())
        return badInput(QStringLiteral("--from-file %1: no rows for group \"%2\" or topic \"%3\" "
                                       "(the file has rows for %4)")
                            .arg(path, group, topic, others.join(QStringLiteral(", "))));
    if (out.empty())
        return badInput(
            QStringLiteral("--from-file %1: no \"topic,partition,offset\" rows").arg(path));
    return out;
}

Result<qint64> parseResetDuration(const QString &text) {
    static const QRegularExpression iso(
        QStringLiteral(
            "^P(?:(\\d+)W)?(?:(\\d+)D)?(?:T(?:(\\d+)H)?(?:(\\d+)M)?(?:(\\d+(?:[.,]\\d+)?)S)?)?$"),
        QRegularExpression::CaseInsensitiveOption);
    const QString t = text.trimmed();
    // At most 1000 years back: longer is a typo (and a number too long for
    // 64 bits must not read as 0, landing the reset on "now").
    constexpr double kMaxSeconds = 1000.0 * 366 * 86400;
    const auto tooLong = [&] {
        return badInput(
            QStringLiteral("\"%1\" is too long a duration (at most 1000 years)").arg(text));
    };
    const auto m = iso.match(t);
    if (m.hasMatch() && t.size() > 1 && !t.endsWith(u'T', Qt::CaseInsensitive)) {
        const double seconds = m.captured(1).toDouble() * 7 * 86400.0 +
                               m.captured(2).toDouble() * 86400.0 +
                               m.captured(3).toDouble() * 3600.0 + m.captured(4).toDouble() * 60.0 +
                               QString(m.captured(5)).replace(u',', u'.').toDouble();
        if (!(seconds <= kMaxSeconds))
            return tooLong();
        return qint64(std::llround(seconds * 1000.0));
    }
    static const QRegularExpression shortForm(QStringLiteral("^(?:\\d+[smhd])+$"));
    if (shortForm.match(t).hasMatch()) {
        double seconds = 0;
        static const QRegularExpression part(QStringLiteral("(\\d+)([smhd])"));
        auto it = part.globalMatch(t);
        while (it.hasNext()) {
            const auto pm = it.next();
            const char unit = pm.captured(2).at(0).toLatin1();
            seconds += pm.captured(1).toDouble() * (unit == 's'   ? 1
                                                    : unit == 'm' ? 60
                                                    : unit == 'h' ? 3600
                                                                  : 86400);
        }
        if (!(seconds <= kMaxSeconds))
            return tooLong();
        return qint64(seconds) * 1000;
    }
    return badInput(QStringLiteral("\"%1\" is not a duration (use ISO-8601 PnDTnHnMnS such as "
                                   "PT30M or P1DT2H, or 90s, 15m, 2h, 1d)")
                        .arg(text));
}

} // namespace rw
