// Scopes of many partitions, as an operator previews a year of days or a
// dataset of thousands (issue 29): samples read for all of them at once and
// capped, and plans stored compactly yet executed exactly.
#include "core/batch/batch.h"
#include "core/workspace/workspace.h"
#include "tests/batchfixture.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace rw;
using namespace batchtest;

namespace {

// 150 days of 4 rows, published as the source has them but days 140-145
// (their values negated).
Result<Workspace> manyDays(QTemporaryDir &dir, const QString &textPartitions = QString()) {
    const QString dt = textPartitions.isEmpty()
                           ? QStringLiteral("i / 4")
                           : QStringLiteral("'d' || CAST(1000 + i / 4 AS TEXT)");
    auto db = testsupport::makeDatabase(
        dir, QStringLiteral("s.db"),
        {
            QStringLiteral("CREATE TABLE src (id INTEGER, dt %1, v REAL)")
                .arg(textPartitions.isEmpty() ? QStringLiteral("INTEGER") : QStringLiteral("TEXT")),
            QStringLiteral(
                "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 599) "
                "INSERT INTO src SELECT i % 4, %1, i FROM n")
                .arg(dt),
            QStringLiteral("CREATE TABLE tgt AS SELECT * FROM src"),
            QStringLiteral("UPDATE tgt SET v = -v WHERE dt IN (SELECT DISTINCT dt FROM src ORDER "
                           "BY dt LIMIT 6 OFFSET 140)"),
        });
    const QString specPath = testsupport::writeFile(
        dir, QStringLiteral("s.json"),
        R"({"datasets": {"s": {"source": "src", "target": "tgt", "partition_column": "dt", "key": ["id"], "write": "merge"}}})");
    return openWorkspace(db.url().text, specPath);
}

} // namespace

class TestManyPartitions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    // Samples of many partitions are read in one statement a category: each
    // partition gets the rows its own one-partition preview shows, before
    // and after included.
    void samplesOfManyPartitionsAreEachPartitionsOwn_data() {
        QTest::addColumn<QString>("mode");
        QTest::newRow("merge") << QStringLiteral("merge");
        QTest::newRow("overwrite") << QStringLiteral("overwrite_partition");
    }
    void samplesOfManyPartitionsAreEachPartitionsOwn() {
        QFETCH(QString, mode);
        Fixture f(spec(mode));
        BatchOptions all;
        all.samples = 5;
        auto whole = preview(f.db(), f.dataset(), all);
        QVERIFY2(whole, qPrintable(whole ? QString() : whole.error().message));
        QVERIFY(whole->partitions.size() > 1);
        int sampledRows = 0;
        for (const PartitionResult &p : whole->partitions) {
            BatchOptions one = all;
            one.scope.partitions = {*p.partition};
            auto alone = preview(f.db(), f.dataset(), one);
            QVERIFY2(alone, qPrintable(alone ? QString() : alone.error().message));
            QVERIFY(p.samples && alone->partitions.at(0).samples);
            const Samples &a = *p.samples, &b = *alone->partitions.at(0).samples;
            QCOMPARE(a.inserted, b.inserted);
            QCOMPARE(a.updated, b.updated);
            QCOMPARE(a.unchanged, b.unchanged);
            QCOMPARE(a.deleted, b.deleted);
            sampledRows +=
                int(a.inserted.size() + a.updated.size() + a.unchanged.size() + a.deleted.size());
        }
        QVERIFY(sampledRows > 0);
    }

    // A scope of thousands of partitions keeps samples for 100 of them, the
    // ones with changes first; the others say they have none kept.
    void samplesAreKeptForAHundredPartitionsChangedFirst() {
        QTemporaryDir dir;
        auto ws = manyDays(dir);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        BatchOptions o;
        o.samples = 2;
        auto r = preview(ws->db, ws->spec.datasets.at(0), o);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        QCOMPARE(r->partitions.size(), std::size_t(150));
        int sampled = 0;
        for (const PartitionResult &p : r->partitions) {
            const int day = p.partition->toInt();
            const bool changed = day >= 140 && day <= 145;
            QCOMPARE(p.updated, changed ? 4 : 0);
            if (!p.samples)
                continue;
            ++sampled;
            QCOMPARE(p.samples->updated.size(), std::size_t(changed ? 2 : 0));
            QCOMPARE(p.samples->unchanged.size(), std::size_t(changed ? 0 : 2));
            if (changed) // before, after
                QCOMPARE(p.samples->updated[0].first.value(QStringLiteral("v")).toDouble(),
                         -p.samples->updated[0].second.value(QStringLiteral("v")).toDouble());
        }
        QCOMPARE(sampled, 100);
        for (int day = 140; day <= 145; ++day)
            QVERIFY2(r->partitions.at(std::size_t(day)).samples, qPrintable(QString::number(day)));
        QVERIFY(!r->partitions.at(149).samples); // the last unchanged days are past the 100
    }

    // A preview of the whole dataset (on PostgreSQL read in index order,
    // without a filter listing every partition) counts each partition as a
    // preview naming its partitions does: with a key the target holds twice
    // (counted again), and a partition only the target has (not in scope).
    void wholeDatasetCountsAsNamedPartitions() {
        QTemporaryDir dir;
        auto ws = manyDays(dir);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        QVERIFY(ws->db.exec(QStringLiteral(
            "INSERT INTO tgt SELECT id, dt, v + 1 FROM tgt WHERE dt = 10 AND id = 2")));
        QVERIFY(ws->db.exec(QStringLiteral("INSERT INTO tgt VALUES (1, 999, 1)")));
        const DatasetSpec &dataset = ws->spec.datasets.at(0);
        auto whole = preview(ws->db, dataset, {});
        QVERIFY2(whole, qPrintable(whole ? QString() : whole.error().message));
        BatchOptions named;
        for (int day = 0; day < 150; ++day)
            named.scope.partitions << QString::number(day);
        named.scope.partitions << QStringLiteral("999"); // in the scope of the whole dataset too
        auto listed = preview(ws->db, dataset, named);
        QVERIFY2(listed, qPrintable(listed ? QString() : listed.error().message));
        QCOMPARE(whole->partitions.size(), std::size_t(151));
        QCOMPARE(listed->partitions.size(), whole->partitions.size());
        for (std::size_t i = 0; i < whole->partitions.size(); ++i) {
            const PartitionResult &a = whole->partitions[i], &b = listed->partitions[i];
            QCOMPARE(a.partition, b.partition);
            QCOMPARE(a.stagedRows, b.stagedRows);
            QCOMPARE(a.inserted, b.inserted);
            QCOMPARE(a.updated, b.updated);
            QCOMPARE(a.unchanged, b.unchanged);
        }
        QCOMPARE(whole->totals().updated,
                 24 + 1); // days 140-145, and day 10's key 2 (one of its copies differs)
        QCOMPARE(whole->partitions.at(10).stagedRows, 4);
        QCOMPARE(whole->partitions.at(10).updated, 1);
        QCOMPARE(whole->partitions.at(10).unchanged, 3);
        QCOMPARE(whole->partitions.at(150).stagedRows, 0); // 999: the target's only
        QCOMPARE(whole->partitions.at(150).inserted, 0);
    }

    // A plan of many partitions is stored compactly: a text partition spelled
    // as its label is kept as the label, each fingerprint as one string, and
    // the summary lists only the partitions it changes. Executed, it
    // publishes exactly what was previewed.
    void planOfManyPartitionsIsStoredCompactlyAndExecutes() {
        QTemporaryDir dir;
        auto ws = manyDays(dir, QStringLiteral("text"));
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        const DatasetSpec &dataset = ws->spec.datasets.at(0);
        auto previewed = preview(ws->db, dataset, {});
        QVERIFY2(previewed, qPrintable(previewed ? QString() : previewed.error().message));
        QCOMPARE(previewed->totals().updated, 24);
        auto row = ws->db.exec(
            QStringLiteral(
                "SELECT scope_json, fingerprint, summary_json FROM rewind_plans WHERE plan_id = ?"),
            {previewed->planId});
        QVERIFY(row && row->next());
        const QJsonArray scope = QJsonDocument::fromJson(row->value(0).toString().toUtf8())
                                     .object()
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        QCOMPARE(scope.size(), 150);
        QCOMPARE(scope.at(0).toString(), QStringLiteral("d1000"));
        const QJsonObject fingerprints =
            QJsonDocument::fromJson(row->value(1).toString().toUtf8()).object();
        QCOMPARE(fingerprints.size(), 150);
        QVERIFY(fingerprints.begin()->toString().startsWith(QStringLiteral("4:")));
        const QJsonObject summary =
            QJsonDocument::fromJson(row->value(2).toString().toUtf8()).object();
        QCOMPARE(summary.value(QStringLiteral("partitions_total")).toInt(), 150);
        QCOMPARE(summary.value(QStringLiteral("partitions")).toArray().size(), 6);
        QCOMPARE(testsupport::jsonAt(summary, "partitions/0/partition").toString(),
                 QStringLiteral("d1140"));
        QCOMPARE(testsupport::jsonAt(summary, "totals/updated").toInt(), 24);
        row->finish(); // an open read would lock the work tables' DROP of the next preview

        BatchOptions o = execute();
        o.planId = previewed->planId;
        auto done = run(ws->db, dataset, o);
        QVERIFY2(done, qPrintable(done ? QString() : done.error().message));
        QCOMPARE(done->status, RunStatus::Succeeded);
        QCOMPARE(done->partitions.size(), std::size_t(150));
        QCOMPARE(done->totals().updated, 24);
        QCOMPARE(count(ws->db, QStringLiteral("SELECT COUNT(*) FROM tgt WHERE v < 0")), 0);

        // The source changed after the preview: the plan is refused, naming it stale.
        auto again = preview(ws->db, dataset, {});
        QVERIFY2(again, qPrintable(again ? QString() : again.error().message));
        QVERIFY(ws->db.exec(QStringLiteral("UPDATE src SET v = v + 1 WHERE dt = 'd1007'")));
        o.planId = again->planId;
        auto refused = run(ws->db, dataset, o);
        QVERIFY(!refused);
        QCOMPARE(refused.error().exitCode(), 4);
        QVERIFY2(refused.error().message.contains(QStringLiteral("d1007")),
                 qPrintable(refused.error().message));
    }
};

QTEST_GUILESS_MAIN(TestManyPartitions)
#include "tst_manypartitions.moc"
