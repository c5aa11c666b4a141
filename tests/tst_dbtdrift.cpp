// Drift between a spec imported from dbt and the project (issue 44): the
// spec names its manifest; `datasets` flags a model changed in a newer
// manifest; a plan made from the older model is stale once the spec is
// imported again; `init --update` refreshes the dbt datasets and keeps the
// ones written by hand; a model gone from the manifest leaves the spec.
#include "tests/dbtmanifests.h"
#include "tests/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace rw;

namespace {

QJsonObject json(const testsupport::CliResult &r) {
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

// datasets --json: each dataset's "dbt" object by name.
QHash<QString, QJsonValue> dbtOf(const testsupport::CliResult &r) {
    QHash<QString, QJsonValue> out;
    for (const auto &d : json(r)[QStringLiteral("datasets")].toArray())
        out.insert(d.toObject()[QStringLiteral("name")].toString(),
                   d.toObject()[QStringLiteral("dbt")]);
    return out;
}

QStringList names(const QJsonValue &v) {
    QStringList out;
    for (const auto &n : v.toArray())
        out << n.toString();
    return out;
}

} // namespace

class TestDbtDrift : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void changedModelFlaggedPlanStaleUpdateKeepsHandWritten() {
        QTemporaryDir dir;
        Database db = testsupport::makeDatabase(
            dir, QStringLiteral("w.db"),
            {QStringLiteral("CREATE TABLE raw_sales (order_id INTEGER, amount INTEGER)"),
             QStringLiteral("INSERT INTO raw_sales VALUES (1, 4), (2, 6), (3, 9)")});
        const QString url = db.url().text;
        const QString v1 = testsupport::writeFile(
            dir, QStringLiteral("v1.json"),
            dbtdata::driftManifest(QStringLiteral("s1"),
                                   QStringLiteral("select order_id, amount from raw_sales"),
                                   false));
        const QString spec = dir.filePath(QStringLiteral("rewind.json"));
        auto init = testsupport::runCli({QStringLiteral("init"), QStringLiteral("--dbt"), v1,
                                         QStringLiteral("--out"), spec, QStringLiteral("--db"), url,
                                         QStringLiteral("--json")});
        QVERIFY2(init.exitCode == 0, qPrintable(init.err));

        // A dataset written by hand beside the imported one.
        QFile f(spec);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
        f.close();
        QCOMPARE(root[QStringLiteral("dbt_manifest")].toString(), QStringLiteral("v1.json"));
        QJsonObject datasets = root[QStringLiteral("datasets")].toObject();
        datasets.insert(QStringLiteral("by_hand"),
                        QJsonObject{{QStringLiteral("source"), QStringLiteral("raw_sales")},
                                    {QStringLiteral("target"), QStringLiteral("copy_sales")},
                                    {QStringLiteral("key"), QJsonArray{QStringLiteral("order_id")}},
                                    {QStringLiteral("write"), QStringLiteral("merge")}});
        root.insert(QStringLiteral("datasets"), datasets);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QJsonDocument(root).toJson());
        f.close();
        const QStringList ws{QStringLiteral("--db"), url, QStringLiteral("--spec"), spec};

        // Against its own manifest the model is current; against a newer
        // one, changed (the spec's checksum and the manifest's both given).
        auto listed = testsupport::runCli(
            QStringList{QStringLiteral("datasets"), QStringLiteral("--json")} + ws);
        QCOMPARE(listed.exitCode, 0);
        QCOMPARE(dbtOf(listed)[QStringLiteral("fct_sales")]
                     .toObject()[QStringLiteral("model")]
                     .toString(),
                 QStringLiteral("current"));
        QVERIFY(dbtOf(listed)[QStringLiteral("by_hand")].isNull());
        const QString v2 = testsupport::writeFile(
            dir, QStringLiteral("v2.json"),
            dbtdata::driftManifest(
                QStringLiteral("s2"),
                QStringLiteral("select order_id, amount from raw_sales where amount > 5"), true));
        listed =
            testsupport::runCli(QStringList{QStringLiteral("datasets"), QStringLiteral("--dbt"), v2,
                                            QStringLiteral("--json")} +
                                ws);
        QCOMPARE(listed.exitCode, 0);
        const QJsonObject changed = dbtOf(listed)[QStringLiteral("fct_sales")].toObject();
        QCOMPARE(changed[QStringLiteral("model")].toString(), QStringLiteral("changed"));
        QCOMPARE(changed[QStringLiteral("checksum")].toString(), QStringLiteral("s1"));
        QCOMPARE(changed[QStringLiteral("manifest_checksum")].toString(), QStringLiteral("s2"));
        auto text = testsupport::runCli(
            QStringList{QStringLiteral("datasets"), QStringLiteral("--dbt"), v2} + ws);
        QVERIFY2(text.out.contains(QStringLiteral("CHANGED since import")), qPrintable(text.out));
        // partitions says so too.
        auto parts = testsupport::runCli(
            QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"),
                        QStringLiteral("fct_sales"), QStringLiteral("--dbt"), v2,
                        QStringLiteral("--json")} +
            ws);
        QCOMPARE(parts.exitCode, 0);
        QCOMPARE(json(parts)[QStringLiteral("dbt")].toObject()[QStringLiteral("model")].toString(),
                 QStringLiteral("changed"));
        parts = testsupport::runCli(
            QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"),
                        QStringLiteral("fct_sales"), QStringLiteral("--dbt"), v2} +
            ws);
        QVERIFY2(
            parts.out.contains(QStringLiteral("changed since its import (checksum s1, now s2)")),
            qPrintable(parts.out));
        // A manifest that cannot be read, given: refused, naming it.
        auto bad =
            testsupport::runCli(QStringList{QStringLiteral("datasets"), QStringLiteral("--dbt"),
                                            dir.filePath(QStringLiteral("none.json"))} +
                                ws);
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("none.json")), qPrintable(bad.err));

        // A plan made from the imported model...
        auto preview =
            testsupport::runCli(QStringList{QStringLiteral("preview"), QStringLiteral("--dataset"),
                                            QStringLiteral("fct_sales"), QStringLiteral("--json")} +
                                ws);
        QCOMPARE(preview.exitCode, 0);
        const QString plan = json(preview)[QStringLiteral("plan_id")].toString();
        QVERIFY(!plan.isEmpty());

        // ...then the project imported again: the dbt dataset refreshed,
        // the new model added, the one written by hand kept as it was.
        auto update = testsupport::runCli({QStringLiteral("init"), QStringLiteral("--dbt"), v2,
                                           QStringLiteral("--update"), spec, QStringLiteral("--db"),
                                           url, QStringLiteral("--json")});
        QVERIFY2(update.exitCode == 0, qPrintable(update.err));
        const QJsonObject report = json(update)[QStringLiteral("update")].toObject();
        QCOMPARE(names(report[QStringLiteral("replaced")]),
                 QStringList{QStringLiteral("fct_sales")});
        QCOMPARE(names(report[QStringLiteral("added")]), QStringList{QStringLiteral("fct_big")});
        QCOMPARE(names(report[QStringLiteral("kept")]), QStringList{QStringLiteral("by_hand")});
        QVERIFY(f.open(QIODevice::ReadOnly));
        root = QJsonDocument::fromJson(f.readAll()).object();
        f.close();
        QCOMPARE(root[QStringLiteral("dbt_manifest")].toString(), QStringLiteral("v2.json"));
        const QJsonObject after = root[QStringLiteral("datasets")].toObject();
        QCOMPARE(after[QStringLiteral("by_hand")].toObject(),
                 datasets[QStringLiteral("by_hand")].toObject());
        QVERIFY(after[QStringLiteral("fct_sales")]
                    .toObject()[QStringLiteral("transform")]
                    .toString()
                    .contains(QStringLiteral("amount > 5")));

        // The plan of the older model is stale (exit 4), and nothing ran.
        auto run =
            testsupport::runCli(QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                                            QStringLiteral("fct_sales"), QStringLiteral("--plan"),
                                            plan, QStringLiteral("--execute")} +
                                ws);
        QCOMPARE(run.exitCode, 4);
        QVERIFY2(run.err.contains(QStringLiteral("checksum s1")) &&
                     run.err.contains(QStringLiteral("s2")),
                 qPrintable(run.err));
        QVERIFY(!*db.hasRelation(QStringLiteral("fct_sales")));
        listed = testsupport::runCli(
            QStringList{QStringLiteral("datasets"), QStringLiteral("--json")} + ws);
        QCOMPARE(dbtOf(listed)[QStringLiteral("fct_sales")]
                     .toObject()[QStringLiteral("model")]
                     .toString(),
                 QStringLiteral("current"));

        // A run killed part way, then the dataset imported again from a
        // changed model (its checksum in the spec changed): the run does not
        // resume with the other model's logic (exit 4).
        auto killed = testsupport::runRewindctl(
            QStringList{QStringLiteral("run"), QStringLiteral("--dataset"),
                        QStringLiteral("fct_big"), QStringLiteral("--execute"),
                        QStringLiteral("--json")} +
                ws,
            QStringLiteral("before-commit"));
        QVERIFY(killed.crashed);
        const qint64 killedRun = testsupport::scalarAt(
            url, QStringLiteral("SELECT MAX(run_id) FROM rewind_runs WHERE dataset = 'fct_big'"));
        QVERIFY(killedRun > 0);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray changedSpec = f.readAll();
        f.close();
        changedSpec.replace("\"checksum\": \"b1\"", "\"checksum\": \"b2\"");
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(changedSpec);
        f.close();
        auto resumed = testsupport::runCli(
            QStringList{QStringLiteral("resume"), QStringLiteral("--run"),
                        QString::number(killedRun), QStringLiteral("--execute")} +
            ws);
        QCOMPARE(resumed.exitCode, 4);
        QVERIFY2(resumed.err.contains(QStringLiteral("checksum b1")) &&
                     resumed.err.contains(QStringLiteral("b2")),
                 qPrintable(resumed.err));

        // A model gone from the project leaves the spec, with the reason.
        const QString v3 = testsupport::writeFile(
            dir, QStringLiteral("v3.json"), dbtdata::manifest(QStringLiteral("v12"), QString()));
        update = testsupport::runCli({QStringLiteral("init"), QStringLiteral("--dbt"), v3,
                                      QStringLiteral("--update"), spec, QStringLiteral("--json")});
        QVERIFY2(update.exitCode == 0, qPrintable(update.err));
        const QJsonArray removed =
            json(update)[QStringLiteral("update")].toObject()[QStringLiteral("removed")].toArray();
        QCOMPARE(removed.size(), 2);
        QVERIFY(removed[0].toObject()[QStringLiteral("reason")].toString().contains(
            QStringLiteral("no longer in the manifest")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        root = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(root[QStringLiteral("datasets")].toObject().keys(),
                 QStringList{QStringLiteral("by_hand")});
    }
};

QTEST_GUILESS_MAIN(TestDbtDrift)
#include "tst_dbtdrift.moc"
