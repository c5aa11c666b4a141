// Crash matrix: rewindctl killed with SIGKILL at every failpoint of a batch
// run (merge, overwrite and delete_insert), of finalize and of recover, then resumed or
// re-run, leaves the target exactly as an uninterrupted run does: no
// duplicate, no gap, a consistent run ledger, and a database that passes
// PRAGMA integrity_check. The kill is a real SIGKILL of a child process,
// raised by the REWIND_FAILPOINT hook (core/failpoint.h). Stream replay, DLQ
// replay and SCD2 have their own kill tests (tst_replay, tst_dlqreplay, tst_scd2).
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTest>

using namespace rw;

namespace {

using Proc = testsupport::ChildResult;

Proc rewindctl(const QStringList &args, const QString &failpoint = QString()) {
    return testsupport::runRewindctl(args, failpoint);
}

QString digest(const QString &path) {
    return testsupport::digest(path,
                               QStringLiteral("SELECT order_id, dt, amount, updated_at FROM fact"));
}

qint64 scalar(const QString &path, const QString &sql) {
    return testsupport::scalarAt(path, sql);
}

QString integrity(const QString &path) {
    return testsupport::integrityCheck(path);
}

} // namespace

class TestCrash : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_initial;
    QString m_spec;
    QString m_expected;
    qint64 m_expectedRows = 0;

    QString freshCopy(const QString &name) {
        return testsupport::copyDatabase(m_initial, m_dir, name);
    }

    QStringList ws(const QString &db) const {
        return {QStringLiteral("--db"), db, QStringLiteral("--spec"), m_spec};
    }

    // A run of `dataset` in chunks of `chunkRows` source rows killed at
    // `failpoint` with `committed` partitions published, shown as interrupted
    // with only whole chunks published, then resumed: equal to an
    // uninterrupted run, no key doubled, the ledger whole.
    void killThenResumeRun(const QString &dataset, const QString &failpoint, int committed,
                           const char *chunkRows) {
        qputenv("REWIND_CHUNK_ROWS", chunkRows);
        const auto unset = qScopeGuard([] { qunsetenv("REWIND_CHUNK_ROWS"); });
        const QString db =
            freshCopy(QStringLiteral("crash-") + dataset + u'-' + QString::fromLatin1(chunkRows) +
                      u'-' + QString(failpoint).replace(u':', u'-') + QStringLiteral(".db"));
        const auto resumed = testsupport::killThenResume(
            QStringList{QStringLiteral("run"), QStringLiteral("--dataset"), dataset,
                        QStringLiteral("--execute"), QStringLiteral("--json")},
            ws(db), failpoint, committed);
        QVERIFY2(resumed.problem.isEmpty(), qPrintable(resumed.problem));
        QCOMPARE(resumed.result[QStringLiteral("partitions")].toArray().size(), 6);
        QCOMPARE(digest(db), m_expected);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM fact")), m_expectedRows);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT order_id, dt FROM fact "
                                           "GROUP BY 1, 2 HAVING COUNT(*) > 1) AS doubled")),
                 0);
        const QString ledger = testsupport::ledgerProblems(db, dataset, resumed.runId, 6);
        QVERIFY2(ledger.isEmpty(), qPrintable(ledger));
        QCOMPARE(integrity(db), QStringLiteral("ok"));
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // 6 daily partitions of 3,000 source rows with 10% re-sent versions;
        // the target has day 2 doubled and day 4 missing a third of its rows.
        {
            auto db = testsupport::makeDatabase(
                m_dir, QStringLiteral("initial.db"),
                {
                    // DOUBLE PRECISION, not REAL: PostgreSQL's REAL is 4 bytes, and its sums depend
                    // on row order.
                    QStringLiteral("CREATE TABLE raw (order_id INTEGER, dt TEXT, amount DOUBLE "
                                   "PRECISION, updated_at TEXT)"),
                    QStringLiteral(
                        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < "
                        "17999) "
                        "INSERT INTO raw SELECT i % 3000, '2025-05-0' || (1 + i / 3000), (i * "
                        "7919) % 1000 / 10.0, '2025-05-10T00:00:00Z' FROM n"),
                    QStringLiteral("INSERT INTO raw SELECT order_id, dt, amount + 1, "
                                   "'2025-05-11T00:00:00Z' FROM raw WHERE order_id % 10 = 0"),
                    QStringLiteral("CREATE INDEX raw_dt ON raw (dt)"),
                    // fact_di's transform looks each row's later versions up
                    QStringLiteral("CREATE INDEX raw_versions ON raw (order_id, dt, updated_at)"),
                    QStringLiteral("CREATE TABLE fact (order_id INTEGER, dt TEXT, amount DOUBLE "
                                   "PRECISION, updated_at TEXT)"),
                    QStringLiteral("INSERT INTO fact SELECT order_id, dt, CASE WHEN dt = "
                                   "'2025-05-02' THEN amount * 2 ELSE amount END, updated_at "
                                   "FROM raw WHERE updated_at = '2025-05-10T00:00:00Z' AND NOT (dt "
                                   "= '2025-05-04' AND order_id % 3 = 0)"),
                    QStringLiteral("CREATE INDEX fact_dt ON fact (dt, order_id)"),
                });
            m_initial = db.url().text;
        } // closing the last connection checkpoints the WAL, so a plain file copy is the whole
          // database
        // The same repair by merge, by overwrite and by delete_insert (of the
        // latest version of each row, which the others dedupe to); `late` is finalized by the
        // watermark (every day is past it) into a target its first publish creates.
        m_spec = testsupport::writeFile(m_dir, QStringLiteral("crash.json"),
                                        R"spec({"datasets": {"fact": {
            "source": "raw", "target": "fact", "partition_column": "dt", "key": ["order_id"], "order_by": "updated_at",
            "write": "merge", "checks": [{"type": "row_count", "min": 1}, {"type": "unique_key"}]},
          "fact_ow": {"source": "raw", "target": "fact", "partition_column": "dt", "key": ["order_id"], "order_by": "updated_at",
            "write": "overwrite_partition", "checks": [{"type": "row_count", "min": 1}]},
          "fact_di": {"transform": "SELECT order_id, dt, amount, updated_at FROM raw AS r WHERE NOT EXISTS (SELECT 1 FROM raw AS n WHERE n.order_id = r.order_id AND n.dt = r.dt AND n.updated_at > r.updated_at)",
            "target": "fact", "partition_column": "dt", "key": ["order_id"],
            "write": "delete_insert", "checks": [{"type": "row_count", "min": 1}]},
          "late": {"transform": "SELECT order_id, dt, amount, updated_at FROM raw", "target": "late_fact", "partition_column": "dt",
            "key": ["order_id"], "order_by": "updated_at", "write": "merge", "event_time": "updated_at", "allowed_lateness": "1h"}}})spec");
        // Make sure the control schema exists in the template, as on a workspace in use.
        QVERIFY(rewindctl(QStringList{QStringLiteral("datasets")} + ws(m_initial)).exitCode == 0);

        const QString baseline = freshCopy(QStringLiteral("baseline.db"));
        const Proc r = rewindctl(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                             QStringLiteral("fact"), QStringLiteral("--execute"),
                                             QStringLiteral("--json")} +
                                 ws(baseline));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        m_expected = digest(baseline);
        m_expectedRows = scalar(baseline, QStringLiteral("SELECT COUNT(*) FROM fact"));
        QCOMPARE(m_expectedRows, 18000);
        QVERIFY(m_expected != digest(m_initial));
    }

    void killedThenResumed_data() {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("failpoint");
        QTest::addColumn<int>("committed");
        for (const char *dataset : {"fact", "fact_ow", "fact_di"})
            for (const auto &[label, point, committed] : testsupport::batchRunFailpoints())
                QTest::addRow("%s, %s", dataset, label)
                    << QString::fromUtf8(dataset) << QString::fromUtf8(point) << committed;
    }

    void killedThenResumed() {
        QFETCH(QString, dataset);
        QFETCH(QString, failpoint);
        QFETCH(int, committed);
        // One partition per chunk: the failpoints count partitions.
        killThenResumeRun(dataset, failpoint, committed, "1");
    }

    // The same with several partitions per chunk (REWIND_CHUNK_ROWS of two
    // partitions' source rows, 3,300 each): chunks of days 1 (the first
    // chunk of a run planned afresh is one partition, to learn its size),
    // 2-3, 4-5 and 6. Killed inside a chunk, none of its partitions is
    // published; after resume the target equals an uninterrupted run's.
    void killedInsideMultiPartitionChunk_data() {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("failpoint");
        QTest::addColumn<int>("committed");
        const struct {
            const char *label, *point;
            int committed;
        } points[] = {
            {"days 2-3 staged", "after-stage:2", 1},
            {"days 2-3 written, uncommitted", "after-write:2", 1},
            {"days 4-5 checkpointed, uncommitted", "before-commit:3", 3},
            {"days 4-5 committed", "after-commit:3", 5},
            {"starting day 6", "chunk-start:4", 5},
        };
        for (const char *dataset : {"fact", "fact_ow", "fact_di"})
            for (const auto &[label, point, committed] : points)
                QTest::addRow("%s, %s", dataset, label)
                    << QString::fromUtf8(dataset) << QString::fromUtf8(point) << committed;
    }

    void killedInsideMultiPartitionChunk() {
        QFETCH(QString, dataset);
        QFETCH(QString, failpoint);
        QFETCH(int, committed);
        killThenResumeRun(dataset, failpoint, committed, "6600");
    }

    // Two rewindctl runs of one dataset started together: never both
    // writing. One refuses naming the other, or they run one after the
    // other; the publishes of two runs never interleave.
    void twoRunsOfOneDatasetNeverBothWrite() {
        const QString db = freshCopy(QStringLiteral("two-runs.db"));
        QProcess a, b;
        const QStringList run = QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                            QStringLiteral("fact"), QStringLiteral("--execute")} +
                                ws(db);
        a.start(QStringLiteral(REWINDCTL_PATH), run);
        b.start(QStringLiteral(REWINDCTL_PATH), run);
        QVERIFY(a.waitForFinished(120000));
        QVERIFY(b.waitForFinished(120000));
        int succeeded = 0;
        for (QProcess *p : {&a, &b}) {
            const QByteArray err = p->readAllStandardError();
            if (p->exitCode() == 0)
                ++succeeded;
            else
                QVERIFY2(p->exitCode() == 1 && err.contains("refused: run "), err.constData());
        }
        QVERIFY(succeeded >= 1);
        QCOMPARE(digest(db), m_expected);
        // Publishes grouped by run: each run's are one contiguous block in commit order.
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT run_id, LAG(run_id) OVER "
                                           "(ORDER BY audit_id) AS prev "
                                           "FROM rewind_audit WHERE action = 'publish') AS runs "
                                           "WHERE prev IS NOT NULL AND prev <> run_id")),
                 succeeded - 1);
        QCOMPARE(integrity(db), QStringLiteral("ok"));
    }

    // finalize --execute publishes the days the watermark passed; killed, then
    // run again, it finishes the rest and every day ends final, once.
    void finalizeKilledThenRerun_data() {
        QTest::addColumn<QString>("failpoint");
        QTest::newRow("first day staged") << QStringLiteral("after-stage:1");
        QTest::newRow("third day uncommitted") << QStringLiteral("before-commit:3");
        QTest::newRow("fourth day committed") << QStringLiteral("after-commit:4");
    }
    void finalizeKilledThenRerun() {
        QFETCH(QString, failpoint);
        qputenv("REWIND_CHUNK_ROWS", "1"); // the failpoints count days
        const auto oneByOne = qScopeGuard([] { qunsetenv("REWIND_CHUNK_ROWS"); });
        const QStringList finalize = QStringList{
            QStringLiteral("finalize"), QStringLiteral("--dataset"), QStringLiteral("late"),
            QStringLiteral("--execute"), QStringLiteral("--json")};
        const QString clean =
            freshCopy(QStringLiteral("finalize-clean-") + QString(failpoint).replace(u':', u'-') +
                      QStringLiteral(".db"));
        const Proc uninterrupted = rewindctl(finalize + ws(clean));
        QVERIFY2(uninterrupted.exitCode == 0, uninterrupted.err.constData());
        QCOMPARE(scalar(clean, QStringLiteral("SELECT COUNT(*) FROM rewind_partition_state WHERE "
                                              "dataset = 'late' AND status = 'final'")),
                 6);

        const QString db =
            freshCopy(QStringLiteral("finalize-") + QString(failpoint).replace(u':', u'-') +
                      QStringLiteral(".db"));
        QVERIFY(rewindctl(finalize + ws(db), failpoint).crashed);
        const Proc again = rewindctl(finalize + ws(db));
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_partition_state WHERE "
                                           "dataset = 'late' AND status = 'final'")),
                 6);
        const QString rows = QStringLiteral("SELECT COUNT(*) FROM late_fact");
        QCOMPARE(scalar(db, rows), scalar(clean, rows));
        const QString sum =
            QStringLiteral("SELECT CAST(ROUND(SUM(amount) * 100) AS INTEGER) FROM late_fact");
        QCOMPARE(scalar(db, sum), scalar(clean, sum));
        QCOMPARE(
            scalar(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT order_id, dt FROM late_fact "
                                      "GROUP BY 1, 2 HAVING COUNT(*) > 1) AS doubled")),
            0);
        QCOMPARE(integrity(db), QStringLiteral("ok"));
    }

    // recover --execute on a retry storm, killed inside its re-run, then run
    // again: the same table as an uninterrupted recovery, unfrozen, indexed.
    void recoverKilledThenRerun_data() {
        QTest::addColumn<QString>("failpoint");
        QTest::newRow("re-run staged") << QStringLiteral("after-stage:1");
        QTest::newRow("re-run written, uncommitted") << QStringLiteral("after-write:1");
        QTest::newRow("re-run committed") << QStringLiteral("after-commit:1");
    }
    void recoverKilledThenRerun() {
        QFETCH(QString, failpoint);
        const QString tag = QString(failpoint).replace(u':', u'-');
        auto storm = [&](const QString &name) {
            const QString path = freshCopy(name);
            auto d = Database::open(path);
            // A retry storm doubled part of two days.
            (void)d->exec(QStringLiteral("INSERT INTO fact SELECT * FROM fact WHERE dt IN "
                                         "('2025-05-03', '2025-05-05') AND order_id % 7 = 0"));
            return path;
        };
        const QStringList recover{QStringLiteral("recover"), QStringLiteral("--dataset"),
                                  QStringLiteral("fact_ow"), QStringLiteral("--execute"),
                                  QStringLiteral("--json")};
        const QString clean = storm(QStringLiteral("recover-clean-") + tag + QStringLiteral(".db"));
        const Proc uninterrupted = rewindctl(
            recover + ws(clean) +
            QStringList{QStringLiteral("--report"),
                        m_dir.filePath(QStringLiteral("clean-") + tag + QStringLiteral(".md"))});
        QVERIFY2(uninterrupted.exitCode == 0, uninterrupted.err.constData());

        const QString db = storm(QStringLiteral("recover-") + tag + QStringLiteral(".db"));
        const QStringList report{
            QStringLiteral("--report"),
            m_dir.filePath(QStringLiteral("killed-") + tag + QStringLiteral(".md"))};
        QVERIFY(rewindctl(recover + ws(db) + report, failpoint).crashed);
        const Proc again = rewindctl(recover + ws(db) + report);
        QVERIFY2(again.exitCode == 0, QByteArray(again.err + again.out).constData());
        QCOMPARE(digest(db), digest(clean));
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT order_id, dt FROM fact "
                                           "GROUP BY 1, 2 HAVING COUNT(*) > 1) AS doubled")),
                 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        // The unique index now refuses a duplicate.
        auto d = Database::open(db);
        QVERIFY(!d->exec(QStringLiteral("INSERT INTO fact SELECT * FROM fact LIMIT 1")));
        QCOMPARE(integrity(db), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TestCrash)
#include "tst_crash.moc"
