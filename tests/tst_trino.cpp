// Trino as an engine (core/sql/trinodriver, trinodialect): its URL, its
// client protocol against a real Trino server over Apache Iceberg tables
// (scripts/trino.sh: REWIND_TEST_TRINO_URL), values written as literals and
// read back typed, errors named as Trino names them, rows read page after
// page, the catalog; and the protocol's retries against a server that
// answers 503 first.
#include "core/sql/database.h"
#include "tests/testsupport.h"
#include "tests/trinosupport.h"

#include <QCoreApplication>
#include <QDate>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace rw;
using namespace testsupport;
using namespace trinotest;

namespace {

// The scratch schemas of the catalog (rewind_work_*), sorted.
QStringList scratchSchemas(const Database &db) {
    QStringList out;
    auto q = db.exec(QStringLiteral("SELECT schema_name FROM information_schema.schemata WHERE "
                                    "schema_name LIKE 'rewind_work%' ORDER BY 1"));
    while (q && q->next())
        out << q->value(0).toString();
    return out;
}

// A stand-in for Trino's coordinator that answers POST /v1/statement with
// 503 `failures` times, then with one page holding a column x = 7.
class FlakyCoordinator : public QTcpServer {
public:
    int failures = 2;
    int posts = 0;

    FlakyCoordinator() {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection())
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { answer(socket); });
        });
    }

private:
    void answer(QTcpSocket *socket) {
        const QByteArray request = socket->readAll();
        QByteArray status = "200 OK";
        QByteArray body;
        if (request.startsWith("GET /v1/info")) {
            body = R"({"starting":false})";
        } else if (request.startsWith("POST /v1/statement")) {
            ++posts;
            if (failures-- > 0) {
                status = "503 Service Unavailable";
                body = "busy";
            } else {
                body = R"({"id":"q1","columns":[{"name":"x","type":"integer"}],"data":[[7]]})";
            }
        } else {
            status = "404 Not Found";
        }
        socket->write("HTTP/1.1 " + status +
                      "\r\nContent-Type: application/json\r\nContent-Length: " +
                      QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        socket->disconnectFromHost();
    }
};

} // namespace

// 1 to 60,000 (sequence() stops at 10,000 entries).
const QString kSixtyThousand =
    QStringLiteral("SELECT a * 10000 + b AS x FROM UNNEST(sequence(0, 5)) AS u (a) CROSS JOIN "
                   "UNNEST(sequence(1, 10000)) AS v (b)");

class TestTrino : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void urls() {
        auto plain =
            DatabaseUrl::parse(QStringLiteral("trino://analyst@warehouse:8081/iceberg/sales"));
        QVERIFY2(plain, plain ? "" : qPrintable(plain.error().message));
        QCOMPARE(plain->kind, SqlDialect::Kind::Trino);
        QCOMPARE(plain->host, QStringLiteral("warehouse"));
        QCOMPARE(plain->port, 8081);
        QCOMPARE(plain->user, QStringLiteral("analyst"));
        QCOMPARE(plain->databaseName, QStringLiteral("iceberg/sales"));
        QCOMPARE(plain->display(), QStringLiteral("trino://analyst@warehouse:8081/iceberg/sales"));

        auto tls =
            DatabaseUrl::parse(QStringLiteral("trinos://analyst:s3cret@warehouse/iceberg/sales"));
        QVERIFY(tls);
        QCOMPARE(tls->port, 443);
        QCOMPARE(tls->password, QStringLiteral("s3cret"));
        QVERIFY(!tls->display().contains(QLatin1String("s3cret")));
        QVERIFY(!tls->withoutPassword().contains(QLatin1String("s3cret")));

        // No schema; a password over plain HTTP; parameters: refused, saying why.
        for (const char *bad :
             {"trino://analyst@warehouse/iceberg", "trino://warehouse/iceberg/sales",
              "trino://analyst:pw@warehouse/iceberg/sales",
              "trino://analyst@warehouse/iceberg/sales?x=1"}) {
            auto refused = DatabaseUrl::parse(QString::fromLatin1(bad));
            QVERIFY2(!refused, bad);
            QCOMPARE(refused.error().code, Error::Code::BadInput);
            QVERIFY2(!refused.error().message.contains(QLatin1String(":pw@")),
                     qPrintable(refused.error().message));
        }
    }

    void retriesWhileTheCoordinatorIsBusy() {
        FlakyCoordinator server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        auto db = Database::open(
            QStringLiteral("trino://rewind@127.0.0.1:%1/iceberg/rewind").arg(server.serverPort()));
        QVERIFY2(db, db ? "" : qPrintable(db.error().message));
        auto x = db->scalar(QStringLiteral("SELECT 7 AS x"));
        QVERIFY2(x, x ? "" : qPrintable(x.error().message));
        QCOMPARE(x->toInt(), 7);
        QCOMPARE(server.posts, 3); // two 503s, then the answer
    }

    // Writes to the warehouse are refused where every data write starts,
    // whatever asks (the console's actions too), before anything runs.
    void writesAreRefusedBeforeTheyStart() {
        FlakyCoordinator server;
        server.failures = 0;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        auto db = Database::open(
            QStringLiteral("trino://rewind@127.0.0.1:%1/iceberg/rewind").arg(server.serverPort()));
        QVERIFY(db);
        bool ran = false;
        const Status written = db->writeTransaction([&]() -> Status {
            ran = true;
            return {};
        });
        QVERIFY(!written);
        QCOMPARE(written.error().code, Error::Code::BadInput);
        QVERIFY2(written.error().message.contains(QLatin1String("nothing was written")),
                 qPrintable(written.error().message));
        QVERIFY(!ran);
        QCOMPARE(server.posts, 0);
    }

    // TRINO_PASSWORD with a plain-HTTP URL: refused before any request.
    void noPasswordOverPlainHttp() {
        FlakyCoordinator server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        qputenv("TRINO_PASSWORD", "s3cret");
        auto db = Database::open(
            QStringLiteral("trino://rewind@127.0.0.1:%1/iceberg/rewind").arg(server.serverPort()));
        qunsetenv("TRINO_PASSWORD");
        QVERIFY(!db);
        QVERIFY2(db.error().message.contains(QLatin1String("HTTPS only")),
                 qPrintable(db.error().message));
        QCOMPARE(server.posts, 0);
    }

    void unreachableServerNamesIt() {
        QTcpServer probe; // a port nothing listens on once closed
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        const quint16 port = probe.serverPort();
        probe.close();
        auto db =
            Database::open(QStringLiteral("trino://rewind@127.0.0.1:%1/iceberg/rewind").arg(port));
        QVERIFY(!db);
        QVERIFY2(db.error().message.contains(QStringLiteral("127.0.0.1:%1").arg(port)),
                 qPrintable(db.error().message));
    }

    void valuesRoundTrip() {
        REQUIRE_TRINO();
        auto db = Database::open(trinoUrl());
        QVERIFY2(db, db ? "" : qPrintable(db.error().message));
        const QString t = uniqueTable("types");
        QVERIFY2(db->exec(QStringLiteral("CREATE TABLE %1 (id BIGINT, amount DOUBLE, price "
                                         "DECIMAL(12,2), name VARCHAR, dt DATE, ts TIMESTAMP(6), "
                                         "ok BOOLEAN) WITH (partitioning = ARRAY['dt'])")
                              .arg(t)),
                 "create");
        const QDateTime ts(QDate(2025, 5, 14), QTime(10, 20, 30, 125), Qt::UTC);
        auto inserted = db->exec(
            QStringLiteral("INSERT INTO %1 VALUES (?, ?, CAST(? AS DECIMAL(12,2)), ?, ?, ?, ?), "
                           "(?, ?, NULL, ?, ?, ?, ?)")
                .arg(t),
            {qlonglong(9007199254740993LL), 0.1, QStringLiteral("12.34"),
             QStringLiteral("O'Brien \"quoted\""), QDate(2025, 5, 14), ts, true, qlonglong(2),
             QVariant(QMetaType(QMetaType::Double)), QVariant(QMetaType(QMetaType::QString)),
             QDate(2025, 5, 15), QVariant(QMetaType(QMetaType::QDateTime)), false});
        QVERIFY2(inserted, inserted ? "" : qPrintable(inserted.error().message));
        QCOMPARE(inserted->numRowsAffected(), 2);

        auto rows = db->exec(
            QStringLiteral("SELECT id, amount, price, name, dt, ts, ok FROM %1 ORDER BY id DESC")
                .arg(t));
        QVERIFY2(rows, rows ? "" : qPrintable(rows.error().message));
        QVERIFY(rows->next());
        QCOMPARE(rows->value(0).toLongLong(), 9007199254740993LL); // past a double's 53 bits
        QCOMPARE(rows->value(1).toDouble(), 0.1);
        QCOMPARE(rows->value(2).toString(), QStringLiteral("12.34"));
        QCOMPARE(rows->value(3).toString(), QStringLiteral("O'Brien \"quoted\""));
        QCOMPARE(rows->value(4).toDate(), QDate(2025, 5, 14));
        QCOMPARE(rows->value(5).toDateTime(), ts);
        QCOMPARE(rows->value(6).toBool(), true);
        QVERIFY(rows->next());
        QCOMPARE(rows->value(0).toLongLong(), 2LL);
        for (int c : {1, 2, 3, 5})
            QVERIFY2(rows->isNull(c), qPrintable(QString::number(c)));
        QCOMPARE(rows->value(4).toDate(), QDate(2025, 5, 15));
        QVERIFY(!rows->next());

        // The catalog: the table and its columns with Trino's types.
        auto relations = db->relations();
        QVERIFY(relations);
        QVERIFY(relations->contains(t));
        auto columns = db->columns(t);
        QVERIFY2(columns, columns ? "" : qPrintable(columns.error().message));
        QCOMPARE(int(columns->size()), 7);
        QCOMPARE(columns->at(0).name, QStringLiteral("id"));
        QCOMPARE(columns->at(0).type, QStringLiteral("bigint"));
        QCOMPARE(columns->at(5).type, QStringLiteral("timestamp(6)"));
        QVERIFY(db->exec(QStringLiteral("DROP TABLE %1").arg(t)));
    }

    void rowsPageAfterPage() {
        REQUIRE_TRINO();
        auto db = Database::open(trinoUrl());
        QVERIFY(db);
        // More rows than one page of the protocol holds.
        auto rows = db->exec(kSixtyThousand);
        QVERIFY2(rows, rows ? "" : qPrintable(rows.error().message));
        qint64 n = 0, sum = 0;
        while (rows->next()) {
            ++n;
            sum += rows->value(0).toLongLong();
        }
        QCOMPARE(n, 60000LL);
        QCOMPARE(sum, 60000LL * 60001 / 2);
        // A statement left half read is cancelled, and the session goes on.
        auto half = db->exec(kSixtyThousand);
        QVERIFY(half && half->next());
        auto after = db->scalar(QStringLiteral("SELECT 41 + 1"));
        QVERIFY(after);
        QCOMPARE(after->toInt(), 42);
    }

    void errorsNameTrinosError() {
        REQUIRE_TRINO();
        auto db = Database::open(trinoUrl());
        QVERIFY(db);
        auto missing = db->exec(QStringLiteral("SELECT * FROM no_such_table_here"));
        QVERIFY(!missing);
        QVERIFY2(missing.error().message.contains(QLatin1String("TABLE_NOT_FOUND")),
                 qPrintable(missing.error().message));
        QVERIFY2(missing.error().message.contains(QLatin1String("no_such_table_here")),
                 qPrintable(missing.error().message));
        auto syntax = db->exec(QStringLiteral("SELEC 1"));
        QVERIFY(!syntax);
        QVERIFY2(syntax.error().message.contains(QLatin1String("SYNTAX_ERROR")),
                 qPrintable(syntax.error().message));
    }

    // partitions on Iceberg tables partitioned by a date and by day(ts):
    // rows and duplicate keys per partition as a hand GROUP BY on Trino
    // counts them; the control tables in the spec's control_db (a SQLite
    // file beside it), none in the warehouse.
    void partitionsOfIcebergTables() {
        REQUIRE_TRINO();
        auto db = Database::open(trinoUrl());
        QVERIFY(db);
        const QString src = uniqueTable("src"), tgt = uniqueTable("tgt"), ev = uniqueTable("ev");
        for (const QString &statement :
             {QStringLiteral("CREATE TABLE %1 (order_id BIGINT, dt DATE, amount DOUBLE, "
                             "updated_at TIMESTAMP(6)) WITH (partitioning = ARRAY['dt'])")
                  .arg(src),
              QStringLiteral("CREATE TABLE %1 (order_id BIGINT, dt DATE, amount DOUBLE, "
                             "updated_at TIMESTAMP(6)) WITH (partitioning = ARRAY['dt'])")
                  .arg(tgt),
              QStringLiteral("INSERT INTO %1 VALUES (1, DATE '2025-05-14', 10, TIMESTAMP "
                             "'2025-05-14 10:00:00'), (1, DATE '2025-05-14', 12, TIMESTAMP "
                             "'2025-05-14 11:00:00'), (2, DATE '2025-05-14', 5, TIMESTAMP "
                             "'2025-05-14 10:00:00'), (3, DATE '2025-05-15', 7.5, TIMESTAMP "
                             "'2025-05-15 09:00:00')")
                  .arg(src),
              QStringLiteral("INSERT INTO %1 VALUES (1, DATE '2025-05-14', 12, TIMESTAMP "
                             "'2025-05-14 11:00:00'), (1, DATE '2025-05-14', 12, TIMESTAMP "
                             "'2025-05-14 11:00:00'), (2, DATE '2025-05-14', 5, TIMESTAMP "
                             "'2025-05-14 10:00:00'), (9, DATE '2025-05-13', 1, TIMESTAMP "
                             "'2025-05-13 10:00:00')")
                  .arg(tgt),
              QStringLiteral("CREATE TABLE %1 (id BIGINT, ts TIMESTAMP(6) WITH TIME ZONE) "
                             "WITH (partitioning = ARRAY['day(ts)'])")
                  .arg(ev),
              QStringLiteral("INSERT INTO %1 VALUES (1, TIMESTAMP '2025-05-14 23:30:00 UTC'), "
                             "(2, TIMESTAMP '2025-05-15 00:10:00.5 UTC'), (2, TIMESTAMP "
                             "'2025-05-15 01:00:00 UTC')")
                  .arg(ev)})
            QVERIFY2(db->exec(statement), qPrintable(statement));

        QTemporaryDir dir;
        const QString spec = writeFile(dir, QStringLiteral("w.json"),
                                       QStringLiteral(R"({"control_db": "control.db", "datasets": {
            "sales": {"source": "%1", "target": "%2", "partition_column": "dt",
                      "key": ["order_id"], "order_by": "updated_at", "write": "merge"},
            "events": {"transform": "SELECT id, ts FROM %3", "target": "%3", "partition_column": "ts",
                       "partition_granularity": "day", "key": ["id"], "write": "merge"}}})")
                                           .arg(src, tgt, ev));
        const QStringList args{QStringLiteral("--db"), trinoUrl(), QStringLiteral("--spec"), spec,
                               QStringLiteral("--json")};

        CliResult sales = runCli(QStringList{QStringLiteral("partitions"),
                                             QStringLiteral("--dataset"), QStringLiteral("sales")} +
                                 args);
        QVERIFY2(sales.exitCode == 0, qPrintable(sales.err));
        const QJsonArray parts = QJsonDocument::fromJson(sales.out.toUtf8())
                                     .object()
                                     .value(QStringLiteral("partitions"))
                                     .toArray();
        // By hand on Trino: rows of each side, keys held more than once.
        auto hand = db->exec(
            QStringLiteral("SELECT CAST(dt AS VARCHAR), SUM(s), SUM(t), SUM(CASE WHEN t > 1 THEN 1 "
                           "ELSE 0 END) FROM (SELECT dt, order_id, COUNT(*) AS s, 0 AS t FROM %1 "
                           "GROUP BY dt, order_id UNION ALL SELECT dt, order_id, 0, COUNT(*) FROM "
                           "%2 GROUP BY dt, order_id) GROUP BY dt ORDER BY 1")
                .arg(src, tgt));
        QVERIFY(hand);
        int i = 0;
        for (; hand->next(); ++i) {
            const QJsonObject p = parts.at(i).toObject();
            QCOMPARE(p.value(QStringLiteral("partition")).toString(), hand->value(0).toString());
            QCOMPARE(p.value(QStringLiteral("source_rows")).toInteger(),
                     hand->value(1).toLongLong());
            QCOMPARE(p.value(QStringLiteral("target_rows")).toInteger(),
                     hand->value(2).toLongLong());
            QCOMPARE(p.value(QStringLiteral("duplicate_keys")).toInteger(),
                     hand->value(3).toLongLong());
        }
        QCOMPARE(i, 3);
        QCOMPARE(parts.size(), 3);
        QCOMPARE(parts.at(0).toObject().value(QStringLiteral("status")).toString(),
                 QStringLiteral("loaded")); // 2025-05-13: in the target only
        QCOMPARE(parts.at(2).toObject().value(QStringLiteral("status")).toString(),
                 QStringLiteral("unloaded"));

        // Days of a timestamp with time zone, in UTC.
        CliResult events =
            runCli(QStringList{QStringLiteral("partitions"), QStringLiteral("--dataset"),
                               QStringLiteral("events")} +
                   args);
        QVERIFY2(events.exitCode == 0, qPrintable(events.err));
        const QJsonArray days = QJsonDocument::fromJson(events.out.toUtf8())
                                    .object()
                                    .value(QStringLiteral("partitions"))
                                    .toArray();
        QCOMPARE(days.size(), 2);
        QCOMPARE(days.at(0).toObject().value(QStringLiteral("partition")).toString(),
                 QStringLiteral("2025-05-14"));
        QCOMPARE(days.at(1).toObject().value(QStringLiteral("target_rows")).toInteger(), 2);
        QCOMPARE(days.at(1).toObject().value(QStringLiteral("duplicate_keys")).toInteger(), 1);

        // The control tables went to control.db; the warehouse has none.
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("control.db"))));
        auto relations = db->relations();
        QVERIFY(relations);
        for (const QString &r : *relations)
            QVERIFY2(!r.startsWith(QLatin1String("rewind_")), qPrintable(r));

        // A command not yet on Trino is refused before it changes anything;
        // so is a Trino workspace without a control_db.
        CliResult run = runCli(QStringList{QStringLiteral("prune"), QStringLiteral("--dataset"),
                                           QStringLiteral("sales"), QStringLiteral("--execute")} +
                               args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QLatin1String("does not work on a Trino warehouse yet")),
                 qPrintable(run.err));
        auto count = db->scalar(QStringLiteral("SELECT COUNT(*) FROM %1").arg(tgt));
        QVERIFY(count);
        QCOMPARE(count->toLongLong(), 4LL);
        const QString bare =
            writeFile(dir, QStringLiteral("bare.json"),
                      QStringLiteral(R"({"datasets": {"sales": {"source": "%1", "target": "%2",
            "partition_column": "dt", "key": ["order_id"], "write": "merge"}}})")
                          .arg(src, tgt));
        CliResult noControl = runCli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                      QStringLiteral("sales"), QStringLiteral("--db"), trinoUrl(),
                                      QStringLiteral("--spec"), bare});
        QCOMPARE(noControl.exitCode, 2);
        QVERIFY2(noControl.err.contains(QLatin1String("control_db")), qPrintable(noControl.err));
        // A dataset the spec lacks is refused before the control store is made.
        const QString fresh =
            writeFile(dir, QStringLiteral("fresh.json"),
                      QStringLiteral(R"({"control_db": "fresh.db", "datasets": {"sales": {
            "source": "%1", "target": "%2", "partition_column": "dt", "key": ["order_id"],
            "write": "merge"}}})")
                          .arg(src, tgt));
        CliResult unknown = runCli({QStringLiteral("partitions"), QStringLiteral("--dataset"),
                                    QStringLiteral("nosuch"), QStringLiteral("--db"), trinoUrl(),
                                    QStringLiteral("--spec"), fresh});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains(QLatin1String("nosuch")), qPrintable(unknown.err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("fresh.db"))));
        for (const QString &t : {src, tgt, ev})
            QVERIFY(db->exec(QStringLiteral("DROP TABLE %1").arg(t)));
    }

    // preview of a merge into an Iceberg day: the counts and the column
    // summary as hand SQL on Trino finds them, the target untouched, the
    // plan in the control store, and no work table left in the warehouse.
    void previewOfAnIcebergDay() {
        REQUIRE_TRINO();
        auto db = Database::open(trinoUrl());
        QVERIFY(db);
        const QString src = uniqueTable("psrc"), tgt = uniqueTable("ptgt");
        for (const QString &statement :
             {QStringLiteral("CREATE TABLE %1 (order_id BIGINT, dt DATE, amount DOUBLE, "
                             "region VARCHAR, updated_at TIMESTAMP(6)) WITH (partitioning = "
                             "ARRAY['dt'])")
                  .arg(src),
              QStringLiteral("CREATE TABLE %1 (order_id BIGINT, dt DATE, amount DOUBLE, "
                             "region VARCHAR, updated_at TIMESTAMP(6)) WITH (partitioning = "
                             "ARRAY['dt'])")
                  .arg(tgt),
              // Day 14: key 1 re-sent twice (the later halves its amount),
              // 2 with another amount than the target's, 3 new; the target
              // also holds 4, which a merge keeps. Two updated rows, both in
              // the stage's one data file: counted once each, not by file.
              QStringLiteral("INSERT INTO %1 VALUES (1, DATE '2025-05-14', 20, 'EU', TIMESTAMP "
                             "'2025-05-14 09:00:00'), (1, DATE '2025-05-14', 10, 'EU', "
                             "TIMESTAMP '2025-05-14 12:00:00'), (2, DATE '2025-05-14', 5, 'US', "
                             "TIMESTAMP '2025-05-14 10:00:00'), (3, DATE '2025-05-14', 7, NULL, "
                             "TIMESTAMP '2025-05-14 10:00:00'), (5, DATE '2025-05-15', 1, 'US', "
                             "TIMESTAMP '2025-05-15 10:00:00')")
                  .arg(src),
              QStringLiteral("INSERT INTO %1 VALUES (1, DATE '2025-05-14', 20, 'EU', TIMESTAMP "
                             "'2025-05-14 09:00:00'), (2, DATE '2025-05-14', 6, 'US', TIMESTAMP "
                             "'2025-05-14 10:00:00'), (4, DATE '2025-05-14', 3, 'US', TIMESTAMP "
                             "'2025-05-14 08:00:00')")
                  .arg(tgt)})
            QVERIFY2(db->exec(statement), qPrintable(statement));

        QTemporaryDir dir;
        const QString spec = writeFile(dir, QStringLiteral("w.json"),
                                       QStringLiteral(R"({"control_db": "control.db", "datasets": {
            "sales": {"source": "%1", "target": "%2", "partition_column": "dt",
                      "key": ["order_id"], "order_by": "updated_at", "write": "merge"}}})")
                                           .arg(src, tgt));
        // Scratch schemas there are already (a run killed by another suite
        // leaves its own, swept a day later; the Trino suites never run at
        // the same time: RESOURCE_LOCK).
        const QStringList scratchBefore = scratchSchemas(*db);
        CliResult preview = runCli(
            {QStringLiteral("preview"), QStringLiteral("--dataset"), QStringLiteral("sales"),
             QStringLiteral("--partition"), QStringLiteral("2025-05-14"), QStringLiteral("--db"),
             trinoUrl(), QStringLiteral("--spec"), spec, QStringLiteral("--json")});
        QVERIFY2(preview.exitCode == 0, qPrintable(preview.err + preview.out));
        const QJsonObject doc = QJsonDocument::fromJson(preview.out.toUtf8()).object();
        const QJsonObject day = doc.value(QStringLiteral("partitions")).toArray().at(0).toObject();

        // By hand: the latest row per key of the day, against the target's rows.
        auto hand = db->exec(
            QStringLiteral(
                "WITH s AS (SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id "
                "ORDER BY updated_at DESC) AS rn FROM %1 WHERE dt = DATE '2025-05-14') WHERE rn = "
                "1), t AS (SELECT * FROM %2 WHERE dt = DATE '2025-05-14') SELECT "
                "COUNT_IF(t.order_id IS NULL), COUNT_IF(t.order_id IS NOT NULL AND (s.amount <> "
                "t.amount OR s.region IS DISTINCT FROM t.region OR s.updated_at <> t.updated_at)), "
                "COUNT_IF(t.order_id IS NOT NULL AND s.amount = t.amount AND s.region IS NOT "
                "DISTINCT FROM t.region AND s.updated_at = t.updated_at), COUNT(*) FROM s LEFT "
                "JOIN t ON s.order_id = t.order_id")
                .arg(src, tgt));
        QVERIFY2(hand && hand->next(), hand ? "" : qPrintable(hand.error().message));
        QCOMPARE(day.value(QStringLiteral("inserted")).toInteger(), hand->value(0).toLongLong());
        QCOMPARE(hand->value(1).toLongLong(), 2LL);
        QCOMPARE(day.value(QStringLiteral("updated")).toInteger(), hand->value(1).toLongLong());
        QCOMPARE(day.value(QStringLiteral("unchanged")).toInteger(), hand->value(2).toLongLong());
        QCOMPARE(day.value(QStringLiteral("staged_rows")).toInteger(), hand->value(3).toLongLong());
        QCOMPARE(day.value(QStringLiteral("duplicates_dropped")).toInteger(), 1);
        QCOMPARE(day.value(QStringLiteral("deleted")).toInteger(), 0);
        // amount: two rows changed, 20 -> 10 and 6 -> 5; the day's sum 29 -> 25
        // with key 3's 7 put in.
        const QJsonArray columns = day.value(QStringLiteral("columns")).toArray();
        QJsonObject amount;
        for (const QJsonValue &c : columns)
            if (c.toObject().value(QStringLiteral("column")).toString() == QLatin1String("amount"))
                amount = c.toObject();
        QVERIFY2(!amount.isEmpty(), qPrintable(preview.out));
        QCOMPARE(amount.value(QStringLiteral("changed")).toInteger(), 2);
        QCOMPARE(amount.value(QStringLiteral("sum_before")).toDouble(), 29.0);
        QCOMPARE(amount.value(QStringLiteral("sum_after")).toDouble(), 25.0);

        // Nothing written to the warehouse: the target as it was, no work
        // table or scratch schema left; the plan is in control.db.
        auto rows = db->scalar(QStringLiteral("SELECT COUNT(*) FROM %1").arg(tgt));
        QVERIFY(rows);
        QCOMPARE(rows->toLongLong(), 3LL);
        QCOMPARE(scratchSchemas(*db), scratchBefore);
        auto control = Database::open(dir.filePath(QStringLiteral("control.db")));
        QVERIFY(control);
        auto plans = control->scalar(QStringLiteral("SELECT COUNT(*) FROM rewind_plans"));
        QVERIFY(plans);
        QCOMPARE(plans->toLongLong(), 1LL);
        // The audit log and the runs, read from the control store.
        const QStringList ws{QStringLiteral("--db"), trinoUrl(), QStringLiteral("--spec"), spec,
                             QStringLiteral("--json")};
        CliResult audit = runCli(QStringList{QStringLiteral("audit")} + ws);
        QVERIFY2(audit.exitCode == 0, qPrintable(audit.err));
        const QJsonArray entries = QJsonDocument::fromJson(audit.out.toUtf8())
                                       .object()
                                       .value(QStringLiteral("audit"))
                                       .toArray();
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries.at(0).toObject().value(QStringLiteral("action")).toString(),
                 QStringLiteral("preview"));
        QCOMPARE(entries.at(0).toObject().value(QStringLiteral("dataset")).toString(),
                 QStringLiteral("sales"));
        CliResult verified =
            runCli(QStringList{QStringLiteral("audit"), QStringLiteral("--verify")} + ws);
        QVERIFY2(verified.exitCode == 0, qPrintable(verified.err));
        QVERIFY(QJsonDocument::fromJson(verified.out.toUtf8())
                    .object()
                    .value(QStringLiteral("verified"))
                    .toBool());
        CliResult runs = runCli(QStringList{QStringLiteral("runs")} + ws);
        QVERIFY2(runs.exitCode == 0, qPrintable(runs.err));
        QVERIFY(QJsonDocument::fromJson(runs.out.toUtf8())
                    .object()
                    .value(QStringLiteral("runs"))
                    .toArray()
                    .isEmpty());
        for (const QString &t : {src, tgt})
            QVERIFY(db->exec(QStringLiteral("DROP TABLE %1").arg(t)));
    }

    void wrongCatalogIsAnError() {
        REQUIRE_TRINO();
        QString url = trinoUrl();
        url = url.left(url.lastIndexOf(u'/')) + QStringLiteral("/no_such_schema_x");
        auto db = Database::open(url);
        QVERIFY(db); // the server answers; the schema is checked by statements
        auto relations = db->relations();
        QVERIFY(relations);
        QVERIFY(relations->isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestTrino)
#include "tst_trino.moc"
