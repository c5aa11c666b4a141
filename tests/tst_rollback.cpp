// Undoing: rollback of merge and overwrite runs to exactly the rows before
// them, refusal when a later run built on them, pruning of before-images,
// duplicate reports and the freeze (the guided recovery: tst_recovery).
#include "core/batch/batch.h"
#include "core/batch/partitions.h"
#include "core/batch/prune.h"
#include "core/batch/rollback.h"
#include "core/batch/runs.h"
#include "core/recovery/recovery.h"
#include "core/util/failpoint.h"
#include "core/workspace/workspace.h"
#include "tests/recoveryfixture.h"
#include "tests/testsupport.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSqlRecord>
#include <QTest>

using namespace rw;
using namespace recoverytest;

class TestRollback : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void rollbackRestoresExactly_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QStringList>("partitions"); // none: all three
        QTest::addColumn<bool>("indexed");
        QTest::newRow("merge") << QStringLiteral("merge") << QStringList() << false;
        QTest::newRow("overwrite")
            << QStringLiteral("overwrite_partition") << QStringList() << false;
        // One partition into an indexed target: on PostgreSQL the stage is
        // written joined to the target, and the before-images come from that
        // join (d2: a key the target holds three times, a NULL key).
        QTest::newRow("merge, one partition, indexed target")
            << QStringLiteral("merge") << QStringList{QStringLiteral("d2")} << true;
        QTest::newRow("overwrite, indexed target")
            << QStringLiteral("overwrite_partition") << QStringList() << true;
    }

    void rollbackRestoresExactly() {
        QFETCH(QString, mode);
        QFETCH(QStringList, partitions);
        QFETCH(bool, indexed);
        Fixture f(spec(mode), indexed
                                  ? kWarehouse + QStringList{QStringLiteral(
                                                     "CREATE INDEX tgt_key ON tgt (dt, id, sub)")}
                                  : kWarehouse);
        const qsizetype parts = partitions.isEmpty() ? 3 : partitions.size();
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        auto r = run(f.db(), f.dataset(), execute(partitions));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        const QString after = digest(f.db(), QStringLiteral("tgt"));
        QVERIFY(after != before);

        // The dry run shows what would come back and changes nothing.
        const auto dry = f.cli({QStringLiteral("rollback"), QStringLiteral("--run"),
                                QString::number(runId(r)), QStringLiteral("--json")});
        QCOMPARE(dry.exitCode, 0);
        const QJsonObject plan = json(dry.out);
        QCOMPARE(plan[QStringLiteral("executed")].toBool(), false);
        QCOMPARE(plan[QStringLiteral("partitions")].toArray().size(), parts);
        QVERIFY(
            plan[QStringLiteral("totals")].toObject()[QStringLiteral("rows_restored")].toInteger() >
            0);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), after);

        const auto done =
            f.cli({QStringLiteral("rollback"), QStringLiteral("--run"), QString::number(runId(r)),
                   QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err));
        QCOMPARE(json(done.out)[QStringLiteral("status")].toString(),
                 QStringLiteral("rolled_back"));
        // Row for row the table before the run, the retried duplicate included.
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd2' AND id = 2")),
            3);
        QCOMPARE(loadRun(f.db(), runId(r))->status, RunStatus::RolledBack);
        QCOMPARE(
            count(f.db(),
                  QStringLiteral(
                      "SELECT COUNT(*) FROM rewind_audit WHERE action = 'rollback partition'")),
            parts);
        // Twice is refused, and a rolled-back run cannot be resumed.
        QCOMPARE(f.cli({QStringLiteral("rollback"), QStringLiteral("--run"),
                        QString::number(runId(r)), QStringLiteral("--execute")})
                     .exitCode,
                 2);
        // A new run after the rollback behaves as the first one did.
        QVERIFY(run(f.db(), f.dataset(), execute(partitions)));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), after);
    }

    // Days the target does not hold yet, into an indexed target: nothing is
    // matched (the publish inserts every staged row) and the before-images
    // keep only the keys; the rows are the deduped source's, the rollback
    // removes exactly them, and a second run finds them unchanged.
    void backfillOfEmptyDaysRollsBack() {
        QStringList warehouse = kWarehouse;
        warehouse << QStringLiteral("DELETE FROM tgt WHERE dt <> 'd1'")
                  << QStringLiteral("CREATE INDEX tgt_key ON tgt (dt, id, sub)");
        Fixture f(spec(QStringLiteral("merge")), warehouse);
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        auto r = run(f.db(), f.dataset(), execute({QStringLiteral("d2"), QStringLiteral("d3")}));
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        QCOMPARE(r->totals().inserted, 5);
        QCOMPARE(r->totals().updated, 0);
        // d2: ids 1, 2 and (3, NULL); d3: ids 1 and 4, each as the source holds it.
        QCOMPARE(
            count(f.db(),
                  QStringLiteral(
                      "SELECT COUNT(*) FROM tgt AS t JOIN src AS s ON s.id = t.id AND s.dt = t.dt "
                      "AND (s.sub = t.sub OR (s.sub IS NULL AND t.sub IS NULL)) AND s.amount = "
                      "t.amount "
                      "WHERE t.dt IN ('d2', 'd3')")),
            5);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt")), 7);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_images_sales WHERE "
                                              "rewind_op = 'inserted' AND amount IS NULL")),
                 5);

        auto again =
            run(f.db(), f.dataset(), execute({QStringLiteral("d2"), QStringLiteral("d3")}));
        QVERIFY(again);
        QCOMPARE(again->totals().unchanged, 5);
        QCOMPARE(again->totals().inserted, 0);

        auto undone = rollback(f.db(), f.ws->spec, runId(r), true);
        QVERIFY2(!undone, "the later run must be rolled back first");
        QVERIFY(rollback(f.db(), f.ws->spec, runId(again), true));
        auto first = rollback(f.db(), f.ws->spec, runId(r), true);
        QVERIFY2(first, qPrintable(first ? QString() : first.error().message));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
    }

    // An unpartitioned dataset publishes its one (NULL) partition: its
    // rollback marks that checkpoint rolled back (it used to match no row,
    // leaving the run's checkpoint done), so the run shows nothing published
    // and a second rollback finds nothing to restore.
    void rollbackOfTheNullPartitionMarksItsCheckpoint() {
        Fixture f(QByteArrayLiteral(
            R"({"datasets": {"sales": {"source": "src", "target": "tgt",
            "key": ["id", "sub", "dt"], "order_by": "updated_at", "write": "merge"}}})"));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        auto r = run(f.db(), f.dataset(), execute());
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->status, RunStatus::Succeeded);
        QVERIFY(digest(f.db(), QStringLiteral("tgt")) != before);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE "
                                              "part_is_null = 1 AND status = 'done'")),
                 1);
        auto undone = rollback(f.db(), f.ws->spec, runId(r), true);
        QVERIFY2(undone, qPrintable(undone ? QString() : undone.error().message));
        QCOMPARE(undone->status, RollbackStatus::RolledBack);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE "
                                              "part_is_null = 1 AND status = 'rolled_back'")),
                 1);
        QVERIFY(loadRun(f.db(), runId(r))->done.isEmpty());
    }

    void rollbackRefusedAfterLaterRun() {
        Fixture f(spec(QStringLiteral("merge")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        auto first = run(f.db(), f.dataset(), execute());
        QVERIFY(first);
        QVERIFY(f.db().exec(QStringLiteral("UPDATE src SET amount = amount + 1 WHERE dt = 'd3'")));
        auto second = run(f.db(), f.dataset(), execute({QStringLiteral("d3")}));
        QVERIFY(second);
        const QString afterSecond = digest(f.db(), QStringLiteral("tgt"));

        const auto refused = f.cli({QStringLiteral("rollback"), QStringLiteral("--run"),
                                    QString::number(runId(first)), QStringLiteral("--execute"),
                                    QStringLiteral("--json")});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("run %1").arg(runId(second))),
                 qPrintable(refused.err));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), afterSecond);

        // Undo the later run first, then the earlier one: back to the start.
        QVERIFY(rollback(f.db(), f.ws->spec, runId(second), true));
        auto r = rollback(f.db(), f.ws->spec, runId(first), true);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
    }

    // prune drops the before-images of old finished runs: a dry run changes
    // nothing; --execute deletes exactly those runs' image rows, marks them
    // and audits each; their rollback is then refused, a kept run's still
    // works. A run that may still be resumed keeps its images.
    void pruneDropsOldImages() {
        Fixture f(spec(QStringLiteral("merge")));
        auto first = run(f.db(), f.dataset(), execute());
        QVERIFY(first);
        const QString afterFirst = digest(f.db(), QStringLiteral("tgt"));
        QVERIFY(f.db().exec(QStringLiteral("UPDATE src SET amount = amount + 1 WHERE dt = 'd3'")));
        auto second = run(f.db(), f.dataset(), execute({QStringLiteral("d3")}));
        QVERIFY(second);
        const QString afterSecond = digest(f.db(), QStringLiteral("tgt"));
        const auto imagesOf = [&](qint64 id) {
            return count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_images_sales WHERE "
                                                "rewind_run_id = %1")
                                     .arg(id));
        };
        const qint64 firstImages = imagesOf(runId(first)), secondImages = imagesOf(runId(second));
        QVERIFY(firstImages > 0);
        QVERIFY(secondImages > 0);

        const QStringList prune{QStringLiteral("prune"), QStringLiteral("--dataset"),
                                QStringLiteral("sales"), QStringLiteral("--json")};
        const auto dry = f.cli(prune + QStringList{QStringLiteral("--keep"), QStringLiteral("1")});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        const QJsonObject plan = json(dry.out);
        QCOMPARE(plan[QStringLiteral("executed")].toBool(), false);
        const QJsonArray planned = plan[QStringLiteral("runs")].toArray();
        QCOMPARE(planned.size(), 1);
        QCOMPARE(planned[0].toObject()[QStringLiteral("run_id")].toInteger(), runId(first));
        QCOMPARE(planned[0].toObject()[QStringLiteral("image_rows")].toInteger(), firstImages);
        QCOMPARE(imagesOf(runId(first)), firstImages);

        // Bad input names the culprit and changes nothing.
        const auto bad =
            f.cli(prune + QStringList{QStringLiteral("--before"), QStringLiteral("yesterday-ish"),
                                      QStringLiteral("--execute")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("yesterday-ish")), qPrintable(bad.err));
        QCOMPARE(f.cli(prune + QStringList{QStringLiteral("--execute")}).exitCode, 2);
        QCOMPARE(imagesOf(runId(first)), firstImages);
        // Nothing finished before 2000.
        const auto none =
            f.cli(prune + QStringList{QStringLiteral("--before"), QStringLiteral("2000-01-01"),
                                      QStringLiteral("--execute")});
        QCOMPARE(none.exitCode, 0);
        QCOMPARE(json(none.out)[QStringLiteral("runs")].toArray().size(), 0);

        const auto done = f.cli(prune + QStringList{QStringLiteral("--keep"), QStringLiteral("1"),
                                                    QStringLiteral("--execute")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err));
        QCOMPARE(json(done.out)[QStringLiteral("totals")]
                     .toObject()[QStringLiteral("image_rows")]
                     .toInteger(),
                 firstImages);
        QCOMPARE(imagesOf(runId(first)), 0);
        QCOMPARE(imagesOf(runId(second)), secondImages);
        QVERIFY(!loadRun(f.db(), runId(first))->imagesPrunedAt.isEmpty());
        QVERIFY(loadRun(f.db(), runId(second))->imagesPrunedAt.isEmpty());
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = "
                                              "'prune images' AND run_id = %1")
                                   .arg(runId(first))),
                 1);
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), afterSecond);

        // The kept run rolls back; the pruned one is refused, naming why.
        QVERIFY(rollback(f.db(), f.ws->spec, runId(second), true));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), afterFirst);
        const auto refused = f.cli({QStringLiteral("rollback"), QStringLiteral("--run"),
                                    QString::number(runId(first)), QStringLiteral("--execute")});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("pruned")), qPrintable(refused.err));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), afterFirst);

        // A failed run can be resumed: its images stay, whatever the limits.
        QVERIFY(f.db().exec(QStringLiteral("UPDATE src SET amount = amount + 1 WHERE dt = 'd2'")));
        auto third = run(f.db(), f.dataset(), execute({QStringLiteral("d2")}));
        QVERIFY(third);
        QVERIFY(f.db().exec(QStringLiteral("UPDATE rewind_runs SET status = 'failed' WHERE "
                                           "run_id = %1")
                                .arg(runId(third))));
        const auto all = f.cli(prune + QStringList{QStringLiteral("--keep"), QStringLiteral("0"),
                                                   QStringLiteral("--execute")});
        QCOMPARE(all.exitCode, 0);
        const QJsonArray pruned = json(all.out)[QStringLiteral("runs")].toArray();
        QCOMPARE(pruned.size(), 1); // the rolled-back second run; the first was pruned already
        QCOMPARE(pruned[0].toObject()[QStringLiteral("run_id")].toInteger(), runId(second));
        QCOMPARE(pruned[0].toObject()[QStringLiteral("status")].toString(),
                 QStringLiteral("rolled_back"));
        QVERIFY(imagesOf(runId(third)) > 0);
    }

    // A prune of a run that commits while the run is being rolled back
    // stops the rollback at its next partition: those not yet restored keep
    // the run's rows (an overwrite restored from images that are gone would
    // be emptied).
    void pruneDuringRollbackStopsIt() {
        Fixture f(spec(QStringLiteral("overwrite_partition")));
        auto r = run(f.db(), f.dataset(), execute());
        QVERIFY(r);
        QCOMPARE(r->status, RunStatus::Succeeded);
        const auto d1Rows = [&] {
            return testsupport::digest(f.db().url().text,
                                       QStringLiteral("SELECT * FROM tgt WHERE dt = 'd1'"));
        };
        const QString d1 = d1Rows();
        auto other = Database::open(f.db().url().text);
        QVERIFY(other);
        int restored = 0;
        setFailpointHook([&](const char *name) {
            if (qstrcmp(name, "after-rollback-partition") != 0 || ++restored != 1)
                return;
            PruneOptions o;
            o.dataset = QStringLiteral("sales");
            o.keep = 0;
            o.execute = true;
            auto pruned = pruneImages(*other, f.ws->spec, o);
            QVERIFY2(pruned && pruned->runs.size() == 1,
                     qPrintable(pruned ? QString() : pruned.error().message));
        });
        const auto unhook = qScopeGuard([] { setFailpointHook({}); });
        auto undone = rollback(f.db(), f.ws->spec, runId(r), true);
        QVERIFY(!undone);
        QCOMPARE(undone.error().code, Error::Code::BadInput);
        QVERIFY2(undone.error().message.contains(QStringLiteral("pruned")),
                 qPrintable(undone.error().message));
        QCOMPARE(restored, 1);
        // Latest first: d3 was restored, d1 still holds what the run wrote.
        QCOMPARE(d1Rows(), d1);
        QVERIFY(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd1'")) > 0);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE "
                                              "status = 'done' AND run_id = %1")
                                   .arg(runId(r))),
                 2);
    }

    void duplicatesPerPartitionNullSafe() {
        Fixture f(spec(QStringLiteral("merge")),
                  kWarehouse +
                      QStringList{QStringLiteral("INSERT INTO tgt VALUES (5, NULL, 'd3', 1, 'x', "
                                                 "'t1'), (5, NULL, 'd3', 2, 'x', 't2')")});
        auto d = findDuplicates(f.db(), f.dataset(), 10);
        QVERIFY(d);
        QCOMPARE(d->duplicateKeys, 2);
        QCOMPARE(d->extraRows, 3);
        QCOMPARE(d->partitions.size(), std::size_t(2));
        QCOMPARE(d->partitions[0].partition, std::optional<QString>(QStringLiteral("d2")));
        QCOMPARE(d->partitions[0].extraRows, 2);
        QCOMPARE(d->partitions[1].duplicateKeys, 1);
        const auto out = f.cli({QStringLiteral("duplicates"), QStringLiteral("--dataset"),
                                QStringLiteral("sales"), QStringLiteral("--json")});
        QCOMPARE(out.exitCode, 0);
        const QJsonObject j = json(out.out);
        QCOMPARE(j[QStringLiteral("duplicate_keys")].toInteger(), 2);
        QCOMPARE(j[QStringLiteral("extra_rows")].toInteger(), 3);
        QCOMPARE(j[QStringLiteral("partitions")]
                     .toArray()
                     .at(0)
                     .toObject()[QStringLiteral("partition")]
                     .toString(),
                 QStringLiteral("d2"));
        QCOMPARE(j[QStringLiteral("samples")].toArray().size(), 2);
    }

    void freezeIsHonoured() {
        Fixture f(spec(QStringLiteral("merge")));
        const QString before = digest(f.db(), QStringLiteral("tgt"));
        // A dry run changes nothing.
        QCOMPARE(
            f.cli({QStringLiteral("freeze"), QStringLiteral("--dataset"), QStringLiteral("sales")})
                .exitCode,
            0);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        const auto frozen =
            f.cli({QStringLiteral("freeze"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                   QStringLiteral("--reason"), QStringLiteral("incident 42"),
                   QStringLiteral("--execute"), QStringLiteral("--json")});
        QCOMPARE(frozen.exitCode, 0);
        QCOMPARE(json(frozen.out)[QStringLiteral("frozen")].toBool(), true);

        const auto refused = f.cli({QStringLiteral("run"), QStringLiteral("--dataset"),
                                    QStringLiteral("sales"), QStringLiteral("--execute")});
        QVERIFY(refused.exitCode != 0);
        QVERIFY(refused.err.contains(QStringLiteral("frozen")));
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        // The freeze holds in the database: another writer's INSERT, UPDATE
        // and DELETE (here plain statements outside Rewind's write
        // transactions) are refused, naming the freeze and how to lift it.
        for (const char *write :
             {"INSERT INTO tgt SELECT * FROM tgt", "UPDATE tgt SET id = id", "DELETE FROM tgt"}) {
            auto w = f.db().exec(QString::fromLatin1(write));
            QVERIFY2(!w, write);
            QVERIFY2(w.error().message.contains(
                         QStringLiteral("tgt is frozen by Rewind (dataset sales, incident 42)")) &&
                         w.error().message.contains(
                             QStringLiteral("rewindctl unfreeze --dataset sales")),
                     qPrintable(w.error().message));
        }
        QCOMPARE(digest(f.db(), QStringLiteral("tgt")), before);
        // partitions says so: who froze it, when, why.
        const QJsonObject shown =
            json(f.cli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                        QStringLiteral("sales"), QStringLiteral("--json")})
                     .out);
        QCOMPARE(shown[QStringLiteral("frozen")].toObject()[QStringLiteral("reason")].toString(),
                 QStringLiteral("incident 42"));
        QVERIFY(f.cli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                       QStringLiteral("sales")})
                    .out.contains(QStringLiteral("FROZEN since")));
        // A preview still works: it writes no data.
        QCOMPARE(
            f.cli({QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("sales")})
                .exitCode,
            0);

        QCOMPARE(f.cli({QStringLiteral("unfreeze"), QStringLiteral("--dataset"),
                        QStringLiteral("sales"), QStringLiteral("--execute")})
                     .exitCode,
                 0);
        QVERIFY(f.db().exec(
            QStringLiteral("UPDATE tgt SET id = id"))); // lifted: other writers write again
        QVERIFY(json(f.cli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                            QStringLiteral("sales"), QStringLiteral("--json")})
                         .out)[QStringLiteral("frozen")]
                    .isNull());
        QCOMPARE(f.cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                        QStringLiteral("--execute")})
                     .exitCode,
                 0);
        QVERIFY(digest(f.db(), QStringLiteral("tgt")) != before);
        QCOMPARE(
            count(f.db(),
                  QStringLiteral(
                      "SELECT COUNT(*) FROM rewind_audit WHERE action IN ('freeze', 'unfreeze')")),
            2);
    }
};

QTEST_GUILESS_MAIN(TestRollback)
#include "tst_rollback.moc"
