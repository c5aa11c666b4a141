// on_schema_change sync_all_columns: a transform that no longer yields a
// column of the target drops it, only in a run over every partition, with
// the whole table kept in the run's before-images first; a column it yields
// wider (PostgreSQL: integer to bigint) is widened; a narrower or an
// incompatible type is refused, naming the column and both types. The run
// equals the table built by hand SQL; its rollback puts the column back
// with its values and the type as it was; a kill at each failpoint, then
// resume, equals an uninterrupted run. On SQLite and PostgreSQL.
#include "core/sql/database.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTest>
#include <algorithm>

using namespace rw;

namespace {

using Proc = testsupport::ChildResult;

// The transform after the change: no note, qty as bigint (values past an integer's).
const char *const kSynced =
    "SELECT order_id, dt, CAST(qty AS BIGINT) * 3000000000 AS qty, updated_at FROM raw";

// The latest version of each order, as the synced transform yields it:
// the table a run over every partition must leave, built by hand.
const char *const kByHand =
    "SELECT order_id, dt, CAST(qty AS BIGINT) * 3000000000, updated_at FROM raw AS r "
    "WHERE NOT EXISTS (SELECT 1 FROM raw AS n WHERE n.order_id = r.order_id AND "
    "n.updated_at > r.updated_at)";

qint64 scalar(const QString &db, const QString &sql) {
    return testsupport::scalarAt(db, sql);
}

QJsonObject json(const Proc &p) {
    return QJsonDocument::fromJson(p.out).object();
}

// fact's column `name`'s type as the catalog lists it; empty when fact has none.
QString columnType(const QString &db, const QString &name) {
    auto handle = Database::open(db);
    if (!handle)
        return QStringLiteral("(no database)");
    auto columns = handle->columns(QStringLiteral("fact"));
    if (!columns)
        return QStringLiteral("(no table)");
    const auto c = std::find_if(columns->begin(), columns->end(),
                                [&](const ColumnInfo &i) { return i.name == name; });
    return c == columns->end() ? QString() : c->type.isEmpty() ? QStringLiteral("(none)") : c->type;
}

} // namespace

class TestSchemaSync : public QObject {
    Q_OBJECT

private:
    testsupport::CopiedWorkspace m_ws;
    QString m_before;   // fact as the workspace holds it, every column
    QString m_expected; // fact after an uninterrupted run of "sync"

    static QString whole(const QString &db) {
        return testsupport::digest(
            db, QStringLiteral("SELECT order_id, dt, qty, note, updated_at FROM fact"));
    }
    static QString synced(const QString &db) {
        return testsupport::digest(
            db, QStringLiteral("SELECT order_id, dt, qty, updated_at FROM fact"));
    }
    Proc preview(const QString &db, const QString &dataset, const QStringList &more = {}) const {
        return m_ws.rewindctl(QStringList{QStringLiteral("preview"), QStringLiteral("--dataset"),
                                          dataset, QStringLiteral("--json")} +
                                  more,
                              db);
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // 6 daily partitions of 200 orders, 10% re-sent with a later
        // version; the target holds each order's first version, with a note.
        m_ws.initial =
            testsupport::makeDatabase(
                m_ws.dir, QStringLiteral("initial.db"),
                {
                    QStringLiteral("CREATE TABLE raw (order_id INTEGER, dt TEXT, qty INTEGER, "
                                   "note TEXT, updated_at TEXT)"),
                    QStringLiteral(
                        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM "
                        "n WHERE i < 1199) INSERT INTO raw SELECT i, '2025-05-0' || (1 "
                        "+ i / 200), i % 7, 'note ' || i, '2025-05-10T00:00:00Z' FROM n"),
                    QStringLiteral("INSERT INTO raw SELECT order_id, dt, qty + 1, note, "
                                   "'2025-05-11T00:00:00Z' FROM raw WHERE order_id % 10 = 0"),
                    // loaded_at: the database fills it, no transform yields it
                    // and no option drops it.
                    QStringLiteral("CREATE TABLE fact (order_id INTEGER, dt TEXT, qty INTEGER, "
                                   "note TEXT, updated_at TEXT, loaded_at TEXT DEFAULT 'initial')"),
                    QStringLiteral("INSERT INTO fact (order_id, dt, qty, note, updated_at) SELECT "
                                   "order_id, dt, qty, note, updated_at "
                                   "FROM raw WHERE updated_at = '2025-05-10T00:00:00Z'"),
                    QStringLiteral("CREATE INDEX fact_dt ON fact (dt, order_id)"),
                })
                .url()
                .text;
        const auto dataset = [](const char *name, const QString &transform, const char *policy) {
            return QStringLiteral(R"("%1": {"transform": "%2", "target": "fact",
    "partition_column": "dt", "key": ["order_id"], "order_by": "updated_at", "write": "merge",
    "on_schema_change": "%3", "checks": [{"type": "row_count", "min": 1}]})")
                .arg(QLatin1String(name), transform, QLatin1String(policy));
        };
        const QString syncing = QString::fromLatin1(kSynced);
        const QString keepsNote =
            QStringLiteral("SELECT order_id, dt, %1 AS qty, note, updated_at FROM raw");
        m_ws.spec = testsupport::writeFile(
            m_ws.dir, QStringLiteral("schema.json"),
            (QStringLiteral(R"({"datasets": {)") +
             QStringList{
                 dataset("sync", syncing, "sync_all_columns"),
                 dataset("append", syncing, "append_new_columns"),
                 dataset("failing", syncing, "fail"),
                 dataset("widen_append", keepsNote.arg(QStringLiteral("CAST(qty AS BIGINT)")),
                         "append_new_columns"),
                 dataset("narrow", keepsNote.arg(QStringLiteral("CAST(qty AS SMALLINT)")),
                         "sync_all_columns"),
                 dataset("incompatible", keepsNote.arg(QStringLiteral("CAST(qty AS REAL)")),
                         "sync_all_columns"),
             }
                 .join(QStringLiteral(",\n")) +
             QStringLiteral("}}"))
                .toUtf8());
        // The control schema in the template, as on a workspace in use.
        QVERIFY(m_ws.rewindctl({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                QStringLiteral("sync")},
                               m_ws.initial)
                    .exitCode == 0);
        m_before = whole(m_ws.initial);
        const QString baseline = m_ws.freshCopy();
        const Proc r = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                       QStringLiteral("sync"), QStringLiteral("--execute")},
                                      baseline);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        m_expected = synced(baseline);
        QCOMPARE(m_expected, testsupport::digest(baseline, QString::fromLatin1(kByHand)));
    }

    // The preview names the column it drops (with its type) and, on
    // PostgreSQL, the one it widens; it changes nothing.
    void previewShowsTheDropAndTheWidening() {
        const QString db = m_ws.freshCopy();
        const Proc r = preview(db, QStringLiteral("sync"));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject change = json(r).value(QStringLiteral("schema_change")).toObject();
        QCOMPARE(change.value(QStringLiteral("policy")).toString(),
                 QStringLiteral("sync_all_columns"));
        QCOMPARE(change.value(QStringLiteral("add")).toArray().size(), 0);
        const QJsonArray drop = change.value(QStringLiteral("drop")).toArray();
        QCOMPARE(drop.size(), 1);
        QCOMPARE(drop.at(0).toObject().value(QStringLiteral("column")).toString(),
                 QStringLiteral("note"));
        const QJsonArray widen = change.value(QStringLiteral("widen")).toArray();
        if (testsupport::onPostgres()) {
            QCOMPARE(widen.size(), 1);
            const QJsonObject w = widen.at(0).toObject();
            QCOMPARE(w.value(QStringLiteral("column")).toString(), QStringLiteral("qty"));
            QCOMPARE(w.value(QStringLiteral("from")).toString(), QStringLiteral("integer"));
            QCOMPARE(w.value(QStringLiteral("to")).toString(), QStringLiteral("bigint"));
        } else {
            QCOMPARE(widen.size(), 0); // an INTEGER column holds any integer
        }
        QCOMPARE(whole(db), m_before);
        QVERIFY(!columnType(db, QStringLiteral("note")).isEmpty());
    }

    // A drop changes every row: a scope of some partitions is refused,
    // naming the column, and nothing is planned.
    void aDropNeedsEveryPartition() {
        const QString db = m_ws.freshCopy();
        const qint64 plans = scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_plans"));
        const Proc r = preview(db, QStringLiteral("sync"),
                               {QStringLiteral("--from"), QStringLiteral("2025-05-01"),
                                QStringLiteral("--to"), QStringLiteral("2025-05-03")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("drops column \"note\" from \"fact\""), r.err.constData());
        QVERIFY2(r.err.contains("must cover every partition (3 of 6 chosen)"), r.err.constData());
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_plans")), plans);
        QCOMPARE(whole(db), m_before);
    }

    // fail and append_new_columns keep every column: a transform that drops
    // one is refused, naming it and the option that would drop it.
    void failAndAppendRefuseADroppedColumn_data() {
        QTest::addColumn<QString>("dataset");
        QTest::newRow("append_new_columns") << QStringLiteral("append");
        QTest::newRow("fail") << QStringLiteral("failing");
    }
    void failAndAppendRefuseADroppedColumn() {
        QFETCH(QString, dataset);
        const QString db = m_ws.freshCopy();
        const Proc r = preview(db, dataset);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("has column \"note\", which the source no longer yields"),
                 r.err.constData());
        QVERIFY2(r.err.contains("\"sync_all_columns\" would drop it"), r.err.constData());
        QCOMPARE(whole(db), m_before);
    }

    // A column an index holds is not dropped (PostgreSQL would drop the
    // index with it, and a rollback could not make it again): refused,
    // naming the index.
    void aDropOfAnIndexedColumnIsRefused() {
        const QString db = m_ws.freshCopy();
        {
            auto handle = Database::open(db);
            QVERIFY(handle);
            QVERIFY(handle->exec(QStringLiteral("CREATE INDEX fact_note ON fact (note)")));
        }
        const Proc r = preview(db, QStringLiteral("sync"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("drop column \"note\" from \"fact\", which index \"fact_note\" "
                                "holds"),
                 r.err.constData());
        QCOMPARE(whole(db), m_before);
    }

    // PostgreSQL: append_new_columns does not widen; a narrower or an
    // incompatible type is refused whatever the option, naming both types.
    void typeChangesRewindDoesNotMake_data() {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<QString>("says");
        QTest::newRow("widened, append_new_columns")
            << QStringLiteral("widen_append")
            << QStringLiteral("widens column qty from integer to bigint in fact; "
                              "\"append_new_columns\" only adds columns");
        QTest::newRow("narrowed")
            << QStringLiteral("narrow")
            << QStringLiteral("column \"qty\" of table \"fact\" is integer and the transform "
                              "yields smallint, which is narrower");
        QTest::newRow("incompatible")
            << QStringLiteral("incompatible")
            << QStringLiteral("column \"qty\" of table \"fact\" is integer and the transform "
                              "yields real, and neither holds every value of the other");
    }
    void typeChangesRewindDoesNotMake() {
        QFETCH(QString, dataset);
        QFETCH(QString, says);
        if (!testsupport::onPostgres())
            QSKIP("SQLite's columns take any value of their affinity: no type to widen");
        const QString db = m_ws.freshCopy();
        const Proc p = preview(db, dataset);
        QCOMPARE(p.exitCode, 2);
        QVERIFY2(p.err.contains(says.toUtf8()), p.err.constData());
        const Proc r = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"), dataset,
                                       QStringLiteral("--execute")},
                                      db);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(whole(db), m_before);
        QCOMPARE(columnType(db, QStringLiteral("qty")), QStringLiteral("integer"));
    }

    // The run equals the table built by hand, without the column, wider
    // where the transform is; rolling it back puts the column back with
    // every value and the type as it was, in one go.
    void runThenRollbackRestoresTheColumnWithItsValues() {
        const QString db = m_ws.freshCopy();
        const Proc r = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                       QStringLiteral("sync"), QStringLiteral("--execute"),
                                       QStringLiteral("--json")},
                                      db);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(synced(db), testsupport::digest(db, QString::fromLatin1(kByHand)));
        QCOMPARE(columnType(db, QStringLiteral("note")), QString());
        QVERIFY(!columnType(db, QStringLiteral("loaded_at")).isEmpty());
        if (testsupport::onPostgres())
            QCOMPARE(columnType(db, QStringLiteral("qty")), QStringLiteral("bigint"));
        // Every row of the table before the run, kept before the drop.
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_images_sync WHERE "
                                           "rewind_op = 'dropped' AND note IS NOT NULL")),
                 1200);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_audit WHERE action = 'schema change'")),
            1);
        const QString runId = QString::number(testsupport::jsonAt(json(r), "run_id").toInteger());
        const Proc dry = m_ws.rewindctl(
            {QStringLiteral("rollback"), QStringLiteral("--run"), runId, QStringLiteral("--json")},
            db);
        QVERIFY2(dry.exitCode == 0, dry.err.constData());
        QCOMPARE(testsupport::jsonAt(json(dry), "schema_change/drop").toArray().size(), 1);
        QCOMPARE(columnType(db, QStringLiteral("note")), QString());
        const Proc undo =
            m_ws.rewindctl({QStringLiteral("rollback"), QStringLiteral("--run"), runId,
                            QStringLiteral("--execute"), QStringLiteral("--json")},
                           db);
        QVERIFY2(undo.exitCode == 0, undo.err.constData());
        QCOMPARE(whole(db), m_before);
        if (testsupport::onPostgres())
            QCOMPARE(columnType(db, QStringLiteral("qty")), QStringLiteral("integer"));
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_schema_changes")), 0);
        QCOMPARE(testsupport::integrityCheck(db), QStringLiteral("ok"));
        // And the change can be made again, as the first time.
        const Proc again = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                           QStringLiteral("sync"), QStringLiteral("--execute")},
                                          db);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(synced(db), m_expected);
    }

    // A kill at each failpoint, then resume: equal to an uninterrupted run;
    // the column is there until the first chunk commits, gone after.
    void killedThenResumed_data() {
        testsupport::addSchemaChangeFailpointRows("column dropped, chunk 1 uncommitted");
    }
    void killedThenResumed() {
        QFETCH(QString, failpoint);
        QFETCH(int, committed);
        qputenv("REWIND_CHUNK_ROWS", "1"); // one partition a chunk: failpoints count partitions
        const auto unset = qScopeGuard([] { qunsetenv("REWIND_CHUNK_ROWS"); });
        const QString db = m_ws.freshCopy();
        const auto resumed = testsupport::killThenResume(
            {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("sync"),
             QStringLiteral("--execute"), QStringLiteral("--json")},
            m_ws.args(db), failpoint, committed, [&]() -> QString {
                const bool hasNote = !columnType(db, QStringLiteral("note")).isEmpty();
                if (committed == 0 && !hasNote)
                    return QStringLiteral("the column is gone before the first commit");
                if (committed == 0 && whole(db) != m_before)
                    return QStringLiteral("the table changed before the first commit");
                if (committed > 0 && hasNote)
                    return QStringLiteral("the column is still there after %1 partitions")
                        .arg(committed);
                return QString();
            });
        QVERIFY2(resumed.problem.isEmpty(), qPrintable(resumed.problem));
        QCOMPARE(synced(db), m_expected);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_audit WHERE action = 'schema change'")),
            1);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_images_sync WHERE "
                                           "rewind_op = 'dropped'")),
                 1200);
        const QString ledger =
            testsupport::ledgerProblems(db, QStringLiteral("sync"), resumed.runId, 6);
        QVERIFY2(ledger.isEmpty(), qPrintable(ledger));
        QCOMPARE(testsupport::integrityCheck(db), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TestSchemaSync)
#include "tst_schemasync.moc"
