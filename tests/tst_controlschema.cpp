// The control schema: created on first open, migrated step by step from an
// older version with its data kept, a no-op on re-open, and refused when a
// newer Rewind wrote it. Also the connection set-up it relies on.
#include "core/sql/bulkload.h"
#include "core/sql/controlschema.h"
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QScopeGuard>
#include <QSqlDatabase>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <thread>

using namespace rw;

class TestControlSchema : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void freshDatabaseGetsLatest() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("fresh.db"), {});
        QCOMPARE(*controlschema::currentVersion(db), 0);
        QVERIFY(controlschema::migrate(db));
        QCOMPARE(*controlschema::currentVersion(db), controlschema::latestVersion());
        for (const char *table :
             {"rewind_meta", "rewind_runs", "rewind_plans", "rewind_checkpoints",
              "rewind_partition_state", "rewind_audit", "rewind_offsets", "rewind_dlq",
              "rewind_dlq_history", "rewind_frozen"})
            QVERIFY2(*db.hasRelation(QLatin1String(table)), table);
    }

    void olderDatabaseIsMigratedAndKeepsData() {
        QTemporaryDir dir;
        const QString path =
            testsupport::makeDatabase(dir, QStringLiteral("old.db"), {}).url().text;
        {
            auto db = Database::open(path);
            QVERIFY(db);
            QVERIFY(controlschema::migrate(*db, 1)); // as an older Rewind left it
            QCOMPARE(*controlschema::currentVersion(*db), 1);
            QVERIFY(!*db->hasRelation(QStringLiteral("rewind_offsets")));
            QVERIFY(db->exec(QStringLiteral(
                "INSERT INTO rewind_audit (at, action) VALUES ('2025-01-01T00:00:00Z', 'old')")));
        }
        auto db = Database::open(path);
        QVERIFY(db);
        QVERIFY(controlschema::migrate(*db));
        QCOMPARE(*controlschema::currentVersion(*db), controlschema::latestVersion());
        QVERIFY(*db->hasRelation(QStringLiteral("rewind_offsets")));
        QVERIFY(*db->hasRelation(QStringLiteral("rewind_frozen")));
        QCOMPARE(db->scalar(QStringLiteral("SELECT action FROM rewind_audit"))->toString(),
                 QStringLiteral("old"));
    }

    void reopeningIsANoOp() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("again.db"), {});
        QVERIFY(controlschema::migrate(db));
        QVERIFY(db.exec(
            QStringLiteral("INSERT INTO rewind_frozen (dataset, frozen_at) VALUES ('d', 'now')")));
        QVERIFY(controlschema::migrate(db));
        QVERIFY(controlschema::migrate(db));
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_frozen"))->toInt(), 1);
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_meta"))->toInt(), 1);
    }

    void newerDatabaseIsRefused() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("newer.db"), {});
        QVERIFY(controlschema::migrate(db));
        QVERIFY(db.exec(
            QStringLiteral("UPDATE rewind_meta SET value = '999' WHERE key = 'schema_version'")));
        auto again = controlschema::migrate(db);
        QVERIFY(!again);
        QVERIFY(again.error().message.contains(QStringLiteral("newer Rewind")));
    }

    void connectionIsWalWithBusyTimeout() {
        if (testsupport::onPostgres())
            QSKIP("SQLite's journal mode");
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("wal.db"), {});
        QCOMPARE(db.scalar(QStringLiteral("PRAGMA journal_mode"))->toString(),
                 QStringLiteral("wal"));
        QVERIFY(db.scalar(QStringLiteral("PRAGMA busy_timeout"))->toInt() >= 1000);
    }

    // NORMAL by default; REWIND_SQLITE_SYNCHRONOUS=FULL syncs every commit;
    // a value SQLite does not know is refused, naming the variable.
    void synchronousModeIsConfigurable() {
        if (testsupport::onPostgres())
            QSKIP("SQLite's synchronous mode");
        QTemporaryDir dir;
        {
            auto db = testsupport::makeDatabase(dir, QStringLiteral("sync.db"), {});
            QCOMPARE(db.scalar(QStringLiteral("PRAGMA synchronous"))->toInt(), 1);
        }
        qputenv("REWIND_SQLITE_SYNCHRONOUS", "full");
        {
            auto db = Database::open(dir.filePath(QStringLiteral("sync.db")));
            QVERIFY(db);
            QCOMPARE(db->scalar(QStringLiteral("PRAGMA synchronous"))->toInt(), 2);
        }
        qputenv("REWIND_SQLITE_SYNCHRONOUS", "sometimes");
        {
            auto db = Database::open(dir.filePath(QStringLiteral("sync.db")));
            const auto r =
                db ? db->scalar(QStringLiteral("SELECT 1")) : Result<QVariant>(fail(db.error()));
            QVERIFY(!r);
            QVERIFY2(
                r.error().message.contains(QStringLiteral("REWIND_SQLITE_SYNCHRONOUS=SOMETIMES")),
                qPrintable(r.error().message));
            QCOMPARE(int(r.error().code), int(Error::Code::BadInput));
        }
        qunsetenv("REWIND_SQLITE_SYNCHRONOUS");
    }

    void writeTransactionRollsBackOnFailure() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("tx.db"),
                                            {QStringLiteral("CREATE TABLE t (v INTEGER)")});
        const Status failed = db.writeTransaction([&]() -> Status {
            if (auto r = db.exec(QStringLiteral("INSERT INTO t VALUES (1)")); !r)
                return fail(r.error());
            return badInput(QStringLiteral("gate failed"));
        });
        QVERIFY(!failed);
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM t"))->toInt(), 0);
        QVERIFY(db.writeTransaction([&]() -> Status {
            if (auto r = db.exec(QStringLiteral("INSERT INTO t VALUES (2)")); !r)
                return fail(r.error());
            return {};
        }));
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM t"))->toInt(), 1);
    }

    void oneConnectionPerThread() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("threads.db"),
                                            {QStringLiteral("CREATE TABLE t (v INTEGER)")});
        const QString mine = db.connection()->connectionName();
        // The same handle used from another thread opens that thread's own connection.
        QString theirs;
        QThread worker;
        QObject context;
        context.moveToThread(&worker);
        worker.start();
        QMetaObject::invokeMethod(
            &context,
            [&] {
                theirs = db.connection()->connectionName();
                (void)db.exec(QStringLiteral("INSERT INTO t VALUES (7)"));
            },
            Qt::BlockingQueuedConnection);
        worker.quit();
        worker.wait();
        QVERIFY(!theirs.isEmpty());
        QVERIFY(theirs != mine);
        QCOMPARE(db.scalar(QStringLiteral("SELECT v FROM t"))->toInt(), 7);
    }

    // Threads come and go (a pool's expire after 30 s idle) and a new one may
    // get a finished one's id: each opens its own connection, which closes
    // when its thread ends, so no session outlives the thread.
    void workerConnectionsEndWithTheirThread() {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("threads.db"),
                                            {QStringLiteral("CREATE TABLE t (v INTEGER)")});
        const bool pg = testsupport::onPostgres();
        const QString sessions = QStringLiteral(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()");
        const qint64 before = pg ? db.scalar(sessions)->toLongLong() : 0;
        const QStringList namesBefore = QSqlDatabase::connectionNames();
        for (int i = 1; i <= 4; ++i) {
            QString name;
            QString error;
            std::thread worker([&] {
                auto conn = db.connection();
                if (!conn) {
                    error = conn.error().message;
                    return;
                }
                name = conn->connectionName();
                if (auto r = db.exec(QStringLiteral("INSERT INTO t VALUES (?)"), {i}); !r)
                    error = r.error().message;
            });
            worker.join();
            QVERIFY2(error.isEmpty(),
                     qPrintable(QStringLiteral("thread %1: %2").arg(i).arg(error)));
            QVERIFY(!QSqlDatabase::connectionNames().contains(name));
        }
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM t"))->toInt(), 4);
        QCOMPARE(QSqlDatabase::connectionNames(), namesBefore);
        if (pg) // the server ends a backend shortly after its client closes
            QTRY_COMPARE_WITH_TIMEOUT(db.scalar(sessions)->toLongLong(), before, 5000);
    }

    // On PostgreSQL the control tables live in the schema "rewind", apart from
    // the user's tables, yet are found without qualification; user tables
    // in other schemas are listed schema-qualified.
    void postgresControlTablesLiveInSchemaRewind() {
        if (!testsupport::onPostgres())
            QSKIP("PostgreSQL's schemas");
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("schema.db"),
            {QStringLiteral("CREATE TABLE fact (id INTEGER)"),
             QStringLiteral("CREATE SCHEMA sales"),
             QStringLiteral("CREATE TABLE sales.fact_sales (id INTEGER, amount NUMERIC(12, 2))")});
        QVERIFY(controlschema::migrate(db));
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM pg_tables WHERE schemaname = "
                                          "'rewind' AND tablename = 'rewind_runs'"))
                     ->toInt(),
                 1);
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM pg_tables WHERE schemaname = "
                                          "'public' AND tablename LIKE 'rewind%'"))
                     ->toInt(),
                 0);
        QCOMPARE(
            db.scalar(QStringLiteral("SELECT schemaname FROM pg_tables WHERE tablename = 'fact'"))
                ->toString(),
            QStringLiteral("public"));
        const QStringList names = *db.relations();
        QVERIFY2(names.contains(QStringLiteral("fact")) &&
                     names.contains(QStringLiteral("sales.fact_sales")) &&
                     names.contains(QStringLiteral("rewind_runs")),
                 qPrintable(names.join(u' ')));
        const auto cols = *db.columns(QStringLiteral("sales.fact_sales"));
        QCOMPARE(int(cols.size()), 2);
        QCOMPARE(cols[1].name, QStringLiteral("amount"));
        QCOMPARE(cols[1].type, QStringLiteral("numeric(12,2)"));
    }

    // A session the server ends (a restart, a failover, pg_terminate_backend)
    // is reported as transient; the next statement opens a new connection;
    // a write transaction it was inside is rolled back, never continued in
    // autocommit, and a retry writes it once.
    void postgresLostConnectionIsReopenedAndRetried() {
        if (!testsupport::onPostgres())
            QSKIP("a PostgreSQL server");
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("lost.db"),
                                            {QStringLiteral("CREATE TABLE t (v INTEGER)")});
        auto other = Database::open(db.url().text);
        QVERIFY(other);
        auto terminate = [&] {
            const QVariant pid = *db.scalar(QStringLiteral("SELECT pg_backend_pid()"));
            return other->scalar(QStringLiteral("SELECT pg_terminate_backend(?)"), {pid})->toBool();
        };
        const QVariant before = *db.scalar(QStringLiteral("SELECT pg_backend_pid()"));
        QVERIFY(terminate());
        auto lost = db.exec(QStringLiteral("SELECT 1"));
        QVERIFY(!lost);
        QVERIFY(lost.error().transient);
        QVERIFY2(lost.error().message.contains(QStringLiteral("lost the connection")),
                 qPrintable(lost.error().message));
        QCOMPARE(db.scalar(QStringLiteral("SELECT 1"))->toInt(), 1);
        QVERIFY(*db.scalar(QStringLiteral("SELECT pg_backend_pid()")) != before);

        int attempts = 0;
        const Status written = Database::retryTransient(3, [&] {
            return db.writeTransaction([&]() -> Status {
                if (auto r = db.exec(QStringLiteral("INSERT INTO t VALUES (1)")); !r)
                    return fail(r.error());
                if (++attempts == 1 && !terminate())
                    return internalError(QStringLiteral("could not terminate the session"));
                if (auto r = db.exec(QStringLiteral("INSERT INTO t VALUES (2)")); !r)
                    return fail(r.error());
                return {};
            });
        });
        QVERIFY2(written, qPrintable(written ? QString() : written.error().message));
        QCOMPARE(attempts, 2);
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM t"))->toInt(), 2);
        QCOMPARE(db.scalar(QStringLiteral("SELECT SUM(v) FROM t"))->toInt(), 3);
    }

    // The same under a COPY (the Kafka replay's bulk load into its staging
    // table): the session ended mid-load is transient, the connection is
    // opened again, and the retried transaction loads the rows once.
    void postgresLostConnectionUnderCopyIsRetried() {
        if (!testsupport::onPostgres())
            QSKIP("a PostgreSQL server");
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("copy.db"),
                                            {QStringLiteral("CREATE TABLE t (v INTEGER)")});
        auto other = Database::open(db.url().text);
        QVERIFY(other);
        int attempts = 0;
        QString firstFailure;
        const Status written = Database::retryTransient(3, [&] {
            const Status attempt = db.writeTransaction([&]() -> Status {
                // (Asked before the COPY: the session answers nothing else during one.)
                const QVariant pid = *db.scalar(QStringLiteral("SELECT pg_backend_pid()"));
                auto conn = db.connection();
                if (!conn)
                    return fail(conn.error());
                auto load = BulkLoad::open(*conn, QStringLiteral("t"), {QStringLiteral("v")});
                if (!load)
                    return fail(load.error());
                for (qint64 v = 1; v <= 3; ++v) {
                    const BulkValue row[] = {BulkValue::of(v)};
                    if (auto s = (*load)->add(row); !s)
                        return s;
                }
                if (++attempts == 1) {
                    if (!other->scalar(QStringLiteral("SELECT pg_terminate_backend(?)"), {pid})
                             ->toBool())
                        return internalError(QStringLiteral("could not terminate the session"));
                }
                return (*load)->finish();
            });
            if (!attempt && firstFailure.isEmpty())
                firstFailure = attempt.error().message;
            return attempt;
        });
        QVERIFY2(written, qPrintable(written ? QString() : written.error().message));
        QCOMPARE(attempts, 2);
        QVERIFY2(firstFailure.contains(QStringLiteral("lost the connection")),
                 qPrintable(firstFailure));
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM t"))->toInt(), 3);
        QCOMPARE(db.scalar(QStringLiteral("SELECT SUM(v) FROM t"))->toInt(), 6);
    }

    void missingFileIsBadInput() {
        if (testsupport::onPostgres())
            QSKIP("a SQLite file");
        QTemporaryDir dir;
        auto db = Database::open(dir.filePath(QStringLiteral("nope.db")));
        QVERIFY(!db);
        QCOMPARE(db.error().exitCode(), 2);
        QVERIFY(db.error().message.contains(QStringLiteral("no such database file")));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("nope.db"))));
    }

    void urls_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("path");
        QTest::newRow("plain") << QStringLiteral("/tmp/a.db") << QStringLiteral("/tmp/a.db");
        QTest::newRow("sqlite:") << QStringLiteral("sqlite:/tmp/a.db")
                                 << QStringLiteral("/tmp/a.db");
        QTest::newRow("sqlite:///")
            << QStringLiteral("sqlite:///tmp/a.db") << QStringLiteral("/tmp/a.db");
        QTest::newRow("relative") << QStringLiteral("sqlite:w.db") << QStringLiteral("w.db");
    }
    void urls() {
        QFETCH(QString, text);
        QFETCH(QString, path);
        auto url = DatabaseUrl::parse(text);
        QVERIFY(url);
        QCOMPARE(url->path, path);
    }

    void postgresUrls() {
        auto url = DatabaseUrl::parse(
            QStringLiteral("postgresql://ops:s%40cret@db.example:6543/"
                           "wh?sslmode=require&options=-c%20statement_timeout%3D5000"));
        QVERIFY(url);
        QCOMPARE(int(url->kind), int(SqlDialect::Kind::Postgres));
        QCOMPARE(url->user, QStringLiteral("ops"));
        QCOMPARE(url->password, QStringLiteral("s@cret"));
        QCOMPARE(url->host, QStringLiteral("db.example"));
        QCOMPARE(url->port, 6543);
        QCOMPARE(url->databaseName, QStringLiteral("wh"));
        QCOMPARE(url->connectOptions,
                 QStringLiteral("sslmode='require';options='-c statement_timeout=5000'"));
        QVERIFY(!url->display().contains(QStringLiteral("cret")));
        auto bad = DatabaseUrl::parse(QStringLiteral("postgresql://ops@db/wh?sslmod=require"));
        QVERIFY(!bad);
        QCOMPARE(bad.error().exitCode(), 2);
        QVERIFY2(bad.error().message.contains(QStringLiteral("\"sslmod\"")),
                 qPrintable(bad.error().message));
        QVERIFY(!DatabaseUrl::parse(QStringLiteral("postgresql:///nohost")));
    }

    // The URL's options reach the server: a statement_timeout set there is
    // what the session reports.
    void postgresOptionsReachTheServer() {
        if (!testsupport::onPostgres())
            QSKIP("a PostgreSQL server");
        QTemporaryDir dir;
        QUrl url(testsupport::makeDatabase(dir, QStringLiteral("opts.db"), {}).url().text);
        url.setQuery(
            QStringLiteral("options=-c%20statement_timeout%3D4321&application_name=rewind-test"));
        auto db = Database::open(url.toString());
        QVERIFY2(db, qPrintable(db ? QString() : db.error().message));
        QCOMPARE(db->scalar(QStringLiteral("SHOW statement_timeout"))->toString(),
                 QStringLiteral("4321ms"));
        QCOMPARE(db->scalar(QStringLiteral("SHOW application_name"))->toString(),
                 QStringLiteral("rewind-test"));
    }

    // Rewind's sessions get 64 MB of work_mem over the server's default; a
    // value the connection's options (or the role, or the database) set stays.
    void postgresWorkMem() {
        if (!testsupport::onPostgres())
            QSKIP("a PostgreSQL server");
        QTemporaryDir dir;
        const QString plain =
            testsupport::makeDatabase(dir, QStringLiteral("wm.db"), {}).url().text;
        auto db = Database::open(plain);
        QVERIFY2(db, qPrintable(db ? QString() : db.error().message));
        const QString source =
            db->scalar(QStringLiteral("SELECT source FROM pg_settings WHERE name = 'work_mem'"))
                ->toString();
        if (source == QLatin1String("default") || source == QLatin1String("configuration file"))
            QCOMPARE(db->scalar(QStringLiteral("SELECT pg_size_bytes(current_setting('work_mem')) "
                                               ">= pg_size_bytes('64MB')"))
                         ->toBool(),
                     true);
        QUrl url(plain);
        url.setQuery(QStringLiteral("options=-c%20work_mem%3D8MB"));
        auto small = Database::open(url.toString());
        QVERIFY2(small, qPrintable(small ? QString() : small.error().message));
        QCOMPARE(small->scalar(QStringLiteral("SHOW work_mem"))->toString(), QStringLiteral("8MB"));
        QVERIFY(small->exec(QStringLiteral("ALTER ROLE CURRENT_USER SET work_mem = '2MB'")));
        const auto reset = qScopeGuard(
            [&] { small->exec(QStringLiteral("ALTER ROLE CURRENT_USER RESET work_mem")); });
        auto role = Database::open(plain + QStringLiteral("?application_name=role"));
        QVERIFY2(role, qPrintable(role ? QString() : role.error().message));
        QCOMPARE(role->scalar(QStringLiteral("SHOW work_mem"))->toString(), QStringLiteral("2MB"));
    }
};

QTEST_GUILESS_MAIN(TestControlSchema)
#include "tst_controlschema.moc"
