// The batch core as an operator relies on it: what a run writes into the
// target, what a second run changes (nothing), what a failed gate or a stale
// plan leaves (nothing), and what a reader sees during publishes. When the
// database itself fails the run: tst_batchfailures.
// Runs beside other work (readers, cancels, a live run, a freeze): tst_batchruns.
#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/batch/runs.h"
#include "core/sql/controlschema.h"
#include "core/sql/timejson.h"
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

class TestBatch : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // Short lock waits, so the retry tests take a second, not minutes.
        qputenv("REWIND_BUSY_TIMEOUT_MS", "50");
    }

    void previewWritesOnlyThePlan() {
        Fixture f(spec(QStringLiteral("merge")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        auto r = preview(f.db(), f.dataset(), {});
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Previewed);
        QVERIFY(!r->executed);
        QVERIFY(r->runId.isNull());
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_plans WHERE plan_id = '") +
                              r->planId + u'\''),
            1);
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_audit WHERE action = 'preview'")),
                 1);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_runs")), 0);

        // d1: 3 source rows, key 2 twice -> 2 staged, 1 dropped, 2 unchanged.
        const PartitionResult &d1 = part(*r, QStringLiteral("d1"));
        QCOMPARE(d1.sourceRows, 3);
        QCOMPARE(d1.stagedRows, 2);
        QCOMPARE(d1.duplicatesDropped, 1);
        QCOMPARE(d1.unchanged, 2);
        // d2: (1,a) and (2,a) differ, (3,NULL) is new; merge deletes nothing.
        const PartitionResult &d2 = part(*r, QStringLiteral("d2"));
        QCOMPARE(d2.stagedRows, 3);
        QCOMPARE(d2.updated, 2);
        QCOMPARE(d2.inserted, 1);
        QCOMPARE(d2.deleted, 0);
    }

    // With no samples (and no gates) a preview counts without writing the
    // stage; with samples it stages. Both count alike: a NULL key the target
    // holds too is an update, not an insert; a key the target holds twice
    // is one update; an overwrite deletes what no staged row matches.
    void previewCountsTheSameWithoutAStage_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<bool>("indexed");
        QTest::newRow("merge") << QStringLiteral("merge") << false;
        QTest::newRow("merge, indexed target") << QStringLiteral("merge") << true;
        QTest::newRow("overwrite") << QStringLiteral("overwrite_partition") << false;
    }
    void previewCountsTheSameWithoutAStage() {
        QFETCH(QString, mode);
        QFETCH(bool, indexed);
        QStringList extra{QStringLiteral("INSERT INTO tgt VALUES (3, NULL, 'd2', 50, 'x', 't1')")};
        if (indexed)
            extra << QStringLiteral("CREATE INDEX tgt_key ON tgt (dt, id, sub)");
        Fixture f(spec(mode), extra);
        BatchOptions sampled;
        sampled.samples = 1;
        for (const QStringList &partitions : {QStringList{}, QStringList{QStringLiteral("d2")}}) {
            BatchOptions counted;
            counted.scope.partitions = partitions;
            sampled.scope.partitions = partitions;
            auto a = preview(f.db(), f.dataset(), counted);
            auto b = preview(f.db(), f.dataset(), sampled);
            QVERIFY2(a && b,
                     qPrintable(a ? (b ? QString() : b.error().message) : a.error().message));
            const QString differ = countsDiffer(*a, *b);
            QVERIFY2(differ.isEmpty(), qPrintable(differ));
            const PartitionResult &d2 = part(*a, QStringLiteral("d2"));
            QCOMPARE(d2.stagedRows, 3);
            QCOMPARE(d2.inserted, 0); // (3, NULL) is the target's
            QCOMPARE(d2.updated, 3);  // (2, a) twice in the target: one staged row
            QCOMPARE(d2.deleted, mode == QLatin1String("merge") ? 0 : 2);
            if (partitions.isEmpty()) { // d1 keeps its first count: only d2 repeats a key and is
                                        // counted again
                QCOMPARE(part(*a, QStringLiteral("d1")).stagedRows, 2);
                QCOMPARE(part(*a, QStringLiteral("d1")).unchanged, 2);
            }
        }
    }

    // An overwrite's diff matches on plain `=` and asks again null-safe when a
    // staged key is NULL: the run reports (3, NULL) as the target's row
    // updated, not inserted, and the day holds it once.
    void overwriteRunCountsANullKeyAsTheTargets_data() {
        QTest::addColumn<bool>("indexed");
        QTest::newRow("unindexed target") << false;
        QTest::newRow("indexed target") << true;
    }
    void overwriteRunCountsANullKeyAsTheTargets() {
        QFETCH(bool, indexed);
        QStringList extra{QStringLiteral("INSERT INTO tgt VALUES (3, NULL, 'd2', 50, 'x', 't1')")};
        if (indexed)
            extra << QStringLiteral("CREATE INDEX tgt_key ON tgt (dt, id, sub)");
        Fixture f(spec(QStringLiteral("overwrite_partition")), extra);
        auto r = run(f.db(), f.dataset(), execute({QStringLiteral("d2")}));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        const PartitionResult &d2 = part(*r, QStringLiteral("d2"));
        QCOMPARE(d2.stagedRows, 3);
        QCOMPARE(d2.inserted, 0);
        QCOMPARE(d2.updated, 3);
        QCOMPARE(d2.deleted, 2);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd2'")), 3);
        QCOMPARE(count(f.db(),
                       QStringLiteral(
                           "SELECT COUNT(*) FROM tgt WHERE dt = 'd2' AND id = 3 AND sub IS NULL")),
                 1);
    }

    // Indexed, an overwrite's diff reads the target itself; unindexed, a
    // keyed copy of it. Every partition counts alike and the target ends
    // alike.
    void overwriteCountsTheSameIndexedOrNot() {
        const QStringList nullKeyRow{
            QStringLiteral("INSERT INTO tgt VALUES (3, NULL, 'd2', 50, 'x', 't1')")};
        Fixture plain(spec(QStringLiteral("overwrite_partition")), nullKeyRow);
        Fixture indexed(
            spec(QStringLiteral("overwrite_partition")),
            nullKeyRow + QStringList{QStringLiteral("CREATE INDEX tgt_key ON tgt (dt, id, sub)")});
        auto a = run(plain.db(), plain.dataset(), execute());
        auto b = run(indexed.db(), indexed.dataset(), execute());
        QVERIFY2(a && b, qPrintable(a ? (b ? QString() : b.error().message) : a.error().message));
        QCOMPARE(a->partitions.size(), std::size_t(3));
        const QString differ = countsDiffer(*a, *b);
        QVERIFY2(differ.isEmpty(), qPrintable(differ));
        for (std::size_t i = 0; i < a->partitions.size(); ++i)
            QCOMPARE(b->partitions[i].fingerprint, a->partitions[i].fingerprint);
        // d1 as loaded; d2: (9, z) and the extra copy of (2, a) go; d3 as loaded.
        QCOMPARE(part(*b, QStringLiteral("d1")).unchanged, 2);
        QCOMPARE(part(*b, QStringLiteral("d2")).deleted, 2);
        QCOMPARE(part(*b, QStringLiteral("d3")).unchanged, 2);
        QCOMPARE(digest(indexed.db(), QStringLiteral("tgt")),
                 digest(plain.db(), QStringLiteral("tgt")));
        QCOMPARE(
            count(indexed.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            3);
    }

    // Unindexed, the diff reads a keyed copy of the target; indexed, the
    // publish works by row identity (rewind_match). Both must agree.
    void mergeRunAndIdempotentRerun_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("unindexed target") << QStringList();
        QTest::newRow("indexed target")
            << QStringList{QStringLiteral("CREATE INDEX tgt_key ON tgt (dt, id, sub)")};
    }
    void mergeRunAndIdempotentRerun() {
        QFETCH(QStringList, extra);
        Fixture f(spec(QStringLiteral("merge")), extra);
        auto first = run(f.db(), f.dataset(), execute());
        QVERIFY2(first, qPrintable(first ? QString() : first.error().message));
        QCOMPARE(first->status, RunStatus::Succeeded);
        QCOMPARE(exitCodeOf(*first), 0);
        // d2: (1, a) and (2, a) differ, (2, a) held twice by the target yet one
        // staged row updated; the NULL-key row (3, NULL) is new.
        QCOMPARE(part(*first, QStringLiteral("d2")).updated, 2);
        QCOMPARE(part(*first, QStringLiteral("d2")).inserted, 1);
        QCOMPARE(part(*first, QStringLiteral("d1")).inserted, 0);
        QCOMPARE(part(*first, QStringLiteral("d1")).updated, 0);
        // Before-images: the three target rows of (1, a) and (2, a), and the inserted key.
        QCOMPARE(count(f.db(),
                       QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_images_sales WHERE rewind_op = 'updated'")),
                 3);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_images_sales WHERE "
                                              "rewind_op = 'inserted' AND id = 3")),
                 1);
        // The bad day is fixed where rows differ: amounts 30 and 40, and the NULL-key row at its
        // latest version.
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT SUM(amount) FROM tgt WHERE dt = 'd2' AND id IN (1, 2)")),
                 30 + 40 + 40);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id = 3 AND sub IS NULL")),
            1);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT amount FROM tgt WHERE id = 3 AND sub IS NULL")),
            55);
        // Merge leaves what it does not know: the stray row stays.
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id = 9")), 1);

        const QString after = digest(f.db(), QStringLiteral("tgt"));
        auto second = run(f.db(), f.dataset(), execute());
        QVERIFY(second);
        const PartitionResult t = second->totals();
        QCOMPARE(t.inserted, 0);
        QCOMPARE(t.updated, 0);
        QCOMPARE(t.deleted, 0);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), after);
        // Each run checkpointed every partition and left the state published.
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            6);
        auto parts = listPartitions(f.db(), f.dataset());
        QVERIFY(parts);
        for (const auto &p : *parts)
            QCOMPARE(p.status, PartitionStatus::Loaded);
    }

    void nullKeysNeverDuplicate() {
        Fixture f(spec(QStringLiteral("merge")),
                  {QStringLiteral("INSERT INTO src VALUES (NULL, NULL, 'd1', 5, 'n', 't1'), (NULL, "
                                  "NULL, 'd1', 6, 'n', 't2')")});
        for (int i = 0; i < 3; ++i)
            QVERIFY(run(f.db(), f.dataset(), execute({QStringLiteral("d1")})));
        QCOMPARE(count(f.db(),
                       QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id IS NULL AND sub IS NULL")),
                 1);
        QCOMPARE(count(f.db(),
                       QStringLiteral("SELECT amount FROM tgt WHERE id IS NULL AND sub IS NULL")),
                 6);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd1'")), 3);
    }

    // PostgreSQL's one-statement merge match joins on plain `=`, which
    // leaves a NULL key unmatched; the staged rows are probed for one and,
    // where there is one, matched again, null-safe. The source's NULL-key
    // row updates the target's, and is not inserted beside it.
    void nullKeyInTheSourceIsStillMatched() {
        if (!testsupport::onPostgres())
            QSKIP("SQLite stages and matches in two statements, probing the stage itself");
        Fixture f(spec(QStringLiteral("merge")),
                  {QStringLiteral("CREATE INDEX tgt_key ON tgt (dt, id, sub)"),
                   QStringLiteral("INSERT INTO tgt VALUES (5, NULL, 'd1', 1, 'x', 't0')"),
                   QStringLiteral("INSERT INTO src VALUES (5, NULL, 'd1', 7, 'x', 't5')")});
        auto r = run(f.db(), f.dataset(), execute({QStringLiteral("d1")}));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id = 5 AND sub IS NULL")),
            1);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT amount FROM tgt WHERE id = 5 AND sub IS NULL")),
            7);
        QCOMPARE(part(*r, QStringLiteral("d1")).updated, 1);
        QCOMPARE(part(*r, QStringLiteral("d1")).inserted, 0);
    }

    void tiesAreBrokenDeterministically() {
        // Two versions of key (7,'t') with the same updated_at, inserted in
        // opposite orders in two warehouses: both keep the same row.
        QStringList results;
        for (const bool reversed : {false, true}) {
            const QString a = QStringLiteral("(7, 't', 'd1', 100, 'first', 'same')");
            const QString b = QStringLiteral("(7, 't', 'd1', 200, 'second', 'same')");
            Fixture f(spec(QStringLiteral("merge")),
                      {QStringLiteral("INSERT INTO src VALUES ") + (reversed ? b : a),
                       QStringLiteral("INSERT INTO src VALUES ") + (reversed ? a : b)});
            QVERIFY(run(f.db(), f.dataset(), execute({QStringLiteral("d1")})));
            QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id = 7")), 1);
            results
                << f.db().scalar(QStringLiteral("SELECT note FROM tgt WHERE id = 7"))->toString();
        }
        QCOMPARE(results.at(0), results.at(1));
    }

    void overwriteRepairsOnlyItsPartition() {
        Fixture f(spec(QStringLiteral("overwrite_partition")));
        const QString d1 = digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd1'"));
        const QString d3 = digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd3'"));
        auto r = run(f.db(), f.dataset(), execute({QStringLiteral("d2")}));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        const PartitionResult &d2 = part(*r, QStringLiteral("d2"));
        // 4 target rows: (1,a) updated, one copy of (2,a) updated, its extra copy and (9,z)
        // deleted.
        QCOMPARE(d2.updated, 2);
        QCOMPARE(d2.inserted, 1);
        QCOMPARE(d2.deleted, 2);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd2'")), 3);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id = 9")), 0);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT SUM(amount) FROM tgt WHERE dt = 'd2'")),
                 30 + 40 + 55);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd1'")), d1);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd3'")), d3);
        // The replaced partition is kept for rollback.
        QCOMPARE(
            count(f.db(),
                  QStringLiteral(
                      "SELECT COUNT(*) FROM rewind_images_sales WHERE rewind_op = 'replaced'")),
            4);
        auto again = run(f.db(), f.dataset(), execute({QStringLiteral("d2")}));
        QVERIFY(again);
        QCOMPARE(part(*again, QStringLiteral("d2")).deleted +
                     part(*again, QStringLiteral("d2")).inserted +
                     part(*again, QStringLiteral("d2")).updated,
                 0);
    }

    void mergeKeepsDuplicatesOverwriteRemovesThem() {
        Fixture merge(spec(QStringLiteral("merge")));
        QVERIFY(run(merge.db(), merge.dataset(), execute({QStringLiteral("d2")})));
        QCOMPARE(count(merge.db(),
                       QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd2' AND id = 2")),
                 2);
        Fixture overwrite(spec(QStringLiteral("overwrite_partition")));
        QVERIFY(run(overwrite.db(), overwrite.dataset(), execute({QStringLiteral("d2")})));
        QCOMPARE(count(overwrite.db(),
                       QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd2' AND id = 2")),
                 1);
    }

    void firstRunCreatesTheTarget() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("n.db"), kWarehouse);
        const QString specPath = testsupport::writeFile(
            dir, QStringLiteral("n.json"),
            R"({"datasets": {"fresh": {"source": "src", "target": "brand new", "partition_column": "dt", "key": ["id", "sub"], "order_by": "updated_at"}}})");
        auto ws = openWorkspace(db.url().text, specPath);
        QVERIFY(ws);
        auto r = run(ws->db, ws->spec.datasets[0], execute());
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM \"brand new\"")), 7);
        QCOMPARE(r->totals().inserted, 7);
    }

    void gateFailurePublishesNothing_data() {
        QTest::addColumn<QString>("checks");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("detail");
        QTest::newRow("not_null") << QStringLiteral(R"([{"type": "not_null", "columns": ["sub"]}])")
                                  << QStringLiteral("not_null")
                                  << QStringLiteral("1 rows with NULL in sub");
        QTest::newRow("references")
            << QStringLiteral(
                   R"([{"type": "references", "column": "amount", "table": "ref", "to": "id"}])")
            << QStringLiteral("references:amount") << QStringLiteral("has no match in ref.id");
        QTest::newRow("row_count")
            << QStringLiteral(R"([{"type": "row_count", "min": 4}])") << QStringLiteral("row_count")
            << QStringLiteral("3 rows, fewer than the minimum 4");
        QTest::newRow("total")
            << QStringLiteral(R"([{"type": "total", "column": "amount", "tolerance_pct": 0}])")
            << QStringLiteral("total:amount") << QStringLiteral("vs source");
        QTest::newRow("sql")
            << QStringLiteral(
                   R"([{"type": "sql", "name": "small", "query": "SELECT MAX(amount) FROM {staged}", "max": 45}])")
            << QStringLiteral("small") << QStringLiteral("value 55, above the maximum 45");
    }

    void gateFailurePublishesNothing() {
        QFETCH(QString, checks);
        QFETCH(QString, name);
        QFETCH(QString, detail);
        // The total check compares against the source's own dedupe; make the
        // transform disagree with it so that gate has something to catch.
        QByteArray json = spec(QStringLiteral("merge"), checks);
        if (name.startsWith(QLatin1String("total")))
            json.replace(
                "\"source\": \"src\",",
                "\"source\": \"src\", \"transform\": \"SELECT id, sub, dt, CAST(amount * 2 "
                "AS REAL) AS amount, note, updated_at FROM src\",");
        Fixture f(json);
        const QString before = digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd2'"));
        auto r = run(f.db(), f.dataset(), execute({QStringLiteral("d2")}));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::CheckFailed);
        QCOMPARE(exitCodeOf(*r), 3);
        QVERIFY(!part(*r, QStringLiteral("d2")).published);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd2'")), before);
        const auto failed = std::find_if(r->checks.begin(), r->checks.end(),
                                         [](const CheckResult &c) { return !c.passed; });
        QVERIFY(failed != r->checks.end());
        QCOMPARE(failed->name, name);
        QVERIFY2(failed->detail.contains(detail), qPrintable(failed->detail));
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_check_results WHERE passed = 0")),
                 1);
        auto parts = listPartitions(f.db(), f.dataset());
        QCOMPARE(parts->at(1).status, PartitionStatus::Failed);
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            0);
    }

    void failingPartitionDoesNotStopOthers() {
        Fixture f(spec(QStringLiteral("merge"),
                       QStringLiteral(R"([{"type": "not_null", "columns": ["sub"]}])")));
        auto r = run(f.db(), f.dataset(), execute());
        QVERIFY(r);
        QCOMPARE(r->status, RunStatus::CheckFailed);
        QVERIFY(part(*r, QStringLiteral("d1")).published);
        QVERIFY(!part(*r, QStringLiteral("d2")).published);
        QVERIFY(part(*r, QStringLiteral("d3")).published);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT amount FROM tgt WHERE dt = 'd2' AND id = 1")),
                 60);
    }

    void quarantineMovesFailingRowsToTheDlq() {
        Fixture f(
            spec(QStringLiteral("merge"),
                 QStringLiteral(
                     R"([{"type": "not_null", "columns": ["sub"], "on_fail": "quarantine"}])")));
        auto r = run(f.db(), f.dataset(), execute({QStringLiteral("d2")}));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QVERIFY2(r->status == RunStatus::Succeeded,
                 qPrintable(rw::enumName(r->status) + u' ' + r->error));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE id = 3")), 0);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'new' AND "
                                         "error_class = 'not_null' AND part = 'd2'")),
            1);
        QCOMPARE(
            f.db()
                .scalar(QStringLiteral("SELECT ") %
                        TimeJson::of(f.db().dialect())
                            .jsonExtract(QStringLiteral("payload"), QStringLiteral("'$.amount'")) %
                        QStringLiteral(" FROM rewind_dlq"))
                ->toInt(),
            55);
        QCOMPARE(count(f.db(),
                       QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_dlq_history WHERE action = 'quarantined'")),
                 1);
    }

    void stalePlanIsRefused_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("merge") << QStringLiteral("merge") << QStringList();
        QTest::newRow("overwrite, indexed target")
            << QStringLiteral("overwrite_partition")
            << QStringList{QStringLiteral("CREATE INDEX tgt_key ON tgt (dt, id, sub)")};
    }
    void stalePlanIsRefused() {
        QFETCH(QString, mode);
        QFETCH(QStringList, extra);
        Fixture f(spec(mode), extra);
        auto p = preview(f.db(), f.dataset(), {});
        QVERIFY(p);
        // Same row count, same length: only the checksum can tell.
        QVERIFY(
            f.db().exec(QStringLiteral("UPDATE src SET note = 'y' WHERE dt = 'd3' AND id = 4")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        BatchOptions o = execute();
        o.planId = p->planId;
        auto r = run(f.db(), f.dataset(), o);
        QVERIFY(!r);
        QCOMPARE(r.error().exitCode(), 4);
        QVERIFY2(r.error().message.contains(QStringLiteral("d3")), qPrintable(r.error().message));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_runs")), 0);

        // A fresh preview executes.
        auto fresh = preview(f.db(), f.dataset(), {});
        o.planId = fresh->planId;
        auto ok = run(f.db(), f.dataset(), o);
        QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().message));
        QCOMPARE(ok->planId, fresh->planId);
    }

    // The source of a partition changes after the run has checked its plan
    // (here between two chunks): that partition's chunk, comparing the
    // fingerprint it reads inside its write transaction, stops the run as
    // stale and writes nothing; the chunks before it stay published.
    void sourceChangedMidRunStopsAsStale_data() { stalePlanIsRefused_data(); }
    void sourceChangedMidRunStopsAsStale() {
        QFETCH(QString, mode);
        QFETCH(QStringList, extra);
        qputenv("REWIND_CHUNK_ROWS", "1"); // one partition per chunk, to change d3 between chunks
        const auto oneByOne = qScopeGuard([] { qunsetenv("REWIND_CHUNK_ROWS"); });
        Fixture f(spec(mode), extra);
        auto p = preview(f.db(), f.dataset(), {});
        QVERIFY(p);
        const QString d3 = digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd3'"));
        BatchOptions o = execute();
        o.planId = p->planId;
        o.progress = [&](const Progress &pr) {
            if (pr.phase == QLatin1String("published") && pr.partitionsDone == 1)
                QVERIFY(f.db().exec(
                    QStringLiteral("UPDATE src SET note = 'y' WHERE dt = 'd3' AND id = 4")));
        };
        auto r = run(f.db(), f.dataset(), o);
        QVERIFY(!r);
        QCOMPARE(r.error().exitCode(), 4);
        QVERIFY2(r.error().message.contains(QStringLiteral("partition d3 changed")),
                 qPrintable(r.error().message));
        QCOMPARE(listRuns(f.db())->front().status, RunStatus::StalePlan);
        QCOMPARE(
            count(f.db(),
                  QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE status = 'done'")),
            2);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd3'")), d3);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd2' AND id = 9")),
            mode == QLatin1String("merge") ? 1 : 0);
    }

    // A run of many chunks into a target no index serves reads the target
    // through one copy of the run's partitions (SQLite), kept only while no
    // other connection commits: another session that empties d3 between
    // chunks makes the run copy d3 again, and the merge inserts its rows
    // (a stale copy would call them unchanged and leave d3 empty).
    void targetChangedBetweenChunksIsReadAgain_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("merge") << QStringLiteral("merge");
        QTest::newRow("overwrite") << QStringLiteral("overwrite_partition");
    }
    void targetChangedBetweenChunksIsReadAgain() {
        QFETCH(QString, mode);
        qputenv("REWIND_CHUNK_ROWS", "1"); // one partition per chunk
        const auto oneByOne = qScopeGuard([] { qunsetenv("REWIND_CHUNK_ROWS"); });
        Fixture f(spec(mode));
        auto other = Database::open(f.db().url().text);
        QVERIFY(other);
        BatchOptions o = execute();
        o.progress = [&](const Progress &pr) {
            if (pr.phase == QLatin1String("published") && pr.partitionsDone == 1)
                QVERIFY(other->exec(QStringLiteral("DELETE FROM tgt WHERE dt = 'd3'")));
        };
        auto r = run(f.db(), f.dataset(), o);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        QCOMPARE(part(*r, QStringLiteral("d3")).inserted, 2);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt"), QStringLiteral("dt = 'd3'")),
                 digest(f.db(), QStringLiteral("src"), QStringLiteral("dt = 'd3'")));
    }

    // The fingerprint is read on a second connection while the first stages;
    // a server that refuses that connection (here the role's connection
    // limit) still previews and runs, the fingerprint read on the one.
    void fingerprintWithoutASecondConnection() {
        if (!testsupport::onPostgres())
            QSKIP("PostgreSQL: a role limited to one connection");
        Fixture f(spec(QStringLiteral("merge")));
        const QString role =
            QStringLiteral("rw_tst_one_%1").arg(QCoreApplication::applicationPid());
        QVERIFY(f.db().execAll(
            {QStringLiteral("CREATE ROLE %1 LOGIN CONNECTION LIMIT 1").arg(role),
             QStringLiteral("GRANT ALL ON SCHEMA public, rewind TO %1").arg(role),
             QStringLiteral("GRANT ALL ON ALL TABLES IN SCHEMA public, rewind TO %1").arg(role),
             QStringLiteral("GRANT ALL ON ALL SEQUENCES IN SCHEMA public, rewind TO %1")
                 .arg(role)}));
        const auto dropRole = qScopeGuard([&] {
            (void)f.db().execAll({QStringLiteral("DROP OWNED BY %1").arg(role),
                                  QStringLiteral("DROP ROLE %1").arg(role)});
        });
        const rw::DatabaseUrl &u = f.db().url();
        const QString url = QStringLiteral("postgresql://%1@%2:%3/%4")
                                .arg(role, u.host)
                                .arg(u.port)
                                .arg(u.databaseName);
        {
            auto one = Database::open(url);
            QVERIFY2(one, qPrintable(one ? QString() : one.error().message));
            auto p = preview(*one, f.dataset(), {});
            QVERIFY2(p, qPrintable(p ? QString() : p.error().message));
            QCOMPARE(part(*p, QStringLiteral("d2")).sourceRows,
                     count(f.db(), QStringLiteral("SELECT COUNT(*) FROM src WHERE dt = 'd2'")));
            BatchOptions o = execute();
            o.planId = p->planId;
            auto r = run(*one, f.dataset(), o);
            QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
            QCOMPARE(r->status, RunStatus::Succeeded);
            QCOMPARE(part(*r, QStringLiteral("d2")).fingerprint,
                     part(*p, QStringLiteral("d2")).fingerprint);
        }
    }

    void planExecutesExactlyItsScope() {
        Fixture f(spec(QStringLiteral("merge")));
        BatchOptions p;
        p.scope.partitions = {QStringLiteral("d2")};
        auto planned = preview(f.db(), f.dataset(), p);
        QVERIFY(planned);
        BatchOptions o = execute();
        o.planId = planned->planId;
        auto r = run(f.db(), f.dataset(), o);
        QVERIFY(r);
        QCOMPARE(r->partitions.size(), std::size_t(1));
        QCOMPARE(r->partitions[0].partition.value_or(QString()), QStringLiteral("d2"));
    }

    void scopeErrors_data() {
        QTest::addColumn<QStringList>("partitions");
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown") << QStringList{QStringLiteral("d9")} << QString() << QString()
                                 << QStringLiteral("unknown partition \"d9\" of dataset \"sales\"");
        QTest::newRow("empty range")
            << QStringList{} << QStringLiteral("e1") << QStringLiteral("e9")
            << QStringLiteral("no partition of dataset \"sales\" lies between e1 and e9");
        QTest::newRow("reversed") << QStringList{} << QStringLiteral("d3") << QStringLiteral("d1")
                                  << QStringLiteral("--from d3 is after --to d1");
        QTest::newRow("half range") << QStringList{} << QStringLiteral("d1") << QString()
                                    << QStringLiteral("--from and --to go together");
    }

    void scopeErrors() {
        QFETCH(QStringList, partitions);
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, message);
        Fixture f(spec(QStringLiteral("merge")));
        BatchOptions o;
        o.scope.partitions = partitions;
        if (!from.isEmpty())
            o.scope.from = from;
        if (!to.isEmpty())
            o.scope.to = to;
        auto r = preview(f.db(), f.dataset(), o);
        QVERIFY(!r);
        QCOMPARE(r.error().exitCode(), 2);
        QVERIFY2(r.error().message.contains(message), qPrintable(r.error().message));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_plans")), 0);
    }

    void rangeScope() {
        Fixture f(spec(QStringLiteral("merge")));
        BatchOptions o;
        o.scope.from = QStringLiteral("d2");
        o.scope.to = QStringLiteral("d3");
        auto r = preview(f.db(), f.dataset(), o);
        QVERIFY(r);
        QCOMPARE(r->partitions.size(), std::size_t(2));
    }

    void samplesShowBeforeAndAfter() {
        Fixture f(spec(QStringLiteral("overwrite_partition")));
        BatchOptions o;
        o.samples = 5;
        o.scope.partitions = {QStringLiteral("d2")};
        auto r = preview(f.db(), f.dataset(), o);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        const auto &s = r->partitions[0].samples;
        QVERIFY(s.has_value());
        // (1,a), and (2,a) against each of its two target copies.
        QCOMPARE(s->updated.size(), std::size_t(3));
        QCOMPARE(s->updated[0].first.value(QStringLiteral("amount")).toDouble(), 60.0);  // before
        QCOMPARE(s->updated[0].second.value(QStringLiteral("amount")).toDouble(), 30.0); // after
        QCOMPARE(s->inserted.size(), std::size_t(1));
        QCOMPARE(s->deleted.size(), std::size_t(1)); // (9,z): no staged row has its key
        QCOMPARE(s->deleted[0].value(QStringLiteral("id")).toInt(), 9);
    }

    void unpartitionedAndNullPartitions() {
        Fixture f(spec(QStringLiteral("merge")),
                  {QStringLiteral("INSERT INTO src VALUES (5, 'e', NULL, 1, 'x', 't1')")});
        const QString specPath = testsupport::writeFile(
            f.dir, QStringLiteral("u.json"),
            R"({"datasets": {"whole": {"source": "src", "target": "whole_tgt", "key": ["id", "sub"], "order_by": "updated_at"},
                             "sales": {"source": "src", "target": "tgt", "partition_column": "dt", "key": ["id", "sub"], "order_by": "updated_at"}}})");
        auto ws = openWorkspace(f.db().url().text, specPath);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        // Unpartitioned: one partition, null, published whole, twice without change.
        for (int i = 0; i < 2; ++i) {
            auto r = run(ws->db, *ws->spec.dataset(QStringLiteral("whole")), execute());
            QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
            QVERIFY2(r->status == RunStatus::Succeeded,
                     qPrintable(rw::enumName(r->status) + u' ' + r->error));
            QCOMPARE(r->partitions.size(), std::size_t(1));
            QVERIFY(!r->partitions[0].partition.has_value());
            QCOMPARE(r->totals().inserted, i == 0 ? 5 : 0);
        }
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM whole_tgt")), 5);
        auto parts = listPartitions(ws->db, *ws->spec.dataset(QStringLiteral("whole")));
        QCOMPARE(parts->front().status, PartitionStatus::Loaded);
        // A NULL partition value is its own partition, published and tracked.
        auto r = run(ws->db, *ws->spec.dataset(QStringLiteral("sales")), execute());
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QVERIFY(!r->partitions.front().partition.has_value());
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt IS NULL")), 1);
        auto sales = listPartitions(ws->db, *ws->spec.dataset(QStringLiteral("sales")));
        QCOMPARE(sales->front().status, PartitionStatus::Loaded);
        QVERIFY(!sales->front().partition.has_value());
    }
};

QTEST_GUILESS_MAIN(TestBatch)
#include "tst_batch.moc"
