// Identifiers from specs are validated against the catalog and quoted;
// values are bound. Hostile names work as names and never as SQL.
#include "core/batch/partitions.h"
#include "core/sql/database.h"
#include "core/workspace/spec.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace rw;

namespace {

QJsonObject cliJson(const QStringList &arguments, int expectedExit = 0) {
    const auto r = testsupport::runCli(arguments);
    if (r.exitCode != expectedExit)
        qWarning().noquote() << arguments.join(u' ') << "exit" << r.exitCode << r.out << r.err;
    return r.exitCode == expectedExit ? QJsonDocument::fromJson(r.out.toUtf8()).object()
                                      : QJsonObject();
}

} // namespace

class TestIdentifiers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void quoting_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("quoted");
        QTest::newRow("plain") << QStringLiteral("sales") << QStringLiteral("\"sales\"");
        QTest::newRow("space") << QStringLiteral("my sales") << QStringLiteral("\"my sales\"");
        QTest::newRow("double quote")
            << QStringLiteral("we\"ird") << QStringLiteral("\"we\"\"ird\"");
        QTest::newRow("injection") << QStringLiteral("x\"; DROP TABLE victims; --")
                                   << QStringLiteral("\"x\"\"; DROP TABLE victims; --\"");
        QTest::newRow("unicode") << QStringLiteral("Ventes é 表")
                                 << QStringLiteral("\"Ventes é 表\"");
    }

    void quoting() {
        QFETCH(QString, name);
        QFETCH(QString, quoted);
        auto dialect = makeDialect(SqlDialect::Kind::Sqlite);
        QCOMPARE(dialect->quote(name), quoted);
    }

    // A whole workspace whose tables and columns have hostile names.
    void hostileNamesWorkEndToEnd() {
        QTemporaryDir dir;
        const QString source = QStringLiteral("raw \"sales\"; DROP TABLE victims; --");
        const QString target = QStringLiteral("Ventes publiées 表");
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("hostile.db"),
            {QStringLiteral("CREATE TABLE victims (id INTEGER)"),
             QStringLiteral("INSERT INTO victims VALUES (1), (2)"),
             QStringLiteral("CREATE TABLE \"raw \"\"sales\"\"; DROP TABLE victims; --\" (\"order "
                            "id\" INTEGER, \"day'; --\" TEXT, \"a\"\"mount\" REAL)"),
             QStringLiteral("INSERT INTO \"raw \"\"sales\"\"; DROP TABLE victims; --\" VALUES (1, "
                            "'d1', 1.0), (2, 'd1', 2.0), (3, 'd2', 3.0), (NULL, 'd2', 4.0)"),
             QStringLiteral("CREATE TABLE \"Ventes publiées 表\" (\"order id\" INTEGER, \"day'; "
                            "--\" TEXT, \"a\"\"mount\" REAL)"),
             QStringLiteral("INSERT INTO \"Ventes publiées 表\" VALUES (1, 'd1', 1.0), (1, 'd1', "
                            "1.0), (NULL, 'd2', 4.0), (NULL, 'd2', 4.0)")});
        const QByteArray spec = "{\"datasets\": {\"hostile ds \\\"x\\\"\": {"
                                "\"source\": \"raw \\\"sales\\\"; DROP TABLE victims; --\","
                                "\"target\": \"Ventes publi\u00e9es \u8868\","
                                "\"partition_column\": \"day'; --\","
                                "\"key\": [\"order id\"],"
                                "\"order_by\": \"a\\\"mount\"}}}";
        const QString specPath = testsupport::writeFile(dir, QStringLiteral("hostile.json"), spec);
        auto ws = openWorkspace(db.url().text, specPath);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        const DatasetSpec &d = ws->spec.datasets.at(0);
        QCOMPARE(d.source, source);
        QCOMPARE(d.target, target);

        auto parts = listPartitions(ws->db, d);
        QVERIFY2(parts, qPrintable(parts ? QString() : parts.error().message));
        QCOMPARE(parts->size(), std::size_t(2));
        QCOMPARE(parts->at(0).partition.value_or(QString()), QStringLiteral("d1"));
        QCOMPARE(parts->at(0).sourceRows, 2);
        QCOMPARE(parts->at(0).targetRows, 2);
        QCOMPARE(parts->at(0).duplicateKeys, 1); // key 1 twice
        QCOMPARE(parts->at(1).sourceRows, 2);
        QCOMPARE(parts->at(1).duplicateKeys, 1); // the NULL key twice: NULL matches NULL

        auto victims = ws->db.scalar(QStringLiteral("SELECT COUNT(*) FROM victims"));
        QVERIFY(victims);
        QCOMPARE(victims->toInt(), 2);
    }

    void unknownRelationIsRefusedNotExecuted() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("inj.db"),
                                            {QStringLiteral("CREATE TABLE victims (id INTEGER)"),
                                             QStringLiteral("INSERT INTO victims VALUES (1)")});
        auto quoted = db.quotedRelation(QStringLiteral("victims; DROP TABLE victims"));
        QVERIFY(!quoted);
        QCOMPARE(quoted.error().code, Error::Code::BadInput);
        QVERIFY(quoted.error().message.contains(
            QStringLiteral("no table or view named \"victims; DROP TABLE victims\"")));
        auto ok = db.quotedRelation(QStringLiteral("victims"));
        QVERIFY(ok);
        QCOMPARE(*ok, QStringLiteral("\"victims\""));
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM victims"))->toInt(), 1);
    }

    void valuesAreBound() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("bind.db"),
                                            {QStringLiteral("CREATE TABLE t (v TEXT)")});
        const QString hostile = QStringLiteral("'); DROP TABLE t; --");
        QVERIFY(db.exec(QStringLiteral("INSERT INTO t VALUES (?)"), {hostile}));
        auto v = db.scalar(QStringLiteral("SELECT v FROM t WHERE v = ?"), {hostile});
        QVERIFY(v);
        QCOMPARE(v->toString(), hostile);
    }

    // sales.fact_sales is table fact_sales in schema sales on PostgreSQL:
    // every command reads and writes there, and a first run creates the
    // target in its schema; public.x names the visible x.
    void schemaQualifiedTablesOnPostgres() {
        if (!testsupport::onPostgres())
            QSKIP("SQLite has no schemas: a dotted name is one table there (dottedNameIsOneTable)");
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("schemas.db"),
            {QStringLiteral("CREATE SCHEMA sales"), QStringLiteral("CREATE SCHEMA feeds"),
             QStringLiteral("CREATE TABLE sales.fact_sales (id INTEGER, dt TEXT, amount "
                            "NUMERIC(12,2), updated_at TEXT)"),
             QStringLiteral("INSERT INTO sales.fact_sales VALUES (1, 'd1', 10.50, 't1'), (1, 'd1', "
                            "11.00, 't2'), (2, 'd1', 5, 't1'), (3, 'd2', 7, 't1')"),
             // a same-named table in public must not be what sales.fact_sales means
             QStringLiteral("CREATE TABLE fact_sales (id INTEGER, dt TEXT, amount NUMERIC(12,2), "
                            "updated_at TEXT)"),
             QStringLiteral("CREATE TABLE public.dim (id INTEGER)"),
             QStringLiteral("INSERT INTO public.dim VALUES (1), (2), (3)"),
             QStringLiteral("CREATE TABLE feeds.orders_log (partition_id INTEGER, log_offset "
                            "INTEGER, event_id TEXT, record_ts TEXT, payload TEXT)"),
             QStringLiteral("INSERT INTO feeds.orders_log VALUES (0, 0, 'e1', "
                            "'2026-01-01T00:00:00Z', '{\"amount\": 1}'), "
                            "(0, 1, 'e2', '2026-01-01T00:00:01Z', '{\"amount\": 2}'), (0, 2, 'e1', "
                            "'2026-01-01T00:00:02Z', '{\"amount\": 1}')")});
        const QString spec = testsupport::writeFile(
            dir, QStringLiteral("schemas.json"),
            R"({"datasets": {"sales": {"source": "sales.fact_sales", "target": "sales.fact_out", "partition_column": "dt",
                 "key": ["id"], "order_by": "updated_at", "write": "merge",
                 "checks": [{"type": "references", "column": "id", "table": "public.dim", "to": "id"}]}},
                "streams": {"orders": {"log": "feeds.orders_log", "sink": "feeds.orders_sink",
                 "fields": {"amount": "$.amount"}}}})");
        const QStringList ws{QStringLiteral("--db"), db.url().text, QStringLiteral("--spec"), spec,
                             QStringLiteral("--json")};

        auto parts = cliJson(QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                         QStringLiteral("sales")} +
                             ws);
        QCOMPARE(parts.value(u"partitions").toArray().size(), 2);
        QCOMPARE(
            parts.value(u"partitions").toArray().at(0).toObject().value(u"source_rows").toInt(), 3);

        auto run = cliJson(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                       QStringLiteral("sales"), QStringLiteral("--execute")} +
                           ws);
        QCOMPARE(run.value(u"status").toString(), QStringLiteral("succeeded"));
        QCOMPARE(run.value(u"totals").toObject().value(u"inserted").toInt(), 3);
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM sales.fact_out"))->toInt(), 3);
        QCOMPARE(
            db.scalar(QStringLiteral(
                          "SELECT COUNT(*) FROM sales.fact_out WHERE id = 1 AND amount = 11.00"))
                ->toInt(),
            1);
        QCOMPARE(
            db
                .scalar(QStringLiteral(
                    "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                    "WHERE attrelid = CAST('sales.fact_out' AS regclass) AND attname = 'amount'"))
                ->toString(),
            QStringLiteral("numeric(12,2)"));
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM public.fact_sales"))->toInt(), 0);
        QCOMPARE(
            db.scalar(QStringLiteral("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'fact_out'"))
                ->toInt(),
            1);

        // The second run finds the target it created and changes nothing.
        auto again = cliJson(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                         QStringLiteral("sales"), QStringLiteral("--execute")} +
                             ws);
        QCOMPARE(again.value(u"totals").toObject().value(u"unchanged").toInt(), 3);
        QCOMPARE(again.value(u"totals").toObject().value(u"inserted").toInt(), 0);
        parts = cliJson(QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                    QStringLiteral("sales")} +
                        ws);
        QCOMPARE(
            parts.value(u"partitions").toArray().at(0).toObject().value(u"target_rows").toInt(), 2);

        auto replay = cliJson(QStringList{QStringLiteral("replay"), QStringLiteral("--stream"),
                                          QStringLiteral("orders"), QStringLiteral("--group"),
                                          QStringLiteral("g"), QStringLiteral("--execute")} +
                              ws);
        QCOMPARE(replay.value(u"consumed").toInt(), 3);
        QCOMPARE(replay.value(u"inserted").toInt(), 2);
        QCOMPARE(replay.value(u"duplicates").toInt(), 1);
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM feeds.orders_sink"))->toInt(), 2);
        auto offsets = cliJson(QStringList{QStringLiteral("offsets"), QStringLiteral("--stream"),
                                           QStringLiteral("orders"), QStringLiteral("--group"),
                                           QStringLiteral("g")} +
                               ws);
        QCOMPARE(
            offsets.value(u"partitions").toArray().at(0).toObject().value(u"committed").toInt(), 3);

        // Quoting: the dotted form splits, a visible relation named with the dot stays whole.
        QCOMPARE(db.quoteTable(QStringLiteral("sales.fact_sales")),
                 QStringLiteral("\"sales\".\"fact_sales\""));
        QVERIFY(db.exec(QStringLiteral("CREATE TABLE \"odd.name\" (x INTEGER)")));
        QCOMPARE(db.quoteTable(QStringLiteral("odd.name")), QStringLiteral("\"odd.name\""));
        QVERIFY(*db.hasRelation(QStringLiteral("public.dim")));
        QVERIFY(!*db.hasRelation(QStringLiteral("sales.nothing")));

        // A missing schema is named, and nothing is written.
        const QString bad = testsupport::writeFile(
            dir, QStringLiteral("bad.json"),
            R"({"datasets": {"x": {"source": "nosuch.fact_sales", "target": "sales.x_out", "key": ["id"]}}})");
        const auto refused = testsupport::runCli(
            {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("x"),
             QStringLiteral("--execute"), QStringLiteral("--db"), db.url().text,
             QStringLiteral("--spec"), bad, QStringLiteral("--json")});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("nosuch.fact_sales")),
                 qPrintable(refused.err));
        QCOMPARE(
            db.scalar(QStringLiteral("SELECT COUNT(*) FROM pg_tables WHERE tablename = 'x_out'"))
                ->toInt(),
            0);
    }

    // A target, sink, log or references table in a schema that does not
    // exist is refused by the spec check, before anything runs: exit 2,
    // naming the table and the schema, and nothing is written (no table, no
    // control schema, no audit or run row).
    void missingSchemaRefusedUpFront() {
        if (!testsupport::onPostgres())
            QSKIP("SQLite has no schemas: a dotted name is one table there (dottedNameIsOneTable)");
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("noschema.db"),
            {QStringLiteral("CREATE TABLE raw (id INTEGER, dt TEXT)"),
             QStringLiteral("INSERT INTO raw VALUES (1, 'd1'), (2, 'd2')"),
             QStringLiteral("CREATE TABLE orders_log (partition_id INTEGER, log_offset INTEGER, "
                            "event_id TEXT, record_ts TEXT, payload TEXT)"),
             QStringLiteral("INSERT INTO orders_log VALUES (0, 0, 'e1', '2026-01-01T00:00:00Z', "
                            "'{\"amount\": 1}')")});
        auto refused = [&](const QByteArray &spec, const QStringList &command, const QString &table,
                           const QString &schema) {
            const QString path = testsupport::writeFile(dir, QStringLiteral("bad.json"), spec);
            const auto r = testsupport::runCli(
                command + QStringList{QStringLiteral("--db"), db.url().text,
                                      QStringLiteral("--spec"), path, QStringLiteral("--json")});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QStringLiteral("\"") + table + u'"'), qPrintable(r.err));
            QVERIFY2(r.err.contains(QStringLiteral("schema \"") + schema +
                                    QStringLiteral("\" does not exist")),
                     qPrintable(r.err));
        };
        const QStringList run{QStringLiteral("run"), QStringLiteral("--dataset"),
                              QStringLiteral("d"), QStringLiteral("--execute")};
        const QStringList preview{QStringLiteral("preview"), QStringLiteral("--dataset"),
                                  QStringLiteral("d")};
        const QStringList replay{QStringLiteral("replay"), QStringLiteral("--stream"),
                                 QStringLiteral("s"),      QStringLiteral("--group"),
                                 QStringLiteral("g"),      QStringLiteral("--execute")};
        const QByteArray badTarget =
            R"({"datasets": {"d": {"source": "raw", "target": "nosuch.out", "partition_column": "dt", "key": ["id"]}}})";
        const QByteArray badSink =
            R"({"streams": {"s": {"log": "orders_log", "sink": "gone.events", "fields": {"amount": "$.amount"}}}})";
        const QByteArray badLog =
            R"({"streams": {"s": {"log": "gone.orders_log", "sink": "events", "fields": {"amount": "$.amount"}}}})";
        const QByteArray badRef =
            R"({"datasets": {"d": {"source": "raw", "target": "out", "partition_column": "dt", "key": ["id"],
                                      "checks": [{"type": "references", "column": "id", "table": "dims.customer", "to": "id"}]}}})";
        auto nothingWritten = [&](qint64 audit, qint64 runs) {
            QCOMPARE(db
                         .scalar(QStringLiteral(
                             "SELECT COUNT(*) FROM pg_tables WHERE tablename IN ('out', 'events')"))
                         ->toInt(),
                     0);
            QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM pg_namespace WHERE nspname IN "
                                              "('nosuch', 'gone', 'dims')"))
                         ->toInt(),
                     0);
            if (audit < 0) { // before any good command: not even the control schema
                QCOMPARE(
                    db.scalar(QStringLiteral(
                                  "SELECT COUNT(*) FROM pg_namespace WHERE nspname = 'rewind'"))
                        ->toInt(),
                    0);
                return;
            }
            QCOMPARE(
                db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind.rewind_audit"))->toLongLong(),
                audit);
            QCOMPARE(
                db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind.rewind_runs"))->toLongLong(),
                runs);
        };
        for (int round = 0; round < 2; ++round) {
            qint64 audit = -1, runs = -1;
            if (round == 1) {
                // The control schema exists and a good run is recorded: the refusals add nothing to
                // it.
                const QString good = testsupport::writeFile(
                    dir, QStringLiteral("good.json"),
                    R"({"datasets": {"d": {"source": "raw", "target": "good_out", "partition_column": "dt", "key": ["id"]}}})");
                const auto ok =
                    testsupport::runCli(run + QStringList{QStringLiteral("--db"), db.url().text,
                                                          QStringLiteral("--spec"), good});
                QCOMPARE(ok.exitCode, 0);
                audit = db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind.rewind_audit"))
                            ->toLongLong();
                runs = db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind.rewind_runs"))
                           ->toLongLong();
                QVERIFY(audit > 0 && runs > 0);
            }
            refused(badTarget, run, QStringLiteral("nosuch.out"), QStringLiteral("nosuch"));
            refused(badTarget, preview, QStringLiteral("nosuch.out"), QStringLiteral("nosuch"));
            refused(
                badTarget,
                {QStringLiteral("partitions"), QStringLiteral("--dataset"), QStringLiteral("d")},
                QStringLiteral("nosuch.out"), QStringLiteral("nosuch"));
            refused(badSink, replay, QStringLiteral("gone.events"), QStringLiteral("gone"));
            refused(badLog, replay, QStringLiteral("gone.orders_log"), QStringLiteral("gone"));
            refused(badRef, run, QStringLiteral("dims.customer"), QStringLiteral("dims"));
            nothingWritten(audit, runs);
        }
    }

    // A first run would create the target where this role may not create
    // tables (PostgreSQL 15's public, a schema granted USAGE only): the role
    // still previews it, and the run is refused before it starts, naming the
    // schema; a target that exists there is fine.
    void noCreatePrivilegeRefusedUpFront() {
        if (!testsupport::onPostgres())
            QSKIP("SQLite has no schemas or privileges");
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("noprivilege.db"),
            {QStringLiteral("CREATE TABLE raw (id INTEGER, dt TEXT)"),
             QStringLiteral("INSERT INTO raw VALUES (1, 'd1'), (2, 'd2')"),
             QStringLiteral("CREATE SCHEMA locked"),
             QStringLiteral("CREATE TABLE locked.made (id INTEGER, dt TEXT)")});
        // Roles are the whole server's: a name of this fixture's own.
        const rw::DatabaseUrl &url = db.url();
        const QString role = QStringLiteral("lim_") + url.databaseName.left(50);
        QVERIFY(
            db.exec(QStringLiteral("CREATE ROLE ") + db.quote(role) + QStringLiteral(" LOGIN")));
        const QStringList grants{
            QStringLiteral("GRANT USAGE ON SCHEMA locked TO %1"),
            QStringLiteral("GRANT SELECT ON raw TO %1"),
            QStringLiteral("GRANT SELECT, INSERT, UPDATE, DELETE ON locked.made TO %1"),
            QString(QStringLiteral("GRANT CREATE ON DATABASE ") + db.quote(url.databaseName) +
                    QStringLiteral(" TO %1"))};
        for (const QString &grant : grants)
            QVERIFY(db.exec(grant.arg(db.quote(role))));
        const QString asRole = QStringLiteral("postgresql://%1@%2:%3/%4")
                                   .arg(role, url.host)
                                   .arg(url.port)
                                   .arg(url.databaseName);
        auto cli = [&](const QByteArray &spec, const QStringList &command) {
            const QString path = testsupport::writeFile(dir, QStringLiteral("spec.json"), spec);
            return testsupport::runCli(command + QStringList{QStringLiteral("--dataset"),
                                                             QStringLiteral("d"),
                                                             QStringLiteral("--db"), asRole,
                                                             QStringLiteral("--spec"), path});
        };
        for (const auto &[target, schema] :
             {std::pair{QStringLiteral("locked.out"), QStringLiteral("locked")},
              std::pair{QStringLiteral("out"), QStringLiteral("public")}}) {
            const QByteArray spec =
                QStringLiteral(
                    R"({"datasets": {"d": {"source": "raw", "target": "%1", "partition_column": "dt", "key": ["id"]}}})")
                    .arg(target)
                    .toUtf8();
            // The role browses and previews it (every row an insert)...
            const auto preview = cli(spec, {QStringLiteral("preview"), QStringLiteral("--json")});
            QVERIFY2(preview.exitCode == 0, qPrintable(preview.err));
            // ...and a run, which would create it, is refused before it starts.
            const auto run = cli(spec, {QStringLiteral("run"), QStringLiteral("--execute")});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(QStringLiteral("CREATE on schema ") + schema +
                                      QStringLiteral(" (to create the target ") + target),
                     qPrintable(run.err));
            QVERIFY(!db.hasRelation(target).value_or(true));
        }
        // An existing target in that schema needs no CREATE there.
        const auto ok = cli(
            R"({"datasets": {"d": {"source": "raw", "target": "locked.made", "partition_column": "dt", "key": ["id"]}}})",
            {QStringLiteral("preview"), QStringLiteral("--json")});
        QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));
    }

    // A table whose name holds a dot is that one table, on both engines.
    void dottedNameIsOneTable() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("dotted.db"),
            {QStringLiteral("CREATE TABLE \"raw.sales\" (id INTEGER, dt TEXT)"),
             QStringLiteral("INSERT INTO \"raw.sales\" VALUES (1, 'd1'), (2, 'd1'), (2, 'd2')")});
        const QString spec = testsupport::writeFile(
            dir, QStringLiteral("dotted.json"),
            R"({"datasets": {"d": {"source": "raw.sales", "target": "pub.sales", "partition_column": "dt", "key": ["id"]}}})");
        const QStringList ws{QStringLiteral("--db"), db.url().text, QStringLiteral("--spec"), spec,
                             QStringLiteral("--json")};
        if (testsupport::onPostgres()) // the target's schema must exist there
            QVERIFY(db.exec(QStringLiteral("CREATE SCHEMA pub")));
        auto run = cliJson(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                       QStringLiteral("d"), QStringLiteral("--execute")} +
                           ws);
        QCOMPARE(run.value(u"totals").toObject().value(u"inserted").toInt(), 3);
        QCOMPARE(db.scalar(testsupport::onPostgres()
                               ? QStringLiteral("SELECT COUNT(*) FROM pub.sales")
                               : QStringLiteral("SELECT COUNT(*) FROM \"pub.sales\""))
                     ->toInt(),
                 3);
    }

    void catalogIsCaseExact() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("case.db"),
                                            {QStringLiteral("CREATE TABLE \"Sales\" (x INTEGER)")});
        QVERIFY(*db.hasRelation(QStringLiteral("Sales")));
        QVERIFY(!*db.hasRelation(QStringLiteral("sales")));
    }
};

QTEST_GUILESS_MAIN(TestIdentifiers)
#include "tst_identifiers.moc"
