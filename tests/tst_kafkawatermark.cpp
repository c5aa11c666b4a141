// A Kafka stream feeding a dataset holds its watermark (issue 46), on
// librdkafka's mock cluster: caught up, nothing holds it; the group reset to
// the earliest offsets holds it at the first unconsumed record's event time
// (one fetch per lagging partition) minus allowed_lateness; a cluster that
// does not answer holds it where the last finalize left it, saying why; a
// replay that catches up releases it.
#include "tests/kafkamock.h"
#include "tests/testsupport.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace rw;

namespace {

const char *const kTicks = "ticks";

QJsonObject json(const testsupport::CliResult &r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

} // namespace

class TestKafkaWatermark : public QObject {
    Q_OBJECT

    std::optional<kafkamock::MockCluster> m_cluster;
    std::optional<testsupport::WorkspaceFixture> m_ws;

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
        REWIND_REQUIRE_ENGINE();
        qputenv("REWIND_KAFKA_TIMEOUT_MS", "3000");
        m_cluster.emplace();
        m_cluster->createTopic(kTicks, 2);
        // 24 records, 10 minutes apart from 05:00, over two partitions.
        std::vector<kafkamock::MockCluster::Record> records;
        const QDateTime start(QDate(2025, 5, 6), QTime(5, 0), Qt::UTC);
        for (int i = 0; i < 24; ++i)
            records.push_back({i % 2,
                               QStringLiteral("t%1").arg(i).toUtf8(),
                               QStringLiteral(R"({"id": "t%1", "event_time": "%2"})")
                                   .arg(i)
                                   .arg(start.addSecs(i * 600).toString(Qt::ISODate))
                                   .toUtf8(),
                               {}});
        m_cluster->produceRecords(kTicks, records);
        const QByteArray spec = QStringLiteral(R"({"streams": {"ticks": {
                "kafka": {"bootstrap": "%1", "topic": "ticks", "groups": ["loader"]},
                "event_id": "key", "sink": "tick_events",
                "fields": {"id": "$.id", "event_time": "$.event_time"}}},
              "datasets": {"tick_hours": {
                "transform": "SELECT id, event_time, substr(event_time, 1, 13) || ':00:00Z' AS hr FROM tick_events",
                "target": "tick_out", "partition_column": "hr", "key": ["id"],
                "write": "overwrite_partition", "event_time": "event_time",
                "allowed_lateness": "10m"}}})")
                                    .arg(m_cluster->bootstrap())
                                    .toUtf8();
        m_ws.emplace(QStringList{}, spec);
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
        QCOMPARE(held[0][QStringLiteral("lag")].toInt(), 24);
        QCOMPARE(held[0][QStringLiteral("held_at")].toString(),
                 QStringLiteral("2025-05-06T04:50:00Z"));
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-06T04:50:00Z"));
        QVERIFY(f.value(QStringLiteral("finalized")).toArray().isEmpty());
    }

    // The cluster down: held where the last finalize left it (08:40), with
    // the reason; nothing newer becomes final.
    void aClusterThatIsDownHoldsItWhereItWas() {
        m_cluster->down();
        const QJsonObject f = finalize(true);
        m_cluster->up();
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
