// Typed instants (timestamptz partitions, wall-clock days, infinite values),
// lateness and finalize on typed times, and a stream whose log has a
// timestamp column: the time-typed half of tst_types (tests/typesfixture.h).
#include "tests/typesfixture.h"

#include <QTest>

class TestTypedtime : public TypesFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // Not UTC, so that nothing may lean on the process's zone: the
        // driver reads a timestamptz into local time.
        qputenv("TZ", "America/New_York");
        tzset();
    }

    // Lateness from timestamptz event and ingest times.
    void lagAndFinalize() {
        fresh();
        const QJsonObject lag = json(
            {QStringLiteral("lag"), QStringLiteral("--dataset"), QStringLiteral("fact_sales")});
        QCOMPARE(lag.value(QStringLiteral("count")).toInteger(), 6);
        const QJsonObject pct = lag.value(QStringLiteral("percentiles_seconds")).toObject();
        // Latenesses: 300, 1800, 10800, 60, 600, 10800 seconds.
        QCOMPARE(pct.value(QStringLiteral("max")).toDouble(), 10800.0);
        QCOMPARE(pct.value(QStringLiteral("p50")).toDouble(), 600.0);
        QCOMPARE(lag.value(QStringLiteral("allowed_lateness_seconds")).toDouble(), 7200.0);
        QCOMPARE(lag.value(QStringLiteral("late_fraction")).toDouble(), 2.0 / 6.0);
        const QJsonObject day =
            json({QStringLiteral("lag"), QStringLiteral("--dataset"), QStringLiteral("fact_sales"),
                  QStringLiteral("--from"), QStringLiteral("2026-03-02"), QStringLiteral("--to"),
                  QStringLiteral("2026-03-02")});
        QCOMPARE(day.value(QStringLiteral("count")).toInteger(), 2);
        QCOMPARE(testsupport::jsonAt(day, "percentiles_seconds/max").toDouble(), 600.0);

        // Watermark: 2026-03-03T22:00Z - 2h; the first two days are final.
        const QJsonObject dry = json({QStringLiteral("finalize"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact_sales")});
        QVERIFY2(dry.value(QStringLiteral("watermark"))
                     .toString()
                     .startsWith(QLatin1String("2026-03-03T20:00:00")),
                 qPrintable(dry.value(QStringLiteral("watermark")).toString()));
        QCOMPARE(dry.value(QStringLiteral("finalized")).toArray().toVariantList(),
                 (QVariantList{QStringLiteral("2026-03-01"), QStringLiteral("2026-03-02")}));
        QCOMPARE(dry.value(QStringLiteral("provisional")).toArray().toVariantList(),
                 QVariantList{QStringLiteral("2026-03-03")});
        const QJsonObject done = json({QStringLiteral("finalize"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_sales"), QStringLiteral("--execute")});
        QCOMPARE(done.value(QStringLiteral("finalized")).toArray().size(), 2);
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_sales")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(partitionStatus(parts, QStringLiteral("2026-03-01")), QStringLiteral("final"));
        QCOMPARE(partitionStatus(parts, QStringLiteral("2026-03-02")), QStringLiteral("final"));
        QCOMPARE(partitionStatus(parts, QStringLiteral("2026-03-03")), QStringLiteral("unloaded"));
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM fact_sales WHERE dt = '2026-03-02' AND amount = 30.25")),
                 1);
    }

    // Partitions by a timestamptz column. PostgreSQL labels the instant as
    // samples show it, in ISO-8601 UTC with a Z (this process's zone is New
    // York); SQLite keeps the text as written. Either way --partition,
    // --from and --to take the instant in any spelling, and refuse one that
    // is no timestamp (exit 2, naming it).
    void instantPartitions() {
        fresh();
        const bool pg = testsupport::onPostgres();
        const QStringList labels = pg ? QStringList{QStringLiteral("2026-03-01T10:00:00Z"),
                                                    QStringLiteral("2026-03-01T11:00:00Z"),
                                                    QStringLiteral("2026-03-02T10:00:00Z"),
                                                    QStringLiteral("2026-03-03T10:00:00Z")}
                                      : QStringList{QStringLiteral("2026-03-01 10:00:00+00"),
                                                    QStringLiteral("2026-03-01 11:00:00+00"),
                                                    QStringLiteral("2026-03-02 10:00:00+00"),
                                                    QStringLiteral("2026-03-03 10:00:00+00")};
        const QJsonArray parts = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("by_instant")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(partitionValues(parts), labels);
        const QString first = labels.at(0);
        QCOMPARE(parts.at(0).toObject().value(QStringLiteral("source_rows")).toInteger(), 2);

        // One instant, five spellings (epoch seconds too): each previews that one partition.
        for (const QString &spelling :
             {QStringLiteral("2026-03-01T10:00:00Z"), QStringLiteral("2026-03-01T11:00:00+01:00"),
              QStringLiteral("2026-03-01 10:00:00+00"), QStringLiteral("2026-03-01T05:00:00-05:00"),
              QStringLiteral("1772359200")}) {
            const QJsonArray previewed =
                json({QStringLiteral("preview"), QStringLiteral("--dataset"),
                      QStringLiteral("by_instant"), QStringLiteral("--partition"), spelling})
                    .value(QStringLiteral("partitions"))
                    .toArray();
            QVERIFY2(previewed.size() == 1, qPrintable(spelling));
            QCOMPARE(previewed.at(0).toObject().value(QStringLiteral("partition")).toString(),
                     first);
            QCOMPARE(previewed.at(0).toObject().value(QStringLiteral("inserted")).toInteger(), 2);
        }

        const QJsonObject run =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("by_instant"),
                  QStringLiteral("--partition"), QStringLiteral("2026-03-01T11:00:00+01:00"),
                  QStringLiteral("--execute")});
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(partitionValues(run.value(QStringLiteral("partitions")).toArray()),
                 QStringList{first});
        QCOMPARE(testsupport::jsonAt(run, "totals/inserted").toInteger(), 2);
        QCOMPARE(testsupport::jsonAt(run, "partitions/0/source_rows").toInteger(), 2);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 2);

        // A range by ISO ends, one of them at another offset.
        const QJsonObject range =
            json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("by_instant"),
                  QStringLiteral("--from"), QStringLiteral("2026-03-01T10:00:00Z"),
                  QStringLiteral("--to"), QStringLiteral("2026-03-02T11:00:00+01:00"),
                  QStringLiteral("--execute")});
        QCOMPARE(partitionValues(range.value(QStringLiteral("partitions")).toArray()),
                 labels.mid(0, 3));
        QCOMPARE(testsupport::jsonAt(range, "totals/unchanged").toInteger(), 2);
        QCOMPARE(testsupport::jsonAt(range, "totals/inserted").toInteger(), 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 5);
        const QJsonArray after = json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("by_instant")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(partitionValues(after), labels);
        QCOMPARE(partitionStatus(after, first), QStringLiteral("loaded"));
        QCOMPARE(findPartition(after, first).value(QStringLiteral("target_rows")).toInteger(), 2);
        QCOMPARE(partitionStatus(after, labels.at(2)), QStringLiteral("loaded"));
        QCOMPARE(partitionStatus(after, labels.at(3)), QStringLiteral("unloaded"));

        // Rolled back by the labels the run recorded: the range's three rows go.
        const QJsonObject rb =
            json({QStringLiteral("rollback"), QStringLiteral("--run"),
                  QString::number(range.value(QStringLiteral("run_id")).toInteger()),
                  QStringLiteral("--execute")});
        QVERIFY2(rb.value(QStringLiteral("executed")).toBool(),
                 qPrintable(QString::fromUtf8(QJsonDocument(rb).toJson())));
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 2);

        // No timestamp: refused, naming it; nothing written.
        for (const QStringList &bad :
             {QStringList{QStringLiteral("--partition"), QStringLiteral("2026-03-01T25:00:00Z")},
              QStringList{QStringLiteral("--partition"), QStringLiteral("yesterday noon")},
              QStringList{QStringLiteral("--from"), QStringLiteral("2026-02-30T10:00:00Z"),
                          QStringLiteral("--to"), QStringLiteral("2026-03-02T10:00:00Z")}}) {
            for (const QStringList &command :
                 {QStringList{QStringLiteral("preview")},
                  QStringList{QStringLiteral("run"), QStringLiteral("--execute")}}) {
                const auto r =
                    cli(command +
                        QStringList{QStringLiteral("--dataset"), QStringLiteral("by_instant"),
                                    QStringLiteral("--json")} +
                        bad);
                QCOMPARE(r.exitCode, 2);
                QVERIFY2(r.err.contains(bad.at(1)), qPrintable(r.err));
            }
        }
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 2);
    }

    // A timestamp partition at infinity is labelled "infinity" on both
    // engines (no zone is appended to it), and selected by that label.
    void infiniteInstantPartitions() {
        fresh();
        QVERIFY(m_db->exec(QStringLiteral("INSERT INTO raw_sales VALUES (8, 'h', '2026-03-04', "
                                          "1.00, 'infinity', '2026-03-04 10:00:00+00', "
                                          "'2026-03-04 10:00:00+00'), (9, 'i', '2026-03-04', 2.00, "
                                          "'-infinity', '2026-03-04 10:00:00+00', "
                                          "'2026-03-04 10:00:00+00')")));
        const QStringList labels =
            partitionValues(json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                  QStringLiteral("by_instant")})
                                .value(QStringLiteral("partitions"))
                                .toArray());
        QVERIFY2(labels.contains(QStringLiteral("infinity")) &&
                     labels.contains(QStringLiteral("-infinity")),
                 qPrintable(labels.join(u' ')));
        for (const QString &label : {QStringLiteral("infinity"), QStringLiteral("-infinity")}) {
            const QJsonObject run = json(
                {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("by_instant"),
                 QStringLiteral("--partition"), label, QStringLiteral("--execute")});
            QCOMPARE(partitionValues(run.value(QStringLiteral("partitions")).toArray()),
                     QStringList{label});
            QCOMPARE(testsupport::jsonAt(run, "totals/inserted").toInteger(), 1);
        }
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant")), 2);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_instant WHERE order_id IN (8, 9)")),
                 2);
    }

    // Partitions by a timestamp without zone: PostgreSQL labels them in
    // ISO-8601 with a T and no zone, SQLite as written; the other spelling
    // is taken too.
    void wallClockPartitions() {
        fresh();
        const bool pg = testsupport::onPostgres();
        const QStringList labels = pg ? QStringList{QStringLiteral("2026-03-01T10:00:00"),
                                                    QStringLiteral("2026-03-02T08:30:00")}
                                      : QStringList{QStringLiteral("2026-03-01 10:00:00"),
                                                    QStringLiteral("2026-03-02 08:30:00")};
        QCOMPARE(partitionValues(json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                       QStringLiteral("by_wall")})
                                     .value(QStringLiteral("partitions"))
                                     .toArray()),
                 labels);
        for (const QString &spelling :
             {QStringLiteral("2026-03-01T10:00:00"), QStringLiteral("2026-03-01 10:00:00")}) {
            const QJsonObject run =
                json({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("by_wall"),
                      QStringLiteral("--partition"), spelling, QStringLiteral("--execute")});
            QCOMPARE(partitionValues(run.value(QStringLiteral("partitions")).toArray()),
                     QStringList{labels.at(0)});
        }
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM by_wall")), 2);
        QCOMPARE(findPartition(json({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                     QStringLiteral("by_wall")})
                                   .value(QStringLiteral("partitions"))
                                   .toArray(),
                               labels.at(0))
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("loaded"));
    }

    // A log whose record_ts is a real timestamp: reset by datetime, replay.
    void streamWithTimestampLog() {
        fresh();
        const QJsonObject reset = json(
            {QStringLiteral("offsets-reset"), QStringLiteral("--stream"), QStringLiteral("orders"),
             QStringLiteral("--group"), QStringLiteral("g"), QStringLiteral("--to-datetime"),
             QStringLiteral("2026-03-01T11:00:00Z"), QStringLiteral("--execute")});
        const QJsonArray rp = reset.value(QStringLiteral("partitions")).toArray();
        QCOMPARE(rp.size(), 2);
        for (const auto &p : rp) {
            const QJsonObject o = p.toObject();
            // Partition 0: e1 is at 11:00; partition 1: e4 at 13:30+01 = 12:30Z.
            QCOMPARE(o.value(QStringLiteral("new")).toInteger(), 1);
        }
        const QJsonObject replay =
            json({QStringLiteral("replay"), QStringLiteral("--stream"), QStringLiteral("orders"),
                  QStringLiteral("--group"), QStringLiteral("g"), QStringLiteral("--execute")});
        QCOMPARE(replay.value(QStringLiteral("consumed")).toInteger(), 3);
        QCOMPARE(replay.value(QStringLiteral("inserted")).toInteger(), 3);
        QCOMPARE(scalar(QStringLiteral("SELECT COUNT(*) FROM orders_events")), 3);
        QCOMPARE(scalar(QStringLiteral(
                     "SELECT COUNT(*) FROM orders_events WHERE event_id IN ('e1', 'e2', 'e4')")),
                 3);
        const QJsonObject offsets =
            json({QStringLiteral("offsets"), QStringLiteral("--stream"), QStringLiteral("orders"),
                  QStringLiteral("--group"), QStringLiteral("g")});
        for (const auto &p : offsets.value(QStringLiteral("partitions")).toArray())
            QCOMPARE(p.toObject().value(QStringLiteral("lag")).toInteger(), 0);
    }
};

QTEST_GUILESS_MAIN(TestTypedtime)
#include "tst_typedtime.moc"
