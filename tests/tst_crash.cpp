// Crash safety: rewindctl killed with SIGKILL at several points of a run,
// then resumed, leaves the target exactly as an uninterrupted run does: no
// duplicate, no gap. The kill is a real SIGKILL of a child process, raised
// by the REWIND_FAILPOINT hook (core/failpoint.h).
#include "database.h"
#include "testsupport.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace rw;

namespace {

using Proc = testsupport::ChildResult;

Proc rewindctl(const QStringList &args, const QString &failpoint = QString())
{
    return testsupport::runRewindctl(args, failpoint);
}

QString digest(const QString &path)
{
    auto db = Database::open(path);
    auto q = db->exec(QStringLiteral("SELECT order_id, dt, amount, updated_at FROM fact ORDER BY dt, order_id, amount, updated_at"));
    QCryptographicHash h(QCryptographicHash::Sha256);
    while (q->next())
        h.addData(QString(q->value(0).toString() + u'|' + q->value(1).toString() + u'|' + q->value(2).toString() + u'|'
                          + q->value(3).toString() + u'\n')
                      .toUtf8());
    return QString::fromLatin1(h.result().toHex());
}

qint64 scalar(const QString &path, const QString &sql)
{
    auto db = Database::open(path);
    return db->scalar(sql)->toLongLong();
}

} // namespace

class TestCrash : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_initial;
    QString m_spec;
    QString m_expected;
    qint64 m_expectedRows = 0;

    QString freshCopy(const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QFile::remove(path);
        QFile::copy(m_initial, path);
        return path;
    }

    QStringList ws(const QString &db) const { return {QStringLiteral("--db"), db, QStringLiteral("--spec"), m_spec}; }

private Q_SLOTS:
    void initTestCase()
    {
        // 6 daily partitions of 3,000 source rows with 10% re-sent versions;
        // the target has day 2 doubled and day 4 missing a third of its rows.
        {
        auto db = testsupport::makeDatabase(m_dir, QStringLiteral("initial.db"), {
            QStringLiteral("CREATE TABLE raw (order_id INTEGER, dt TEXT, amount REAL, updated_at TEXT)"),
            QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 17999) "
                           "INSERT INTO raw SELECT i % 3000, '2025-05-0' || (1 + i / 3000), (i * 7919) % 1000 / 10.0, '2025-05-10T00:00:00Z' FROM n"),
            QStringLiteral("INSERT INTO raw SELECT order_id, dt, amount + 1, '2025-05-11T00:00:00Z' FROM raw WHERE order_id % 10 = 0"),
            QStringLiteral("CREATE INDEX raw_dt ON raw (dt)"),
            QStringLiteral("CREATE TABLE fact (order_id INTEGER, dt TEXT, amount REAL, updated_at TEXT)"),
            QStringLiteral("INSERT INTO fact SELECT order_id, dt, CASE WHEN dt = '2025-05-02' THEN amount * 2 ELSE amount END, updated_at "
                           "FROM raw WHERE updated_at = '2025-05-10T00:00:00Z' AND NOT (dt = '2025-05-04' AND order_id % 3 = 0)"),
            QStringLiteral("CREATE INDEX fact_dt ON fact (dt, order_id)"),
        });
        m_initial = db.url().path;
        } // closing the last connection checkpoints the WAL, so a plain file copy is the whole database
        m_spec = testsupport::writeFile(m_dir, QStringLiteral("crash.json"), R"({"datasets": {"fact": {
            "source": "raw", "target": "fact", "partition_column": "dt", "key": ["order_id"], "order_by": "updated_at",
            "write": "merge", "checks": [{"type": "row_count", "min": 1}, {"type": "unique_key"}]}}})");
        // Make sure the control schema exists in the template, as on a workspace in use.
        QVERIFY(rewindctl(QStringList{QStringLiteral("datasets")} + ws(m_initial)).exitCode == 0);

        const QString baseline = freshCopy(QStringLiteral("baseline.db"));
        const Proc r = rewindctl(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"), QStringLiteral("--execute"),
                                             QStringLiteral("--json")} + ws(baseline));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        m_expected = digest(baseline);
        m_expectedRows = scalar(baseline, QStringLiteral("SELECT COUNT(*) FROM fact"));
        QCOMPARE(m_expectedRows, 18000);
        QVERIFY(m_expected != digest(m_initial));
    }

    void killedThenResumed_data()
    {
        QTest::addColumn<QString>("failpoint");
        QTest::newRow("before the first chunk") << QStringLiteral("chunk-start:1");
        QTest::newRow("starting chunk 3") << QStringLiteral("chunk-start:3");
        QTest::newRow("staged, before publish of chunk 2") << QStringLiteral("before-publish:2");
        QTest::newRow("data written, chunk 4 uncommitted") << QStringLiteral("after-write:4");
        QTest::newRow("checkpoint written, chunk 1 uncommitted") << QStringLiteral("before-commit:1");
        QTest::newRow("chunk 5 committed") << QStringLiteral("after-commit:5");
        QTest::newRow("last chunk uncommitted") << QStringLiteral("before-commit:6");
    }

    void killedThenResumed()
    {
        QFETCH(QString, failpoint);
        const QString db = freshCopy(QStringLiteral("crash-") + QString(failpoint).replace(u':', u'-') + QStringLiteral(".db"));
        const Proc killed = rewindctl(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
                                                  QStringLiteral("--execute"), QStringLiteral("--json")} + ws(db),
                                      failpoint);
        QVERIFY2(killed.crashed, "the run was not killed");

        // The dead run shows as interrupted, not running.
        const Proc runs = rewindctl(QStringList{QStringLiteral("runs"), QStringLiteral("--json")} + ws(db));
        QCOMPARE(runs.exitCode, 0);
        const QJsonObject run = QJsonDocument::fromJson(runs.out).object()[QStringLiteral("runs")].toArray().at(0).toObject();
        QCOMPARE(run[QStringLiteral("status")].toString(), QStringLiteral("interrupted"));
        const QString id = QString::number(run[QStringLiteral("run_id")].toInteger());

        // Nothing half-published: every partition is either its old self or its new self.
        const Proc resumed = rewindctl(QStringList{QStringLiteral("resume"), QStringLiteral("--run"), id, QStringLiteral("--execute"),
                                                   QStringLiteral("--json")} + ws(db));
        QVERIFY2(resumed.exitCode == 0, resumed.err.constData());
        const QJsonObject result = QJsonDocument::fromJson(resumed.out).object();
        QCOMPARE(result[QStringLiteral("status")].toString(), QStringLiteral("succeeded"));
        QCOMPARE(result[QStringLiteral("partitions")].toArray().size(), 6);

        QCOMPARE(digest(db), m_expected);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM fact")), m_expectedRows);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM (SELECT order_id, dt FROM fact GROUP BY 1, 2 HAVING COUNT(*) > 1)")), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints WHERE run_id = ") + id + QStringLiteral(" AND status = 'done'")), 6);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = 'publish'")), 6);
    }
};

QTEST_GUILESS_MAIN(TestCrash)
#include "tst_crash.moc"
