// Writes to a Trino warehouse over Apache Iceberg (core/batch/publishiceberg,
// rollbackiceberg), against the real server scripts/test starts: a run's
// partitions equal a hand-written merge and overwrite on Trino, each chunk
// one snapshot, readers never seeing half a publish; a plan locked to the
// source's and the target's snapshots; a run killed before, during and
// after a partition's commit resumed equal to an uninterrupted run, no
// partition published twice (merge, overwrite, append); rollbacks with and
// without later writes; append and delete_insert against the hand SQL.
// The other operations on Iceberg are in tst_trino_ops.
#include "core/sql/database.h"
#include "tests/testsupport.h"
#include "tests/trinosupport.h"
#include "tests/trinowarehouse.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QStringBuilder>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <atomic>

using namespace rw;
using namespace testsupport;
using namespace trinotest;

namespace {

// Runs `dataset` of `w` a day per chunk, killed at `failpoint` (after
// `commitsBeforeKill` snapshots), and resumes it: the resume succeeds,
// recognises a landed commit exactly when `recognised`, and leaves one
// snapshot per day and every day's checkpoint done.
void killAndResume(const Warehouse &w, const QString &dataset, const QString &failpoint,
                   int commitsBeforeKill, bool recognised) {
    const qint64 snapshotsBefore = w.snapshots();
    qputenv("REWIND_CHUNK_ROWS", "1");
    ChildResult killed =
        runRewindctl(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"), dataset,
                                 QStringLiteral("--execute")} +
                         w.json(),
                     failpoint);
    QVERIFY2(killed.crashed, killed.err.constData());
    QCOMPARE(w.snapshots(), snapshotsBefore + commitsBeforeKill);
    ChildResult resumed =
        runRewindctl(QStringList{QStringLiteral("resume"), QStringLiteral("--run"),
                                 QStringLiteral("1"), QStringLiteral("--execute")} +
                     w.json());
    qunsetenv("REWIND_CHUNK_ROWS");
    QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
    const QJsonObject r = jsonOf(resumed.out);
    QCOMPARE(r.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    bool anyRecognised = false;
    for (const QJsonValue &v : r.value(QStringLiteral("partitions")).toArray())
        anyRecognised = anyRecognised || v.toObject().value(QStringLiteral("recognised")).toBool();
    QCOMPARE(anyRecognised, recognised);
    QCOMPARE(w.snapshots(), snapshotsBefore + 4); // four days, four commits: none twice
    QCOMPARE(w.control(QStringLiteral("SELECT count(*) FROM rewind_checkpoints WHERE run_id = 1 "
                                      "AND status = 'done'")),
             4LL);
}

} // namespace

class TestTrinoWrites : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A merge run of every day equals the hand merge on Trino; each chunk is
    // one snapshot, whose id its checkpoints record with the one before; a
    // reader counting the 14th while it is published sees it before or
    // after, never between.
    void runEqualsHandMerge() {
        REQUIRE_TRINO();
        Warehouse w;
        const QString start = w.current();
        const qint64 snapshotsBefore = w.snapshots();
        // Before the run, the 14th was last written by hand (an INSERT).
        CliResult before =
            runCli(QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"),
                               QStringLiteral("sales")} +
                   w.json());
        QVERIFY2(before.exitCode == 0, qPrintable(before.err));
        const QJsonObject first = jsonOf(before.out.toUtf8())
                                      .value(QStringLiteral("partitions"))
                                      .toArray()
                                      .at(0)
                                      .toObject();
        QCOMPARE(first.value(QStringLiteral("partition")).toString(), QStringLiteral("2025-05-14"));
        QCOMPARE(first.value(QStringLiteral("last_snapshot"))
                     .toObject()
                     .value(QStringLiteral("committed_by"))
                     .toString(),
                 QStringLiteral("append by rewind"));
        const QString day14 =
            QStringLiteral("SELECT count(*) * 1000 + CAST(sum(amount) AS BIGINT) FROM %1 WHERE dt "
                           "= DATE '2025-05-14'")
                .arg(w.tgt);
        QCOMPARE(scalarOf(*w.db, day14), 3028LL); // keys 1 (20), 2, 4
        std::atomic<bool> done{false};
        std::atomic<int> reads{0}, torn{0};
        QThread *reader = QThread::create([&] {
            auto mine = Database::open(trinoUrl());
            while (mine && !done.load()) {
                auto v = mine->scalar(day14);
                if (!v)
                    continue;
                // After: 1 (10), 2, 3, 4: 4 rows, 25.
                if (v->toLongLong() != 3028 && v->toLongLong() != 4025)
                    ++torn;
                ++reads;
            }
        });
        reader->start();
        QTRY_VERIFY_WITH_TIMEOUT(reads.load() > 0, 30000);
        ChildResult run =
            runRewindctl(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                     QStringLiteral("sales"), QStringLiteral("--execute")} +
                         w.json());
        done = true;
        reader->wait();
        delete reader;
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(reads.load() > 1);
        QCOMPARE(torn.load(), 0);
        QCOMPARE(scalarOf(*w.db, day14), 4025LL);
        QCOMPARE(
            difference(*w.db, all(w.tgt),
                       handMerge(w.src, w.tgt % QStringLiteral(" FOR VERSION AS OF ") % start)),
            0LL);
        // One snapshot per chunk, each recorded: the first chunk's "before"
        // is where the run started, each next one's the last one's "after".
        const QJsonArray parts = jsonOf(run.out).value(QStringLiteral("partitions")).toArray();
        QCOMPARE(parts.size(), 4);
        QSet<QString> afters;
        for (const QJsonValue &v : parts) {
            const QJsonObject p = v.toObject();
            QVERIFY(p.value(QStringLiteral("published")).toBool());
            const QString after = p.value(QStringLiteral("snapshot_after")).toString();
            QVERIFY2(!after.isEmpty(), QJsonDocument(p).toJson().constData());
            afters.insert(after);
            QCOMPARE(scalarOf(*w.db, QStringLiteral("SELECT count(*) FROM \"%1$snapshots\" WHERE "
                                                    "snapshot_id = %2 AND "
                                                    "summary['trino_query_id'] IS NOT NULL")
                                         .arg(w.tgt, after)),
                     1LL);
        }
        QCOMPARE(parts.at(0).toObject().value(QStringLiteral("snapshot_before")).toString(), start);
        QCOMPARE(w.snapshots(), snapshotsBefore + afters.size());
        QCOMPARE(w.current(),
                 parts.last().toObject().value(QStringLiteral("snapshot_after")).toString());
        QCOMPARE(w.control(QStringLiteral("SELECT count(*) FROM rewind_checkpoints WHERE status = "
                                          "'done'")),
                 4LL);
        // The partitions page's last snapshot of each day: the run's commit of it.
        CliResult listed =
            runCli(QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"),
                               QStringLiteral("sales")} +
                   w.json());
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        QHash<QString, QString> committed;
        for (const QJsonValue &v : parts)
            committed.insert(v.toObject().value(QStringLiteral("partition")).toString(),
                             v.toObject().value(QStringLiteral("snapshot_after")).toString());
        const QJsonArray days =
            jsonOf(listed.out.toUtf8()).value(QStringLiteral("partitions")).toArray();
        QCOMPARE(days.size(), 4);
        for (const QJsonValue &v : days) {
            const QJsonObject day = v.toObject();
            const QJsonObject last = day.value(QStringLiteral("last_snapshot")).toObject();
            QCOMPARE(last.value(QStringLiteral("snapshot_id")).toString(),
                     committed.value(day.value(QStringLiteral("partition")).toString()));
            QCOMPARE(last.value(QStringLiteral("committed_by")).toString(),
                     QStringLiteral("run 1"));
            QVERIFY(!last.value(QStringLiteral("committed_at")).toString().isEmpty());
        }
    }

    // An overwrite replaces each day, key 4 of the 14th gone with it.
    void overwriteEqualsHandOverwrite() {
        REQUIRE_TRINO();
        Warehouse w;
        const QString start = w.current();
        ChildResult run =
            runRewindctl(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                     QStringLiteral("sales_days"), QStringLiteral("--execute")} +
                         w.json());
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(
            difference(*w.db, all(w.tgt),
                       handOverwrite(w.src, w.tgt % QStringLiteral(" FOR VERSION AS OF ") % start)),
            0LL);
        QCOMPARE(
            scalarOf(*w.db,
                     QStringLiteral("SELECT count(*) FROM %1 WHERE order_id IN (4, 9)").arg(w.tgt)),
            0LL);
    }

    // A plan reads the source as of its snapshot: a row that arrives after
    // the preview is not published by it. A plan whose target moved since
    // is stale, and writes nothing.
    void planLocksToSnapshots() {
        REQUIRE_TRINO();
        Warehouse w;
        const QStringList day{QStringLiteral("--dataset"), QStringLiteral("sales"),
                              QStringLiteral("--partition"), QStringLiteral("2025-05-14")};
        CliResult preview = runCli(QStringList{QStringLiteral("preview")} + day + w.json());
        QVERIFY2(preview.exitCode == 0, qPrintable(preview.err));
        const QString plan =
            jsonOf(preview.out.toUtf8()).value(QStringLiteral("plan_id")).toString();
        QVERIFY(
            db(w).exec(QStringLiteral("INSERT INTO %1 VALUES (42, DATE '2025-05-14', 1, 'LATE', "
                                      "TIMESTAMP '2025-05-14 23:00:00')")
                           .arg(w.src)));
        CliResult run = runCli({QStringLiteral("run"), QStringLiteral("--dataset"),
                                QStringLiteral("sales"), QStringLiteral("--plan"), plan,
                                QStringLiteral("--execute"), QStringLiteral("--db"), trinoUrl(),
                                QStringLiteral("--spec"), w.spec, QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(scalarOf(*w.db,
                          QStringLiteral("SELECT count(*) FROM %1 WHERE order_id = 42").arg(w.tgt)),
                 0LL);
        QCOMPARE(scalarOf(*w.db, QStringLiteral("SELECT count(*) FROM %1 WHERE dt = DATE "
                                                "'2025-05-14'")
                                     .arg(w.tgt)),
                 4LL);

        CliResult again = runCli(QStringList{QStringLiteral("preview")} + day + w.json());
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        const QString plan2 =
            jsonOf(again.out.toUtf8()).value(QStringLiteral("plan_id")).toString();
        QVERIFY(db(w).exec(QStringLiteral("INSERT INTO %1 VALUES (78, DATE '2025-05-21', 1, 'X', "
                                          "TIMESTAMP '2025-05-21 00:00:00')")
                               .arg(w.tgt)));
        const QString moved = w.current();
        CliResult stale =
            runCli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                    QStringLiteral("--plan"), plan2, QStringLiteral("--execute"),
                    QStringLiteral("--db"), trinoUrl(), QStringLiteral("--spec"), w.spec});
        QCOMPARE(stale.exitCode, 4);
        QVERIFY2(stale.err.contains(QLatin1String("moved since the preview")),
                 qPrintable(stale.err));
        QCOMPARE(w.current(), moved);
    }

    // Killed before, during and after a chunk's commit (one day per chunk):
    // the resume leaves the target equal to an uninterrupted run's, each day
    // committed once (a commit that landed before the kill is recognised,
    // not made again), and every day recorded done. An overwrite's landed
    // commit is recognised by the data (nothing left to write); an append's,
    // which would append again, by the query id recorded before Trino ran
    // its statement: one copy of every source row, never two.
    void killedRunResumes_data() {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("failpoint");
        QTest::addColumn<int>("commitsBeforeKill");
        QTest::addColumn<bool>("recognised");
        const QString overwrite = QStringLiteral("sales_days"), append = QStringLiteral("more");
        QTest::newRow("overwrite: intent recorded, day 2 not written")
            << overwrite << "before-publish:2" << 1 << false;
        QTest::newRow("overwrite: day 2 committed, not recorded")
            << overwrite << "after-write:2" << 2 << true;
        QTest::newRow("overwrite: day 3 committed and recorded")
            << overwrite << "after-commit:3" << 3 << false;
        QTest::newRow("append: intent recorded, day 2 not sent")
            << append << "before-publish:2" << 1 << false;
        QTest::newRow("append: day 2 registered, never submitted")
            << append << "query-queued:2" << 1 << false;
        QTest::newRow("append: day 2 committed, not recorded")
            << append << "after-write:2" << 2 << true;
        QTest::newRow("append: day 3 committed and recorded")
            << append << "after-commit:3" << 3 << false;
    }
    void killedRunResumes() {
        REQUIRE_TRINO();
        QFETCH(QString, dataset);
        QFETCH(QString, failpoint);
        QFETCH(int, commitsBeforeKill);
        QFETCH(bool, recognised);
        Warehouse w;
        const QString start = w.current();
        const QString before = w.tgt % QStringLiteral(" FOR VERSION AS OF ") % start;
        killAndResume(w, dataset, failpoint, commitsBeforeKill, recognised);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(difference(*w.db, all(w.tgt),
                            dataset == QLatin1String("more") ? handAppend(w.src, before)
                                                             : handOverwrite(w.src, before)),
                 0LL);
        // Every day loaded, the recognised one too: its state holds the
        // fingerprint of the rows it published (not stale).
        CliResult listed =
            runCli(QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"), dataset} +
                   w.json());
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        for (const QJsonValue &v :
             jsonOf(listed.out.toUtf8()).value(QStringLiteral("partitions")).toArray())
            QCOMPARE(v.toObject().value(QStringLiteral("status")).toString(),
                     QStringLiteral("loaded"));
    }

    // With nothing written since, a rollback puts the table back to its
    // snapshot before the run; after a later write elsewhere, it restores
    // the run's days from that snapshot in one MERGE, keeping the later write.
    void rollbackToTheSnapshotBefore() {
        REQUIRE_TRINO();
        Warehouse w;
        const QString start = w.current();
        const QStringList run{QStringLiteral("run"), QStringLiteral("--dataset"),
                              QStringLiteral("sales"), QStringLiteral("--execute")};
        ChildResult first = runRewindctl(run + w.json());
        QVERIFY2(first.exitCode == 0, first.err.constData());
        CliResult back = runCli(QStringList{QStringLiteral("rollback"), QStringLiteral("--run"),
                                            QStringLiteral("1"), QStringLiteral("--execute")} +
                                w.json());
        QVERIFY2(back.exitCode == 0, qPrintable(back.err));
        QCOMPARE(w.current(), start);
        QCOMPARE(difference(*w.db, all(w.tgt),
                            all(w.tgt % QStringLiteral(" FOR VERSION AS OF ") % start)),
                 0LL);
        QCOMPARE(w.control(QStringLiteral("SELECT count(*) FROM rewind_audit WHERE action = "
                                          "'rollback' AND detail_json LIKE "
                                          "'%rollback_to_snapshot%'")),
                 1LL);

        ChildResult second = runRewindctl(run + w.json());
        QVERIFY2(second.exitCode == 0, second.err.constData());
        QVERIFY(db(w).exec(QStringLiteral("INSERT INTO %1 VALUES (77, DATE '2025-05-20', 1, 'X', "
                                          "TIMESTAMP '2025-05-20 00:00:00')")
                               .arg(w.tgt)));
        CliResult dry = runCli(
            QStringList{QStringLiteral("rollback"), QStringLiteral("--run"), QStringLiteral("2")} +
            w.json());
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QJsonObject day14;
        for (const QJsonValue &v :
             jsonOf(dry.out.toUtf8()).value(QStringLiteral("partitions")).toArray())
            if (v.toObject().value(QStringLiteral("partition")).toString() ==
                QLatin1String("2025-05-14"))
                day14 = v.toObject();
        // The run took 1 (20) and wrote 1 (10) and 3.
        QCOMPARE(day14.value(QStringLiteral("rows_removed")).toInteger(), 2);
        QCOMPARE(day14.value(QStringLiteral("rows_restored")).toInteger(), 1);
        CliResult undo = runCli(QStringList{QStringLiteral("rollback"), QStringLiteral("--run"),
                                            QStringLiteral("2"), QStringLiteral("--execute")} +
                                w.json());
        QVERIFY2(undo.exitCode == 0, qPrintable(undo.err));
        const QString withLater =
            all(w.tgt % QStringLiteral(" FOR VERSION AS OF ") % start) %
            QStringLiteral(" UNION ALL SELECT 77, DATE '2025-05-20', 1, 'X', TIMESTAMP "
                           "'2025-05-20 00:00:00'");
        QCOMPARE(difference(*w.db, all(w.tgt), withLater), 0LL);
        QCOMPARE(w.control(QStringLiteral("SELECT count(*) FROM rewind_audit WHERE action = "
                                          "'rollback' AND detail_json LIKE '%\"merge\"%'")),
                 1LL);
        QCOMPARE(w.control(QStringLiteral("SELECT count(*) FROM rewind_runs WHERE status = "
                                          "'rolled_back'")),
                 2LL);
    }

    // A run whose snapshot before has been expired cannot be rolled back:
    // said by name, nothing changed.
    void expiredSnapshotMeansNoRollback() {
        REQUIRE_TRINO();
        Warehouse w;
        ChildResult run =
            runRewindctl(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                     QStringLiteral("sales"), QStringLiteral("--execute")} +
                         w.json());
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(db(w).exec(
            QStringLiteral("ALTER TABLE %1 EXECUTE expire_snapshots(retention_threshold => '0s')")
                .arg(w.tgt)));
        const QString current = w.current();
        CliResult back = runCli(QStringList{QStringLiteral("rollback"), QStringLiteral("--run"),
                                            QStringLiteral("1"), QStringLiteral("--execute")} +
                                w.json());
        QCOMPARE(back.exitCode, 2);
        QVERIFY2(back.err.contains(QLatin1String("has been expired")), qPrintable(back.err));
        QCOMPARE(w.current(), current);
        QCOMPARE(w.control(QStringLiteral("SELECT count(*) FROM rewind_runs WHERE status = "
                                          "'rolled_back'")),
                 0LL);
    }

    // duplicates reads the target's repeated keys as a hand GROUP BY on
    // Trino counts them; run-report reads the run from the control store.
    void duplicatesAndReport() {
        REQUIRE_TRINO();
        Warehouse w;
        QVERIFY(
            db(w).exec(QStringLiteral("INSERT INTO %1 VALUES (2, DATE '2025-05-14', 6, 'US', "
                                      "TIMESTAMP '2025-05-14 11:00:00'), (9, DATE '2025-05-15', "
                                      "1, 'US', TIMESTAMP '2025-05-15 01:00:00'), (9, DATE "
                                      "'2025-05-15', 2, 'US', TIMESTAMP '2025-05-15 02:00:00')")
                           .arg(w.tgt)));
        CliResult dupes = runCli(QStringList{QStringLiteral("duplicates"),
                                             QStringLiteral("--dataset"), QStringLiteral("sales")} +
                                 w.json());
        QVERIFY2(dupes.exitCode == 0, qPrintable(dupes.err));
        const QJsonObject found = jsonOf(dupes.out.toUtf8());
        auto hand =
            w.db->exec(QStringLiteral("SELECT count(*), sum(n - 1) FROM (SELECT count(*) AS n "
                                      "FROM %1 GROUP BY dt, order_id HAVING count(*) > 1)")
                           .arg(w.tgt));
        QVERIFY(hand && hand->next());
        QCOMPARE(found.value(QStringLiteral("duplicate_keys")).toInteger(),
                 hand->value(0).toLongLong());
        QCOMPARE(found.value(QStringLiteral("extra_rows")).toInteger(),
                 hand->value(1).toLongLong());
        QCOMPARE(hand->value(0).toLongLong(), 2LL);

        ChildResult run =
            runRewindctl(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                     QStringLiteral("sales_days"), QStringLiteral("--execute")} +
                         w.json());
        QVERIFY2(run.exitCode == 0, run.err.constData());
        CliResult report = runCli(QStringList{QStringLiteral("run-report"), QStringLiteral("--run"),
                                              QStringLiteral("1")} +
                                  w.json());
        QVERIFY2(report.exitCode == 0, qPrintable(report.err));
        QCOMPARE(jsonOf(report.out.toUtf8()).value(QStringLiteral("status")).toString(),
                 QStringLiteral("succeeded"));
        QCOMPARE(jsonOf(report.out.toUtf8()).value(QStringLiteral("partitions")).toArray().size(),
                 4);
    }

    // An append run adds every source row (no dedupe) and a delete_insert
    // run replaces the target's rows of each staged (day, key) with every
    // staged row of it, equal to the same writes by hand on Trino.
    void appendAndDeleteInsertEqualHand() {
        REQUIRE_TRINO();
        for (const QString &dataset : {QStringLiteral("more"), QStringLiteral("redo")}) {
            Warehouse w;
            const QString start = w.current();
            CliResult run = runCli(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                               dataset, QStringLiteral("--execute")} +
                                   w.json());
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            const QString before = w.tgt % QStringLiteral(" FOR VERSION AS OF ") % start;
            const QString hand = dataset == QLatin1String("more") ? handAppend(w.src, before)
                                                                  : handDeleteInsert(w.src, before);
            QCOMPARE(difference(*w.db, all(w.tgt), hand), 0LL);
            QCOMPARE(scalarOf(*w.db, QStringLiteral("SELECT count(*) FROM (%1)").arg(hand)),
                     scalarOf(*w.db, QStringLiteral("SELECT count(*) FROM %1").arg(w.tgt)));
        }
    }

private:
    static const Database &db(const Warehouse &w) { return *w.db; }
};

QTEST_GUILESS_MAIN(TestTrinoWrites)
#include "tst_trino_writes.moc"
