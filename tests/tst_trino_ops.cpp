// The operations on a Trino warehouse over Apache Iceberg past a plain run,
// against the real server scripts/test starts: a duplicate incident's
// recovery, a freeze, finalize, lag, and an scd2 dimension equal to the one
// Rewind builds on SQLite from the same rows.
#include "core/sql/database.h"
#include "tests/testsupport.h"
#include "tests/trinosupport.h"
#include "tests/trinowarehouse.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringBuilder>
#include <QTemporaryDir>
#include <QTest>

using namespace rw;
using namespace testsupport;
using namespace trinotest;

class TestTrinoOps : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A duplicate incident on Iceberg: recover freezes the dataset (in the
    // control store), re-runs the days holding repeated keys by overwrite,
    // checks totals, says why no unique index is added, and unfreezes; the
    // days equal the deduped source, the others are untouched.
    void recoverDuplicateIncident() {
        REQUIRE_TRINO();
        Warehouse w;
        QVERIFY(
            db(w).exec(QStringLiteral("INSERT INTO %1 VALUES (2, DATE '2025-05-14', 6, 'US', "
                                      "TIMESTAMP '2025-05-14 11:00:00'), (9, DATE '2025-05-15', "
                                      "1, 'US', TIMESTAMP '2025-05-15 01:00:00'), (7, DATE "
                                      "'2025-05-13', 1, 'US', TIMESTAMP '2025-05-13 01:00:00')")
                           .arg(w.tgt)));
        const QString start = w.current();
        CliResult dry = runCli(QStringList{QStringLiteral("recover"), QStringLiteral("--dataset"),
                                           QStringLiteral("sales")} +
                               w.json());
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QCOMPARE(jsonOf(dry.out.toUtf8()).value(QStringLiteral("duplicate_keys")).toInteger(), 2);
        QCOMPARE(w.current(), start); // a dry run writes nothing

        CliResult done =
            runCli(QStringList{QStringLiteral("recover"), QStringLiteral("--dataset"),
                               QStringLiteral("sales"), QStringLiteral("--execute"),
                               QStringLiteral("--report"), w.dir.filePath(QStringLiteral("r.md"))} +
                   w.json());
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        const QJsonObject r = jsonOf(done.out.toUtf8());
        QCOMPARE(r.value(QStringLiteral("status")).toString(), QStringLiteral("recovered"));
        QVERIFY(r.value(QStringLiteral("totals_match")).toBool());
        QVERIFY(!r.value(QStringLiteral("unique_index_added")).toBool());
        QCOMPARE(r.value(QStringLiteral("after"))
                     .toObject()
                     .value(QStringLiteral("duplicate_keys"))
                     .toInteger(),
                 0);
        // The 14th and the 15th are the deduped source's; the 13th (no
        // repeated key) is as it was.
        QCOMPARE(difference(*w.db,
                            all(w.tgt) % QStringLiteral(" WHERE dt IN (DATE '2025-05-14', DATE "
                                                        "'2025-05-15')"),
                            QStringLiteral("SELECT * FROM (%1) WHERE dt IN (DATE '2025-05-14', "
                                           "DATE '2025-05-15')")
                                .arg(latestPerKey(w.src))),
                 0LL);
        QCOMPARE(scalarOf(*w.db, QStringLiteral("SELECT count(*) FROM %1 WHERE dt = DATE "
                                                "'2025-05-13'")
                                     .arg(w.tgt)),
                 1LL);
        QCOMPARE(w.control(QStringLiteral("SELECT count(*) FROM rewind_frozen")), 0LL);
        QCOMPARE(w.control(QStringLiteral("SELECT count(*) FROM rewind_audit WHERE action IN "
                                          "('recover freeze', 'recover unfreeze')")),
                 2LL);
        QVERIFY(QFile::exists(w.dir.filePath(QStringLiteral("r.md"))));
    }

    // A freeze on Trino lives in the control store: Rewind's runs refuse
    // the dataset, and the output says other writers are not stopped.
    void freezeRefusesRuns() {
        REQUIRE_TRINO();
        Warehouse w;
        const QString start = w.current();
        CliResult frozen =
            runCli(QStringList{QStringLiteral("freeze"), QStringLiteral("--dataset"),
                               QStringLiteral("sales"), QStringLiteral("--execute")} +
                   w.json());
        QVERIFY2(frozen.exitCode == 0, qPrintable(frozen.err));
        QVERIFY(jsonOf(frozen.out.toUtf8()).value(QStringLiteral("frozen")).toBool());
        QVERIFY(
            !jsonOf(frozen.out.toUtf8()).value(QStringLiteral("other_writers_refused")).toBool());
        CliResult run = runCli(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                           QStringLiteral("sales"), QStringLiteral("--execute")} +
                               w.json());
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(QLatin1String("is frozen")), qPrintable(run.err));
        QCOMPARE(w.current(), start);
        CliResult thawed =
            runCli(QStringList{QStringLiteral("unfreeze"), QStringLiteral("--dataset"),
                               QStringLiteral("sales"), QStringLiteral("--execute")} +
                   w.json());
        QVERIFY2(thawed.exitCode == 0, qPrintable(thawed.err));
        run = runCli(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                 QStringLiteral("sales"), QStringLiteral("--execute")} +
                     w.json());
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(w.current() != start);
    }

    // finalize on Trino: the watermark from the source, the days it passed
    // published and marked final in the control store, the others not.
    void finalizePublishesPassedDays() {
        REQUIRE_TRINO();
        Warehouse w(QStringLiteral(R"(, "event_time": "updated_at", "allowed_lateness": "2h")"));
        CliResult fin = runCli(QStringList{QStringLiteral("finalize"), QStringLiteral("--dataset"),
                                           QStringLiteral("sales"), QStringLiteral("--execute")} +
                               w.json());
        QVERIFY2(fin.exitCode == 0, qPrintable(fin.err));
        const QJsonObject f = jsonOf(fin.out.toUtf8());
        // The latest event is 05:00 on the 17th: the watermark 03:00 passes
        // the 14th to the 16th, not the 17th.
        QCOMPARE(f.value(QStringLiteral("watermark")).toString(),
                 QStringLiteral("2025-05-17T03:00:00Z"));
        QCOMPARE(f.value(QStringLiteral("finalized")).toArray(),
                 QJsonArray({QStringLiteral("2025-05-14"), QStringLiteral("2025-05-15"),
                             QStringLiteral("2025-05-16")}));
        const QString days =
            QStringLiteral(" WHERE dt BETWEEN DATE '2025-05-14' AND DATE '2025-05-16'");
        QCOMPARE(
            difference(*w.db, all(w.tgt) % days,
                       QStringLiteral("SELECT * FROM (%1)").arg(handMerge(w.src, w.tgt)) % days),
            0LL);
        QCOMPARE(scalarOf(*w.db, QStringLiteral("SELECT count(*) FROM %1 WHERE dt = DATE "
                                                "'2025-05-17'")
                                     .arg(w.tgt)),
                 0LL);
        CliResult parts = runCli(QStringList{QStringLiteral("partitions"),
                                             QStringLiteral("--dataset"), QStringLiteral("sales")} +
                                 w.json());
        QVERIFY2(parts.exitCode == 0, qPrintable(parts.err));
        QHash<QString, QString> status;
        for (const auto &p :
             jsonOf(parts.out.toUtf8()).value(QStringLiteral("partitions")).toArray())
            status.insert(p.toObject().value(QStringLiteral("partition")).toString(),
                          p.toObject().value(QStringLiteral("status")).toString());
        QCOMPARE(status.value(QStringLiteral("2025-05-16")), QStringLiteral("final"));
        QCOMPARE(status.value(QStringLiteral("2025-05-17")), QStringLiteral("unloaded"));
        QCOMPARE(w.control(QStringLiteral("SELECT count(*) FROM rewind_audit WHERE action = "
                                          "'finalize'")),
                 1LL);
    }

    // lag on Trino: lateness percentiles by nearest rank, from one GROUP BY
    // in the engine.
    void lagPercentiles() {
        REQUIRE_TRINO();
        Warehouse w;
        const QString late = uniqueTable("late");
        QStringList rows;
        for (int i = 1; i <= 10; ++i) // lateness 1 s .. 10 s
            rows << QStringLiteral("(%1, TIMESTAMP '2025-05-14 10:00:00', TIMESTAMP '2025-05-14 "
                                   "10:00:%2')")
                        .arg(i)
                        .arg(i, 2, 10, QLatin1Char('0'));
        rows << QStringLiteral("(11, TIMESTAMP '2025-05-14 10:00:00', TIMESTAMP '2025-05-14 "
                               "11:00:00')"); // an hour late
        QVERIFY(db(w).exec(QStringLiteral("CREATE TABLE %1 (id BIGINT, event_ts TIMESTAMP(6), "
                                          "ingest_ts TIMESTAMP(6))")
                               .arg(late)));
        QVERIFY(db(w).exec(QStringLiteral("INSERT INTO %1 VALUES %2").arg(late, rows.join(u','))));
        const QString spec = writeFile(w.dir, QStringLiteral("l.json"),
                                       QStringLiteral(R"({"control_db": "control.db", "datasets": {
            "events": {"source": "%1", "target": "%1_out", "key": ["id"], "write": "merge",
                       "event_time": "event_ts", "ingest_time": "ingest_ts",
                       "allowed_lateness": "1m"}}})")
                                           .arg(late));
        CliResult lag = runCli({QStringLiteral("lag"), QStringLiteral("--dataset"),
                                QStringLiteral("events"), QStringLiteral("--db"), trinoUrl(),
                                QStringLiteral("--spec"), spec, QStringLiteral("--json")});
        (void)db(w).exec(QStringLiteral("DROP TABLE %1").arg(late));
        QVERIFY2(lag.exitCode == 0, qPrintable(lag.err));
        const QJsonObject l = jsonOf(lag.out.toUtf8());
        QCOMPARE(l.value(QStringLiteral("count")).toInteger(), 11);
        const QJsonObject p = l.value(QStringLiteral("percentiles_seconds")).toObject();
        QCOMPARE(p.value(QStringLiteral("p50")).toInteger(), 6);  // the 6th of 11
        QCOMPARE(p.value(QStringLiteral("p90")).toInteger(), 10); // the 10th
        QCOMPARE(p.value(QStringLiteral("max")).toInteger(), 3600);
        QCOMPARE(l.value(QStringLiteral("late_fraction")).toDouble(), 1.0 / 11.0);
    }

    // Runs on the Iceberg partitionings a team uses besides a date column:
    // an overwrite of a table partitioned by day(ts) (the dataset's
    // partition_granularity "day") and a merge into one partitioned by an
    // identity column, each equal to the same write by hand on Trino.
    void runsOnDayAndIdentityPartitions() {
        REQUIRE_TRINO();
        Warehouse w;
        const QString cols =
            QStringLiteral("(order_id BIGINT, ts TIMESTAMP(6), amount DOUBLE, region VARCHAR)");
        for (const QString &partitioning : {QStringLiteral("day(ts)"), QStringLiteral("region")}) {
            const QString src = uniqueTable("psrc"), tgt = uniqueTable("ptgt");
            for (const QString &statement :
                 {QStringLiteral("CREATE TABLE %1 %2").arg(src, cols),
                  QStringLiteral("CREATE TABLE %1 %2 WITH (partitioning = ARRAY['%3'])")
                      .arg(tgt, cols, partitioning),
                  QStringLiteral("INSERT INTO %1 VALUES (1, TIMESTAMP '2025-05-14 09:00:00', 10, "
                                 "'EU'), (2, TIMESTAMP '2025-05-14 23:59:59', 20, 'US'), (3, "
                                 "TIMESTAMP '2025-05-15 00:00:00', 30, 'EU')")
                      .arg(src),
                  QStringLiteral("INSERT INTO %1 VALUES (1, TIMESTAMP '2025-05-14 09:00:00', 1, "
                                 "'EU'), (4, TIMESTAMP '2025-05-14 10:00:00', 4, 'EU'), (5, "
                                 "TIMESTAMP '2025-05-16 10:00:00', 5, 'APAC')")
                      .arg(tgt)})
                QVERIFY2(db(w).exec(statement), qPrintable(statement));
            const bool byDay = partitioning.startsWith(QLatin1String("day"));
            const QString spec = writeFile(
                w.dir, QStringLiteral("p.json"),
                QStringLiteral(R"({"control_db": "control.db", "datasets": {"d": {
                    "source": "%1", "target": "%2", "key": ["order_id"], %3}}})")
                    .arg(src, tgt,
                         byDay ? QStringLiteral(R"("partition_column": "ts",
                    "partition_granularity": "day", "write": "overwrite_partition")")
                               : QStringLiteral(
                                     R"("partition_column": "region", "write": "merge")")));
            CliResult run =
                runCli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("d"),
                        QStringLiteral("--execute"), QStringLiteral("--db"), trinoUrl(),
                        QStringLiteral("--spec"), spec, QStringLiteral("--json")});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            const QString rows = QStringLiteral("SELECT order_id, ts, amount, region FROM %1");
            // By day: the source's days replace the target's (key 4 goes), and
            // the 16th, which a run of the whole source covers and the source
            // no longer holds, is emptied, as on every engine. By region: keys
            // updated or added (key 1 to 10; 2 and 3 new), the rest kept.
            const QString expected =
                byDay
                    ? QStringLiteral("VALUES (BIGINT '1', TIMESTAMP '2025-05-14 09:00:00.000000', "
                                     "DOUBLE '10', 'EU'), (2, TIMESTAMP '2025-05-14 "
                                     "23:59:59.000000', 20, 'US'), (3, TIMESTAMP '2025-05-15 "
                                     "00:00:00.000000', 30, 'EU')")
                    : QStringLiteral("VALUES (BIGINT '1', TIMESTAMP '2025-05-14 09:00:00.000000', "
                                     "DOUBLE '10', 'EU'), (2, TIMESTAMP '2025-05-14 "
                                     "23:59:59.000000', 20, 'US'), (3, TIMESTAMP '2025-05-15 "
                                     "00:00:00.000000', 30, 'EU'), (4, TIMESTAMP '2025-05-14 "
                                     "10:00:00.000000', 4, 'EU'), (5, TIMESTAMP '2025-05-16 "
                                     "10:00:00.000000', 5, 'APAC')");
            QCOMPARE(difference(db(w), rows.arg(tgt),
                                QStringLiteral("SELECT * FROM (%1)").arg(expected)),
                     0LL);
            for (const QString &t : {src, tgt})
                (void)db(w).exec(QStringLiteral("DROP TABLE %1").arg(t));
        }
    }

    // An scd2 dimension on Iceberg equals the same dimension Rewind builds
    // on SQLite from the same rows: three months (the run killed after its
    // second month's commit and resumed, that commit recognised), then a
    // backfill of the middle month re-run from the first; rolling the
    // backfill back puts the dimension back exactly as before it.
    void scd2EqualsSqlite() {
        REQUIRE_TRINO();
        Warehouse w;
        const QString src = uniqueTable("tiers"), dim = uniqueTable("dim");
        const QString rows =
            QStringLiteral("(1, 'gold', DATE '2025-01-01', TIMESTAMP '2025-01-01 00:00:00'), (2, "
                           "'silver', DATE '2025-01-01', TIMESTAMP '2025-01-01 00:00:00'), (1, "
                           "'gold', DATE '2025-02-01', TIMESTAMP '2025-02-01 00:00:00'), (2, "
                           "'gold', DATE '2025-02-01', TIMESTAMP '2025-02-01 00:00:00'), (3, "
                           "'bronze', DATE '2025-02-01', TIMESTAMP '2025-02-01 00:00:00'), (1, "
                           "'silver', DATE '2025-03-01', TIMESTAMP '2025-03-01 00:00:00'), (2, "
                           "'gold', DATE '2025-03-01', TIMESTAMP '2025-03-01 00:00:00')");
        const QString late = QStringLiteral(
            "(1, 'platinum', DATE '2025-02-01', TIMESTAMP '2025-02-02 00:00:00'), (4, 'gold', "
            "DATE '2025-01-01', TIMESTAMP '2025-01-02 00:00:00')");
        for (const QString &statement :
             {QStringLiteral("CREATE TABLE %1 (customer_id BIGINT, tier VARCHAR, month DATE, "
                             "updated_at TIMESTAMP(6)) WITH (partitioning = ARRAY['month'])")
                  .arg(src),
              QStringLiteral("CREATE TABLE %1 (customer_id BIGINT, tier VARCHAR, month DATE, "
                             "updated_at TIMESTAMP(6), valid_from DATE, valid_to DATE, "
                             "is_current INTEGER)")
                  .arg(dim),
              QStringLiteral("INSERT INTO %1 VALUES %2").arg(src, rows)})
            QVERIFY2(db(w).exec(statement), qPrintable(statement));
        // The same rows on SQLite (dates as text, as SQLite keeps them).
        QString liteRows = rows, liteLate = late;
        for (QString *r : {&liteRows, &liteLate})
            r->replace(QLatin1String("DATE "), QString())
                .replace(QLatin1String("TIMESTAMP "), QString());
        Database lite =
            makeDatabase(w.dir, QStringLiteral("lite.db"),
                         {QStringLiteral("CREATE TABLE tiers (customer_id INTEGER, tier TEXT, "
                                         "month TEXT, updated_at TEXT)"),
                          QStringLiteral("INSERT INTO tiers VALUES %1").arg(liteRows)});
        const QString dataset = QStringLiteral(
            R"("tiers": {"source": "%1", "target": "%2", "partition_column": "month",
                "key": ["customer_id"], "order_by": "updated_at", "write": "scd2",
                "scd2": {"tracked": ["tier"], "valid_from": "valid_from", "valid_to": "valid_to",
                         "current": "is_current"}})");
        const QString trinoSpec =
            writeFile(w.dir, QStringLiteral("scd2.json"),
                      QStringLiteral(R"({"control_db": "control.db", "datasets": {%1}})")
                          .arg(dataset.arg(src, dim)));
        const QString liteSpec =
            writeFile(w.dir, QStringLiteral("lite.json"),
                      QStringLiteral(R"({"datasets": {%1}})")
                          .arg(dataset.arg(QStringLiteral("tiers"), QStringLiteral("dim"))));
        const QStringList onTrino{QStringLiteral("--db"), trinoUrl(), QStringLiteral("--spec"),
                                  trinoSpec, QStringLiteral("--json")};
        const QStringList onLite{QStringLiteral("--db"), lite.url().path, QStringLiteral("--spec"),
                                 liteSpec, QStringLiteral("--json")};
        const auto versions = [](const Database &on, const QString &table) {
            QStringList out;
            auto q = on.exec(QStringLiteral("SELECT CAST(customer_id AS VARCHAR) || '|' || tier || "
                                            "'|' || CAST(valid_from AS VARCHAR) || '|' || "
                                            "COALESCE(CAST(valid_to AS VARCHAR), '-') || '|' || "
                                            "CAST(is_current AS VARCHAR) FROM %1")
                                 .arg(table));
            while (q && q->next())
                out << q->value(0).toString();
            out.sort();
            return out;
        };
        const QStringList run{QStringLiteral("run"), QStringLiteral("--dataset"),
                              QStringLiteral("tiers"), QStringLiteral("--execute")};

        // Three months, the Trino run killed after its second month's commit.
        CliResult reference = runCli(run + onLite);
        QVERIFY2(reference.exitCode == 0, qPrintable(reference.err));
        ChildResult killed = runRewindctl(run + onTrino, QStringLiteral("after-write:2"));
        QVERIFY2(killed.crashed, killed.err.constData());
        ChildResult resumed =
            runRewindctl(QStringList{QStringLiteral("resume"), QStringLiteral("--run"),
                                     QStringLiteral("1"), QStringLiteral("--execute")} +
                         onTrino);
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        QVERIFY(jsonOf(resumed.out)
                    .value(QStringLiteral("partitions"))
                    .toArray()
                    .at(1)
                    .toObject()
                    .value(QStringLiteral("recognised"))
                    .toBool());
        const QStringList threeMonths = versions(lite, QStringLiteral("dim"));
        QCOMPARE(threeMonths.size(), 5);
        QCOMPARE(versions(db(w), dim), threeMonths);

        // The backfill: a late February change and a late January key.
        QVERIFY(lite.exec(QStringLiteral("INSERT INTO tiers VALUES %1").arg(liteLate)));
        QVERIFY(db(w).exec(QStringLiteral("INSERT INTO %1 VALUES %2").arg(src, late)));
        const QStringList backfill =
            run + QStringList{QStringLiteral("--from"), QStringLiteral("2025-01-01"),
                              QStringLiteral("--to"), QStringLiteral("2025-03-01")};
        CliResult liteBackfill = runCli(backfill + onLite);
        QVERIFY2(liteBackfill.exitCode == 0, qPrintable(liteBackfill.err));
        CliResult trinoBackfill = runCli(backfill + onTrino);
        QVERIFY2(trinoBackfill.exitCode == 0, qPrintable(trinoBackfill.err));
        QCOMPARE(versions(lite, QStringLiteral("dim")).size(), 7);
        QCOMPARE(versions(db(w), dim), versions(lite, QStringLiteral("dim")));

        // Rolled back: the three months' dimension again.
        CliResult back = runCli(QStringList{QStringLiteral("rollback"), QStringLiteral("--run"),
                                            QStringLiteral("2"), QStringLiteral("--execute")} +
                                onTrino);
        QVERIFY2(back.exitCode == 0, qPrintable(back.err));
        QCOMPARE(versions(db(w), dim), threeMonths);
        for (const QString &t : {src, dim})
            (void)db(w).exec(QStringLiteral("DROP TABLE %1").arg(t));
    }

private:
    static const Database &db(const Warehouse &w) { return *w.db; }
};

QTEST_GUILESS_MAIN(TestTrinoOps)
#include "tst_trino_ops.moc"
