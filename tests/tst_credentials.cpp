// Database passwords: a password given in a --db URL is used and never kept
// (the URL without it is what may be stored and shown); libpq's own sources
// work (PGPASSWORD, a password file, a service); a server that wants a
// password none of them gave is refused with exit 2 naming the role, never
// the password. The PostgreSQL cases log in as rewind_pw_credentials, a
// member of the role the test server (scripts/pg.sh) makes give a password.
#include "core/sql/credentials.h"
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <QUrl>

using namespace rw;

namespace {

const QString kRole = QStringLiteral("rewind_pw_credentials");

// Sets an environment variable for one scope.
struct EnvScope {
    QByteArray name;
    QByteArray old;
    bool had;
    EnvScope(const char *n, const QString &value)
        : name(n)
        , old(qgetenv(n))
        , had(qEnvironmentVariableIsSet(n)) {
        qputenv(n, value.toUtf8());
    }
    ~EnvScope() {
        if (had)
            qputenv(name.constData(), old);
        else
            qunsetenv(name.constData());
    }
};

// Logs in to `url` and asks the server something.
Result<QVariant> login(const QString &url) {
    auto db = Database::open(url);
    if (!db)
        return fail(db.error());
    return db->scalar(QStringLiteral("SELECT current_user"));
}

} // namespace

class TestCredentials : public QObject {
    Q_OBJECT

    testsupport::PasswordRole m_login; // kRole, a new password each run
    QString m_password;                // its password
    QUrl m_server;                     // the test server, as postgres (trusted)

    QString urlAs(const QString &password) const {
        return m_login.url(m_server.toString(), password);
    }

private Q_SLOTS:
    void parsingKeepsThePasswordOut() {
        auto url = DatabaseUrl::parse(
            QStringLiteral("postgresql://op:s%3Acret@db.example:6432/w?sslmode=require"));
        QVERIFY(url);
        QCOMPARE(url->password, QStringLiteral("s:cret"));
        QVERIFY(!url->display().contains(QStringLiteral("cret")));
        QCOMPARE(url->withoutPassword(),
                 QStringLiteral("postgresql://op@db.example:6432/w?sslmode=require"));

        auto conninfo = DatabaseUrl::parse(
            QStringLiteral("host=db.example port=6432 dbname=w user=op password='s cret'"));
        QVERIFY(conninfo);
        QCOMPARE(conninfo->kind, SqlDialect::Kind::Postgres);
        QCOMPARE(conninfo->password, QStringLiteral("s cret"));
        QCOMPARE(conninfo->port, 6432);
        QVERIFY(!conninfo->withoutPassword().contains(QStringLiteral("cret")));
        QCOMPARE(DatabaseUrl::parse(conninfo->withoutPassword())->databaseName,
                 QStringLiteral("w"));

        auto service = DatabaseUrl::parse(QStringLiteral("service=prod"));
        QVERIFY(service);
        QCOMPARE(service->kind, SqlDialect::Kind::Postgres);
        QCOMPARE(service->port, -1);
        QCOMPARE(service->display(), QStringLiteral("postgresql:///?service=prod"));
        auto serviceUrl = DatabaseUrl::parse(QStringLiteral("postgresql:///?service=prod"));
        QVERIFY(serviceUrl);
        QVERIFY(serviceUrl->host.isEmpty());

        // libpq's form with a parameter Rewind does not pass on: refused,
        // never read as a SQLite path, the password not echoed.
        auto unknown = DatabaseUrl::parse(
            QStringLiteral("host=db.example gssencmode=disable password=hunter2"));
        QVERIFY(!unknown);
        QCOMPARE(unknown.error().exitCode(), 2);
        QVERIFY(!unknown.error().message.contains(QStringLiteral("hunter2")));
        QVERIFY(DatabaseUrl::parse(QStringLiteral("host=h hostaddr=10.0.0.5 dbname=w"))
                    ->connectOptions.contains(QStringLiteral("hostaddr='10.0.0.5'")));
        // Not libpq's keywords: a SQLite file of that name.
        QCOMPARE(DatabaseUrl::parse(QStringLiteral("/data/nightly=1.db"))->kind,
                 SqlDialect::Kind::Sqlite);
        // ... unless it is no file either: refused, not made.
        QCOMPARE(DatabaseUrl::parse(QStringLiteral("nightly=1.db")).error().exitCode(), 2);
        // A URL with neither host nor service names the form expected.
        auto bad = DatabaseUrl::parse(QStringLiteral("postgresql:///w"));
        QVERIFY(!bad);
        QCOMPARE(bad.error().exitCode(), 2);

        // takePassword: the text to keep, the password remembered apart.
        const QString kept =
            credentials::takePassword(QStringLiteral("postgresql://op:hunter2@db.example/w"));
        QCOMPARE(kept, QStringLiteral("postgresql://op@db.example/w"));
        QCOMPARE(credentials::lookup(*DatabaseUrl::parse(kept)), QStringLiteral("hunter2"));
        credentials::forget(*DatabaseUrl::parse(kept));
        QVERIFY(credentials::lookup(*DatabaseUrl::parse(kept)).isEmpty());
        QCOMPARE(credentials::takePassword(QStringLiteral("w.db")), QStringLiteral("w.db"));
    }

    void initTestCase() {
        if (!testsupport::onPostgres())
            return; // the SQLite run tests parsing only
        REWIND_REQUIRE_ENGINE();
        m_server = QUrl(qEnvironmentVariable("REWIND_TEST_PG_URL"));
        m_login = testsupport::newPasswordRole(QStringLiteral("credentials"));
        m_password = m_login.password;
        QVERIFY(!m_password.isEmpty());
    }

    void serverWantsAPassword() {
        if (!testsupport::onPostgres())
            QSKIP("passwords are PostgreSQL's");
        const QString noPassword = urlAs(QString());
        auto conn = login(noPassword);
        QVERIFY(!conn);
        QCOMPARE(conn.error().exitCode(), 2);
        QVERIFY(conn.error().needsPassword);
        QVERIFY2(conn.error().message.contains(kRole), qPrintable(conn.error().message));
        QVERIFY(conn.error().message.contains(QStringLiteral("none was found")));

        const QString wrong = urlAs(QStringLiteral("not-it"));
        auto refused = login(wrong);
        QVERIFY(!refused);
        QVERIFY(refused.error().needsPassword);
        QVERIFY(refused.error().message.contains(QStringLiteral("refused")));
        QVERIFY(!refused.error().message.contains(QStringLiteral("not-it")));

        // The one in the URL works, and so does one remembered for the login
        // (the console's prompt), with a URL that has none.
        QVERIFY(login(urlAs(m_password)));
        const auto parsed = DatabaseUrl::parse(noPassword);
        credentials::remember(*parsed, m_password);
        QVERIFY(login(noPassword));
        credentials::forget(*parsed);
    }

    void libpqSourcesWork() {
        if (!testsupport::onPostgres())
            QSKIP("passwords are PostgreSQL's");
        const QString noPassword = urlAs(QString());
        {
            EnvScope env("PGPASSWORD", m_password);
            QVERIFY(login(noPassword));
        }
        QTemporaryDir dir;
        const QString passfile = dir.filePath(QStringLiteral("pgpass"));
        QFile f(passfile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("%1:%2:*:%3:%4\n")
                    .arg(m_server.host())
                    .arg(m_server.port())
                    .arg(kRole, m_password)
                    .toUtf8());
        f.close();
        QVERIFY(f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        EnvScope pass("PGPASSFILE", passfile);
        QVERIFY(login(noPassword));

        // A service: the server, database and role named in a service file,
        // the password from the password file.
        const QString services = dir.filePath(QStringLiteral("pg_service.conf"));
        QFile sf(services);
        QVERIFY(sf.open(QIODevice::WriteOnly));
        sf.write(QStringLiteral("[rewindtest]\nhost=%1\nport=%2\ndbname=%3\nuser=%4\n")
                     .arg(m_server.host())
                     .arg(m_server.port())
                     .arg(m_server.path().mid(1), kRole)
                     .toUtf8());
        sf.close();
        EnvScope serviceFile("PGSERVICEFILE", services);
        for (const QString &db : {QStringLiteral("postgresql:///?service=rewindtest"),
                                  QStringLiteral("service=rewindtest")}) {
            auto opened = Database::open(db);
            QVERIFY(opened);
            auto who = opened->scalar(QStringLiteral("SELECT current_user"));
            QVERIFY2(who, qPrintable(who ? QString() : who.error().message));
            QCOMPARE(who->toString(), kRole);
        }
    }

    // rewindctl with the password in --db: works, and says it nowhere.
    void rewindctlNeverPrintsIt() {
        if (!testsupport::onPostgres())
            QSKIP("passwords are PostgreSQL's");
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(
            dir, QStringLiteral("secret.db"),
            {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, dt TEXT, amount INTEGER)"),
             QStringLiteral("INSERT INTO raw_sales VALUES (1, '2025-05-01', 5), (2, "
                            "'2025-05-02', 7)")});
        const QUrl url(m_login.url(db.url().text, m_password));
        const QString spec = testsupport::writeFile(dir, QStringLiteral("s.json"), R"({"datasets": {
          "sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
                    "key": ["order_id"], "write": "merge"}}})");
        const QStringList ws = {QStringLiteral("--db"), url.toString(), QStringLiteral("--spec"),
                                spec};
        for (const QStringList &command :
             {QStringList{QStringLiteral("datasets")},
              {QStringLiteral("partitions"), QStringLiteral("--dataset"), QStringLiteral("sales")},
              {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("sales")},
              {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("sales"),
               QStringLiteral("--execute")},
              {QStringLiteral("runs")},
              {QStringLiteral("audit")},
              {QStringLiteral("run-report"), QStringLiteral("--run"), QStringLiteral("1")}}) {
            for (const bool json : {false, true}) {
                QStringList args = command + ws;
                if (json)
                    args << QStringLiteral("--json");
                const auto r = testsupport::runCli(args);
                QVERIFY2(r.exitCode == 0, qPrintable(args.join(u' ') + u'\n' + r.err));
                QVERIFY2(!r.out.contains(m_password) && !r.err.contains(m_password),
                         qPrintable(args.join(u' ')));
            }
        }
        // A wrong one: refused, exit 2, neither password said.
        QUrl wrong = url;
        wrong.setPassword(QStringLiteral("wrong-one"));
        const auto r = testsupport::runCli({QStringLiteral("datasets"), QStringLiteral("--db"),
                                            wrong.toString(), QStringLiteral("--spec"), spec,
                                            QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(kRole));
        QVERIFY(!r.err.contains(QStringLiteral("wrong-one")) &&
                !r.out.contains(QStringLiteral("wrong-one")));
        // Nothing Rewind wrote to the database holds it.
        for (const char *table : {"rewind_audit", "rewind_runs", "rewind_plans",
                                  "rewind_checkpoints", "rewind_partition_state", "rewind_meta"})
            QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM rewind.%1 AS t WHERE t::text "
                                              "LIKE '%' || ? || '%'")
                                   .arg(QLatin1String(table)),
                               {m_password})
                         ->toLongLong(),
                     0);
    }
};

QTEST_GUILESS_MAIN(TestCredentials)
#include "tst_credentials.moc"
