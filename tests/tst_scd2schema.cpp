// The worked example: an scd2 dimension gains a tracked attribute
// (customer_tier, on_schema_change append_new_columns). Its preview shows,
// month by month, the versions the new attribute opens and closes; the run
// over every month adds the column and reconciles the history so that the
// dimension equals, row for row, one built from scratch with the new spec;
// a kill at each failpoint, then resume, ends the same; the rollback puts
// the dimension back as it was, without the column. On SQLite and PostgreSQL.
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <algorithm>

using namespace rw;

namespace {

using Proc = testsupport::ChildResult;

QJsonObject json(const Proc &p) {
    return QJsonDocument::fromJson(p.out).object();
}

// The whole history of `table`, every column of the new spec.
QString history(const QString &db, const QString &table) {
    return testsupport::digest(
        db, QStringLiteral("SELECT customer_id, month, region, customer_tier, updated_at, "
                           "valid_from, valid_to, is_current FROM ") +
                table);
}

// The history as the old spec built it (no customer_tier).
QString oldHistory(const QString &db) {
    return testsupport::digest(db, QStringLiteral("SELECT customer_id, month, region, updated_at, "
                                                  "valid_from, valid_to, is_current FROM dim"));
}

bool hasTier(const QString &db) {
    return testsupport::hasColumn(db, QStringLiteral("dim"), QStringLiteral("customer_tier"));
}

} // namespace

class TestScd2Schema : public QObject {
    Q_OBJECT

private:
    testsupport::CopiedWorkspace m_ws; // dim built month by month with the old spec
    QString m_before;                  // dim's history in m_ws.initial
    QString m_scratch;                 // the history built from scratch with the new spec

    Proc runAll(const QString &db, const QString &dataset) const {
        return m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"), dataset,
                               QStringLiteral("--execute"), QStringLiteral("--json")},
                              db);
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // 50 customers over 6 months: the region moves rarely, the tier
        // (which the old spec did not track) more often; some customers
        // join late.
        m_ws.initial =
            testsupport::makeDatabase(
                m_ws.dir, QStringLiteral("initial.db"),
                {
                    QStringLiteral("CREATE TABLE cust (customer_id INTEGER, month TEXT, region "
                                   "TEXT, customer_tier TEXT, updated_at TEXT)"),
                    QStringLiteral(
                        "WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM c WHERE "
                        "id < 50), m(k, month) AS (VALUES (0, '2025-01-01'), (1, '2025-02-01'), "
                        "(2, '2025-03-01'), (3, '2025-04-01'), (4, '2025-05-01'), (5, "
                        "'2025-06-01')) INSERT INTO cust SELECT id, month, CASE WHEN k < 2 + id "
                        "% 5 THEN 'EMEA' ELSE 'APAC' END, CASE (id + k / (1 + id % 3)) % 3 WHEN "
                        "0 THEN 'bronze' WHEN 1 THEN 'silver' ELSE 'gold' END, month || "
                        "'T01:00:00Z' FROM c, m WHERE NOT (id % 7 = 3 AND k < 2)"),
                })
                .url()
                .text;
        const auto dataset = [](const char *name, const char *target, const char *columns,
                                const char *tracked, const char *policy = "append_new_columns") {
            return QStringLiteral(
                       R"("%1": {"transform": "SELECT customer_id, month, %3, updated_at FROM cust",
    "target": "%2", "partition_column": "month", "key": ["customer_id"], "order_by": "updated_at",
    "write": "scd2", "on_schema_change": "%5",
    "scd2": {"tracked": [%4], "valid_from": "valid_from", "valid_to": "valid_to", "current": "is_current"}})")
                .arg(QLatin1String(name), QLatin1String(target), QLatin1String(columns),
                     QLatin1String(tracked), QLatin1String(policy));
        };
        m_ws.spec = testsupport::writeFile(
            m_ws.dir, QStringLiteral("scd2.json"),
            (QStringLiteral(R"({"datasets": {)") +
             QStringList{
                 dataset("dim_v1", "dim", "region", R"("region")"),
                 dataset("dim_v2", "dim", "region, customer_tier", R"("region", "customer_tier")"),
                 dataset("dim_scratch", "dim_scratch", "region, customer_tier",
                         R"("region", "customer_tier")"),
                 // The region no longer tracked nor yielded: dropped from
                 // every version, the versions it split merged again.
                 dataset("dim_tier", "dim", "customer_tier", R"("customer_tier")",
                         "sync_all_columns"),
                 dataset("dim_tier_scratch", "dim_tier_scratch", "customer_tier",
                         R"("customer_tier")", "sync_all_columns"),
             }
                 .join(QStringLiteral(",\n")) +
             QStringLiteral("}}"))
                .toUtf8());
        // The dimension as the old spec built it, month by month.
        for (const char *month :
             {"2025-01-01", "2025-02-01", "2025-03-01", "2025-04-01", "2025-05-01", "2025-06-01"}) {
            const Proc r = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                           QStringLiteral("dim_v1"), QStringLiteral("--partition"),
                                           QString::fromLatin1(month), QStringLiteral("--execute")},
                                          m_ws.initial);
            QVERIFY2(r.exitCode == 0, r.err.constData());
        }
        QVERIFY(!hasTier(m_ws.initial));
        m_before = oldHistory(m_ws.initial);
        const QString scratch = m_ws.freshCopy();
        const Proc built = runAll(scratch, QStringLiteral("dim_scratch"));
        QVERIFY2(built.exitCode == 0, built.err.constData());
        m_scratch = history(scratch, QStringLiteral("dim_scratch"));
        // The new attribute splits versions: the scratch history has more.
        QVERIFY(testsupport::scalarAt(scratch, QStringLiteral("SELECT COUNT(*) FROM dim_scratch")) >
                testsupport::scalarAt(scratch, QStringLiteral("SELECT COUNT(*) FROM dim")));
    }

    // The preview names the column and shows, per month, the versions the
    // new attribute opens and closes: the same counts the run then makes;
    // the run leaves the dimension equal to the one built from scratch.
    void previewThenRunEqualsABuildFromScratch() {
        const QString db = m_ws.freshCopy();
        const Proc p = m_ws.rewindctl({QStringLiteral("preview"), QStringLiteral("--dataset"),
                                       QStringLiteral("dim_v2"), QStringLiteral("--json")},
                                      db);
        QVERIFY2(p.exitCode == 0, p.err.constData());
        const QJsonArray add = testsupport::jsonAt(json(p), "schema_change/add").toArray();
        QCOMPARE(add.size(), 1);
        QCOMPARE(add.at(0).toObject().value(QStringLiteral("column")).toString(),
                 QStringLiteral("customer_tier"));
        QVERIFY(!hasTier(db));
        QCOMPARE(oldHistory(db), m_before);
        const Proc r = runAll(db, QStringLiteral("dim_v2"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(history(db, QStringLiteral("dim")), m_scratch);
        const QJsonArray planned = json(p).value(QStringLiteral("partitions")).toArray();
        const QJsonArray made = json(r).value(QStringLiteral("partitions")).toArray();
        QCOMPARE(planned.size(), 6);
        QCOMPARE(made.size(), 6);
        qint64 opened = 0;
        for (qsizetype i = 0; i < planned.size(); ++i) {
            const QJsonObject a = planned.at(i).toObject(), b = made.at(i).toObject();
            for (const char *count : {"inserted", "updated", "deleted", "unchanged"})
                QCOMPARE(a.value(QLatin1String(count)).toInteger(),
                         b.value(QLatin1String(count)).toInteger());
            opened += a.value(QStringLiteral("inserted")).toInteger();
        }
        QVERIFY(opened > 0);
        // Re-running the new spec changes nothing more.
        const Proc again = m_ws.rewindctl({QStringLiteral("preview"), QStringLiteral("--dataset"),
                                           QStringLiteral("dim_v2"), QStringLiteral("--json")},
                                          db);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        for (const char *count : {"inserted", "updated", "deleted"})
            QCOMPARE(json(again)
                         .value(QStringLiteral("totals"))
                         .toObject()
                         .value(QLatin1String(count))
                         .toInteger(),
                     0);
    }

    // A kill at each failpoint, then resume: the same dimension; the column
    // comes with the first month's commit, never before.
    void killedThenResumed_data() {
        testsupport::addSchemaChangeFailpointRows("column added, month 1 uncommitted");
    }
    void killedThenResumed() {
        QFETCH(QString, failpoint);
        QFETCH(int, committed);
        const QString db = m_ws.freshCopy();
        const auto resumed = testsupport::killThenResume(
            {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("dim_v2"),
             QStringLiteral("--execute"), QStringLiteral("--json")},
            m_ws.args(db), failpoint, committed, [&]() -> QString {
                if (committed == 0 && (hasTier(db) || oldHistory(db) != m_before))
                    return QStringLiteral("the dimension changed before the first commit");
                if (committed > 0 && !hasTier(db))
                    return QStringLiteral("no column after %1 months").arg(committed);
                return QString();
            });
        QVERIFY2(resumed.problem.isEmpty(), qPrintable(resumed.problem));
        QCOMPARE(history(db, QStringLiteral("dim")), m_scratch);
        QCOMPARE(testsupport::scalarAt(db, QStringLiteral("SELECT COUNT(*) FROM rewind_audit "
                                                          "WHERE action = 'schema change'")),
                 1);
        QCOMPARE(testsupport::integrityCheck(db), QStringLiteral("ok"));
    }

    // sync_all_columns: the dimension loses the region and gains the tier
    // in one run over every month (a narrower scope is refused), equal to
    // a build from scratch; the rollback brings the region back, values
    // and versions, and drops the tier.
    void syncDropsAnAttributeOverEveryMonth() {
        const QString db = m_ws.freshCopy();
        const Proc narrow = m_ws.rewindctl(
            {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("dim_tier"),
             QStringLiteral("--partition"), QStringLiteral("2025-03-01")},
            db);
        QCOMPARE(narrow.exitCode, 2);
        QVERIFY2(narrow.err.contains("drops column \"region\" from \"dim\""),
                 narrow.err.constData());
        const Proc scratch = runAll(db, QStringLiteral("dim_tier_scratch"));
        QVERIFY2(scratch.exitCode == 0, scratch.err.constData());
        const auto tiers = [&](const char *table) {
            return testsupport::digest(
                db, QStringLiteral("SELECT customer_id, month, customer_tier, updated_at, "
                                   "valid_from, valid_to, is_current FROM ") +
                        QLatin1String(table));
        };
        const Proc r = runAll(db, QStringLiteral("dim_tier"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(tiers("dim"), tiers("dim_tier_scratch"));
        QVERIFY(hasTier(db));
        QCOMPARE(testsupport::scalarAt(db, QStringLiteral("SELECT COUNT(region) FROM dim")), -1);
        const QString runId = QString::number(testsupport::jsonAt(json(r), "run_id").toInteger());
        const Proc undo =
            m_ws.rewindctl({QStringLiteral("rollback"), QStringLiteral("--run"), runId,
                            QStringLiteral("--execute"), QStringLiteral("--json")},
                           db);
        QVERIFY2(undo.exitCode == 0, undo.err.constData());
        QVERIFY(!hasTier(db));
        QCOMPARE(oldHistory(db), m_before);
    }

    // Rolling the run back puts every version back and drops the column.
    void rollbackRestoresTheOldHistory() {
        const QString db = m_ws.freshCopy();
        const Proc r = runAll(db, QStringLiteral("dim_v2"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString runId = QString::number(testsupport::jsonAt(json(r), "run_id").toInteger());
        const Proc undo =
            m_ws.rewindctl({QStringLiteral("rollback"), QStringLiteral("--run"), runId,
                            QStringLiteral("--execute"), QStringLiteral("--json")},
                           db);
        QVERIFY2(undo.exitCode == 0, undo.err.constData());
        QVERIFY(!hasTier(db));
        QCOMPARE(oldHistory(db), m_before);
    }
};

QTEST_GUILESS_MAIN(TestScd2Schema)
#include "tst_scd2schema.moc"
