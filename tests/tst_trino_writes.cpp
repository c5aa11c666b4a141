// Writes to a Trino warehouse over Apache Iceberg (core/batch/publishiceberg,
// rollbackiceberg), against the real server scripts/test starts: a run's
// partitions equal a hand-written merge and overwrite on Trino, each chunk
// one snapshot, readers never seeing half a publish; a plan locked to the
// source's and the target's snapshots; a run killed before, during and
// after a partition's commit resumed equal to an uninterrupted run, no
// partition published twice; rollbacks with and without later writes; a
// duplicate incident's recovery, freeze, finalize and lag on Iceberg.
#include "core/sql/database.h"
#include "tests/testsupport.h"
#include "tests/trinosupport.h"

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

const QString kColumns = QStringLiteral(
    "(order_id BIGINT, dt DATE, amount DOUBLE, region VARCHAR, updated_at TIMESTAMP(6)) WITH "
    "(partitioning = ARRAY['dt'])");

// Four days of source rows (key 1 sent twice on the 14th; the 17th brings
// keys 20 to 24) and a target holding the 14th and the 15th, with key 4 on
// the 14th that the source no longer has and key 9 on the 15th.
QStringList warehouse(const QString &src, const QString &tgt) {
    return {
        QStringLiteral("CREATE TABLE %1 %2").arg(src, kColumns),
        QStringLiteral("CREATE TABLE %1 %2").arg(tgt, kColumns),
        QStringLiteral(
            "INSERT INTO %1 VALUES (1, DATE '2025-05-14', 20, 'EU', TIMESTAMP '2025-05-14 "
            "09:00:00'), (1, DATE '2025-05-14', 10, 'EU', TIMESTAMP '2025-05-14 12:00:00'), (2, "
            "DATE '2025-05-14', 5, 'US', TIMESTAMP '2025-05-14 10:00:00'), (3, DATE '2025-05-14', "
            "7, NULL, TIMESTAMP '2025-05-14 10:00:00'), (5, DATE '2025-05-15', 1, 'US', TIMESTAMP "
            "'2025-05-15 10:00:00'), (6, DATE '2025-05-16', 2, 'US', TIMESTAMP '2025-05-16 "
            "10:00:00'), (20, DATE '2025-05-17', 1, 'EU', TIMESTAMP '2025-05-17 01:00:00'), (21, "
            "DATE '2025-05-17', 2, 'EU', TIMESTAMP '2025-05-17 02:00:00'), (22, DATE "
            "'2025-05-17', 3, 'EU', TIMESTAMP '2025-05-17 03:00:00'), (23, DATE '2025-05-17', 4, "
            "'EU', TIMESTAMP '2025-05-17 04:00:00'), (24, DATE '2025-05-17', 5, 'EU', TIMESTAMP "
            "'2025-05-17 05:00:00')")
            .arg(src),
        QStringLiteral("INSERT INTO %1 VALUES (1, DATE '2025-05-14', 20, 'EU', TIMESTAMP "
                       "'2025-05-14 09:00:00'), (2, DATE '2025-05-14', 5, 'US', TIMESTAMP "
                       "'2025-05-14 10:00:00'), (4, DATE '2025-05-14', 3, 'US', TIMESTAMP "
                       "'2025-05-14 08:00:00'), (9, DATE '2025-05-15', 9, 'US', TIMESTAMP "
                       "'2025-05-15 08:00:00')")
            .arg(tgt)};
}

// The latest row per (day, key) of `src`, by hand.
QString latestPerKey(const QString &src) {
    return QStringLiteral("SELECT order_id, dt, amount, region, updated_at FROM (SELECT *, "
                          "ROW_NUMBER() OVER (PARTITION BY dt, order_id ORDER BY updated_at DESC) "
                          "AS rn FROM %1) WHERE rn = 1")
        .arg(src);
}

// What a merge of every day of `src` into `tgt` leaves, by hand.
QString handMerge(const QString &src, const QString &tgt) {
    return latestPerKey(src) %
           QStringLiteral(" UNION ALL SELECT t.* FROM %1 AS t WHERE NOT EXISTS (SELECT 1 FROM %2 "
                          "AS s WHERE s.dt = t.dt AND s.order_id = t.order_id)")
               .arg(tgt, src);
}

// What an overwrite of every day of `src` into `tgt` leaves, by hand.
QString handOverwrite(const QString &src, const QString &tgt) {
    return latestPerKey(src) %
           QStringLiteral(
               " UNION ALL SELECT t.* FROM %1 AS t WHERE t.dt NOT IN (SELECT dt FROM %2)")
               .arg(tgt, src);
}

// Rows one side has and the other has not, both ways (0: equal multisets).
qint64 difference(const Database &db, const QString &a, const QString &b) {
    auto v = db.scalar(
        QStringLiteral("SELECT (SELECT count(*) FROM (SELECT * FROM (%1) EXCEPT ALL SELECT * FROM "
                       "(%2))) + (SELECT count(*) FROM (SELECT * FROM (%2) EXCEPT ALL SELECT * "
                       "FROM (%1)))")
            .arg(a, b));
    if (!v)
        qFatal("%s", qPrintable(v.error().message));
    return v->toLongLong();
}

QString all(const QString &table) {
    return QStringLiteral("SELECT order_id, dt, amount, region, updated_at FROM %1").arg(table);
}

qint64 scalarOf(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    if (!v)
        qFatal("%s: %s", qPrintable(sql), qPrintable(v.error().message));
    return v->toLongLong();
}

QJsonObject jsonOf(const QByteArray &out) {
    return QJsonDocument::fromJson(out).object();
}

// A workspace over two fresh tables: `merge` and `overwrite` datasets of
// the same source and target, a control store of its own.
struct Warehouse {
    QTemporaryDir dir;
    QString src = uniqueTable("wsrc");
    QString tgt = uniqueTable("wtgt");
    QString spec;
    std::optional<Database> db;

    explicit Warehouse(const QString &gate = QString()) {
        auto opened = Database::open(trinoUrl());
        if (!opened)
            qFatal("%s", qPrintable(opened.error().message));
        db = *opened;
        for (const QString &statement : warehouse(src, tgt))
            if (auto r = db->exec(statement); !r)
                qFatal("%s", qPrintable(r.error().message));
        spec = writeFile(dir, QStringLiteral("w.json"),
                         QStringLiteral(R"({"control_db": "control.db", "datasets": {
            "sales": {"source": "%1", "target": "%2", "partition_column": "dt",
                      "key": ["order_id"], "order_by": "updated_at", "write": "merge"%3},
            "sales_days": {"source": "%1", "target": "%2", "partition_column": "dt",
                      "key": ["order_id"], "order_by": "updated_at",
                      "write": "overwrite_partition"},
            "more": {"source": "%1", "target": "%2", "partition_column": "dt", "write": "append"},
            "redo": {"source": "%1", "target": "%2", "partition_column": "dt",
                     "key": ["order_id"], "write": "delete_insert"}}})")
                             .arg(src, tgt, gate));
    }
    ~Warehouse() {
        for (const QString &t : {src, tgt})
            (void)db->exec(QStringLiteral("DROP TABLE IF EXISTS %1").arg(t));
    }
    QStringList args() const {
        return {QStringLiteral("--db"), trinoUrl(), QStringLiteral("--spec"), spec};
    }
    QStringList json() const { return args() << QStringLiteral("--json"); }
    qint64 snapshots() const {
        return scalarOf(*db, QStringLiteral("SELECT count(*) FROM \"%1$snapshots\"").arg(tgt));
    }
    QString current() const {
        auto v = db->scalar(
            QStringLiteral("SELECT CAST(snapshot_id AS VARCHAR) FROM \"%1$refs\" WHERE name = "
                           "'main'")
                .arg(tgt));
        return v ? v->toString() : QString();
    }
    qint64 control(const QString &sql) const {
        auto c = Database::open(dir.filePath(QStringLiteral("control.db")));
        if (!c)
            qFatal("%s", qPrintable(c.error().message));
        return scalarOf(*c, sql);
    }
};

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
                            dataset == QLatin1String("more")
                                ? QString(all(before) % QStringLiteral(" UNION ALL ") % all(w.src))
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
            const QString hand =
                dataset == QLatin1String("more")
                    ? QString(all(before) % QStringLiteral(" UNION ALL ") % all(w.src))
                    : all(w.src) % QStringLiteral(" UNION ALL SELECT t.* FROM %1 AS t WHERE NOT "
                                                  "EXISTS (SELECT 1 FROM %2 AS s WHERE s.dt = "
                                                  "t.dt AND s.order_id = t.order_id)")
                                       .arg(before, w.src);
            QCOMPARE(difference(*w.db, all(w.tgt), hand), 0LL);
            QCOMPARE(scalarOf(*w.db, QStringLiteral("SELECT count(*) FROM (%1)").arg(hand)),
                     scalarOf(*w.db, QStringLiteral("SELECT count(*) FROM %1").arg(w.tgt)));
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

QTEST_GUILESS_MAIN(TestTrinoWrites)
#include "tst_trino_writes.moc"
