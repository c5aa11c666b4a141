// A dbt project imported from its folder (issue 58): Rewind runs the
// project's own dbt (scripts/dbt.sh installs dbt-core and dbt-postgres,
// REWIND_TEST_DBT) to compile it as a full refresh, and maps the manifest dbt
// wrote. The project (tests/dbt/project) uses what Rewind's own Jinja subset
// cannot render: a project macro, an ephemeral model, a var and
// is_incremental(). Its seeds are loaded by `dbt seed` into a database of the
// throwaway PostgreSQL (dbt-postgres: this suite runs as tst_dbtproject_pg).
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringBuilder>
#include <QTest>

using namespace rw;

namespace {

QJsonObject json(const QString &text) {
    return QJsonDocument::fromJson(text.toUtf8()).object();
}

QJsonObject nodeOf(const QJsonObject &init, const QString &uniqueId) {
    for (const QJsonValue &n : init.value(QStringLiteral("nodes")).toArray())
        if (n.toObject().value(QStringLiteral("unique_id")).toString() == uniqueId)
            return n.toObject();
    return {};
}

// Every file under `dir`, relative, sorted: what a command may not have added.
QStringList filesUnder(const QString &dir) {
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(dir).relativeFilePath(it.next());
    out.sort();
    return out;
}

void copyTree(const QString &from, const QString &to) {
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString target = QDir(to).filePath(QDir(from).relativeFilePath(file));
        QDir().mkpath(QFileInfo(target).absolutePath());
        if (!QFile::copy(file, target))
            qFatal("cannot copy %s", qPrintable(file));
    }
}

using testsupport::rowsAt;

// `statements` run on the database at `url`: false when any fails.
bool execAt(const QString &url, const QStringList &statements) {
    auto db = Database::open(url);
    return db && db->execAll(statements);
}

// A table's column names and types, in order.
QString columnsOf(const QString &table) {
    return QStringLiteral("SELECT column_name, data_type FROM information_schema.columns WHERE "
                          "table_schema = 'public' AND table_name = '%1' ORDER BY "
                          "ordinal_position")
        .arg(table);
}

} // namespace

class TestDbtProject : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_dbt;       // the dbt program
    QString m_project;   // a copy of tests/dbt/project
    QString m_db;        // the warehouse dbt seeded
    QString m_rerunInit; // reRunEqualsDbt's import (init --json output)

    // `dbt <command>` on the project copy, its output outside it.
    void dbt(const QStringList &args, const QString &out) {
        QProcess p;
        p.setWorkingDirectory(m_project);
        p.start(m_dbt, args + QStringList{QStringLiteral("--project-dir"), m_project,
                                          QStringLiteral("--profiles-dir"), m_project,
                                          QStringLiteral("--target-path"),
                                          QDir(out).filePath(QStringLiteral("target")),
                                          QStringLiteral("--log-path"),
                                          QDir(out).filePath(QStringLiteral("logs"))});
        QVERIFY2(p.waitForFinished(300000), "dbt did not finish");
        QVERIFY2(p.exitCode() == 0, p.readAllStandardOutput().right(3000).constData());
    }

    // dbt on the database at `url` (a copy of the warehouse): the
    // profile's dbname from the environment.
    void dbtOn(const QString &url, const QStringList &args, const QString &out) {
        const auto parsed = DatabaseUrl::parse(url);
        QVERIFY2(parsed, qPrintable(url));
        const QByteArray before = qgetenv("REWIND_DBT_DBNAME");
        qputenv("REWIND_DBT_DBNAME", parsed->databaseName.toUtf8());
        dbt(args, out);
        qputenv("REWIND_DBT_DBNAME", before);
    }

    QStringList initArgs(const QString &spec) const {
        return {QStringLiteral("init"),
                QStringLiteral("--dbt"),
                m_project,
                QStringLiteral("--profiles-dir"),
                m_project,
                QStringLiteral("--dbt"),
                m_dbt,
                QStringLiteral("--out"),
                spec,
                QStringLiteral("--db"),
                m_db,
                QStringLiteral("--json")};
    }

    // One import for every re-run (dbt compiles the whole project): the
    // spec's path, empty when it failed.
    QString importOnce() {
        const QString spec = m_dir.filePath(QStringLiteral("rerun/rewind.json"));
        if (m_rerunInit.isEmpty()) {
            QDir().mkpath(QFileInfo(spec).absolutePath());
            const auto init = testsupport::runCli(initArgs(spec));
            if (init.exitCode != 0) {
                qWarning("init: %s", qPrintable(init.err));
                return {};
            }
            m_rerunInit = init.out;
        }
        return spec;
    }

private Q_SLOTS:
    void initTestCase() {
        if (!testsupport::onPostgres())
            QSKIP("the project is built with dbt-postgres: this suite runs as "
                  "tst_dbtproject_pg");
        REWIND_REQUIRE_ENGINE();
        m_dbt = qEnvironmentVariable("REWIND_TEST_DBT");
        if (m_dbt.isEmpty() || !QFileInfo(m_dbt).isExecutable()) {
            if (qEnvironmentVariable("REWIND_TEST_DBT_REQUIRED") == QLatin1String("1"))
                QFAIL("REWIND_TEST_DBT names no dbt program (scripts/dbt.sh installs one)");
            QSKIP("no dbt: REWIND_TEST_DBT names none (scripts/test installs it)");
        }
        m_project = m_dir.filePath(QStringLiteral("project"));
        copyTree(QStringLiteral(REWIND_TESTS_DIR "/dbt/project"), m_project);
        const Database db = testsupport::makeDatabase(m_dir, QStringLiteral("dbtshop"), {});
        m_db = db.url().text;
        const DatabaseUrl &url = db.url();
        qputenv("REWIND_DBT_HOST", url.host.toUtf8());
        qputenv("REWIND_DBT_PORT", QByteArray::number(url.port > 0 ? url.port : 5432));
        qputenv("REWIND_DBT_USER", url.user.toUtf8());
        qputenv("REWIND_DBT_PASSWORD", url.password.toUtf8());
        qputenv("REWIND_DBT_DBNAME", url.databaseName.toUtf8());
        qputenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false");
        dbt({QStringLiteral("seed")}, m_dir.filePath(QStringLiteral("seed-out")));
    }

    // dbt renders the macro, inlines the ephemeral model, reads the var and
    // takes is_incremental() as false; Rewind maps the model and runs it.
    // Nothing is written into the project folder.
    void aProjectFolderIsCompiledByDbt() {
        const QStringList before = filesUnder(m_project);
        const QString spec = m_dir.filePath(QStringLiteral("from-folder/rewind.json"));
        QDir().mkpath(QFileInfo(spec).absolutePath());
        const auto init = testsupport::runCli(initArgs(spec));
        QVERIFY2(init.exitCode == 0, qPrintable(init.err));
        const QJsonObject result = json(init.out);
        const QJsonObject fct = nodeOf(result, QStringLiteral("model.rewind_shop.fct_orders"));
        QVERIFY2(fct.value(QStringLiteral("mapped")).toBool(), qPrintable(init.out));
        QCOMPARE(fct.value(QStringLiteral("write")).toString(), QStringLiteral("merge"));
        QCOMPARE(fct.value(QStringLiteral("key")).toArray(),
                 QJsonArray{QStringLiteral("order_id")});
        const QJsonObject stg = nodeOf(result, QStringLiteral("model.rewind_shop.stg_orders"));
        QVERIFY(!stg.value(QStringLiteral("mapped")).toBool());
        QVERIFY2(stg.value(QStringLiteral("reason")).toString().contains(u"ephemeral"),
                 qPrintable(init.out));
        QCOMPARE(result.value(QStringLiteral("manifest"))
                     .toObject()
                     .value(QStringLiteral("dbt_version"))
                     .toString()
                     .section(u'.', 0, 1),
                 QStringLiteral("1.10"));

        // The dataset runs what dbt compiled: the macro's SQL, the ephemeral
        // model as a CTE, the var's value; no Jinja left.
        QFile file(spec);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject dataset = QJsonDocument::fromJson(file.readAll())
                                        .object()
                                        .value(QStringLiteral("datasets"))
                                        .toObject()
                                        .value(QStringLiteral("fct_orders"))
                                        .toObject();
        const QString transform = dataset.value(QStringLiteral("transform")).toString();
        QVERIFY2(transform.contains(u"__dbt__cte__stg_orders"), qPrintable(transform));
        QVERIFY2(transform.contains(u"cast(round(amount * 100) as bigint)"), qPrintable(transform));
        QVERIFY2(transform.contains(u"status <> 'test'"), qPrintable(transform));
        QVERIFY2(!transform.contains(u"{{") && !transform.contains(u"{%"), qPrintable(transform));
        QVERIFY(QFileInfo::exists(QFileInfo(spec).dir().filePath(
            QStringLiteral(".rewind-dbt/project/target/manifest.json"))));
        QCOMPARE(filesUnder(m_project), before);

        // Built by Rewind: the six orders that are not tests, in cents.
        const auto run = testsupport::runCli(
            {QStringLiteral("run"), QStringLiteral("--db"), m_db, QStringLiteral("--spec"), spec,
             QStringLiteral("--dataset"), QStringLiteral("fct_orders"), QStringLiteral("--execute"),
             QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        auto db = Database::open(m_db);
        QVERIFY(db);
        auto rows = db->scalar(
            QStringLiteral("SELECT COUNT(*) || '/' || SUM(amount_cents) FROM public.fct_orders"));
        QVERIFY2(rows, rows ? "" : qPrintable(rows.error().message));
        QCOMPARE(rows->toString(), QStringLiteral("6/19287"));
    }

    // Drift from the project folder: dbt parses it, and a model edited since
    // the import is "changed" by its checksum.
    void driftFromTheProjectFolder() {
        const QString spec = m_dir.filePath(QStringLiteral("from-folder/rewind.json"));
        QVERIFY(QFileInfo::exists(spec)); // aProjectFolderIsCompiledByDbt's
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", QFileInfo(m_dbt).absolutePath().toUtf8() + ':' + path);
        const QStringList datasets{QStringLiteral("datasets"),
                                   QStringLiteral("--db"),
                                   m_db,
                                   QStringLiteral("--spec"),
                                   spec,
                                   QStringLiteral("--dbt"),
                                   m_project,
                                   QStringLiteral("--json")};
        const auto model = [&]() -> QString {
            const auto r = testsupport::runCli(datasets);
            if (r.exitCode != 0)
                return QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.err);
            for (const QJsonValue &d : json(r.out).value(QStringLiteral("datasets")).toArray())
                if (d[QStringLiteral("name")].toString() == QLatin1String("fct_orders"))
                    return d[QStringLiteral("dbt")][QStringLiteral("model")].toString();
            return QString(QStringLiteral("no fct_orders in ") + r.out);
        };
        const QString unchanged = model();
        QFile file(QDir(m_project).filePath(QStringLiteral("models/fct_orders.sql")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray original = file.readAll();
        file.close();
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(original + "-- edited after the import\n");
        file.close();
        const QString edited = model();
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(original);
        file.close();
        qputenv("PATH", path);
        QCOMPARE(unchanged, QStringLiteral("current"));
        QCOMPARE(edited, QStringLiteral("changed"));
    }

    // A manifest alone, as `dbt parse` writes it (no compiled code): the
    // model whose raw code needs dbt is left out, saying to give the folder.
    void aManifestAloneSaysToGiveTheFolder() {
        const QString out = m_dir.filePath(QStringLiteral("parsed"));
        dbt({QStringLiteral("parse")}, out);
        const QString spec = m_dir.filePath(QStringLiteral("from-manifest.json"));
        const auto init =
            testsupport::runCli({QStringLiteral("init"), QStringLiteral("--dbt"),
                                 QDir(out).filePath(QStringLiteral("target/manifest.json")),
                                 QStringLiteral("--out"), spec, QStringLiteral("--json")});
        QVERIFY2(init.exitCode == 0, qPrintable(init.err));
        const QJsonObject fct =
            nodeOf(json(init.out), QStringLiteral("model.rewind_shop.fct_orders"));
        QVERIFY(!fct.value(QStringLiteral("mapped")).toBool());
        QVERIFY2(fct.value(QStringLiteral("reason"))
                     .toString()
                     .contains(u"give the project folder to --dbt"),
                 qPrintable(init.out));
    }

    // No dbt, a compile error, a profile that does not connect: exit 2 with
    // dbt's own message naming the model, and nothing written (no spec, no
    // compiled output).
    void dbtFailuresChangeNothing() {
        const QString home = m_dir.filePath(QStringLiteral("failures"));
        QDir().mkpath(home);
        const QString spec = QDir(home).filePath(QStringLiteral("rewind.json"));

        // No dbt on PATH, none named.
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", "/nonexistent");
        const auto none = testsupport::runCli({QStringLiteral("init"), QStringLiteral("--dbt"),
                                               m_project, QStringLiteral("--profiles-dir"),
                                               m_project, QStringLiteral("--out"), spec});
        qputenv("PATH", path);
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains(u"no dbt program on PATH"), qPrintable(none.err));

        // A model that calls a macro no one defined.
        const QString broken = m_dir.filePath(QStringLiteral("broken"));
        copyTree(m_project, broken);
        {
            QFile model(QDir(broken).filePath(QStringLiteral("models/fct_broken.sql")));
            QVERIFY(model.open(QIODevice::WriteOnly));
            model.write("select {{ no_such_macro('amount') }} as amount from {{ ref('raw_orders') "
                        "}}\n");
        }
        QStringList args = initArgs(spec);
        args[2] = broken;
        args[4] = broken;
        const auto compileError = testsupport::runCli(args);
        QCOMPARE(compileError.exitCode, 2);
        QVERIFY2(compileError.err.contains(u"fct_broken") &&
                     compileError.err.contains(u"no_such_macro"),
                 qPrintable(compileError.err));

        // A profile whose server is not there.
        const QByteArray port = qgetenv("REWIND_DBT_PORT");
        qputenv("REWIND_DBT_PORT", "1");
        const auto unreachable = testsupport::runCli(initArgs(spec));
        qputenv("REWIND_DBT_PORT", port);
        QCOMPARE(unreachable.exitCode, 2);
        QVERIFY2(unreachable.err.contains(u"dbt compile of") &&
                     unreachable.err.contains(QStringLiteral("port 1"), Qt::CaseInsensitive),
                 qPrintable(unreachable.err));

        QCOMPARE(filesUnder(home), QStringList{});
    }

    // Each incremental strategy, re-run after its source changed, equal to
    // dbt's own re-run. The model is built by dbt and imported from the
    // folder; the source changes; then on copies of the warehouse dbt
    // re-runs it (its incremental run, or the changed day's batch) and
    // Rewind re-runs the same scope (the whole table, or the day). The two
    // tables are equal row for row, with the same columns and types.
    // Against dbt's full refresh (where one is cheap), Rewind's differs by
    // exactly the rows gone from the source, which neither a merge nor a
    // delete+insert deletes (docs/dbt.md). Then dbt's tests pass on the
    // table Rewind wrote, and dbt's next run continues on it.
    void reRunEqualsDbt_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("write");
        QTest::addColumn<QStringList>("build");      // dbt's first build: run arguments
        QTest::addColumn<QStringList>("changes");    // to the source, on the warehouse
        QTest::addColumn<QStringList>("dbtRerun");   // dbt run arguments of the re-run
        QTest::addColumn<QStringList>("scope");      // Rewind's, as run arguments
        QTest::addColumn<QString>("rows");           // the model's rows, ordered
        QTest::addColumn<int>("rowsAfter");          // in Rewind's table
        QTest::addColumn<QString>("goneFromSource"); // prefix of the rows only a full refresh drops
        QTest::addColumn<int>("gone");               // how many; -1: no full refresh compared
        QTest::addColumn<QString>("dbtKeeps");       // prefix of the rows only dbt's re-run keeps
        QTest::addColumn<QString>("next");           // a new source row for dbt's next run
        QTest::addColumn<QString>("nextRow");        // the row it then adds, as a prefix
        // An order's lines (several rows a key): a line updated, one
        // removed, one added, a new order, an order gone from the source.
        QTest::newRow("delete+insert")
            << QStringLiteral("fct_order_lines") << QStringLiteral("delete_insert") << QStringList()
            << QStringList{QStringLiteral("UPDATE raw_order_lines SET qty = 7, updated_at = "
                                          "'2025-05-02 09:00:00' WHERE order_id = 1 AND line = 1"),
                           QStringLiteral(
                               "DELETE FROM raw_order_lines WHERE order_id = 1 AND line = 2"),
                           QStringLiteral("INSERT INTO raw_order_lines VALUES (2, 2, 'date', 1, "
                                          "'2025-05-02 10:00:00'), (5, 1, 'yuzu', 2, '2025-05-02 "
                                          "11:00:00')"),
                           QStringLiteral("DELETE FROM raw_order_lines WHERE order_id = 3")}
            << QStringList() << QStringList()
            << QStringLiteral("SELECT order_id, line, sku, qty, updated_at FROM "
                              "public.fct_order_lines ORDER BY 1, 2, 3, 4, 5")
            << 7 << QStringLiteral("3|") << 2 << QString()
            << QStringLiteral("INSERT INTO raw_order_lines VALUES (6, 1, 'sloe', 1, '2025-05-03 "
                              "08:00:00')")
            << QStringLiteral("6|1|sloe|1|");
        // Orders merged by key, through the project's macro, ephemeral model
        // and var: an amount changed, a new order, an order gone from the
        // source, one now excluded by the var's status.
        QTest::newRow("merge")
            << QStringLiteral("fct_orders") << QStringLiteral("merge")
            << QStringList{QStringLiteral("--full-refresh")}
            << QStringList{QStringLiteral("UPDATE raw_orders SET amount = 11.00, updated_at = "
                                          "'2025-05-16 09:00:00' WHERE order_id = 1"),
                           QStringLiteral("INSERT INTO raw_orders VALUES (8, 2, 3.50, 'paid', "
                                          "'2025-05-16 10:00:00', '2025-05-16 10:00:00')"),
                           QStringLiteral("DELETE FROM raw_orders WHERE order_id = 7"),
                           QStringLiteral(
                               "UPDATE raw_orders SET status = 'test' WHERE order_id = 2")}
            << QStringList() << QStringList()
            << QStringLiteral("SELECT order_id, customer_id, amount_cents, status, ordered_at, "
                              "updated_at FROM public.fct_orders ORDER BY 1")
            << 7 << QString() << 2 << QString()
            << QStringLiteral("INSERT INTO raw_orders VALUES (9, 1, 1.00, 'paid', '2025-05-17 "
                              "10:00:00', '2025-05-17 10:00:00')")
            << QStringLiteral("9|1|100|paid|");
        // Events by day (microbatch): 2025-05-02 gets an updated event, a
        // late one, and loses one to the next day; dbt reprocesses its
        // batch, Rewind the partition (overwritten: the moved event's old
        // row goes, where dbt-postgres's merge of the batch keeps it).
        QTest::newRow("microbatch")
            << QStringLiteral("fct_events") << QStringLiteral("overwrite_partition")
            << QStringList{QStringLiteral("--event-time-start"), QStringLiteral("2025-05-01"),
                           QStringLiteral("--event-time-end"), QStringLiteral("2025-05-04")}
            << QStringList{QStringLiteral("UPDATE raw_events SET kind = 'buy' WHERE event_id = 4"),
                           QStringLiteral("INSERT INTO raw_events VALUES (7, 'view', '2025-05-02 "
                                          "06:00:00')"),
                           QStringLiteral("UPDATE raw_events SET occurred_at = '2025-05-03 "
                                          "10:00:00' WHERE event_id = 5")}
            << QStringList{QStringLiteral("--event-time-start"), QStringLiteral("2025-05-02"),
                           QStringLiteral("--event-time-end"), QStringLiteral("2025-05-03")}
            << QStringList{QStringLiteral("--partition"), QStringLiteral("2025-05-02")}
            << QStringLiteral("SELECT event_id, kind, occurred_at FROM public.fct_events ORDER "
                              "BY 1")
            << 6 << QString() << -1 << QStringLiteral("5|view|2025-05-02")
            << QStringLiteral("INSERT INTO raw_events VALUES (8, 'view', '2025-05-03 11:00:00')")
            << QStringLiteral("8|view|");
        // A table model (rebuilt whole by every dbt run): a customer's tier
        // changed, one joined, one gone; Rewind overwrites the table.
        QTest::newRow("table")
            << QStringLiteral("dim_customers") << QStringLiteral("overwrite_partition")
            << QStringList()
            << QStringList{QStringLiteral("UPDATE raw_customers SET tier = 'gold' WHERE "
                                          "customer_id = 2"),
                           QStringLiteral("INSERT INTO raw_customers VALUES (5, 'eve', 'bronze', "
                                          "'2025-05-04 08:00:00')"),
                           QStringLiteral("DELETE FROM raw_customers WHERE customer_id = 4")}
            << QStringList() << QStringList()
            << QStringLiteral("SELECT customer_id, name, tier, orders FROM public.dim_customers "
                              "ORDER BY 1")
            << 4 << QString() << -1 << QString()
            << QStringLiteral("INSERT INTO raw_customers VALUES (6, 'fay', 'silver', '2025-05-05 "
                              "08:00:00')")
            << QStringLiteral("6|fay|silver|0");
    }

    void reRunEqualsDbt() {
        QFETCH(QString, model);
        QFETCH(QString, write);
        QFETCH(QStringList, build);
        QFETCH(QStringList, changes);
        QFETCH(QStringList, dbtRerun);
        QFETCH(QStringList, scope);
        QFETCH(QString, rows);
        QFETCH(int, rowsAfter);
        QFETCH(QString, goneFromSource);
        QFETCH(int, gone);
        QFETCH(QString, dbtKeeps);
        QFETCH(QString, next);
        QFETCH(QString, nextRow);
        const QString out = m_dir.filePath(model);
        const QStringList run{QStringLiteral("run"), QStringLiteral("--select"), model};
        dbt(run + build, out + QStringLiteral("-build"));
        const QString spec = importOnce();
        QVERIFY(!spec.isEmpty());
        const QJsonObject node =
            nodeOf(json(m_rerunInit), QStringLiteral("model.rewind_shop.") + model);
        QVERIFY2(node.value(QStringLiteral("mapped")).toBool(), qPrintable(m_rerunInit));
        QCOMPARE(node.value(QStringLiteral("write")).toString(), write);
        QVERIFY(execAt(m_db, changes));
        const QString byDbt =
            testsupport::copyDatabase(m_db, m_dir, model + QStringLiteral("_dbt"));
        const QString rewound =
            testsupport::copyDatabase(m_db, m_dir, model + QStringLiteral("_rw"));
        const QString refreshed =
            gone < 0 ? QString()
                     : testsupport::copyDatabase(m_db, m_dir, model + QStringLiteral("_full"));
        dbtOn(byDbt, run + dbtRerun, out + QStringLiteral("-rerun"));
        if (!refreshed.isEmpty())
            dbtOn(refreshed, run + QStringList{QStringLiteral("--full-refresh")},
                  out + QStringLiteral("-full"));
        const auto rerun = testsupport::runCli(
            QStringList{QStringLiteral("run"), QStringLiteral("--db"), rewound,
                        QStringLiteral("--spec"), spec, QStringLiteral("--dataset"), model,
                        QStringLiteral("--execute"), QStringLiteral("--json")} +
            scope);
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err + rerun.out));

        const QString columns = columnsOf(model);
        const QStringList byRewind = rowsAt(rewound, rows);
        QCOMPARE(byRewind.size(), rowsAfter);
        // A microbatch re-run of a day by dbt-postgres merges the day's rows by
        // unique_key: the event moved to the next day keeps its old row
        // there; Rewind's overwrite of the day removes it.
        QStringList dbtRows = rowsAt(byDbt, rows);
        if (!dbtKeeps.isEmpty()) {
            const auto kept = std::find_if(dbtRows.begin(), dbtRows.end(), [&](const QString &r) {
                return r.startsWith(dbtKeeps);
            });
            QVERIFY2(kept != dbtRows.end(), qPrintable(dbtRows.join(u'\n')));
            dbtRows.erase(kept);
        }
        QCOMPARE(byRewind, dbtRows);
        QCOMPARE(rowsAt(rewound, columns), rowsAt(byDbt, columns));
        if (!refreshed.isEmpty()) {
            QCOMPARE(rowsAt(rewound, columns), rowsAt(refreshed, columns));
            QStringList onlyRewind = byRewind;
            for (const QString &r : rowsAt(refreshed, rows))
                QVERIFY2(onlyRewind.removeOne(r), qPrintable(r)); // every row of the refresh
            QCOMPARE(onlyRewind.size(), gone);
            for (const QString &r : onlyRewind)
                QVERIFY2(goneFromSource.isEmpty() || r.startsWith(goneFromSource), qPrintable(r));
        }

        // dbt's tests pass on Rewind's table; its next run continues on it.
        dbtOn(rewound, {QStringLiteral("test"), QStringLiteral("--select"), model},
              out + QStringLiteral("-test"));
        QVERIFY(execAt(rewound, {next}));
        dbtOn(rewound,
              run + (dbtRerun.isEmpty() ? QStringList()
                                        : QStringList{QStringLiteral("--event-time-start"),
                                                      QStringLiteral("2025-05-03"),
                                                      QStringLiteral("--event-time-end"),
                                                      QStringLiteral("2025-05-04")}),
              out + QStringLiteral("-next"));
        const QStringList after = rowsAt(rewound, rows);
        QVERIFY2(std::count_if(after.begin(), after.end(),
                               [&](const QString &r) { return r.startsWith(nextRow); }) == 1,
                 qPrintable(after.join(u'\n')));
    }

    // A snapshot taken again by Rewind equals the same snapshot taken by dbt.
    // dbt takes it first; the source changes (a tier moved, a name changed,
    // a customer gone, one new); on copies of the warehouse dbt snapshots
    // again and Rewind runs the dataset. Equal row for row, with dbt's own
    // scd ids, and the same columns and types. A check snapshot without
    // updated_at is dated by each one's run: its times (and the scd ids made
    // from them) are compared as "the run", and both ids are dbt's hash of
    // the key and that time. Then dbt's next snapshot continues on
    // Rewind's table.
    void snapshotsEqualDbt_data() {
        QTest::addColumn<QString>("snapshot");
        QTest::addColumn<QStringList>("changes");
        QTest::addColumn<bool>("byRun");
        QTest::addColumn<QString>("next");    // a change for dbt's next snapshot
        QTest::addColumn<QString>("nextRow"); // the open version it then holds
        // updated_at dates the versions; a name changed without it moving is
        // no new version; a customer gone keeps its version (hard_deletes ignore).
        QTest::newRow("timestamp")
            << QStringLiteral("customers_history")
            << QStringList{QStringLiteral(
                               "UPDATE raw_customers SET tier = 'platinum', updated_at = "
                               "'2025-05-10 09:00:00' WHERE customer_id = 1"),
                           QStringLiteral("UPDATE raw_customers SET name = 'bobby' WHERE "
                                          "customer_id = 2"),
                           QStringLiteral("DELETE FROM raw_customers WHERE customer_id = 3"),
                           QStringLiteral("INSERT INTO raw_customers VALUES (7, 'gus', 'bronze', "
                                          "'2025-05-10 10:00:00')")}
            << false
            << QStringLiteral("UPDATE raw_customers SET tier = 'iron', updated_at = '2025-05-20 "
                              "09:00:00' WHERE customer_id = 7")
            << QStringLiteral("7|gus|iron");
        // check_cols all, hard_deletes invalidate: a change to any column is
        // a version, dated by the run; a customer gone is closed by it.
        QTest::newRow("check, dated by its run")
            << QStringLiteral("customer_tiers")
            << QStringList{QStringLiteral("UPDATE raw_customers SET tier = 'silver' WHERE "
                                          "customer_id = 1"),
                           QStringLiteral("UPDATE raw_customers SET name = 'robert' WHERE "
                                          "customer_id = 2"),
                           QStringLiteral("DELETE FROM raw_customers WHERE customer_id = 5"),
                           QStringLiteral("INSERT INTO raw_customers VALUES (8, 'hal', 'gold', "
                                          "'2025-05-11 10:00:00')")}
            << true
            << QStringLiteral("UPDATE raw_customers SET tier = 'iron' WHERE customer_id = 8")
            << QStringLiteral("8|hal|iron");
    }

    void snapshotsEqualDbt() {
        QFETCH(QString, snapshot);
        QFETCH(QStringList, changes);
        QFETCH(bool, byRun);
        QFETCH(QString, next);
        QFETCH(QString, nextRow);
        const QString out = m_dir.filePath(snapshot);
        const QStringList take{QStringLiteral("snapshot"), QStringLiteral("--select"), snapshot};
        dbt(take, out + QStringLiteral("-first"));
        const QString spec = importOnce();
        QVERIFY(!spec.isEmpty());
        const QJsonObject node =
            nodeOf(json(m_rerunInit), QStringLiteral("snapshot.rewind_shop.") + snapshot);
        QVERIFY2(node.value(QStringLiteral("mapped")).toBool(), qPrintable(m_rerunInit));
        QCOMPARE(node.value(QStringLiteral("write")).toString(), QStringLiteral("scd2"));
        const QString table = QStringLiteral("public.") + snapshot;
        const int taken = rowsAt(m_db, QStringLiteral("SELECT 1 FROM ") + table).size();
        QVERIFY(execAt(m_db, changes));
        const QString byDbt =
            testsupport::copyDatabase(m_db, m_dir, snapshot + QStringLiteral("_dbt"));
        const QString rewound =
            testsupport::copyDatabase(m_db, m_dir, snapshot + QStringLiteral("_rw"));
        dbtOn(byDbt, take, out + QStringLiteral("-again"));
        const auto rerun =
            testsupport::runCli({QStringLiteral("run"), QStringLiteral("--db"), rewound,
                                 QStringLiteral("--spec"), spec, QStringLiteral("--dataset"),
                                 snapshot, QStringLiteral("--execute"), QStringLiteral("--json")});
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err + rerun.out));

        // A run's time, where the run dates the versions, as "run".
        const auto at = [&](const QString &column) {
            return byRun ? QStringLiteral("CASE WHEN %1 = r.t THEN 'run' ELSE "
                                          "COALESCE(CAST(%1 AS TEXT), '-') END")
                               .arg(column)
                         : QStringLiteral("COALESCE(CAST(%1 AS TEXT), '-')").arg(column);
        };
        const QString rows =
            QStringLiteral("SELECT customer_id, name, tier, CASE WHEN %1 = 'run' THEN 'run' ELSE "
                           "dbt_scd_id END, %1, %2, %3 FROM %4, (SELECT MAX(dbt_updated_at) AS t "
                           "FROM %4) AS r ORDER BY 1, 6, 7")
                .arg(at(QStringLiteral("dbt_updated_at")), at(QStringLiteral("dbt_valid_from")),
                     at(QStringLiteral("dbt_valid_to")), table);
        const QStringList byRewind = rowsAt(rewound, rows);
        QVERIFY2(byRewind.size() > taken, qPrintable(byRewind.join(u'\n')));
        QCOMPARE(byRewind, rowsAt(byDbt, rows));
        const QString columns = columnsOf(snapshot);
        QCOMPARE(rowsAt(rewound, columns), rowsAt(byDbt, columns));
        const QString unhashed =
            QStringLiteral("SELECT COUNT(*) FROM %1 WHERE dbt_scd_id <> md5(COALESCE(CAST("
                           "customer_id AS VARCHAR), '') || '|' || COALESCE(CAST(dbt_updated_at "
                           "AS VARCHAR), ''))")
                .arg(table);
        QCOMPARE(rowsAt(byDbt, unhashed), QStringList{QStringLiteral("0")});
        QCOMPARE(rowsAt(rewound, unhashed), QStringList{QStringLiteral("0")});

        // dbt's next snapshot continues on Rewind's table: one open version
        // a key, the changed one's new.
        QVERIFY(execAt(rewound, {next}));
        dbtOn(rewound, take, out + QStringLiteral("-next"));
        const QString open = QStringLiteral("SELECT customer_id, name, tier FROM %1 WHERE "
                                            "dbt_valid_to IS NULL ORDER BY 1")
                                 .arg(table);
        const QStringList opened = rowsAt(rewound, open);
        QVERIFY2(opened.contains(nextRow), qPrintable(opened.join(u'\n')));
        QCOMPARE(
            rowsAt(rewound, QStringLiteral("SELECT COUNT(*) FROM (SELECT customer_id FROM %1 WHERE "
                                           "dbt_valid_to IS NULL GROUP BY customer_id HAVING "
                                           "COUNT(*) > 1) AS twice")
                                .arg(table)),
            QStringList{QStringLiteral("0")});
    }
};

QTEST_GUILESS_MAIN(TestDbtProject)
#include "tst_dbtproject.moc"
