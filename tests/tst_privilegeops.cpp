// Least privilege for the operations beyond a plain run (issue 45): a run
// that changes the target's schema, a rollback of it, a duplicate recovery,
// a freeze made again, a freeze of a partitioned target, prune and DLQ
// replay are each refused before any change (exit 2) to an operator who
// holds the documented grants but not what that operation needs besides,
// naming it; a target in a schema the role may not use is named by that
// schema; the GRANT said is one PostgreSQL takes as written.
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QTest>

using namespace rw;

namespace {

const QString kOp = QStringLiteral("prv-op"); // a name GRANT must quote

const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, dt TEXT, amount INTEGER)"),
    QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60) "
                   "INSERT INTO raw_sales SELECT i, '2025-05-0' || ((i % 3) + 1), i FROM n"),
    QStringLiteral("CREATE TABLE fact_sales (order_id INTEGER, dt TEXT, amount INTEGER)"),
    // The source gained a column the target lacks.
    QStringLiteral("CREATE TABLE raw_wide AS SELECT order_id, dt, amount, 'north' AS region FROM "
                   "raw_sales"),
    QStringLiteral("CREATE TABLE fact_wide (order_id INTEGER, dt TEXT, amount INTEGER)"),
    // A log-table stream, its sink made by a replay of the owner's.
    QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, event_id TEXT, "
                   "record_ts TEXT, payload TEXT)"),
    QStringLiteral(
        "INSERT INTO ev_log VALUES (0, 0, 'e1', '2025-05-01T10:00:00Z', "
        "'{\"order_id\": 1}'), (0, 1, 'e2', '2025-05-01T10:01:00Z', '{\"order_id\": 2}')"),
};

const QByteArray kSpec = R"({"datasets": {
  "sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
            "key": ["order_id"], "write": "merge"},
  "wide": {"source": "raw_wide", "target": "fact_wide", "partition_column": "dt",
           "key": ["order_id"], "write": "merge", "on_schema_change": "append_new_columns"},
  "parts": {"source": "raw_sales", "target": "fact_parts", "partition_column": "dt",
            "key": ["order_id"], "write": "overwrite_partition"},
  "marts": {"source": "raw_sales", "target": "mart.fact_m", "partition_column": "dt",
            "key": ["order_id"], "write": "merge"}},
 "streams": {"ev": {"log": "ev_log", "sink": "ev_sink", "fields": {"order_id": "$.order_id"}}}})";

} // namespace

class TestPrivilegeOps : public QObject {
    Q_OBJECT

    std::optional<testsupport::WorkspaceFixture> m_ws;

    testsupport::CliResult cliAs(const QString &role, const QStringList &command) const {
        QUrl u(m_ws->dbPath);
        u.setUserName(role);
        return testsupport::runCli(command + QStringList{QStringLiteral("--db"), u.toString(),
                                                         QStringLiteral("--spec"), m_ws->specPath});
    }
    testsupport::CliResult owner(const QStringList &command) const { return m_ws->cli(command); }
    qint64 count(const QString &sql) const {
        auto v = m_ws->db().scalar(sql);
        return v ? v->toLongLong() : -1;
    }
    QStringList columns(const QString &table) const {
        QStringList names;
        if (auto cols = m_ws->db().columns(table))
            for (const ColumnInfo &c : *cols)
                names << c.name;
        return names;
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        if (!testsupport::onPostgres())
            return;
        m_ws.emplace(kWarehouse, kSpec);
        const Database &db = m_ws->db();
        const QString database = db.url().databaseName;
        const QString op = db.quote(kOp);
        // The grants docs/security.md gives rewind_operator (with
        // rewind_browse's), for these tables; nothing of any table's owner.
        QVERIFY(db.execAll({
            QStringLiteral("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = "
                           "'%1') THEN CREATE ROLE %2 LOGIN; END IF; END $$")
                .arg(kOp, op),
        }));
        QVERIFY(
            db.execAll(testsupport::browseGrants(
                           op, db.quote(database),
                           QStringLiteral("raw_sales, raw_wide, fact_sales, fact_wide")) +
                       testsupport::operateGrants(op, QStringLiteral("fact_sales, fact_wide"))));
        QVERIFY(db.execAll({
            // A partitioned target: TRIGGER on the parent, not on its leaves.
            QStringLiteral("CREATE TABLE fact_parts (order_id INTEGER, dt TEXT, amount INTEGER) "
                           "PARTITION BY LIST (dt)"),
            QStringLiteral("CREATE TABLE fact_parts_1 PARTITION OF fact_parts FOR VALUES IN "
                           "('2025-05-01')"),
            QStringLiteral("CREATE TABLE fact_parts_2 PARTITION OF fact_parts FOR VALUES IN "
                           "('2025-05-02', '2025-05-03')"),
            QStringLiteral("GRANT SELECT, INSERT, DELETE, TRIGGER ON fact_parts TO %1").arg(op),
            QStringLiteral("GRANT INSERT ON rewind.rewind_frozen TO %1").arg(op),
            // A schema the operator may not use.
            QStringLiteral("CREATE SCHEMA mart"),
            QStringLiteral("CREATE TABLE mart.fact_m (order_id INTEGER, dt TEXT, amount INTEGER)"),
        }));
    }

    // A run whose schema change alters the target is its owner's: refused
    // before its run row, the target's columns as they were.
    void aSchemaChangeNeedsTheTargetsOwner() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        const qint64 runs = count(QStringLiteral("SELECT COUNT(*) FROM rewind_runs"));
        const QStringList run = {QStringLiteral("run"), QStringLiteral("--dataset"),
                                 QStringLiteral("wide"), QStringLiteral("--execute")};
        const auto r = cliAs(kOp, run);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("ownership on table fact_wide (the target: the run "
                                               "adds column region")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("GRANT <owner of fact_wide> TO \"prv-op\"")),
                 qPrintable(r.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_runs")), runs);
        QCOMPARE(columns(QStringLiteral("fact_wide")).size(), 3);
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM fact_wide")), 0);

        // The owner runs it; undoing it (dropping the column) is the owner's too.
        const auto done = owner(run);
        QVERIFY2(done.exitCode == 0, qPrintable(done.err));
        QVERIFY(columns(QStringLiteral("fact_wide")).contains(QStringLiteral("region")));
        const qint64 id = count(QStringLiteral(
            "SELECT MAX(run_id) FROM rewind_runs WHERE dataset = 'wide' AND status = 'succeeded'"));
        const auto back = cliAs(kOp, {QStringLiteral("rollback"), QStringLiteral("--run"),
                                      QString::number(id), QStringLiteral("--execute")});
        QCOMPARE(back.exitCode, 2);
        QVERIFY2(back.err.contains(QStringLiteral("ownership on table fact_wide")),
                 qPrintable(back.err));
        QVERIFY(columns(QStringLiteral("fact_wide")).contains(QStringLiteral("region")));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM fact_wide")), 60);
    }

    // A recovery's last steps (its unique index, the unfreeze) are the
    // target's owner's: refused before its first step, nothing frozen.
    void aRecoveryIsCheckedBeforeItsFirstStep() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        const qint64 audit = count(QStringLiteral("SELECT COUNT(*) FROM rewind_audit"));
        const auto r = cliAs(kOp, {QStringLiteral("recover"), QStringLiteral("--dataset"),
                                   QStringLiteral("sales"), QStringLiteral("--execute")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("recovery of sales refused before any change")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("ownership, TRIGGER on table fact_sales")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("DELETE on table rewind.rewind_frozen")),
                 qPrintable(r.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_audit")), audit);
    }

    // A freeze of a partitioned target makes its row trigger on every leaf:
    // a leaf the role may not put a trigger on is named. A freeze made again
    // drops the triggers there first, which is the owner's.
    void freezesOfPartitionsAndFrozenTargets() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        const QStringList freeze = {QStringLiteral("freeze"),   QStringLiteral("--dataset"),
                                    QStringLiteral("parts"),    QStringLiteral("--reason"),
                                    QStringLiteral("incident"), QStringLiteral("--execute")};
        const auto leaves = cliAs(kOp, freeze);
        QCOMPARE(leaves.exitCode, 2);
        QVERIFY2(leaves.err.contains(QStringLiteral(
                     "TRIGGER on table fact_parts or its partitions (fact_parts_1, fact_parts_2)")),
                 qPrintable(leaves.err));
        QVERIFY2(leaves.err.contains(
                     QStringLiteral("GRANT TRIGGER ON fact_parts_1, fact_parts_2 TO \"prv-op\"")),
                 qPrintable(leaves.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        QVERIFY(m_ws->db().execAll({QStringLiteral("GRANT TRIGGER ON fact_parts_1, fact_parts_2 "
                                                   "TO %1")
                                        .arg(m_ws->db().quote(kOp))}));
        const auto frozen = cliAs(kOp, freeze);
        QVERIFY2(frozen.exitCode == 0, qPrintable(frozen.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 1);

        const auto again = cliAs(kOp, freeze);
        QCOMPARE(again.exitCode, 2);
        QVERIFY2(again.err.contains(QStringLiteral("ownership on table fact_parts (the target, "
                                                   "whose freeze triggers are made again)")),
                 qPrintable(again.err));
        const auto thawed = owner({QStringLiteral("unfreeze"), QStringLiteral("--dataset"),
                                   QStringLiteral("parts"), QStringLiteral("--reason"),
                                   QStringLiteral("done"), QStringLiteral("--execute")});
        QVERIFY2(thawed.exitCode == 0, qPrintable(thawed.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
    }

    // PostgreSQL will not look a table up in a schema the role may not use:
    // the refusal names the schema, never "permission denied for schema".
    void aSchemaWithoutUsageIsNamed() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        const auto r = cliAs(kOp, {QStringLiteral("run"), QStringLiteral("--dataset"),
                                   QStringLiteral("marts"), QStringLiteral("--execute")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("lacks USAGE on schema mart")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("GRANT USAGE ON SCHEMA mart TO \"prv-op\"")),
                 qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("permission denied")), qPrintable(r.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM mart.fact_m")), 0);
    }

    // Pruning deletes before-images (and indexes them first): the owner's
    // of that table; refused, the images stay.
    void pruneIsChecked() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        const auto ran = owner({QStringLiteral("run"), QStringLiteral("--dataset"),
                                QStringLiteral("sales"), QStringLiteral("--execute")});
        QVERIFY2(ran.exitCode == 0, qPrintable(ran.err));
        const qint64 images = count(QStringLiteral("SELECT COUNT(*) FROM rewind_images_sales"));
        const auto r = cliAs(kOp, {QStringLiteral("prune"), QStringLiteral("--dataset"),
                                   QStringLiteral("sales"), QStringLiteral("--keep"),
                                   QStringLiteral("0"), QStringLiteral("--execute")});
        QVERIFY2(r.exitCode == 2, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("ownership, DELETE on table rewind_images_sales")),
                 qPrintable(r.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_images_sales")), images);
        QCOMPARE(count(QStringLiteral(
                     "SELECT COUNT(*) FROM rewind_runs WHERE images_pruned_at IS NOT NULL")),
                 0);
    }

    // The stream and DLQ commands, each tried as the operator (who holds
    // the run grants but none of the streams' or the DLQ's): refused
    // before any change, naming a privilege it lacks.
    void streamAndDlqCommandsAreChecked_data() {
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<QString>("lacks");
        const auto l = [](const char *s) { return QString::fromLatin1(s); };
        QTest::newRow("offsets-reset")
            << QStringList{l("offsets-reset"), l("--stream"), l("ev"), l("--group"), l("g"),
                           l("--to-earliest"), l("--execute")}
            << l("INSERT, UPDATE on table rewind.rewind_offsets");
        QTest::newRow("replay") << QStringList{l("replay"),  l("--stream"), l("ev"),
                                               l("--group"), l("g"),        l("--execute")}
                                << l("on table rewind.rewind_replays");
        QTest::newRow("dlq discard")
            << QStringList{l("dlq"),      l("discard"), l("--status"), l("new"),
                           l("--reason"), l("noise"),   l("--execute")}
            << l("UPDATE on table rewind.rewind_dlq");
        QTest::newRow("dlq fix") << QStringList{l("dlq"),      l("fix"),   l("--status"),
                                                l("new"),      l("--set"), l("$.amount=1"),
                                                l("--execute")}
                                 << l("UPDATE on table rewind.rewind_dlq");
        QTest::newRow("unfreeze") << QStringList{l("unfreeze"), l("--dataset"), l("sales"),
                                                 l("--reason"), l("x"),         l("--execute")}
                                  << l("ownership on table fact_sales");
    }
    void streamAndDlqCommandsAreChecked() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        QFETCH(QStringList, command);
        QFETCH(QString, lacks);
        const qint64 audit = count(QStringLiteral("SELECT COUNT(*) FROM rewind_audit"));
        const auto r = cliAs(kOp, command);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("refused before any change")) &&
                     r.err.contains(lacks),
                 qPrintable(r.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_audit")), audit);
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_offsets WHERE group_id = 'g'")),
                 0);
    }

    // A DLQ replay updates records and writes targets: refused to a role
    // without UPDATE on the DLQ, the record as it was.
    void dlqReplayIsChecked() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        QVERIFY(m_ws->db().execAll({QStringLiteral(
            "INSERT INTO rewind_dlq (source_kind, source_name, error_class, error, "
            "original_payload, payload, status, attempts, first_seen) VALUES ('dataset', 'sales', "
            "'check_failed', 'amount is negative', '{\"order_id\": 999, \"dt\": \"2025-05-01\", "
            "\"amount\": 5}', '{\"order_id\": 999, \"dt\": \"2025-05-01\", \"amount\": 5}', 'new', "
            "0, '2025-05-06T12:00:00.000Z')")}));
        const auto r = cliAs(
            kOp, {QStringLiteral("dlq"), QStringLiteral("replay"), QStringLiteral("--execute")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("DLQ replay refused before any change")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("UPDATE on table rewind.rewind_dlq")),
                 qPrintable(r.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_dlq WHERE status = 'new'")), 1);
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM fact_sales WHERE order_id = 999")), 0);
        // The owner may: the record lands.
        const auto done =
            owner({QStringLiteral("dlq"), QStringLiteral("replay"), QStringLiteral("--execute")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM fact_sales WHERE order_id = 999")), 1);
    }
};

QTEST_GUILESS_MAIN(TestPrivilegeOps)
#include "tst_privilegeops.moc"
