// Runs beside other work: a concurrent reader sees whole partitions, a
// cancelled run stops at a chunk boundary (or rolls the chunk back) and
// resumes, a live run of the dataset or its freeze refuses another run.
// The rest of the batch core: tst_batch (the warehouse: tests/batchfixture.h).
#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/batch/runs.h"
#include "core/sql/controlschema.h"
#include "core/util/failpoint.h"
#include "core/workspace/workspace.h"
#include "tests/batchfixture.h"
#include "tests/testsupport.h"

#include <QCoreApplication>
#include <QScopeGuard>
#include <QStringBuilder>
#include <QSysInfo>
#include <QTest>
#include <QThread>
#include <atomic>

using namespace rw;
using namespace batchtest;

class TestBatchRuns : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // Short lock waits, so the retry tests take a second, not minutes.
        qputenv("REWIND_BUSY_TIMEOUT_MS", "50");
    }

    void concurrentReaderSeesWholePartitions() {
        // 20 partitions of 50 rows each in the target; the source has 80
        // per partition. A reader counting per partition during the run must
        // only ever see 50 or 80.
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("c.db"),
            {
                QStringLiteral("CREATE TABLE src (id INTEGER, dt INTEGER, v REAL)"),
                QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
                               "WHERE i < 1599) "
                               "INSERT INTO src SELECT i % 80, i / 80, i FROM n"),
                QStringLiteral("CREATE TABLE tgt (id INTEGER, dt INTEGER, v REAL)"),
                QStringLiteral("INSERT INTO tgt SELECT id, dt, -v FROM src WHERE id < 50"),
            });
        const QString specPath = testsupport::writeFile(
            dir, QStringLiteral("c.json"),
            R"({"datasets": {"c": {"source": "src", "target": "tgt", "partition_column": "dt", "key": ["id"], "write": "overwrite_partition"}}})");
        auto ws = openWorkspace(db.url().text, specPath);
        QVERIFY(ws);
        std::atomic<bool> done{false};
        std::atomic<int> torn{0};
        std::atomic<int> reads{0};
        QThread *reader = QThread::create([&] {
            auto mine = Database::open(db.url().text);
            while (!done.load()) {
                auto q = mine->exec(QStringLiteral("SELECT dt, COUNT(*) FROM tgt GROUP BY dt"));
                while (q && q->next()) {
                    const int n = q->value(1).toInt();
                    if (n != 50 && n != 80)
                        ++torn;
                }
                ++reads;
            }
        });
        reader->start();
        // Connected and reading before the run starts (under load, opening
        // a PostgreSQL session took longer than the whole run).
        QTRY_VERIFY_WITH_TIMEOUT(reads.load() > 0, 30000);
        auto r = run(ws->db, ws->spec.datasets[0], execute());
        done = true;
        reader->wait();
        delete reader;
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QVERIFY(reads.load() > 0);
        QCOMPARE(torn.load(), 0);
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM tgt")), 1600);
    }

    void cancelBetweenChunksThenResume() {
        Fixture f(spec(QStringLiteral("merge")));
        std::atomic<bool> cancel{false};
        BatchOptions o = execute();
        o.cancel = &cancel;
        // Cancel as soon as the first partition is published.
        o.progress = [&](const Progress &p) {
            if (p.phase == QLatin1String("published") && p.partitionsDone == 1)
                cancel = true;
        };
        auto r = run(f.db(), f.dataset(), o);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Cancelled);
        QCOMPARE(exitCodeOf(*r), 1);
        QCOMPARE(r->partitions.size(), std::size_t(1));
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            1);
        auto listed = listRuns(f.db());
        QCOMPARE(listed->front().status, RunStatus::Cancelled);

        auto resumed = resume(f.db(), f.ws->spec, r->runId.toLongLong(), execute());
        QVERIFY2(resumed, qPrintable(resumed ? QString() : resumed.error().message));
        QCOMPARE(resumed->status, RunStatus::Succeeded);
        QCOMPARE(resumed->partitions.size(), std::size_t(3));
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            3);
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT SUM(amount) FROM tgt WHERE dt = 'd2' AND id IN (1, 2)")),
                 30 + 40 + 40);
    }

    void cancelInsideAChunkRollsItBack() {
        Fixture f(spec(QStringLiteral("overwrite_partition")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        std::atomic<bool> cancel{false};
        BatchOptions o = execute({QStringLiteral("d2")});
        o.cancel = &cancel;
        // Cancel after staging, before the publish: the chunk must roll back whole.
        o.progress = [&](const Progress &p) {
            if (p.phase == QLatin1String("diff"))
                cancel = true;
        };
        auto r = run(f.db(), f.dataset(), o);
        QVERIFY(r);
        QCOMPARE(r->status, RunStatus::Cancelled);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints")), 0);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_images_sales")),
                 -1); // never created: the DDL rolled back too
        auto resumed = resume(f.db(), f.ws->spec, r->runId.toLongLong(), execute());
        QVERIFY(resumed);
        QCOMPARE(resumed->status, RunStatus::Succeeded);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd2'")), 3);
    }

    // A run of the dataset in a live process blocks a second one, with a
    // message naming it; once its process is gone it blocks nothing.
    void liveRunOfTheDatasetIsRefused() {
        Fixture f(spec(QStringLiteral("merge")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        QVERIFY(f.db().exec(QStringLiteral("INSERT INTO rewind_runs (dataset, kind, plan_id, mode, "
                                           "status, started_at, os_user, pid, host) "
                                           "VALUES ('sales', 'run', 'plan-x', 'merge', 'running', "
                                           "'2025-05-01T00:00:00Z', 'someone', ?, ?)"),
                            {QCoreApplication::applicationPid(), QSysInfo::machineHostName()}));
        auto refused = run(f.db(), f.dataset(), execute());
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(
                     QStringLiteral("refused: run 1 of dataset \"sales\" is running")),
                 qPrintable(refused.error().message));
        QCOMPARE(int(refused.error().code), int(Error::Code::Internal)); // exit 1
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_runs")), 1);

        // The same row from a process that is gone (a pid above any pid_max):
        // interrupted, no obstacle.
        QVERIFY(f.db().exec(QStringLiteral("UPDATE rewind_runs SET pid = ? WHERE run_id = 1"),
                            {0x7ffffff0}));
        auto ok = run(f.db(), f.dataset(), execute());
        QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().message));
        QCOMPARE(ok->status, RunStatus::Succeeded);
    }

    void frozenDatasetIsRefused() {
        Fixture f(spec(QStringLiteral("merge")));
        QVERIFY(
            f.db().exec(QStringLiteral("INSERT INTO rewind_frozen (dataset, frozen_at, os_user, "
                                       "reason) VALUES ('sales', 'now', 'op', 'incident')")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        auto r = run(f.db(), f.dataset(), execute());
        QVERIFY(!r);
        QVERIFY(r.error().message.contains(QStringLiteral("frozen")));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
    }
};

QTEST_GUILESS_MAIN(TestBatchRuns)
#include "tst_batchruns.moc"
