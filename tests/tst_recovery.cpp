// Undoing and repairing: rollback of merge and overwrite runs to exactly the
// rows before them, refusal when a later run built on them, duplicate
// reports, the freeze, and the guided recovery of a retry storm.
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

namespace {

QByteArray spec(const QString &write) {
    return QStringLiteral(
               R"({"datasets": {"sales": {"source": "src", "target": "tgt", "partition_column": "dt",
        "key": ["id", "sub"], "order_by": "updated_at", "write": "%1"}}})")
        .arg(write)
        .toUtf8();
}

// A table's rows as a multiset, independent of order.
QString digest(const Database &db, const QString &table) {
    auto q = db.exec(QStringLiteral("SELECT * FROM ") + db.quote(table));
    QStringList rows;
    while (q->next()) {
        QStringList cells;
        for (int i = 0; i < q->record().count(); ++i)
            cells << (q->value(i).isNull() ? QStringLiteral("<null>") : q->value(i).toString());
        rows << cells.join(u'|');
    }
    rows.sort();
    return QString::fromLatin1(
        QCryptographicHash::hash(rows.join(u'\n').toUtf8(), QCryptographicHash::Sha256).toHex());
}

qint64 count(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    return v ? v->toLongLong() : -1;
}

struct Fixture : testsupport::WorkspaceFixture {
    explicit Fixture(const QByteArray &specJson, const QStringList &warehouse = kWarehouse)
        : WorkspaceFixture(warehouse, specJson) {}
};

BatchOptions execute(QStringList partitions = {}) {
    BatchOptions o;
    o.execute = true;
    o.scope.partitions = std::move(partitions);
    return o;
}

qint64 runId(const Result<RunResult> &r) {
    return r->runId.toLongLong();
}

QJsonObject json(const QString &text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

// 4 days of orders with re-sent versions; the fact is the clean load, then a
// retry storm writes 30% of days 3 and 4 a second time.
QStringList retryStorm() {
    return {
        QStringLiteral("CREATE TABLE raw (order_id INTEGER, item_id INTEGER, dt TEXT, amount REAL, "
                       "qty BIGINT, updated_at TEXT)"),
        QStringLiteral(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 1999) "
            "INSERT INTO raw SELECT i / 2, i % 2 + 1, '2025-05-0' || (1 + i / 500), (i * 7919) % "
            "10000 / 100.0, 1 + i % 5, "
            "'2025-05-10T00:00:00Z' FROM n"),
        QStringLiteral("INSERT INTO raw SELECT order_id, item_id, dt, amount + 1.25, qty, "
                       "'2025-05-11T00:00:00Z' FROM raw WHERE order_id % 7 = 0"),
        QStringLiteral("CREATE TABLE fact (order_id INTEGER, item_id INTEGER, dt TEXT, amount "
                       "REAL, qty BIGINT, updated_at TEXT)"),
        QStringLiteral("INSERT INTO fact SELECT order_id, item_id, dt, amount, qty, updated_at "
                       "FROM (SELECT raw.*, ROW_NUMBER() OVER "
                       "(PARTITION BY order_id, item_id, dt ORDER BY updated_at DESC) AS rn FROM "
                       "raw) AS latest WHERE rn = 1"),
        QStringLiteral("CREATE TABLE clean AS SELECT * FROM fact"),
        QStringLiteral("INSERT INTO fact SELECT * FROM fact WHERE dt IN ('2025-05-03', "
                       "'2025-05-04') AND (order_id * 31 + item_id) % 10 < 3"),
    };
}

const QByteArray kStormSpec =
    R"({"datasets": {"sales": {"source": "raw", "target": "fact", "partition_column": "dt",
    "key": ["order_id", "item_id"], "order_by": "updated_at", "write": "merge"}}})";

} // namespace

class TestRecovery : public QObject {
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

    void recoverRetryStorm() {
        const QStringList warehouse = retryStorm();
        Fixture f(kStormSpec, warehouse);
        const qint64 extra = count(f.db(), QStringLiteral("SELECT COUNT(*) FROM fact")) -
                             count(f.db(), QStringLiteral("SELECT COUNT(*) FROM clean"));
        QVERIFY(extra > 100);
        const QString stormy = digest(f.db(), QStringLiteral("fact"));

        // Dry run: the incident and the plan, nothing changed.
        const auto dry = f.cli({QStringLiteral("recover"), QStringLiteral("--dataset"),
                                QStringLiteral("sales"), QStringLiteral("--json")});
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QJsonObject j = json(dry.out);
        QCOMPARE(j[QStringLiteral("executed")].toBool(), false);
        QCOMPARE(j[QStringLiteral("duplicate_keys")].toInteger(), extra);
        QCOMPARE(j[QStringLiteral("extra_rows")].toInteger(), extra);
        QCOMPARE(j[QStringLiteral("totals_match")].toBool(), false);
        QCOMPARE(j[QStringLiteral("unique_index_added")].toBool(), false);
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);

        // A --report that cannot be written is refused before anything is done.
        const auto badReport =
            f.cli({QStringLiteral("recover"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                   QStringLiteral("--execute"), QStringLiteral("--report"),
                   f.dir.filePath(QStringLiteral("no/such/dir/r.md"))});
        QCOMPARE(badReport.exitCode, 2);
        QVERIFY2(badReport.err.contains(QStringLiteral("--report")) &&
                     badReport.err.contains(QStringLiteral("no such directory")),
                 qPrintable(badReport.err));
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);

        const QString report = f.dir.filePath(QStringLiteral("incident.md"));
        const auto done = f.cli({QStringLiteral("recover"), QStringLiteral("--dataset"),
                                 QStringLiteral("sales"), QStringLiteral("--execute"),
                                 QStringLiteral("--report"), report, QStringLiteral("--json")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err + done.out));
        j = json(done.out);
        QCOMPARE(j[QStringLiteral("executed")].toBool(), true);
        QCOMPARE(j[QStringLiteral("duplicate_keys")].toInteger(), extra);
        QCOMPARE(j[QStringLiteral("totals_match")].toBool(), true);
        QCOMPARE(j[QStringLiteral("unique_index_added")].toBool(), true);
        const QJsonArray parts = j[QStringLiteral("partitions")].toArray();
        QCOMPARE(parts.size(), 2);
        QCOMPARE(parts.at(0).toObject()[QStringLiteral("partition")].toString(),
                 QStringLiteral("2025-05-03"));
        QCOMPARE(parts.at(1).toObject()[QStringLiteral("partition")].toString(),
                 QStringLiteral("2025-05-04"));
        QCOMPARE(j[QStringLiteral("report")].toString(), report);
        // Sums of integer columns are JSON integers, equal to the table's, on both engines
        // (PostgreSQL sums a bigint as numeric).
        // (Read from the text: QJsonDocument prints 15.0 as 15.)
        static const QRegularExpression qtyJson(QStringLiteral(
            "\"qty\":\\s*\\{\\s*\"source\":\\s*([^,\\s]+),\\s*\"target\":\\s*([^\\s}]+)"));
        const auto m = qtyJson.match(done.out);
        QVERIFY2(m.hasMatch(), qPrintable(done.out));
        const QString qtySum = QString::number(
            count(f.db(), QStringLiteral("SELECT SUM(qty) FROM clean WHERE dt = '2025-05-03'")));
        QCOMPARE(m.captured(1), qtySum);
        QCOMPARE(m.captured(2), qtySum);

        // The table is the clean load, row for row.
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        // The database now refuses a duplicate, whoever writes it.
        QVERIFY(!f.db().exec(
            QStringLiteral("INSERT INTO fact SELECT * FROM fact WHERE dt = '2025-05-01' LIMIT 1")));
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        for (const char *step : {"recover freeze", "recover identify", "recover rerun",
                                 "recover totals", "recover unique index", "recover unfreeze"})
            QVERIFY2(count(f.db(),
                           QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = '%1'")
                               .arg(QLatin1String(step))) == 1,
                     step);
        QFile md(report);
        QVERIFY(md.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(md.readAll());
        QVERIFY(text.contains(QStringLiteral("# Duplicate incident recovery: sales")));
        QVERIFY(text.contains(QStringLiteral("rewind_unique_fact")));

        // Rolling the re-run back would restore the duplicates the new index
        // forbids: refused up front, naming the index, nothing changed.
        const QString rerun = QString::number(j[QStringLiteral("run_id")].toInteger());
        for (const bool executed : {false, true}) {
            QStringList args{QStringLiteral("rollback"), QStringLiteral("--run"), rerun,
                             QStringLiteral("--json")};
            if (executed)
                args << QStringLiteral("--execute");
            const auto undo = f.cli(args);
            QCOMPARE(undo.exitCode, 2);
            QVERIFY2(undo.err.contains(QStringLiteral("rewind_unique_fact")), qPrintable(undo.err));
            QCOMPARE(digest(f.db(), QStringLiteral("fact")),
                     digest(f.db(), QStringLiteral("clean")));
        }
        QCOMPARE(
            count(f.db(),
                  QStringLiteral(
                      "SELECT COUNT(*) FROM rewind_audit WHERE action = 'rollback partition'")),
            0);

        // Recovering a clean dataset changes nothing more. On SQLite its
        // report goes next to the database, named by the second, never over
        // an earlier report of that second (stand-ins for the next seconds).
        QStringList args{QStringLiteral("recover"), QStringLiteral("--dataset"),
                         QStringLiteral("sales"), QStringLiteral("--execute"),
                         QStringLiteral("--json")};
        QStringList earlier;
        if (testsupport::onPostgres()) {
            args << QStringLiteral("--report") << report;
        } else {
            const QDateTime now = QDateTime::currentDateTimeUtc();
            for (int s = 0; s < 10; ++s) {
                earlier << f.dir.filePath(
                    QStringLiteral("recovery-sales-") +
                    now.addSecs(s).toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                    QStringLiteral(".md"));
                testsupport::writeFile(f.dir, QFileInfo(earlier.back()).fileName(),
                                       "earlier report\n");
            }
        }
        const auto again = f.cli(args);
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(json(again.out)[QStringLiteral("duplicate_keys")].toInteger(), 0);
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        if (!earlier.isEmpty()) {
            const QString written = json(again.out)[QStringLiteral("report")].toString();
            QVERIFY2(written.endsWith(QStringLiteral("-2.md")) &&
                         QFileInfo(written).absolutePath() ==
                             QFileInfo(earlier.front()).absolutePath(),
                     qPrintable(written));
            QFile second(written);
            QVERIFY(second.open(QIODevice::ReadOnly));
            QVERIFY(second.readAll().startsWith("# Duplicate incident recovery: sales"));
            for (const QString &path : earlier) {
                QFile kept(path);
                QVERIFY(kept.open(QIODevice::ReadOnly));
                QCOMPARE(kept.readAll(), QByteArray("earlier report\n"));
            }
        }
    }

    // A recovery killed mid-re-run (the first partition published, the
    // second not) leaves the freeze standing: other writers and Rewind's own
    // runs are refused. `resume` on its run finishes the re-run under that
    // freeze and then the recovery: totals, unique index, unfreeze.
    void crashMidRecoveryThenResume() {
        Fixture f(kStormSpec, retryStorm());
        qputenv("REWIND_CHUNK_ROWS", "1"); // a chunk per partition, for the child
        const auto killed = testsupport::runRewindctl(
            QStringList{QStringLiteral("recover"), QStringLiteral("--dataset"),
                        QStringLiteral("sales"), QStringLiteral("--execute")} +
                f.args(),
            QStringLiteral("after-commit:1"));
        qunsetenv("REWIND_CHUNK_ROWS");
        QVERIFY2(killed.crashed, killed.err.constData());
        const QString clean03 = QStringLiteral("SELECT COUNT(*) FROM clean WHERE dt = '%1'");
        const QString fact03 = QStringLiteral("SELECT COUNT(*) FROM fact WHERE dt = '%1'");
        QCOMPARE(count(f.db(), fact03.arg(QStringLiteral("2025-05-03"))),
                 count(f.db(), clean03.arg(QStringLiteral("2025-05-03"))));
        QVERIFY(count(f.db(), fact03.arg(QStringLiteral("2025-05-04"))) >
                count(f.db(), clean03.arg(QStringLiteral("2025-05-04"))));
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_frozen WHERE dataset = 'sales'")),
                 1);
        auto other = f.db().exec(QStringLiteral("DELETE FROM fact WHERE dt = '2025-05-04'"));
        QVERIFY(!other);
        QVERIFY2(other.error().message.contains(QStringLiteral("fact is frozen by Rewind")),
                 qPrintable(other.error().message));
        const auto run = f.cli({QStringLiteral("run"), QStringLiteral("--dataset"),
                                QStringLiteral("sales"), QStringLiteral("--execute")});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains(QStringLiteral("frozen")), qPrintable(run.err));

        const QJsonArray runs = json(f.cli({QStringLiteral("runs"), QStringLiteral("--json")})
                                         .out)[QStringLiteral("runs")]
                                    .toArray();
        QCOMPARE(runs.size(), 1);
        const QJsonObject cut = runs.at(0).toObject();
        QCOMPARE(cut[QStringLiteral("kind")].toString(), QStringLiteral("recover"));
        QCOMPARE(cut[QStringLiteral("status")].toString(), QStringLiteral("interrupted"));

        const auto resumed = f.cli({QStringLiteral("resume"), QStringLiteral("--run"),
                                    QString::number(cut[QStringLiteral("run_id")].toInteger()),
                                    QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
        const QJsonObject j = json(resumed.out);
        QCOMPARE(j[QStringLiteral("status")].toString(), QStringLiteral("succeeded"));
        QCOMPARE(j[QStringLiteral("mode")].toString(),
                 QStringLiteral("overwrite_partition")); // as the recovery planned it, not merge
        const QJsonObject recovery = j[QStringLiteral("recovery")].toObject();
        QCOMPARE(recovery[QStringLiteral("status")].toString(), QStringLiteral("recovered"));
        QCOMPARE(recovery[QStringLiteral("totals_match")].toBool(), true);
        QCOMPARE(recovery[QStringLiteral("unique_index_added")].toBool(), true);
        QVERIFY(QFileInfo::exists(recovery[QStringLiteral("report")].toString()));
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        QVERIFY(f.db().exec(QStringLiteral(
            "UPDATE fact SET qty = qty WHERE dt = '2025-05-04'"))); // the freeze is lifted
        QCOMPARE(count(f.db(),
                       QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_audit WHERE action = 'recover unfreeze'")),
                 1);
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_runs WHERE status = 'succeeded'")),
                 1);
        // Resuming it again is refused, and changes nothing: no freeze taken, no audit row.
        const qint64 audited = count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_audit"));
        const auto twice = f.cli({QStringLiteral("resume"), QStringLiteral("--run"),
                                  QString::number(cut[QStringLiteral("run_id")].toInteger()),
                                  QStringLiteral("--execute")});
        QCOMPARE(twice.exitCode, 2);
        QVERIFY2(twice.err.contains(QStringLiteral("already succeeded")), qPrintable(twice.err));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_audit")), audited);
    }

    void recoverStepByStep() {
        // The wizard's path: plan, then each step on its own, with the
        // re-run locked to its preview.
        Fixture f(kStormSpec, retryStorm());
        const qint64 extra = count(f.db(), QStringLiteral("SELECT COUNT(*) FROM fact")) -
                             count(f.db(), QStringLiteral("SELECT COUNT(*) FROM clean"));
        const QString stormy = digest(f.db(), QStringLiteral("fact"));
        auto recovery = Recovery::open(f.db(), f.dataset());
        QVERIFY2(recovery, qPrintable(recovery ? QString() : recovery.error().message));
        QVERIFY(recovery->plan(3));
        const RecoveryResult *plan = &recovery->result();
        QCOMPARE(plan->before.extraRows, extra);
        QCOMPARE(plan->scopeLabels,
                 (QStringList{QStringLiteral("2025-05-03"), QStringLiteral("2025-05-04")}));
        QCOMPARE(plan->before.samples.size(), std::size_t(3));
        QCOMPARE(plan->totalsBefore.size(), std::size_t(2));
        QVERIFY(!plan->totalsBefore[0].match);
        auto planned = recovery->plannedSteps();
        QVERIFY(planned);
        QCOMPARE(planned->size(), std::size_t(6));
        QVERIFY(planned->at(4).detail.startsWith(
            QStringLiteral("CREATE UNIQUE INDEX rewind_unique_fact")));
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);

        const RecoveryResult &r = recovery->result();
        // Out of order is refused and changes nothing.
        QCOMPARE(recovery->rerun().error().code, Error::Code::BadInput);
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);

        QVERIFY(recovery->freeze());
        QCOMPARE(count(f.db(), QStringLiteral(
                                   "SELECT COUNT(*) FROM rewind_frozen WHERE dataset = 'sales'")),
                 1);
        QVERIFY(recovery->identify(true, 3));
        QCOMPARE(r.before.extraRows, extra);

        auto preview = recovery->previewRerun(2);
        QVERIFY2(preview, qPrintable(preview ? QString() : preview.error().message));
        QCOMPARE(preview->partitions.size(), std::size_t(2));
        QCOMPARE(enumName(preview->mode), QStringLiteral("overwrite_partition"));
        // Staged: one row per key of the clean load; the stormy extras go.
        QCOMPARE(preview->totals().stagedRows,
                 count(f.db(),
                       QStringLiteral(
                           "SELECT COUNT(*) FROM clean WHERE dt IN ('2025-05-03', '2025-05-04')")));
        QVERIFY(preview->totals().duplicatesDropped > 0); // the re-sent versions in the source
        QVERIFY(preview->totals().deleted > 0);
        QCOMPARE(digest(f.db(), QStringLiteral("fact")), stormy);

        // A source change after the preview: the locked re-run is refused
        // without failing the recovery; a fresh preview goes through.
        QVERIFY(
            f.db().exec(QStringLiteral("UPDATE raw SET amount = amount WHERE dt = '2025-05-03'")));
        QVERIFY(f.db().exec(QStringLiteral(
            "INSERT INTO raw VALUES (9999, 1, '2025-05-03', 5, 1, '2025-05-12T00:00:00Z')")));
        RecoveryRerunOptions locked;
        locked.planId = preview->planId;
        const Status stale = recovery->rerun(locked);
        QVERIFY(!stale);
        QCOMPARE(stale.error().code, Error::Code::StalePlan);
        QVERIFY(!r.failed());
        QVERIFY(f.db().exec(QStringLiteral("DELETE FROM raw WHERE order_id = 9999")));
        preview = recovery->previewRerun();
        QVERIFY(preview);
        locked.planId = preview->planId;
        int progressCalls = 0;
        locked.progress = [&](const Progress &) { ++progressCalls; };
        QVERIFY(recovery->rerun(locked));
        QVERIFY(progressCalls > 0);
        QVERIFY(!r.rerunId.isNull());
        QCOMPARE(r.step(RecoveryStep::Rerun)->status, RecoveryStepStatus::Done);

        QVERIFY(recovery->totals());
        QVERIFY(r.totalsMatch);
        QCOMPARE(r.totals.size(), std::size_t(2));
        QVERIFY(recovery->uniqueIndex());
        QCOMPARE(r.status, RecoveryStatus::Recovered);
        QVERIFY(r.uniqueIndexAdded);
        QCOMPARE(r.after->duplicateKeys, 0);

        QCOMPARE(digest(f.db(), QStringLiteral("fact")), digest(f.db(), QStringLiteral("clean")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        QVERIFY(!f.db().exec(
            QStringLiteral("INSERT INTO fact SELECT * FROM fact WHERE dt = '2025-05-01' LIMIT 1")));
        for (const char *step : {"recover freeze", "recover identify", "recover rerun",
                                 "recover totals", "recover unique index", "recover unfreeze"})
            QVERIFY2(count(f.db(),
                           QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = '%1'")
                               .arg(QLatin1String(step))) == 1,
                     step);
        const QString md = recoveryReportMarkdown(r);
        QVERIFY(md.contains(QStringLiteral("| rerun | done |")));
        QVERIFY(md.contains(QString::number(extra)));
        // The console's copy stops each per-partition table after the first
        // partitions and says how many it leaves out; the saved one has all.
        QVERIFY(r.before.partitions.size() >= 2);
        const QString capped = recoveryReportMarkdown(r, 1);
        const QString second = partitionLabel(r.before.partitions.at(1).partition);
        QVERIFY(md.contains(QStringLiteral("| %1 |").arg(second)));
        QVERIFY2(!capped.contains(QStringLiteral("| %1 |").arg(second)), qPrintable(capped));
        QVERIFY(capped.contains(
            QStringLiteral("... and %1 more partition(s)").arg(r.before.partitions.size() - 1)));
        QVERIFY(!md.contains(QStringLiteral("more partition(s)")));
        QVERIFY(capped.contains(QStringLiteral("| rerun | done |")));
    }

    void recoverStepsStopAfterAFailure() {
        // A NULL key: step 5 fails, the dataset stays frozen, nothing after runs.
        Fixture f(spec(QStringLiteral("merge")));
        auto recovery = Recovery::open(f.db(), f.dataset());
        QVERIFY(recovery);
        QVERIFY(recovery->plan());
        const RecoveryResult &r = recovery->result();
        QVERIFY(recovery->freeze());
        QVERIFY(recovery->identify());
        QVERIFY(recovery->rerun());
        QVERIFY(recovery->totals());
        QVERIFY(recovery->uniqueIndex());
        QVERIFY(r.failed());
        QVERIFY(r.leftFrozen);
        QVERIFY(r.error.contains(QStringLiteral("NULL")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 1);
        QCOMPARE(recovery->uniqueIndex().error().code, Error::Code::BadInput);
    }

    void recoverRefusesAnIneffectiveIndex() {
        // A NULL key column: a unique index would not stop duplicates of it.
        Fixture f(spec(QStringLiteral("merge")));
        const auto r =
            f.cli({QStringLiteral("recover"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                   QStringLiteral("--execute"), QStringLiteral("--report"),
                   f.dir.filePath(QStringLiteral("r.md")), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 1);
        const QJsonObject j = json(r.out);
        QCOMPARE(j[QStringLiteral("unique_index_added")].toBool(), false);
        QVERIFY2(j[QStringLiteral("error")].toString().contains(QStringLiteral("NULL")),
                 qPrintable(r.out));
        // The duplicates are gone; the dataset stays frozen for the operator to decide.
        QCOMPARE(
            count(f.db(), QStringLiteral("SELECT COUNT(*) FROM tgt WHERE dt = 'd2' AND id = 2")),
            1);
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 1);
    }
};

QTEST_GUILESS_MAIN(TestRecovery)
#include "tst_recovery.moc"
