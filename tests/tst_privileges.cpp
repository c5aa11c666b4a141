// Least privilege, checked before a change: roles granted as docs/security.md
// says (one that browses and previews, one that also runs) do what they
// should, and a role missing a privilege is refused with exit 2 naming the
// privilege, the table and the role, before anything changes (no run row, no
// target row). PostgreSQL's roles; on SQLite, a database file this user may
// not write is refused the same way.
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QFile>
#include <QTest>
#include <unistd.h>

using namespace rw;

namespace {

const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, dt TEXT, amount INTEGER)"),
    QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60) "
                   "INSERT INTO raw_sales SELECT i, '2025-05-0' || ((i % 3) + 1), i FROM n"),
    QStringLiteral("CREATE TABLE fact_sales (order_id INTEGER, dt TEXT, amount INTEGER)"),
};

const QByteArray kSpec = R"({"datasets": {
  "sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
            "key": ["order_id"], "write": "merge"}}})";

} // namespace

class TestPrivileges : public QObject {
    Q_OBJECT

    std::optional<testsupport::WorkspaceFixture> m_ws;
    QString m_database;

    QString as(const QString &role) const {
        QUrl u(m_ws->dbPath);
        u.setUserName(role);
        return u.toString();
    }
    testsupport::CliResult cliAs(const QString &role, const QStringList &command) const {
        return testsupport::runCli(command + QStringList{QStringLiteral("--db"), as(role),
                                                         QStringLiteral("--spec"), m_ws->specPath});
    }
    qint64 count(const QString &sql) const {
        auto v = m_ws->db().scalar(sql);
        return v ? v->toLongLong() : -1;
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        if (!testsupport::onPostgres())
            return;
        m_ws.emplace(kWarehouse, kSpec); // opened as the owner: Rewind's schema made
        m_database = m_ws->db().url().databaseName;
        const Database &db = m_ws->db();
        QStringList setup;
        for (const char *role : {"priv_browse", "priv_operator", "priv_noupdate", "priv_nousage"})
            setup << QStringLiteral("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname "
                                    "= '%1') THEN CREATE ROLE %1 LOGIN; END IF; END $$")
                         .arg(QLatin1String(role));
        const QString tables = QStringLiteral("raw_sales, fact_sales");
        const QString target = QStringLiteral("fact_sales");
        setup << testsupport::browseGrants(QStringLiteral("priv_browse"), m_database, tables)
              << testsupport::browseGrants(QStringLiteral("priv_operator"), m_database, tables)
              << testsupport::operateGrants(QStringLiteral("priv_operator"), target)
              << testsupport::browseGrants(QStringLiteral("priv_noupdate"), m_database, tables)
              << testsupport::operateGrants(QStringLiteral("priv_noupdate"), target)
              << QStringLiteral("REVOKE UPDATE ON fact_sales FROM priv_noupdate")
              << QStringLiteral("GRANT SELECT, INSERT, UPDATE, DELETE ON raw_sales, fact_sales TO "
                                "priv_nousage");
        QVERIFY(db.execAll(setup));
    }

    void browserBrowsesAndPreviewsButDoesNotRun() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        for (const QStringList &command :
             {QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"),
                          QStringLiteral("sales")},
              {QStringLiteral("runs")},
              {QStringLiteral("audit"), QStringLiteral("--verify")},
              {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("sales")}}) {
            const auto r = cliAs(QStringLiteral("priv_browse"), command);
            QVERIFY2(r.exitCode == 0, qPrintable(command.join(u' ') + u'\n' + r.err));
        }
        const qint64 runs = count(QStringLiteral("SELECT COUNT(*) FROM rewind_runs"));
        const auto r = cliAs(QStringLiteral("priv_browse"),
                             {QStringLiteral("run"), QStringLiteral("--dataset"),
                              QStringLiteral("sales"), QStringLiteral("--execute")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("role priv_browse lacks")), qPrintable(r.err));
        QVERIFY(r.err.contains(QStringLiteral("INSERT, UPDATE on table fact_sales")));
        QVERIFY(r.err.contains(QStringLiteral("rewind.rewind_runs")));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_runs")), runs);
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 0);
    }

    void missingUpdateIsNamedBeforeAnyChange() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        const qint64 runs = count(QStringLiteral("SELECT COUNT(*) FROM rewind_runs"));
        const qint64 audit = count(QStringLiteral("SELECT COUNT(*) FROM rewind_audit"));
        const auto r =
            cliAs(QStringLiteral("priv_noupdate"),
                  {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                   QStringLiteral("--execute"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("role priv_noupdate lacks UPDATE on table "
                                               "fact_sales (the target)")),
                 qPrintable(r.err));
        QVERIFY(r.err.contains(QStringLiteral("GRANT UPDATE ON fact_sales TO priv_noupdate")));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_runs")), runs);
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_audit")), audit);
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 0);
    }

    void noUsageOnRewindsSchemaIsNamed() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        const auto r = cliAs(QStringLiteral("priv_nousage"), {QStringLiteral("datasets")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("role priv_nousage lacks USAGE on schema rewind")),
                 qPrintable(r.err));
    }

    void operatorRunsAndCannotRewriteTheAudit() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        const auto r = cliAs(QStringLiteral("priv_operator"),
                             {QStringLiteral("run"), QStringLiteral("--dataset"),
                              QStringLiteral("sales"), QStringLiteral("--execute")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 60);
        auto op = Database::open(as(QStringLiteral("priv_operator")));
        QVERIFY(op);
        auto edit = op->exec(QStringLiteral("UPDATE rewind.rewind_audit SET action = 'x'"));
        QVERIFY(!edit);
        QVERIFY(edit.error().message.contains(QStringLiteral("permission denied")));
        QCOMPARE(cliAs(QStringLiteral("priv_operator"),
                       {QStringLiteral("audit"), QStringLiteral("--verify")})
                     .exitCode,
                 0);
    }

    // Freezing and rolling back are writes too: refused to the browser,
    // naming what it lacks; the operator, who made the before-images, rolls
    // its run back.
    void freezeAndRollbackAreChecked() {
        if (!testsupport::onPostgres())
            QSKIP("roles are PostgreSQL's");
        const auto freeze = cliAs(QStringLiteral("priv_browse"),
                                  {QStringLiteral("freeze"), QStringLiteral("--dataset"),
                                   QStringLiteral("sales"), QStringLiteral("--reason"),
                                   QStringLiteral("incident"), QStringLiteral("--execute")});
        QCOMPARE(freeze.exitCode, 2);
        QVERIFY2(freeze.err.contains(QStringLiteral("TRIGGER on table fact_sales")),
                 qPrintable(freeze.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM rewind_frozen")), 0);
        const qint64 run =
            count(QStringLiteral("SELECT MAX(run_id) FROM rewind_runs WHERE status = 'succeeded'"));
        QVERIFY(run > 0);
        const QStringList rollback = {QStringLiteral("rollback"), QStringLiteral("--run"),
                                      QString::number(run), QStringLiteral("--execute")};
        const auto refused = cliAs(QStringLiteral("priv_browse"), rollback);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("ownership on table rewind_images_sales")),
                 qPrintable(refused.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 60);
        const auto done = cliAs(QStringLiteral("priv_operator"), rollback);
        QVERIFY2(done.exitCode == 0, qPrintable(done.err));
        QCOMPARE(count(QStringLiteral("SELECT COUNT(*) FROM fact_sales")), 0);
    }

    void readOnlySqliteFileIsRefused() {
        if (testsupport::onPostgres())
            QSKIP("SQLite's file permissions");
        if (::geteuid() == 0)
            QSKIP("running as root, who may write any file: a read-only file cannot be made");
        testsupport::WorkspaceFixture f(kWarehouse, kSpec);
        QVERIFY(QFile::setPermissions(f.dbPath, QFileDevice::ReadOwner));
        const auto r = f.cli({QStringLiteral("run"), QStringLiteral("--dataset"),
                              QStringLiteral("sales"), QStringLiteral("--execute")});
        QFile::setPermissions(f.dbPath, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("read-only")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestPrivileges)
#include "tst_privileges.moc"
