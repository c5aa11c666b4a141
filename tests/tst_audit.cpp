// The audit log as core and rewindctl show it: rw::listAudit (order, filters,
// limit), `rewindctl audit --json`, and the run report.
#include "core/batch/batch.h"
#include "core/batch/runreport.h"
#include "core/batch/runs.h"
#include "core/sql/audit.h"
#include "core/workspace/workspace.h"
#include "tests/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using testsupport::runCli;

class TestAudit : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;
    QString m_spec;

    static QJsonObject json(const testsupport::CliResult &r) {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
        if (error.error != QJsonParseError::NoError)
            qWarning() << "not one JSON document:" << r.out << r.err;
        return doc.object();
    }

    QStringList cli(const QStringList &more) const {
        return QStringList{QStringLiteral("--db"), m_db, QStringLiteral("--spec"), m_spec} + more;
    }

private Q_SLOTS:
    void initTestCase() {
        REWIND_REQUIRE_ENGINE();
        m_db = testsupport::makeDatabase(
                   m_dir, QStringLiteral("audit.db"),
                   {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, item_id INTEGER, dt "
                                   "TEXT, amount REAL, updated_at TEXT)"),
                    QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                                   "WHERE i < 300) "
                                   "INSERT INTO raw_sales SELECT i, 1, '2025-05-0' || ((i % 3) + "
                                   "1), i * 1.0, '2025-05-20T00:00:00Z' FROM n")})
                   .url()
                   .text;
        m_spec = testsupport::writeFile(m_dir, QStringLiteral("audit.json"), R"({
          "datasets": {
            "fact_sales": {"source": "raw_sales", "target": "fact_sales", "partition_column": "dt",
                           "key": ["order_id", "item_id"], "order_by": "updated_at", "write": "merge",
                           "checks": [{"type": "row_count", "min": 1}]},
            "other": {"source": "raw_sales", "target": "other_sales", "partition_column": "dt",
                      "key": ["order_id", "item_id"], "write": "merge"}
          }
        })");
    }

    void emptyLog() {
        const auto r =
            runCli(QStringList{QStringLiteral("audit")} + cli({QStringLiteral("--json")}));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json(r).value(QStringLiteral("audit")).toArray().size(), 0);
    }

    // A preview and a run write audit rows; listAudit returns them newest first.
    void listsNewestFirstWithFilters() {
        auto ws = rw::openWorkspace(m_db, m_spec);
        QVERIFY2(ws.has_value(), qPrintable(ws ? QString() : ws.error().message));
        rw::BatchOptions options;
        options.scope.partitions = {QStringLiteral("2025-05-01")};
        auto preview =
            rw::preview(ws->db, *ws->spec.dataset(QStringLiteral("fact_sales")), options);
        QVERIFY(preview.has_value());
        options.scope = {};
        options.planId = preview->planId;
        options.execute = true;
        auto run = rw::run(ws->db, *ws->spec.dataset(QStringLiteral("fact_sales")), options);
        QVERIFY2(run.has_value(), qPrintable(run ? QString() : run.error().message));
        QCOMPARE(run->status, rw::RunStatus::Succeeded);
        rw::BatchOptions other;
        QVERIFY(rw::preview(ws->db, *ws->spec.dataset(QStringLiteral("other")), other).has_value());

        auto all = rw::listAudit(ws->db);
        QVERIFY(all.has_value());
        QStringList actions;
        for (const auto &row : *all)
            actions << row.action;
        QCOMPARE(actions, (QStringList{QStringLiteral("preview"), QStringLiteral("run succeeded"),
                                       QStringLiteral("publish"), QStringLiteral("run started"),
                                       QStringLiteral("preview")}));
        for (std::size_t i = 1; i < all->size(); ++i)
            QVERIFY((*all)[i - 1].id > (*all)[i].id);
        QCOMPARE(all->front().dataset, QStringLiteral("other"));
        QCOMPARE(all->at(1).runId.toLongLong(), run->runId.toLongLong());
        QVERIFY(all->back().runId.isNull());
        QVERIFY(!all->back().osUser.isEmpty());
        QVERIFY(all->back().detail.contains(preview->planId));

        auto onlyFact = rw::listAudit(ws->db, {QStringLiteral("fact_sales"), {}, {}, 0});
        QVERIFY(onlyFact.has_value());
        QCOMPARE(onlyFact->size(), std::size_t(4));
        auto previews = rw::listAudit(ws->db, {{}, QStringLiteral("preview"), {}, 0});
        QCOMPARE(previews->size(), std::size_t(2));
        auto ofRun = rw::listAudit(ws->db, {{}, {}, {}, run->runId.toLongLong()});
        QCOMPARE(ofRun->size(), std::size_t(3));
        auto limited = rw::listAudit(ws->db, {}, 2);
        QCOMPARE(limited->size(), std::size_t(2));
        QCOMPARE(limited->front().id, all->front().id);
    }

    void cliJsonShape() {
        const auto r =
            runCli(QStringList{QStringLiteral("audit")} +
                   cli({QStringLiteral("--limit"), QStringLiteral("3"), QStringLiteral("--json")}));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray list = json(r).value(QStringLiteral("audit")).toArray();
        QCOMPARE(list.size(), 3);
        const QJsonObject first = list.at(0).toObject();
        QCOMPARE(first.keys().size(), 8);
        for (const char *key :
             {"id", "at", "os_user", "action", "dataset", "stream", "run_id", "detail"})
            QVERIFY2(first.contains(QLatin1String(key)), key);
        QCOMPARE(first.value(QStringLiteral("action")).toString(), QStringLiteral("preview"));
        QVERIFY(first.value(QStringLiteral("stream")).isNull());
        QVERIFY(first.value(QStringLiteral("run_id")).isNull());
        QVERIFY(
            first.value(QStringLiteral("detail")).isObject()); // JSON, not a string holding JSON
        QVERIFY(
            first.value(QStringLiteral("detail")).toObject().contains(QStringLiteral("plan_id")));
        QVERIFY(list.at(0)[QStringLiteral("id")].toInteger() >
                list.at(1)[QStringLiteral("id")].toInteger());
        QCOMPARE(list.at(1)[QStringLiteral("action")].toString(), QStringLiteral("run succeeded"));
        QVERIFY(list.at(1)[QStringLiteral("run_id")].toInteger() > 0);

        const auto filtered = runCli(
            QStringList{QStringLiteral("audit")} +
            cli({QStringLiteral("--dataset"), QStringLiteral("fact_sales"),
                 QStringLiteral("--action"), QStringLiteral("publish"), QStringLiteral("--json")}));
        QCOMPARE(filtered.exitCode, 0);
        const QJsonArray publishes = json(filtered).value(QStringLiteral("audit")).toArray();
        QCOMPARE(publishes.size(), 1);
        QCOMPARE(publishes.at(0)[QStringLiteral("detail")][QStringLiteral("partition")].toString(),
                 QStringLiteral("2025-05-01"));

        const auto text = runCli(QStringList{QStringLiteral("audit")} + cli({}));
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains(QStringLiteral("run succeeded")));
    }

    void cliBadInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("limit zero") << QStringList{QStringLiteral("--limit"), QStringLiteral("0")}
                                    << QStringLiteral("--limit");
        QTest::newRow("limit text") << QStringList{QStringLiteral("--limit"), QStringLiteral("ten")}
                                    << QStringLiteral("--limit");
        QTest::newRow("unknown dataset")
            << QStringList{QStringLiteral("--dataset"), QStringLiteral("nope")}
            << QStringLiteral("nope");
    }

    void cliBadInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = runCli(QStringList{QStringLiteral("audit")} +
                              cli(args + QStringList{QStringLiteral("--json")}));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(json(r).contains(QStringLiteral("error")));
    }

    void runReport() {
        auto ws = rw::openWorkspace(m_db, m_spec);
        QVERIFY(ws.has_value());
        auto runs = rw::listRuns(ws->db);
        QVERIFY(runs.has_value() && !runs->empty());
        const qint64 id = runs->front().runId;
        auto info = rw::loadRun(ws->db, id);
        auto result = rw::runResult(ws->db, id);
        QVERIFY(info.has_value() && result.has_value());
        const QString md = rw::runReportMarkdown(*info, *result);
        QVERIFY(md.startsWith(QStringLiteral("# Rewind run %1: succeeded").arg(id)));
        QVERIFY(md.contains(QStringLiteral("| Run by | %1 |").arg(rw::osUser())));
        QVERIFY(
            md.contains(QStringLiteral("| 2025-05-01 | yes | 100 | 100 | 0 | 100 | 0 | 0 | 0 |")));
        QVERIFY(md.contains(QStringLiteral("row_count")));

        const auto r = runCli(QStringList{QStringLiteral("run-report"), QStringLiteral("--run"),
                                          QString::number(id)} +
                              cli({}));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, md);
        const auto j = runCli(QStringList{QStringLiteral("run-report"), QStringLiteral("--run"),
                                          QString::number(id)} +
                              cli({QStringLiteral("--json")}));
        QCOMPARE(j.exitCode, 0);
        QCOMPARE(json(j).value(QStringLiteral("os_user")).toString(), rw::osUser());
        QCOMPARE(json(j)
                     .value(QStringLiteral("totals"))
                     .toObject()
                     .value(QStringLiteral("inserted"))
                     .toInt(),
                 100);
        const auto unknown = runCli(QStringList{QStringLiteral("run-report"),
                                                QStringLiteral("--run"), QStringLiteral("999")} +
                                    cli({}));
        QCOMPARE(unknown.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestAudit)
#include "tst_audit.moc"
