// Identifiers from specs are validated against the catalog and quoted;
// values are bound. Hostile names work as names and never as SQL.
#include "database.h"
#include "partitions.h"
#include "spec.h"
#include "testsupport.h"
#include "workspace.h"

#include <QTest>

using namespace rw;

class TestIdentifiers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { REWIND_REQUIRE_ENGINE(); }

    void quoting_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("quoted");
        QTest::newRow("plain") << QStringLiteral("sales") << QStringLiteral("\"sales\"");
        QTest::newRow("space") << QStringLiteral("my sales") << QStringLiteral("\"my sales\"");
        QTest::newRow("double quote") << QStringLiteral("we\"ird") << QStringLiteral("\"we\"\"ird\"");
        QTest::newRow("injection") << QStringLiteral("x\"; DROP TABLE victims; --") << QStringLiteral("\"x\"\"; DROP TABLE victims; --\"");
        QTest::newRow("unicode") << QStringLiteral("Ventes é 表") << QStringLiteral("\"Ventes é 表\"");
    }

    void quoting()
    {
        QFETCH(QString, name);
        QFETCH(QString, quoted);
        auto dialect = makeDialect(SqlDialect::Kind::Sqlite);
        QCOMPARE(dialect->quote(name), quoted);
    }

    // A whole workspace whose tables and columns have hostile names.
    void hostileNamesWorkEndToEnd()
    {
        QTemporaryDir dir;
        const QString source = QStringLiteral("raw \"sales\"; DROP TABLE victims; --");
        const QString target = QStringLiteral("Ventes publiées 表");
        auto db = testsupport::makeDatabase(dir, QStringLiteral("hostile.db"),
            {QStringLiteral("CREATE TABLE victims (id INTEGER)"),
             QStringLiteral("INSERT INTO victims VALUES (1), (2)"),
             QStringLiteral("CREATE TABLE \"raw \"\"sales\"\"; DROP TABLE victims; --\" (\"order id\" INTEGER, \"day'; --\" TEXT, \"a\"\"mount\" REAL)"),
             QStringLiteral("INSERT INTO \"raw \"\"sales\"\"; DROP TABLE victims; --\" VALUES (1, 'd1', 1.0), (2, 'd1', 2.0), (3, 'd2', 3.0), (NULL, 'd2', 4.0)"),
             QStringLiteral("CREATE TABLE \"Ventes publiées 表\" (\"order id\" INTEGER, \"day'; --\" TEXT, \"a\"\"mount\" REAL)"),
             QStringLiteral("INSERT INTO \"Ventes publiées 表\" VALUES (1, 'd1', 1.0), (1, 'd1', 1.0), (NULL, 'd2', 4.0), (NULL, 'd2', 4.0)")});
        const QByteArray spec = "{\"datasets\": {\"hostile ds \\\"x\\\"\": {"
                                "\"source\": \"raw \\\"sales\\\"; DROP TABLE victims; --\","
                                "\"target\": \"Ventes publi\u00e9es \u8868\","
                                "\"partition_column\": \"day'; --\","
                                "\"key\": [\"order id\"],"
                                "\"order_by\": \"a\\\"mount\"}}}";
        const QString specPath = testsupport::writeFile(dir, QStringLiteral("hostile.json"), spec);
        auto ws = openWorkspace(db.url().text, specPath);
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().message));
        const DatasetSpec &d = ws->spec.datasets.at(0);
        QCOMPARE(d.source, source);
        QCOMPARE(d.target, target);

        auto parts = listPartitions(ws->db, d);
        QVERIFY2(parts, qPrintable(parts ? QString() : parts.error().message));
        QCOMPARE(parts->size(), std::size_t(2));
        QCOMPARE(parts->at(0).partition.value_or(QString()), QStringLiteral("d1"));
        QCOMPARE(parts->at(0).sourceRows, 2);
        QCOMPARE(parts->at(0).targetRows, 2);
        QCOMPARE(parts->at(0).duplicateKeys, 1); // key 1 twice
        QCOMPARE(parts->at(1).sourceRows, 2);
        QCOMPARE(parts->at(1).duplicateKeys, 1); // the NULL key twice: NULL matches NULL

        auto victims = ws->db.scalar(QStringLiteral("SELECT COUNT(*) FROM victims"));
        QVERIFY(victims);
        QCOMPARE(victims->toInt(), 2);
    }

    void unknownRelationIsRefusedNotExecuted()
    {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("inj.db"),
                                            {QStringLiteral("CREATE TABLE victims (id INTEGER)"),
                                             QStringLiteral("INSERT INTO victims VALUES (1)")});
        auto quoted = db.quotedRelation(QStringLiteral("victims; DROP TABLE victims"));
        QVERIFY(!quoted);
        QCOMPARE(quoted.error().code, Error::Code::BadInput);
        QVERIFY(quoted.error().message.contains(QStringLiteral("no table or view named \"victims; DROP TABLE victims\"")));
        auto ok = db.quotedRelation(QStringLiteral("victims"));
        QVERIFY(ok);
        QCOMPARE(*ok, QStringLiteral("\"victims\""));
        QCOMPARE(db.scalar(QStringLiteral("SELECT COUNT(*) FROM victims"))->toInt(), 1);
    }

    void valuesAreBound()
    {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("bind.db"),
                                            {QStringLiteral("CREATE TABLE t (v TEXT)")});
        const QString hostile = QStringLiteral("'); DROP TABLE t; --");
        QVERIFY(db.exec(QStringLiteral("INSERT INTO t VALUES (?)"), {hostile}));
        auto v = db.scalar(QStringLiteral("SELECT v FROM t WHERE v = ?"), {hostile});
        QVERIFY(v);
        QCOMPARE(v->toString(), hostile);
    }

    void catalogIsCaseExact()
    {
        QTemporaryDir dir;
        auto db = testsupport::makeDatabase(dir, QStringLiteral("case.db"), {QStringLiteral("CREATE TABLE \"Sales\" (x INTEGER)")});
        QVERIFY(*db.hasRelation(QStringLiteral("Sales")));
        QVERIFY(!*db.hasRelation(QStringLiteral("sales")));
    }
};

QTEST_GUILESS_MAIN(TestIdentifiers)
#include "tst_identifiers.moc"
