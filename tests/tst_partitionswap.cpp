// Partitioned PostgreSQL targets published by partition swap (issue 43): an
// overwrite of a partition whose leaf holds exactly its value builds the
// partition as its own table and swaps it in (DETACH, ATTACH, one
// transaction); the detached leaf is the before-image, and rollback swaps it
// back, the very table, with its indexes' names. A new day gets its leaf; a
// value with no leaf of its own (a DEFAULT partition, a wider range, a
// multi-column or expression key, HASH, a sub-partitioned leaf) publishes by
// rows, the preview saying why. READ COMMITTED readers see the old leaf or
// the new one; a
// session holding a lock on the parent makes the swap wait, then fail with
// nothing published; a kill before, during or after the swap transaction,
// then resume, equals an uninterrupted run. On SQLite every partition
// publishes by rows. The leaves themselves and pg_partman's parents:
// tst_partitionswapleaves.
#include "tests/partitionswapfixture.h"

using namespace rw;
using namespace swaptest;

class TestPartitionSwap : public QObject, protected SwapFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        QVERIFY(m_dir.isValid());
    }

    // SQLite has no partitioned tables: every partition publishes by rows, said.
    void sqliteRows() {
        if (needsPostgres())
            QSKIP("the SQLite side of the publish method");
        const Ws ws = make({QStringLiteral("CREATE TABLE raw (dt TEXT, id INTEGER, amount REAL, "
                                           "updated_at INTEGER)"),
                            QStringLiteral("INSERT INTO raw VALUES ('2025-05-01', 1, 1.0, 1)")});
        const Proc run =
            ctl(ws, {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
                     QStringLiteral("--execute"), QStringLiteral("--json")});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject p = json(run)[QStringLiteral("partitions")].toArray()[0].toObject();
        QCOMPARE(p[QStringLiteral("publish")].toString(), QStringLiteral("rows"));
        QVERIFY(!p[QStringLiteral("publish_reason")].toString().isEmpty());
        QVERIFY(json(run)[QStringLiteral("lock_ms")].isNull());
    }

    // The overwrite of loaded days swaps their leaves: the partition equals
    // the hand dedupe, the leaf is a new table under the old name with the
    // old index names, no CHECK left behind; the old leaf is kept in the
    // control schema; the new day gets a leaf of its own.
    void overwriteSwaps() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        const Ws ws = standard();
        const qint64 before = leafOid(ws.db, QStringLiteral("fact_p2025_05_02"));
        const QString indexesBefore = indexNames(ws.db, QStringLiteral("fact_p2025_05_02"));
        QVERIFY(indexesBefore.contains(QStringLiteral("fact_p2025_05_02_pkey")));
        QCOMPARE(indexesBefore.count(u','), 2); // three indexes

        const Proc preview = ctl(ws, {QStringLiteral("preview"), QStringLiteral("--dataset"),
                                      QStringLiteral("fact"), QStringLiteral("--json")});
        QCOMPARE(preview.exitCode, 0);
        QHash<QString, QString> method, reason;
        for (const auto &v : json(preview)[QStringLiteral("partitions")].toArray()) {
            method.insert(v.toObject()[QStringLiteral("partition")].toString(),
                          v.toObject()[QStringLiteral("publish")].toString());
            reason.insert(v.toObject()[QStringLiteral("partition")].toString(),
                          v.toObject()[QStringLiteral("publish_reason")].toString());
        }
        QCOMPARE(reason.value(QStringLiteral("2025-05-04")),
                 QStringLiteral("its leaf fact_p2025_05_04 is empty: the rows are inserted, no row "
                                "is replaced"));
        QCOMPARE(method.value(QStringLiteral("2025-05-02")), QStringLiteral("swap"));
        QCOMPARE(method.value(QStringLiteral("2025-05-04")), QStringLiteral("rows")); // empty leaf
        QCOMPARE(method.value(QStringLiteral("2025-05-05")), QStringLiteral("swap"));

        const Proc run =
            ctl(ws, {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
                     QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject result = json(run);
        QCOMPARE(result[QStringLiteral("status")].toString(), QStringLiteral("succeeded"));
        QVERIFY(result[QStringLiteral("lock_ms")].isDouble());
        // One chunk: days 1-3 and 5 swapped, day 4 (an empty leaf) by rows.
        for (const auto &v : result[QStringLiteral("partitions")].toArray())
            QCOMPARE(v.toObject()[QStringLiteral("publish")].toString(),
                     v.toObject()[QStringLiteral("partition")].toString() ==
                             QLatin1String("2025-05-04")
                         ? QStringLiteral("rows")
                         : QStringLiteral("swap"));
        QCOMPARE(fact(ws.db), expected(ws.db));
        const qint64 after = leafOid(ws.db, QStringLiteral("fact_p2025_05_02"));
        QVERIFY(after != 0 && after != before);
        QCOMPARE(indexNames(ws.db, QStringLiteral("fact_p2025_05_02")), indexesBefore);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_constraint WHERE conname = "
                                              "'rewind_swap_bound'")),
                 0);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM fact_p2025_05_05")), 2);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_inherits WHERE inhparent = "
                                              "'fact'::regclass")),
                 5);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM rewind_swaps")), 4);
        QCOMPARE(leftovers(ws.db), QString());

        // Rollback: the very leaves again, with their rows and index names;
        // the leaf the run created is gone.
        const Proc back =
            ctl(ws, {QStringLiteral("rollback"), QStringLiteral("--run"), QStringLiteral("1"),
                     QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(back.exitCode == 0, back.err.constData());
        int day2 = 0;
        for (const auto &v : json(back)[QStringLiteral("partitions")].toArray())
            if (v.toObject()[QStringLiteral("partition")].toString() ==
                QLatin1String("2025-05-02")) {
                ++day2;
                QCOMPARE(v.toObject()[QStringLiteral("rows_removed")].toInteger(), 300);
                QCOMPARE(v.toObject()[QStringLiteral("rows_restored")].toInteger(), 300);
            }
        QCOMPARE(day2, 1);
        QCOMPARE(leafOid(ws.db, QStringLiteral("fact_p2025_05_02")), before);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM fact_p2025_05_04")), 0);
        QCOMPARE(indexNames(ws.db, QStringLiteral("fact_p2025_05_02")), indexesBefore);
        QCOMPARE(leafOid(ws.db, QStringLiteral("fact_p2025_05_05")), 0);
        QCOMPARE(
            testsupport::digest(ws.db,
                                QStringLiteral("SELECT dt, id, amount, updated_at FROM fact")),
            testsupport::digest(ws.db, QStringLiteral("SELECT dt, id, amount * 2, updated_at FROM "
                                                      "(SELECT DISTINCT ON (dt, id) * FROM raw "
                                                      "WHERE dt < '2025-05-04' ORDER BY dt, id, "
                                                      "updated_at DESC) AS r")));
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM rewind_swaps")), 0);
        QCOMPARE(leftovers(ws.db), QString());
    }

    // The detached leaves are the run's before-images: prune drops them
    // with the run's other images; the run cannot be rolled back then, and
    // a later run's swap, kept, still can.
    void pruneDropsSavedLeaves() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        const Ws ws = standard();
        const auto runAll = [&](const QStringList &extra) {
            const Proc p = ctl(ws, QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                               QStringLiteral("fact"), QStringLiteral("--execute"),
                                               QStringLiteral("--json")} +
                                       extra);
            return p.exitCode == 0 ? json(p)[QStringLiteral("run_id")].toVariant().toLongLong()
                                   : -1;
        };
        const qint64 first = runAll({});
        QVERIFY(first > 0);
        const qint64 second = runAll({QStringLiteral("--partition"), QStringLiteral("2025-05-02")});
        QVERIFY(second > 0);
        const auto saved = [&](qint64 run) {
            return scalar(ws.db, QStringLiteral("SELECT count(*) FROM rewind_swaps WHERE run_id = "
                                                "%1 AND saved_table IS NOT NULL")
                                     .arg(run));
        };
        QCOMPARE(saved(first), 3); // days 1-3; day 5's leaf was created
        QCOMPARE(saved(second), 1);
        const qint64 savedTables =
            scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_tables WHERE schemaname = "
                                         "'rewind' AND tablename LIKE 'rewind\\_saved\\_%'"));
        QCOMPARE(savedTables, 4);

        const Proc pruned =
            ctl(ws, {QStringLiteral("prune"), QStringLiteral("--dataset"), QStringLiteral("fact"),
                     QStringLiteral("--keep"), QStringLiteral("1"), QStringLiteral("--execute"),
                     QStringLiteral("--json")});
        QVERIFY2(pruned.exitCode == 0, pruned.err.constData());
        QCOMPARE(json(pruned)[QStringLiteral("totals")]
                     .toObject()[QStringLiteral("saved_leaves")]
                     .toInteger(),
                 3);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM rewind_swaps WHERE run_id = %1")
                                   .arg(first)),
                 0);
        QCOMPARE(saved(second), 1);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_tables WHERE schemaname = "
                                              "'rewind' AND tablename LIKE 'rewind\\_saved\\_%'")),
                 1);
        QCOMPARE(leftovers(ws.db), QString());
        QCOMPARE(fact(ws.db), expected(ws.db));

        // The second run rolls back to what the first published; the first
        // is refused.
        const Proc back =
            ctl(ws, {QStringLiteral("rollback"), QStringLiteral("--run"), QString::number(second),
                     QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(back.exitCode == 0, back.err.constData());
        QCOMPARE(fact(ws.db), expected(ws.db)); // the same rows: the first run published them
        const Proc refused = ctl(ws, {QStringLiteral("rollback"), QStringLiteral("--run"),
                                      QString::number(first), QStringLiteral("--execute")});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("pruned"), refused.err.constData());
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_inherits WHERE inhparent = "
                                              "'fact'::regclass")),
                 5);
        QCOMPARE(leftovers(ws.db), QString());
    }

    // A duplicate recovery's re-run reads the partitioned target's layout as
    // an overwrite does: the day holding duplicate keys is swapped (a new
    // leaf, no dead rows left behind), the duplicates are gone, and the
    // unique index recovery adds afterwards lands on the parent.
    void recoveryReRunSwaps() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        QStringList s = kSource;
        s << QStringLiteral("CREATE TABLE fact (dt DATE NOT NULL, id BIGINT NOT NULL, amount "
                            "DOUBLE PRECISION, updated_at BIGINT) PARTITION BY RANGE (dt)")
          << dailyLeaves(4)
          << QString(kLoad).replace(QStringLiteral("amount * 2"), QStringLiteral("amount"))
          // A retry storm: day 2 loaded twice.
          << QStringLiteral("INSERT INTO fact SELECT * FROM fact WHERE dt = '2025-05-02'");
        QByteArray spec = kSpec;
        spec.replace("overwrite_partition", "merge");
        const Ws ws = make(s, spec);
        const qint64 before = leafOid(ws.db, QStringLiteral("fact_p2025_05_02"));
        const qint64 day1 = leafOid(ws.db, QStringLiteral("fact_p2025_05_01"));
        const Proc rec =
            ctl(ws, {QStringLiteral("recover"), QStringLiteral("--dataset"), QStringLiteral("fact"),
                     QStringLiteral("--report"), m_dir.filePath(QStringLiteral("recover.md")),
                     QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(rec.exitCode == 0, rec.err.constData());
        const QJsonObject r = json(rec);
        QCOMPARE(r[QStringLiteral("duplicate_keys")].toInteger(), 300);
        QCOMPARE(
            r[QStringLiteral("after")].toObject()[QStringLiteral("duplicate_keys")].toInteger(), 0);
        const qint64 runId = r[QStringLiteral("run_id")].toInteger();
        QVERIFY(runId > 0);
        // Day 2 was swapped; day 1, which held no duplicate, was not touched.
        QVERIFY(leafOid(ws.db, QStringLiteral("fact_p2025_05_02")) != before);
        QCOMPARE(leafOid(ws.db, QStringLiteral("fact_p2025_05_01")), day1);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM rewind_swaps WHERE run_id = %1 "
                                              "AND part = '2025-05-02'")
                                   .arg(runId)),
                 1);
        QCOMPARE(testsupport::digest(ws.db, QStringLiteral("SELECT dt, id, amount, updated_at FROM "
                                                           "fact WHERE dt = '2025-05-02'")),
                 testsupport::digest(ws.db, QStringLiteral("SELECT * FROM (") +
                                                QString::fromLatin1(kByHand) +
                                                QStringLiteral(") AS h WHERE dt = '2025-05-02'")));
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_inherits WHERE inhparent = "
                                              "'fact'::regclass")),
                 4);
        QCOMPARE(leftovers(ws.db), QString());
    }

    // A role that may write the target but does not own it cannot replace a
    // leaf: every partition publishes by rows, the preview and run say why,
    // and the rows are right.
    void nonOwnerPublishesByRows() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        const Ws ws = standard();
        // Rewind's control schema, made by its first command, as the admin.
        QCOMPARE(ctl(ws, {QStringLiteral("datasets")}).exitCode, 0);
        auto admin = Database::open(ws.db);
        QVERIFY(admin);
        const QString role =
            QStringLiteral("rw_tst_writer_%1").arg(QCoreApplication::applicationPid());
        QVERIFY(admin->execAll(
            {QStringLiteral("CREATE ROLE %1 LOGIN").arg(role),
             QStringLiteral("GRANT ALL ON SCHEMA public, rewind TO %1").arg(role),
             QStringLiteral("GRANT ALL ON ALL TABLES IN SCHEMA public, rewind TO %1").arg(role),
             QStringLiteral("GRANT ALL ON ALL SEQUENCES IN SCHEMA public, rewind TO %1")
                 .arg(role)}));
        const auto dropRole = qScopeGuard([&] {
            (void)admin->execAll({QStringLiteral("DROP OWNED BY %1").arg(role),
                                  QStringLiteral("DROP ROLE %1").arg(role)});
        });
        const DatabaseUrl &u = admin->url();
        const Ws writer{QStringLiteral("postgresql://%1@%2:%3/%4")
                            .arg(role, u.host)
                            .arg(u.port)
                            .arg(u.databaseName),
                        ws.spec};
        const qint64 before = leafOid(ws.db, QStringLiteral("fact_p2025_05_02"));
        const Proc run = runDay(writer, QStringLiteral("2025-05-02"));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonArray parts = json(run)[QStringLiteral("partitions")].toArray();
        QCOMPARE(parts.size(), 1);
        QCOMPARE(parts[0].toObject()[QStringLiteral("publish")].toString(), QStringLiteral("rows"));
        QVERIFY2(parts[0].toObject()[QStringLiteral("publish_reason")].toString().contains(
                     QStringLiteral("owner")),
                 qPrintable(parts[0].toObject()[QStringLiteral("publish_reason")].toString()));
        QCOMPARE(leafOid(ws.db, QStringLiteral("fact_p2025_05_02")), before);
        QCOMPARE(testsupport::digest(ws.db, QStringLiteral("SELECT dt, id, amount, updated_at FROM "
                                                           "fact WHERE dt = '2025-05-02'")),
                 testsupport::digest(ws.db, QStringLiteral("SELECT * FROM (") +
                                                QString::fromLatin1(kByHand) +
                                                QStringLiteral(") AS h WHERE dt = '2025-05-02'")));
    }

    // A freeze of a partitioned target refuses writes into its leaves too,
    // a leaf created after the freeze included; unfrozen, they pass.
    void freezeHoldsOnLeaves() {
        if (!needsPostgres())
            QSKIP("partitioned targets are PostgreSQL's");
        const Ws ws = standard();
        const QStringList freeze{QStringLiteral("--dataset"), QStringLiteral("fact"),
                                 QStringLiteral("--reason"), QStringLiteral("incident"),
                                 QStringLiteral("--execute")};
        QCOMPARE(ctl(ws, QStringList{QStringLiteral("freeze")} + freeze).exitCode, 0);
        auto other = Database::open(ws.db);
        QVERIFY(other);
        const auto refused = [&](const QString &sql) {
            auto r = other->exec(sql);
            return !r && r.error().message.contains(QStringLiteral("frozen"));
        };
        const qint64 rows = scalar(ws.db, QStringLiteral("SELECT count(*) FROM fact"));
        QVERIFY(refused(QStringLiteral("INSERT INTO fact VALUES ('2025-05-01', 99999, 1, 1)")));
        QVERIFY(refused(
            QStringLiteral("INSERT INTO fact_p2025_05_01 VALUES ('2025-05-01', 99999, 1, 1)")));
        QVERIFY(refused(QStringLiteral("UPDATE fact_p2025_05_02 SET amount = 0")));
        QVERIFY(refused(QStringLiteral("DELETE FROM fact_p2025_05_03")));
        QVERIFY(other->exec(QStringLiteral("CREATE TABLE fact_p2025_05_09 PARTITION OF fact FOR "
                                           "VALUES FROM ('2025-05-09') TO ('2025-05-10')")));
        QVERIFY(
            refused(QStringLiteral("INSERT INTO fact_p2025_05_09 VALUES ('2025-05-09', 1, 1, 1)")));
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM fact")), rows);

        QCOMPARE(ctl(ws, QStringList{QStringLiteral("unfreeze")} + freeze).exitCode, 0);
        QVERIFY(other->exec(
            QStringLiteral("INSERT INTO fact_p2025_05_01 VALUES ('2025-05-01', 99999, 1, 1)")));
        QVERIFY(other->exec(QStringLiteral("DELETE FROM fact_p2025_05_01 WHERE id = 99999")));
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_trigger WHERE tgname LIKE "
                                              "'rewind\\_freeze%'")),
                 0);
    }

    // Where a swap cannot replace exactly the partition, rows publish it,
    // and the preview says why.
    void fallsBackToRows_data() {
        QTest::addColumn<QStringList>("target");
        QTest::addColumn<QString>("reason");
        QTest::newRow("default partition")
            << (partitionedTarget(dailyLeaves(1))
                << QStringLiteral("CREATE TABLE fact_rest PARTITION OF fact DEFAULT"))
            << QStringLiteral("default one, fact_rest");
        QTest::newRow("monthly leaf")
            << partitionedTarget({QStringLiteral("CREATE TABLE fact_m05 PARTITION OF fact FOR "
                                                 "VALUES FROM ('2025-05-01') TO ('2025-06-01')")})
            << QStringLiteral("holds more than this partition");
        QTest::newRow("two-column key")
            << QStringList{QStringLiteral("CREATE TABLE fact (dt DATE NOT NULL, id BIGINT NOT "
                                          "NULL, amount DOUBLE PRECISION, updated_at BIGINT) "
                                          "PARTITION BY RANGE (dt, id)"),
                           QStringLiteral("CREATE TABLE fact_all PARTITION OF fact FOR VALUES "
                                          "FROM (MINVALUE, MINVALUE) TO (MAXVALUE, MAXVALUE)")}
            << QStringLiteral("partition key has 2 columns");
        QTest::newRow("expression key")
            << QStringList{QStringLiteral("CREATE TABLE fact (dt DATE NOT NULL, id BIGINT NOT "
                                          "NULL, amount DOUBLE PRECISION, updated_at BIGINT) "
                                          "PARTITION BY RANGE ((dt + 0))"),
                           QStringLiteral("CREATE TABLE fact_all PARTITION OF fact DEFAULT")}
            << QStringLiteral("is an expression");
        QTest::newRow("text range key")
            << QStringList{QStringLiteral(
                               "CREATE TABLE fact (dt TEXT NOT NULL, id BIGINT NOT NULL, "
                               "amount DOUBLE PRECISION, updated_at BIGINT) PARTITION "
                               "BY RANGE (dt)"),
                           QStringLiteral("CREATE TABLE fact_p2 PARTITION OF fact FOR VALUES FROM "
                                          "('2025-05-02') TO ('2025-05-03')")}
            << QStringLiteral("holds more values than one partition");
        QTest::newRow("index of its own")
            << (partitionedTarget(dailyLeaves(3))
                << QStringLiteral("CREATE INDEX fact_p2_local ON fact_p2025_05_02 (updated_at)"))
            << QStringLiteral("indexes of its own");
        QTest::newRow("triggers")
            << (partitionedTarget(dailyLeaves(3))
                << QStringLiteral("CREATE FUNCTION fact_noop() RETURNS trigger LANGUAGE plpgsql AS "
                                  "$$ BEGIN RETURN NEW; END $$")
                << QStringLiteral("CREATE TRIGGER fact_audit AFTER INSERT ON fact FOR EACH ROW "
                                  "EXECUTE FUNCTION fact_noop()"))
            << QStringLiteral("triggers");
        QTest::newRow("hash")
            << QStringList{QStringLiteral("CREATE TABLE fact (dt DATE NOT NULL, id BIGINT NOT "
                                          "NULL, amount DOUBLE PRECISION, updated_at BIGINT) "
                                          "PARTITION BY HASH (dt)"),
                           QStringLiteral("CREATE TABLE fact_h0 PARTITION OF fact FOR VALUES "
                                          "WITH (MODULUS 1, REMAINDER 0)")}
            << QStringLiteral("HASH");
        QTest::newRow("sub-partitioned leaf")
            << (partitionedTarget({})
                << QStringLiteral("CREATE TABLE fact_p2025_05_02 PARTITION OF fact FOR VALUES FROM "
                                  "('2025-05-02') TO ('2025-05-03') PARTITION BY HASH (id)")
                << QStringLiteral("CREATE TABLE fact_p2025_05_02_h PARTITION OF "
                                  "fact_p2025_05_02 FOR VALUES WITH (MODULUS 1, "
                                  "REMAINDER 0)")
                << QStringLiteral("CREATE TABLE fact_rest PARTITION OF fact DEFAULT"))
            << QStringLiteral("partitioned itself");
    }
    void fallsBackToRows() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        QFETCH(QStringList, target);
        QFETCH(QString, reason);
        QStringList s = kSource;
        s << target
          << QStringLiteral("INSERT INTO fact (dt, id, amount, updated_at) SELECT dt, id, 0, 0 "
                            "FROM raw WHERE dt = '2025-05-02'");
        const Ws ws = make(s);
        const QStringList scope{QStringLiteral("--dataset"), QStringLiteral("fact"),
                                QStringLiteral("--partition"), QStringLiteral("2025-05-02")};
        const Proc preview = ctl(ws, QStringList{QStringLiteral("preview")} + scope +
                                         QStringList{QStringLiteral("--json")});
        QVERIFY2(preview.exitCode == 0, preview.err.constData());
        const QJsonObject p = json(preview)[QStringLiteral("partitions")].toArray()[0].toObject();
        QCOMPARE(p[QStringLiteral("publish")].toString(), QStringLiteral("rows"));
        QVERIFY2(p[QStringLiteral("publish_reason")].toString().contains(reason),
                 qPrintable(p[QStringLiteral("publish_reason")].toString()));
        const Proc run =
            ctl(ws, QStringList{QStringLiteral("run")} + scope +
                        QStringList{QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(fact(ws.db),
                 testsupport::digest(ws.db, QStringLiteral("SELECT * FROM (") +
                                                QString::fromLatin1(kByHand) +
                                                QStringLiteral(") AS h WHERE dt = '2025-05-02'")));
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM rewind_swaps")), 0);
    }

    // Readers of the partition during the swap see the old rows or the new
    // ones, never both or neither.
    void readersSeeOneLeaf() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        const Ws ws = standard();
        const qint64 old = scalar(ws.db, QStringLiteral("SELECT count(*) FROM fact WHERE dt = "
                                                        "'2025-05-02'"));
        // The new partition has one row more: a new order that day.
        QVERIFY(scalar(ws.db, QStringLiteral("INSERT INTO raw VALUES ('2025-05-02', 99999, 1.0, "
                                             "1) RETURNING 1")) == 1);
        std::atomic<bool> stop{false};
        std::set<qint64> seen;
        QString readerError;
        QThread *reader = QThread::create([&] {
            {
                auto handle = Database::open(ws.db);
                if (!handle) {
                    readerError = handle.error().message;
                    return;
                }
                while (!stop.load()) {
                    auto v = handle->scalar(
                        QStringLiteral("SELECT count(*) FROM fact WHERE dt = '2025-05-02'"));
                    if (!v) {
                        readerError = v.error().message;
                        return;
                    }
                    seen.insert(v->toLongLong());
                }
            }
        });
        reader->start();
        auto joined = qScopeGuard([&] {
            stop = true;
            reader->wait();
            delete reader;
        });
        for (int i = 0; i < 3; ++i) {
            const Proc run = runDay(ws, QStringLiteral("2025-05-02"));
            QVERIFY2(run.exitCode == 0, run.err.constData());
        }
        stop = true;
        reader->wait();
        QVERIFY2(readerError.isEmpty(), qPrintable(readerError));
        QVERIFY(!seen.empty());
        for (qint64 n : seen)
            QVERIFY2(n == old || n == old + 1, qPrintable(QString::number(n)));
    }

    // A session holding a lock on the parent: the swap waits for it in
    // short tries, then fails naming it, nothing published and no table
    // left; released in time, the swap goes through.
    void lockedParent() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        const Ws ws = standard();
        const QString before = fact(ws.db);
        std::atomic<int> phase{0};
        // Holds ACCESS SHARE on fact for `holdMs`, or (-1) until another
        // session waits for a lock on it.
        const auto holdLock = [&](int holdMs) {
            return QThread::create([&, holdMs] {
                auto handle = Database::open(ws.db);
                if (!handle)
                    return;
                (void)handle->execAll({QStringLiteral("BEGIN"),
                                       QStringLiteral("LOCK TABLE fact IN ACCESS SHARE MODE")});
                phase = 1;
                if (holdMs >= 0) {
                    QThread::msleep(ulong(holdMs));
                } else {
                    QElapsedTimer waited;
                    waited.start();
                    while (waited.elapsed() < 30000) {
                        auto v = handle->scalar(QStringLiteral(
                            "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = "
                            "'fact'::regclass"));
                        if (v && v->toLongLong() > 0)
                            break;
                        QThread::msleep(5);
                    }
                    QThread::msleep(100); // one failed try or more
                }
                (void)handle->execAll({QStringLiteral("COMMIT")});
                phase = 2;
            });
        };
        const QStringList run{QStringLiteral("run"),        QStringLiteral("--dataset"),
                              QStringLiteral("fact"),       QStringLiteral("--partition"),
                              QStringLiteral("2025-05-02"), QStringLiteral("--execute"),
                              QStringLiteral("--json")};
        qputenv("REWIND_BUSY_TIMEOUT_MS", "800");
        auto unset = qScopeGuard([] { qunsetenv("REWIND_BUSY_TIMEOUT_MS"); });
        {
            QThread *holder = holdLock(3000);
            holder->start();
            QTRY_COMPARE(phase.load(), 1);
            const Proc refused = ctl(ws, run);
            holder->wait();
            delete holder;
            QVERIFY(refused.exitCode != 0);
            QVERIFY2(json(refused)[QStringLiteral("error")].toString().contains(
                         QStringLiteral("could not lock")),
                     refused.out.constData());
            QCOMPARE(fact(ws.db), before);
            QCOMPARE(leftovers(ws.db), QString());
            QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM rewind_swaps")), 0);
        }
        qputenv("REWIND_BUSY_TIMEOUT_MS", "8000");
        phase = 0;
        QThread *holder = holdLock(-1);
        holder->start();
        QTRY_COMPARE(phase.load(), 1);
        const Proc waited = ctl(ws, run);
        holder->wait();
        delete holder;
        QVERIFY2(waited.exitCode == 0, waited.err.constData());
        QCOMPARE(publishOf(waited), QStringLiteral("swap"));
        QCOMPARE(testsupport::digest(ws.db, QStringLiteral("SELECT dt, id, amount, updated_at FROM "
                                                           "fact WHERE dt = '2025-05-02'")),
                 testsupport::digest(ws.db, QStringLiteral("SELECT * FROM (") +
                                                QString::fromLatin1(kByHand) +
                                                QStringLiteral(") AS h WHERE dt = '2025-05-02'")));
    }

    // Killed before, during and after the swap transaction, then resumed:
    // the target equals an uninterrupted run's, every leaf attached, no
    // table left behind but the saved leaves rewind_swaps names.
    void killedAndResumed_data() {
        QTest::addColumn<QString>("failpoint");
        QTest::addColumn<int>("committed");
        QTest::newRow("before the swap") << QStringLiteral("before-swap:2") << 1;
        QTest::newRow("after the swap") << QStringLiteral("after-swap:2") << 1;
        QTest::newRow("before the commit") << QStringLiteral("before-commit:3") << 2;
        QTest::newRow("after the commit") << QStringLiteral("after-commit:3") << 3;
    }
    void killedAndResumed() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        QFETCH(QString, failpoint);
        QFETCH(int, committed);
        const Ws ws = standard();
        qputenv("REWIND_CHUNK_ROWS", "1");
        auto unset = qScopeGuard([] { qunsetenv("REWIND_CHUNK_ROWS"); });
        const testsupport::Resumed r = testsupport::killThenResume(
            {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
             QStringLiteral("--execute"), QStringLiteral("--json")},
            ws.args(), failpoint, committed, [&] { return leftovers(ws.db); });
        QVERIFY2(r.problem.isEmpty(), qPrintable(r.problem));
        QCOMPARE(fact(ws.db), expected(ws.db));
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_inherits WHERE inhparent = "
                                              "'fact'::regclass")),
                 5);
        QCOMPARE(leftovers(ws.db), QString());
        QCOMPARE(testsupport::ledgerProblems(ws.db, QStringLiteral("fact"), r.runId, 5), QString());
    }
};

QTEST_GUILESS_MAIN(TestPartitionSwap)
#include "tst_partitionswap.moc"
