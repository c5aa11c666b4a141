// Partition counts and statuses, checked against SQL written independently here.
#include "core/batch/partitions.h"
#include "core/demo/demo.h"
#include "core/sql/controlschema.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QMap>
#include <QTest>

using namespace rw;

namespace {

struct Expected {
    qint64 source = 0;
    qint64 target = 0;
    qint64 dupes = 0;
};

// Independent of core: plain SQL over the demo tables.
QMap<QString, Expected> expectedSales(const Database &db) {
    QMap<QString, Expected> out;
    auto q = db.exec(QStringLiteral("SELECT dt, COUNT(*) FROM raw_sales GROUP BY dt"));
    while (q->next())
        out[q->value(0).toString()].source = q->value(1).toLongLong();
    q = db.exec(QStringLiteral("SELECT dt, COUNT(*) FROM fact_sales GROUP BY dt"));
    while (q->next())
        out[q->value(0).toString()].target = q->value(1).toLongLong();
    q = db.exec(
        QStringLiteral("SELECT dt, COUNT(*) FROM (SELECT dt, order_id, item_id FROM fact_sales "
                       "GROUP BY dt, order_id, item_id HAVING COUNT(*) > 1) GROUP BY dt"));
    while (q->next())
        out[q->value(0).toString()].dupes = q->value(1).toLongLong();
    return out;
}

} // namespace

class TestPartitions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void demoCountsMatchIndependentSql() {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("demo.db"));
        const QString spec = dir.filePath(QStringLiteral("demo.json"));
        auto summary = demo::generate({db, spec, 3, 0.02, false});
        QVERIFY2(summary, qPrintable(summary ? QString() : summary.error().message));
        auto ws = openWorkspace(db, spec);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));

        auto parts = listPartitions(ws->db, *ws->spec.dataset(QStringLiteral("fact_sales")));
        QVERIFY2(parts, qPrintable(parts ? QString() : parts.error().message));
        const auto expected = expectedSales(ws->db);
        QCOMPARE(qsizetype(parts->size()), expected.size());
        for (const auto &p : *parts) {
            QVERIFY(p.partition);
            const Expected e = expected.value(*p.partition);
            QCOMPARE(p.sourceRows, e.source);
            QCOMPARE(p.targetRows, e.target);
            QCOMPARE(p.duplicateKeys, e.dupes);
        }
    }

    void nullKeysAndNullPartitions() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("nulls.db"),
            {
                QStringLiteral("CREATE TABLE src (k1 INTEGER, k2 TEXT, p TEXT, v REAL, ts TEXT)"),
                QStringLiteral("CREATE TABLE tgt (k1 INTEGER, k2 TEXT, p TEXT, v REAL, ts TEXT)"),
                QStringLiteral("INSERT INTO src VALUES (1, NULL, 'a', 1, 't1'), (1, NULL, 'a', 2, "
                               "'t2'), (2, 'x', 'a', 3, 't1'),"
                               " (3, 'y', NULL, 4, 't1'), (4, 'z', '', 5, 't1')"),
                // (1, NULL) twice: a duplicate key with a NULL part; two distinct keys once each.
                QStringLiteral("INSERT INTO tgt VALUES (1, NULL, 'a', 2, 't2'), (1, NULL, 'a', 2, "
                               "'t2'), (2, 'x', 'a', 3, 't1'),"
                               " (NULL, NULL, 'b', 9, 't0'), (NULL, NULL, 'b', 9, 't0'), (NULL, "
                               "NULL, 'b', 9, 't0')"),
            });
        const QString specPath =
            testsupport::writeFile(dir, QStringLiteral("s.json"), R"({"datasets": {
            "d": {"source": "src", "target": "tgt", "partition_column": "p", "key": ["k1", "k2"], "order_by": "ts"},
            "whole": {"source": "src", "target": "tgt", "key": ["k1", "k2"], "order_by": "ts"}}})");
        auto ws = openWorkspace(db.url().text, specPath);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));

        auto parts = listPartitions(ws->db, *ws->spec.dataset(QStringLiteral("d")));
        QVERIFY(parts);
        // NULL partition first, then '', 'a', 'b': NULL and '' are different partitions.
        QCOMPARE(parts->size(), std::size_t(4));
        QVERIFY(!parts->at(0).partition.has_value());
        QCOMPARE(parts->at(0).sourceRows, 1);
        QCOMPARE(parts->at(0).status, PartitionStatus::Unloaded);
        QCOMPARE(parts->at(1).partition.value_or(QStringLiteral("?")), QString());
        QCOMPARE(parts->at(2).partition.value_or(QString()), QStringLiteral("a"));
        QCOMPARE(parts->at(2).sourceRows, 3);
        QCOMPARE(parts->at(2).targetRows, 3);
        QCOMPARE(parts->at(2).duplicateKeys, 1);
        QCOMPARE(parts->at(2).status, PartitionStatus::Loaded); // published outside Rewind
        QCOMPARE(parts->at(3).partition.value_or(QString()), QStringLiteral("b"));
        QCOMPARE(parts->at(3).sourceRows, 0);
        QCOMPARE(parts->at(3).targetRows, 3);
        QCOMPARE(parts->at(3).duplicateKeys, 1); // (NULL, NULL) three times is one duplicate key

        auto whole = listPartitions(ws->db, *ws->spec.dataset(QStringLiteral("whole")));
        QVERIFY(whole);
        QCOMPARE(whole->size(), std::size_t(1));
        QVERIFY(!whole->at(0).partition.has_value());
        QCOMPARE(whole->at(0).sourceRows, 5);
        QCOMPARE(whole->at(0).targetRows, 6);
        QCOMPARE(whole->at(0).duplicateKeys, 2);

        // Emptied, neither lists a partition.
        QVERIFY(ws->db.exec(QStringLiteral("DELETE FROM src")));
        QVERIFY(ws->db.exec(QStringLiteral("DELETE FROM tgt")));
        for (const char *name : {"d", "whole"}) {
            auto none = listPartitions(ws->db, *ws->spec.dataset(QLatin1String(name)));
            QVERIFY(none);
            QCOMPARE(none->size(), std::size_t(0));
        }
    }

    void statusFollowsRecordedState() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("state.db"),
            {
                QStringLiteral("CREATE TABLE src (id INTEGER, dt TEXT, ev TEXT, ing TEXT)"),
                QStringLiteral("INSERT INTO src VALUES (1, 'd1', 'e', 'i1'), (2, 'd2', 'e', 'i1'), "
                               "(3, 'd3', 'e', 'i1'), (4, 'd4', 'e', 'i1')"),
            });
        const QString specPath =
            testsupport::writeFile(dir, QStringLiteral("s.json"), R"({"datasets": {
            "d": {"source": "src", "target": "tgt", "partition_column": "dt", "key": ["id"],
                  "event_time": "ev", "ingest_time": "ing", "allowed_lateness": "2h"}}})");
        auto ws = openWorkspace(db.url().text, specPath);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        // d1 final, d2 published (provisional), d3 failed, d4 never published; then d1 gets a late
        // row. Publish-time fingerprints, as a publish records them.
        const QString sig = sourceSignatureExpr(ws->db, ws->spec.datasets[0]);
        QVERIFY(db.exec(QStringLiteral("INSERT INTO rewind_partition_state (dataset, part, status, "
                                       "source_rows, source_sig, published_at, finalized_at) "
                                       "SELECT 'd', dt, CASE dt WHEN 'd1' THEN 'final' WHEN 'd2' "
                                       "THEN 'published' ELSE 'failed' END, COUNT(*), ") +
                        sig +
                        QStringLiteral(", 'p', CASE dt WHEN 'd1' THEN 'f' END FROM src WHERE dt IN "
                                       "('d1', 'd2', 'd3') GROUP BY dt")));
        auto before = listPartitions(ws->db, ws->spec.datasets[0]);
        QVERIFY(before);
        QList<PartitionStatus> statuses;
        for (const auto &p : *before)
            statuses << p.status;
        QCOMPARE(statuses,
                 (QList<PartitionStatus>{PartitionStatus::Final, PartitionStatus::Provisional,
                                         PartitionStatus::Failed, PartitionStatus::Unloaded}));
        // A late row for d1, and a changed value (same row count) in d2.
        QVERIFY(db.exec(QStringLiteral("INSERT INTO src VALUES (5, 'd1', 'e', 'i2')")));
        QVERIFY(db.exec(QStringLiteral("UPDATE src SET ev = 'f' WHERE dt = 'd2'")));
        auto after = listPartitions(ws->db, ws->spec.datasets[0]);
        QVERIFY(after);
        QCOMPARE(after->at(0).status, PartitionStatus::Stale);
        QCOMPARE(after->at(0).sourceRows, 2);
        QCOMPARE(after->at(1).status, PartitionStatus::Stale);
        QCOMPARE(after->at(2).status, PartitionStatus::Failed);
    }
    // The source fingerprint sees a change in any column, whatever its type:
    // on PostgreSQL a row of hashable types is hashed binary (hash_record), a
    // row with a type that has no hash function (json) by its text form.
    // NULL and '' differ, as do two numbers; an untouched partition stays.
    void fingerprintSeesEveryColumnType() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("sig.db"),
            {
                QStringLiteral("CREATE TABLE src (id INTEGER, dt TEXT, amt REAL, ev TEXT)"),
                QStringLiteral("INSERT INTO src VALUES (1, 'd1', 1.5, ''), (2, 'd2', 1.5, 'x'), "
                               "(3, 'd3', 1.5, 'x')"),
                QStringLiteral("CREATE TABLE srcj (id INTEGER, dt TEXT, doc JSON)"),
                QStringLiteral(
                    "INSERT INTO srcj VALUES (1, 'd1', '{\"a\": 1}'), (2, 'd2', '{\"a\": 1}')"),
            });
        const QString specPath =
            testsupport::writeFile(dir, QStringLiteral("s.json"), R"({"datasets": {
            "plain": {"source": "src", "target": "tgt", "partition_column": "dt", "key": ["id"]},
            "json": {"source": "srcj", "target": "tgtj", "partition_column": "dt", "key": ["id"]}}})");
        auto ws = openWorkspace(db.url().text, specPath);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        for (const auto &d : ws->spec.datasets) {
            const QString sig = sourceSignatureExpr(ws->db, d);
            QVERIFY(sig != QLatin1String("NULL"));
            QVERIFY(
                db.exec(QStringLiteral("INSERT INTO rewind_partition_state (dataset, part, status, "
                                       "source_rows, source_sig, published_at) SELECT '") +
                        d.name + QStringLiteral("', dt, 'published', COUNT(*), ") + sig +
                        QStringLiteral(", 'p' FROM ") + d.source + QStringLiteral(" GROUP BY dt")));
        }
        auto statuses = [&](int dataset) {
            QList<PartitionStatus> out;
            auto parts = listPartitions(ws->db, ws->spec.datasets[dataset]);
            if (parts)
                for (const auto &p : *parts)
                    out << p.status;
            return out;
        };
        const QList<PartitionStatus> plainBefore = statuses(0), jsonBefore = statuses(1);
        QCOMPARE(plainBefore.size(), 3);
        QVERIFY(!plainBefore.contains(PartitionStatus::Stale));
        QCOMPARE(jsonBefore.size(), 2);
        QVERIFY(!jsonBefore.contains(PartitionStatus::Stale));
        QVERIFY(db.exec(QStringLiteral("UPDATE src SET ev = NULL WHERE dt = 'd1'")));
        QVERIFY(db.exec(QStringLiteral("UPDATE src SET amt = 2.5 WHERE dt = 'd2'")));
        QVERIFY(db.exec(QStringLiteral("UPDATE srcj SET doc = '{\"a\": 2}' WHERE dt = 'd2'")));
        QCOMPARE(statuses(0), (QList<PartitionStatus>{PartitionStatus::Stale,
                                                      PartitionStatus::Stale, plainBefore.at(2)}));
        QCOMPARE(statuses(1), (QList<PartitionStatus>{jsonBefore.at(0), PartitionStatus::Stale}));
    }
};

QTEST_GUILESS_MAIN(TestPartitions)
#include "tst_partitions.moc"
