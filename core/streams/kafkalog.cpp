#include "core/streams/kafkalog.h"

#include "core/dlq/dlqstore.h"
#include "core/kafka/kafkaclient.h"
#include "core/streams/kafkalogdetail.h"
#include "core/streams/offsetstore.h"
#include "core/streams/streamsdialect.h"
#include "core/util/failpoint.h"
#include "core/util/timeutil.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QHash>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringBuilder>
#include <QThread>
#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <librdkafka/rdkafka.h>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

namespace rw {

namespace kafkalog_detail {
Q_LOGGING_CATEGORY(lcKafka, "rewind.kafka", QtInfoMsg)
} // namespace kafkalog_detail

namespace {

using namespace kafkaclient;
using namespace kafkalog_detail;

const QString kEventsTable = eventsTable();

// The partitions of `topic` in a member's assignment, as the consumer
// protocol encodes it (ConsumerProtocolAssignment: int16 version, then
// [string topic, [int32 partition]], big-endian); none where it is not one.
std::vector<qint64> assignedPartitions(const void *data, int size, const QByteArray &topic) {
    std::vector<qint64> out;
    const auto *p = static_cast<const unsigned char *>(data);
    int at = 0;
    const auto has = [&](int n) { return p && n >= 0 && at + n <= size; };
    const auto int16 = [&] {
        const int v = qint16(quint16(p[at] << 8 | p[at + 1]));
        at += 2;
        return v;
    };
    const auto int32 = [&] {
        const qint32 v = qint32(quint32(p[at]) << 24 | quint32(p[at + 1]) << 16 |
                                quint32(p[at + 2]) << 8 | quint32(p[at + 3]));
        at += 4;
        return v;
    };
    if (!has(6))
        return out;
    int16(); // version
    const qint32 topics = int32();
    for (qint32 t = 0; t < topics; ++t) {
        if (!has(2))
            return {};
        const int length = int16();
        if (!has(length))
            return {};
        const bool mine =
            QByteArray::fromRawData(reinterpret_cast<const char *>(p + at), length) == topic;
        at += length;
        if (!has(4))
            return {};
        const qint32 count = int32();
        if (count < 0 || !has(4 * count))
            return {};
        for (qint32 i = 0; i < count; ++i) {
            const qint32 partition = int32();
            if (mine)
                out.push_back(partition);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// One record's offset and timestamp (epoch ms; -1 when it has none).
struct RecordAt {
    qint64 offset = 0;
    qint64 ms = -1;
};

// The first record at or after `offset` of partition `id` (none past the
// log end), fetched with the legacy consumer of `rkt`.
Result<std::optional<RecordAt>> fetchRecord(rd_kafka_topic_t *rkt, const StreamSpec &s, qint32 id,
                                            qint64 offset) {
    if (rd_kafka_consume_start(rkt, id, offset) == -1)
        return internalError(
            context(s) %
            QStringLiteral("partition %1: cannot fetch from offset %2: ").arg(id).arg(offset) %
            QString::fromUtf8(rd_kafka_err2str(rd_kafka_last_error())));
    const auto stop = qScopeGuard([&] { rd_kafka_consume_stop(rkt, id); });
    QDeadlineTimer deadline(timeoutMs());
    while (!deadline.hasExpired()) {
        const Message m(rd_kafka_consume(rkt, id, 100));
        if (!m)
            continue;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF)
            return std::optional<RecordAt>();
        if (m->err)
            return internalError(context(s) %
                                 QStringLiteral("partition %1, offset %2: ").arg(id).arg(offset) %
                                 QString::fromUtf8(rd_kafka_message_errstr(m.get())));
        if (m->offset < offset)
            continue;
        rd_kafka_timestamp_type_t type;
        return std::optional<RecordAt>(
            RecordAt{m->offset, rd_kafka_message_timestamp(m.get(), &type)});
    }
    return fail(unreachable(s, RD_KAFKA_RESP_ERR__TIMED_OUT));
}

} // namespace

Result<std::vector<StreamPartitionInfo>> KafkaLog::partitions() const {
    auto rk = connect(m_stream);
    if (!rk)
        return fail(rk.error());
    auto ids = topicPartitions(rk->get(), m_stream);
    if (!ids)
        return fail(ids.error());
    const QByteArray topic = m_stream.kafka->topic.toUtf8();
    // Every partition's log start, then its end, each in one ListOffsets
    // round (EARLIEST and LATEST): rd_kafka_offsets_for_times keeps to its
    // timeout, where librdkafka 2.0.2's query_watermark_offsets waited on a
    // leader killed a moment before for minutes (tested: tst_kafkafaults).
    const auto ends = [&](int64_t which) -> Result<QHash<qint32, qint64>> {
        const std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter> list(
            rd_kafka_topic_partition_list_new(int(ids->size())));
        for (const qint32 id : *ids)
            rd_kafka_topic_partition_list_add(list.get(), topic.constData(), id)->offset = which;
        const rd_kafka_resp_err_t err =
            rd_kafka_offsets_for_times(rk->get(), list.get(), timeoutMs());
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
            return fail(unreachable(m_stream, err));
        QHash<qint32, qint64> out;
        for (int i = 0; i < list->cnt; ++i) {
            if (list->elems[i].err != RD_KAFKA_RESP_ERR_NO_ERROR)
                return fail(unreachable(m_stream, list->elems[i].err));
            out.insert(list->elems[i].partition, list->elems[i].offset);
        }
        return out;
    };
    auto starts = ends(RD_KAFKA_OFFSET_BEGINNING);
    if (!starts)
        return fail(starts.error());
    auto stops = ends(RD_KAFKA_OFFSET_END);
    if (!stops)
        return fail(stops.error());
    std::vector<StreamPartitionInfo> out;
    for (const qint32 id : *ids) {
        const qint64 lo = starts->value(id), hi = stops->value(id);
        StreamPartitionInfo p;
        p.partition = id;
        p.logStart = lo;
        p.logEnd = hi;
        p.events = hi - lo; // compacted topics may hold fewer
        out.push_back(p);
    }
    return out;
}

Result<std::vector<PartitionOffsets>> KafkaLog::committedOffsets(const QString &group) const {
    auto parts = partitions();
    if (!parts)
        return fail(parts.error());
    return committedOn(group, *parts);
}

Result<std::vector<PartitionOffsets>>
KafkaLog::committedOn(const QString &group, const std::vector<StreamPartitionInfo> &parts) const {
    auto rk = connect(m_stream, group);
    if (!rk)
        return fail(rk.error());
    const std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter> list(
        rd_kafka_topic_partition_list_new(int(parts.size())));
    const QByteArray topic = m_stream.kafka->topic.toUtf8();
    for (const StreamPartitionInfo &p : parts)
        rd_kafka_topic_partition_list_add(list.get(), topic.constData(), qint32(p.partition));
    const rd_kafka_resp_err_t err = rd_kafka_committed(rk->get(), list.get(), timeoutMs());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        return fail(unreachable(m_stream, err));
    std::vector<PartitionOffsets> out;
    for (int i = 0; i < list->cnt; ++i) {
        const rd_kafka_topic_partition_t &e = list->elems[i];
        if (e.err != RD_KAFKA_RESP_ERR_NO_ERROR)
            return fail(Error::internal(context(m_stream) % QStringLiteral("group \"") % group %
                                        QStringLiteral("\", partition %1: ").arg(e.partition) %
                                        QString::fromUtf8(rd_kafka_err2str(e.err))));
        const auto info =
            std::find_if(parts.begin(), parts.end(),
                         [&](const StreamPartitionInfo &p) { return p.partition == e.partition; });
        PartitionOffsets o;
        o.partition = e.partition;
        o.logStart = info->logStart;
        o.logEnd = info->logEnd;
        o.stored = e.offset >= 0;
        o.committed = o.stored ? e.offset : info->logStart;
        o.lag = std::max<qint64>(0, o.logEnd - std::max(o.committed, o.logStart));
        out.push_back(o);
    }
    return out;
}

Result<std::optional<QMap<QString, KafkaLog::Described>>>
KafkaLog::clusterGroups(const QString &group) const {
    auto rk = connect(m_stream);
    if (!rk)
        return fail(rk.error());
    // ListGroups, then DescribeGroups of each (or DescribeGroups of `group`
    // alone); librdkafka asks the broker's ApiVersions first and answers
    // "unsupported" where they are missing, as on the 2.0.2 mock cluster.
    const QByteArray only = group.toUtf8();
    const struct rd_kafka_group_list *raw = nullptr;
    const rd_kafka_resp_err_t err = rd_kafka_list_groups(
        rk->get(), group.isEmpty() ? nullptr : only.constData(), &raw, timeoutMs());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (err == RD_KAFKA_RESP_ERR__TRANSPORT || err == RD_KAFKA_RESP_ERR__TIMED_OUT ||
            err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
            return fail(unreachable(m_stream, err));
        qCDebug(lcKafka,
                "stream %s: the cluster cannot list its groups (%s); showing the spec's and the "
                "workspace's",
                qPrintable(m_stream.name), rd_kafka_err2str(err));
        return std::optional<QMap<QString, Described>>();
    }
    const std::unique_ptr<const struct rd_kafka_group_list,
                          void (*)(const struct rd_kafka_group_list *)>
        list(raw, rd_kafka_group_list_destroy);
    const QByteArray topic = m_stream.kafka->topic.toUtf8();
    QMap<QString, Described> groups;
    for (int i = 0; i < list->group_cnt; ++i) {
        const struct rd_kafka_group_info &g = list->groups[i];
        const QString protocolType = QString::fromUtf8(g.protocol_type ? g.protocol_type : "");
        if (g.err != RD_KAFKA_RESP_ERR_NO_ERROR ||
            !(protocolType.isEmpty() || protocolType == QLatin1String("consumer")))
            continue;
        Described d;
        d.state = QString::fromUtf8(g.state ? g.state : "");
        d.protocol = QString::fromUtf8(g.protocol ? g.protocol : "");
        for (int m = 0; m < g.member_cnt; ++m) {
            const struct rd_kafka_group_member_info &info = g.members[m];
            GroupMember member;
            member.memberId = QString::fromUtf8(info.member_id ? info.member_id : "");
            member.clientId = QString::fromUtf8(info.client_id ? info.client_id : "");
            member.host = QString::fromUtf8(info.client_host ? info.client_host : "");
            member.partitions =
                assignedPartitions(info.member_assignment, info.member_assignment_size, topic);
            d.members.push_back(std::move(member));
        }
        groups.insert(QString::fromUtf8(g.group), std::move(d));
    }
    return std::optional<QMap<QString, Described>>(std::move(groups));
}

Status KafkaLog::requireNoMembers(const QString &group) const {
    auto described = clusterGroups(group);
    if (!described)
        return fail(described.error());
    if (!*described || !(*described)->contains(group))
        return {}; // a cluster that cannot describe groups: its coordinator refuses the commit
    const Described &d = (*described)->value(group);
    if (d.members.empty() || d.state == QLatin1String("Empty") || d.state == QLatin1String("Dead"))
        return {};
    QStringList who;
    for (const GroupMember &m : d.members)
        who << m.clientId % QStringLiteral(" on ") % m.host;
    return badInput(QStringLiteral("refused: consumer group \"%1\" of stream \"%2\" has %3 active "
                                   "member(s) (state %4: %5); stop its consumers, then try again. "
                                   "Nothing was changed.")
                        .arg(group, m_stream.name)
                        .arg(d.members.size())
                        .arg(d.state, who.join(QStringLiteral(", "))));
}

Result<std::vector<ConsumerGroupInfo>> KafkaLog::consumerGroups() const {
    auto parts = partitions();
    if (!parts)
        return fail(parts.error());
    auto listed = clusterGroups();
    if (!listed)
        return fail(listed.error());
    // The spec's groups and those Rewind has offsets of are always shown;
    // the cluster's others where they have commits on this topic.
    QStringList always = m_stream.kafka->groups;
    auto known =
        m_db.exec(QStringLiteral("SELECT DISTINCT group_id FROM rewind_offsets WHERE stream = ?"),
                  {m_stream.name});
    if (!known)
        return fail(known.error());
    while (known->next())
        always << known->value(0).toString();
    known->finish();
    QStringList candidates = always;
    if (*listed)
        candidates << (*listed)->keys();
    candidates.removeDuplicates();
    candidates.sort();
    std::vector<ConsumerGroupInfo> out;
    for (const QString &group : std::as_const(candidates)) {
        auto offsets = committedOn(group, *parts);
        if (!offsets)
            return fail(offsets.error());
        ConsumerGroupInfo g;
        g.group = group;
        for (const PartitionOffsets &o : *offsets) {
            g.partitions += o.stored ? 1 : 0;
            g.lag += o.lag;
        }
        if (g.partitions == 0 && !always.contains(group))
            continue; // a group of other topics
        g.offsets = std::move(*offsets);
        if (*listed && (*listed)->contains(group)) {
            const Described d = (*listed)->value(group);
            g.state = d.state;
            g.protocol = d.protocol;
            g.members = d.members;
            // Empty and Dead have no member; Stable and the rebalancing states have.
            if (!g.state->isEmpty() && *g.state != QLatin1String("Unknown"))
                g.hasMembers =
                    *g.state != QLatin1String("Empty") && *g.state != QLatin1String("Dead");
        }
        out.push_back(std::move(g));
    }
    return out;
}

Result<QMap<qint64, FirstAtOrAfter>> KafkaLog::firstOffsetsAtOrAfter(qint64 ms) const {
    auto parts = partitions();
    if (!parts)
        return fail(parts.error());
    auto rk = connect(m_stream, QString(),
                      {{QStringLiteral("enable.partition.eof"), QStringLiteral("true")}}, true);
    if (!rk)
        return fail(rk.error());
    const QByteArray topic = m_stream.kafka->topic.toUtf8();
    const std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter> list(
        rd_kafka_topic_partition_list_new(int(parts->size())));
    for (const StreamPartitionInfo &p : *parts)
        rd_kafka_topic_partition_list_add(list.get(), topic.constData(), qint32(p.partition))
            ->offset = ms;
    // The broker's offset-for-timestamp lookup (ListOffsets by time).
    const rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(rk->get(), list.get(), timeoutMs());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        return fail(unreachable(m_stream, err));
    const std::unique_ptr<rd_kafka_topic_t, TopicDeleter> rkt(
        rd_kafka_topic_new(rk->get(), topic.constData(), nullptr));
    const auto at = [&](qint32 id, qint64 offset) {
        return fetchRecord(rkt.get(), m_stream, id, offset);
    };
    QMap<qint64, FirstAtOrAfter> out;
    for (const StreamPartitionInfo &p : *parts) {
        const auto id = qint32(p.partition);
        const rd_kafka_topic_partition_t *e =
            rd_kafka_topic_partition_list_find(list.get(), topic.constData(), id);
        FirstAtOrAfter f;
        f.foundBy = QStringLiteral("broker");
        if (e && e->err == RD_KAFKA_RESP_ERR_NO_ERROR && e->offset >= 0) {
            if (e->offset < p.logEnd)
                f.offset = e->offset;
        } else if (p.logEnd > p.logStart) {
            // No offset from the broker. Where the newest record is at or
            // after the instant there is one (some brokers, librdkafka's mock
            // among them, answer -1 to every lookup): find the first record
            // at or after it by a binary search over the records' timestamps,
            // which Kafka keeps in non-decreasing order per partition.
            auto newest = at(id, p.logEnd - 1);
            if (!newest)
                return fail(newest.error());
            if (*newest && (*newest)->ms >= ms) {
                f.foundBy = QStringLiteral("record_search");
                qint64 lo = p.logStart, hi = (*newest)->offset; // the answer is in [lo, hi]
                while (lo < hi) {
                    const qint64 mid = lo + (hi - lo) / 2;
                    auto r = at(id, mid);
                    if (!r)
                        return fail(r.error());
                    if (*r && (*r)->ms >= ms)
                        hi = std::min(hi, (*r)->offset == mid ? mid : (*r)->offset);
                    else
                        lo = (*r ? (*r)->offset : mid) + 1;
                }
                f.offset = lo;
            }
        }
        // The boundary: the record at the new offset and the one before it.
        if (f.offset) {
            auto r = at(id, *f.offset);
            if (!r)
                return fail(r.error());
            if (*r && (*r)->ms >= 0) {
                f.offset = (*r)->offset;
                f.atMs = (*r)->ms;
            }
        }
        const qint64 newOffset = f.offset.value_or(p.logEnd);
        if (newOffset > p.logStart) {
            auto r = at(id, newOffset - 1);
            if (!r)
                return fail(r.error());
            if (*r && (*r)->offset == newOffset - 1 && (*r)->ms >= 0)
                f.beforeMs = (*r)->ms;
        }
        out.insert(p.partition, f);
    }
    return out;
}

Status KafkaLog::clusterCommit(const QString &group,
                               const std::vector<std::pair<qint64, qint64>> &offsets) const {
    if (offsets.empty())
        return {};
    auto rk = connect(m_stream, group);
    if (!rk)
        return fail(rk.error());
    const std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter> list(
        rd_kafka_topic_partition_list_new(int(offsets.size())));
    const QByteArray topic = m_stream.kafka->topic.toUtf8();
    for (const auto &[partition, offset] : offsets)
        rd_kafka_topic_partition_list_add(list.get(), topic.constData(), qint32(partition))
            ->offset = offset;
    // A commit from outside the group (no member, no generation), as
    // kafka-consumer-groups --reset-offsets makes one; the coordinator
    // refuses it while the group has members. A cluster that is away is
    // asked again with backoff for as long as a call may take.
    QDeadlineTimer deadline(timeoutMs());
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    for (int attempt = 0;; ++attempt) {
        err = rd_kafka_commit(rk->get(), list.get(), 0);
        if (!transient(err) || deadline.remainingTime() < Database::backoffMs(attempt))
            break;
        QThread::msleep(Database::backoffMs(attempt));
    }
    switch (err) {
    case RD_KAFKA_RESP_ERR_NO_ERROR:
        return {};
    case RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID:
    case RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION:
    case RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS:
        // A member joined since the check: the coordinator's own refusal, by name.
        return badInput(
            QStringLiteral(
                "refused: consumer group \"%1\" of stream \"%2\" has active members (state: %3; "
                "the group coordinator refused a commit from outside the group with %4); stop its "
                "consumers, then try again. Nothing was changed.")
                .arg(group, m_stream.name,
                     err == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS
                         ? QStringLiteral("rebalancing")
                         : QStringLiteral("with members"),
                     QString::fromUtf8(rd_kafka_err2name(err))));
    default:
        if (transient(err))
            return fail(unreachable(m_stream, err));
        return internalError(context(m_stream) % QStringLiteral("committing offsets of group \"") %
                             group % QStringLiteral("\": ") %
                             QString::fromUtf8(rd_kafka_err2str(err)));
    }
}

// The workspace's record of the group: rows of (partition, committed
// offset, offset on the cluster); with `committed` false only the latter.
Status KafkaLog::recordOffsets(const QString &group, const std::vector<std::array<qint64, 3>> &rows,
                               bool committed) const {
    if (rows.empty())
        return {};
    nlohmann::json onCluster = nlohmann::json::array();
    for (const auto &[partition, offset, held] : rows)
        onCluster.push_back({partition, held});
    const SqlDialect &d = m_db.dialect();
    const StreamsDialect &sd = StreamsDialect::of(m_db);
    const QStringList key{QStringLiteral("stream"), QStringLiteral("group_id"),
                          QStringLiteral("partition_id")};
    if (committed) {
        std::vector<std::pair<qint64, qint64>> pairs;
        for (const auto &[partition, offset, held] : rows)
            pairs.emplace_back(partition, offset);
        if (auto s = offsetstore::commit(m_db, m_stream.name, group, pairs); !s)
            return s;
    }
    auto r = m_db.exec(
        QStringLiteral(
            "INSERT INTO rewind_kafka_offsets (stream, group_id, partition_id, cluster_offset) ") %
            sd.jsonIntegerRows(QStringLiteral("?, ?, "), 2, QString()) %
            QStringLiteral(" WHERE true") % d.upsertSet(key, {QStringLiteral("cluster_offset")}),
        {m_stream.name, group, QString::fromStdString(onCluster.dump())});
    if (!r)
        return fail(r.error());
    return {};
}

Status KafkaLog::commit(const QString &group,
                        const std::vector<std::pair<qint64, qint64>> &offsets) const {
    if (auto idle = requireNoMembers(group); !idle)
        return idle;
    failpoint("kafka-before-commit");
    // The workspace first: a refused commit rolls it back with the caller's transaction.
    std::vector<std::array<qint64, 3>> rows;
    for (const auto &[partition, offset] : offsets)
        rows.push_back({partition, offset, offset});
    if (auto s = recordOffsets(group, rows, true); !s)
        return s;
    return clusterCommit(group, offsets);
}

Result<std::vector<PartitionOffsets>> KafkaLog::replayStart(const QString &group,
                                                            bool execute) const {
    auto offsets = committedOffsets(group);
    if (!offsets)
        return fail(offsets.error());
    auto q = m_db.exec(
        QStringLiteral(
            "SELECT o.partition_id, o.committed_offset, k.cluster_offset FROM rewind_offsets AS o "
            "LEFT JOIN rewind_kafka_offsets AS k ON k.stream = o.stream AND k.group_id = "
            "o.group_id "
            "AND k.partition_id = o.partition_id WHERE o.stream = ? AND o.group_id = ?"),
        {m_stream.name, group});
    if (!q)
        return fail(q.error());
    QHash<qint64, std::pair<qint64, QVariant>> workspace;
    while (q->next())
        workspace.insert(q->value(0).toLongLong(), {q->value(1).toLongLong(), q->value(2)});
    std::vector<std::pair<qint64, qint64>> starts, onCluster;
    for (PartitionOffsets &p : *offsets) {
        const qint64 held = p.stored ? p.committed : -1;
        const auto w = workspace.constFind(p.partition);
        // The cluster holds what Rewind last committed there while the
        // workspace went further: a replay's batch committed, its cluster
        // commit never happened. Had anyone else moved the group since (a
        // reset, a consumer), the cluster would hold something else, and its
        // offsets would be the truth.
        if (w != workspace.constEnd() && !w->second.isNull() && w->second.toLongLong() == held &&
            w->first != held) {
            p.committed = w->first;
            p.stored = true;
            p.lag = std::max<qint64>(0, p.logEnd - std::max(p.committed, p.logStart));
        }
        starts.emplace_back(p.partition, std::max(p.committed, p.logStart));
        onCluster.emplace_back(p.partition, held);
    }
    if (!execute)
        return offsets;
    if (auto idle = requireNoMembers(group); !idle)
        return fail(idle.error());
    failpoint("kafka-before-commit");
    // The starts become the group's committed offsets: what a crash kept
    // from the cluster is caught up, and a group with members refuses this
    // before the replay writes anything.
    std::vector<std::pair<qint64, qint64>> claim;
    for (std::size_t i = 0; i < starts.size(); ++i)
        if ((*offsets)[i].stored)
            claim.push_back(starts[i]);
    if (auto s = clusterCommit(group, claim); !s)
        return fail(s.error());
    // What the cluster now holds (-1: nothing committed there), and the
    // workspace's offsets from where this replay starts.
    std::vector<std::array<qint64, 3>> rows;
    for (std::size_t i = 0; i < starts.size(); ++i)
        rows.push_back({starts[i].first, starts[i].second,
                        (*offsets)[i].stored ? starts[i].second : onCluster[i].second});
    if (auto recorded = m_db.writeTransaction([&] { return recordOffsets(group, rows, true); });
        !recorded)
        return fail(recorded.error());
    return offsets;
}

Status KafkaLog::followCommitted(const QString &group,
                                 const std::vector<OffsetRange> &reached) const {
    std::vector<std::pair<qint64, qint64>> offsets;
    for (const OffsetRange &r : reached)
        offsets.emplace_back(r.partition, r.to);
    if (auto s = clusterCommit(group, offsets); !s) {
        Error e = s.error();
        e.message += QStringLiteral(" (the batch is in the workspace; the next replay commits its "
                                    "offsets to the group first)");
        return fail(e);
    }
    failpoint("kafka-after-cluster-commit");
    std::vector<std::array<qint64, 3>> rows;
    for (const auto &[partition, offset] : offsets)
        rows.push_back({partition, offset, offset});
    return m_db.writeTransaction([&] { return recordOffsets(group, rows, false); });
}

} // namespace rw
