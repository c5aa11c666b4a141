// The manifests the dbt tests read are manifests dbt could write: each is
// validated against dbt's published JSON schema of its version (v10, v11,
// v12; tests/dbt/), with Debian's python3-jsonschema, and read back by
// Rewind. A manifest the schema refuses fails here, naming the field.
#include "core/dbt/manifest.h"
#include "tests/dbtmanifests.h"
#include "tests/testsupport.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace rw;

namespace {

const char *const kValidate = "import json, sys\n"
                              "import jsonschema\n"
                              "schema = json.load(open(sys.argv[1]))\n"
                              "doc = json.load(open(sys.argv[2]))\n"
                              "cls = jsonschema.validators.validator_for(schema, "
                              "default=jsonschema.Draft7Validator)\n"
                              "errors = sorted(cls(schema).iter_errors(doc), key=lambda e: "
                              "[str(p) for p in e.absolute_path])\n"
                              "for e in errors[:5]:\n"
                              "    print('/'.join(str(p) for p in e.absolute_path), '->', "
                              "e.message[:300])\n"
                              "sys.exit(1 if errors else 0)\n";

bool haveJsonSchema() {
    QProcess p;
    p.start(QStringLiteral("/usr/bin/python3"),
            {QStringLiteral("-c"), QStringLiteral("import jsonschema")});
    return p.waitForFinished(30000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

} // namespace

class TestDbtSchemas : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        if (!haveJsonSchema())
            QSKIP("python3-jsonschema is not installed (scripts/test installs it)");
    }

    void manifestsMatchDbtSchemas_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QByteArray>("json");
        using namespace dbtdata;
        const QString mixed = kOrders + u',' + kSnapshot + u',' + kTests;
        for (const char *v : {"v10", "v11", "v12"})
            QTest::newRow(v) << QString::fromLatin1(v) << manifest(QString::fromLatin1(v), mixed);
        QTest::newRow("shop") << QStringLiteral("v12")
                              << manifest(QStringLiteral("v12"), kShop + u',' + kOrders);
        QTest::newRow("import") << QStringLiteral("v11")
                                << manifest(QStringLiteral("v11"),
                                            QString::fromUtf8(kImport).arg(QStringLiteral("t"),
                                                                           QStringLiteral("d"),
                                                                           QStringLiteral("e")));
        QTest::newRow("snapshots")
            << QStringLiteral("v12")
            << manifest(QStringLiteral("v12"),
                        QString::fromUtf8(kSnapshots).arg(QStringLiteral("s")));
        QTest::newRow("raw code") << QStringLiteral("v12")
                                  << manifest(QStringLiteral("v12"), QString::fromUtf8(kRawCode),
                                              QString::fromUtf8(kRawSources));
        QTest::newRow("drift") << QStringLiteral("v12")
                               << driftManifest(QStringLiteral("s1"),
                                                QStringLiteral("select 1 as order_id"), true);
        QTest::newRow("empty") << QStringLiteral("v12")
                               << manifest(QStringLiteral("v12"), QString());
    }
    void manifestsMatchDbtSchemas() {
        QFETCH(QString, version);
        QFETCH(QByteArray, json);
        QTemporaryDir dir;
        const QString path = testsupport::writeFile(dir, QStringLiteral("manifest.json"), json);
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(
            QStringLiteral("/usr/bin/python3"),
            {QStringLiteral("-c"), QString::fromLatin1(kValidate),
             QStringLiteral(REWIND_TESTS_DIR "/dbt/manifest_") + version + QStringLiteral(".json"),
             path});
        QVERIFY(p.waitForFinished(120000));
        const QByteArray out = p.readAll();
        QVERIFY2(p.exitCode() == 0, out.constData());
        auto m = dbt::parseManifest(json, path);
        QVERIFY2(m, qPrintable(m ? QString() : m.error().message));
        QCOMPARE(m->schemaVersion, version);
    }

    // The schema is not a formality: a node missing a field it requires
    // fails.
    void aBrokenManifestFails() {
        QTemporaryDir dir;
        QByteArray json = dbtdata::manifest(QStringLiteral("v12"), dbtdata::kOrders);
        json.replace("\"fqn\":", "\"not_fqn\":");
        const QString path = testsupport::writeFile(dir, QStringLiteral("manifest.json"), json);
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(QStringLiteral("/usr/bin/python3"),
                {QStringLiteral("-c"), QString::fromLatin1(kValidate),
                 QStringLiteral(REWIND_TESTS_DIR "/dbt/manifest_v12.json"), path});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 1);
    }
};

QTEST_GUILESS_MAIN(TestDbtSchemas)
#include "tst_dbtschemas.moc"
