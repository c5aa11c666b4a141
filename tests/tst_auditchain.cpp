// The audit log's hash chain: every row carries the SHA-256 of the row before
// it and of its own content; rows written before the chain existed are
// chained by the schema step; `rewindctl audit --verify` names the first row
// changed, removed or inserted, `audit --head` prints the newest hash; the
// database refuses UPDATE and DELETE on the log.
#include "core/sql/audit.h"
#include "core/sql/controlschema.h"
#include "tests/testsupport.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace rw;

namespace {

const QStringList kWarehouse = {
    QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, dt TEXT, amount INTEGER)"),
    QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60) "
                   "INSERT INTO raw_sales SELECT i, '2025-05-0' || ((i % 3) + 1), i FROM n"),
};

const QByteArray kSpec = R"({"datasets": {
  "sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
            "key": ["order_id"], "write": "merge"}}})";

QJsonObject json(const testsupport::CliResult &r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

qint64 count(const Database &db, const QString &sql) {
    auto v = db.scalar(sql);
    return v ? v->toLongLong() : -1;
}

// The hash as the docs define it, computed here apart from Rewind: SHA-256 of
// the previous hash, a newline and the compact JSON array of the content.
QString expectedHash(const QString &prev, const QJsonArray &content) {
    return QString::fromLatin1(
        QCryptographicHash::hash(QByteArray(prev.toLatin1() + '\n' +
                                            QJsonDocument(content).toJson(QJsonDocument::Compact)),
                                 QCryptographicHash::Sha256)
            .toHex());
}

// Lets the test tamper as a database owner would: the append-only triggers
// dropped (SQLite) or disabled (PostgreSQL).
void allowTampering(const Database &db) {
    if (testsupport::onPostgres()) {
        QVERIFY(db.exec(QStringLiteral("ALTER TABLE rewind.rewind_audit DISABLE TRIGGER USER")));
    } else {
        QVERIFY(db.exec(QStringLiteral("DROP TRIGGER rewind_audit_no_update")));
        QVERIFY(db.exec(QStringLiteral("DROP TRIGGER rewind_audit_no_delete")));
    }
}

} // namespace

class TestAuditChain : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void runsAreChainedAndVerified() {
        testsupport::WorkspaceFixture f(kWarehouse, kSpec);
        QCOMPARE(f.cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                        QStringLiteral("--execute")})
                     .exitCode,
                 0);
        const qint64 rows = count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_audit"));
        QVERIFY2(rows >= 5, "run started, three publishes, run succeeded");
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE row_hash "
                                              "IS NULL OR length(row_hash) <> 64")),
                 0);
        // Each row chains to the one before it.
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_audit AS a JOIN "
                                              "rewind_audit AS b ON b.audit_id = (SELECT "
                                              "MAX(audit_id) FROM rewind_audit WHERE audit_id < "
                                              "a.audit_id) WHERE a.prev_hash = b.row_hash")),
                 rows - 1);
        const auto verified =
            f.cli({QStringLiteral("audit"), QStringLiteral("--verify"), QStringLiteral("--json")});
        QCOMPARE(verified.exitCode, 0);
        const QJsonObject v = json(verified);
        QCOMPARE(v.value(QStringLiteral("verified")).toBool(), true);
        QCOMPARE(v.value(QStringLiteral("rows")).toInteger(), rows);
        QVERIFY(v.value(QStringLiteral("broken")).isNull());
        const QString newest = f.db()
                                   .scalar(QStringLiteral("SELECT row_hash FROM rewind_audit "
                                                          "ORDER BY audit_id DESC LIMIT 1"))
                                   ->toString();
        QCOMPARE(v.value(QStringLiteral("head")).toString(), newest);
        const auto head = f.cli({QStringLiteral("audit"), QStringLiteral("--head")});
        QCOMPARE(head.exitCode, 0);
        QCOMPARE(head.out.trimmed(), newest);
    }

    void olderLogIsChainedByTheSchemaStep() {
        QTemporaryDir dir;
        const QString url = testsupport::makeDatabase(dir, QStringLiteral("old.db"), {}).url().text;
        {
            auto db = Database::open(url);
            QVERIFY(db);
            QVERIFY(controlschema::migrate(*db, 18)); // as the Rewind before the chain left it
            QVERIFY(db->exec(QStringLiteral(
                "INSERT INTO rewind_audit (at, os_user, action, dataset, run_id, detail_json) "
                "VALUES ('2025-01-01T00:00:00Z', 'ann', 'run started', 'sales', 7, '{\"a\":1}')")));
            QVERIFY(db->exec(QStringLiteral("INSERT INTO rewind_audit (at, action) VALUES "
                                            "('2025-01-02T00:00:00Z', 'demo')")));
        }
        auto db = Database::open(url);
        QVERIFY(db);
        QVERIFY(controlschema::migrate(*db));
        const QString first = expectedHash(
            QString(), QJsonArray{QStringLiteral("2025-01-01T00:00:00Z"), QStringLiteral("ann"),
                                  QStringLiteral("run started"), QStringLiteral("sales"),
                                  QJsonValue::Null, 7, QStringLiteral("{\"a\":1}")});
        const QString second =
            expectedHash(first, QJsonArray{QStringLiteral("2025-01-02T00:00:00Z"), QJsonValue::Null,
                                           QStringLiteral("demo"), QJsonValue::Null,
                                           QJsonValue::Null, QJsonValue::Null, QJsonValue::Null});
        auto q = db->exec(
            QStringLiteral("SELECT prev_hash, row_hash FROM rewind_audit ORDER BY audit_id"));
        QVERIFY(q);
        QVERIFY(q->next());
        QVERIFY(q->value(0).isNull());
        QCOMPARE(q->value(1).toString(), first);
        QVERIFY(q->next());
        QCOMPARE(q->value(0).toString(), first);
        QCOMPARE(q->value(1).toString(), second);
        // A row written now continues the chain.
        QVERIFY(
            writeAudit(*db, QStringLiteral("demo"), QString(), QString(), QVariant(), QString()));
        auto check = verifyAuditChain(*db);
        QVERIFY(check);
        QVERIFY(check->verified);
        QCOMPARE(check->rows, 3);
        QCOMPARE(db->scalar(QStringLiteral("SELECT prev_hash FROM rewind_audit ORDER BY audit_id "
                                           "DESC LIMIT 1"))
                     ->toString(),
                 second);
    }

    // A log longer than the schema step's page (5,000 rows) is chained
    // across pages: one chain, every hash as an outside reader computes it.
    void longOlderLogIsChainedAcrossPages() {
        QTemporaryDir dir;
        const QString url =
            testsupport::makeDatabase(dir, QStringLiteral("long.db"), {}).url().text;
        {
            auto db = Database::open(url);
            QVERIFY(db);
            QVERIFY(controlschema::migrate(*db, 18));
            QVERIFY(db->exec(QStringLiteral(
                "INSERT INTO rewind_audit (at, os_user, action, run_id) WITH RECURSIVE n(i) AS "
                "(SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12001) SELECT "
                "'2025-01-01T00:00:00Z', 'ann', 'publish', i FROM n")));
        }
        auto db = Database::open(url);
        QVERIFY(db);
        QVERIFY(controlschema::migrate(*db));
        auto check = verifyAuditChain(*db);
        QVERIFY(check);
        QVERIFY(check->verified);
        QCOMPARE(check->rows, 12001);
        // Recomputed here, row by row, across the page boundaries.
        auto q = db->exec(QStringLiteral("SELECT run_id, prev_hash, row_hash FROM rewind_audit "
                                         "ORDER BY audit_id"));
        QVERIFY(q);
        QString prev;
        int rows = 0;
        while (q->next()) {
            QCOMPARE(q->value(1).toString(), prev);
            prev = expectedHash(prev, QJsonArray{QStringLiteral("2025-01-01T00:00:00Z"),
                                                 QStringLiteral("ann"), QStringLiteral("publish"),
                                                 QJsonValue::Null, QJsonValue::Null,
                                                 q->value(0).toLongLong(), QJsonValue::Null});
            QCOMPARE(q->value(2).toString(), prev);
            ++rows;
        }
        QCOMPARE(rows, 12001);
    }

    // A check from an earlier one's head: rows added since are checked, and
    // a change to that head row or a forged row after it is found; a change
    // before the head is found only by a full check, as documented.
    void aCheckFromTheLastHead() {
        testsupport::WorkspaceFixture f(kWarehouse, kSpec);
        for (int i = 0; i < 4; ++i)
            QVERIFY(writeAudit(f.db(), QStringLiteral("demo"), QString(), QString(), QVariant(),
                               QString::number(i)));
        auto full = verifyAuditChain(f.db());
        QVERIFY(full && full->verified && full->full);
        QVERIFY(writeAudit(f.db(), QStringLiteral("demo"), QString(), QString(), QVariant(),
                           QStringLiteral("later")));
        auto since = verifyAuditChain(f.db(), &*full);
        QVERIFY(since && since->verified);
        QVERIFY(!since->full);
        QCOMPARE(since->rows, full->rows + 1);
        QCOMPARE(since->head, auditHead(f.db())->hash);

        allowTampering(f.db());
        const qint64 first =
            count(f.db(), QStringLiteral("SELECT MIN(audit_id) FROM rewind_audit"));
        QVERIFY(f.db().exec(
            QStringLiteral("UPDATE rewind_audit SET detail_json = 'x' WHERE audit_id = %1")
                .arg(first)));
        auto missed = verifyAuditChain(f.db(), &*since);
        QVERIFY(missed && missed->verified); // before the head: not looked at
        auto found = verifyAuditChain(f.db());
        QVERIFY(found && !found->verified);
        QCOMPARE(found->broken->auditId, first);

        QVERIFY(f.db().exec(
            QStringLiteral("UPDATE rewind_audit SET detail_json = 'y' WHERE audit_id = %1")
                .arg(since->headId)));
        auto head = verifyAuditChain(f.db(), &*since);
        QVERIFY(head && !head->verified);
        QCOMPARE(head->broken->auditId, since->headId);
        QVERIFY(head->broken->why.contains(QStringLiteral("changed since")));

        QVERIFY(f.db().exec(QStringLiteral("INSERT INTO rewind_audit (at, action) VALUES "
                                           "('2030-01-01', 'forged')")));
        QVERIFY(f.db().exec(
            QStringLiteral("UPDATE rewind_audit SET detail_json = 'later' WHERE audit_id = %1")
                .arg(since->headId)));
        auto forged = verifyAuditChain(f.db(), &*since);
        QVERIFY(forged && !forged->verified);
        QVERIFY2(forged->broken->why.contains(QStringLiteral("no hash")),
                 qPrintable(forged->broken->why));
    }

    void updateAndDeleteAreRefused() {
        testsupport::WorkspaceFixture f(kWarehouse, kSpec);
        QVERIFY(writeAudit(f.db(), QStringLiteral("demo"), QString(), QString(), QVariant(),
                           QString()));
        QVERIFY(!f.db().exec(QStringLiteral("UPDATE rewind_audit SET action = 'forged'")));
        QVERIFY(!f.db().exec(QStringLiteral("DELETE FROM rewind_audit")));
        if (testsupport::onPostgres())
            QVERIFY(!f.db().exec(QStringLiteral("TRUNCATE rewind.rewind_audit")));
        QCOMPARE(count(f.db(), QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = "
                                              "'demo'")),
                 1);
    }

    void tamperingIsNamed_data() {
        QTest::addColumn<QString>("tamper"); // %1: the 3rd row's id, %2: a forged hash
        QTest::addColumn<int>("brokenAt");   // 0: the 3rd row, 1: the 4th
        QTest::addColumn<QString>("why");
        QTest::newRow("changed") << QStringLiteral(
                                        "UPDATE rewind_audit SET detail_json = '{}' WHERE "
                                        "audit_id = %1")
                                 << 0 << QStringLiteral("changed");
        QTest::newRow("removed") << QStringLiteral("DELETE FROM rewind_audit WHERE audit_id = %1")
                                 << 1 << QStringLiteral("removed");
        QTest::newRow("rehashed") // changed, its own hash recomputed: the next row shows it
            << QStringLiteral("UPDATE rewind_audit SET action = 'x', row_hash = '%2' WHERE "
                              "audit_id = %1")
            << 1 << QStringLiteral("changed and hashed again");
        QTest::newRow("inserted")
            << QStringLiteral("INSERT INTO rewind_audit (at, action) VALUES ('2030-01-01', 'x')")
            << -1 << QStringLiteral("no hash");
    }
    void tamperingIsNamed() {
        QFETCH(QString, tamper);
        QFETCH(int, brokenAt);
        QFETCH(QString, why);
        testsupport::WorkspaceFixture f(kWarehouse, kSpec);
        QCOMPARE(f.cli({QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("sales"),
                        QStringLiteral("--execute")})
                     .exitCode,
                 0);
        QList<qint64> ids;
        auto q = f.db().exec(QStringLiteral("SELECT audit_id FROM rewind_audit ORDER BY audit_id"));
        QVERIFY(q);
        while (q->next())
            ids << q->value(0).toLongLong();
        QVERIFY(ids.size() >= 5);
        allowTampering(f.db());
        // The "rehashed" forger's hash: what the row's new content hashes to.
        auto prev = f.db().scalar(QStringLiteral("SELECT prev_hash FROM rewind_audit WHERE "
                                                 "audit_id = %1")
                                      .arg(ids[2]));
        QVERIFY(prev);
        auto row = f.db().exec(QStringLiteral("SELECT at, os_user, dataset, stream, run_id, "
                                              "detail_json FROM rewind_audit WHERE audit_id = %1")
                                   .arg(ids[2]));
        QVERIFY(row && row->next());
        const QString forged = auditRowHash(
            prev->toString(), row->value(0), row->value(1), QStringLiteral("x"), row->value(2),
            row->value(3), row->value(4).isNull() ? QVariant() : row->value(4).toLongLong(),
            row->value(5));
        row = {};
        QVERIFY(f.db().exec(tamper.replace(QStringLiteral("%1"), QString::number(ids[2]))
                                .replace(QStringLiteral("%2"), forged)));
        const auto r =
            f.cli({QStringLiteral("audit"), QStringLiteral("--verify"), QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 3);
        const QJsonObject v = json(r);
        QCOMPARE(v.value(QStringLiteral("verified")).toBool(), false);
        const qint64 at = brokenAt < 0 ? count(f.db(), QStringLiteral("SELECT MAX(audit_id) FROM "
                                                                      "rewind_audit"))
                                       : ids[2 + brokenAt];
        QCOMPARE(v.value(QStringLiteral("broken"))
                     .toObject()
                     .value(QStringLiteral("audit_id"))
                     .toInteger(),
                 at);
        QVERIFY2(v.value(QStringLiteral("broken"))
                     .toObject()
                     .value(QStringLiteral("why"))
                     .toString()
                     .contains(why),
                 qPrintable(r.out));
        QVERIFY(r.err.contains(QStringLiteral("row %1").arg(at)));
    }

    void verifyRefusesFilters() {
        testsupport::WorkspaceFixture f(kWarehouse, kSpec);
        const auto r = f.cli({QStringLiteral("audit"), QStringLiteral("--verify"),
                              QStringLiteral("--dataset"), QStringLiteral("sales")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--dataset")));
    }
};

QTEST_GUILESS_MAIN(TestAuditChain)
#include "tst_auditchain.moc"
