// partition_granularity: a dataset partitioned by the hour, day or month of
// an event timestamp. The partitions and their counts are what a GROUP BY of
// the truncated timestamp gives; a run publishes each hour exactly once per
// key; any spelling of an hour names it; a changed hour is stale and re-run
// alone; a month overwritten loses the rows its source lost; rollback
// restores; bad granularities are refused by name.
#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/batch/rollback.h"
#include "core/lateness/finalize.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace rw;

namespace {

// 300 events 7 minutes apart from 2025-05-06T00:03 (across two days and
// 36 hours), every 25th sent twice (the resend, later, wins).
const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE events (event_id INTEGER, ts TIMESTAMP, amount INTEGER, "
                   "sent INTEGER)"),
    QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) "
                   "INSERT INTO events SELECT i, NULL, i % 13, 1 FROM n"),
};

const QByteArray kSpec = R"({"datasets": {
  "by_hour": {"source": "events", "target": "events_by_hour", "partition_column": "ts",
              "partition_granularity": "hour", "key": ["event_id"], "order_by": "sent",
              "write": "merge", "checks": [{"type": "total", "column": "amount"}]},
  "by_month": {"source": "events", "target": "events_by_month", "partition_column": "ts",
               "partition_granularity": "month", "write": "overwrite_partition"}}})";

qint64 count(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    return v ? v->toLongLong() : -1;
}

// Timestamps set per engine, as each stores them: ISO text on SQLite, a
// timestamp on PostgreSQL (read as UTC).
void setTimes(const Database &db) {
    if (testsupport::onPostgres()) {
        QVERIFY(db.exec(QStringLiteral("UPDATE events SET ts = TIMESTAMP '2025-05-06 00:03:00' + "
                                       "event_id * INTERVAL '7 minutes'")));
        QVERIFY(db.exec(QStringLiteral("UPDATE events SET ts = TIMESTAMP '2025-04-30 23:30:00' "
                                       "WHERE event_id = 300")));
    } else {
        QVERIFY(db.exec(QStringLiteral(
            "UPDATE events SET ts = strftime('%Y-%m-%dT%H:%M:%SZ', '2025-05-06T00:03:00Z', '+' || "
            "(event_id * 7) || ' minutes')")));
        QVERIFY(db.exec(
            QStringLiteral("UPDATE events SET ts = '2025-04-30T23:30:00Z' WHERE event_id = 300")));
    }
    QVERIFY(db.exec(QStringLiteral("INSERT INTO events SELECT event_id, ts, amount + 100, 2 FROM "
                                   "events WHERE event_id % 25 = 0")));
}

// The hour of an event as the test computes it, apart from Rewind.
QString hourOf(qint64 eventId) {
    if (eventId == 300)
        return QStringLiteral("2025-04-30T23:00:00Z");
    const QDateTime t =
        QDateTime(QDate(2025, 5, 6), QTime(0, 3), Qt::UTC).addSecs(eventId * 7 * 60);
    return t.toString(QStringLiteral("yyyy-MM-dd'T'HH:00:00'Z'"));
}

struct Fixture : testsupport::WorkspaceFixture {
    Fixture()
        : WorkspaceFixture(kWarehouse, kSpec) {
        setTimes(db());
    }
    const DatasetSpec &named(const QString &name) const { return *ws->spec.dataset(name); }
};

BatchOptions execute(QStringList partitions = {}) {
    BatchOptions o;
    o.execute = true;
    o.scope.partitions = std::move(partitions);
    return o;
}

} // namespace

class TestGranularity : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    // Hours as partitions: the listing's labels and counts, a run that
    // publishes each key once, names in any spelling, a re-run that
    // changes nothing, a stale hour re-run alone, and rollback.
    void hourlyMerge() {
        Fixture f;
        const DatasetSpec &d = f.named(QStringLiteral("by_hour"));
        auto parts = listPartitions(f.db(), d);
        QVERIFY2(parts, qPrintable(parts ? QString() : parts.error().message));
        QHash<QString, qint64> expected;
        for (qint64 id = 1; id <= 300; ++id)
            expected[hourOf(id)] += id % 25 == 0 ? 2 : 1;
        QCOMPARE(qsizetype(parts->size()), expected.size());
        for (const PartitionInfo &p : *parts) {
            QVERIFY(p.partition);
            QCOMPARE(p.sourceRows, expected.value(*p.partition, -1));
        }
        QCOMPARE(*parts->front().partition, QStringLiteral("2025-04-30T23:00:00Z"));

        auto r = run(f.db(), d, execute());
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM events_by_hour")), 300);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM events_by_hour WHERE sent = 2")),
            12);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT SUM(amount) FROM events_by_hour")),
                 count(f.db(), QStringLiteral("SELECT SUM(amount) FROM events WHERE sent = 2 OR "
                                              "event_id % 25 <> 0")));

        // Another spelling of an hour names it; an instant inside no
        // partition's label is refused or matches none.
        for (const QString &spelling :
             {QStringLiteral("2025-05-06T05:00:00Z"), QStringLiteral("2025-05-06 05:00:00"),
              QStringLiteral("2025-05-06T07:00:00+02:00")}) {
            BatchOptions o;
            o.scope.partitions = {spelling};
            auto p = preview(f.db(), d, o);
            QVERIFY2(p, qPrintable(spelling + u' ' + (p ? QString() : p.error().message)));
            QCOMPARE(p->partitions.size(), std::size_t(1));
            QCOMPARE(*p->partitions.front().partition, QStringLiteral("2025-05-06T05:00:00Z"));
            QCOMPARE(p->partitions.front().unchanged, p->partitions.front().stagedRows);
        }

        auto again = run(f.db(), d, execute());
        QVERIFY(again);
        QCOMPARE(again->totals().inserted + again->totals().updated + again->totals().deleted, 0);

        // One event changed: its hour alone is stale, and a --stale run
        // updates that row only.
        QVERIFY(f.db().exec(QStringLiteral("UPDATE events SET amount = 999 WHERE event_id = 40")));
        BatchOptions stale;
        stale.execute = true;
        stale.scope.stale = true;
        auto fix = run(f.db(), d, stale);
        QVERIFY2(fix, qPrintable(fix ? QString() : fix.error().message));
        QCOMPARE(fix->partitions.size(), std::size_t(1));
        QCOMPARE(*fix->partitions.front().partition, hourOf(40));
        QCOMPARE(fix->partitions.front().updated, 1);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT amount FROM events_by_hour WHERE event_id = 40")),
            999);

        auto undone = rollback(f.db(), f.ws->spec, fix->runId.toLongLong(), true);
        QVERIFY2(undone, qPrintable(undone ? QString() : undone.error().message));
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT amount FROM events_by_hour WHERE event_id = 40")),
            40 % 13);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM events_by_hour")), 300);

        // A timestamp corrected within its hour is a changed row: the
        // target takes the new time.
        const QString moved =
            testsupport::onPostgres()
                ? QStringLiteral("UPDATE events SET ts = ts + INTERVAL '1 minute' "
                                 "WHERE event_id = 41")
                : QStringLiteral("UPDATE events SET ts = strftime('%Y-%m-%dT%H:%M:"
                                 "%SZ', ts, '+1 minutes') WHERE event_id = 41");
        QVERIFY(f.db().exec(moved));
        auto corrected = run(f.db(), d, stale);
        QVERIFY(corrected);
        // (event 40 shares the hour: rolled back above, it is updated again)
        QCOMPARE(corrected->totals().updated, 2);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT amount FROM events_by_hour WHERE event_id = 40")),
            999);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM events_by_hour AS t JOIN events "
                                         "AS e ON e.event_id = t.event_id AND e.ts = t.ts "
                                         "WHERE t.event_id = 41")),
            1);

        // A key twice in one hour (another time in it) is a duplicate, as
        // the listing and the duplicate report count it.
        const QString later =
            testsupport::onPostgres()
                ? QStringLiteral("ts + INTERVAL '1 minute'")
                : QStringLiteral("strftime('%Y-%m-%dT%H:%M:%SZ', ts, '+1 minutes')");
        QVERIFY(
            f.db().exec(QStringLiteral("INSERT INTO events_by_hour SELECT event_id, ") + later +
                        QStringLiteral(", amount, sent FROM events_by_hour WHERE event_id = 41")));
        auto dup = f.cli({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                          QStringLiteral("by_hour"), QStringLiteral("--json")});
        QCOMPARE(dup.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(dup.out.toUtf8())
                     .object()[QStringLiteral("duplicate_keys")]
                     .toInt(),
                 1);
    }

    // Each grain's window, as finalize reads it: an hour, a day, a whole
    // month (not the month's first day); the grain is the spec's.
    void windows() {
        Fixture f;
        const auto grainOf = [&](const QString &dataset, const QString &value) {
            auto g = windowGrain(f.named(dataset), {value});
            return g && *g ? std::optional<WindowGrain>(**g) : std::nullopt;
        };
        QCOMPARE(grainOf(QStringLiteral("by_hour"), QStringLiteral("2025-05-06T05:00:00Z")),
                 WindowGrain::Hour);
        QCOMPARE(grainOf(QStringLiteral("by_month"), QStringLiteral("2025-02-01")),
                 WindowGrain::Month);
        const auto hour =
            partitionWindowMs(WindowGrain::Hour, QStringLiteral("2025-05-06T05:00:00Z"));
        QVERIFY(hour);
        QCOMPARE(hour->second - hour->first, 3'600'000);
        const auto month = partitionWindowMs(WindowGrain::Month, QStringLiteral("2025-02-01"));
        QVERIFY(month);
        QCOMPARE(isoUtc(month->second), QStringLiteral("2025-03-01T00:00:00Z"));
        QVERIFY(!partitionWindowMs(WindowGrain::Month, QStringLiteral("2025-02-02")));
        QVERIFY(!partitionWindowMs(WindowGrain::Hour, QStringLiteral("2025-05-06")));
        // A value that does not fit the spec's granularity is refused, named.
        auto wrong =
            windowGrain(f.named(QStringLiteral("by_month")), {QStringLiteral("2025-02-02")});
        QVERIFY(!wrong);
        QVERIFY2(wrong.error().message.contains(QStringLiteral("\"2025-02-02\"")) &&
                     wrong.error().message.contains(QStringLiteral("partition_granularity")),
                 qPrintable(wrong.error().message));
    }

    // Months as partitions, overwritten: the month's rows become exactly
    // the source's, so an event deleted upstream leaves the target.
    void monthlyOverwrite() {
        Fixture f;
        const DatasetSpec &d = f.named(QStringLiteral("by_month"));
        auto parts = listPartitions(f.db(), d);
        QVERIFY(parts);
        QCOMPARE(parts->size(), std::size_t(2));
        QCOMPARE(*parts->at(0).partition, QStringLiteral("2025-04-01"));
        QCOMPARE(parts->at(0).sourceRows, 2); // event 300 and its resend
        QCOMPARE(*parts->at(1).partition, QStringLiteral("2025-05-01"));
        QCOMPARE(parts->at(1).sourceRows, 310);
        QVERIFY(run(f.db(), d, execute()));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM events_by_month")), 312);

        QVERIFY(f.db().exec(QStringLiteral("DELETE FROM events WHERE event_id <= 10")));
        auto r = run(f.db(), d, execute({QStringLiteral("2025-05-01")}));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->partitions.front().deleted, 10);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM events_by_month")), 302);
        // The April partition was not in scope: its rows stay.
        QCOMPARE(count(f.db(),
                       QStringLiteral("SELECT COUNT(*) FROM events_by_month WHERE event_id = 300")),
                 2);
    }

    void badGranularityIsNamed_data() {
        QTest::addColumn<QByteArray>("dataset");
        QTest::addColumn<QString>("expected");
        QTest::newRow("week") << QByteArray(R"("source": "events", "partition_column": "ts",
            "partition_granularity": "week")")
                              << QStringLiteral("\"partition_granularity\": is \"week\"");
        QTest::newRow("no column") << QByteArray(R"("source": "events",
            "partition_granularity": "day")")
                                   << QStringLiteral("needs \"partition_column\"");
        QTest::newRow("scd2") << QByteArray(R"("source": "events", "partition_column": "ts",
            "partition_granularity": "day", "key": ["event_id"], "write": "scd2",
            "scd2": {"tracked": ["amount"], "valid_from": "f", "valid_to": "t"})")
                              << QStringLiteral("does not apply to write \"scd2\"");
    }
    void badGranularityIsNamed() {
        QFETCH(QByteArray, dataset);
        QFETCH(QString, expected);
        auto spec = parseSpec(QByteArray(R"({"datasets": {"e": {)") + dataset + QByteArray("}}}"),
                              QStringLiteral("spec.json"));
        QVERIFY(!spec);
        QVERIFY2(spec.error().message.contains(expected), qPrintable(spec.error().message));
        QVERIFY2(spec.error().message.contains(QStringLiteral("dataset \"e\"")),
                 qPrintable(spec.error().message));
    }
};

QTEST_GUILESS_MAIN(TestGranularity)
#include "tst_granularity.moc"
