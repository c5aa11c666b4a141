// Kafka's own tool as the judge of every offset reset (issue 57): on the real
// cluster, for each reset `offsets-reset` offers, Rewind's dry run equals
// `kafka-consumer-groups --reset-offsets --dry-run` (Kafka's
// ConsumerGroupCommand, from the cluster's own jars) on the same group,
// partition by partition; after Rewind's --execute, `kafka-consumer-groups
// --describe` reads back what Rewind committed, and the partitions it did not
// reset are where they were.
//
// The log: topic A has 3 partitions of 10 records each, one every two
// minutes from 2025-05-14 09:50 UTC (the seed's "reset to 10:00" lands on
// offset 5); partition 2's log start is moved to 4 with kafka-delete-records.
// Topic B has 2 partitions of 10 records each, one every 20 minutes up to
// now (--by-duration lands inside it). Each reset runs on a group of its
// own: committed 5 in A/0 and 7 in A/1, nothing in A/2; 3 in B/0.
#include "tests/kafkacluster.h"
#include "tests/testsupport.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringBuilder>
#include <QTest>
#include <initializer_list>
#include <memory>

using namespace rw;
using kafkatest::Cluster;
using kafkatest::Record;

namespace {

constexpr qint64 kT0 = 1747216200000; // 2025-05-14T09:50:00Z

// partition -> offset
using Offsets = QMap<int, qint64>;

// Rows "topic,partition,offset" of `text` for `topic` (kafka-consumer-groups
// --export prints its plan so).
Offsets csvOffsets(const QString &text, const QString &topic) {
    Offsets out;
    for (const QString &line : text.split(u'\n', Qt::SkipEmptyParts)) {
        const QStringList f = line.trimmed().split(u',');
        if (f.size() == 3 && f[0] == topic)
            out.insert(f[1].toInt(), f[2].toLongLong());
    }
    return out;
}

// kafka-consumer-groups --describe: CURRENT-OFFSET per partition of `topic`
// (-1 where it shows "-": nothing committed).
Offsets describedOffsets(const QString &text, const QString &topic) {
    Offsets out;
    for (const QString &line : text.split(u'\n', Qt::SkipEmptyParts)) {
        const QStringList f = line.simplified().split(u' ');
        if (f.size() >= 4 && f[1] == topic)
            out.insert(f[2].toInt(), f[3] == QLatin1String("-") ? -1 : f[3].toLongLong());
    }
    return out;
}

} // namespace

class TestKafkaResets : public QObject {
    Q_OBJECT

    std::unique_ptr<Cluster> m_cluster;
    QString m_a, m_b;
    QTemporaryDir m_dir;
    int m_round = 0;

    QByteArray twoStreams(const QString &group) const {
        return QStringLiteral(R"({"streams": {
            "payments": {"kafka": {"bootstrap": "%1", "topic": "%2", "groups": ["%4"]},
                         "event_id": "key", "sink": "payment_events", "fields": {"id": "$.id"}},
            "refunds": {"kafka": {"bootstrap": "%1", "topic": "%3", "groups": ["%4"]},
                        "event_id": "key", "sink": "refund_events", "fields": {"id": "$.id"}}}})")
            .arg(m_cluster->bootstrap(), m_a, m_b, group)
            .toUtf8();
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_KAFKA();
        REWIND_REQUIRE_ENGINE();
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "15000");
        m_cluster = std::make_unique<Cluster>(false);
        m_a = m_cluster->topic(QStringLiteral("resets-a"));
        m_b = m_cluster->topic(QStringLiteral("resets-b"));
        // Records of 2025 stay: no retention by time.
        const QMap<QString, QString> keep{{QStringLiteral("retention.ms"), QStringLiteral("-1")}};
        m_cluster->createTopic(m_a, 3, keep);
        m_cluster->createTopic(m_b, 2, keep);
        std::vector<Record> a, b;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (int p = 0; p < 3; ++p)
            for (int i = 0; i < 10; ++i) {
                Record r;
                r.partition = p;
                r.key = QStringLiteral("a%1-%2").arg(p).arg(i).toUtf8();
                r.value = QByteArrayLiteral("{}");
                r.timestampMs = kT0 + i * 120000;
                a.push_back(r);
                if (p < 2) {
                    r.key = QStringLiteral("b%1-%2").arg(p).arg(i).toUtf8();
                    r.timestampMs = now - (9 - i) * 1200000;
                    b.push_back(r);
                }
            }
        m_cluster->produce(m_a, a);
        m_cluster->produce(m_b, b);
        // The log start of A/2 moves to 4, by Kafka's own tool.
        const QString plan = testsupport::writeFile(
            m_dir, QStringLiteral("delete.json"),
            QStringLiteral(
                R"({"partitions": [{"topic": "%1", "partition": 2, "offset": 4}], "version": 1})")
                .arg(m_a)
                .toUtf8());
        const auto deleted = m_cluster->tool(QStringLiteral("kafka-delete-records"),
                                             {QStringLiteral("--offset-json-file"), plan});
        QVERIFY2(deleted.exitCode == 0, qPrintable(deleted.err));
        QCOMPARE(m_cluster->watermarks(m_a).value(2), std::make_pair(qint64(4), qint64(10)));
    }

    void resetEqualsKafkaConsumerGroups_data() {
        QTest::addColumn<QStringList>("rewind");
        QTest::addColumn<QStringList>("kafka");
        QTest::addColumn<bool>("bothTopics"); // also the refunds stream on topic B
        QTest::addColumn<QString>("csv");     // a --from-file plan, %1 topic A, %2 topic B
        using L = std::initializer_list<const char *>;
        const auto list = [](L words) {
            QStringList out;
            for (const char *w : words)
                out << QString::fromLatin1(w);
            return out;
        };
        const auto row = [&](const char *name, L rewind, L kafka, bool both = false,
                             const QString &csv = QString()) {
            QTest::newRow(name) << list(rewind) << list(kafka) << both << csv;
        };
        row("to-earliest", L{"--to-earliest"}, L{"--to-earliest"});
        row("to-latest", L{"--to-latest"}, L{"--to-latest"});
        row("to-current", L{"--to-current"}, L{"--to-current"});
        row("to-offset inside", L{"--to-offset", "6"}, L{"--to-offset", "6"});
        row("to-offset before the log start", L{"--to-offset", "2"}, L{"--to-offset", "2"});
        row("to-offset past the end", L{"--to-offset", "50"}, L{"--to-offset", "50"});
        row("shift-by forward", L{"--shift-by", "2"}, L{"--shift-by", "2"});
        row("shift-by back", L{"--shift-by", "-3"}, L{"--shift-by", "-3"});
        row("shift-by past the end", L{"--shift-by", "100"}, L{"--shift-by", "100"});
        row("shift-by past the start", L{"--shift-by", "-100"}, L{"--shift-by", "-100"});
        row("to-datetime before the log", L{"--to-datetime", "2000-01-01T00:00:00.000Z"},
            L{"--to-datetime", "2000-01-01T00:00:00.000Z"});
        row("to-datetime 10:00, on a record", L{"--to-datetime", "2025-05-14T10:00:00.000Z"},
            L{"--to-datetime", "2025-05-14T10:00:00.000Z"});
        row("to-datetime between records", L{"--to-datetime", "2025-05-14T10:01:30.000Z"},
            L{"--to-datetime", "2025-05-14T10:01:30.000Z"});
        row("to-datetime after the log", L{"--to-datetime", "2999-01-01T00:00:00.000Z"},
            L{"--to-datetime", "2999-01-01T00:00:00.000Z"});
        row("to-datetime with an offset zone", L{"--to-datetime", "2025-05-14T12:05:00.000+02:00"},
            L{"--to-datetime", "2025-05-14T12:05:00.000+02:00"});
        row("by-duration", L{"--by-duration", "PT1H"}, L{"--by-duration", "PT1H"}, true);
        row("by-duration past the log", L{"--by-duration", "P30D"}, L{"--by-duration", "P30D"},
            true);
        row("one partition", L{"--to-earliest", "--partition", "1"}, L{"--to-earliest", "@1"});
        row("shift-by on committed partitions",
            L{"--shift-by", "-6", "--partition", "0", "--partition", "1"},
            L{"--shift-by", "-6", "@0,1"});
        row("shift-by past the end, committed partitions",
            L{"--shift-by", "100", "--partition", "0", "--partition", "1"},
            L{"--shift-by", "100", "@0,1"});
        row("several topics", L{"--to-latest"}, L{"--to-latest"}, true);
        row("from-file", L{"--from-file"}, L{"--from-file"}, true,
            QStringLiteral("%1,0,1\n%1,2,9\n%2,1,4\n"));
    }

    void resetEqualsKafkaConsumerGroups() {
        QFETCH(QStringList, rewind);
        QFETCH(QStringList, kafka);
        QFETCH(bool, bothTopics);
        QFETCH(QString, csv);
        const QString group =
            m_cluster->group(QStringLiteral("judge") + QString::number(++m_round));
        m_cluster->commit(group, m_a, {{0, 5}, {1, 7}});
        m_cluster->commit(group, m_b, {{0, 3}});
        testsupport::WorkspaceFixture f({}, twoStreams(group));

        // The tool's topics: A (or one partition of it), and B for the rows that ask.
        QString partitionOnly;
        if (kafka.last().startsWith(u'@'))
            partitionOnly = kafka.takeLast().mid(1);
        QStringList topics{QStringLiteral("--topic"),
                           partitionOnly.isEmpty() ? m_a : m_a % u':' % partitionOnly};
        if (bothTopics)
            topics << QStringLiteral("--topic") << m_b;
        if (!csv.isEmpty()) {
            const QString file = testsupport::writeFile(f.dir, QStringLiteral("plan.csv"),
                                                        csv.arg(m_a, m_b).toUtf8());
            rewind << file;
            kafka << file;
            topics.clear(); // --from-file names its own topics
        }
        const QStringList streams =
            bothTopics ? QStringList{QStringLiteral("payments"), QStringLiteral("refunds")}
                       : QStringList{QStringLiteral("payments")};

        // Kafka's plan, dry run.
        const auto judged = m_cluster->tool(
            QStringLiteral("kafka-consumer-groups"),
            QStringList{QStringLiteral("--group"), group, QStringLiteral("--reset-offsets")} +
                topics + kafka +
                QStringList{QStringLiteral("--dry-run"), QStringLiteral("--export")});
        if (judged.exitCode != 0) {
            // Kafka's tool refuses to shift a partition the group never
            // committed in; so does Rewind, naming it, and changes nothing.
            QVERIFY2(
                judged.err.contains(QStringLiteral("since there is no current committed offset")),
                qPrintable(judged.err.left(400)));
            const QMap<int, qint64> before = m_cluster->committed(group, m_a);
            const auto refused =
                f.cli(QStringList{QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                                  QStringLiteral("payments"), QStringLiteral("--group"), group} +
                      rewind + QStringList{QStringLiteral("--execute")});
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(refused.err.contains(QStringLiteral("no committed offset in partition 2")),
                     qPrintable(refused.err));
            QCOMPARE(m_cluster->committed(group, m_a), before);
            return;
        }

        // Rewind's, dry run, then executed; each stream on its topic.
        for (const QString &stream : streams) {
            const QString topic = stream == QLatin1String("payments") ? m_a : m_b;
            const Offsets expected = csvOffsets(judged.out, topic);
            const Offsets before = m_cluster->committed(group, topic);
            const QStringList reset =
                QStringList{QStringLiteral("offsets-reset"), QStringLiteral("--stream"), stream,
                            QStringLiteral("--group"), group} +
                rewind;
            const auto dry = f.cli(reset + QStringList{QStringLiteral("--json")});
            QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
            Offsets planned;
            const QJsonArray parts = QJsonDocument::fromJson(dry.out.toUtf8())
                                         .object()
                                         .value(QStringLiteral("partitions"))
                                         .toArray();
            for (const auto &v : parts) {
                const QJsonObject o = v.toObject();
                planned.insert(o.value(QStringLiteral("partition")).toInt(),
                               o.value(QStringLiteral("new")).toInteger());
                // A time is looked up by the broker, never by searching records.
                if (o.contains(QStringLiteral("found_by")))
                    QCOMPARE(o.value(QStringLiteral("found_by")).toString(),
                             QStringLiteral("broker"));
            }
            QVERIFY2(planned == expected,
                     qPrintable(stream % QStringLiteral(": Rewind planned ") % dry.out %
                                QStringLiteral("\nkafka-consumer-groups planned:\n") % judged.out));
            QCOMPARE(m_cluster->committed(group, topic), before); // a dry run changes nothing

            const auto executed =
                f.cli(reset + QStringList{QStringLiteral("--execute"), QStringLiteral("--json")});
            QVERIFY2(executed.exitCode == 0, qPrintable(executed.err));
            const auto described =
                m_cluster->tool(QStringLiteral("kafka-consumer-groups"),
                                {QStringLiteral("--describe"), QStringLiteral("--group"), group});
            QVERIFY2(described.exitCode == 0, qPrintable(described.err));
            const Offsets now = describedOffsets(described.out, topic);
            for (auto it = before.begin(); it != before.end(); ++it) {
                const qint64 want = expected.value(it.key(), it.value());
                QVERIFY2(
                    now.value(it.key(), -1) == want,
                    qPrintable(stream % QStringLiteral(" partition ") % QString::number(it.key()) %
                               QStringLiteral(": kafka-consumer-groups --describe:\n") %
                               described.out));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestKafkaResets)
#include "tst_kafkaresets.moc"
