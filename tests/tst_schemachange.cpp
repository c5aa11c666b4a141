// Backfills after a schema change (on_schema_change): a transform that
// yields a column the target lacks is refused by default, naming the column
// and the option; with append_new_columns the preview shows the column and
// counts the rows it fills as updated, and the run adds it in its first
// publish's transaction, so a run killed before that commit leaves the old
// schema and its resume adds the column once. A plan made before someone
// altered the table by hand is stale. On SQLite and PostgreSQL.
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

// What every dataset of the spec reads: orders joined to their customer's
// region, a column the target does not have yet.
const char *const kTransform =
    "SELECT r.order_id, r.dt, r.amount, r.updated_at, c.region FROM raw AS r "
    "LEFT JOIN cust AS c ON c.cust_id = r.cust_id";

QString digest(const QString &db) {
    return testsupport::digest(
        db, QStringLiteral("SELECT order_id, dt, amount, updated_at, region FROM fact"));
}

qint64 scalar(const QString &db, const QString &sql) {
    return testsupport::scalarAt(db, sql);
}

QJsonObject json(const Proc &p) {
    return QJsonDocument::fromJson(p.out).object();
}

} // namespace

class TestSchemaChange : public QObject {
    Q_OBJECT

private:
    testsupport::CopiedWorkspace m_ws;
    QString m_expected; // the target after an uninterrupted run of every partition

    // The column's values in fact (-1 on an error: see hasRegion()).
    static qint64 regions(const QString &db, const QString &where = QStringLiteral("1 = 1")) {
        return scalar(db, QStringLiteral("SELECT COUNT(region) FROM fact WHERE ") + where);
    }
    // Whether fact has the column, as the catalog lists it.
    static bool hasRegion(const QString &db) {
        return testsupport::hasColumn(db, QStringLiteral("fact"), QStringLiteral("region"));
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        // 6 daily partitions of 500 orders, 10% re-sent with a later version;
        // the target holds each order's first version and no region.
        // Closed before it is copied: the last connection checkpoints the
        // WAL, so a file copy is the whole database.
        m_ws.initial =
            testsupport::makeDatabase(
                m_ws.dir, QStringLiteral("initial.db"),
                {
                    QStringLiteral("CREATE TABLE cust (cust_id INTEGER, region TEXT)"),
                    QStringLiteral(
                        "INSERT INTO cust VALUES (0, 'EMEA'), (1, 'APAC'), (2, 'LATAM')"),
                    QStringLiteral("CREATE TABLE raw (order_id INTEGER, dt TEXT, cust_id INTEGER, "
                                   "amount DOUBLE PRECISION, updated_at TEXT)"),
                    QStringLiteral(
                        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
                        "WHERE i < 2999) INSERT INTO raw SELECT i, '2025-05-0' || (1 + i / "
                        "500), i % 3, (i * 7919) % 1000 / 10.0, '2025-05-10T00:00:00Z' "
                        "FROM n"),
                    QStringLiteral("INSERT INTO raw SELECT order_id, dt, cust_id, amount + 1, "
                                   "'2025-05-11T00:00:00Z' FROM raw WHERE order_id % 10 = 0"),
                    QStringLiteral("CREATE TABLE fact (order_id INTEGER, dt TEXT, amount DOUBLE "
                                   "PRECISION, updated_at TEXT)"),
                    QStringLiteral(
                        "INSERT INTO fact SELECT order_id, dt, amount, updated_at FROM raw "
                        "WHERE updated_at = '2025-05-10T00:00:00Z'"),
                    QStringLiteral("CREATE INDEX fact_dt ON fact (dt, order_id)"),
                })
                .url()
                .text;
        const QString transform = QString::fromLatin1(kTransform);
        m_ws.spec = testsupport::writeFile(m_ws.dir, QStringLiteral("schema.json"),
                                           QStringLiteral(R"({"datasets": {
  "fact": {"transform": "%1", "target": "fact", "partition_column": "dt", "key": ["order_id"],
    "order_by": "updated_at", "write": "merge", "on_schema_change": "append_new_columns",
    "checks": [{"type": "row_count", "min": 1}]},
  "fact_ow": {"transform": "%1", "target": "fact", "partition_column": "dt", "key": ["order_id"],
    "order_by": "updated_at", "write": "overwrite_partition", "on_schema_change": "append_new_columns"},
  "fact_fail": {"transform": "%1", "target": "fact", "partition_column": "dt", "key": ["order_id"],
    "order_by": "updated_at", "write": "merge"},
  "fact_newkey": {"transform": "%1", "target": "fact", "partition_column": "dt",
    "key": ["order_id", "region"], "order_by": "updated_at", "write": "merge",
    "on_schema_change": "append_new_columns"}}})")
                                               .arg(transform)
                                               .toUtf8());
        // The control schema in the template, as on a workspace in use.
        QVERIFY(m_ws.rewindctl({QStringLiteral("datasets")}, m_ws.initial).exitCode == 0);
        const QString baseline = m_ws.freshCopy();
        const Proc r = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact"), QStringLiteral("--execute")},
                                      baseline);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        m_expected = digest(baseline);
        QCOMPARE(regions(baseline), 3000);
        QCOMPARE(scalar(baseline, QStringLiteral("SELECT COUNT(*) FROM fact")), 3000);
    }

    // The default refuses the dataset, naming the column and the option
    // that allows it, and writes nothing.
    void failRefusesNamingTheColumnAndTheOption() {
        const QString db = m_ws.freshCopy();
        const qint64 plans = scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_plans"));
        const Proc r = m_ws.rewindctl(
            {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("fact_fail")},
            db);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("has no column \"region\", which the source yields"),
                 r.err.constData());
        QVERIFY2(r.err.contains("\"on_schema_change\": \"append_new_columns\""), r.err.constData());
        QVERIFY(!hasRegion(db));
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_plans")), plans);
    }

    // A new key column would change which rows are the same row: refused
    // whatever the option says.
    void aNewKeyColumnIsRefused() {
        const QString db = m_ws.freshCopy();
        const Proc r = m_ws.rewindctl(
            {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("fact_newkey")},
            db);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("\"region\", which is part of the key"), r.err.constData());
        QVERIFY(!hasRegion(db));
    }

    // The preview names the column and its type, counts each row it fills
    // as updated, shows the new values in its samples, and alters nothing.
    void previewShowsTheChangeAndAltersNothing() {
        const QString db = m_ws.freshCopy();
        const Proc r = m_ws.rewindctl({QStringLiteral("preview"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact"), QStringLiteral("--partition"),
                                       QStringLiteral("2025-05-02"), QStringLiteral("--samples"),
                                       QStringLiteral("3"), QStringLiteral("--json")},
                                      db);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject preview = json(r);
        QCOMPARE(testsupport::jsonAt(preview, "schema_change/policy").toString(),
                 QStringLiteral("append_new_columns"));
        const QJsonArray added = testsupport::jsonAt(preview, "schema_change/add").toArray();
        QCOMPARE(added.size(), 1);
        QCOMPARE(testsupport::jsonAt(added.at(0).toObject(), "column").toString(),
                 QStringLiteral("region"));
        QVERIFY(!testsupport::jsonAt(added.at(0).toObject(), "type").toString().isEmpty());
        // Every order of the day gains its region; 50 also have a later version.
        QCOMPARE(testsupport::jsonAt(preview, "totals/updated").toInteger(), 500);
        QCOMPARE(testsupport::jsonAt(preview, "totals/unchanged").toInteger(), 0);
        const QJsonObject sample =
            testsupport::jsonAt(preview, "partitions/0/samples/updated/0").toObject();
        QVERIFY(testsupport::jsonAt(sample, "before/region").isNull());
        const QString region = testsupport::jsonAt(sample, "after/region").toString();
        QVERIFY2(
            QStringList({QStringLiteral("EMEA"), QStringLiteral("APAC"), QStringLiteral("LATAM")})
                .contains(region),
            qPrintable(region));
        QVERIFY(!hasRegion(db)); // not added by the preview
    }

    // The run adds the column in its first publish (one audit row says so)
    // and fills it in its scope; a later run changes the schema no more.
    void runAddsTheColumnOnceWithItsFirstPublish() {
        const QString db = m_ws.freshCopy();
        const Proc r = m_ws.rewindctl(
            {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
             QStringLiteral("--from"), QStringLiteral("2025-05-02"), QStringLiteral("--to"),
             QStringLiteral("2025-05-03"), QStringLiteral("--execute"), QStringLiteral("--json")},
            db);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(testsupport::jsonAt(json(r), "schema_change/add").toArray().size(), 1);
        QCOMPARE(regions(db, QStringLiteral("dt IN ('2025-05-02', '2025-05-03')")), 1000);
        QCOMPARE(regions(db, QStringLiteral("dt NOT IN ('2025-05-02', '2025-05-03')")), 0);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_audit WHERE action = 'schema change'")),
            1);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM fact")), 3000);

        const Proc again = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                           QStringLiteral("fact"), QStringLiteral("--partition"),
                                           QStringLiteral("2025-05-04"),
                                           QStringLiteral("--execute"), QStringLiteral("--json")},
                                          db);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QVERIFY(testsupport::jsonAt(json(again), "schema_change/add").isArray());
        QCOMPARE(testsupport::jsonAt(json(again), "schema_change/add").toArray().size(), 0);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_audit WHERE action = 'schema change'")),
            1);
        QCOMPARE(regions(db), 1500);
    }

    // The partitions the run did not cover hold NULL in the new column:
    // `partitions` names the column for each, and `run --schema-behind`
    // backfills exactly those.
    void partitionsOutsideTheScopeAreBehindTheSchema() {
        const QString db = m_ws.freshCopy();
        const Proc r = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact"), QStringLiteral("--from"),
                                       QStringLiteral("2025-05-02"), QStringLiteral("--to"),
                                       QStringLiteral("2025-05-03"), QStringLiteral("--execute")},
                                      db);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const auto behind = [&]() {
            const Proc parts =
                m_ws.rewindctl({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                QStringLiteral("fact"), QStringLiteral("--json")},
                               db);
            QStringList out;
            for (const auto &p : json(parts).value(QStringLiteral("partitions")).toArray()) {
                const QJsonArray columns =
                    p.toObject().value(QStringLiteral("schema_behind")).toArray();
                if (!columns.isEmpty())
                    out << p.toObject().value(QStringLiteral("partition")).toString() + u':' +
                               columns.at(0).toString();
            }
            return out;
        };
        QCOMPARE(behind(),
                 QStringList(
                     {QStringLiteral("2025-05-01:region"), QStringLiteral("2025-05-04:region"),
                      QStringLiteral("2025-05-05:region"), QStringLiteral("2025-05-06:region")}));

        const Proc both = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                          QStringLiteral("fact"), QStringLiteral("--schema-behind"),
                                          QStringLiteral("--stale")},
                                         db);
        QCOMPARE(both.exitCode, 2);
        QVERIFY2(both.err.contains("--schema-behind chooses its own partitions"),
                 both.err.constData());

        const Proc backfill =
            m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                            QStringLiteral("fact"), QStringLiteral("--schema-behind"),
                            QStringLiteral("--execute"), QStringLiteral("--json")},
                           db);
        QVERIFY2(backfill.exitCode == 0, backfill.err.constData());
        QCOMPARE(json(backfill).value(QStringLiteral("partitions")).toArray().size(), 4);
        QCOMPARE(behind(), QStringList());
        QCOMPARE(digest(db), m_expected);
    }

    // The rollback of the run that added the column waits for the later
    // runs (they may have filled it anywhere); a later run's rollback leaves
    // the schema alone.
    void aSchemaChangeRollsBackAfterTheRunsThatFollowedIt() {
        const QString db = m_ws.freshCopy();
        const auto run = [&](const QString &partition) {
            return m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                   QStringLiteral("fact"), QStringLiteral("--partition"), partition,
                                   QStringLiteral("--execute"), QStringLiteral("--json")},
                                  db);
        };
        const auto rollback = [&](const Proc &r) {
            return m_ws.rewindctl(
                {QStringLiteral("rollback"), QStringLiteral("--run"),
                 QString::number(json(r).value(QStringLiteral("run_id")).toInteger()),
                 QStringLiteral("--execute"), QStringLiteral("--json")},
                db);
        };
        const QString oldColumns =
            QStringLiteral("SELECT order_id, dt, amount, updated_at FROM fact");
        const QString initial = testsupport::digest(db, oldColumns);
        const Proc adding = run(QStringLiteral("2025-05-02"));
        QVERIFY2(adding.exitCode == 0, adding.err.constData());
        const Proc later = run(QStringLiteral("2025-05-04"));
        QVERIFY2(later.exitCode == 0, later.err.constData());
        QCOMPARE(regions(db), 1000);

        const Proc refused = rollback(adding);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("adds column region") &&
                     refused.err.contains("roll it back first"),
                 refused.err.constData());
        QCOMPARE(regions(db), 1000);

        const Proc undoLater = rollback(later);
        QVERIFY2(undoLater.exitCode == 0, undoLater.err.constData());
        QVERIFY(testsupport::jsonAt(json(undoLater), "schema_change/add").isArray());
        QCOMPARE(testsupport::jsonAt(json(undoLater), "schema_change/add").toArray().size(), 0);
        QCOMPARE(regions(db), 500);

        const Proc undoAdding = rollback(adding);
        QVERIFY2(undoAdding.exitCode == 0, undoAdding.err.constData());
        QCOMPARE(testsupport::jsonAt(json(undoAdding), "schema_change/add").toArray().size(), 1);
        QVERIFY(!hasRegion(db));
        QCOMPARE(testsupport::digest(db, oldColumns), initial);
        // Run again, the change is planned and made again.
        const Proc again = run(QStringLiteral("2025-05-02"));
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(regions(db), 500);
    }

    // Two datasets publish to one table: the change one makes is the
    // table's. The other's before-images (kept before the change) take the
    // column at its next run, its partitions show behind the schema (a
    // preview of the one partition behind reads that partition alone), and
    // the change's rollback waits for its later runs too.
    void aTargetSharedByTwoDatasets() {
        const QString db = m_ws.freshCopy();
        const QString before = testsupport::writeFile(
            m_ws.dir, QStringLiteral("shared-before.json"),
            R"({"datasets": {"fact_ow": {"transform": "SELECT order_id, dt, amount, updated_at FROM raw",
              "target": "fact", "partition_column": "dt", "key": ["order_id"], "order_by": "updated_at",
              "write": "overwrite_partition"}}})");
        const auto run = [&](const QString &dataset, const QStringList &scope,
                             const QString &spec = QString()) {
            return testsupport::runRewindctl(
                QStringList{QStringLiteral("run"), QStringLiteral("--dataset"), dataset} + scope +
                QStringList{QStringLiteral("--execute"), QStringLiteral("--json"),
                            QStringLiteral("--db"), db, QStringLiteral("--spec"),
                            spec.isEmpty() ? m_ws.spec : spec});
        };
        const auto rollback = [&](const Proc &r) {
            return m_ws.rewindctl(
                {QStringLiteral("rollback"), QStringLiteral("--run"),
                 QString::number(json(r).value(QStringLiteral("run_id")).toInteger()),
                 QStringLiteral("--execute")},
                db);
        };
        const Proc early =
            run(QStringLiteral("fact_ow"),
                {QStringLiteral("--partition"), QStringLiteral("2025-05-01")}, before);
        QVERIFY2(early.exitCode == 0, early.err.constData());
        const Proc adding =
            run(QStringLiteral("fact"), {QStringLiteral("--from"), QStringLiteral("2025-05-01"),
                                         QStringLiteral("--to"), QStringLiteral("2025-05-05")});
        QVERIFY2(adding.exitCode == 0, adding.err.constData());
        QVERIFY(hasRegion(db));

        // One partition of six is behind: the preview stages it alone.
        const Proc preview = m_ws.rewindctl(
            {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("fact_ow"),
             QStringLiteral("--schema-behind"), QStringLiteral("--json")},
            db);
        QVERIFY2(preview.exitCode == 0, preview.err.constData());
        const QJsonArray previewed = json(preview).value(QStringLiteral("partitions")).toArray();
        QCOMPARE(previewed.size(), 1);
        for (const auto &p : previewed) {
            QCOMPARE(p.toObject().value(QStringLiteral("source_rows")).toInteger(), 550);
            QCOMPARE(p.toObject().value(QStringLiteral("staged_rows")).toInteger(), 500);
        }

        const Proc later = run(QStringLiteral("fact_ow"), {QStringLiteral("--schema-behind")});
        QVERIFY2(later.exitCode == 0, later.err.constData());
        QCOMPARE(regions(db), 3000);

        const Proc refused = rollback(adding);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("roll it back first"), refused.err.constData());
        QVERIFY(hasRegion(db));
        const Proc undoLater = rollback(later);
        QVERIFY2(undoLater.exitCode == 0, undoLater.err.constData());
        const Proc undoAdding = rollback(adding);
        QVERIFY2(undoAdding.exitCode == 0, undoAdding.err.constData());
        QVERIFY(!hasRegion(db));
        const Proc undoEarly = rollback(early);
        QVERIFY2(undoEarly.exitCode == 0, undoEarly.err.constData());
    }

    // A stream's sink takes new fields the same way: refused by default,
    // named by the dry run, added before the first batch with append_new_columns.
    void aStreamSinkTakesNewFields() {
        const QByteArray stream = R"({"log": "ev_log", "sink": "ev_sink",
            "fields": {"order_id": "$.order_id", "amount": "$.amount"})";
        testsupport::WorkspaceFixture f(
            {QStringLiteral("CREATE TABLE ev_log (partition_id INTEGER, log_offset INTEGER, "
                            "event_id TEXT, record_ts TEXT, payload TEXT)"),
             QStringLiteral("INSERT INTO ev_log VALUES (0, 0, 'a', '2025-05-01T00:00:00Z', "
                            "'{\"order_id\": 1, \"amount\": 2.5}'), (0, 1, 'b', "
                            "'2025-05-01T00:00:01Z', '{\"order_id\": 2, \"amount\": 4}')"),
             QStringLiteral("CREATE TABLE ev_sink (event_id TEXT PRIMARY KEY, order_id INTEGER)")},
            QByteArray(R"({"streams": {"ev": )") + stream +
                R"(, "on_schema_change": "append_new_columns"}}})");
        const QStringList replay{QStringLiteral("replay"), QStringLiteral("--stream"),
                                 QStringLiteral("ev"),     QStringLiteral("--group"),
                                 QStringLiteral("g"),      QStringLiteral("--json")};
        const auto sinkHasAmount = [&] {
            auto columns = f.db().columns(QStringLiteral("ev_sink"));
            return columns &&
                   std::any_of(columns->begin(), columns->end(), [](const ColumnInfo &c) {
                       return c.name == QLatin1String("amount");
                   });
        };

        const QString failSpec =
            testsupport::writeFile(f.dir, QStringLiteral("fail.json"),
                                   QByteArray(R"({"streams": {"ev": )") + stream + "}}}");
        const auto refused =
            testsupport::runCli(replay + QStringList{QStringLiteral("--db"), f.dbPath,
                                                     QStringLiteral("--spec"), failSpec});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("has no column for field \"amount\"")) &&
                     refused.err.contains(QStringLiteral("append_new_columns")),
                 qPrintable(refused.err));

        const auto dry = f.cli(replay);
        QVERIFY2(dry.exitCode == 0, qPrintable(dry.err));
        QCOMPARE(testsupport::jsonAt(QJsonDocument::fromJson(dry.out.toUtf8()).object(),
                                     "sink_columns_added")
                     .toArray()
                     .size(),
                 1);
        QVERIFY(!sinkHasAmount());

        const auto done = f.cli(replay + QStringList{QStringLiteral("--execute")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err));
        QVERIFY(sinkHasAmount());
        QCOMPARE(f.db().scalar(QStringLiteral("SELECT SUM(amount) FROM ev_sink"))->toDouble(), 6.5);
        QCOMPARE(f.db()
                     .scalar(QStringLiteral(
                         "SELECT COUNT(*) FROM rewind_audit WHERE action = 'sink schema change'"))
                     ->toLongLong(),
                 1);
    }

    // Overwriting partitions takes the column the same way.
    void overwriteTakesTheNewColumn() {
        const QString db = m_ws.freshCopy();
        const Proc r = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                       QStringLiteral("fact_ow"), QStringLiteral("--execute")},
                                      db);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(digest(db), m_expected);
    }

    // A plan made before someone added the column by hand is stale (exit 4),
    // and nothing of it is published.
    void aHandAlterAfterThePreviewMakesThePlanStale() {
        const QString db = m_ws.freshCopy();
        const Proc preview = m_ws.rewindctl({QStringLiteral("preview"), QStringLiteral("--dataset"),
                                             QStringLiteral("fact"), QStringLiteral("--json")},
                                            db);
        QVERIFY2(preview.exitCode == 0, preview.err.constData());
        const QString plan = json(preview).value(QStringLiteral("plan_id")).toString();
        {
            auto handle = Database::open(db);
            QVERIFY(handle);
            QVERIFY(handle->exec(QStringLiteral("ALTER TABLE fact ADD COLUMN region TEXT")));
        }
        const Proc run = m_ws.rewindctl({QStringLiteral("run"), QStringLiteral("--dataset"),
                                         QStringLiteral("fact"), QStringLiteral("--plan"), plan,
                                         QStringLiteral("--execute")},
                                        db);
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.err.contains("the target's schema changed since the preview"),
                 run.err.constData());
        QCOMPARE(regions(db), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_checkpoints")), 0);
    }

    // A dataset that ran before its transform gained the column: its
    // before-images table takes the column too; rolling back the run that
    // added it puts back the rows and the schema as they were, and the
    // earlier run still rolls back after that.
    void runsBeforeTheChangeAndRollbacksAfterIt() {
        const QString db = m_ws.freshCopy();
        const QString before = testsupport::writeFile(
            m_ws.dir, QStringLiteral("before.json"),
            R"({"datasets": {"fact": {"transform": "SELECT order_id, dt, amount, updated_at FROM raw", "target": "fact", "partition_column": "dt",
              "key": ["order_id"], "order_by": "updated_at", "write": "merge"}}})");
        const QString oldColumns =
            QStringLiteral("SELECT order_id, dt, amount, updated_at FROM fact");
        const QString initial = testsupport::digest(db, oldColumns);
        const Proc first = testsupport::runRewindctl(
            {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
             QStringLiteral("--partition"), QStringLiteral("2025-05-01"),
             QStringLiteral("--execute"), QStringLiteral("--json"), QStringLiteral("--db"), db,
             QStringLiteral("--spec"), before});
        QVERIFY2(first.exitCode == 0, first.err.constData());
        const QString afterFirst = testsupport::digest(db, oldColumns);
        QVERIFY(afterFirst != initial);

        const Proc second = m_ws.rewindctl(
            {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
             QStringLiteral("--from"), QStringLiteral("2025-05-01"), QStringLiteral("--to"),
             QStringLiteral("2025-05-02"), QStringLiteral("--execute"), QStringLiteral("--json")},
            db);
        QVERIFY2(second.exitCode == 0, second.err.constData());
        QCOMPARE(regions(db), 1000);
        const auto rollback = [&](const Proc &run) {
            return m_ws.rewindctl(
                {QStringLiteral("rollback"), QStringLiteral("--run"),
                 QString::number(json(run).value(QStringLiteral("run_id")).toInteger()),
                 QStringLiteral("--execute")},
                db);
        };
        // Rolling back the run that added the column drops it again (from the
        // before-images too) with the rows as they were.
        const Proc undoSecond = rollback(second);
        QVERIFY2(undoSecond.exitCode == 0, undoSecond.err.constData());
        QCOMPARE(testsupport::digest(db, oldColumns), afterFirst);
        QVERIFY(!hasRegion(db));
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_schema_changes")), 0);
        QCOMPARE(scalar(db, QStringLiteral("SELECT COUNT(*) FROM rewind_audit WHERE action = "
                                           "'schema change rolled back'")),
                 1);
        const Proc undoFirst = rollback(first);
        QVERIFY2(undoFirst.exitCode == 0, undoFirst.err.constData());
        QCOMPARE(testsupport::digest(db, oldColumns), initial);
    }

    // Killed anywhere, then resumed: the target equals an uninterrupted
    // run's. Before the first commit the schema is as it was; after it the
    // column is there, and the resume does not add it again.
    void killedThenResumed_data() {
        testsupport::addSchemaChangeFailpointRows("column added, chunk 1 uncommitted");
    }

    void killedThenResumed() {
        QFETCH(QString, failpoint);
        QFETCH(int, committed);
        qputenv("REWIND_CHUNK_ROWS", "1"); // one partition a chunk: failpoints count partitions
        const auto unset = qScopeGuard([] { qunsetenv("REWIND_CHUNK_ROWS"); });
        const QString db = m_ws.freshCopy();
        const auto resumed = testsupport::killThenResume(
            {QStringLiteral("run"), QStringLiteral("--dataset"), QStringLiteral("fact"),
             QStringLiteral("--execute"), QStringLiteral("--json")},
            m_ws.args(db), failpoint, committed, [&]() -> QString {
                const qint64 values = regions(db);
                if (committed == 0 && hasRegion(db))
                    return QStringLiteral("the column exists before the first commit");
                if (committed > 0 && values != qint64(committed) * 500)
                    return QStringLiteral("%1 regions after %2 partitions")
                        .arg(values)
                        .arg(committed);
                return QString();
            });
        QVERIFY2(resumed.problem.isEmpty(), qPrintable(resumed.problem));
        QCOMPARE(digest(db), m_expected);
        QCOMPARE(
            scalar(db, QStringLiteral(
                           "SELECT COUNT(*) FROM rewind_audit WHERE action = 'schema change'")),
            1);
        const QString ledger =
            testsupport::ledgerProblems(db, QStringLiteral("fact"), resumed.runId, 6);
        QVERIFY2(ledger.isEmpty(), qPrintable(ledger));
        QCOMPARE(testsupport::integrityCheck(db), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(TestSchemaChange)
#include "tst_schemachange.moc"
