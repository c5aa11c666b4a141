// Partitioned PostgreSQL targets (issue 43), continued from
// tst_partitionswap: what `partitions` says of each leaf, a swapped leaf's
// grants and storage, swaps turned off, a taken leaf name, the leaves
// listed, a rollback after a column was added, and pg_partman's parents.
#include "tests/partitionswapfixture.h"

using namespace rw;
using namespace swaptest;

class TestPartitionSwapLeaves : public QObject, protected SwapFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        QVERIFY(m_dir.isValid());
    }

    // `partitions` names each partition's leaf and its bound: a day's own
    // leaf, a month's leaf for the days it holds, the DEFAULT partition.
    void partitionsShowLeaves() {
        if (!needsPostgres())
            QSKIP("partitioned tables are PostgreSQL's");
        QStringList s = kSource;
        s << partitionedTarget(
                 {QStringLiteral("CREATE TABLE fact_d1 PARTITION OF fact FOR VALUES FROM "
                                 "('2025-05-01') TO ('2025-05-02')"),
                  QStringLiteral("CREATE TABLE fact_rest_of_may PARTITION OF fact FOR VALUES "
                                 "FROM ('2025-05-02') TO ('2025-05-04')"),
                  QStringLiteral("CREATE TABLE fact_other PARTITION OF fact DEFAULT")})
          << kLoad;
        const Ws ws = make(s);
        const Proc parts = ctl(ws, {QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                    QStringLiteral("fact"), QStringLiteral("--json")});
        QVERIFY2(parts.exitCode == 0, parts.err.constData());
        QHash<QString, QPair<QString, QString>> leaves;
        for (const auto &v : json(parts)[QStringLiteral("partitions")].toArray()) {
            const QJsonObject o = v.toObject();
            leaves.insert(o[QStringLiteral("partition")].toString(),
                          {o[QStringLiteral("leaf")].toString(),
                           o[QStringLiteral("leaf_bounds")].toString()});
        }
        QCOMPARE(leaves.value(QStringLiteral("2025-05-01")),
                 qMakePair(QStringLiteral("fact_d1"),
                           QStringLiteral("FOR VALUES FROM ('2025-05-01') TO ('2025-05-02')")));
        QCOMPARE(leaves.value(QStringLiteral("2025-05-03")).first,
                 QStringLiteral("fact_rest_of_may"));
        QCOMPARE(leaves.value(QStringLiteral("2025-05-04")),
                 qMakePair(QStringLiteral("fact_other"), QStringLiteral("DEFAULT")));
    }

    // The leaf that replaces another keeps what was the old one's own: a
    // grant, a storage option.
    void leafGrantsAndStorageKept() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        QStringList s = kSource;
        s << partitionedTarget(dailyLeaves(4)) << kLoad
          << QStringLiteral("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                            "'rewind_swap_reader') THEN CREATE ROLE rewind_swap_reader; END IF; "
                            "END $$")
          << QStringLiteral("GRANT SELECT ON fact_p2025_05_02 TO rewind_swap_reader")
          << QStringLiteral("ALTER TABLE fact_p2025_05_02 SET (fillfactor = 70)")
          // Day 3's leaf belongs to another role than the parent's.
          << QStringLiteral("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                            "'rewind_swap_owner') THEN CREATE ROLE rewind_swap_owner; END IF; "
                            "END $$")
          << QStringLiteral("ALTER TABLE fact_p2025_05_03 OWNER TO rewind_swap_owner");
        const Ws ws = make(s);
        const qint64 before = leafOid(ws.db, QStringLiteral("fact_p2025_05_02"));
        const qint64 before3 = leafOid(ws.db, QStringLiteral("fact_p2025_05_03"));
        const Proc run =
            ctl(ws, {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
                     QStringLiteral("--partition"), QStringLiteral("2025-05-02"),
                     QStringLiteral("--partition"), QStringLiteral("2025-05-03"),
                     QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        for (const auto &v : json(run)[QStringLiteral("partitions")].toArray())
            QCOMPARE(v.toObject()[QStringLiteral("publish")].toString(), QStringLiteral("swap"));
        QVERIFY(leafOid(ws.db, QStringLiteral("fact_p2025_05_02")) != before);
        QVERIFY(leafOid(ws.db, QStringLiteral("fact_p2025_05_03")) != before3);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_class WHERE oid = "
                                              "'fact_p2025_05_03'::regclass AND relowner = "
                                              "'rewind_swap_owner'::regrole")),
                 1);
        QCOMPARE(testsupport::digest(ws.db, QStringLiteral("SELECT dt, id, amount, updated_at FROM "
                                                           "fact WHERE dt IN ('2025-05-02', "
                                                           "'2025-05-03')")),
                 testsupport::digest(ws.db, QStringLiteral("SELECT * FROM (") +
                                                QString::fromLatin1(kByHand) +
                                                QStringLiteral(") AS h WHERE dt IN ('2025-05-02', "
                                                               "'2025-05-03')")));
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT CASE WHEN has_table_privilege("
                                              "'rewind_swap_reader', 'fact_p2025_05_02', "
                                              "'SELECT') THEN 1 ELSE 0 END")),
                 1);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_class WHERE oid = "
                                              "'fact_p2025_05_02'::regclass AND reloptions @> "
                                              "ARRAY['fillfactor=70']")),
                 1);
    }

    // REWIND_PARTITION_SWAP=0: rows, said.
    void swapsTurnedOff() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        const Ws ws = standard();
        qputenv("REWIND_PARTITION_SWAP", "0");
        auto unset = qScopeGuard([] { qunsetenv("REWIND_PARTITION_SWAP"); });
        const qint64 before = leafOid(ws.db, QStringLiteral("fact_p2025_05_02"));
        const Proc run = runDay(ws, QStringLiteral("2025-05-02"));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject p = json(run)[QStringLiteral("partitions")].toArray()[0].toObject();
        QCOMPARE(p[QStringLiteral("publish")].toString(), QStringLiteral("rows"));
        QVERIFY(p[QStringLiteral("publish_reason")].toString().contains(
            QStringLiteral("REWIND_PARTITION_SWAP=0")));
        QCOMPARE(leafOid(ws.db, QStringLiteral("fact_p2025_05_02")), before);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM rewind_swaps")), 0);
    }

    // A new day's leaf name held by another table (a leaf detached and
    // kept): the new leaf gets a name of its own.
    void newLeafNameTaken() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        QStringList s = kSource;
        s << QStringLiteral("INSERT INTO raw VALUES ('2025-05-05', 1, 1.0, 1)")
          << partitionedTarget(dailyLeaves(4)) << kLoad
          << QStringLiteral("CREATE TABLE fact_p2025_05_05 (kept_from TEXT)");
        const Ws ws = make(s);
        const Proc run = runDay(ws, QStringLiteral("2025-05-05"));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(publishOf(run), QStringLiteral("swap"));
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM fact WHERE dt = "
                                              "'2025-05-05'")),
                 1);
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM pg_inherits AS i JOIN "
                                              "pg_class AS c ON c.oid = i.inhrelid WHERE "
                                              "i.inhparent = 'fact'::regclass AND "
                                              "starts_with(c.relname, 'fact_rw_')")),
                 1);
    }

    // A LIST-partitioned target: a leaf of one value swaps too.
    void listLeaves() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        QStringList s = kSource;
        s << QStringLiteral("CREATE TABLE fact (dt DATE NOT NULL, id BIGINT NOT NULL, amount "
                            "DOUBLE PRECISION, updated_at BIGINT, PRIMARY KEY (dt, id)) "
                            "PARTITION BY LIST (dt)");
        for (int d = 1; d <= 4; ++d)
            s << QStringLiteral("CREATE TABLE fact_l%1 PARTITION OF fact FOR VALUES IN "
                                "('2025-05-0%1')")
                     .arg(d);
        s << kLoad;
        const Ws ws = make(s);
        const qint64 before = leafOid(ws.db, QStringLiteral("fact_l2"));
        const Proc run = runDay(ws, QStringLiteral("2025-05-02"));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(publishOf(run), QStringLiteral("swap"));
        QVERIFY(leafOid(ws.db, QStringLiteral("fact_l2")) != before);
        QCOMPARE(testsupport::digest(ws.db, QStringLiteral("SELECT dt, id, amount, updated_at FROM "
                                                           "fact WHERE dt = '2025-05-02'")),
                 testsupport::digest(ws.db, QStringLiteral("SELECT * FROM (") +
                                                QString::fromLatin1(kByHand) +
                                                QStringLiteral(") AS h WHERE dt = '2025-05-02'")));
    }

    // A NOT NULL column added (with a default, as a loader's would be), a
    // type widened and a CHECK added on the parent after a swap: the
    // rollback makes the saved leaf match and attaches it again.
    void rollbackAfterColumnAdded() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        const Ws ws = standard();
        const QString before = testsupport::digest(
            ws.db, QStringLiteral("SELECT dt, id, amount, updated_at FROM fact"));
        const Proc run = runDay(ws, QStringLiteral("2025-05-02"));
        QVERIFY2(run.exitCode == 0, run.err.constData());
        {
            auto handle = Database::open(ws.db);
            QVERIFY(handle);
            QVERIFY(handle->execAll(
                {QStringLiteral("ALTER TABLE fact ADD COLUMN note TEXT NOT NULL DEFAULT 'x'"),
                 QStringLiteral("ALTER TABLE fact ALTER COLUMN updated_at TYPE NUMERIC"),
                 QStringLiteral("ALTER TABLE fact ADD CONSTRAINT fact_amount_known CHECK (amount "
                                "IS NOT NULL)")}));
        }
        const Proc back = ctl(ws, {QStringLiteral("rollback"), QStringLiteral("--run"),
                                   QString::number(json(run)[QStringLiteral("run_id")].toInteger()),
                                   QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(back.exitCode == 0, back.err.constData());
        QCOMPARE(testsupport::digest(
                     ws.db, QStringLiteral("SELECT dt, id, amount, CAST(updated_at AS BIGINT) FROM "
                                           "fact")),
                 before);
        // Filled as the parent filled its rows when the column came.
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM fact WHERE note IS DISTINCT "
                                              "FROM 'x'")),
                 0);
        QCOMPARE(leftovers(ws.db), QString());
    }

    // A parent pg_partman made: backfilled, overwritten by swap, rolled
    // back, and maintained by partman after each.
    void pgPartman() {
        if (!needsPostgres())
            QSKIP("partition swap is PostgreSQL's");
        QStringList s = kSource;
        s << QStringLiteral("CREATE TABLE fact (dt DATE NOT NULL, id BIGINT NOT NULL, amount "
                            "DOUBLE PRECISION, updated_at BIGINT, PRIMARY KEY (dt, id)) PARTITION "
                            "BY RANGE (dt)");
        const Ws ws = make(s);
        {
            auto handle = Database::open(ws.db);
            QVERIFY(handle);
            if (!handle->execAll({QStringLiteral("CREATE SCHEMA partman"),
                                  QStringLiteral("CREATE EXTENSION pg_partman SCHEMA partman")}))
                QSKIP("pg_partman is not installed on the test server (Debian: "
                      "postgresql-15-partman)");
            // pg_partman 4 (Debian 12's); 5 spells create_parent otherwise.
            if (!handle->execAll(
                    {QStringLiteral("SELECT partman.create_parent('public.fact', 'dt', 'native', "
                                    "'daily', p_premake := 2, p_start_partition := '2025-04-28', "
                                    "p_jobmon := false)")}))
                QSKIP("pg_partman's create_parent is not version 4's (Debian 12 ships 4.7)");
        }
        const QStringList run{QStringLiteral("run"), QStringLiteral("--dataset"),
                              QStringLiteral("fact"), QStringLiteral("--execute"),
                              QStringLiteral("--json")};
        const Proc backfill = ctl(ws, run);
        QVERIFY2(backfill.exitCode == 0, backfill.err.constData());
        QCOMPARE(fact(ws.db), expected(ws.db));
        QVERIFY(scalar(ws.db, QStringLiteral("UPDATE raw SET amount = amount + 1 WHERE dt = "
                                             "'2025-05-03' RETURNING 1")) > 0);
        const qint64 before = leafOid(ws.db, QStringLiteral("fact_p2025_05_03"));
        const QString day3 = testsupport::digest(
            ws.db, QStringLiteral("SELECT * FROM fact WHERE dt = '2025-05-03'"));
        const Proc overwrite = runDay(ws, QStringLiteral("2025-05-03"));
        QVERIFY2(overwrite.exitCode == 0, overwrite.err.constData());
        QCOMPARE(publishOf(overwrite), QStringLiteral("swap"));
        QCOMPARE(fact(ws.db), expected(ws.db));
        QVERIFY(leafOid(ws.db, QStringLiteral("fact_p2025_05_03")) != before);
        const auto maintain = [&]() -> bool {
            auto handle = Database::open(ws.db);
            return handle && handle->execAll({QStringLiteral("SELECT partman.run_maintenance("
                                                             "'public.fact', p_jobmon := false)")});
        };
        QVERIFY(maintain());
        const qint64 overwriteRun = json(overwrite)[QStringLiteral("run_id")].toInteger();
        const Proc back = ctl(ws, {QStringLiteral("rollback"), QStringLiteral("--run"),
                                   QString::number(overwriteRun), QStringLiteral("--execute"),
                                   QStringLiteral("--json")});
        QVERIFY2(back.exitCode == 0, back.err.constData());
        QCOMPARE(leafOid(ws.db, QStringLiteral("fact_p2025_05_03")), before);
        QCOMPARE(testsupport::digest(ws.db,
                                     QStringLiteral("SELECT * FROM fact WHERE dt = '2025-05-03'")),
                 day3);
        QVERIFY(maintain());
        QCOMPARE(scalar(ws.db, QStringLiteral("SELECT count(*) FROM fact WHERE dt <> "
                                              "'2025-05-03'")),
                 scalar(ws.db, QStringLiteral("SELECT count(*) FROM (") +
                                   QString::fromLatin1(kByHand) +
                                   QStringLiteral(") AS h WHERE dt <> '2025-05-03'")));
        QCOMPARE(leftovers(ws.db), QString());
    }
};

QTEST_GUILESS_MAIN(TestPartitionSwapLeaves)
#include "tst_partitionswapleaves.moc"
