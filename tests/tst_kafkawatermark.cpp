// A Kafka stream feeding a dataset holds its watermark (issue 46), on the
// real Kafka cluster (tests/kafkacluster.h), its topic opening with an
// aborted transaction of earlier events that must not hold it: caught up, nothing holds it; the
// group reset to the earliest offsets holds it at the first unconsumed record's event time (one
// fetch per lagging partition) minus allowed_lateness; a cluster that does not answer holds it
// where the last finalize left it, saying why; a replay that catches up releases it.
#include "tests/kafkacluster.h"
#include "tests/testsupport.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace rw;

namespace {

QJsonObject json(const testsupport::CliResult &r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

} // namespace

class TestKafkaWatermark : public QObject {
    Q_OBJECT

    std::optional<kafkatest::Cluster> m_cluster;
    std::optional<testsupport::WorkspaceFixture> m_ws;
    QByteArray m_spec;

    testsupport::CliResult cli(const QStringList &command) const { return m_ws->cli(command); }
    QJsonObject finalize(bool execute = false) const {
        QStringList c{QStringLiteral("finalize"), QStringLiteral("--dataset"),
                      QStringLiteral("tick_hours"), QStringLiteral("--json")};
        if (execute)
            c << QStringLiteral("--execute");
        const auto r = cli(c);
        if (r.exitCode != 0)
            qWarning() << r.err;
        return json(r);
    }
    void replay() {
        const auto r =
            cli({QStringLiteral("replay"), QStringLiteral("--stream"), QStringLiteral("ticks"),
                 QStringLiteral("--group"), QStringLiteral("loader"), QStringLiteral("--execute")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_KAFKA();
        REWIND_REQUIRE_ENGINE();
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "3000");
        m_cluster.emplace(false);
        const QString ticks = m_cluster->topic(QStringLiteral("ticks"));
        m_cluster->createTopic(ticks, 2);
        // 24 records, 10 minutes apart from 05:00, over two partitions.
        std::vector<kafkatest::Record> records;
        const QDateTime start(QDate(2025, 5, 6), QTime(5, 0), Qt::UTC);
        for (int i = 0; i < 24; ++i)
            records.push_back({i % 2,
                               QStringLiteral("t%1").arg(i).toUtf8(),
                               QStringLiteral(R"({"id": "t%1", "event_time": "%2"})")
                                   .arg(i)
                                   .arg(start.addSecs(i * 600).toString(Qt::ISODate))
                                   .toUtf8(),
                               {}});
        // First, an aborted transaction of earlier events in partition 0:
        // read committed, they hold nothing (their offsets and the marker
        // count in the lag, as Kafka counts it).
        std::vector<kafkatest::Record> aborted;
        for (int i = 0; i < 3; ++i)
            aborted.push_back({0,
                               QStringLiteral("x%1").arg(i).toUtf8(),
                               QStringLiteral(R"({"id": "x%1", "event_time": "%2"})")
                                   .arg(i)
                                   .arg(start.addSecs(-7200).toString(Qt::ISODate))
                                   .toUtf8(),
                               {},
                               -1});
        m_cluster->produceTransaction(m_cluster->topic(QStringLiteral("ticks-producer")), ticks,
                                      aborted, false);
        m_cluster->produce(ticks, records);
        m_spec = QStringLiteral(R"({"streams": {"ticks": {
                "kafka": {"bootstrap": "%1", "topic": "%2", "groups": ["loader"]},
                "event_id": "key", "sink": "tick_events",
                "fields": {"id": "$.id", "event_time": "$.event_time"}}},
              "datasets": {"tick_hours": {
                "transform": "SELECT id, event_time, substr(event_time, 1, 13) || ':00:00Z' AS hr FROM tick_events",
                "target": "tick_out", "partition_column": "hr", "key": ["id"],
                "write": "overwrite_partition", "event_time": "event_time",
                "allowed_lateness": "10m"}}})")
                     .arg(m_cluster->bootstrap(), ticks)
                     .toUtf8();
        m_ws.emplace(QStringList{}, m_spec);
    }

    // Caught up: 08:50 - 10m = 08:40; the hours before 08:00 are final.
    void caughtUpNothingHolds() {
        replay();
        QCOMPARE(cli({QStringLiteral("run"), QStringLiteral("--dataset"),
                      QStringLiteral("tick_hours"), QStringLiteral("--execute")})
                     .exitCode,
                 0);
        const QJsonObject f = finalize(true);
        QVERIFY(f.value(QStringLiteral("held_by")).toArray().isEmpty());
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-06T08:40:00Z"));
        QCOMPARE(f.value(QStringLiteral("finalized")).toArray().size(), 3);
    }

    // Reset to the earliest offsets: held at the first record's event time
    // (05:00, read from the cluster) minus 10m.
    void aResetGroupHoldsIt() {
        const auto reset =
            cli({QStringLiteral("offsets-reset"), QStringLiteral("--stream"),
                 QStringLiteral("ticks"), QStringLiteral("--group"), QStringLiteral("loader"),
                 QStringLiteral("--to-earliest"), QStringLiteral("--execute")});
        QVERIFY2(reset.exitCode == 0, qPrintable(reset.err));
        const QJsonObject f = finalize();
        const QJsonArray held = f.value(QStringLiteral("held_by")).toArray();
        QCOMPARE(held.size(), 1);
        QCOMPARE(held[0][QStringLiteral("group")].toString(), QStringLiteral("loader"));
        QCOMPARE(held[0][QStringLiteral("lag")].toInt(), 28); // 24 events, 3 aborted, 1 marker
        QCOMPARE(held[0][QStringLiteral("held_at")].toString(),
                 QStringLiteral("2025-05-06T04:50:00Z"));
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-06T04:50:00Z"));
        QVERIFY(f.value(QStringLiteral("finalized")).toArray().isEmpty());
    }

    // The cluster does not answer (the spec's bootstrap list points where
    // no broker listens: the other suites share the real one): held where the
    // last finalize left it (08:40), with the reason; nothing newer becomes final.
    void aClusterThatIsDownHoldsItWhereItWas() {
        QByteArray away = m_spec;
        away.replace(m_cluster->bootstrap().toUtf8(), "127.0.0.1:1");
        testsupport::writeFile(m_ws->dir, QFileInfo(m_ws->specPath).fileName(), away);
        const QJsonObject f = finalize(true);
        testsupport::writeFile(m_ws->dir, QFileInfo(m_ws->specPath).fileName(), m_spec);
        const QJsonArray held = f.value(QStringLiteral("held_by")).toArray();
        QCOMPARE(held.size(), 1);
        QCOMPARE(held[0][QStringLiteral("stream")].toString(), QStringLiteral("ticks"));
        QVERIFY2(!held[0][QStringLiteral("reason")].toString().isEmpty(),
                 QJsonDocument(f).toJson().constData());
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-06T08:40:00Z"));
        QVERIFY(f.value(QStringLiteral("finalized")).toArray().isEmpty());
    }

    // Caught up again: released.
    void aReplayThatCatchesUpReleasesIt() {
        replay();
        const QJsonObject f = finalize();
        QVERIFY(f.value(QStringLiteral("held_by")).toArray().isEmpty());
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-06T08:40:00Z"));
    }
};

QTEST_GUILESS_MAIN(TestKafkaWatermark)
#include "tst_kafkawatermark.moc"
